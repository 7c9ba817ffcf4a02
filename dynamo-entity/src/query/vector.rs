//! Vector search: the items nearest a query vector in a vector index, with DynamoDB's
//! `SearchVectors`, decoded into entities with their scores.
//!
//! An entity declares the index on its `Vec<f32>` field (see
//! [`schema::vector`](crate::schema::vector)); `#[derive(Entity)]` generates
//! `Entity::search_<field>(vector)`, a [`VectorSearch`] that
//! [`Table::search`] turns into a [`SearchRequest`]:
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "DOC#<id>", sk = "META")]
//! struct Doc {
//!     id: String,
//!     tenant: String,
//!     lang: String,
//!     #[entity(vector(index = "DocsByMeaning", dimensions = 3, distance = cosine, hash = tenant, filters(lang)))]
//!     embedding: Vec<f32>,
//! }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let page = table
//!     .search(Doc::search_embedding(vec![0.1, 0.9, 0.0]))
//!     .filter(Doc::TENANT, &"acme".to_owned())   // the HASH attribute: required
//!     .filter(Doc::LANG, &"en".to_owned())       // an INLINE_FILTER attribute: optional
//!     .page_items(5)
//!     .send()
//!     .await?;
//! for hit in &page.hits {
//!     println!("{} at {}", hit.item.id, hit.score);
//! }
//! let next = table.search(Doc::search_embedding(vec![0.1, 0.9, 0.0]))
//!     .filter(Doc::TENANT, &"acme".to_owned())
//!     .filter(Doc::LANG, &"en".to_owned())
//!     .page_items(5)
//!     .after(page.cursor)
//!     .send()
//!     .await?;
//! # let _ = next;
//! # Ok(())
//! # }
//! ```
//!
//! DynamoDB's rules, checked before sending ([`Error::Invalid`] naming the entity, the index
//! and the attribute):
//!
//! | rule | DynamoDB |
//! |---|---|
//! | the query vector has exactly the index's dimensions, every element a finite `f32` | "Input search vector dimension ... does not match" |
//! | 1 to 100 results a request (`TopK`) | "Provided TopK value ... is out of valid range" |
//! | filters are `attribute = value` joined by `AND`, one per attribute, on the index's search schema only, of its type | "Invalid SearchConditionExpression" |
//! | an index with a `HASH` attribute is searched with its value | "SearchConditionExpression must be provided when SearchSchema has a HASH key" |
//!
//! **Edge values.** DynamoDB documents a query vector's elements as 32-bit IEEE-754 floats
//! (the API reference, `SearchVectors`, `SearchVector`), and a number as finite: NaN and the
//! infinities are refused before sending. It documents nothing more: not a zero vector (all
//! 0.0) under `COSINE`, whose cosine is undefined, nor the largest floats (`f32::MAX` is sent
//! as `340282350000000000000000000000000000000`, a DynamoDB number). Both are sent as they
//! are, and DynamoDB's answer is returned.
//!
//! **Pages.** `SearchVectors` has no `LastEvaluatedKey`: a request returns its `TopK` nearest
//! items, at most 100. A page's [`Cursor`] holds how many results the pages before it
//! returned; the next page asks for that many more and leaves out the ones returned before,
//! so each page reads (and is billed for) the pages before it too, and the search ends at the
//! 100th result. DynamoDB orders equal scores in no fixed order, so a page boundary between
//! equal scores may repeat or skip one of them. A cursor is bound to its search (index,
//! vector and filters): given to another, it is [`Error::Cursor`].
//!
//! **Results.** The search asks for every attribute the entity is decoded from by name
//! (`ProjectionExpression`): by default `SearchVectors` leaves the vector attribute out of
//! its results, and the entity's vector field is decoded from it. Items of other entities in
//! the same index are passed over.
//!
//! **Engines.** DynamoDB Local has no `SearchVectors`: a search there is
//! [`Error::Unsupported`]. Dynoxide (`dynamo-entity-local`'s embedded engine) implements it.

use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::search_vectors::SearchVectorsInput;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::Field;
use crate::key::KeyType;
use crate::query::Cursor;
use crate::schema::vector::{MAX_TOP_K, VectorIndex, count};
use crate::schema::{Admits, Entity, Item};
use crate::table::{Call, Table};
use crate::value::Attribute;

/// The results a page holds unless [`SearchRequest::page_items`] says otherwise.
pub const DEFAULT_PAGE_ITEMS: u32 = 10;

/// A search of entity `E`'s vector index with a query vector, from the generated
/// `E::search_<field>(vector)`; [`Table::search`] sends it.
pub struct VectorSearch<E> {
    index: &'static VectorIndex,
    vector: Vec<f32>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> std::fmt::Debug for VectorSearch<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("VectorSearch").field("index", &self.index.name).field("vector", &self.vector).finish()
    }
}

impl<E: Entity> VectorSearch<E> {
    /// A search of `index` (one of `E`'s vector indexes) for the items nearest `vector`. Made by
    /// generated code (`E::search_<field>`).
    #[doc(hidden)]
    pub fn new(index: &'static VectorIndex, vector: Vec<f32>) -> VectorSearch<E> {
        VectorSearch { index, vector, _entity: PhantomData }
    }

    /// The index searched.
    pub fn index(&self) -> &'static VectorIndex {
        self.index
    }
}

impl<D> Table<D> {
    /// A `SearchVectors` request of `search` (from `E::search_<field>(vector)`), to narrow
    /// with [`filter`](SearchRequest::filter) and send; see [`query::vector`](crate::query::vector).
    /// On a declared handle (`Table<D>`), of `D`'s entities only.
    ///
    /// ```no_run
    /// # use dynamo_entity::{Entity, Table};
    /// # #[derive(Entity, Debug, Clone)]
    /// # #[entity(pk = "DOC#<id>", sk = "META")]
    /// # struct Doc { id: String, #[entity(vector(index = "DocsByMeaning", dimensions = 2, distance = euclidean))] embedding: Vec<f32> }
    /// # async fn f(table: Table) -> dynamo_entity::Result<()> {
    /// let nearest = table.search(Doc::search_embedding(vec![1.0, 0.0])).page_items(3).send().await?;
    /// # Ok(()) }
    /// ```
    pub fn search<E: Entity>(&self, search: VectorSearch<E>) -> SearchRequest<E>
    where
        D: Admits<E>,
    {
        SearchRequest {
            table: self.untyped(),
            index: search.index,
            vector: search.vector,
            filters: Vec::new(),
            error: None,
            page_items: DEFAULT_PAGE_ITEMS,
            after: None,
            _entity: PhantomData,
        }
    }
}

/// A `SearchVectors` request of entity `E`, from [`Table::search`].
#[must_use = "a search does nothing until it is sent"]
pub struct SearchRequest<E> {
    table: Table,
    index: &'static VectorIndex,
    vector: Vec<f32>,
    /// The `attribute = value` conditions, in the order given.
    filters: Vec<(&'static str, AttributeValue)>,
    /// The first mistake of a builder call ([`Error::Invalid`]'s reason), returned by `send`.
    error: Option<String>,
    page_items: u32,
    after: Option<Cursor>,
    _entity: PhantomData<fn() -> E>,
}

/// One result of a search: the entity and its score.
#[derive(Debug, Clone, PartialEq)]
pub struct Hit<E> {
    /// The item, decoded.
    pub item: E,
    /// Its score by the index's distance function (`Score`): lower is nearer for `COSINE`
    /// and `EUCLIDEAN`, higher for `DOT_PRODUCT`.
    pub score: f64,
}

/// One page of a search, nearest first.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchPage<E> {
    /// The results, nearest first.
    pub hits: Vec<Hit<E>>,
    /// Where the next page starts; `None` when the search returned fewer results than it
    /// asked for, or reached DynamoDB's 100 results.
    pub cursor: Option<Cursor>,
    /// Results of other entities in the index, passed over.
    pub passed_over: usize,
    /// The bytes DynamoDB bills the request for (`ConsumedCapacity.VectorSearchRequestBytes`),
    /// when it reports them.
    pub search_bytes: Option<f64>,
}

impl<E: Entity> SearchRequest<E> {
    /// Keeps the items whose `field` equals `value` (`#f = :v` in the
    /// `SearchConditionExpression`). The field must be in the index's search schema (its
    /// `hash` or one of its `filters`); the index's `hash` field must be given.
    ///
    /// # Errors
    /// Returned by [`send`](Self::send) and [`render`](Self::render):
    /// [`Error::Invalid`] naming the entity, the index and the attribute when the field is not in
    /// the search schema, is given twice, or its value is absent (`None`), of another type
    /// than the schema says, or an empty string for the `hash` attribute.
    pub fn filter<T: Attribute, M>(mut self, field: Field<E, T, M>, value: &T) -> Self {
        if self.error.is_none() {
            if let Err(reason) = self.push_filter(field.attribute, value) {
                self.error = Some(reason);
            }
        }
        self
    }

    fn push_filter<T: Attribute>(&mut self, attribute: &'static str, value: &T) -> Result<(), String> {
        let entity = E::SCHEMA.label;
        let index = self.index.name;
        let invalid = |why: String| format!("SearchVectors of {entity} on {index}: {why}");
        let Some(schema) = self.index.search_attributes().find(|a| a.attribute == attribute) else {
            return Err(invalid(format!(
                "{attribute} is not in the index's search schema ({}); DynamoDB filters a vector search on its \
                 search schema attributes only",
                self.index.search_attributes().map(|a| a.attribute).collect::<Vec<_>>().join(", ")
            )));
        };
        if self.filters.iter().any(|(a, _)| *a == attribute) {
            return Err(invalid(format!("{attribute} is filtered twice; DynamoDB takes one condition per attribute")));
        }
        let encoded = value
            .to_attribute()
            .map_err(|e| invalid(format!("the value of {attribute} cannot be stored: {e}")))?
            .ok_or_else(|| invalid(format!("the value of {attribute} is absent; a filter compares with a value")))?;
        let found = crate::value::type_name(&encoded);
        let expected = match schema.key_type {
            KeyType::S => "S",
            KeyType::N => "N",
            KeyType::B => "B",
        };
        if found != expected {
            return Err(invalid(format!("{attribute} is {expected} in the search schema, the value is {found}")));
        }
        let is_hash = self.index.hash.is_some_and(|h| h.attribute == attribute);
        if is_hash && matches!(&encoded, AttributeValue::S(s) if s.is_empty()) {
            return Err(invalid(format!("{attribute} is the index's HASH attribute, which cannot be empty")));
        }
        self.filters.push((attribute, encoded));
        Ok(())
    }

    /// The most results on a page, 1 to 100 (DynamoDB's `TopK`; 10 unless set). With a
    /// cursor, the request asks for the results before it too (at most 100 in all).
    ///
    /// # Errors
    /// [`Error::Invalid`] from [`send`](Self::send) for 0 or more than 100.
    pub fn page_items(mut self, n: u32) -> Self {
        self.page_items = n;
        self
    }

    /// Starts after the page that returned `cursor` (`None`: from the nearest).
    ///
    /// # Errors
    /// [`Error::Cursor`] from [`send`](Self::send) for a cursor of another search.
    pub fn after(mut self, cursor: impl Into<Option<Cursor>>) -> Self {
        self.after = cursor.into();
        self
    }

    /// The number of results the pages before this one returned (from the cursor).
    fn skip(&self) -> Result<u32, Error> {
        let Some(cursor) = &self.after else { return Ok(0) };
        let bad = || Error::Cursor {
            reason: format!("{cursor} is not a cursor of this search of {} on {}", E::SCHEMA.label, self.index.name),
        };
        let text = cursor.as_str().strip_prefix("vs1.").ok_or_else(bad)?;
        let (returned, print) = text.split_once('.').ok_or_else(bad)?;
        if print != format!("{:016x}", self.fingerprint()) {
            return Err(bad());
        }
        returned.parse::<u32>().ok().filter(|n| (1..MAX_TOP_K).contains(n)).ok_or_else(bad)
    }

    /// A hash of what the search is (index, vector, filters): FNV-1a, stable across builds.
    fn fingerprint(&self) -> u64 {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut eat = |bytes: &[u8]| {
            for b in bytes {
                h ^= u64::from(*b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        };
        eat(self.index.name.as_bytes());
        for x in &self.vector {
            eat(&x.to_bits().to_le_bytes());
        }
        for (a, v) in &self.filters {
            eat(a.as_bytes());
            eat(format!("{v:?}").as_bytes());
        }
        h
    }

    /// The `SearchVectors` input this request sends, checked as [`send`](Self::send) checks it.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the entity and index: a query vector whose length is not the
    /// index's dimensions or with an element that is not a finite number, a page size outside
    /// 1 to 100, a missing `hash` filter, or a filter's mistake
    /// ([`filter`](Self::filter)); [`Error::Cursor`] for a cursor of another search.
    pub fn render(&self) -> Result<SearchVectorsInput, Error> {
        self.plan().map(|(input, _)| input)
    }

    fn plan(&self) -> Result<(SearchVectorsInput, u32), Error> {
        if let Some(reason) = &self.error {
            return Err(Error::Invalid { reason: reason.clone() });
        }
        let entity = E::SCHEMA.label;
        let index = self.index;
        let invalid =
            |why: String| Error::Invalid { reason: format!("SearchVectors of {entity} on {}: {why}", index.name) };
        if self.vector.len() != index.dimensions as usize {
            return Err(invalid(format!(
                "the query vector has {} and the index {}; DynamoDB searches with a vector of exactly the index's \
                 dimensions",
                count(self.vector.len(), "element"),
                count(index.dimensions as usize, "dimension")
            )));
        }
        let mut vector = Vec::with_capacity(self.vector.len());
        for (i, x) in self.vector.iter().enumerate() {
            match x.to_attribute() {
                Ok(Some(v)) => vector.push(v),
                _ => {
                    return Err(invalid(format!(
                        "element {i} of the query vector is {x}; DynamoDB takes finite 32-bit numbers only"
                    )));
                }
            }
        }
        if !(1..=MAX_TOP_K).contains(&self.page_items) {
            return Err(invalid(format!(
                "page_items({}): DynamoDB returns 1 to {MAX_TOP_K} results a search (TopK)",
                self.page_items
            )));
        }
        if let Some(h) = index.hash {
            if !self.filters.iter().any(|(a, _)| *a == h.attribute) {
                return Err(invalid(format!(
                    "the index's HASH attribute {} is not filtered; DynamoDB searches an index with a HASH attribute \
                     one value of it at a time: add .filter({}::{}, &value)",
                    h.attribute,
                    E::SCHEMA.rust_name,
                    h.handle
                )));
            }
        }
        let skip = self.skip()?;
        let top_k = (skip + self.page_items).min(MAX_TOP_K);
        let mut b = SearchVectorsInput::builder()
            .table_name(self.table.name())
            .index_name(index.name)
            .set_search_vector(Some(vector))
            .top_k(i32::try_from(top_k).unwrap_or(100))
            .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Total);
        let mut condition = Vec::new();
        for (i, (a, v)) in self.filters.iter().enumerate() {
            condition.push(format!("#f{i} = :f{i}"));
            b = b
                .expression_attribute_names(format!("#f{i}"), *a)
                .expression_attribute_values(format!(":f{i}"), v.clone());
        }
        if !condition.is_empty() {
            b = b.search_condition_expression(condition.join(" AND "));
        }
        // Every attribute the entity is decoded from, the vector's included (left out unless
        // asked for).
        let schema = E::SCHEMA;
        let names = schema.names;
        let mut attributes = vec![names.pk, names.sk];
        if names.has_entity_type() {
            attributes.push(names.entity_type);
        }
        attributes.extend(crate::schema::evolve::written_attributes(schema));
        let mut projection = Vec::new();
        for (i, a) in attributes.iter().enumerate() {
            projection.push(format!("#p{i}"));
            b = b.expression_attribute_names(format!("#p{i}"), *a);
        }
        b = b.projection_expression(projection.join(", "));
        let input = b.build().map_err(|e| Error::Invalid { reason: e.to_string() })?;
        Ok((input, skip))
    }

    /// Sends the search and decodes the page.
    ///
    /// # Errors
    /// As [`render`](Self::render), before sending; [`Error::Unsupported`] on an engine
    /// without `SearchVectors` (DynamoDB Local); [`Error::Decode`] for a result of the entity
    /// that does not decode; [`Error::Sdk`].
    pub async fn send(self) -> Result<SearchPage<E>, Error> {
        let (input, skip) = self.plan()?;
        let asked = input.top_k.unwrap_or_default();
        let request = self
            .table
            .client()
            .search_vectors()
            .set_table_name(input.table_name)
            .set_index_name(input.index_name)
            .set_search_vector(input.search_vector)
            .set_top_k(input.top_k)
            .set_search_condition_expression(input.search_condition_expression)
            .set_expression_attribute_names(input.expression_attribute_names)
            .set_expression_attribute_values(input.expression_attribute_values)
            .set_projection_expression(input.projection_expression)
            .set_return_consumed_capacity(input.return_consumed_capacity);
        let out = self
            .table
            .execute(Call::new("SearchVectors", E::TYPE).index(self.index.name), request.send())
            .await
            .map_err(|e| Error::sdk_or_unsupported("SearchVectors", e))?;
        let results = out.search_results.unwrap_or_default();
        let returned = results.len();
        let mut hits = Vec::new();
        let mut passed_over = 0;
        for r in results.into_iter().skip(skip as usize) {
            let item: Item = r.item.unwrap_or_default();
            if !crate::owner::owns(E::SCHEMA, &item) {
                passed_over += 1;
                continue;
            }
            hits.push(Hit { item: E::from_item(&item)?, score: r.score });
        }
        let more = u32::try_from(returned).ok() == u32::try_from(asked).ok() && (asked as u32) < MAX_TOP_K;
        let cursor = more.then(|| Cursor(format!("vs1.{}.{:016x}", asked, self.fingerprint())));
        Ok(SearchPage {
            hits,
            cursor,
            passed_over,
            search_bytes: out.consumed_capacity.and_then(|c| c.vector_search_request_bytes),
        })
    }
}

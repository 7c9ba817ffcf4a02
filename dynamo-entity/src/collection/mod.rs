//! Item collections: every item that shares one partition key, read in one query and decoded
//! by the entity type attribute.
//!
//! A query of a partition returns its [`Items`], not yet decoded. `#[derive(Collection)]` on a
//! struct names the entity types of a collection and how many of each it holds (`E`: exactly
//! one, `Option<E>`: at most one, `Vec<E>`: any number); `#[derive(EntityEnum)]` on an enum
//! whose variants each hold one entity decodes any item of those types (a table-level enum of
//! every entity serves scans, stream records and exports).
//!
//! ```no_run
//! use dynamo_entity::{Collection, Entity, EntityEnum, Table};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "USER#<id>", sk = "PROFILE")]
//! struct User { id: String, name: String }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META")]
//! struct Skill { id: String, title: String }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>")]
//! struct Review { skill_id: String, id: String, stars: u8 }
//!
//! #[derive(Collection)]
//! struct SkillPage { skill: Skill, reviews: Vec<Review> }
//!
//! #[derive(EntityEnum)]
//! enum AnyItem { User(User), Skill(Skill), Review(Review) }
//!
//! # async fn f(table: Table, id: &str) -> dynamo_entity::Result<()> {
//! // PK = SKILL#<id>: the skill (SK = META) and its reviews (SK = REVIEW#…) in one query.
//! let collection = table.collection(Skill::query(id)).send().await?;
//! let page: SkillPage = collection.decode()?;
//! let items: Vec<AnyItem> = collection.decode_each()?;
//! # let _ = (page, items);
//! # Ok(())
//! # }
//! ```

mod items;
mod lenient;
mod strict;

use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

pub use crate::collection::items::Items;
pub use crate::collection::lenient::LenientItems;
pub use crate::collection::strict::StrictItems;
use crate::error::Error;
use crate::owner::{is_library_item, type_of_named};
use crate::query::QuerySpec;
use crate::query::pages::{Answer, Paging, read_page};
use crate::schema::{AttributeNames, Entity, Index, Item, PrimaryKey, TYPE_ATTRIBUTE};
pub use crate::schema::{Collection, EntityEnum, Unknown};
use crate::table::{Call, Table};

/// A query of a whole partition of an index, every entity type included; from
/// [`Table::collection`].
#[must_use = "a query does nothing until it is sent"]
pub struct CollectionRequest {
    table: Table,
    /// The attribute and index names of the entity whose query selected the partition.
    names: &'static AttributeNames,
    /// That entity's type name (named by the errors of a second read).
    entity: &'static str,
    index: Index,
    pk: Result<AttributeValue, Error>,
    consistent: bool,
}

impl CollectionRequest {
    pub(crate) fn new<E: Entity, S>(table: Table, spec: QuerySpec<E, S>) -> Self {
        let (index, pk) = spec.into_parts();
        CollectionRequest { table, names: E::NAMES, entity: E::TYPE, index, pk, consistent: false }
    }

    /// Strongly consistent reads (primary index only).
    pub fn consistent_read(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Reads every page of the partition (one `Query` per 1 MB).
    ///
    /// Through a secondary index whose projection leaves the type attribute out (`KEYS_ONLY`),
    /// the index items say nothing of their entity: their whole items are read by primary key
    /// (`BatchGetItem`, 100 keys a request, unprocessed keys retried), in the index's order, so
    /// that the collection holds every item of the partition; an item deleted between the two
    /// reads is left out.
    ///
    /// # Errors
    /// The partition key's encoding error before sending; [`Error::Sdk`]; [`Error::BatchGet`]
    /// when the whole items could not all be read.
    pub async fn send(self) -> Result<Items, Error> {
        let pk = self.pk.as_ref().map_err(Error::copy_of_build_error)?;
        let paging = Paging { limit: None, page_size: None, to_the_end: true, lenient: false };
        let call = Call::new("Query", "").index(self.names.index_name(self.index).unwrap_or(""));
        let this = &self;
        // A collection has no cursor: it reads on to the end.
        let loaded = read_page(
            paging,
            self.names,
            None,
            |_, start| {
                let request = crate::table::body::query(this.table.client(), this.request(pk, start));
                async move {
                    let out = this.table.execute(call, request).await.map_err(|e| {
                        let partition =
                            format!("{}={}", this.names.pk_of(this.index), crate::key::names::describe_value(pk));
                        Error::sdk("Query", e).on_partition("", &partition, &partition)
                    })?;
                    Ok(Answer::of_query(out))
                }
            },
            |item: &mut Item| Ok(Some(std::mem::take(item))),
            None,
        )
        .await?;
        let items = loaded.items;
        let items = self.hydrate(items).await?;
        let entities = Some(self.table.layout_entities_shared());
        Ok(Items { items, type_attribute: self.names.entity_type, names: self.names, entities })
    }

    /// Replaces the index items of `items` that a projection left partial by the whole items:
    /// in a typed table, those without the type attribute; in a table without one, every item
    /// of an index whose projection is `KEYS_ONLY` or `INCLUDE` (when the handle knows the
    /// layout), else those that hold key attributes only.
    async fn hydrate(&self, items: Vec<Item>) -> Result<Vec<Item>, Error> {
        let names = self.names;
        let index = self.index;
        let projection = if index == Index::Primary { None } else { self.table.projection(index) };
        let keys = [names.pk, names.sk, names.pk_of(index), names.sk_of(index)];
        let projected = |i: &Item| {
            index != Index::Primary
                && if names.has_entity_type() {
                    !i.contains_key(names.entity_type)
                } else {
                    match projection {
                        Some(crate::schema::Projection::All) => false,
                        Some(_) => true,
                        None => i.keys().all(|k| keys.contains(&k.as_str())),
                    }
                }
        };
        if !items.iter().any(projected) {
            return Ok(items);
        }
        let mut batch = self.table.batch_get_mixed();
        for item in items.iter().filter(|i| projected(i)) {
            let part = |a: &str| item.get(a).cloned().unwrap_or(AttributeValue::Null(true));
            batch = batch.primary_key(self.entity, names, PrimaryKey { pk: part(names.pk), sk: part(names.sk) });
        }
        let mut whole = batch.send().await?.into_result()?.into_iter();
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if projected(&item) {
                // `None`: deleted since the index was read.
                out.extend(whole.next().flatten());
            } else {
                out.push(item);
            }
        }
        Ok(out)
    }

    /// One `Query` request of the partition, from `start`.
    fn request(&self, pk: &AttributeValue, start: Option<Item>) -> QueryInputBuilder {
        aws_sdk_dynamodb::operation::query::QueryInput::builder()
            .table_name(self.table.name())
            .set_index_name(self.names.index_name(self.index).map(str::to_owned))
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", self.names.pk_of(self.index))
            .expression_attribute_values(":pk", pk.clone())
            .set_exclusive_start_key(start)
            .consistent_read(self.consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// The first `Query` request [`send`](Self::send) sends, built by the same code, without
    /// sending it (the next pages only add `ExclusiveStartKey`).
    ///
    /// # Errors
    /// The partition key's encoding error.
    pub fn render(&self) -> Result<QueryInput, Error> {
        let pk = self.pk.as_ref().map_err(Error::copy_of_build_error)?;
        crate::table::render::built(self.request(pk, None).build())
    }
}

/// The error of an item that the entity enum `A` has no variant for.
pub(crate) fn unexpected<A: EntityEnum>(item: &Item, names: &AttributeNames) -> Error {
    Error::unexpected_item(std::any::type_name::<A>().rsplit("::").next().unwrap_or_default(), item, names)
}

/// Logs an item a collection or enum leaves out because it names no entity of theirs (the
/// library's own items are left out without a word).
pub(crate) fn warn_unknown(item: &Item, names: &AttributeNames) {
    if is_library_item(item, names) {
        return;
    }
    tracing::warn!(
        entity = type_of_named(item, names.entity_type).unwrap_or("<none>"),
        key = %names.describe_key(item),
        "skipped an item of an entity type the collection does not name"
    );
}

/// The entity type attribute (`_type`) of an item, if it is a string.
pub fn type_of(item: &Item) -> Option<&str> {
    type_of_named(item, TYPE_ATTRIBUTE)
}

impl<D> Table<D> {
    /// A query of a whole partition (an item collection), every entity type included, from the
    /// same `E::query(...)` / `E::gsiN(...)` that selects the partition; it returns the
    /// partition's [`Items`], to decode as a [`Collection`] or item by item. On a declared
    /// handle (`Table<D>`), of a partition that an entity of `D` keys.
    pub fn collection<E: Entity, S>(&self, spec: QuerySpec<E, S>) -> CollectionRequest
    where
        D: crate::schema::Admits<E>,
    {
        CollectionRequest::new(self.untyped(), spec)
    }
}

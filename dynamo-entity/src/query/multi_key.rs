//! Queries of a multi-attribute GSI (see [`multi_key`](crate::schema::multi_key)).
//!
//! The generated `E::gsiN(...)` of an index declared `gsiN(pk(tenant, region), sk(status,
//! created_at))` takes every partition key attribute (all are required: DynamoDB's key condition
//! names each with `=`) and returns a builder typed by the index, whose methods follow the sort
//! key attributes in order:
//!
//! ```no_run
//! use dynamo_entity::{Entity, KeyPart, Table, TableDef, Timestamp};
//!
//! #[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
//! pub enum Status { Open, Closed }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "TICKET#<id>", sk = "META", table = Desk, rename_all = "camelCase",
//!          gsi6(pk(tenant, region), sk(status, created_at)))]
//! pub struct Ticket {
//!     pub id: String,
//!     pub tenant: String,
//!     pub region: String,
//!     pub status: Option<Status>, // `None`: not in GSI6 (sparse)
//!     pub created_at: Timestamp,
//! }
//!
//! #[derive(TableDef)]
//! #[table(entities(Ticket), gsi6(projection = all))]
//! pub struct Desk;
//!
//! # async fn run(table: Table, since: Timestamp, from: Timestamp, to: Timestamp) -> dynamo_entity::Result<()> {
//! // tenant = :p0 AND region = :p1 AND status = :s0 AND createdAt > :s1
//! let page = table
//!     .query(Ticket::gsi6("acme", "eu").status_eq(&Status::Open).created_at_gt(&since))
//!     .descending()
//!     .page_items(20)
//!     .send()
//!     .await?;
//! // tenant = :p0 AND region = :p1 AND status = :s0 AND createdAt BETWEEN :lo AND :hi
//! let open: Vec<Ticket> = table
//!     .query(Ticket::gsi6("acme", "eu").status_eq(&Status::Open).created_at_between(&from, &to))
//!     .all()
//!     .await?;
//! # let _ = (page, open);
//! # Ok(())
//! # }
//! ```
//!
//! At each step the builder offers `<field>_eq` on the next sort key attribute (then the one
//! after it), or one range condition on it (`_lt`, `_le`, `_gt`, `_ge`, `_between`, and
//! `_begins_with` for a string or binary attribute), after which no condition follows. So a
//! range before an equality, a condition that skips a sort key attribute, or a second range do
//! not compile: exactly the key conditions DynamoDB accepts. The query is then run with [`Table::query`] and
//! has the options of any query: order, item counts, page size, cursors bound to it, filters, pages and
//! streams.

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::{Stream, StreamExt, TryStreamExt};

use super::options::{QueryOptions, check_query};
use super::{Page, Slot, cursor, primary_key_of};
use crate::error::Error;
use crate::key::{KeyError, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::owner::Found;
use crate::schema::multi_key::{MultiKeyAttr, MultiKeyIndex, check_aggregate, check_value};
use crate::schema::{Entity, Item};
use crate::table::{Call, Table};
use crate::value::{ValueError, compare_numbers};

/// The range condition on the sort key attribute after the equalities.
#[derive(Debug, Clone, PartialEq)]
enum Range {
    /// `<`, `<=`, `>` or `>=`.
    Cmp(&'static str, AttributeValue),
    Between(AttributeValue, AttributeValue),
    BeginsWith(AttributeValue),
}

/// The key condition of a query of a multi-attribute GSI: the partition key attributes' values,
/// the equalities on a leading run of sort key attributes and at most one range condition on
/// the next. Built by the generated, index-typed builder (see the [module](self)); run it with
/// [`Table::query`].
pub struct MultiKeySpec<E> {
    index: &'static MultiKeyIndex,
    entity: &'static str,
    pk: PkValues,
    sk: Vec<AttributeValue>,
    /// Boxed, as the error below: a range and an error are the rarer cases, and the spec and
    /// its query are moved whole at every builder step.
    range: Option<Box<Range>>,
    /// The first value that could not be encoded.
    error: Option<Box<Error>>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> std::fmt::Debug for MultiKeySpec<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MultiKeySpec")
            .field("entity", &self.entity)
            .field("index", &self.index.index)
            .field("pk", &self.pk.as_slice())
            .field("sk", &self.sk)
            .field("range", &self.range)
            .finish()
    }
}

impl<E: Entity> MultiKeySpec<E> {
    /// Used by generated code: the index, the entity type name and the partition key
    /// attributes' values, in key schema order.
    /// (The generated code passes an array: no vector is allocated only to be taken apart.)
    pub fn new(
        index: &'static MultiKeyIndex,
        entity: &'static str,
        pk: impl IntoIterator<Item = Result<AttributeValue, ValueError>>,
    ) -> Self {
        let mut spec = MultiKeySpec {
            index,
            entity,
            pk: PkValues::None,
            sk: Vec::new(),
            range: None,
            error: None,
            _entity: PhantomData,
        };
        for (i, v) in pk.into_iter().enumerate() {
            if let Some(v) = spec.value(index.pk.get(i), v, MAX_PARTITION_KEY_BYTES) {
                spec.pk.push(v);
            }
        }
        // One attribute alone is within the side's limit: `value` checked it.
        if index.pk.len() > 1 {
            let values = index.pk.iter().zip(spec.pk.as_slice());
            if let Err(e) = check_aggregate(entity, E::NAMES.index_name(index.index).unwrap_or_default(), true, values)
            {
                spec.error.get_or_insert_with(|| Box::new(e));
            }
        }
        spec
    }

    /// Whether the sort key equalities with `range` (a value of the condition on the next sort
    /// key attribute, if any) fit DynamoDB's aggregate limit on the sort key attributes; keeps
    /// the error otherwise.
    fn fits(&mut self, range: Option<&AttributeValue>) -> bool {
        let next = self.next_sort().zip(range);
        let values = self.index.sk.iter().zip(&self.sk).chain(next);
        let index = E::NAMES.index_name(self.index.index).unwrap_or_default();
        match check_aggregate(self.entity, index, false, values) {
            Ok(()) => true,
            Err(e) => {
                self.error.get_or_insert_with(|| Box::new(e));
                false
            }
        }
    }

    /// Keeps `value` of attribute `attr`, or its error (the first one).
    fn value(
        &mut self,
        attr: Option<&'static MultiKeyAttr>,
        value: Result<AttributeValue, ValueError>,
        max: usize,
    ) -> Option<AttributeValue> {
        let attr = attr?;
        let checked = value
            .map_err(|source| Error::Encode {
                entity: self.entity,
                field: attr.field,
                attribute: attr.attribute,
                source,
            })
            .and_then(|v| {
                let index = E::NAMES.index_name(self.index.index).unwrap_or_default();
                check_value(self.entity, index, attr, Some(&v), max).map(|()| v)
            });
        match checked {
            Ok(v) => Some(v),
            Err(e) => {
                self.error.get_or_insert_with(|| Box::new(e));
                None
            }
        }
    }

    /// The sort key attribute the next condition applies to.
    fn next_sort(&self) -> Option<&'static MultiKeyAttr> {
        self.index.sk.get(self.sk.len())
    }

    /// Used by generated code: `=` on the next sort key attribute.
    #[must_use]
    pub fn eq(mut self, value: Result<AttributeValue, ValueError>) -> Self {
        if let Some(v) = self.value(self.next_sort(), value, MAX_SORT_KEY_BYTES) {
            self.sk.push(v);
            self.fits(None);
        }
        self
    }

    /// Used by generated code: `op` (`<`, `<=`, `>`, `>=`) on the next sort key attribute.
    #[must_use]
    pub fn cmp(mut self, op: &'static str, value: Result<AttributeValue, ValueError>) -> Self {
        if let Some(v) = self.value(self.next_sort(), value, MAX_SORT_KEY_BYTES)
            && self.fits(Some(&v))
        {
            self.range = Some(Box::new(Range::Cmp(op, v)));
        }
        self
    }

    /// Used by generated code: `BETWEEN low AND high` on the next sort key attribute.
    #[must_use]
    pub fn between(
        mut self,
        low: Result<AttributeValue, ValueError>,
        high: Result<AttributeValue, ValueError>,
    ) -> Self {
        let attr = self.next_sort();
        let low = self.value(attr, low, MAX_SORT_KEY_BYTES);
        let high = self.value(attr, high, MAX_SORT_KEY_BYTES);
        if let (Some(low), Some(high), Some(a)) = (low, high, attr)
            && self.fits(Some(&low))
            && self.fits(Some(&high))
        {
            if reversed(&low, &high) {
                let text = |v: &AttributeValue| match v {
                    AttributeValue::N(n) => n.clone(),
                    AttributeValue::S(s) => format!("{s:?}"),
                    other => cursor::scalar_text(other),
                };
                let e = Error::Key(KeyError::ReversedBetween {
                    entity: self.entity,
                    index: E::NAMES.index_name(self.index.index).unwrap_or_default(),
                    attribute: a.attribute,
                    low: text(&low),
                    high: text(&high),
                });
                self.error.get_or_insert_with(|| Box::new(e));
            } else {
                self.range = Some(Box::new(Range::Between(low, high)));
            }
        }
        self
    }

    /// Used by generated code: `begins_with` on the next sort key attribute (a string or binary). An
    /// empty prefix matches every value, so it is taken as no condition.
    #[must_use]
    pub fn begins_with(mut self, prefix: AttributeValue) -> Self {
        let empty = match &prefix {
            AttributeValue::S(s) => s.is_empty(),
            AttributeValue::B(b) => b.as_ref().is_empty(),
            _ => false,
        };
        if !empty
            && let Some(prefix) = self.value(self.next_sort(), Ok(prefix), MAX_SORT_KEY_BYTES)
            && self.fits(Some(&prefix))
        {
            self.range = Some(Box::new(Range::BeginsWith(prefix)));
        }
        self
    }

    /// The key condition expression with its names and values.
    fn condition(&self) -> (String, HashMap<String, String>, HashMap<String, AttributeValue>) {
        // Sized once: a name and a value per key attribute given, one more name and up to two
        // values for the range; the expression's text written into one buffer (no `format!`).
        let given = self.pk.as_slice().len() + self.sk.len();
        let mut names = HashMap::with_capacity(given + 1);
        let mut values = HashMap::with_capacity(given + 2);
        let mut expr = String::with_capacity(24 * (given + 1));
        // `<sigil><side><i>`: `#p0`, `:s1`.
        let placeholder = |sigil: char, side: char, i: usize| {
            let mut p = String::with_capacity(4);
            p.push(sigil);
            p.push(side);
            push_index(&mut p, i);
            p
        };
        for (side, attrs, vals) in [('p', self.index.pk, self.pk.as_slice()), ('s', self.index.sk, self.sk.as_slice())]
        {
            for (i, (a, v)) in attrs.iter().zip(vals.iter()).enumerate() {
                let (n, val) = (placeholder('#', side, i), placeholder(':', side, i));
                if !expr.is_empty() {
                    expr.push_str(" AND ");
                }
                expr.push_str(&n);
                expr.push_str(" = ");
                expr.push_str(&val);
                names.insert(n, a.attribute.to_owned());
                values.insert(val, v.clone());
            }
        }
        if let (Some(range), Some(a)) = (&self.range, self.next_sort()) {
            let i = self.sk.len();
            let n = placeholder('#', 's', i);
            if !expr.is_empty() {
                expr.push_str(" AND ");
            }
            match &**range {
                Range::Cmp(op, v) => {
                    let val = placeholder(':', 's', i);
                    expr.push_str(&n);
                    expr.push(' ');
                    expr.push_str(op);
                    expr.push(' ');
                    expr.push_str(&val);
                    values.insert(val, v.clone());
                }
                Range::Between(lo, hi) => {
                    values.insert(":lo".to_owned(), lo.clone());
                    values.insert(":hi".to_owned(), hi.clone());
                    expr.push_str(&n);
                    expr.push_str(" BETWEEN :lo AND :hi");
                }
                Range::BeginsWith(p) => {
                    let val = placeholder(':', 's', i);
                    expr.push_str("begins_with(");
                    expr.push_str(&n);
                    expr.push_str(", ");
                    expr.push_str(&val);
                    expr.push(')');
                    values.insert(val, p.clone());
                }
            }
            names.insert(n, a.attribute.to_owned());
        }
        (expr, names, values)
    }

    /// The partition, as text: each partition key attribute's `name=value`.
    fn partition(&self) -> String {
        let parts: Vec<String> = self
            .index
            .pk
            .iter()
            .zip(self.pk.as_slice())
            .map(|(a, v)| format!("{}={}", a.attribute, cursor::scalar_text(v)))
            .collect();
        parts.join(",")
    }
}

/// The values of a query's partition key attributes, in key schema order: the first inline
/// (most indexes have one partition key attribute, which then costs no allocation), more in a
/// vector.
enum PkValues {
    None,
    One(AttributeValue),
    Many(Vec<AttributeValue>),
}

impl PkValues {
    fn push(&mut self, value: AttributeValue) {
        *self = match std::mem::replace(self, PkValues::None) {
            PkValues::None => PkValues::One(value),
            PkValues::One(first) => PkValues::Many(vec![first, value]),
            PkValues::Many(mut values) => {
                values.push(value);
                PkValues::Many(values)
            }
        };
    }

    fn as_slice(&self) -> &[AttributeValue] {
        match self {
            PkValues::None => &[],
            PkValues::One(value) => std::slice::from_ref(value),
            PkValues::Many(values) => values,
        }
    }
}

/// A query of a multi-attribute GSI ready to run; from [`Table::query`] with a
/// [`MultiKeySpec`] (the generated builder converts into one).
#[must_use = "a query does nothing until it is sent"]
pub struct MultiKeyQuery<E> {
    table: Table,
    spec: MultiKeySpec<E>,
    /// Order, item counts, page size, cursor, filter, lenience (a GSI is read eventually consistent).
    pub(crate) options: QueryOptions,
}

/// The parts of the query's requests that its pages share.
struct Parts {
    expr: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    filter: Option<String>,
}

impl<E: Entity> MultiKeyQuery<E> {
    pub(crate) fn new(table: Table, spec: MultiKeySpec<E>) -> Self {
        MultiKeyQuery { table, spec, options: QueryOptions::default() }
    }

    super::options::read_setters!("dynamo_entity::query::multi_key::MultiKeyQuery<E>", "<E: dynamo_entity::Entity>"; filter descending ascending max_items page_items limit page_size after);

    fn scope(&self) -> cursor::Scope {
        let s = &self.spec;
        cursor::Scope {
            entity: s.entity.to_owned(),
            index: cursor::index_label(E::NAMES, s.index.index),
            partition: s.partition(),
            query: cursor::fingerprint(&format!("{}|{:?}|{:?}", self.options.order(), s.sk, s.range)),
        }
    }

    /// The key attributes of an `ExclusiveStartKey` on this index: the table's and the index's.
    fn key_names(&self) -> Vec<&'static str> {
        let mut names = vec![E::NAMES.pk, E::NAMES.sk];
        for a in self.spec.index.attributes() {
            if !names.contains(&a.attribute) {
                names.push(a.attribute);
            }
        }
        names
    }

    fn start(&self) -> Result<Option<Item>, Error> {
        let Some(c) = &self.options.after else { return Ok(None) };
        let key = cursor::decode_keys(c.as_str(), &self.scope(), &self.key_names())?;
        for (a, v) in self.spec.index.pk.iter().zip(self.spec.pk.as_slice()) {
            if key.get(a.attribute) != Some(v) {
                return Err(Error::Cursor {
                    reason: format!("its key lies outside the query's partition ({})", self.spec.partition()),
                });
            }
        }
        Ok(Some(key))
    }

    fn parts(&self) -> Result<Parts, Error> {
        if let Some(e) = &self.spec.error {
            return Err(e.copy_of_build_error());
        }
        let (expr, mut names, mut values) = self.spec.condition();
        let filter = self.options.render_filter(self.spec.entity, &mut names, &mut values)?;
        // Without a filter there is nothing to check against the index's keys and projection
        // (`check_filter` passes at once): the list of key attributes is made only for one.
        if let Some(condition) = self.options.filter.as_ref() {
            let index = self.spec.index.index;
            let keys: Vec<&str> = self.spec.index.pk.iter().chain(self.spec.index.sk).map(|a| a.attribute).collect();
            let projection = self.table.projection(index);
            super::projected::check_filter(
                "Query",
                self.spec.entity,
                E::NAMES,
                index,
                &keys,
                projection,
                Some(condition),
            )?;
        }
        self.options.counts.check(self.options.page_size, "Query", self.spec.entity)?;
        // Without a filter the request's only expression is the key condition: at most four
        // partition and four sort key attributes and a range (well under 300 bytes), names
        // that are the index's key attributes, and values that are key values of at most
        // 2,048 bytes each (checked as the spec was built). That keeps every expression limit
        // by far, so only a filtered query is measured (debug builds check the claim).
        let checked = || {
            check_query(&expr, filter.as_deref(), &names, &values)
                .map_err(|e| e.request("Query", self.spec.entity, self.spec.partition()))
        };
        if filter.is_some() {
            checked()?;
        } else {
            debug_assert!(checked().is_ok(), "a key condition over a limit: {expr}");
        }
        Ok(Parts { expr, names, values, filter })
    }

    /// The request of `parts`, moved into it (no copies): what [`send`](Self::send) sends
    /// and [`render`](Self::render) shows. The filter and start key, mostly absent, are only
    /// set when present (each setter moves the whole builder).
    fn request_of(&self, parts: Parts, limit: Option<i32>, start: Option<Item>) -> QueryInputBuilder {
        macro_rules! common {
            ($builder:expr) => {
                $builder
                    .table_name(self.table.name())
                    .set_index_name(E::NAMES.index_name(self.spec.index.index).map(str::to_owned))
                    .key_condition_expression(parts.expr)
                    .set_expression_attribute_names(Some(parts.names))
                    .set_expression_attribute_values(Some(parts.values))
                    .scan_index_forward(!self.options.descending)
                    .set_limit(limit)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            };
        }
        if parts.filter.is_none() && start.is_none() {
            common!(QueryInput::builder())
        } else {
            common!(QueryInput::builder().set_filter_expression(parts.filter).set_exclusive_start_key(start))
        }
    }

    /// Whether `item` is one of this entity's and how it is taken, or the error that reports
    /// it: the [`owner`](crate::owner) rule, as for the other indexes.
    fn found(&self, item: &Item) -> Result<Option<Found>, Error> {
        let index = self.spec.index.index;
        crate::owner::claim(E::SCHEMA, self.table.view_of::<E>(index), index, item)
    }

    /// Reports the items of this entity type that do not decode instead of failing on them:
    /// each becomes an [`ItemError`](crate::error::ItemError) (its key, the item, the error) in
    /// [`Page::skipped`], beside
    /// the items that decoded, as [`QueryRequest::lenient`](super::QueryRequest::lenient) does.
    /// Set the other options first; see [`Lenient`](super::Lenient).
    pub fn lenient(self) -> super::Lenient<Self> {
        super::Lenient::new(self)
    }

    /// Runs the query and returns one page: up to [`page_items`](Self::page_items) items of this
    /// entity (and at most [`max_items`](Self::max_items)), or without either one DynamoDB
    /// response's worth (at most 1 MB read). Items the index
    /// holds without their entity type attribute (a `KEYS_ONLY` or `INCLUDE` projection) are
    /// read whole by their primary keys (`BatchGetItem`), in the index's order. To read the
    /// keys alone, without that second read, use [`send_keys`](Self::send_keys).
    ///
    /// # Errors
    /// A value or cursor error before anything is sent ([`Error::Encode`], [`Error::Key`] for
    /// an empty string or an over-long value, [`Error::Cursor`], [`Error::FilterNotProjected`]
    /// for a [`filter`](Self::filter) on an attribute the index does not project); [`Error::Sdk`] from
    /// DynamoDB; [`Error::Decode`] naming the first item of this entity that does not decode
    /// (see [`lenient`](Self::lenient)).
    pub async fn send(&self) -> Result<Page<E>, Error> {
        let mut page = self.read(Slot::of).await?;
        let slots = std::mem::take(&mut page.items);
        let items =
            super::hydrate(&self.table, self.spec.index.index, slots, self.options.lenient, &mut page.skipped).await?;
        Ok(page.with_items(items))
    }

    /// As [`send`](Self::send), returning the primary keys of the items instead of the items:
    /// no item is decoded and, through a projected index, no second read is made. The keys
    /// are typed ([`Key<E>`](crate::Key)): get, update or delete the items with them. The
    /// page's cursor is the one [`send`](Self::send) would return.
    ///
    /// # Errors
    /// As [`send`](Self::send), before and while querying.
    pub async fn send_keys(&self) -> Result<Page<crate::schema::Key<E>>, Error> {
        self.read(|item, _| Ok(crate::schema::Key::new(Ok(primary_key_of(item, E::NAMES))))).await
    }

    /// The page loop of [`send`](Self::send) and [`send_keys`](Self::send_keys): each item of
    /// this entity the index returns becomes a `T` through `take`; one that does not decode
    /// fails the page, or for a [lenient](Self::lenient) query goes to [`Page::skipped`].
    async fn read<T>(&self, mut take: impl FnMut(&Item, Found) -> Result<T, Error>) -> Result<Page<T>, Error> {
        // The first page's request takes the parts; a later page's builds them again (the
        // same parts: building them once succeeded), rather than every page copying them.
        let mut parts = Some(self.parts()?);
        let start = self.start()?;
        let scope = self.scope();
        let key_names = self.key_names();
        let call = Call::new("Query", E::TYPE).index(E::NAMES.index_name(self.spec.index.index).unwrap_or(""));
        super::pages::read_page(
            self.options.paging(),
            E::NAMES,
            start,
            |limit, start| {
                let page_parts = match parts.take() {
                    Some(p) => Ok(p),
                    None => self.parts(),
                };
                async move {
                    let request =
                        crate::table::body::query(self.table.client(), self.request_of(page_parts?, limit, start));
                    let out = self.table.execute(call, request).await.map_err(|e| Error::sdk("Query", e))?;
                    Ok(super::pages::Answer::of_query(out))
                }
            },
            |item: &mut Item| match self.found(item)? {
                Some(found) => take(item, found).map(Some),
                None => Ok(None),
            },
            Some(&super::pages::Resume { scope: &scope, keys: &key_names }),
        )
        .await
    }

    /// The first `Query` request [`send`](Self::send) would send, without sending it.
    ///
    /// # Errors
    /// The errors [`send`](Self::send) reports before sending.
    pub fn render(&self) -> Result<QueryInput, Error> {
        let parts = self.parts()?;
        let start = self.start()?;
        let limit = self.options.request_limit(0);
        crate::table::render::built(self.request_of(parts, limit, start).build())
    }

    /// Every page, lazily (see [`QueryRequest::pages`](super::QueryRequest::pages)).
    pub fn pages(self) -> impl Stream<Item = Result<Page<E>, Error>> {
        futures::stream::try_unfold(Some(self), |state| async move {
            let Some(req) = state else { return Ok(None) };
            let page = req.send().await?;
            let next = req.options.next_page(page.cursor.as_ref(), page.items.len());
            Ok(Some((page, next.map(|options| MultiKeyQuery { options, ..req }))))
        })
    }

    /// Every item matching the key condition (up to [`max_items`](Self::max_items) if set),
    /// page by page ([`page_items`](Self::page_items) at a time, if set).
    pub fn stream(self) -> impl Stream<Item = Result<E, Error>> {
        let mut req = self;
        // A total of 0 stays on the pages, which refuse it.
        let limit = req.options.counts.max_items.filter(|&n| n > 0);
        if limit.is_some() {
            req.options.counts.max_items = None;
        }
        let s = req.pages().map_ok(|p| futures::stream::iter(p.items.into_iter().map(Ok))).try_flatten();
        s.take(limit.unwrap_or(usize::MAX))
    }

    /// Every item matching the key condition (up to [`max_items`](Self::max_items) if set),
    /// collected.
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn all(self) -> Result<Vec<E>, Error> {
        self.stream().try_collect().await
    }
}

super::lenient::paged_read!([E: Entity] MultiKeyQuery<E> => E, QueryInput, |r| r.options.lenient);

/// The lenient multi-attribute query of [`MultiKeyQuery::lenient`], by its former name.
#[deprecated(since = "0.1.0", note = "every lenient read is a `Lenient<R>`: use `query::Lenient<MultiKeyQuery<E>>`")]
pub type LenientMultiKeyQuery<E> = super::Lenient<MultiKeyQuery<E>>;

impl<E: Entity> super::IntoQuery for MultiKeySpec<E> {
    type Entity = E;
    type Request = MultiKeyQuery<E>;
    fn into_request(self, table: Table) -> MultiKeyQuery<E> {
        MultiKeyQuery::new(table, self)
    }
}

/// Whether `low` is above `high` as DynamoDB compares key values: numbers numerically,
/// strings and binary values by their bytes.
fn reversed(low: &AttributeValue, high: &AttributeValue) -> bool {
    match (low, high) {
        (AttributeValue::N(l), AttributeValue::N(h)) => compare_numbers(l, h).is_gt(),
        (AttributeValue::S(l), AttributeValue::S(h)) => l.as_bytes() > h.as_bytes(),
        (AttributeValue::B(l), AttributeValue::B(h)) => l.as_ref() > h.as_ref(),
        _ => false,
    }
}

/// Appends `i` in decimal (placeholder numbers), without the formatting machinery.
fn push_index(out: &mut String, mut i: usize) {
    if i < 10 {
        // One digit, the usual case (`#p0`): no buffer.
        // `i` is below 10, so the cast cannot truncate.
        out.push(char::from(b'0' + i as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        // `i % 10` is below 10, so the cast cannot truncate.
        digits[at] = b'0' + (i % 10) as u8;
        i /= 10;
        if i == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

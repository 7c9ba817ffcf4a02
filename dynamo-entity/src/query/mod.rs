//! Typed queries: one partition of one index, with sort-key conditions typed by the fields of
//! the sort key template, order, item counts and cursors.
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<downloads>")]
//! struct Skill { id: String, category: String, downloads: u64 }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! // GSI1PK = CAT#documents, GSI1SK (downloads, type N) descending, 20 items.
//! let top = table.query(Skill::gsi1("documents")).descending().page_items(20).send().await?;
//! if let Some(cursor) = top.cursor {
//!     let next = table.query(Skill::gsi1("documents")).descending().page_items(20).after(cursor).send().await?;
//! #   let _ = next;
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # Sort-key conditions
//! The methods take the parts of the sort key template as references, in template order:
//! a single part directly (`&5u64`), several as a tuple (`(&created_at, "x")`).
//!
//! * [`QueryRequest::sk_eq`] takes every part and uses `=`.
//! * [`QueryRequest::sk_begins_with`] takes a strict leading subset of the parts and uses
//!   `begins_with` on a prefix that ends at a delimiter: `ORDER#1#` can never match
//!   `ORDER#10#…`, and the literal prefix `ORDER#` never matches `ORDERLINE#…`.
//! * The range conditions ([`QueryRequest::sk_gt`], [`sk_ge`](QueryRequest::sk_ge),
//!   [`sk_lt`](QueryRequest::sk_lt), [`sk_le`](QueryRequest::sk_le),
//!   [`sk_between`](QueryRequest::sk_between)) take all parts (an exact bound) or a leading
//!   subset (a bound on those parts: `sk_gt(&x)` on `<a>#<b>` selects every `a > x`). Bounds
//!   are encoded exactly as stored values are, so integers compare numerically and times
//!   chronologically.
//!
//! Without a condition, a query on an index whose sort key template starts with literal text
//! (`REVIEW#<id>`) adds `begins_with(SK, "REVIEW#")`, and a constant sort key (`META`) adds
//! `SK = "META"`, so the query returns only items of its entity. When the first placeholder
//! after the literal text has a fixed form of digits (an unsigned integer, zero-padded; a
//! [`Timestamp`](crate::Timestamp); a [`Date`](crate::value::time::Date)), the condition is
//! `SK BETWEEN "V#00000000000000000000" AND "V#99999999999999999999$"` for `V#<version>`
//! instead: the same items (and the children `V#<version>#…` a `hierarchy(...)` declares,
//! since `$` sorts right after the delimiter `#`), without the sibling sort keys that
//! `begins_with` would match and that cannot start with a digit, such as `V#LATEST`. The
//! table declaration's checks know this, so `V#LATEST` beside `V#<version>` needs no opt-in.
//!
//! # Sharded indexes
//! On a GSI whose partition key has a shard suffix (`SKILL#<status>#<shard(id, 8)>`), the
//! generated function takes the other parts and the query reads every shard concurrently,
//! merging them in sort-key order under one cursor; every method above applies to each shard.
//! See [`shard`].

mod cursor;
mod lenient;
pub mod multi_key;
pub(crate) mod options;
pub(crate) mod pages;
pub(crate) mod projected;
mod range;
mod rate;
pub mod scan;
mod seal;
pub mod shard;
mod sk_args;
pub mod vector;
mod whole;

use std::collections::HashMap;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, ItemError};
use crate::key::{KeyContext, KeyPart, KeyType, KeyWriter, MAX_SORT_KEY_BYTES};
use crate::owner::Found;
use crate::schema::{Admits, AttributeNames, Entity, Index, IndexSchema, Item, PrimaryKey};
use crate::table::{Call, Table};
pub use cursor::Cursor;
use cursor::Scope;
pub use lenient::{Decoded, Lenient, PagedRead};
use options::QueryOptions;
pub use pages::Page;
use range::{delimiter_and_next, fixed_form_bounds};
pub use seal::CursorKeys;
#[doc(hidden)]
pub use sk_args::RefusedSortKey;
pub use sk_args::{FullSk, PartArg, PartialSk, SkArgs};
pub(crate) use whole::read_whole;
use whole::{Slot, hydrate};

impl<E: Entity, T: KeyPart<Arg = [u8]>> QueryRequest<E, (T,)> {
    /// `begins_with(SK, prefix)` on a binary (`B`) sort key, a template that is exactly one
    /// `Vec<u8>` placeholder: the items whose sort key starts with the bytes of `prefix`
    /// (DynamoDB compares binary keys bytewise). An empty prefix reads the whole partition.
    ///
    /// # Errors
    /// When sent, [`Error::Key`] ([`KeyError::TooLong`](crate::key::KeyError::TooLong)) for a prefix over the sort key's 1,024
    /// bytes.
    pub fn sk_begins_with_bytes(self, prefix: &[u8]) -> Self {
        if prefix.is_empty() {
            return self.with(Ok(SkCondition::All));
        }
        let mut w = self.writer();
        let cond = w.part(prefix).and_then(|()| w.finish()).map_err(Error::from).map(|v| match v {
            AttributeValue::B(b) => SkCondition::BeginsWithBinary(b.into_inner()),
            other => SkCondition::Eq(other),
        });
        self.with(cond)
    }
}

/// The partition of one index to query, from the generated `E::query(...)` (primary index),
/// `E::gsiN(...)`, `E::lsiN(...)` or `E::inverted(...)`. `S` is the tuple of the sort key's field
/// types. Run it with [`Table::query`].
pub struct QuerySpec<E, S> {
    pub(crate) index: &'static IndexSchema,
    pub(crate) entity: &'static str,
    pk: Result<AttributeValue, Error>,
    /// A sharded partition key (`<shard(field, N)>`): every shard's partition key, in shard
    /// order; the query fans out over them (see [`shard`](crate::query::shard)).
    pub(crate) shards: Option<Vec<AttributeValue>>,
    _marker: PhantomData<fn() -> (E, S)>,
}

impl<E, S> std::fmt::Debug for QuerySpec<E, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QuerySpec")
            .field("entity", &self.entity)
            .field("index", &self.index.index)
            .field("pk", &self.pk)
            .finish()
    }
}

impl<E, S> QuerySpec<E, S> {
    /// Used by generated code: the index's templates, the entity type name and the encoded
    /// partition key.
    pub fn new(index: &'static IndexSchema, entity: &'static str, pk: Result<AttributeValue, Error>) -> Self {
        QuerySpec { index, entity, pk, shards: None, _marker: PhantomData }
    }

    /// Used by generated code for a sharded partition key: the partition key of every shard,
    /// in shard order. [`Table::query`] fans out over them and merges the shards in sort-key
    /// order (see [`shard`]). Only for an entity with a sharded partition key template
    /// (`<shard(field, N)>`): for any other, the query is [`Error::Invalid`] before anything is
    /// sent (its code leaves out the fan-out).
    pub fn sharded(index: &'static IndexSchema, entity: &'static str, pks: Result<Vec<AttributeValue>, Error>) -> Self {
        let (pk, shards) = match pks {
            Ok(pks) => match pks.first() {
                Some(first) => (Ok(first.clone()), pks),
                None => {
                    (Err(Error::Invalid { reason: format!("{entity}: a sharded query needs at least one shard") }), pks)
                }
            },
            Err(e) => (Err(e), Vec::new()),
        };
        QuerySpec { index, entity, pk, shards: Some(shards), _marker: PhantomData }
    }

    pub(crate) fn into_parts(self) -> (Index, Result<AttributeValue, Error>) {
        let pk = match (&self.shards, self.pk) {
            (Some(shards), Ok(_)) => Err(Error::Invalid {
                reason: format!(
                    "{} of {} is sharded over {} partitions (`{}`), so it has no single item collection; query it \
                     with Table::query, which reads every shard",
                    self.index.index,
                    self.entity,
                    shards.len(),
                    self.index.pk.source
                ),
            }),
            (_, pk) => pk,
        };
        (self.index.index, pk)
    }
}

#[derive(Debug, Clone)]
pub(crate) enum SkCondition {
    All,
    Eq(AttributeValue),
    BeginsWith(String),
    BeginsWithBinary(Vec<u8>),
    Cmp(&'static str, AttributeValue),
    Between(AttributeValue, AttributeValue),
}

/// A query ready to run on a table; from [`Table::query`].
#[must_use = "a query does nothing until it is sent"]
pub struct QueryRequest<E, S> {
    table: Table,
    pub(crate) spec: QuerySpec<E, S>,
    sk: Option<Result<SkCondition, Error>>,
    /// Order, item counts, page size, consistency, cursor, filter, lenience.
    pub(crate) options: QueryOptions,
}

/// The parts of a `Query` request that its pages share (and the shards of a sharded query,
/// which differ only in `:pk`).
pub(crate) struct QueryParts {
    /// `KeyConditionExpression`.
    expr: String,
    names: HashMap<String, String>,
    values: HashMap<String, AttributeValue>,
    /// `FilterExpression`.
    filter: Option<String>,
}

impl<E: Entity, S> QueryRequest<E, S> {
    pub(crate) fn new(table: Table, spec: QuerySpec<E, S>) -> Self {
        QueryRequest { table, spec, sk: None, options: QueryOptions::default() }
    }

    fn writer(&self) -> KeyWriter {
        KeyWriter::new(KeyContext {
            entity: self.spec.entity,
            attribute: E::NAMES.sk_of(self.spec.index.index),
            template: self.spec.index.sk,
            max_bytes: MAX_SORT_KEY_BYTES,
        })
    }

    /// The exact value (all parts) or, for a leading subset, the prefix text up to the next
    /// placeholder without a delimiter, and whether it is partial.
    fn bound<A: SkArgs<S>>(&self, args: &A) -> Result<(AttributeValue, bool), Error> {
        let mut w = self.writer();
        args.write(&mut w)?;
        if A::PARTS == self.spec.index.sk.field_count() {
            Ok((w.finish()?, false))
        } else {
            let (text, _) = w.into_prefix()?;
            Ok((AttributeValue::S(text), true))
        }
    }

    fn with(mut self, cond: Result<SkCondition, Error>) -> Self {
        self.sk = Some(cond);
        self
    }

    /// `SK = value`: every part of the sort key.
    pub fn sk_eq<A: FullSk<S>>(self, parts: A) -> Self {
        let cond = self.bound(&parts).map(|(v, _)| SkCondition::Eq(v));
        self.with(cond)
    }

    /// `begins_with(SK, prefix)` where the prefix is the given leading parts and the literal
    /// text after them, ending at a delimiter.
    pub fn sk_begins_with<A: PartialSk<S>>(self, parts: A) -> Self {
        let delimiter = self.spec.index.sk.style.delimiter;
        let cond = self.bound(&parts).map(|(v, _)| match v {
            AttributeValue::S(mut p) if !p.is_empty() => {
                p.push(delimiter);
                SkCondition::BeginsWith(p)
            }
            _ => SkCondition::All,
        });
        self.with(cond)
    }

    /// The error of a range over an unpadded integer part (`<field:raw>`), whose string order
    /// is not numeric order, among the first `parts` placeholders of the sort key.
    fn unsorted(&self, parts: usize, op: &str) -> Option<Error> {
        let sk = self.spec.index.sk;
        sk.raw_among_first(parts).map(|field| Error::Invalid {
            reason: format!(
                "a sort-key range ({op}) over `{field}` of `{}`: the part is written without zero padding \
                 (`<{field}:raw>`), so string order is not numeric order and the range would return the wrong items",
                sk.source
            ),
        })
    }

    fn range<A: SkArgs<S>>(self, parts: A, op: &'static str) -> Self {
        if A::PARTS == 0 {
            let reason = format!("a sort-key range ({op}) needs at least one part of `{}`", self.spec.index.sk.source);
            return self.with(Err(Error::Invalid { reason }));
        }
        if let Some(e) = self.unsorted(A::PARTS, op) {
            return self.with(Err(e));
        }
        let cond = self.bound(&parts).map(|(v, partial)| {
            if !partial {
                return SkCondition::Cmp(op, v);
            }
            let p = match v {
                AttributeValue::S(p) if !p.is_empty() => p,
                // No part given and no literal text before the first placeholder.
                _ => return SkCondition::All,
            };
            // Every key whose leading parts equal the prefix starts with `prefix#` (the sort
            // key's delimiter); `$`, the character after `#`, puts `prefix$` after all of them.
            let (at, after) = delimiter_and_next(self.spec.index.sk);
            let (op, suffix) = match op {
                ">" => (">=", after),
                ">=" => (">=", at),
                "<" => ("<", at),
                _ => ("<", after),
            };
            SkCondition::Cmp(op, AttributeValue::S(format!("{p}{suffix}")))
        });
        self.with(cond)
    }

    /// `SK > bound`.
    pub fn sk_gt<A: SkArgs<S>>(self, parts: A) -> Self {
        self.range(parts, ">")
    }
    /// `SK >= bound`.
    pub fn sk_ge<A: SkArgs<S>>(self, parts: A) -> Self {
        self.range(parts, ">=")
    }
    /// `SK < bound`.
    pub fn sk_lt<A: SkArgs<S>>(self, parts: A) -> Self {
        self.range(parts, "<")
    }
    /// `SK <= bound`.
    pub fn sk_le<A: SkArgs<S>>(self, parts: A) -> Self {
        self.range(parts, "<=")
    }

    /// `SK BETWEEN low AND high`, both inclusive.
    pub fn sk_between<A: SkArgs<S>, B: SkArgs<S>>(self, low: A, high: B) -> Self {
        if A::PARTS == 0 || B::PARTS == 0 {
            let reason =
                format!("a sort-key range (BETWEEN) needs at least one part of `{}`", self.spec.index.sk.source);
            return self.with(Err(Error::Invalid { reason }));
        }
        if let Some(e) = self.unsorted(A::PARTS.max(B::PARTS), "BETWEEN") {
            return self.with(Err(e));
        }
        let lo = self.bound(&low);
        let hi = self.bound(&high);
        let (at, after) = delimiter_and_next(self.spec.index.sk);
        let cond = match (lo, hi) {
            (Ok((lo, lp)), Ok((hi, hp))) => {
                let widen = |v: AttributeValue, partial: bool, c: char| match v {
                    AttributeValue::S(s) if partial => AttributeValue::S(format!("{s}{c}")),
                    v => v,
                };
                let open_lo = lp && matches!(&lo, AttributeValue::S(a) if a.is_empty());
                let open_hi = hp && matches!(&hi, AttributeValue::S(b) if b.is_empty());
                Ok(match (open_lo, open_hi) {
                    (true, true) => SkCondition::All,
                    (true, false) => SkCondition::Cmp("<=", widen(hi, hp, after)),
                    (false, true) => SkCondition::Cmp(">=", widen(lo, lp, at)),
                    (false, false) => {
                        let (lo, hi) = (widen(lo, lp, at), widen(hi, hp, after));
                        let reversed = match (&lo, &hi) {
                            (AttributeValue::S(a), AttributeValue::S(b)) => a > b,
                            (AttributeValue::N(a), AttributeValue::N(b)) => {
                                crate::value::compare_numbers(a, b) == std::cmp::Ordering::Greater
                            }
                            (AttributeValue::B(a), AttributeValue::B(b)) => a.as_ref() > b.as_ref(),
                            _ => false,
                        };
                        if reversed {
                            return self.with(Err(Error::Invalid {
                                reason: "sk_between: the low bound sorts after the high bound".to_owned(),
                            }));
                        }
                        SkCondition::Between(lo, hi)
                    }
                })
            }
            (Err(e), _) | (_, Err(e)) => Err(e),
        };
        self.with(cond)
    }

    options::read_setters!("dynamo_entity::query::QueryRequest<E, S>", "<E: dynamo_entity::Entity, S>"; filter descending ascending max_items page_items limit page_size consistent_read after);

    /// What a cursor of this query is bound to; `partition` names the partition (or shards).
    pub(crate) fn scope(&self, partition: String, sk: &Option<SkCondition>) -> Scope {
        Scope {
            entity: self.spec.entity.to_owned(),
            index: cursor::index_label(E::NAMES, self.spec.index.index),
            partition,
            query: cursor::fingerprint(&format!("{}|{sk:?}", self.options.order())),
        }
    }

    fn default_condition(&self) -> Option<SkCondition> {
        let sk = self.spec.index.sk;
        if let Some(c) = sk.constant() {
            return Some(SkCondition::Eq(AttributeValue::S(c)));
        }
        let prefix = sk.literal_prefix();
        if prefix.is_empty() || sk.key_type != KeyType::S {
            return None;
        }
        if let Some((low, high)) = fixed_form_bounds(E::schema(), sk) {
            return Some(SkCondition::Between(AttributeValue::S(low.clone()), AttributeValue::S(high.clone())));
        }
        Some(SkCondition::BeginsWith(prefix))
    }

    /// Reports the items of this entity type that it cannot return instead of failing on them:
    /// each becomes an [`ItemError`] (its key, the item, the error) in [`Page::skipped`], beside
    /// the items that decoded. Set the other options first; see [`Lenient`].
    pub fn lenient(self) -> Lenient<Self> {
        Lenient::new(self)
    }

    /// Runs the query and returns one page: up to [`page_items`](Self::page_items) items (and
    /// at most [`max_items`](Self::max_items)), or without either one DynamoDB response's worth
    /// (at most 1 MB read).
    ///
    /// Through a GSI, LSI or inverted index whose projection leaves attributes out
    /// (`KEYS_ONLY`, or `INCLUDE` without the entity type attribute), an index item carries no
    /// entity type: it is taken as one of this entity's when its primary key has the shape of
    /// the entity's key templates, and the whole items are then read by their primary keys
    /// (`BatchGetItem`, 100 keys a request, unprocessed keys retried, in the index's order;
    /// DynamoDB's "fetch" of a projected query). An item deleted between the two reads is left
    /// out. To read the keys alone, without the second read, use
    /// [`send_keys`](Self::send_keys).
    ///
    /// # Errors
    /// A key or cursor error before anything is sent, and [`Error::FilterNotProjected`] for a
    /// [`filter`](Self::filter) on an attribute the index does not project (see there);
    /// [`Error::Sdk`] from DynamoDB;
    /// [`Error::Decode`] (or [`Error::WrongEntity`], [`Error::KeyParse`]) naming the key of the
    /// first item of this entity type that does not decode (see [`lenient`](Self::lenient));
    /// [`Error::BatchGet`] when the whole items of projected index items could not all be read.
    pub async fn send(&self) -> Result<Page<E>, Error> {
        if let Some(shards) = self.shards()? {
            return self.sharded(shards).await;
        }
        let mut page = self.read(Slot::of).await?;
        let slots = std::mem::take(&mut page.items);
        let items = self.hydrate(slots, &mut page.skipped).await?;
        Ok(page.with_items(items))
    }

    /// As [`send`](Self::send), returning the primary keys of the items instead of the items:
    /// no item is decoded and, through a projected index, no second read is made. The keys
    /// are typed ([`Key<E>`](crate::Key)): get, update or delete the items with them.
    ///
    /// # Errors
    /// As [`send`](Self::send), before and while querying.
    pub async fn send_keys(&self) -> Result<Page<crate::schema::Key<E>>, Error> {
        if let Some(shards) = self.shards()? {
            let page = self.sharded(shards).await?;
            let keys = page.items.iter().map(|e| e.primary_key().map(|k| crate::schema::Key::new(Ok(k))));
            let items = keys.collect::<Result<_, _>>()?;
            return Ok(page.with_items(items));
        }
        self.read(|item, _| Ok(crate::schema::Key::new(Ok(primary_key_of(item, E::NAMES))))).await
    }

    /// The partition keys of a sharded query's shards; `None` for a query of one partition.
    /// Generated code makes a sharded query only for an entity with a sharded partition key
    /// template; for any other entity this is `None` when its code is compiled, so that a
    /// program without sharded indexes carries no fan-out and merge of shards.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a sharded query of an entity without a sharded template (made
    /// by hand with [`QuerySpec::sharded`]).
    fn shards(&self) -> Result<Option<&[AttributeValue]>, Error> {
        match &self.spec.shards {
            None => Ok(None),
            Some(shards) if const { E::SCHEMA.has_sharded_index() } => Ok(Some(shards)),
            Some(_) => Err(Error::Invalid {
                reason: format!(
                    "{}: a sharded query, but no partition key template of it is sharded",
                    self.spec.entity
                ),
            }),
        }
    }

    /// One page of a sharded query over `shards` ([`shard::send`]). Boxed, and made outside
    /// the `async fn`s that await it: for an entity without a sharded template, where
    /// [`shards`](Self::shards) is `None` at compile time, nothing then refers to its code.
    fn sharded<'a>(&'a self, shards: &'a [AttributeValue]) -> futures::future::BoxFuture<'a, Result<Page<E>, Error>> {
        Box::pin(async move { crate::query::shard::send(self, shards, self.sk_condition()?).await })
    }

    /// The sort-key condition: the one given, or the template's default.
    fn sk_condition(&self) -> Result<Option<SkCondition>, Error> {
        match &self.sk {
            Some(Ok(c)) => Ok(Some(c.clone())),
            Some(Err(e)) => Err(e.copy_of_build_error()),
            None => Ok(self.default_condition()),
        }
    }

    /// Whether `item`, read from the index queried, is one of this entity's and how it is
    /// taken, or the error that reports it: the [`owner`](crate::owner) rule.
    fn found(&self, item: &Item) -> Result<Option<Found>, Error> {
        let index = self.spec.index.index;
        crate::owner::claim(E::SCHEMA, self.table.view_of::<E>(index), index, item)
    }

    /// Fills in the whole items of the projected ones of `slots`, in order (see [`hydrate`]);
    /// for a [lenient](Self::lenient) query, those that do not decode go to `skipped`.
    async fn hydrate(&self, slots: Vec<Slot<E>>, skipped: &mut Vec<ItemError>) -> Result<Vec<E>, Error> {
        hydrate(&self.table, self.spec.index.index, slots, self.options.lenient, skipped).await
    }

    /// One page of [`send`](Self::send) and [`send_keys`](Self::send_keys), through the one page
    /// loop ([`pages`]): each item of this entity the index returns becomes a `T` through `take`.
    async fn read<T>(&self, mut take: impl FnMut(&Item, Found) -> Result<T, Error>) -> Result<Page<T>, Error> {
        let pk = self.spec.pk.as_ref().map_err(Error::copy_of_build_error)?.clone();
        let sk = self.sk_condition()?;
        let scope = self.scope(cursor::scalar_text(&pk), &sk);
        let index = self.spec.index.index;
        let start = match &self.options.after {
            Some(c) => Some(cursor::decode(c.as_str(), &scope, E::NAMES, index)?),
            None => None,
        };
        let parts = self.parts(pk, sk)?;
        let keys = key_attributes(E::NAMES, index);
        pages::read_page(
            self.options.paging(),
            E::NAMES,
            start,
            |limit, start| {
                let answer = self.fetch(&parts, None, limit, start);
                async move { answer.await.map(pages::Answer::of_query) }
            },
            |item: &mut Item| match self.found(item)? {
                Some(found) => take(item, found).map(Some),
                None => {
                    tracing::debug!(entity = self.spec.entity, "query skipped an item of another entity type");
                    Ok(None)
                }
            },
            Some(&pages::Resume { scope: &scope, keys: &keys }),
        )
        .await
    }

    /// The key condition on partition `pk` and the sort-key condition `sk`, and the filter.
    pub(crate) fn parts(&self, pk: AttributeValue, sk: Option<SkCondition>) -> Result<QueryParts, Error> {
        let index = self.spec.index.index;
        let sk = sk.filter(|c| !matches!(c, SkCondition::All));
        // Sized once for the key condition's placeholders (a filter's grow the maps).
        let (n, v) = match &sk {
            None => (1, 1),
            Some(SkCondition::Between(..)) => (2, 3),
            Some(_) => (2, 2),
        };
        let mut names = HashMap::with_capacity(n);
        names.insert("#pk".to_owned(), E::NAMES.pk_of(index).to_owned());
        let mut values = HashMap::with_capacity(v);
        values.insert(":pk".to_owned(), pk);
        let mut expr = String::with_capacity(48);
        expr.push_str("#pk = :pk");
        if let Some(cond) = sk {
            names.insert("#sk".to_owned(), E::NAMES.sk_of(index).to_owned());
            match cond {
                SkCondition::Eq(v) => {
                    expr.push_str(" AND #sk = :sk");
                    values.insert(":sk".to_owned(), v);
                }
                SkCondition::BeginsWith(p) => {
                    expr.push_str(" AND begins_with(#sk, :sk)");
                    values.insert(":sk".to_owned(), AttributeValue::S(p));
                }
                SkCondition::BeginsWithBinary(p) => {
                    expr.push_str(" AND begins_with(#sk, :sk)");
                    values.insert(":sk".to_owned(), AttributeValue::B(p.into()));
                }
                SkCondition::Cmp(op, v) => {
                    expr.push_str(&format!(" AND #sk {op} :sk"));
                    values.insert(":sk".to_owned(), v);
                }
                SkCondition::All => {}
                SkCondition::Between(lo, hi) => {
                    expr.push_str(" AND #sk BETWEEN :lo AND :hi");
                    values.insert(":lo".to_owned(), lo);
                    values.insert(":hi".to_owned(), hi);
                }
            }
        }

        self.options.counts.check(self.options.page_size, "Query", self.spec.entity)?;
        let filter = self.options.render_filter(self.spec.entity, &mut names, &mut values)?;
        let keys = [E::NAMES.pk_of(index), E::NAMES.sk_of(index)];
        let projection = self.table.projection(index);
        let condition = self.options.filter.as_deref();
        projected::check_filter("Query", self.spec.entity, E::NAMES, index, &keys, projection, condition)?;
        options::check_query(&expr, filter.as_deref(), &names, &values).map_err(|e| {
            let pk = match values.get(":pk") {
                Some(AttributeValue::S(s) | AttributeValue::N(s)) => s.clone(),
                _ => String::new(),
            };
            e.request("Query", self.spec.entity, format!("{}={pk}", E::NAMES.pk_of(index)))
        })?;
        Ok(QueryParts { expr, names, values, filter })
    }

    /// Sends one `Query` request of `parts`, on partition `pk` instead of the one in `parts`
    /// when given (one shard of a sharded query), evaluating at most `limit` items from
    /// `start` (`ExclusiveStartKey`).
    ///
    /// # Errors
    /// [`Error::Sdk`] from DynamoDB.
    pub(crate) async fn fetch(
        &self,
        parts: &QueryParts,
        pk: Option<&AttributeValue>,
        limit: Option<i32>,
        start: Option<Item>,
    ) -> Result<crate::table::body::Paged<aws_sdk_dynamodb::operation::query::QueryOutput>, Error> {
        let call = Call::new("Query", E::TYPE).index(E::NAMES.index_name(self.spec.index.index).unwrap_or(""));
        let request = crate::table::body::query(self.table.client(), self.request(parts, pk, limit, start));
        let out = self.table.execute(call, request).await.map_err(|e| {
            let error = Error::sdk("Query", e);
            if !error.is_retryable() {
                return error;
            }
            // The queried partition: for a hot one, the partition to shard.
            let pk = match pk.or_else(|| parts.values.get(":pk")) {
                Some(AttributeValue::S(s) | AttributeValue::N(s)) => s.as_str(),
                _ => "",
            };
            let partition = format!("{}={pk}", E::NAMES.pk_of(self.spec.index.index));
            error.on_partition(E::TYPE, &partition, &partition)
        })?;
        Ok(out)
    }

    /// The `Query` request that [`fetch`](Self::fetch) sends (and [`render`](Self::render)
    /// shows).
    pub(crate) fn request(
        &self,
        parts: &QueryParts,
        pk: Option<&AttributeValue>,
        limit: Option<i32>,
        start: Option<Item>,
    ) -> QueryInputBuilder {
        let mut values = parts.values.clone();
        if let Some(pk) = pk {
            values.insert(":pk".to_owned(), pk.clone());
        }
        let parts =
            QueryParts { expr: parts.expr.clone(), names: parts.names.clone(), values, filter: parts.filter.clone() };
        self.request_of(parts, limit, start)
    }

    /// The `Query` request of `parts`, moved into it (no copies): what [`request`](Self::request)
    /// sends and [`render`](Self::render) shows.
    ///
    /// Each of the SDK builder's setters moves the whole builder (several hundred bytes), so the
    /// filter and start key, mostly absent, are only set when present (a new builder has them
    /// unset already). Each way is one unbroken chain that builds the result in place (a
    /// builder kept in a variable between two chains is copied).
    fn request_of(&self, parts: QueryParts, limit: Option<i32>, start: Option<Item>) -> QueryInputBuilder {
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
                    .consistent_read(self.options.consistent)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            };
        }
        if parts.filter.is_none() && start.is_none() {
            common!(aws_sdk_dynamodb::operation::query::QueryInput::builder())
        } else {
            common!(
                aws_sdk_dynamodb::operation::query::QueryInput::builder()
                    .set_filter_expression(parts.filter)
                    .set_exclusive_start_key(start)
            )
        }
    }

    /// The first `Query` request [`send`](Self::send) would send, built by the same code,
    /// without sending it: the key condition, filter, names and values, `Limit` and start key
    /// (from [`after`](Self::after)). For a sharded query, the request of the first shard.
    /// [`Request::to_json`](crate::table::render::Request::to_json) gives a deterministic text for
    /// snapshot tests.
    ///
    /// # Errors
    /// The errors [`send`](Self::send) reports before sending (a key, cursor or filter that
    /// cannot be encoded, a filter on an attribute the index does not project).
    pub fn render(&self) -> Result<QueryInput, Error> {
        let pk = self.spec.pk.as_ref().map_err(Error::copy_of_build_error)?.clone();
        let sk = match &self.sk {
            Some(Ok(c)) => Some(c.clone()),
            Some(Err(e)) => return Err(e.copy_of_build_error()),
            None => self.default_condition(),
        };
        // The cursor's scope is only needed to check a start cursor.
        let start = match (&self.options.after, &self.spec.shards) {
            (Some(c), None) => {
                let scope = self.scope(cursor::scalar_text(&pk), &sk);
                Some(cursor::decode(c.as_str(), &scope, E::NAMES, self.spec.index.index)?)
            }
            _ => None,
        };
        let parts = self.parts(pk, sk)?;
        let limit = self.options.request_limit(0);
        crate::table::render::built(self.request_of(parts, limit, start).build())
    }

    /// Every page, lazily: each page is requested when the stream is polled past the previous
    /// one, so at most one page is held at a time. Each page holds up to
    /// [`page_items`](Self::page_items) items and starts at the cursor of the one before; with
    /// [`max_items`](Self::max_items), the pages together hold at most that many items and the
    /// stream ends there. Without `page_items`, a page with `max_items` reads on until it has
    /// all of them, and one without either is one DynamoDB answer.
    pub fn pages(self) -> impl Stream<Item = Result<Page<E>, Error>> {
        futures::stream::try_unfold(Some(self), |state| async move {
            let Some(req) = state else { return Ok(None) };
            let page = req.send().await?;
            // From the page's cursor, with what the total leaves for the pages after this one.
            let next = req.options.next_page(page.cursor.as_ref(), page.items.len());
            Ok(Some((page, next.map(|options| QueryRequest { options, ..req }))))
        })
    }

    /// Every item of the partition (up to [`max_items`](Self::max_items) if set), page by
    /// page ([`page_items`](Self::page_items) at a time, if set).
    pub fn stream(self) -> impl Stream<Item = Result<E, Error>> {
        let mut req = self;
        // Pages keep their own size; the total is applied to the stream (a total of 0 stays
        // on the pages, which refuse it).
        let limit = req.options.counts.max_items.filter(|&n| n > 0);
        if limit.is_some() {
            req.options.counts.max_items = None;
        }
        let s = req.pages().map_ok(|p| futures::stream::iter(p.items.into_iter().map(Ok))).try_flatten();
        s.take(limit.unwrap_or(usize::MAX))
    }

    /// Every item of the partition (up to [`max_items`](Self::max_items) if set), collected.
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn all(self) -> Result<Vec<E>, Error> {
        self.stream().try_collect().await
    }
}

/// The primary key of `item` (absent attributes as NULL, which no key matches).
fn primary_key_of(item: &Item, names: &AttributeNames) -> PrimaryKey {
    let part = |a: &str| item.get(a).cloned().unwrap_or(AttributeValue::Null(true));
    PrimaryKey { pk: part(names.pk), sk: part(names.sk) }
}

/// The key attributes of an `ExclusiveStartKey` on `index`: the table's, and the index's own.
pub(crate) fn key_attributes(attribute_names: &AttributeNames, index: Index) -> Vec<&'static str> {
    let mut names = vec![attribute_names.pk, attribute_names.sk];
    if index != Index::Primary {
        names.push(attribute_names.pk_of(index));
        names.push(attribute_names.sk_of(index));
    }
    names
}

/// The key attributes of `item` for an `ExclusiveStartKey` on `index`.
pub(crate) fn key_of(item: &Item, attribute_names: &AttributeNames, index: Index) -> Item {
    let names = key_attributes(attribute_names, index);
    names.into_iter().filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone()))).collect()
}

lenient::paged_read!([E: Entity, S] QueryRequest<E, S> => E, QueryInput, |r| r.options.lenient);

/// The lenient query of [`QueryRequest::lenient`], by its former name.
#[deprecated(since = "0.1.0", note = "every lenient read is a `Lenient<R>`: use `query::Lenient<QueryRequest<E, S>>`")]
pub type LenientQuery<E, S> = Lenient<QueryRequest<E, S>>;

/// What [`Table::query`] runs: a [`QuerySpec`] (one partition of an index keyed on key
/// templates, giving a [`QueryRequest`]) or a [`MultiKeySpec`](multi_key::MultiKeySpec) (a
/// multi-attribute GSI's key condition, giving a [`MultiKeyQuery`](multi_key::MultiKeyQuery)),
/// or the generated builders that convert into one.
pub trait IntoQuery {
    /// The entity the query reads (the declared handle [`Table<D>`](Table) accepts only the
    /// entities of `D`).
    type Entity: Entity;
    /// The query ready to run.
    type Request;
    /// The query on `table` (the handle itself, moved in: one reference count a query).
    fn into_request(self, table: Table) -> Self::Request;
}

impl<E: Entity, S> IntoQuery for QuerySpec<E, S> {
    type Entity = E;
    type Request = QueryRequest<E, S>;
    fn into_request(self, table: Table) -> QueryRequest<E, S> {
        QueryRequest::new(table, self)
    }
}

impl<D> Table<D> {
    /// A query of one partition of one index, from the generated `E::query(...)`,
    /// `E::gsiN(...)` (a [`QueryRequest`]), or of a multi-attribute GSI (a
    /// [`MultiKeyQuery`](multi_key::MultiKeyQuery)). On a declared handle (`Table<D>`), of
    /// `D`'s entities only.
    pub fn query<Q: IntoQuery>(&self, spec: Q) -> Q::Request
    where
        D: Admits<Q::Entity>,
    {
        spec.into_request(self.untyped())
    }
}

//! Batch writes and batch gets of any number of items: [`BatchWrite`] (from
//! [`Table::batch_write`]), [`BatchGet`] (from [`Table::batch_get`]) and [`BatchGetMixed`] (from
//! [`Table::batch_get_mixed`]).
//!
//! # What a batch does
//!
//! - **Checks everything before sending anything.** Every key and item is encoded when it is
//!   added; the first encoding error ([`Error::Key`], [`Error::Encode`]) is returned by `send`
//!   before any request. So is an item over DynamoDB's 400 KB item size limit
//!   ([`Error::ItemTooLarge`], measured with [`item_size`]), and two entries naming the same item
//!   (same `PK` and `SK`, whatever their entity types: [`Error::DuplicateKey`]), which DynamoDB
//!   would reject as a whole request.
//! - **Splits** the entries into requests of at most [`MAX_WRITE_ITEMS`] (25) writes
//!   (`BatchWriteItem`) or [`MAX_GET_KEYS`] (100) keys (`BatchGetItem`), in the order they were
//!   added, and sends up to [`concurrency`](BatchWrite::concurrency) requests at a time (4 by
//!   default). A `BatchWriteItem` request also stays within DynamoDB's 16 MB limit on its body
//!   ([`MAX_REQUEST_BYTES`], measured on the request's JSON, which can be much larger than the
//!   items' sizes as DynamoDB counts them); a single write whose request would be over it is
//!   refused before anything is sent ([`Error::LimitExceeded`]). A `BatchGetItem` response over
//!   16 MB is cut short by DynamoDB itself, which returns the rest as `UnprocessedKeys`.
//! - **Retries what DynamoDB did not process.** A `BatchWriteItem` or `BatchGetItem` answered
//!   with `UnprocessedItems` / `UnprocessedKeys` (a successful, HTTP 200 response) is sent again
//!   with just those entries, after an exponential backoff with full jitter, up to the bound of
//!   the [`RetryPolicy`] (8 attempts, 50 ms doubling to at most 2 s, by default). A request that
//!   fails with a retryable error (throttling, HTTP 5xx, timeout, connection failure) *after the
//!   SDK's own retries* is retried the same way.
//! - **Never drops nor over-counts.** Whatever is still not written (or read) when the bound is
//!   reached is returned with its entity type, key, position and reason
//!   ([`UnprocessedWrite`], [`UnprocessedKey`]); the written count only includes writes that
//!   DynamoDB acknowledged. A request that fails with an error that retrying cannot fix (such as
//!   `ResourceNotFoundException`) stops the batch: requests not yet started are not sent, and a
//!   batch write returns [`Error::BatchWrite`] carrying the full [`BatchWriteOutcome`].
//!
//! Positions are 0-based: the order in which entries were added to the batch.
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "SKILL#<id>", sk = "META")]
//! struct Skill { id: String, title: String }
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "SKILL#<skill>", sk = "REVIEW#<user>")]
//! struct Review { skill: String, user: String, stars: u8 }
//!
//! # async fn demo(table: Table, skills: Vec<Skill>) -> dynamo_entity::Result<()> {
//! let outcome = table
//!     .batch_write()
//!     .put_all(&skills)
//!     .put(&Review { skill: "s1".into(), user: "u1".into(), stars: 5 })
//!     .delete(Review::key("s1", "u2"))
//!     .send()
//!     .await?;
//! assert_eq!(outcome.written + outcome.unprocessed.len(), skills.len() + 2);
//! for left in &outcome.unprocessed {
//!     eprintln!("not written: {left}"); // e.g. `put Skill PK=SKILL#s9 SK=META: ...`
//! }
//!
//! let keys: Vec<_> = ["s1", "s2", "s3"].into_iter().map(Skill::key).collect();
//! let found: Vec<Option<Skill>> = table.batch_get(keys).send().await?.into_result()?;
//! # let _ = found;
//! # Ok(())
//! # }
//! ```

use std::borrow::Borrow;
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemFluentBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, ReturnConsumedCapacity, WriteRequest};
use futures::StreamExt;
use tokio::time::Instant;

use crate::capacity::Capacity;
use crate::error::{Error, ItemError};
use crate::schema::{Admits, AttributeNames, Entity, Item, Key, PrimaryKey};
use crate::table::{Call, Next, Op, Retrying, Table, Untyped};

/// The most writes (puts and deletes) DynamoDB accepts in one `BatchWriteItem` request.
pub const MAX_WRITE_ITEMS: usize = 25;
/// The most keys DynamoDB accepts in one `BatchGetItem` request.
pub const MAX_GET_KEYS: usize = 100;
pub use crate::error::{BatchWriteOutcome, UnprocessedKey, UnprocessedReason, UnprocessedWrite, WriteKind};
pub use crate::retry::RetryPolicy;
use crate::retry::retryable;

mod wire;
pub use crate::limits::MAX_REQUEST_BYTES;
pub use crate::schema::size::{MAX_ITEM_BYTES, item_size};
/// The number of requests a batch has in flight at once unless told otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;

// --- retry policy ---------------------------------------------------------------------------

// --- item size ------------------------------------------------------------------------------

/// A batch cannot keep uniqueness guards in step (BatchWriteItem has no conditions), so
/// entities with `#[entity(unique)]` fields are written with `Table::create` / `put` /
/// `delete` instead.
fn refuse_unique<E: Entity>(operation: &str) -> Result<(), Error> {
    if E::schema().has_unique() {
        return Err(Error::Invalid {
            reason: format!(
                "a batch cannot {operation} {}: it has unique fields, whose guard items only a transaction keeps in step; use Table::create, Table::put or Table::delete",
                E::TYPE
            ),
        });
    }
    Ok(())
}

// --- keys -----------------------------------------------------------------------------------

/// A primary key in a hashable form: the type letter and bytes of `PK` and of `SK` (a string's
/// UTF-8 bytes, a number's text, a binary value's bytes), borrowed from the key (nothing is
/// copied to compare or hash keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
struct KeyId<'a>(char, &'a [u8], char, &'a [u8]);

/// The type letter and bytes of a key attribute value; `None` for a type no key can have.
fn scalar(value: &AttributeValue) -> Option<(char, &[u8])> {
    match value {
        AttributeValue::S(s) => Some(('S', s.as_bytes())),
        AttributeValue::N(n) => Some(('N', n.as_bytes())),
        AttributeValue::B(b) => Some(('B', b.as_ref())),
        _ => None,
    }
}

fn key_id<'a>(pk: Option<&'a AttributeValue>, sk: Option<&'a AttributeValue>) -> Option<KeyId<'a>> {
    let (pt, pv) = scalar(pk?)?;
    let (st, sv) = scalar(sk?)?;
    Some(KeyId(pt, pv, st, sv))
}

/// The key of an entry, checked when the entry is made ([`key_id_of`]).
fn entry_id(key: &PrimaryKey) -> Option<KeyId<'_>> {
    key_id(Some(&key.pk), Some(&key.sk))
}

fn key_id_of<'a>(key: &'a PrimaryKey, names: &AttributeNames) -> Result<KeyId<'a>, Error> {
    key_id(Some(&key.pk), Some(&key.sk)).ok_or_else(|| Error::Invalid {
        reason: format!("batch key {} is not a string, number or binary key", names.show_key(key)),
    })
}

/// Checks that no two keys are the same item; the positions of the keys by key, each with
/// its entity type.
fn check_duplicates<'a>(
    entries: impl ExactSizeIterator<Item = (&'a PrimaryKey, &'static str, &'static AttributeNames)>,
) -> Result<HashMap<KeyId<'a>, (usize, &'static str)>, Error> {
    let mut seen: HashMap<KeyId<'a>, (usize, &'static str)> = HashMap::with_capacity(entries.len());
    let mut table_names: Option<(&'static AttributeNames, &'static str)> = None;
    for (position, (key, entity, names)) in entries.enumerate() {
        // One request writes one table, whose key attributes every entry must use.
        match table_names {
            // The names are the entities' `&'static` consts: the same one is the same address,
            // compared field by field only when the addresses differ.
            Some((first, first_entity)) if !std::ptr::eq(first, names) && first != names => {
                return Err(Error::Invalid {
                    reason: format!(
                        "one batch holds {first_entity} (key attributes {} / {}, type attribute {}) and {entity} \
                         (key attributes {} / {}, type attribute {}): entities of tables with different attribute \
                         names cannot share a table",
                        first.pk, first.sk, first.entity_type, names.pk, names.sk, names.entity_type
                    ),
                });
            }
            None => table_names = Some((names, entity)),
            Some(_) => {}
        }
        // Every entry's key was checked to be a string, number or binary key when it was made.
        let Some(id) = entry_id(key) else { continue };
        match seen.entry(id) {
            Entry::Occupied(e) => {
                let &(first, first_entity) = e.get();
                return Err(Error::DuplicateKey {
                    key: names.show_key(key),
                    first,
                    first_entity,
                    second: position,
                    second_entity: entity,
                });
            }
            Entry::Vacant(e) => {
                e.insert((position, entity));
            }
        }
    }
    Ok(seen)
}

// --- shared pieces ----------------------------------------------------------------------------

/// The settings every batch shares.
#[derive(Debug, Clone, Copy)]
struct Options {
    concurrency: usize,
    retry: RetryPolicy,
    capacity: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { concurrency: DEFAULT_CONCURRENCY, retry: RetryPolicy::DEFAULT, capacity: false }
    }
}

/// State shared by the requests of one batch.
struct Run<'a, T> {
    table: &'a Table,
    entries: &'a [T],
    options: Options,
    started: Instant,
    stop: AtomicBool,
}

impl<T> Run<'_, T> {
    /// The attempts of one request of the batch (`operation` is its name): the batch's policy,
    /// its `max_elapsed` counted from the start of the batch.
    fn retrying(&self, operation: &'static str) -> Retrying {
        Retrying::new(Call::new(operation, ""), self.options.retry).since(self.started)
    }
}

/// Why entries are left after `attempts` requests, the last of which failed with `last_error`
/// (`None`: it was answered, with the entries unprocessed).
fn reason_after(attempts: u32, last_error: Option<Arc<Error>>) -> UnprocessedReason {
    match (attempts, last_error) {
        (0, _) => UnprocessedReason::NotSent,
        (attempts, Some(error)) => UnprocessedReason::Failed { attempts, error },
        (attempts, None) => UnprocessedReason::Unprocessed { attempts },
    }
}

fn invalid(e: impl fmt::Display) -> Error {
    Error::Invalid { reason: e.to_string() }
}

// --- batch write ------------------------------------------------------------------------------

/// One encoded write of a batch.
#[derive(Debug, Clone)]
struct WriteOp {
    entity: &'static str,
    /// The entity's attribute names, which name the key attributes of the request.
    names: &'static AttributeNames,
    key: PrimaryKey,
    kind: WriteKind,
    /// The write in DynamoDB's JSON, as its request sends it (see `wire`).
    wire: wire::Wire,
    size: usize,
}

impl WriteOp {
    fn put<E: Entity>(value: &E) -> Result<WriteOp, Error> {
        refuse_unique::<E>("put")?;
        if E::schema().version.is_some() {
            return Err(Error::Invalid {
                reason: format!(
                    "a batch cannot put {}: it is versioned, and BatchWriteItem has no conditions to check the version; use Table::put",
                    E::TYPE
                ),
            });
        }
        // `updated_at` is set as a single put would set it; the key is the one `to_item`
        // encoded (not encoded a second time), the size the one `stamp` checked (an upper
        // bound within 400 KB, not measured a second time).
        let crate::versioning::Stamped { key, item, size, .. } = crate::versioning::stamp(value, false)?;
        Self::from_item(E::TYPE, E::NAMES, key, item, size)
    }

    /// The put of `item`, whose size in bytes is `size` (or an upper bound of it).
    fn from_item(
        entity: &'static str,
        names: &'static AttributeNames,
        key: PrimaryKey,
        item: Item,
        size: usize,
    ) -> Result<WriteOp, Error> {
        key_id_of(&key, names)?;
        // The item's map is freed here: the batch keeps the write's bytes (see `wire`).
        let wire = wire::Wire::put(&item).map_err(|e| unknown_type(entity, names, &key, e))?;
        Ok(WriteOp { entity, names, key, kind: WriteKind::Put, wire, size })
    }

    fn delete(entity: &'static str, names: &'static AttributeNames, key: PrimaryKey) -> Result<WriteOp, Error> {
        key_id_of(&key, names)?;
        let wire = wire::Wire::delete(&names.key_item(&key)).map_err(|e| unknown_type(entity, names, &key, e))?;
        Ok(WriteOp { entity, names, key, kind: WriteKind::Delete, wire, size: 0 })
    }

    /// The write as the SDK's `WriteRequest`, read back from its bytes. They are always a
    /// write (this module made them); should they not read back, the loss is logged at
    /// `ERROR` and the request is empty, which DynamoDB refuses if it is sent.
    fn request(&self) -> WriteRequest {
        self.wire.request().unwrap_or_else(|| {
            tracing::error!(
                target: "dynamo_entity",
                entity = self.entity,
                key = %self.names.show_key(&self.key),
                "a batch write's request could not be read back from its bytes"
            );
            WriteRequest::builder().build()
        })
    }

    /// The report of this write, not written for `reason`.
    fn unprocessed(&self, position: usize, reason: UnprocessedReason) -> UnprocessedWrite {
        let request = self.request();
        UnprocessedWrite {
            position,
            entity: self.entity,
            names: self.names,
            key: self.key.clone(),
            kind: self.kind,
            reason,
            request,
        }
    }
}

/// The error of a write holding an attribute value of a type this crate does not know.
fn unknown_type(entity: &'static str, names: &AttributeNames, key: &PrimaryKey, e: wire::UnknownType) -> Error {
    Error::Invalid {
        reason: format!(
            "{entity} {}: attribute `{}` holds a value of a type this crate cannot write",
            names.show_key(key),
            e.attribute
        ),
    }
}

/// The key of a write request as DynamoDB returns it in `UnprocessedItems`, its attributes
/// named by `names`.
fn write_request_key<'a>(request: &'a WriteRequest, names: &AttributeNames) -> Option<KeyId<'a>> {
    if let Some(put) = &request.put_request {
        return key_id(put.item.get(names.pk), put.item.get(names.sk));
    }
    let delete = request.delete_request.as_ref()?;
    key_id(delete.key.get(names.pk), delete.key.get(names.sk))
}

/// A batch of puts and deletes of any entity types, from [`Table::batch_write`]; see the
/// [module documentation](self) for what `send` does.
///
/// Entries are encoded as they are added; errors are kept and returned by
/// [`send`](BatchWrite::send) before anything is sent.
///
/// From a declared handle ([`Table<D>`](Table)) it is a `BatchWrite<D>`, which accepts only the
/// entities `D` lists ([`Admits`]): another entity is a compile error.
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchWrite<D = Untyped> {
    table: Table,
    ops: Vec<Result<WriteOp, Error>>,
    options: Options,
    decl: PhantomData<fn() -> D>,
}

impl<D> fmt::Debug for BatchWrite<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchWrite")
            .field("table", &self.table)
            .field("ops", &self.ops)
            .field("options", &self.options)
            .finish()
    }
}

impl<D> BatchWrite<D> {
    pub(crate) fn new(table: Table) -> Self {
        BatchWrite { table, ops: Vec::new(), options: Options::default(), decl: PhantomData }
    }

    /// Puts `value` (replacing any item with its key).
    ///
    /// `BatchWriteItem` takes no condition, so unlike [`Table::put`] a batch cannot check that
    /// an item already under this key is of `E`'s type: a batch is for keys only `E` writes
    /// (or a table whose entities' keys cannot collide, which `#[derive(TableDef)]` checks).
    pub fn put<E: Entity>(mut self, value: &E) -> Self
    where
        D: Admits<E>,
    {
        self.ops.push(WriteOp::put(value));
        self
    }

    /// Puts every value, in order.
    pub fn put_all<'a, E: Entity + 'a>(mut self, values: impl IntoIterator<Item = &'a E>) -> Self
    where
        D: Admits<E>,
    {
        self.ops.extend(values.into_iter().map(WriteOp::put));
        self
    }

    /// Deletes the item with this key (nothing happens if there is none). As with
    /// [`put`](Self::put), a batch cannot check the stored item's entity type.
    pub fn delete<E: Entity>(mut self, key: Key<E>) -> Self
    where
        D: Admits<E>,
    {
        self.ops.push(
            refuse_unique::<E>("delete")
                .and_then(|()| key.into_encoded())
                .and_then(|key| WriteOp::delete(E::TYPE, E::NAMES, key)),
        );
        self
    }

    /// Deletes the items with these keys, in order.
    pub fn delete_all<E: Entity>(mut self, keys: impl IntoIterator<Item = Key<E>>) -> Self
    where
        D: Admits<E>,
    {
        self.ops.extend(keys.into_iter().map(|key| {
            refuse_unique::<E>("delete")
                .and_then(|()| key.into_encoded())
                .and_then(|key| WriteOp::delete(E::TYPE, E::NAMES, key))
        }));
        self
    }

    /// Adds the writes a previous batch left unprocessed (their positions in this batch are
    /// new: the order in which they are added here).
    pub fn resubmit(mut self, unprocessed: impl IntoIterator<Item = UnprocessedWrite>) -> Self {
        self.ops.extend(unprocessed.into_iter().map(|u| {
            key_id_of(&u.key, u.names)?;
            let size = u.item().map_or(0, item_size);
            let wire = match (&u.request.put_request, &u.request.delete_request) {
                (Some(put), _) => wire::Wire::put(&put.item),
                (None, Some(delete)) => wire::Wire::delete(&delete.key),
                (None, None) => {
                    return Err(Error::Invalid {
                        reason: format!("{u}: the write holds neither a put nor a delete and cannot be sent again"),
                    });
                }
            }
            .map_err(|e| unknown_type(u.entity, u.names, &u.key, e))?;
            Ok(WriteOp { entity: u.entity, names: u.names, key: u.key, kind: u.kind, wire, size })
        }));
        self
    }

    /// The number of entries added so far.
    pub fn len(&self) -> usize {
        self.ops.len()
    }

    /// True when no entry was added.
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// At most `n` requests in flight at once (0 counts as 1). Default
    /// [`DEFAULT_CONCURRENCY`] (4).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.options.concurrency = n.max(1);
        self
    }

    /// The retry bound and backoff; default [`RetryPolicy::DEFAULT`].
    pub fn retry(mut self, policy: RetryPolicy) -> Self {
        self.options.retry = policy;
        self
    }

    /// Reports the total consumed capacity in [`BatchWriteOutcome::consumed_capacity`] too
    /// (every batch asks for it, `ReturnConsumedCapacity = INDEXES`, and reports it in
    /// [`BatchWriteOutcome::consumed`]).
    pub fn return_consumed_capacity(mut self) -> Self {
        self.options.capacity = true;
        self
    }

    /// Sends the batch: see the [module documentation](self).
    ///
    /// `Ok` when every request got an answer: what DynamoDB did not write by the end of the
    /// retry bound, or what kept failing with a retryable error, is in
    /// [`BatchWriteOutcome::unprocessed`] (use [`BatchWriteOutcome::check`] to make that an
    /// error).
    ///
    /// # Errors
    /// Before sending: the first entry's [`Error::Key`] / [`Error::Encode`],
    /// [`Error::ItemTooLarge`], [`Error::DuplicateKey`]. After: [`Error::BatchWrite`] when a
    /// request failed with an error that retrying cannot fix; it carries the outcome (what was
    /// written, and every write not done, including those of requests never sent) and the
    /// error as its source.
    pub async fn send(self) -> Result<BatchWriteOutcome, Error> {
        let ops = self.ops.into_iter().collect::<Result<Vec<WriteOp>, Error>>()?;
        let chunks = write_chunks(&ops, self.table.name())?;

        let run = Run {
            table: &self.table,
            entries: &ops,
            options: self.options,
            started: Instant::now(),
            stop: AtomicBool::new(false),
        };
        let reports: Vec<WriteReport> = futures::stream::iter(chunks)
            .map(|chunk| run.write_chunk(chunk))
            .buffer_unordered(self.options.concurrency)
            .collect()
            .await;

        let mut outcome = BatchWriteOutcome {
            consumed_capacity: self.options.capacity.then_some(0.0),
            ..BatchWriteOutcome::default()
        };
        let mut fatal = None;
        for report in reports {
            outcome.written += report.written;
            outcome.requests += report.requests;
            outcome.retries += report.retries;
            outcome.backoff += report.backoff;
            if let Some(total) = &mut outcome.consumed_capacity {
                *total += report.capacity.total();
            }
            outcome.consumed += report.capacity;
            outcome.unprocessed.extend(report.left.into_iter().map(|(i, reason)| ops[i].unprocessed(i, reason)));
            if fatal.is_none() {
                fatal = report.fatal;
            }
        }
        outcome.unprocessed.sort_by_key(|u| u.position);
        match fatal {
            Some(source) => Err(Error::BatchWrite { outcome: Box::new(outcome), source: Some(source) }),
            None => Ok(outcome),
        }
    }

    /// The `BatchWriteItem` requests [`send`](Self::send) sends first, one per chunk of at most
    /// [`MAX_WRITE_ITEMS`] writes (split by the same code), without sending them (retries of
    /// unprocessed items send subsets of these). `send` writes each request's body from the
    /// writes' JSON; here the same writes are read back from that JSON into the SDK's input.
    /// [`Request::to_json`](crate::table::render::Request::to_json) gives a deterministic text for
    /// snapshot tests.
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending.
    pub fn render(&self) -> Result<Vec<BatchWriteItemInput>, Error> {
        let mut ops = Vec::with_capacity(self.ops.len());
        for op in &self.ops {
            ops.push(op.as_ref().map_err(Error::copy_of_build_error)?);
        }
        let chunks = write_chunks(&ops, self.table.name())?;
        chunks
            .iter()
            .map(|chunk| {
                let requests = chunk.iter().map(|&i| ops[i].request()).collect();
                crate::table::render::built(write_request(&self.table, requests).as_input().clone().build())
            })
            .collect()
    }
}

/// The `BatchWriteItem` request of `requests`, as sent and rendered.
fn write_request(table: &Table, requests: Vec<WriteRequest>) -> BatchWriteItemFluentBuilder {
    table
        .client()
        .batch_write_item()
        .request_items(table.name(), requests)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
}

/// Checks the writes (item size, duplicate keys) and splits them into the requests of `table`:
/// at most [`MAX_WRITE_ITEMS`] writes each, and a body (the writes' JSON in the request's
/// envelope) of at most [`MAX_REQUEST_BYTES`], in order.
///
/// # Errors
/// [`Error::ItemTooLarge`]; [`Error::DuplicateKey`]; [`Error::LimitExceeded`] for a write
/// whose request alone would be over [`MAX_REQUEST_BYTES`].
fn write_chunks<W: Borrow<WriteOp>>(ops: &[W], table: &str) -> Result<Vec<Vec<usize>>, Error> {
    if let Some(op) = ops.iter().map(Borrow::borrow).find(|op| op.size > MAX_ITEM_BYTES) {
        return Err(Error::ItemTooLarge {
            entity: op.entity,
            key: op.names.show_key(&op.key),
            size: op.size,
            limit: MAX_ITEM_BYTES,
        });
    }
    check_duplicates(ops.iter().map(Borrow::borrow).map(|op| (&op.key, op.entity, op.names)))?;
    // The room for the writes in a body: what is left of the limit after the envelope.
    let room = MAX_REQUEST_BYTES.saturating_sub(wire::envelope_len(table));
    let mut chunks: Vec<Vec<usize>> = Vec::new();
    let mut bytes = 0;
    for (i, op) in ops.iter().map(Borrow::borrow).enumerate() {
        // Its bytes and the comma before it.
        let len = op.wire.len() + 1;
        if len > room {
            return Err(Error::LimitExceeded {
                limit: crate::limits::Limit::RequestSize,
                part: "the BatchWriteItem request of this write alone".to_owned(),
                measured: len - 1 + wire::envelope_len(table),
                max: MAX_REQUEST_BYTES,
                library: 0,
                operation: "BatchWriteItem",
                entity: op.entity,
                key: op.names.show_key(&op.key),
            });
        }
        match chunks.last_mut() {
            Some(chunk) if chunk.len() < MAX_WRITE_ITEMS && bytes + len <= room => {
                chunk.push(i);
                bytes += len;
            }
            _ => {
                chunks.push(vec![i]);
                bytes = len;
            }
        }
    }
    Ok(chunks)
}

#[derive(Default)]
struct WriteReport {
    written: usize,
    left: Vec<(usize, UnprocessedReason)>,
    requests: u32,
    retries: u32,
    backoff: Duration,
    capacity: Capacity,
    fatal: Option<Arc<Error>>,
}

impl WriteReport {
    fn leave(&mut self, pending: Vec<usize>, reason: UnprocessedReason) {
        self.left.extend(pending.into_iter().map(|i| (i, reason.clone())));
    }
}

impl Run<'_, WriteOp> {
    /// Writes one request's worth of entries (the writes at the positions `pending`),
    /// re-sending what comes back unprocessed or fails with a retryable error. Each attempt's
    /// request is built from the writes' bytes (see `wire`): the writes stay in the batch.
    async fn write_chunk(&self, pending: Vec<usize>) -> WriteReport {
        let mut state = (pending, WriteReport::default());
        // `Retry` carries the attempt's error (`None`: answered, with writes unprocessed).
        let run = self.retrying("BatchWriteItem").run(&mut state, |(pending, report), attempt| {
            Box::pin(async move {
                report.backoff = attempt.slept;
                if self.stop.load(Ordering::Relaxed) {
                    let sent = attempt.number - 1;
                    report.leave(std::mem::take(pending), reason_after(sent, attempt.previous.flatten()));
                    return Ok(Next::Done(()));
                }
                report.requests += 1;
                if attempt.number > 1 {
                    report.retries += 1;
                }
                let writes = wire::joined(pending.iter().map(|&i| &self.entries[i].wire));
                let body = wire::Body::new(self.table.name(), writes);
                let request = write_request(self.table, Vec::new()).customize().interceptor(body).send();
                match self.table.execute(attempt.call(), request).await {
                    Ok(out) => {
                        report.capacity +=
                            Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), true);
                        let returned =
                            out.unprocessed_items.and_then(|mut m| m.remove(self.table.name())).unwrap_or_default();
                        let still = self.unprocessed_of(pending, &returned);
                        report.written += pending.len() - still.len();
                        *pending = still;
                        if pending.is_empty() { Ok(Next::Done(())) } else { Ok(Next::Retry(None)) }
                    }
                    Err(err) if retryable(&err) => Ok(Next::Retry(Some(Arc::new(Error::sdk("BatchWriteItem", err))))),
                    Err(err) => Err(Arc::new(Error::sdk("BatchWriteItem", err))),
                }
            })
        });
        let outcome = run.await;
        let (pending, mut report) = state;
        match outcome {
            Ok(Ok(())) => {}
            // The policy allows no further attempt.
            Ok(Err(last_error)) => report.leave(pending, reason_after(report.requests, last_error)),
            // An error that retrying cannot fix stops the batch.
            Err(error) => {
                self.stop.store(true, Ordering::Relaxed);
                let reason = UnprocessedReason::Failed { attempts: report.requests, error: Arc::clone(&error) };
                report.leave(pending, reason);
                report.fatal = Some(error);
            }
        }
        report
    }

    /// The positions of `pending` whose writes DynamoDB returned unprocessed, each once, in
    /// position order: empty when every write was applied. A returned entry that matches no
    /// pending write gives all of `pending`: nothing is counted as written that might not be
    /// (puts and deletes are idempotent, so re-sending is safe).
    fn unprocessed_of(&self, pending: &[usize], returned: &[WriteRequest]) -> Vec<usize> {
        if returned.is_empty() {
            return Vec::new();
        }
        let by_key: HashMap<KeyId<'_>, usize> =
            pending.iter().filter_map(|&i| Some((entry_id(&self.entries[i].key)?, i))).collect();
        let mut still = Vec::with_capacity(returned.len());
        for request in returned {
            // Every entity of a table names its keys alike; the names of any pending write do.
            let found = pending.iter().find_map(|&p| {
                write_request_key(request, self.entries[p].names).and_then(|id| by_key.get(&id).copied())
            });
            match found {
                Some(i) => still.push(i),
                None => {
                    tracing::warn!(?request, "UnprocessedItems names a write that was not sent; re-sending them all");
                    let mut all = pending.to_vec();
                    all.sort_unstable();
                    return all;
                }
            }
        }
        still.sort_unstable();
        still.dedup();
        still
    }
}

// --- batch get --------------------------------------------------------------------------------

/// One key of a batch get.
#[derive(Debug, Clone)]
struct GetEntry {
    entity: &'static str,
    names: &'static AttributeNames,
    key: PrimaryKey,
}

impl GetEntry {
    fn new<E: Entity>(key: Key<E>) -> Result<GetEntry, Error> {
        let key = key.into_encoded()?;
        key_id_of(&key, E::NAMES)?;
        Ok(GetEntry { entity: E::TYPE, names: E::NAMES, key })
    }
}

/// What a batch get read: `items[i]` is the item of the `i`-th key (input order), `None` when
/// there is no such item **or when the key is in `unprocessed`** (not read). Check
/// [`is_complete`](BatchGetOutcome::is_complete), or use
/// [`into_result`](BatchGetOutcome::into_result), before taking a `None` for "absent".
#[derive(Debug, Clone)]
#[must_use = "a batch get may leave keys unread: check `unprocessed`, or call `into_result`"]
pub struct BatchGetOutcome<T> {
    /// The items, in the order of the keys.
    pub items: Vec<Option<T>>,
    /// Keys not read, in position order.
    pub unprocessed: Vec<UnprocessedKey>,
    /// `BatchGetItem` requests sent, retries included (the SDK's own retries are not counted).
    pub requests: u32,
    /// Of those requests, how many re-sent unprocessed or failed keys.
    pub retries: u32,
    /// Total time slept in backoff before retries, summed over concurrent requests.
    pub backoff: Duration,
    /// Read capacity units consumed, summed over every response, when asked for:
    /// `consumed.total()`.
    pub consumed_capacity: Option<f64>,
    /// The capacity consumed, summed over every response (always asked for:
    /// `ReturnConsumedCapacity = INDEXES`). See [`capacity`](crate::capacity).
    pub consumed: Capacity,
}

impl<T> BatchGetOutcome<T> {
    /// True when every key was read.
    pub fn is_complete(&self) -> bool {
        self.unprocessed.is_empty()
    }

    /// The items in key order, when every key was read (`None` then means "no such item").
    ///
    /// # Errors
    /// [`Error::BatchGet`] naming the keys not read.
    pub fn into_result(self) -> Result<Vec<Option<T>>, Error> {
        if self.is_complete() {
            Ok(self.items)
        } else {
            Err(Error::BatchGet { total: self.items.len(), unprocessed: self.unprocessed })
        }
    }
}

impl<T> BatchGetOutcome<T> {
    /// The same outcome over `items` (the decoded items, in key order).
    fn with_items<U>(self, items: Vec<Option<U>>) -> BatchGetOutcome<U> {
        BatchGetOutcome {
            items,
            unprocessed: self.unprocessed,
            requests: self.requests,
            retries: self.retries,
            backoff: self.backoff,
            consumed_capacity: self.consumed_capacity,
            consumed: self.consumed,
        }
    }
}

impl<E: Entity> BatchGetOutcome<E> {
    /// The keys not read, typed, to read again.
    pub fn unprocessed_keys(&self) -> Vec<Key<E>> {
        self.unprocessed.iter().filter_map(UnprocessedKey::key_of).collect()
    }
}

impl UnprocessedKey {
    /// The typed key, when it is a key of entity `E`.
    pub fn key_of<E: Entity>(&self) -> Option<Key<E>> {
        (self.entity == E::TYPE).then(|| Key::new(Ok(self.key.clone())))
    }
}

/// A batch get of keys of one entity type, from [`Table::batch_get`]; see the
/// [module documentation](self) for what `send` does. Duplicate keys are an error.
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGet<E> {
    core: GetCore,
    _entity: PhantomData<fn() -> E>,
}

impl<E> fmt::Debug for BatchGet<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchGet").field("keys", &self.core.keys.len()).finish_non_exhaustive()
    }
}

/// A batch get of keys of any entity types, from [`Table::batch_get_mixed`], returning raw
/// items (decode each with [`Entity::from_item`] or a table-level enum).
///
/// From a declared handle ([`Table<D>`](Table)) it is a `BatchGetMixed<D>`, which accepts only
/// the keys of the entities `D` lists ([`Admits`]): another entity is a compile error.
#[must_use = "a batch does nothing until it is sent"]
pub struct BatchGetMixed<D = Untyped> {
    core: GetCore,
    decl: PhantomData<fn() -> D>,
}

impl<D> fmt::Debug for BatchGetMixed<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchGetMixed").field("core", &self.core).finish()
    }
}

#[derive(Debug)]
struct GetCore {
    table: Table,
    keys: Vec<Result<GetEntry, Error>>,
    options: Options,
    consistent: bool,
}

macro_rules! get_options {
    () => {
        /// At most `n` requests in flight at once (0 counts as 1). Default
        /// [`DEFAULT_CONCURRENCY`] (4).
        pub fn concurrency(mut self, n: usize) -> Self {
            self.core.options.concurrency = n.max(1);
            self
        }

        /// The retry bound and backoff; default [`RetryPolicy::DEFAULT`].
        pub fn retry(mut self, policy: RetryPolicy) -> Self {
            self.core.options.retry = policy;
            self
        }

        /// Reports the total consumed capacity in `consumed_capacity` too (every batch asks
        /// for it, `ReturnConsumedCapacity = INDEXES`, and reports it in `consumed`).
        pub fn return_consumed_capacity(mut self) -> Self {
            self.core.options.capacity = true;
            self
        }

        /// Strongly consistent reads (twice the read capacity).
        pub fn consistent_read(mut self) -> Self {
            self.core.consistent = true;
            self
        }

        /// The `BatchGetItem` requests `send` sends first, one per [`MAX_GET_KEYS`] keys, built
        /// by the same code, without sending them (retries of unprocessed keys send subsets of
        /// these).
        ///
        /// # Errors
        /// As `send` before sending: a key's encoding error, [`Error::DuplicateKey`].
        pub fn render(&self) -> Result<Vec<BatchGetItemInput>, Error> {
            self.core.render()
        }

        /// The number of keys.
        pub fn len(&self) -> usize {
            self.core.keys.len()
        }

        /// True when there is no key.
        pub fn is_empty(&self) -> bool {
            self.core.keys.is_empty()
        }
    };
}

impl<E: Entity> BatchGet<E> {
    pub(crate) fn new(table: Table, keys: impl IntoIterator<Item = Key<E>>) -> Self {
        let keys = keys.into_iter().map(GetEntry::new).collect();
        BatchGet { core: GetCore { table, keys, options: Options::default(), consistent: false }, _entity: PhantomData }
    }

    /// Adds more keys.
    pub fn keys(mut self, keys: impl IntoIterator<Item = Key<E>>) -> Self {
        self.core.keys.extend(keys.into_iter().map(GetEntry::new));
        self
    }

    get_options!();

    /// Reads every key: see the [module documentation](self). The items come back in the
    /// order of the keys.
    ///
    /// # Errors
    /// Before sending: a key's encoding error, [`Error::DuplicateKey`]. After:
    /// [`Error::Sdk`] when a request failed with an error that retrying cannot fix (nothing
    /// read is returned then: reading again is safe); [`Error::WrongEntity`] /
    /// [`Error::Decode`] when an item does not decode as `E` (the whole batch fails then; see
    /// [`send_lenient`](Self::send_lenient) to keep the items that do).
    pub async fn send(self) -> Result<BatchGetOutcome<E>, Error> {
        let mut raw = self.core.send().await?;
        let items = std::mem::take(&mut raw.items)
            .into_iter()
            .map(|item| item.map(|item| E::from_item(&item)).transpose())
            .collect::<Result<Vec<Option<E>>, Error>>()?;
        Ok(raw.with_items(items))
    }

    /// As [`send`](Self::send), but an item that does not decode as `E` does not fail the batch:
    /// its slot in `items` is `None` and it is reported, with its position among the keys, in
    /// the second element, in position order. The other items decode as in `send`. For tables
    /// that other clients also write, where one malformed item must not hide the rest.
    ///
    /// # Errors
    /// As [`send`](Self::send), without the decoding errors.
    pub async fn send_lenient(self) -> Result<(BatchGetOutcome<E>, Vec<(usize, ItemError)>), Error> {
        let mut raw = self.core.send().await?;
        let mut undecodable = Vec::new();
        let items = std::mem::take(&mut raw.items)
            .into_iter()
            .enumerate()
            .map(|(position, item)| {
                let item = item?;
                match E::from_item(&item) {
                    Ok(decoded) => Some(decoded),
                    Err(error) => {
                        undecodable.push((position, ItemError::new(E::NAMES, item, error)));
                        None
                    }
                }
            })
            .collect();
        Ok((raw.with_items(items), undecodable))
    }

    /// As [`send`](Self::send), the items raw, not decoded: for reads that decode each item on
    /// its own (a lenient query's whole items).
    pub(crate) async fn send_raw(self) -> Result<BatchGetOutcome<Item>, Error> {
        self.core.send().await
    }
}

impl<D> BatchGetMixed<D> {
    pub(crate) fn new(table: Table) -> Self {
        BatchGetMixed {
            core: GetCore { table, keys: Vec::new(), options: Options::default(), consistent: false },
            decl: PhantomData,
        }
    }

    /// Adds a key of any entity type.
    pub fn key<E: Entity>(mut self, key: Key<E>) -> Self
    where
        D: Admits<E>,
    {
        self.core.keys.push(GetEntry::new(key));
        self
    }

    /// Adds keys of one entity type.
    pub fn keys<E: Entity>(mut self, keys: impl IntoIterator<Item = Key<E>>) -> Self
    where
        D: Admits<E>,
    {
        self.core.keys.extend(keys.into_iter().map(GetEntry::new));
        self
    }

    /// Adds a primary key read from an index item whose entity type is not known (a projection
    /// without the type attribute); `names` are the table's attribute names, `entity` names the
    /// read in errors.
    pub(crate) fn primary_key(mut self, entity: &'static str, names: &'static AttributeNames, key: PrimaryKey) -> Self {
        let checked = key_id_of(&key, names).map(|_| ());
        self.core.keys.push(checked.map(|()| GetEntry { entity, names, key }));
        self
    }

    get_options!();

    /// Reads every key; the raw items come back in the order of the keys.
    ///
    /// # Errors
    /// As [`BatchGet::send`], without the decoding errors.
    pub async fn send(self) -> Result<BatchGetOutcome<Item>, Error> {
        self.core.send().await
    }
}

struct GetReport {
    found: Vec<(usize, Item)>,
    left: Vec<(usize, UnprocessedReason)>,
    requests: u32,
    retries: u32,
    backoff: Duration,
    capacity: Capacity,
    fatal: Option<Error>,
}

impl GetCore {
    async fn send(self) -> Result<BatchGetOutcome<Item>, Error> {
        let keys = self.keys.into_iter().collect::<Result<Vec<GetEntry>, Error>>()?;
        let positions = check_duplicates(keys.iter().map(|k| (&k.key, k.entity, k.names)))?;
        let indices: Vec<usize> = (0..keys.len()).collect();
        let chunks: Vec<Vec<usize>> = indices.chunks(MAX_GET_KEYS).map(<[usize]>::to_vec).collect();

        let run = Run {
            table: &self.table,
            entries: &keys,
            options: self.options,
            started: Instant::now(),
            stop: AtomicBool::new(false),
        };
        let reports: Vec<GetReport> = futures::stream::iter(chunks)
            .map(|chunk| run.get_chunk(chunk, &positions, self.consistent))
            .buffer_unordered(self.options.concurrency)
            .collect()
            .await;

        let mut outcome = BatchGetOutcome {
            items: vec![None; keys.len()],
            unprocessed: Vec::new(),
            requests: 0,
            retries: 0,
            backoff: Duration::ZERO,
            consumed_capacity: self.options.capacity.then_some(0.0),
            consumed: Capacity::default(),
        };
        for report in reports {
            if let Some(error) = report.fatal {
                return Err(error);
            }
            outcome.requests += report.requests;
            outcome.retries += report.retries;
            outcome.backoff += report.backoff;
            if let Some(total) = &mut outcome.consumed_capacity {
                *total += report.capacity.total();
            }
            outcome.consumed += report.capacity;
            for (i, item) in report.found {
                outcome.items[i] = Some(item);
            }
            outcome.unprocessed.extend(report.left.into_iter().map(|(i, reason)| UnprocessedKey {
                position: i,
                entity: keys[i].entity,
                key: keys[i].key.clone(),
                reason,
                names: keys[i].names,
            }));
        }
        outcome.unprocessed.sort_by_key(|u| u.position);
        Ok(outcome)
    }
}

/// The `BatchGetItem` request of `keys`.
fn get_request(table: &Table, keys: Vec<Item>, consistent: bool) -> Result<BatchGetItemInputBuilder, Error> {
    let request =
        KeysAndAttributes::builder().set_keys(Some(keys)).consistent_read(consistent).build().map_err(invalid)?;
    Ok(aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput::builder()
        .request_items(table.name(), request)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes))
}

impl GetCore {
    /// The first requests, one per [`MAX_GET_KEYS`] keys.
    fn render(&self) -> Result<Vec<BatchGetItemInput>, Error> {
        let mut keys = Vec::with_capacity(self.keys.len());
        for key in &self.keys {
            keys.push(key.as_ref().map_err(Error::copy_of_build_error)?);
        }
        check_duplicates(keys.iter().map(|k| (&k.key, k.entity, k.names)))?;
        keys.chunks(MAX_GET_KEYS)
            .map(|chunk| {
                let items = chunk.iter().map(|k| k.names.key_item(&k.key)).collect();
                crate::table::render::built(get_request(&self.table, items, self.consistent)?.build())
            })
            .collect()
    }
}

impl Run<'_, GetEntry> {
    /// Reads one request's worth of keys, re-sending what comes back unprocessed.
    async fn get_chunk(
        &self,
        pending: Vec<usize>,
        positions: &HashMap<KeyId<'_>, (usize, &'static str)>,
        consistent: bool,
    ) -> GetReport {
        let report = GetReport {
            found: Vec::with_capacity(pending.len()),
            left: Vec::new(),
            requests: 0,
            retries: 0,
            backoff: Duration::ZERO,
            capacity: Capacity::default(),
            fatal: None,
        };
        let mut state = (pending, report);
        // `Retry` carries the attempt's error (`None`: answered, with keys unprocessed).
        let run = self.retrying("BatchGetItem").run(&mut state, |(pending, report), attempt| {
            Box::pin(async move {
                report.backoff = attempt.slept;
                if self.stop.load(Ordering::Relaxed) {
                    let reason = reason_after(attempt.number - 1, attempt.previous.flatten());
                    report.left.extend(std::mem::take(pending).into_iter().map(|i| (i, reason.clone())));
                    return Ok(Next::Done(()));
                }
                report.requests += 1;
                if attempt.number > 1 {
                    report.retries += 1;
                }
                let keys = pending.iter().map(|&i| self.entries[i].names.key_item(&self.entries[i].key)).collect();
                // The key attribute names of the entries sent (one set for the entities of a table).
                let mut names: Vec<&'static AttributeNames> = Vec::with_capacity(1);
                for &i in pending.iter() {
                    if !names.iter().any(|n| std::ptr::eq(*n, self.entries[i].names)) {
                        names.push(self.entries[i].names);
                    }
                }
                // The position of the key an item names.
                let position_of = |item: &Item| -> Option<usize> {
                    names.iter().find_map(|n| {
                        let id = key_id(item.get(n.pk), item.get(n.sk))?;
                        positions.get(&id).map(|p| p.0)
                    })
                };
                let request = match get_request(self.table, keys, consistent) {
                    Ok(request) => request,
                    Err(e) => {
                        // A request that cannot be built stops this chunk only.
                        report.fatal = Some(e);
                        return Ok(Next::Done(()));
                    }
                };
                let result = self.table.execute(attempt.call(), request.send_with(self.table.client())).await;
                let out = match result {
                    Ok(out) => out,
                    Err(err) if retryable(&err) => {
                        return Ok(Next::Retry(Some(Arc::new(Error::sdk("BatchGetItem", err)))));
                    }
                    Err(err) => return Err(Error::sdk("BatchGetItem", err)),
                };
                report.capacity += Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), false);
                let items = out.responses.and_then(|mut m| m.remove(self.table.name())).unwrap_or_default();
                let mut done = Vec::with_capacity(items.len());
                for item in items {
                    match position_of(&item) {
                        Some(i) => {
                            done.push(i);
                            report.found.push((i, item));
                        }
                        None => {
                            let key = names
                                .first()
                                .map_or_else(|| crate::schema::describe_key(&item), |n| n.describe_key(&item));
                            tracing::warn!(%key, "BatchGetItem returned an item that was not asked for")
                        }
                    }
                }
                let returned = out
                    .unprocessed_keys
                    .and_then(|mut m| m.remove(self.table.name()))
                    .map(|k| k.keys)
                    .unwrap_or_default();
                let mut still = Vec::with_capacity(returned.len());
                for key in &returned {
                    match position_of(key) {
                        Some(i) if pending.contains(&i) => still.push(i),
                        _ => {
                            tracing::warn!(?key, "UnprocessedKeys names a key that was not sent; re-reading them all");
                            still = pending.iter().copied().filter(|i| !done.contains(i)).collect();
                            break;
                        }
                    }
                }
                *pending = still;
                if pending.is_empty() { Ok(Next::Done(())) } else { Ok(Next::Retry(None)) }
            })
        });
        let outcome = run.await;
        let (pending, mut report) = state;
        match outcome {
            Ok(Ok(())) => {}
            // The policy allows no further attempt.
            Ok(Err(last_error)) => {
                let reason = reason_after(report.requests, last_error);
                report.left.extend(pending.into_iter().map(|i| (i, reason.clone())));
            }
            // An error that retrying cannot fix stops the batch.
            Err(error) => {
                self.stop.store(true, Ordering::Relaxed);
                report.fatal = Some(error);
            }
        }
        report
    }
}

impl<D> Table<D> {
    /// Puts every value with [`Table::batch_write`] and the default settings.
    ///
    /// # Errors
    /// As [`BatchWrite::send`](crate::batch::BatchWrite::send).
    pub fn batch_put<'a, E: Entity + Sync>(&self, values: &'a [E]) -> Op<'a, BatchWriteOutcome>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.batch_write().put_all(values).send().await })
    }

    /// Reads the items of these keys of one entity type, as `BatchGetItem` requests of at most
    /// 100 keys, with unprocessed keys retried; the items come back in the order of the keys.
    /// See [`BatchGet`].
    pub fn batch_get<E: Entity>(&self, keys: impl IntoIterator<Item = Key<E>>) -> BatchGet<E>
    where
        D: Admits<E>,
    {
        BatchGet::new(self.untyped(), keys)
    }

    /// A batch of puts and deletes of any entity types and any number of items, sent as
    /// `BatchWriteItem` requests of at most 25 writes, with unprocessed items retried; see
    /// [`BatchWrite`] and the [`batch`](crate::batch) module. On a declared handle
    /// (`Table<D>`), of `D`'s entities only.
    pub fn batch_write(&self) -> crate::batch::BatchWrite<D> {
        crate::batch::BatchWrite::new(self.untyped())
    }

    /// A batch get of keys of any entity types, returning raw items in the order of the keys;
    /// see [`BatchGetMixed`]. On a declared handle (`Table<D>`), of `D`'s entities only.
    pub fn batch_get_mixed(&self) -> crate::batch::BatchGetMixed<D> {
        crate::batch::BatchGetMixed::new(self.untyped())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_size_follows_dynamodb_rules() {
        let item: Item = [
            ("s".to_owned(), AttributeValue::S("héllo".into())),      // 1 + 6
            ("n".to_owned(), AttributeValue::N("-0012300.0".into())), // 1 + 3 ("123")
            ("b".to_owned(), AttributeValue::Bool(true)),             // 1 + 1
            ("l".to_owned(), AttributeValue::L(vec![AttributeValue::S("ab".into())])), // 1 + 3 + 1 + 2
            ("m".to_owned(), AttributeValue::M([("k".to_owned(), AttributeValue::Null(true))].into())), // 1 + 3 + 1 + 1 + 1
            ("ss".to_owned(), AttributeValue::Ss(vec!["a".into(), "bc".into()])),                       // 2 + 3
        ]
        .into_iter()
        .collect();
        assert_eq!(item_size(&item), 7 + 4 + 2 + 7 + 7 + 5);
    }

    #[test]
    fn a_write_whose_request_alone_is_over_16_mb_is_refused_and_others_are_split_by_bytes() {
        let names = &AttributeNames::DEFAULT;
        let op = |i: usize, value: AttributeValue| {
            let key = PrimaryKey { pk: AttributeValue::S(format!("A#{i}")), sk: AttributeValue::S("META".into()) };
            let mut item = names.key_item(&key);
            item.insert("v".to_owned(), value);
            WriteOp::from_item("Thing", names, key, item, 40).unwrap()
        };
        // A number of 38 significant digits counts 20 bytes, whatever its leading zeros: its
        // JSON can be any length.
        let huge = op(0, AttributeValue::N(format!("{}1", "0".repeat(MAX_REQUEST_BYTES))));
        let err = write_chunks(&[huge], "t").unwrap_err();
        // The write: `{"PutRequest":{"Item":` and `}}` (24 bytes), the item's braces and commas
        // (4), `"PK":{"S":"A#0"}` (16), `"SK":{"S":"META"}` (17), `"v":{"N":"` and `"}` (12)
        // around the number's digits; the envelope of table `t` (60).
        let measured = 24 + 4 + 16 + 17 + 12 + MAX_REQUEST_BYTES + 1 + 60;
        assert_eq!(
            err.to_string(),
            format!(
                "BatchWriteItem of Thing PK=A#0 SK=META: the BatchWriteItem request of this write alone has {measured} \
                 bytes, over DynamoDB's limit of 16777216 (size of a request); nothing was sent"
            )
        );
        // Each of these writes is a third of the room: two to a request.
        let third = (MAX_REQUEST_BYTES - wire::envelope_len("t")) / 3;
        let ops: Vec<WriteOp> = (0..5).map(|i| op(i, AttributeValue::S("x".repeat(third)))).collect();
        assert_eq!(write_chunks(&ops, "t").unwrap(), vec![vec![0, 1], vec![2, 3], vec![4]]);
        let small: Vec<WriteOp> = (0..30).map(|i| op(i, AttributeValue::S("x".into()))).collect();
        assert_eq!(write_chunks(&small, "t").unwrap().iter().map(Vec::len).collect::<Vec<_>>(), vec![25, 5]);
    }

    #[test]
    fn duplicates_name_both_positions() {
        let key =
            |pk: &str, sk: &str| PrimaryKey { pk: AttributeValue::S(pk.into()), sk: AttributeValue::S(sk.into()) };
        let keys = [key("A", "1"), key("A", "2"), key("A", "1")];
        let names = &AttributeNames::DEFAULT;
        let entities = ["One", "Two", "Three"];
        let entries = keys.iter().zip(entities).map(|(key, e)| (key, e, names));
        let err = check_duplicates(entries).unwrap_err();
        assert_eq!(
            err.to_string(),
            "duplicate key PK=A SK=1 in one batch: position 0 (One) and position 2 (Three); \
             DynamoDB rejects a batch that names one item twice"
        );
        // A number key and a string key with the same text are different items.
        let n = PrimaryKey { pk: AttributeValue::N("1".into()), sk: AttributeValue::S("x".into()) };
        let s = PrimaryKey { pk: AttributeValue::S("1".into()), sk: AttributeValue::S("x".into()) };
        assert_ne!(key_id_of(&n, names).unwrap(), key_id_of(&s, names).unwrap());
        // Entities of tables with different attribute names cannot share one batch.
        static OTHER: AttributeNames = AttributeNames::DEFAULT.with_keys("pk", "sk");
        let mixed = [(&keys[0], "One", names), (&keys[1], "Two", &OTHER)];
        assert_eq!(
            check_duplicates(mixed.into_iter()).unwrap_err().to_string(),
            "invalid request: one batch holds One (key attributes PK / SK, type attribute _type) and Two (key \
             attributes pk / sk, type attribute _type): entities of tables with different attribute names cannot \
             share a table"
        );
    }
}

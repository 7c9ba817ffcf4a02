//! The batch write builder, [`BatchWrite`]: the puts and deletes it holds, its settings, and
//! `send` / `render`.

use std::fmt;
use std::marker::PhantomData;
use std::sync::atomic::AtomicBool;

use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use futures::StreamExt;
use tokio::time::Instant;

use crate::batch::key_id::key_id_of;
use crate::batch::run::{Options, Run};
use crate::batch::wire;
use crate::batch::write_chunks::write_chunks;
use crate::batch::write_op::{WriteOp, refuse_unique, unknown_type};
use crate::batch::write_run::{WriteReport, write_request};
use crate::error::{BatchWriteOutcome, Error, UnprocessedWrite};
use crate::retry::RetryPolicy;
use crate::schema::size::item_size;
use crate::schema::{Admits, Entity, Key};
use crate::table::{Table, Untyped};

/// A batch of puts and deletes of any entity types, from [`Table::batch_write`]; see the
/// [module documentation](crate::batch) for what `send` does.
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
    /// Nor can it check the stored schema version: a batch put through an older struct
    /// replaces an item stored at a newer version ([`Table::put`] refuses that, see
    /// [`evolve`](crate::schema::evolve#writes)).
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
    /// [`DEFAULT_CONCURRENCY`](crate::batch::DEFAULT_CONCURRENCY) (4).
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

    /// Sends the batch: see the [module documentation](crate::batch).
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
            let maybe = &report.maybe_written;
            outcome
                .unprocessed
                .extend(report.left.into_iter().map(|(i, reason)| ops[i].unprocessed(i, reason, maybe.contains(&i))));
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
    /// [`MAX_WRITE_ITEMS`](crate::batch::MAX_WRITE_ITEMS) writes (split by the same code), without sending them (retries of
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

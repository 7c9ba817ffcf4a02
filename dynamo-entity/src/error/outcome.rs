//! What a batch and a transaction report about their entries, carried by [`Error`] when they
//! fail: the writes and keys a batch left unprocessed ([`BatchWriteOutcome`],
//! [`UnprocessedWrite`], [`UnprocessedKey`]) and why each action of a canceled transaction
//! failed ([`CancellationReason`]). The [`batch`](crate::batch) and
//! [`transact`](crate::transact) modules re-export them.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::WriteRequest;

use crate::capacity::Capacity;
use crate::error::Error;
use crate::key::{AttributeNames, PrimaryKey};
use crate::value::Item;

/// Why an entry of a batch was neither written nor read.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum UnprocessedReason {
    /// DynamoDB returned it in `UnprocessedItems` / `UnprocessedKeys` in answer to each of
    /// `attempts` requests: it was not written (read). Usually throttling; retry later.
    Unprocessed {
        /// Requests sent for this entry.
        attempts: u32,
    },
    /// The last of `attempts` requests for it failed with `error`, after the SDK's own retries
    /// (throttling, HTTP 5xx, a timeout, a connection failure, or an error that stopped the
    /// batch). After an HTTP 5xx or a timeout DynamoDB may or may not have applied the write; a
    /// put or delete can safely be sent again.
    Failed {
        /// Requests sent for this entry.
        attempts: u32,
        /// The error of the last one.
        error: Arc<Error>,
    },
    /// Never sent: the batch stopped after another request failed with an error that
    /// retrying cannot fix.
    NotSent,
}

impl fmt::Display for UnprocessedReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnprocessedReason::Unprocessed { attempts } => {
                write!(f, "returned unprocessed by DynamoDB {attempts} time{}", if *attempts == 1 { "" } else { "s" })
            }
            UnprocessedReason::Failed { attempts, error } => write!(f, "request failed (attempt {attempts}): {error}"),
            UnprocessedReason::NotSent => f.write_str("not sent: the batch stopped after an error"),
        }
    }
}

/// Whether a write puts or deletes its item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum WriteKind {
    /// `PutRequest`: writes the whole item, replacing any item with its key.
    Put,
    /// `DeleteRequest`: deletes the item with its key, if any.
    Delete,
}

impl fmt::Display for WriteKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            WriteKind::Put => "put",
            WriteKind::Delete => "delete",
        })
    }
}

/// A write of a batch that was not written: its position in the batch, entity type, key, kind
/// and why. Send it again with [`BatchWrite::resubmit`](crate::batch::BatchWrite::resubmit).
#[derive(Debug, Clone)]
pub struct UnprocessedWrite {
    /// Its position in the batch (0-based, in the order entries were added).
    pub position: usize,
    /// The entity type name.
    pub entity: &'static str,
    /// Its primary key.
    pub key: PrimaryKey,
    /// Put or delete.
    pub kind: WriteKind,
    /// Why it was not written.
    pub reason: UnprocessedReason,
    /// An attempt that carried this write lost its answer (HTTP 5xx, a timeout, a connection
    /// failure), possibly one of the SDK's own retries: DynamoDB may have applied it all the
    /// same, whatever the later answers said. Either way, sending it again
    /// ([`BatchWrite::resubmit`](crate::batch::BatchWrite::resubmit)) leaves the item as if
    /// written once (see [`batch`](crate::batch)).
    pub maybe_written: bool,
    pub(crate) names: &'static AttributeNames,
    pub(crate) request: WriteRequest,
}

impl UnprocessedWrite {
    /// The item a put would have written; `None` for a delete.
    pub fn item(&self) -> Option<&Item> {
        self.request.put_request.as_ref().map(|p| &p.item)
    }
}

impl fmt::Display for UnprocessedWrite {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.names.show_key(&self.key);
        write!(f, "{} {} {key} (position {}): {}", self.kind, self.entity, self.position, self.reason)?;
        if self.maybe_written {
            f.write_str("; an attempt that carried it lost its answer, so it may have been written")?;
        }
        Ok(())
    }
}

/// What a batch write did.
///
/// `written + unprocessed.len()` is the number of entries of the batch. `written` counts only
/// writes that DynamoDB acknowledged (in a response that did not list them as unprocessed);
/// every other entry is in `unprocessed`, in position order. An entry of `unprocessed` is not
/// stored by this batch, unless its [`maybe_written`](UnprocessedWrite::maybe_written) says
/// that an attempt that carried it lost its answer ([`maybe_written`](Self::maybe_written)
/// counts them).
#[derive(Debug, Clone, Default)]
#[must_use = "a batch write may leave items unprocessed: check `unprocessed`, or call `check`"]
pub struct BatchWriteOutcome {
    /// Writes DynamoDB acknowledged.
    pub written: usize,
    /// Writes not done, in position order.
    pub unprocessed: Vec<UnprocessedWrite>,
    /// `BatchWriteItem` requests sent, retries included (the SDK's own retries of a request
    /// are not counted: they are one request here).
    pub requests: u32,
    /// Of those requests, how many re-sent unprocessed or failed writes.
    pub retries: u32,
    /// Total time slept in backoff before retries, summed over concurrent requests.
    pub backoff: Duration,
    /// Write capacity units consumed, summed over every response, when asked for with
    /// [`BatchWrite::return_consumed_capacity`](crate::batch::BatchWrite::return_consumed_capacity): `consumed.total()`.
    pub consumed_capacity: Option<f64>,
    /// The capacity consumed, per table and GSI, summed over every response (always asked
    /// for: `ReturnConsumedCapacity = INDEXES`). See [`capacity`](crate::capacity).
    pub consumed: Capacity,
}

impl BatchWriteOutcome {
    /// True when every write was done.
    pub fn is_complete(&self) -> bool {
        self.unprocessed.is_empty()
    }

    /// How many of the writes in [`unprocessed`](Self::unprocessed) may have been applied all
    /// the same: an attempt that carried them lost its answer
    /// ([`UnprocessedWrite::maybe_written`]). The table holds between `written` and
    /// `written + maybe_written()` of the batch's writes.
    pub fn maybe_written(&self) -> usize {
        self.unprocessed.iter().filter(|u| u.maybe_written).count()
    }

    /// `Ok(())` when every write was done: `table.batch_put(&items).await?.check()?`.
    ///
    /// # Errors
    /// [`Error::BatchWrite`] (with no source) carrying a copy of this outcome when
    /// `unprocessed` is not empty.
    pub fn check(&self) -> Result<(), Error> {
        if self.is_complete() {
            Ok(())
        } else {
            Err(Error::BatchWrite { outcome: Box::new(self.clone()), source: None })
        }
    }
}

/// The message of [`Error::BatchWrite`].
pub(crate) fn write_failure_message(outcome: &BatchWriteOutcome, source: Option<&Arc<Error>>) -> String {
    let mut message =
        format!("batch write incomplete: {} written, {} not written", outcome.written, outcome.unprocessed.len());
    match outcome.maybe_written() {
        0 => {}
        n => message.push_str(&format!(" ({n} of them may have been: an attempt lost its answer)")),
    }
    if let Some(first) = outcome.unprocessed.first() {
        message.push_str(&format!("; first: {first}"));
    }
    if let Some(source) = source {
        message.push_str(&format!("; stopped by: {source}"));
    }
    message
}

/// A key of a batch get that was not read: its position, entity type, key and why.
#[derive(Debug, Clone)]
pub struct UnprocessedKey {
    /// Its position in the batch (0-based: the index in the input keys).
    pub position: usize,
    /// The entity type name.
    pub entity: &'static str,
    /// The primary key.
    pub key: PrimaryKey,
    /// Why it was not read.
    pub reason: UnprocessedReason,
    pub(crate) names: &'static AttributeNames,
}

impl fmt::Display for UnprocessedKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let key = self.names.show_key(&self.key);
        write!(f, "get {} {key} (position {}): {}", self.entity, self.position, self.reason)
    }
}

/// The message of [`Error::BatchGet`].
pub(crate) fn get_failure_message(total: usize, unprocessed: &[UnprocessedKey]) -> String {
    let mut message = format!("batch get incomplete: {} of {total} keys not read", unprocessed.len());
    if let Some(first) = unprocessed.first() {
        message.push_str(&format!("; first: {first}"));
    }
    message
}

/// What one action of a transaction does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ActionKind {
    /// Write the item, replacing any item with its key ([`TransactWrite::put`](crate::transact::TransactWrite::put)).
    Put,
    /// Write the item only if no item has its key ([`TransactWrite::create`](crate::transact::TransactWrite::create)).
    Create,
    /// Write the item only if an item has its key ([`TransactWrite::replace`](crate::transact::TransactWrite::replace)).
    Replace,
    /// An update of an existing item ([`TransactWrite::update`](crate::transact::TransactWrite::update)).
    Update,
    /// Delete the item ([`TransactWrite::delete`](crate::transact::TransactWrite::delete), [`TransactWrite::delete_if`](crate::transact::TransactWrite::delete_if)).
    Delete,
    /// Check a condition on an item without writing it ([`TransactWrite::condition_check`](crate::transact::TransactWrite::condition_check)).
    ConditionCheck,
    /// Claim the guard item of a unique value (written for an entity with unique fields).
    ClaimUnique {
        /// The unique field.
        field: &'static str,
    },
    /// Release the guard item of a unique value (deleted when the value changes or the entity
    /// is deleted).
    ReleaseUnique {
        /// The unique field.
        field: &'static str,
    },
    /// Read an item (`TransactGetItems`).
    Get,
}

impl fmt::Display for ActionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ActionKind::Put => f.write_str("put"),
            ActionKind::Create => f.write_str("create"),
            ActionKind::Replace => f.write_str("replace"),
            ActionKind::Update => f.write_str("update"),
            ActionKind::Delete => f.write_str("delete"),
            ActionKind::ConditionCheck => f.write_str("condition check"),
            ActionKind::ClaimUnique { field } => write!(f, "claim unique {field} of"),
            ActionKind::ReleaseUnique { field } => write!(f, "release unique {field} of"),
            ActionKind::Get => f.write_str("get"),
        }
    }
}

/// Why DynamoDB canceled one action of a transaction: the `Code` of its cancellation reason.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum CancellationCode {
    /// The action's condition was not met (for a create: the item exists; for an update: the
    /// item is missing or the update's condition failed).
    ConditionalCheckFailed,
    /// Another transaction or write was in progress on the item. Nothing was written; sending
    /// again is safe (see [`TransactWrite::retry_conflicts`](crate::transact::TransactWrite::retry_conflicts)).
    TransactionConflict,
    /// The item collection (the items sharing a partition key) would exceed 10 GB, the limit of
    /// a table with a local secondary index.
    ItemCollectionSizeLimitExceeded,
    /// The item's partition is over its provisioned throughput.
    ProvisionedThroughputExceeded,
    /// The request rate is throttled (on-demand tables, or a control-plane limit).
    ThrottlingError,
    /// The action is invalid for this item (such as an update expression that does not fit the
    /// stored types, or an item over 400 KB).
    ValidationError,
    /// A code this library does not know, as DynamoDB sent it.
    Other(String),
}

impl CancellationCode {
    /// The code for `code` as DynamoDB sends it; `None` for `"None"`, the code of an action that
    /// did not fail.
    pub fn parse(code: &str) -> Option<CancellationCode> {
        Some(match code {
            "None" => return None,
            "ConditionalCheckFailed" => CancellationCode::ConditionalCheckFailed,
            "TransactionConflict" => CancellationCode::TransactionConflict,
            "ItemCollectionSizeLimitExceeded" => CancellationCode::ItemCollectionSizeLimitExceeded,
            "ProvisionedThroughputExceeded" => CancellationCode::ProvisionedThroughputExceeded,
            "ThrottlingError" => CancellationCode::ThrottlingError,
            "ValidationError" => CancellationCode::ValidationError,
            other => CancellationCode::Other(other.to_owned()),
        })
    }

    /// The code as DynamoDB writes it.
    pub fn as_str(&self) -> &str {
        match self {
            CancellationCode::ConditionalCheckFailed => "ConditionalCheckFailed",
            CancellationCode::TransactionConflict => "TransactionConflict",
            CancellationCode::ItemCollectionSizeLimitExceeded => "ItemCollectionSizeLimitExceeded",
            CancellationCode::ProvisionedThroughputExceeded => "ProvisionedThroughputExceeded",
            CancellationCode::ThrottlingError => "ThrottlingError",
            CancellationCode::ValidationError => "ValidationError",
            CancellationCode::Other(code) => code,
        }
    }

    /// Whether the action may succeed when sent again unchanged: a conflict or throttling.
    pub fn is_transient(&self) -> bool {
        matches!(
            self,
            CancellationCode::TransactionConflict
                | CancellationCode::ThrottlingError
                | CancellationCode::ProvisionedThroughputExceeded
        )
    }
}

impl fmt::Display for CancellationCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One failed action of a canceled transaction, in [`Error::TransactionCanceled`].
#[derive(Debug, Clone, PartialEq)]
pub struct CancellationReason {
    /// The action's position in the request, from 0, counting every action (also those that
    /// did not fail, and the guard actions added for unique fields).
    pub index: usize,
    /// What the action did.
    pub action: ActionKind,
    /// The entity type of the item (for a guard action: of the entity that owns the guard).
    pub entity: &'static str,
    /// The item's key, as `PK=… SK=…`.
    pub key: String,
    /// Why it failed.
    pub code: CancellationCode,
    /// DynamoDB's message, if any.
    pub message: Option<String>,
    /// For a failed condition: the item as it is stored, `None` when there is no such item. (The
    /// library asks for it with `ReturnValuesOnConditionCheckFailure = ALL_OLD`, at no extra
    /// cost.)
    pub item: Option<Item>,
}

impl fmt::Display for CancellationReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "action {} ({} {} {}): {}", self.index, self.action, self.entity, self.key, self.code)
    }
}

/// The text of [`Error::TransactionCanceled`].
pub(crate) fn describe(reasons: &[CancellationReason]) -> String {
    if reasons.is_empty() {
        return "DynamoDB gave no reason".to_owned();
    }
    reasons.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
}

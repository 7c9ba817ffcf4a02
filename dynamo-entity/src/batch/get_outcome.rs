//! What a batch get returns: [`BatchGetOutcome`], the items in key order and the keys not read.

use std::time::Duration;

use crate::capacity::Capacity;
use crate::error::{Error, ItemError, UnprocessedKey};
use crate::schema::{Entity, Key};

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
    /// The items read that a [`lenient`](crate::batch::BatchGet::lenient) batch get reports
    /// instead of returning (their slots in `items` are `None`): each with its position among
    /// the keys (0-based) and its key, the item as read and why it does not decode, in position
    /// order. Empty otherwise: a strict batch get fails on the first such item.
    pub skipped: Vec<(usize, ItemError)>,
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
    pub(super) fn with_items<U>(self, items: Vec<Option<U>>) -> BatchGetOutcome<U> {
        BatchGetOutcome {
            items,
            unprocessed: self.unprocessed,
            skipped: self.skipped,
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

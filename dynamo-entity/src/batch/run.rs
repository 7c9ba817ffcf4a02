//! What the requests of one batch share: its options (concurrency, retry policy, capacity),
//! the [`Run`] state they read, and the reason given for entries left unprocessed.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use tokio::time::Instant;

use crate::error::{Error, UnprocessedReason};
use crate::retry::RetryPolicy;
use crate::table::{Call, Retrying, Table};

/// The number of requests a batch has in flight at once unless told otherwise.
pub const DEFAULT_CONCURRENCY: usize = 4;

/// The settings every batch shares.
#[derive(Debug, Clone, Copy)]
pub(super) struct Options {
    pub(super) concurrency: usize,
    pub(super) retry: RetryPolicy,
    pub(super) capacity: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options { concurrency: DEFAULT_CONCURRENCY, retry: RetryPolicy::DEFAULT, capacity: false }
    }
}

/// State shared by the requests of one batch.
pub(super) struct Run<'a, T> {
    pub(super) table: &'a Table,
    pub(super) entries: &'a [T],
    pub(super) options: Options,
    pub(super) started: Instant,
    pub(super) stop: AtomicBool,
}

impl<T> Run<'_, T> {
    /// The attempts of one request of the batch (`operation` is its name): the batch's policy,
    /// its `max_elapsed` counted from the start of the batch.
    pub(super) fn retrying(&self, operation: &'static str) -> Retrying {
        Retrying::new(Call::new(operation, ""), self.options.retry).since(self.started)
    }
}

/// Why entries are left after `attempts` requests, the last of which failed with `last_error`
/// (`None`: it was answered, with the entries unprocessed).
pub(super) fn reason_after(attempts: u32, last_error: Option<Arc<Error>>) -> UnprocessedReason {
    match (attempts, last_error) {
        (0, _) => UnprocessedReason::NotSent,
        (attempts, Some(error)) => UnprocessedReason::Failed { attempts, error },
        (attempts, None) => UnprocessedReason::Unprocessed { attempts },
    }
}

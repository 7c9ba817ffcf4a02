//! The one retry policy of the library: exponential backoff with full jitter
//! ([`RetryPolicy`]), used by batches for unprocessed items and failed requests, by
//! transactions canceled only by conflicts or throttling, by the read-then-write loops of
//! unique fields, and by the requests of a migration pass that were throttled or failed. Each
//! request also goes through the SDK's own retries (throttling, 5xx, timeouts) first; what the
//! library retries is what the SDK reports as done but incomplete (`UnprocessedItems`,
//! `UnprocessedKeys`, `TransactionConflict`) or failed after its retries. The one loop that
//! sleeps this backoff between attempts is the request executor's (`table::exec::Retrying`).

use std::time::Duration;

use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};

/// How a batch retries entries that DynamoDB returned unprocessed, and requests that failed
/// with a retryable error after the SDK's own retries: exponential backoff with full jitter.
///
/// Before retry number `n` (1 for the first retry) the batch sleeps a uniformly random time
/// between zero and `min(max_delay, base_delay × 2^(n-1))`: with the defaults, windows of 50,
/// 100, 200, 400, 800, 1,600 and 2,000 ms. It stops retrying an entry after `max_attempts`
/// requests for it (the first one included), or when the next sleep would end after
/// `max_elapsed` counted from the start of the batch, whichever comes first; what is left is
/// returned as unprocessed.
///
/// The fields are public; the methods of the same names set them one at a time:
///
/// ```
/// use std::time::Duration;
/// use dynamo_entity::batch::RetryPolicy;
///
/// let policy = RetryPolicy::default().max_attempts(4).max_elapsed(Some(Duration::from_secs(1)));
/// assert_eq!(policy.max_attempts, 4);
/// assert_eq!(policy.base_delay, Duration::from_millis(50));
/// assert_eq!(policy.window(3), Duration::from_millis(200));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Requests for one entry, the first one included (at least 1). Default 8.
    pub max_attempts: u32,
    /// The backoff window before the first retry. Default 50 ms.
    pub base_delay: Duration,
    /// The largest backoff window. Default 2 s.
    pub max_delay: Duration,
    /// No retry starts a sleep that would end more than this after the batch started. Default
    /// `None`: only `max_attempts` bounds the retries.
    pub max_elapsed: Option<Duration>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy::DEFAULT
    }
}

impl RetryPolicy {
    /// 8 attempts, 50 ms base, 2 s cap, no time bound.
    pub const DEFAULT: RetryPolicy = RetryPolicy {
        max_attempts: 8,
        base_delay: Duration::from_millis(50),
        max_delay: Duration::from_secs(2),
        max_elapsed: None,
    };

    /// The policy of resending a transaction canceled only by conflicts or throttling, and of
    /// the read-then-write loops of unique fields: 20 ms doubling to at most 1 s; the number of
    /// attempts is the caller's (see [`TransactWrite::retry_conflicts`](crate::transact::TransactWrite::retry_conflicts)).
    pub const CONFLICTS: RetryPolicy = RetryPolicy {
        max_attempts: 10,
        base_delay: Duration::from_millis(20),
        max_delay: Duration::from_secs(1),
        max_elapsed: None,
    };

    /// One attempt: whatever DynamoDB leaves unprocessed is returned at once.
    pub const fn no_retries() -> RetryPolicy {
        RetryPolicy { max_attempts: 1, ..RetryPolicy::DEFAULT }
    }

    /// Sets [`RetryPolicy::max_attempts`] (0 counts as 1).
    pub const fn max_attempts(mut self, attempts: u32) -> Self {
        self.max_attempts = if attempts == 0 { 1 } else { attempts };
        self
    }

    /// Sets [`RetryPolicy::base_delay`].
    pub const fn base_delay(mut self, delay: Duration) -> Self {
        self.base_delay = delay;
        self
    }

    /// Sets [`RetryPolicy::max_delay`].
    pub const fn max_delay(mut self, delay: Duration) -> Self {
        self.max_delay = delay;
        self
    }

    /// Sets [`RetryPolicy::max_elapsed`].
    pub const fn max_elapsed(mut self, limit: Option<Duration>) -> Self {
        self.max_elapsed = limit;
        self
    }

    /// The backoff window before retry number `retry` (1 for the first retry):
    /// `min(max_delay, base_delay × 2^(retry-1))`. The actual sleep is uniform in `[0, window]`.
    pub fn window(&self, retry: u32) -> Duration {
        let factor = 1u32.checked_shl(retry.saturating_sub(1)).unwrap_or(u32::MAX);
        self.base_delay.saturating_mul(factor).min(self.max_delay)
    }

    /// A random sleep in `[0, window(retry)]` (full jitter), drawn by the executor's retry loop.
    pub(crate) fn jittered(&self, retry: u32) -> Duration {
        let window = u64::try_from(self.window(retry).as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(fastrand::u64(0..=window))
    }
}

/// Whether a failed request is worth sending again: throttling (whatever its
/// [reasons](crate::error::ThrottlingReason): the SDK has already retried it within its own
/// budget, and the library's backoff gives the table or partition more time), a replicated
/// write conflict of a multi-Region strongly consistent table, server errors, timeouts and
/// connection failures. The same classification as [`Error::is_retryable`](crate::Error::is_retryable),
/// on the SDK's error before it becomes an [`Error`](crate::Error).
pub(crate) fn retryable<E: ProvideErrorMetadata, R>(err: &SdkError<E, R>) -> bool {
    match err {
        SdkError::TimeoutError(_) | SdkError::DispatchFailure(_) | SdkError::ResponseError(_) => true,
        SdkError::ServiceError(service) => crate::error::retryable_code(service.err().code()),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_windows_double_up_to_the_cap() {
        let p = RetryPolicy::default();
        let windows: Vec<u128> = (1..=9).map(|n| p.window(n).as_millis()).collect();
        assert_eq!(windows, vec![50, 100, 200, 400, 800, 1600, 2000, 2000, 2000]);
        assert_eq!(p.window(200), Duration::from_secs(2), "no overflow");
        for n in 1..=8 {
            for _ in 0..100 {
                assert!(p.jittered(n) <= p.window(n));
            }
        }
        assert_eq!(RetryPolicy::default().max_attempts(0).max_attempts, 1);
        assert_eq!(RetryPolicy::no_retries().max_attempts, 1);
    }

    #[test]
    fn conflict_backoff_grows_and_is_capped() {
        let p = RetryPolicy::CONFLICTS;
        let windows: Vec<u128> = (1..=8).map(|n| p.window(n).as_millis()).collect();
        assert_eq!(windows, vec![20, 40, 80, 160, 320, 640, 1000, 1000]);
        for n in 1..=8 {
            for _ in 0..100 {
                assert!(p.jittered(n) <= p.window(n));
            }
        }
    }
}

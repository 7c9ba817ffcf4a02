//! The one request executor: every request the library sends to DynamoDB goes through
//! [`Table::execute`], which
//!
//! * opens a `tracing` span `dynamodb` with the fields `operation` (such as `PutItem`),
//!   `table`, `entity` (the entity type, empty for a request of several types), `index` (the
//!   index name of a query, empty for the table), `attempt` (1 for the first request of an
//!   operation, counting the library's own retries of unprocessed items, transaction
//!   conflicts, unique-field races and a migration's writes of one item; the SDK's retries of
//!   throttling and 5xx happen inside one attempt), and, when the answer comes, `consumed`
//!   (capacity units, as DynamoDB reported them) and `outcome` (`ok` or `error`);
//! * records the consumed capacity on the handle's meter ([`Table::consumed`]).
//!
//! An operation that sends a request again (unprocessed batch entries, transactions canceled by
//! conflicts or throttling, the read-then-write races of unique fields, the throttled or failed
//! requests of a migration pass) does so through the one retry loop, [`Retrying::run`]: the
//! operation says what each attempt came to ([`Next`]: done, retry after a backoff, or again at
//! once), and the loop numbers the attempts, sleeps [`RetryPolicy`]'s jittered backoff between
//! them (each one announced by a `DEBUG` event with the operation, entity, index, attempt and
//! `backoff_ms`) and stops where the policy says. Which outcomes are worth retrying stays each
//! operation's decision.

use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemOutput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemOutput;
use aws_sdk_dynamodb::operation::create_table::CreateTableOutput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput;
use aws_sdk_dynamodb::operation::delete_table::DeleteTableOutput;
use aws_sdk_dynamodb::operation::describe_table::DescribeTableOutput;
use aws_sdk_dynamodb::operation::describe_time_to_live::DescribeTimeToLiveOutput;
use aws_sdk_dynamodb::operation::get_item::GetItemOutput;
use aws_sdk_dynamodb::operation::put_item::PutItemOutput;
use aws_sdk_dynamodb::operation::query::QueryOutput;
use aws_sdk_dynamodb::operation::scan::ScanOutput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsOutput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsOutput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemOutput;
use aws_sdk_dynamodb::operation::update_table::UpdateTableOutput;
use aws_sdk_dynamodb::operation::update_time_to_live::UpdateTimeToLiveOutput;
use aws_sdk_dynamodb::types::ConsumedCapacity;
use futures::future::BoxFuture;
use tokio::time::Instant;
use tracing::Instrument;
use tracing::field::Empty;

use crate::retry::RetryPolicy;
use crate::table::Table;

/// What the span of one request names: the operation, the entity type, the index and the
/// attempt.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Call {
    /// DynamoDB's operation name, such as `PutItem`.
    pub(crate) operation: &'static str,
    /// The entity type; empty for a request of several types.
    pub(crate) entity: &'static str,
    /// The index name of a query; empty for the table.
    pub(crate) index: &'static str,
    /// 1 for the first request of an operation.
    pub(crate) attempt: u32,
}

impl Call {
    /// The first attempt of `operation` on items of `entity`.
    pub(crate) const fn new(operation: &'static str, entity: &'static str) -> Call {
        Call { operation, entity, index: "", attempt: 1 }
    }

    /// The same call through `index` (its name).
    pub(crate) const fn index(mut self, index: &'static str) -> Call {
        self.index = index;
        self
    }

    /// The same call as attempt number `attempt` (from 1).
    pub(crate) const fn attempt(mut self, attempt: u32) -> Call {
        self.attempt = attempt;
        self
    }
}

/// A response that reports consumed capacity, and whether its operation reads or writes.
pub(crate) trait Consumed {
    /// Whether the operation writes (its units count as write units).
    const WRITE: bool;
    /// The capacity entries of the response (one per table).
    fn consumed(&self) -> &[ConsumedCapacity];
}

macro_rules! consumed_one {
    ($($output:ty => $write:literal),* $(,)?) => {$(
        impl Consumed for $output {
            const WRITE: bool = $write;
            fn consumed(&self) -> &[ConsumedCapacity] {
                self.consumed_capacity.as_slice()
            }
        }
    )*};
}

macro_rules! consumed_many {
    ($($output:ty => $write:literal),* $(,)?) => {$(
        impl Consumed for $output {
            const WRITE: bool = $write;
            fn consumed(&self) -> &[ConsumedCapacity] {
                self.consumed_capacity.as_deref().unwrap_or_default()
            }
        }
    )*};
}

macro_rules! consumed_none {
    ($($output:ty),* $(,)?) => {$(
        impl Consumed for $output {
            const WRITE: bool = false;
            fn consumed(&self) -> &[ConsumedCapacity] {
                &[]
            }
        }
    )*};
}

consumed_one!(
    GetItemOutput => false,
    PutItemOutput => true,
    UpdateItemOutput => true,
    DeleteItemOutput => true,
    QueryOutput => false,
    ScanOutput => false,
);
consumed_many!(
    BatchGetItemOutput => false,
    BatchWriteItemOutput => true,
    TransactGetItemsOutput => false,
    TransactWriteItemsOutput => true,
);

// Table administration reports no capacity.
consumed_none!(
    CreateTableOutput,
    DescribeTableOutput,
    DescribeTimeToLiveOutput,
    UpdateTableOutput,
    UpdateTimeToLiveOutput,
    DeleteTableOutput
);
// A vector search reports bytes (`VectorCapacity`), not capacity units.
consumed_none!(aws_sdk_dynamodb::operation::search_vectors::SearchVectorsOutput);

impl<D> Table<D> {
    /// Sends one request (`request` is the SDK's `send()` future) inside the span of `call`,
    /// and records the capacity its answer reports on this handle's meter. The answer is
    /// returned as the SDK gave it: interpreting it is the operation's.
    ///
    /// The SDK's request future is large (its input, the orchestrator's state: kilobytes). It
    /// is moved to the heap here, when the request is made, not at its first poll: the future
    /// returned holds only the box, the span and the handle, so the future of every operation
    /// that awaits it stays small (an `async fn` would hold `request` itself until its first
    /// poll, and so be as large as it). One allocation per request, beside the SDK's own; what
    /// is saved is the copying of kilobytes each time an operation's future moves (a backfill
    /// puts one future per item into its `buffer_unordered`).
    pub(crate) fn execute<O: Consumed, E>(
        &self,
        call: Call,
        request: impl Future<Output = Result<O, E>>,
    ) -> impl Future<Output = Result<O, E>> {
        let span = self.span(call);
        let request = Box::pin(request.instrument(span.clone()));
        let meter = self.meter();
        async move {
            let result = request.await;
            answered(&span, meter, result.as_ref().ok().map(|out| (out.consumed(), O::WRITE)));
            result
        }
    }

    /// The span of one request (see [`execute`](Self::execute)). Not generic: one copy
    /// serves every operation.
    fn span(&self, call: Call) -> tracing::Span {
        tracing::info_span!(
            target: "dynamo_entity",
            "dynamodb",
            operation = call.operation,
            table = self.name(),
            entity = call.entity,
            index = call.index,
            attempt = call.attempt,
            consumed = Empty,
            outcome = Empty,
        )
    }
}

/// Records a request's answer on its span and `meter`: for a success, the capacity it
/// reports and whether its operation writes; `None` for an error. Not generic: one copy
/// serves every operation.
fn answered(span: &tracing::Span, meter: &crate::capacity::CapacityMeter, ok: Option<(&[ConsumedCapacity], bool)>) {
    match ok {
        Some((consumed, write)) => {
            let total = meter.record_consumed(consumed, write);
            span.record("consumed", total);
            span.record("outcome", "ok");
        }
        None => {
            span.record("outcome", "error");
        }
    }
}

/// What one attempt of a retried operation came to, when it did not stop the operation with an
/// error (see [`Retrying::run`]).
#[derive(Debug)]
pub(crate) enum Next<T, R> {
    /// The operation is finished: `T` is its answer.
    Done(T),
    /// Worth sending again after a backoff (throttling, a conflict, entries left unprocessed, a
    /// lost race), counted against the policy's `max_attempts`. `R` says why: it is handed to
    /// the next attempt as [`Attempt::previous`], and it is the operation's answer when the
    /// policy allows no further attempt.
    Retry(R),
    /// To be sent again at once, without a backoff and not counted against the policy: the
    /// attempt was answered, and the next one is a new request (planned again from an item that
    /// changed since it was read). The operation bounds these itself.
    Again,
}

/// One attempt of a retried operation, as its attempt closure sees it.
///
/// `'s` is how long the attempt has the operation's state, and `'env` how long the operation
/// lasts: their relation, `'env: 's`, lets the attempt's future borrow both the state and what
/// the operation borrows (as `std::thread::Scope` lets a thread borrow its caller's locals).
#[derive(Debug)]
pub(crate) struct Attempt<'s, 'env: 's, R> {
    /// 1 for the first attempt, counting every attempt ([`Next::Retry`] and [`Next::Again`]
    /// alike): the `attempt` field of the request's span ([`Attempt::call`]).
    pub(crate) number: u32,
    /// The backoffs before this attempt: how many attempts asked to be retried.
    pub(crate) retries: u32,
    /// The time slept in those backoffs, in all.
    pub(crate) slept: Duration,
    /// Why the previous attempt asked to be retried (its [`Next::Retry`]); `None` for the first
    /// attempt and after [`Next::Again`]. An attempt learns here what became of the one before
    /// it, such as a request whose answer was lost, which DynamoDB may have applied.
    pub(crate) previous: Option<R>,
    call: Call,
    lent: PhantomData<&'s &'env ()>,
}

impl<R> Attempt<'_, '_, R> {
    /// The span of this attempt's request: the operation's call, numbered as this attempt.
    pub(crate) fn call(&self) -> Call {
        self.call.attempt(self.number)
    }
}

/// The one retry loop of the library: the attempts of one operation, with [`RetryPolicy`]'s
/// backoff between them.
///
/// Before the `n`-th retry (the attempt after the `n`-th [`Next::Retry`]) it sleeps
/// [`RetryPolicy::jittered`]`(n)`; it gives up when `n` reaches `max_attempts`, or when that
/// sleep would end more than `max_elapsed` after the operation started (by default when this
/// value was made; see [`Retrying::since`]). The clock is tokio's, so that tests with paused time
/// see the backoff.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Retrying {
    call: Call,
    policy: RetryPolicy,
    started: Instant,
}

impl Retrying {
    /// The attempts of the operation `call` names (the requests' spans), bounded by `policy`,
    /// starting now.
    pub(crate) fn new(call: Call, policy: RetryPolicy) -> Retrying {
        Retrying { call, policy, started: Instant::now() }
    }

    /// Counts `max_elapsed` from `started` rather than from now: a batch bounds all its
    /// requests by the time since the batch started.
    pub(crate) fn since(mut self, started: Instant) -> Retrying {
        self.started = started;
        self
    }

    /// Runs `attempt` until it is done, stops with an error, or asks to be retried when the
    /// policy allows no further attempt: `Ok(Ok(answer))` for [`Next::Done`], `Ok(Err(reason))`
    /// with the reason of the last [`Next::Retry`], `Err(error)` for an attempt that stopped the
    /// operation (an error that sending again cannot fix). No sleep follows the last attempt.
    ///
    /// `state` is what the attempts share and change (the entries still pending, the item as
    /// last read, a report), lent to each attempt in turn and the caller's again at the end.
    /// Each attempt is one boxed future, so that the future of the whole operation is `Send`
    /// whatever the attempt borrows from `state` (an `async` closure's future is not known to
    /// be `Send` where it is called generically). An attempt sends its request with
    /// [`Table::execute`] under [`Attempt::call`].
    pub(crate) async fn run<'env, S, T, R, E>(
        self,
        state: &'env mut S,
        mut attempt: impl for<'s> FnMut(&'s mut S, Attempt<'s, 'env, R>) -> BoxFuture<'s, Result<Next<T, R>, E>>,
    ) -> Result<Result<T, R>, E> {
        let mut number = 0u32;
        let mut retries = 0u32;
        let mut slept = Duration::ZERO;
        let mut previous = None;
        loop {
            number = number.saturating_add(1);
            let this =
                Attempt { number, retries, slept, previous: previous.take(), call: self.call, lent: PhantomData };
            match attempt(state, this).await? {
                Next::Done(answer) => return Ok(Ok(answer)),
                Next::Again => {}
                Next::Retry(reason) => {
                    let Some(delay) = self.backoff(retries.saturating_add(1)) else {
                        return Ok(Err(reason));
                    };
                    tracing::debug!(
                        target: "dynamo_entity",
                        operation = self.call.operation,
                        entity = self.call.entity,
                        index = self.call.index,
                        attempt = number,
                        backoff_ms = u64::try_from(delay.as_millis()).unwrap_or(u64::MAX),
                        "sending again after a backoff"
                    );
                    tokio::time::sleep(delay).await;
                    retries = retries.saturating_add(1);
                    slept = slept.saturating_add(delay);
                    previous = Some(reason);
                }
            }
        }
    }

    /// The sleep before retry number `retry` (1 for the first), or `None` when the policy
    /// allows no further attempt: `retry` attempts asked to be retried, and `max_attempts`
    /// counts them, or the sleep would end after `max_elapsed`.
    fn backoff(&self, retry: u32) -> Option<Duration> {
        if retry >= self.policy.max_attempts {
            return None;
        }
        let delay = self.policy.jittered(retry);
        match self.policy.max_elapsed {
            Some(limit) if self.started.elapsed() + delay > limit => None,
            _ => Some(delay),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What one attempt saw: its number, retries, time slept and previous reason, and the time
    /// since the test started (tokio's paused clock).
    type Seen = (u32, u32, Duration, Option<u32>, Duration);

    const CALL: Call = Call::new("PutItem", "Note");

    /// The sleeps `policy` draws for retries `1..=n` after `fastrand::seed(seed)`: the ones
    /// [`Retrying::run`] draws on this thread after the same seed.
    fn draws(seed: u64, policy: &RetryPolicy, n: u32) -> Vec<Duration> {
        fastrand::seed(seed);
        (1..=n).map(|retry| policy.jittered(retry)).collect()
    }

    /// Runs `outcome(number)` as the attempts, recording what each saw.
    async fn run_with(
        retrying: Retrying,
        started: Instant,
        mut outcome: impl FnMut(u32) -> Result<Next<&'static str, u32>, &'static str> + Send,
    ) -> (Result<Result<&'static str, u32>, &'static str>, Vec<Seen>) {
        let mut seen: Vec<Seen> = Vec::new();
        let answer = retrying
            .run(&mut seen, |seen, attempt| {
                let next = outcome(attempt.number);
                Box::pin(async move {
                    assert_eq!(attempt.call().attempt, attempt.number);
                    assert_eq!((attempt.call().operation, attempt.call().entity), ("PutItem", "Note"));
                    let at = started.elapsed();
                    seen.push((attempt.number, attempt.retries, attempt.slept, attempt.previous, at));
                    next
                })
            })
            .await;
        (answer, seen)
    }

    #[tokio::test(start_paused = true)]
    async fn retries_until_max_attempts_sleeping_the_policys_backoff() {
        let policy = RetryPolicy::DEFAULT.max_attempts(4);
        let [d1, d2, d3] = draws(7, &policy, 3)[..] else { unreachable!() };
        fastrand::seed(7);
        let started = Instant::now();
        let (answer, seen) = run_with(Retrying::new(CALL, policy), started, |n| Ok(Next::Retry(n * 10))).await;
        // The reason of the last retry is the answer; no sleep follows the fourth attempt.
        assert_eq!(answer, Ok(Err(40)));
        let zero = Duration::ZERO;
        let steps: Vec<_> = seen.iter().map(|&(n, r, slept, previous, _)| (n, r, slept, previous)).collect();
        assert_eq!(
            steps,
            vec![(1, 0, zero, None), (2, 1, d1, Some(10)), (3, 2, d1 + d2, Some(20)), (4, 3, d1 + d2 + d3, Some(30)),]
        );
        // Each attempt started after the sleeps before it (the timer rounds up to 1 ms).
        for &(n, _, slept, _, at) in &seen {
            assert!(at >= slept && at <= slept + Duration::from_millis(u64::from(n)), "attempt {n}: {at:?}");
        }
        assert_eq!(started.elapsed(), seen[3].4, "nothing is slept after the last attempt");
    }

    #[tokio::test(start_paused = true)]
    async fn stops_at_once_on_an_error_that_retrying_cannot_fix() {
        let started = Instant::now();
        let retrying = Retrying::new(CALL, RetryPolicy::DEFAULT);
        let (answer, seen) =
            run_with(retrying, started, |n| if n == 2 { Err("refused") } else { Ok(Next::Retry(n)) }).await;
        assert_eq!(answer, Err("refused"));
        assert_eq!(seen.iter().map(|s| (s.0, s.3)).collect::<Vec<_>>(), vec![(1, None), (2, Some(1))]);
        assert_eq!(started.elapsed(), seen[1].4, "no sleep after the error");
    }

    #[tokio::test(start_paused = true)]
    async fn done_is_the_answer_of_the_first_attempt() {
        let started = Instant::now();
        let (answer, seen) =
            run_with(Retrying::new(CALL, RetryPolicy::DEFAULT), started, |_| Ok(Next::Done("put"))).await;
        assert_eq!(answer, Ok(Ok("put")));
        assert_eq!(seen.len(), 1);
        assert_eq!(started.elapsed(), Duration::ZERO);
    }

    #[tokio::test(start_paused = true)]
    async fn a_policy_of_one_attempt_never_sleeps() {
        for policy in [RetryPolicy::no_retries(), RetryPolicy { max_attempts: 0, ..RetryPolicy::DEFAULT }] {
            let started = Instant::now();
            let (answer, seen) = run_with(Retrying::new(CALL, policy), started, |n| Ok(Next::Retry(n))).await;
            assert_eq!(answer, Ok(Err(1)), "{policy:?}");
            assert_eq!(seen.len(), 1, "{policy:?}");
            assert_eq!(started.elapsed(), Duration::ZERO, "{policy:?}");
        }
    }

    #[tokio::test(start_paused = true)]
    async fn again_is_sent_at_once_and_not_counted() {
        let policy = RetryPolicy::DEFAULT.max_attempts(2);
        let sleep = draws(3, &policy, 1)[0];
        fastrand::seed(3);
        let started = Instant::now();
        let (answer, seen) = run_with(Retrying::new(CALL, policy), started, |n| match n {
            4 | 6 => Ok(Next::Retry(n)),
            _ => Ok(Next::Again),
        })
        .await;
        // Two attempts asked to be retried: the policy's two; the four others were not counted.
        assert_eq!(answer, Ok(Err(6)));
        let zero = Duration::ZERO;
        let steps: Vec<_> = seen.iter().map(|&(n, r, slept, previous, _)| (n, r, slept, previous)).collect();
        assert_eq!(
            steps,
            vec![
                (1, 0, zero, None),
                (2, 0, zero, None),
                (3, 0, zero, None),
                (4, 0, zero, None),
                (5, 1, sleep, Some(4)),
                (6, 1, sleep, None),
            ]
        );
        // No time passes before the only backoff, and none after it.
        assert_eq!(seen.iter().map(|s| s.4).filter(|at| at.is_zero()).count(), 4);
        assert_eq!(seen[4].4, seen[5].4);
        assert_eq!(started.elapsed(), seen[5].4);
    }

    #[tokio::test(start_paused = true)]
    async fn no_sleep_ends_after_max_elapsed() {
        // 30 ms windows, at most 100 ms in all: at least 4 attempts fit (3 sleeps of at most
        // 30 ms each, and 1 ms of timer rounding each), never the 1,000 the policy allows.
        let limit = Duration::from_millis(100);
        let policy = RetryPolicy::DEFAULT
            .max_attempts(1000)
            .base_delay(Duration::from_millis(30))
            .max_delay(Duration::from_millis(30))
            .max_elapsed(Some(limit));
        fastrand::seed(11);
        let started = Instant::now();
        let (answer, seen) = run_with(Retrying::new(CALL, policy), started, |n| Ok(Next::Retry(n))).await;
        let attempts = u32::try_from(seen.len()).unwrap();
        assert_eq!(answer, Ok(Err(attempts)));
        assert!((4..1000).contains(&attempts), "{attempts} attempts");
        // The run drew one sleep after each attempt: every one it slept ended within the
        // limit, and the one after the last attempt would not have.
        let sleeps = draws(11, &policy, attempts);
        for (k, (&(.., at), sleep)) in seen.iter().zip(&sleeps).enumerate() {
            let last = k + 1 == seen.len();
            assert_eq!(at + *sleep > limit, last, "attempt {}: at {at:?}, sleep {sleep:?}", k + 1);
        }
        assert_eq!(started.elapsed(), seen[seen.len() - 1].4, "no sleep after the last attempt");
    }

    #[tokio::test(start_paused = true)]
    async fn max_elapsed_counts_from_the_start_it_is_given() {
        // A batch's requests share the batch's start: past `max_elapsed`, nothing is retried.
        let started = Instant::now();
        tokio::time::advance(Duration::from_secs(2)).await;
        let policy = RetryPolicy::DEFAULT.max_elapsed(Some(Duration::from_secs(1)));
        let (answer, seen) =
            run_with(Retrying::new(CALL, policy).since(started), started, |n| Ok(Next::Retry(n))).await;
        assert_eq!(answer, Ok(Err(1)));
        assert_eq!(seen.len(), 1);
        assert_eq!(started.elapsed(), Duration::from_secs(2));
    }

    #[test]
    fn an_operation_retried_with_borrowed_state_is_send() {
        fn send<F: Send>(_: &F) {}
        let entries = vec![1, 2, 3];
        let mut pending: Vec<&i32> = entries.iter().collect();
        let entries = &entries;
        let future = Retrying::new(CALL, RetryPolicy::DEFAULT).run(&mut pending, |pending, attempt| {
            Box::pin(async move {
                pending.retain(|&&e| e > attempt.number as i32 && entries.contains(&e));
                tokio::task::yield_now().await;
                Ok::<_, ()>(if pending.is_empty() { Next::Done(entries.len()) } else { Next::Retry(pending.len()) })
            })
        });
        send(&future);
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().start_paused(true).build().unwrap();
        assert_eq!(runtime.block_on(future), Ok(Ok(3)));
        assert!(pending.is_empty());
    }
}

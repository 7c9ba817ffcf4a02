//! The attempts of one single-item write (`PutItem`, `UpdateItem`, `DeleteItem`), sent by the
//! library itself so that it knows when an attempt lost its answer: see
//! [`write_token`](crate::write_token) for what a resend carries and how its answer is read.
//!
//! The SDK's own retries are off for these requests (the handle keeps a client without them,
//! [`Table::write_client`]); the attempts go through the one retry loop,
//! [`Retrying::run`](crate::table::exec::Retrying), with as many attempts as the SDK client's
//! retry configuration allows (3 by default).

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::Intercept;
use aws_sdk_dynamodb::config::http::HttpResponse;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::error::{ProvideErrorMetadata, SdkError};
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::types::AttributeValue;
use futures::future::BoxFuture;

use crate::error::Error;
use crate::retry::RetryPolicy;
use crate::schema::Item;
use crate::table::Table;
use crate::table::body::ReadBodies;
use crate::table::exec::{Call, Consumed, Next, Retrying};
use crate::table::held::Held;
use crate::write_token::{HISTORY, Pending, PendingWrite, Resolved, Seen, WriteToken};

/// How a handle sends its single-item writes, shared by its clones.
#[derive(Debug, Clone)]
pub(crate) struct Writes {
    /// The handle's client with the SDK's retries off.
    pub(crate) client: Client,
    /// Whether writes carry write tokens ([`Table::without_write_tokens`]).
    pub(crate) tokens: bool,
    /// The attempts of one write: the SDK client's number of attempts, the library's backoff.
    pub(crate) policy: RetryPolicy,
    /// The writes this handle (and its clones) got answers for a moment ago.
    pub(crate) answered: Arc<Answered>,
}

impl Writes {
    /// The writes of a handle on `client`: with tokens, as many attempts as `client` allows.
    pub(crate) fn of(client: &Client) -> Writes {
        let config = client.config();
        let attempts = config.retry_config().map_or(3, RetryConfig::max_attempts);
        let mut builder = config.to_builder().retry_config(RetryConfig::disabled());
        // One `ReadBodies` a client, however many handles it was made through.
        if !super::body::has_interceptor(client, ReadBodies.name()) {
            super::body::with_read_bodies(&mut builder);
        }
        let client = Client::from_conf(builder.build());
        Writes { client, tokens: true, policy: RetryPolicy::DEFAULT.max_attempts(attempts), answered: Arc::default() }
    }
}

/// The writes a handle got answers for in the last moments, by item (its key as `PK=… SK=…`):
/// the token of the latest one of each item. A write answered before another write's first
/// attempt was sent was applied before it; a history that holds its token reaches back to
/// before that other write, however recent the token's time (see
/// [`write_token`](crate::write_token)). An answer is known for [`KEEP`](Self::KEEP), twice
/// [`RESEND_MARGIN`](crate::write_token::RESEND_MARGIN): an older answer's token is past the
/// margin anyway.
///
/// Answers are kept in two generations, so that no write scans the others:
///
/// | event | what happens |
/// |---|---|
/// | a write is answered | its entry goes into the current generation |
/// | the current generation is `KEEP` old | it becomes the previous one; the one before is dropped whole (all its entries are older than `KEEP`) |
/// | the current generation holds [`MOST`](Self::MOST) entries | the same, early: the entries dropped may be younger than `KEEP` |
///
/// So a handle keeps at most `2 × MOST` entries (about 100 bytes each), and one write costs a
/// lookup and an insert, however many writes a second the handle sends. An answer forgotten
/// early (more than `MOST` writes within `KEEP`) only makes a later write of that item less
/// able to tell its own lost attempt from another writer's: its result may be
/// [`Error::OutcomeUnknown`] where it could have been `Ok`, never a wrong one.
#[derive(Debug, Default)]
pub(crate) struct Answered {
    recent: Mutex<Generations>,
}

/// The two generations of [`Answered`].
#[derive(Debug, Default)]
struct Generations {
    /// Answers since `since`.
    current: HashMap<String, (WriteToken, Instant)>,
    /// Answers of the generation before (all older than `since`).
    previous: HashMap<String, (WriteToken, Instant)>,
    /// When the current generation began; `None` before the first answer.
    since: Option<Instant>,
}

impl Answered {
    /// How long an answer is kept.
    const KEEP: Duration = Duration::from_secs(2 * crate::write_token::RESEND_MARGIN.as_secs());

    /// How many answers one generation holds at most.
    const MOST: usize = 16_384;

    fn recent(&self) -> std::sync::MutexGuard<'_, Generations> {
        self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The token of the latest write of `key` answered in the last moments.
    pub(crate) fn before(&self, key: &str) -> Option<WriteToken> {
        self.before_at(key, Instant::now())
    }

    fn before_at(&self, key: &str, now: Instant) -> Option<WriteToken> {
        let recent = self.recent();
        let entry = recent.current.get(key).or_else(|| recent.previous.get(key));
        entry.filter(|(_, at)| now.saturating_duration_since(*at) < Self::KEEP).map(|(token, _)| *token)
    }

    /// A write of `key` with `token` was answered (`None`: a delete, the item is gone).
    fn record(&self, key: &str, token: Option<WriteToken>) {
        self.record_at(key, token, Instant::now());
    }

    fn record_at(&self, key: &str, token: Option<WriteToken>, now: Instant) {
        let mut recent = self.recent();
        let recent = &mut *recent;
        let old = recent.since.is_none_or(|since| now.saturating_duration_since(since) >= Self::KEEP);
        if old || recent.current.len() >= Self::MOST {
            recent.previous = std::mem::take(&mut recent.current);
            recent.since = Some(now);
        }
        match token {
            Some(token) => {
                recent.current.insert(key.to_owned(), (token, now));
            }
            None => {
                recent.current.remove(key);
                recent.previous.remove(key);
            }
        }
    }
}

/// What became of one attempt's request, for the resend loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Attempted {
    /// Throttled or refused for a replicated write in progress: not applied, send it again.
    NotApplied,
    /// No answer, or a server error (HTTP 5xx): DynamoDB may have applied it.
    Lost,
    /// An answer that says what DynamoDB did (success, a failed condition, a refusal).
    Answered,
}

/// The error codes that say a request was not applied and may be sent again.
const NOT_APPLIED: [&str; 4] = [
    "ThrottlingException",
    "ProvisionedThroughputExceededException",
    "RequestLimitExceeded",
    "ReplicatedWriteConflictException",
];

fn attempted<E: ProvideErrorMetadata>(error: &SdkError<E, HttpResponse>) -> Attempted {
    match error {
        SdkError::ServiceError(e) => {
            if e.err().code().is_some_and(|c| NOT_APPLIED.contains(&c)) {
                Attempted::NotApplied
            } else if e.raw().status().is_server_error() {
                Attempted::Lost
            } else {
                Attempted::Answered
            }
        }
        SdkError::ConstructionFailure(_) => Attempted::Answered,
        // A timeout, a connection that failed or an answer that could not be read: the request
        // may have reached DynamoDB.
        _ => Attempted::Lost,
    }
}

/// How a single-item write ended.
#[derive(Debug)]
pub(crate) enum Sent<O, E> {
    /// DynamoDB answered. `lost`: the error of an earlier attempt that lost its answer (the
    /// first one), so this one carried the resend condition
    /// ([`write_token::guard`](crate::write_token::guard)), and a failed
    /// condition must be read with [`write_token::seen`](crate::write_token::seen); an
    /// [`Error::OutcomeUnknown`] then names that lost attempt's error as its source.
    Answered { result: Result<O, SdkError<E, HttpResponse>>, lost: Option<Box<SdkError<E, HttpResponse>>> },
    /// The write may have been applied: the last attempt lost its answer, or an earlier one did
    /// and no resend got an answer (or the handle sends no resends, having no write tokens).
    Unknown(SdkError<E, HttpResponse>),
    /// Not applied: newer writes of other writers were applied first, [`ORDER_ROUNDS`] times, each
    /// time the write was sent with a token above the item's latest.
    Contended,
}

/// How many times a write refused because the item's latest token was not older than its own
/// is sent again with a newer token ([`Table::send_write_request`]).
pub(crate) const ORDER_ROUNDS: u32 = 8;

impl Table {
    /// The handle's client for single-item writes: its client with the SDK's retries off.
    pub(crate) fn write_client(&self) -> &Client {
        &self.writes().client
    }

    /// Sends a single-item write: `request(resend)` makes each attempt's request (`resend`:
    /// an earlier attempt lost its answer). Throttled attempts are sent again as they are; one
    /// that lost its answer is sent again as a resend when the handle has write tokens.
    pub(crate) async fn send_write<O, E, F>(&self, call: Call, mut request: F) -> Sent<O, E>
    where
        O: Consumed + Send + 'static,
        E: ProvideErrorMetadata + Send + 'static,
        F: FnMut(bool) -> Attempt<O, E> + Send,
    {
        let tokens = self.writes().tokens;
        let attempts = self.writes().policy.max_attempts;
        let mut lost: Option<SdkError<E, HttpResponse>> = None;
        let run = Retrying::new(call, self.writes().policy).run(&mut lost, |lost, attempt| {
            let sent = self.execute(attempt.call(), request(lost.is_some()));
            // A lost answer is resent at once (the fewer writes reach the item meanwhile, the
            // surer the resend's answer), within the policy's number of attempts.
            let again = attempt.number < attempts;
            Box::pin(resolve_attempt(sent, lost, tokens, again))
        });
        let result = run.await;
        match result {
            Ok(Ok(Sent::Answered { result, .. })) => Sent::Answered { result, lost: lost.map(Box::new) },
            Ok(Ok(unknown)) => unknown,
            // Throttled on every attempt: not applied. After a lost attempt, that one may have
            // been, and its error says more.
            Ok(Err(error)) => match lost {
                Some(lost) => Sent::Unknown(lost),
                None => Sent::Answered { result: Err(error), lost: None },
            },
            Err(never) => match never {},
        }
    }
}

/// One attempt: its request's answer, as the retry loop takes it. `lost` keeps the error of
/// the first attempt that lost its answer; an answered attempt's [`Sent::Answered`] gets it
/// from there once the loop is done.
async fn resolve_attempt<O, E: ProvideErrorMetadata>(
    sent: impl Future<Output = Result<O, SdkError<E, HttpResponse>>>,
    lost: &mut Option<SdkError<E, HttpResponse>>,
    tokens: bool,
    again: bool,
) -> Result<Next<Sent<O, E>, SdkError<E, HttpResponse>>, std::convert::Infallible> {
    let error = match sent.await {
        Ok(answer) => return Ok(Next::Done(Sent::Answered { result: Ok(answer), lost: None })),
        Err(error) => error,
    };
    Ok(match attempted(&error) {
        Attempted::Answered => Next::Done(Sent::Answered { result: Err(error), lost: None }),
        Attempted::NotApplied => Next::Retry(error),
        Attempted::Lost if tokens && again => {
            lost.get_or_insert(error);
            Next::Again
        }
        // The last attempt lost its answer too: the first lost one is the source.
        Attempted::Lost => Next::Done(Sent::Unknown(lost.take().unwrap_or(error))),
    })
}

/// The future of one attempt of a single-item write: the SDK's answer.
pub(crate) type Attempt<O, E> = BoxFuture<'static, Result<O, SdkError<E, HttpResponse>>>;

/// A single-item write request the resend loop can send again: the SDK's input builders of
/// `PutItem`, `UpdateItem` and `DeleteItem`.
pub(crate) trait WriteRequest: Clone + Send + Sync + 'static {
    /// The SDK's answer.
    type Output: Consumed + Send + 'static;
    /// The SDK's operation error.
    type Error: ProvideErrorMetadata + Send + 'static;
    /// The request without its condition, names and values, and those, moved out of it (no
    /// copy); and a put's item, also moved out (`None` for the others: see
    /// [`held`](super::held)).
    fn split(self) -> (Self, Parts, Option<Item>);
    /// The request with `parts`; `guarded`: they hold a write token's guard, so a failed
    /// condition returns the item (`ALL_OLD`).
    fn with(self, parts: Parts, guarded: bool) -> Self;
    /// The request with `token` wherever it holds the write's token besides `:wt` (a put's
    /// item holds it in `_w1`; an update's history shift and every guard take it from `:wt`).
    fn stamp(self, _token: &WriteToken) -> Self {
        self
    }
    /// The request with `item`.
    fn with_item(self, _item: Item) -> Self {
        self
    }
    /// Sends it through `client`; with `keep`, the body the SDK serialized is kept there
    /// ([`held::keeping`](super::held::keeping)). The item it returns (`ReturnValues`) is
    /// read from the answer's body by this crate's reader ([`body`](crate::table::body)).
    fn send(self, client: Client, keep: Option<Arc<Mutex<Held>>>) -> Attempt<Self::Output, Self::Error>;
    /// The item DynamoDB returned with a failed condition (`ALL_OLD`), when there was one.
    fn refused(error: &SdkError<Self::Error, HttpResponse>) -> Option<&Item>;
}

/// A write request's condition expression with its names and values.
#[derive(Debug, Clone, Default)]
pub(crate) struct Parts {
    pub(crate) condition: Option<String>,
    pub(crate) names: Option<HashMap<String, String>>,
    pub(crate) values: Option<HashMap<String, AttributeValue>>,
}

/// A write as the resend loop keeps it: the request without its condition, names and values,
/// and those apart, so that each attempt copies them once, adding its guard
/// ([`write_token::guard`](crate::write_token::guard)).
#[derive(Debug)]
pub(crate) struct Write<R> {
    request: R,
    parts: Parts,
    /// A put's item, sent by the first attempt without a copy ([`held`](super::held)).
    item: Option<Arc<Mutex<Held>>>,
}

impl<R: WriteRequest> Write<R> {
    /// The write of `request` (its condition, names and values copied out once).
    pub(crate) fn new(request: R) -> Write<R> {
        let (request, parts, item) = request.split();
        Write { request, parts, item: item.map(Held::new) }
    }

    /// The write of `request`, which holds no condition, names or values, with `parts`.
    pub(crate) fn of_parts(request: R, parts: Parts) -> Write<R> {
        Write { request, parts, item: None }
    }

    /// The request one attempt sends, through `client`: with the guard of `attempt` of the
    /// write with `token` (`key`: a key attribute; `answered`: see
    /// [`write_token::guard`](crate::write_token::guard)), or as it is without `token`.
    fn attempt(
        &self,
        client: &Client,
        token: Option<&WriteToken>,
        key: &str,
        answered: Option<&WriteToken>,
        attempt: crate::write_token::Attempt,
    ) -> Attempt<R::Output, R::Error> {
        let mut request = self.request.clone();
        let keep = match &self.item {
            Some(held) => match Held::item(held) {
                Some(item) => {
                    request = request.with_item(item);
                    Some(held.clone())
                }
                None => return Box::pin(std::future::ready(Err(SdkError::construction_failure(NOT_SENT)))),
            },
            None => None,
        };
        let Some(token) = token else {
            return request.with(self.parts.clone(), false).send(client.clone(), keep);
        };
        let mut names = self.parts.names.clone().unwrap_or_default();
        let mut values = self.parts.values.clone().unwrap_or_default();
        let condition = crate::write_token::guard(
            self.parts.condition.as_deref(),
            &mut names,
            &mut values,
            token,
            key,
            answered,
            attempt,
        );
        let parts = Parts { condition: Some(condition), names: Some(names), values: Some(values) };
        request.stamp(token).with(parts, true).send(client.clone(), keep)
    }
}

/// Why a put's later attempt was not made: the attempt before it was refused before the SDK
/// serialized it (an interceptor of the client refused it), so nothing was sent. The loop
/// never asks for one, since such an attempt's error is the write's answer.
const NOT_SENT: &str = "the put's earlier attempt was not serialized, so its item was not kept";

/// [`WriteRequest::split`] of an update or a delete: their requests are small, and their
/// parts are copied out.
macro_rules! copied_parts {
    () => {
        |request: Self| {
            let parts = Parts {
                condition: request.get_condition_expression().clone(),
                names: request.get_expression_attribute_names().clone(),
                values: request.get_expression_attribute_values().clone(),
            };
            let request = request
                .set_condition_expression(None)
                .set_expression_attribute_names(None)
                .set_expression_attribute_values(None);
            (request, parts, None)
        }
    };
}

macro_rules! write_request {
    ($($operation:ident: $builder:ident => $output:ident, $error:ident, $send:expr, $split:expr $(, $extra:item)*;)*) => {$(
        impl WriteRequest for aws_sdk_dynamodb::operation::$operation::builders::$builder {
            type Output = aws_sdk_dynamodb::operation::$operation::$output;
            type Error = aws_sdk_dynamodb::operation::$operation::$error;
            fn split(self) -> (Self, Parts, Option<Item>) {
                ($split)(self)
            }
            fn with(self, parts: Parts, guarded: bool) -> Self {
                let request = self
                    .set_condition_expression(parts.condition)
                    .set_expression_attribute_names(parts.names)
                    .set_expression_attribute_values(parts.values);
                match guarded {
                    true => request.return_values_on_condition_check_failure(crate::table::RETURN_OLD_ON_FAILURE),
                    false => request,
                }
            }
            $($extra)*
            fn send(self, client: Client, keep: Option<Arc<Mutex<Held>>>) -> Attempt<Self::Output, Self::Error> {
                ($send)(self, client, keep)
            }
            fn refused(error: &SdkError<Self::Error, HttpResponse>) -> Option<&Item> {
                match error {
                    SdkError::ServiceError(e) => match e.err() {
                        aws_sdk_dynamodb::operation::$operation::$error::ConditionalCheckFailedException(c) => {
                            c.item().filter(|i| !i.is_empty())
                        }
                        _ => None,
                    },
                    _ => None,
                }
            }
        }
    )*};
}

write_request!(
    put_item: PutItemInputBuilder => PutItemOutput, PutItemError,
        |request: Self, client: Client, keep: Option<Arc<Mutex<Held>>>| -> Attempt<Self::Output, Self::Error> {
            match keep {
                Some(held) => Box::pin(super::held::keeping(held, async move { super::body::put_item(&client, request).await })),
                None => Box::pin(async move { super::body::put_item(&client, request).await }),
            }
        },
        split_put,
        fn stamp(self, token: &WriteToken) -> Self {
            match self.get_item().as_ref().and_then(|item| item.get(HISTORY[0])) {
                // Planned with this token (every first round): as it is.
                Some(AttributeValue::B(b)) if b.as_ref() == token.bytes() => self,
                Some(_) => self.item(HISTORY[0], token.value()),
                None => self,
            }
        },
        fn with_item(self, item: Item) -> Self {
            self.set_item(Some(item))
        };
    update_item: UpdateItemInputBuilder => UpdateItemOutput, UpdateItemError,
        |request: Self, client: Client, _| -> Attempt<Self::Output, Self::Error> {
            Box::pin(async move { super::body::update_item(&client, request).await })
        },
        copied_parts!();
    delete_item: DeleteItemInputBuilder => DeleteItemOutput, DeleteItemError,
        |request: Self, client: Client, _| -> Attempt<Self::Output, Self::Error> {
            Box::pin(async move { super::body::delete_item(&client, request).await })
        },
        copied_parts!();
);

/// [`WriteRequest::split`] of a `PutItem`: its parts and its item, moved out. The SDK's input
/// builders give their fields by reference only, so the request is built (which moves every
/// field into the input's public fields and checks nothing, so it cannot fail) and built again
/// without them. A request that did not build would go out empty, and DynamoDB would refuse it
/// (no table): an error, never a write of something else.
fn split_put(request: PutItemInputBuilder) -> (PutItemInputBuilder, Parts, Option<Item>) {
    let Ok(i) = request.build() else { return Default::default() };
    let parts = Parts {
        condition: i.condition_expression,
        names: i.expression_attribute_names,
        values: i.expression_attribute_values,
    };
    let request = PutItemInput::builder()
        .set_table_name(i.table_name)
        .set_expected(i.expected)
        .set_return_values(i.return_values)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_return_item_collection_metrics(i.return_item_collection_metrics)
        .set_conditional_operator(i.conditional_operator)
        .set_return_values_on_condition_check_failure(i.return_values_on_condition_check_failure);
    (request, parts, i.item)
}

impl Table {
    /// Sends the single-item write `write` of the write with `token` (see
    /// [`send_write`](Self::send_write)) on the item `item` (its key as `PK=… SK=…`), whose key
    /// attribute is `key`, each attempt with its guard
    /// ([`write_token::guard`](crate::write_token::guard)): the item's latest token older than
    /// the write's; a resend also refuses a history too recent to tell. `with_token`: the write
    /// leaves its token (not a delete). `answered`: the item's write this handle got an answer
    /// for before ([`Answered::before`], taken before the call). A handle without write tokens
    /// sends the request as it is.
    ///
    /// A write refused because the item's latest token is not older than its own, and not
    /// applied (no attempt lost its answer, or the history says so), is sent again with a
    /// newer `token` (it ends as the token of the write's last round), at most
    /// [`ORDER_ROUNDS`] times.
    #[allow(clippy::too_many_arguments)]
    pub(crate) async fn send_write_request<R: WriteRequest>(
        &self,
        call: Call,
        write: Write<R>,
        token: &mut WriteToken,
        key: &'static str,
        item: &str,
        answered: Option<WriteToken>,
        with_token: bool,
    ) -> Sent<R::Output, R::Error> {
        use crate::write_token::Attempt;
        let client = self.write_client().clone();
        let tokens = self.writes().tokens;
        if let Some(answered) = answered.filter(|a| tokens && *a >= *token) {
            *token = answered.above();
        }
        let mut rounds = 0;
        loop {
            let round = *token;
            let (write, client) = (&write, &client);
            let sent = self
                .send_write(call, move |resend| {
                    // One copy an attempt: the SDK takes the request it sends.
                    let attempt = if resend { Attempt::Resend } else { Attempt::First };
                    write.attempt(client, tokens.then_some(&round), key, answered.as_ref(), attempt)
                })
                .await;
            if let Sent::Answered { result: Err(error), lost } = &sent {
                let newer = R::refused(error)
                    .filter(|_| tokens)
                    .and_then(|old| crate::write_token::latest(old).filter(|l| *l >= round).map(|l| (old, l)));
                if let Some((old, newer)) = newer {
                    let applied = match (lost, with_token) {
                        (None, _) => Seen::NotApplied,
                        (Some(_), true) => crate::write_token::seen(Some(old), &round, answered.as_ref()),
                        (Some(_), false) => crate::write_token::seen_by_delete(old, &round, answered.as_ref()),
                    };
                    if applied == Seen::NotApplied {
                        if rounds == ORDER_ROUNDS {
                            return Sent::Contended;
                        }
                        rounds += 1;
                        // A clock behind another writer's settles in one round; writers that keep
                        // colliding on a hot item are spread by the policy's jittered backoff.
                        if rounds > 1 {
                            tokio::time::sleep(self.writes().policy.jittered(rounds - 1)).await;
                        }
                        *token = newer.above();
                        continue;
                    }
                }
            }
            if tokens && matches!(sent, Sent::Answered { result: Ok(_), .. }) {
                self.writes().answered.record(item, with_token.then_some(*token));
            }
            return sent;
        }
    }

    /// [`Error::OutcomeUnknown`] for the write with `token` of the item `key` (its primary key
    /// attributes; `key_text` as `PK=… SK=…`; `answered`: as for
    /// [`send_write_request`](Self::send_write_request)), from `error`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn outcome_unknown<E>(
        &self,
        operation: &'static str,
        entity: &'static str,
        key_text: String,
        key: Item,
        token: WriteToken,
        answered: Option<WriteToken>,
        delete: bool,
        error: E,
    ) -> Error
    where
        aws_sdk_dynamodb::Error: From<E>,
    {
        let pending = Pending {
            table: self.name().to_owned(),
            operation,
            entity,
            key_text: key_text.clone(),
            write: PendingWrite::Item { key, token, tokens: self.writes().tokens, delete, answered },
        };
        Error::OutcomeUnknown {
            operation,
            entity,
            key: key_text,
            pending: Box::new(pending),
            source: Box::new(aws_sdk_dynamodb::Error::from(error)),
        }
    }
}

impl Table {
    /// The item part of [`Table::resolve`]: fences the item, then reads its write history.
    ///
    /// The fence is an `UpdateItem` of the history alone, with a token newer than the write's
    /// (and than the item's latest), on the condition that the item exists: once it is applied,
    /// a copy of the write still held by the network is refused (see
    /// [`write_token`](crate::write_token)), so the answer stays true. It returns the item as it
    /// was before the fence (`ALL_OLD`), whose history is judged.
    pub(crate) async fn resolve_item(&self, pending: &Pending) -> Result<Resolved, Error> {
        let (key, token, tokens, delete, answered) = match &pending.write {
            PendingWrite::Item { key, token, tokens, delete, answered } => (key, token, tokens, delete, answered),
            PendingWrite::Transaction { .. } => return Ok(Resolved::CannotTell),
        };
        let item = if *tokens { self.fence(pending, key, token).await? } else { self.read_item(pending, key).await? };
        Ok(match (item, *delete) {
            (None, true) => Resolved::Applied,
            (Some(_), _) if !*tokens => Resolved::CannotTell,
            (None, false) if !*tokens => Resolved::CannotTell,
            (Some(item), true) => match crate::write_token::seen_by_delete(&item, token, answered.as_ref()) {
                Seen::NotApplied => Resolved::NotApplied,
                _ => Resolved::CannotTell,
            },
            (item, false) => match crate::write_token::seen(item.as_ref(), token, answered.as_ref()) {
                Seen::Applied { .. } => Resolved::Applied,
                Seen::NotApplied => Resolved::NotApplied,
                Seen::CannotTell => Resolved::CannotTell,
            },
        })
    }

    /// Fences the item at `key` against the write with `token` (see
    /// [`resolve_item`](Self::resolve_item)): the item before the fence, `None` when there is
    /// none. Sent without the SDK's retries: a fence whose answer is lost is an error (resolve
    /// again).
    async fn fence(&self, pending: &Pending, key: &Item, token: &WriteToken) -> Result<Option<Item>, Error> {
        use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
        let mut fence = token.above();
        let Some(exists) = key.keys().next() else { return Ok(None) };
        for _ in 0..=ORDER_ROUNDS {
            let mut names = HashMap::new();
            let mut values = HashMap::new();
            let shift = crate::write_token::shift_history(&mut names, &mut values, &fence);
            names.insert("#wk".to_owned(), exists.clone());
            let request = aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
                .table_name(self.name())
                .set_key(Some(key.clone()))
                .update_expression(format!("SET {shift}"))
                .condition_expression("attribute_exists(#wk) AND (attribute_not_exists(#w1) OR #w1 < :wt)")
                .set_expression_attribute_names(Some(names))
                .set_expression_attribute_values(Some(values))
                .return_values(aws_sdk_dynamodb::types::ReturnValue::AllOld)
                .return_values_on_condition_check_failure(crate::table::RETURN_OLD_ON_FAILURE)
                .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes);
            let sent = self
                .execute(
                    Call::new("UpdateItem", pending.entity),
                    crate::table::body::update_item(self.write_client(), request),
                )
                .await;
            match sent {
                Ok(out) => return Ok(out.attributes.filter(|i| !i.is_empty())),
                Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                    let old = match e.err() {
                        UpdateItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
                        _ => None,
                    };
                    // No item; or one whose latest token is newer than the fence (a clock ahead).
                    match old.and_then(crate::write_token::latest) {
                        None if old.is_none() => return Ok(None),
                        Some(latest) if latest >= fence => fence = latest.above(),
                        _ => return Ok(old.cloned()),
                    }
                }
                Err(e) => return Err(Error::sdk("UpdateItem", e)),
            }
        }
        Err(Error::Contended {
            operation: "UpdateItem",
            entity: pending.entity,
            key: pending.key_text.clone(),
            rounds: ORDER_ROUNDS,
        })
    }

    /// The item at `key`, its key and write history only (strongly consistent).
    async fn read_item(&self, pending: &Pending, key: &Item) -> Result<Option<Item>, Error> {
        let mut names = Vec::with_capacity(HISTORY.len() + key.len());
        names.extend(key.keys().map(String::as_str));
        names.extend(HISTORY);
        let mut request = aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
            .table_name(self.name())
            .set_key(Some(key.clone()))
            .consistent_read(true)
            .return_consumed_capacity(aws_sdk_dynamodb::types::ReturnConsumedCapacity::Indexes);
        let mut projection = String::new();
        for (i, name) in names.iter().enumerate() {
            if i > 0 {
                projection.push_str(", ");
            }
            let placeholder = format!("#r{i}");
            projection.push_str(&placeholder);
            request = request.expression_attribute_names(placeholder, *name);
        }
        request = request.projection_expression(projection);
        let read = self
            .execute(Call::new("GetItem", pending.entity), crate::table::body::get_item(self.client(), request))
            .await
            .map_err(|e| Error::sdk("GetItem", e))?;
        Ok(read.item.filter(|i| !i.is_empty()))
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::{
        ConditionalOperator, ExpectedAttributeValue, ReturnConsumedCapacity, ReturnItemCollectionMetrics, ReturnValue,
        ReturnValuesOnConditionCheckFailure,
    };

    use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
    use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;

    use super::*;

    fn names() -> HashMap<String, String> {
        HashMap::from([("#a".to_owned(), "a".to_owned()), ("#b".to_owned(), "b".to_owned())])
    }

    fn values() -> HashMap<String, AttributeValue> {
        HashMap::from([(":v".to_owned(), AttributeValue::S("v".to_owned()))])
    }

    fn expected() -> HashMap<String, ExpectedAttributeValue> {
        HashMap::from([("e".to_owned(), ExpectedAttributeValue::builder().exists(false).build())])
    }

    fn key() -> Item {
        Item::from([("PK".to_owned(), AttributeValue::S("K".to_owned()))])
    }

    #[test]
    fn a_put_is_stamped_with_its_rounds_token_where_its_item_holds_a_history() {
        let (a, b) = (WriteToken::at(1, 1), WriteToken::at(2, 2));
        let with = |history: Option<&WriteToken>| {
            let mut item = key();
            if let Some(t) = history {
                item.insert(HISTORY[0].to_owned(), t.value());
            }
            PutItemInput::builder().table_name("t").set_item(Some(item))
        };
        let history = |r: PutItemInputBuilder| r.get_item().as_ref().and_then(|i| i.get(HISTORY[0]).cloned());
        assert_eq!(history(with(Some(&a)).stamp(&a)), Some(a.value()));
        assert_eq!(history(with(Some(&a)).stamp(&b)), Some(b.value()));
        assert_eq!(history(with(None).stamp(&b)), None);
        assert_eq!(with(Some(&a)).stamp(&b).get_item().as_ref().map(Item::len), Some(2));
    }

    #[test]
    fn a_split_moves_every_field_of_each_write_and_with_puts_them_back() {
        let parts = || Parts { condition: Some("#a = :v".to_owned()), names: Some(names()), values: Some(values()) };
        let put = PutItemInput::builder()
            .table_name("t")
            .set_item(Some(key()))
            .set_expected(Some(expected()))
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .conditional_operator(ConditionalOperator::Or)
            .condition_expression("#a = :v")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(values()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let (rest, split, item) = put.clone().split();
        assert_eq!((split.condition, split.names, split.values), (parts().condition, parts().names, parts().values));
        assert_eq!(item, Some(key()));
        assert_eq!(rest.get_item(), &None);
        assert_eq!(rest.get_condition_expression(), &None);
        assert_eq!(rest.with(parts(), false).set_item(item).build().unwrap(), put.build().unwrap());

        let update = UpdateItemInput::builder()
            .table_name("t")
            .set_key(Some(key()))
            .attribute_updates("u", aws_sdk_dynamodb::types::AttributeValueUpdate::builder().build())
            .set_expected(Some(expected()))
            .conditional_operator(ConditionalOperator::And)
            .return_values(ReturnValue::AllNew)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .update_expression("SET #b = :v")
            .condition_expression("#a = :v")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(values()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let (rest, split, item) = update.clone().split();
        assert_eq!(item, None);
        assert_eq!(rest.get_expression_attribute_names(), &None);
        assert_eq!(rest.with(split, false).build().unwrap(), update.build().unwrap());

        let delete = DeleteItemInput::builder()
            .table_name("t")
            .set_key(Some(key()))
            .set_expected(Some(expected()))
            .conditional_operator(ConditionalOperator::Or)
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .condition_expression("#a = :v")
            .set_expression_attribute_names(Some(names()))
            .set_expression_attribute_values(Some(values()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let (rest, split, item) = delete.clone().split();
        assert_eq!(item, None);
        assert_eq!(rest.get_expression_attribute_values(), &None);
        assert_eq!(rest.with(split, false).build().unwrap(), delete.build().unwrap());
    }

    fn token(n: u64) -> WriteToken {
        WriteToken::at(n, n)
    }

    fn sizes(a: &Answered) -> (usize, usize) {
        let recent = a.recent();
        (recent.current.len(), recent.previous.len())
    }

    #[test]
    fn an_answer_is_known_for_keep_and_not_after() {
        let (a, t0) = (Answered::default(), Instant::now());
        a.record_at("PK=A", Some(token(1)), t0);
        a.record_at("PK=A", Some(token(2)), t0);
        assert_eq!(a.before_at("PK=A", t0), Some(token(2)));
        assert_eq!(a.before_at("PK=A", t0 + Answered::KEEP - Duration::from_millis(1)), Some(token(2)));
        assert_eq!(a.before_at("PK=A", t0 + Answered::KEEP), None);
        assert_eq!(a.before_at("PK=B", t0), None);
    }

    #[test]
    fn a_generation_turns_after_keep_and_the_one_before_it_is_dropped_whole() {
        let (a, t0) = (Answered::default(), Instant::now());
        let half = Answered::KEEP / 2;
        a.record_at("PK=A", Some(token(1)), t0);
        a.record_at("PK=B", Some(token(2)), t0 + half);
        assert_eq!(sizes(&a), (2, 0));
        // KEEP after the generation began: A and B move to the previous generation.
        a.record_at("PK=C", Some(token(3)), t0 + Answered::KEEP);
        assert_eq!(sizes(&a), (1, 2));
        assert_eq!(a.before_at("PK=B", t0 + Answered::KEEP), Some(token(2)));
        assert_eq!(a.before_at("PK=C", t0 + Answered::KEEP), Some(token(3)));
        // Another KEEP: the generation of A and B is dropped, C's is the previous one.
        a.record_at("PK=D", Some(token(4)), t0 + 2 * Answered::KEEP);
        assert_eq!(sizes(&a), (1, 1));
        assert_eq!(a.before_at("PK=C", t0 + 2 * Answered::KEEP - Duration::from_millis(1)), Some(token(3)));
        assert_eq!(a.before_at("PK=B", t0 + Answered::KEEP + half - Duration::from_millis(1)), None);
    }

    #[test]
    fn a_full_generation_turns_early_so_a_handle_keeps_at_most_twice_most() {
        let (a, t0) = (Answered::default(), Instant::now());
        let n = 3 * Answered::MOST + 5;
        for i in 0..n {
            a.record_at(&format!("PK={i}"), Some(token(i as u64)), t0);
        }
        assert_eq!(sizes(&a), (5, Answered::MOST));
        // The newest MOST + 5 are known; the ones before them were forgotten early.
        let first_known = n - Answered::MOST - 5;
        assert_eq!(a.before_at(&format!("PK={first_known}"), t0), Some(token(first_known as u64)));
        assert_eq!(a.before_at(&format!("PK={}", n - 1), t0), Some(token(n as u64 - 1)));
        assert_eq!(a.before_at(&format!("PK={}", first_known - 1), t0), None);
        assert_eq!(a.before_at("PK=0", t0), None);
    }

    #[test]
    fn a_delete_forgets_its_item_in_both_generations() {
        let (a, t0) = (Answered::default(), Instant::now());
        a.record_at("PK=A", Some(token(1)), t0);
        a.record_at("PK=B", Some(token(2)), t0 + Answered::KEEP);
        a.record_at("PK=A", Some(token(3)), t0 + Answered::KEEP);
        a.record_at("PK=A", None, t0 + Answered::KEEP);
        assert_eq!(a.before_at("PK=A", t0 + Answered::KEEP), None);
        assert_eq!(sizes(&a), (1, 0));
        assert_eq!(a.before_at("PK=B", t0 + Answered::KEEP), Some(token(2)));
    }
}

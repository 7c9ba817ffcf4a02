//! Fault injection at the SDK's HTTP layer, for tests against a real engine's endpoint (DynamoDB
//! Local or the embedded Dynoxide, see [`Engine`](crate::Engine)).
//! No mock database: every request that is not answered by a fault
//! goes to the server.
//!
//! A [`FaultInjector`] wraps the SDK client's [`HttpClient`] (the SDK's own extension point for
//! the transport, `aws_smithy_runtime_api::client::http`), so it sees every HTTP request the
//! SDK sends, the SDK's own retries included, after serialization and signing, and every
//! response before the SDK parses it. [`FaultRule`]s, checked in the order they were added, tell
//! it what to do with a request:
//!
//! - [`Fault::Unprocessed`]: for `BatchWriteItem` / `BatchGetItem`, the chosen writes or keys
//!   ([`Pick`]) are **removed from the request**, the rest is forwarded to the server, and the
//!   removed entries are added to the server's answer as `UnprocessedItems` /
//!   `UnprocessedKeys`. When every entry is chosen, nothing is forwarded and the injector
//!   answers HTTP 200 with all of them unprocessed.
//! - [`Fault::ProvisionedThroughputExceeded`] and [`Fault::Throttling`]: answered with HTTP 400
//!   and DynamoDB's error body (`ProvisionedThroughputExceededException`,
//!   `ThrottlingException`); [`Fault::InternalServerError`]: HTTP 500 (`InternalServerError`).
//!   The request is not forwarded.
//! - [`Fault::Service`]: HTTP 400 with the error body of a [`ServiceError`]: throttling with
//!   DynamoDB's `ThrottlingReasons` ([`ServiceError::throttling`],
//!   [`ServiceError::provisioned_throughput_exceeded`]), `ReplicatedWriteConflictException`
//!   ([`ServiceError::replicated_write_conflict`]) or any other code. Not forwarded.
//! - [`Fault::InternalServerErrorAfterApplying`]: the request is forwarded and applied, and
//!   its answer replaced by HTTP 500: for testing that retried writes are idempotent.
//! - [`Fault::TransactionConflict`]: for `TransactWriteItems`, answered with HTTP 400
//!   `TransactionCanceledException` whose first cancellation reason is `TransactionConflict`
//!   (the others `None`), as DynamoDB cancels a transaction that meets another one on an item.
//!   Not forwarded.
//!
//! Every request is recorded ([`FaultInjector::requests`]: operation, number of writes or keys,
//! fault injected) and counted ([`FaultInjector::counts`]).
//!
//! # Fidelity
//!
//! - *Unprocessed entries are really not written.* DynamoDB's contract for `UnprocessedItems`
//!   is that those writes were not applied, so the injector does not forward them, rather than
//!   forwarding the whole request and claiming some of it unprocessed afterwards. The latter
//!   would be harmless for idempotent puts and deletes, but would hide a client that counts
//!   unprocessed items as written, or never re-sends them: here such a client loses the items,
//!   and a test that checks the table sees it. The consumed capacity in the response is the
//!   server's, for the writes it really did.
//! - *Error responses* carry the same status, `__type` and message shape as DynamoDB's, so the
//!   SDK's error parsing and its retry classification (throttling and 5xx errors are retried by
//!   the SDK's standard retry mode, 3 attempts by default) behave as they would with DynamoDB.
//!   A batch only sees such an error when every one of the SDK's attempts got one.
//! - *What differs:* a request whose entries were removed is re-serialized after the SDK signed
//!   it, so its signature no longer matches its body. Neither engine of this crate checks
//!   signatures (DynamoDB Local and Dynoxide check only that they are there); DynamoDB would
//!   reject the request, so the injector is for the local engines only. A response
//!   whose body is changed loses its `x-amz-crc32` header (the Rust SDK does not check it) and
//!   gets a new `content-length`. When all of a request's entries are claimed unprocessed, the
//!   synthesized response has no `ConsumedCapacity`. Positions in [`Pick::Positions`] count the
//!   entries of every table of the request in order, tables in the order of the JSON body.
//!
//! # Determinism
//!
//! Whether a rule with a [`rate`](FaultRule::rate) fires, and which entries [`Pick::Rate`]
//! chooses, is a function of the seed, the rule, the request body and how many identical bodies
//! came before it, not of arrival order: concurrent requests get the same faults from run to
//! run when their contents are the same. The body is hashed as JSON with object keys sorted
//! (the SDK writes an item's attributes in hash map order, which changes from run to run) and
//! without table names (tests use a generated table name per run). [`FaultRule::times`]
//! counts firings in arrival order.
//!
//! ```no_run
//! use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule, Pick};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let base = dynamo_entity_local::client().await?;
//! let faults = FaultInjector::new(7);
//! // The first BatchWriteItem: entries 3 and 10 come back unprocessed.
//! faults.add(FaultRule::new(Fault::Unprocessed(Pick::Positions(vec![3, 10]))).on("BatchWriteItem").times(1));
//! // 30% of all requests throttled.
//! faults.add(FaultRule::new(Fault::Throttling).rate(0.3));
//! let table = dynamo_entity::Table::new(faults.client(&base), "orders");
//! // ... run the workload, then:
//! let counts = faults.counts();
//! println!("{} requests, {} throttled", counts.requests, counts.throttling);
//! # let _ = table;
//! # Ok(())
//! # }
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::types::AttributeValue;
use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::connector_metadata::ConnectorMetadata;
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpClient, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::result::ConnectorError;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::byte_stream::ByteStream;
use serde_json::{Map, Value, json};

use dynamo_entity::{AttributeNames, PrimaryKey};

/// The key attributes a batch entry is described and picked by: the default names, those of
/// [`PrimaryKey`]'s `Display` form.
const PK: &str = AttributeNames::DEFAULT.pk;
const SK: &str = AttributeNames::DEFAULT.sk;

const BATCH_WRITE: &str = "BatchWriteItem";
const BATCH_GET: &str = "BatchGetItem";

/// What a [`FaultRule`] does to a request it applies to.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Fault {
    /// `BatchWriteItem` / `BatchGetItem` only: the picked writes or keys are not forwarded and
    /// come back in `UnprocessedItems` / `UnprocessedKeys` of an HTTP 200 response. A rule with
    /// this fault does not fire on other operations, nor when its pick chooses nothing.
    Unprocessed(Pick),
    /// HTTP 400 `ProvisionedThroughputExceededException`, not forwarded.
    ProvisionedThroughputExceeded,
    /// HTTP 400 `ThrottlingException`, not forwarded.
    Throttling,
    /// HTTP 500 `InternalServerError`, not forwarded.
    InternalServerError,
    /// The error answer of a [`ServiceError`] (such as throttling with its reasons), not
    /// forwarded.
    Service(ServiceError),
    /// The request **is forwarded** (and so applied), then the server's answer is replaced by
    /// HTTP 500 `InternalServerError`: the case where DynamoDB did the work but the client
    /// never learnt it, which only idempotent requests survive.
    InternalServerErrorAfterApplying,
    /// The client is answered HTTP 500 `InternalServerError` at once, and the request **is
    /// forwarded this long after**, its answer dropped: a request the network held past the
    /// client's attempt timeout, arriving after the client sent it again. Needs a Tokio
    /// runtime (the forward is a spawned task).
    ArrivesLate(std::time::Duration),
    /// The request is forwarded (and so applied) at once, and the server's answer reaches the
    /// client this long after: a slow network, during which a test can write the item (another
    /// writer between a read and a write that depends on it). Needs a Tokio runtime.
    AnsweredLate(std::time::Duration),
    /// `TransactWriteItems` only: HTTP 400 `TransactionCanceledException` with the reason
    /// `TransactionConflict` for the first action and `None` for the others, not forwarded. A
    /// rule with this fault does not fire on other operations.
    TransactionConflict,
}

/// An error answer of DynamoDB for [`Fault::Service`]: HTTP status, error type, message and,
/// for throttling, the `ThrottlingReasons` (each a reason such as
/// `TableWriteKeyRangeThroughputExceeded` and the ARN of the table or index).
///
/// ```
/// use dynamo_entity_local::fault::{Fault, FaultRule, ServiceError};
/// let hot = ServiceError::provisioned_throughput_exceeded(&[(
///     "TableWriteKeyRangeThroughputExceeded",
///     "arn:aws:dynamodb:us-east-1:123456789012:table/Shop",
/// )]);
/// let rule = FaultRule::new(Fault::Service(hot)).on("PutItem").times(1);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct ServiceError {
    status: u16,
    error_type: String,
    message: String,
    throttling_reasons: Vec<(String, String)>,
}

impl ServiceError {
    /// HTTP `status` with the error type `error_type` (the code, such as
    /// `ValidationException`, optionally after a `namespace#`) and `message`.
    pub fn new(status: u16, error_type: impl Into<String>, message: impl Into<String>) -> ServiceError {
        ServiceError { status, error_type: error_type.into(), message: message.into(), throttling_reasons: Vec::new() }
    }

    /// `ThrottlingException` with these `(reason, resource ARN)` pairs as its
    /// `ThrottlingReasons`.
    pub fn throttling(reasons: &[(&str, &str)]) -> ServiceError {
        ServiceError::new(400, THROTTLING, "Throughput exceeds the current capacity of your table or index. (injected)")
            .reasons(reasons)
    }

    /// `ProvisionedThroughputExceededException` with these `(reason, resource ARN)` pairs as
    /// its `ThrottlingReasons`.
    pub fn provisioned_throughput_exceeded(reasons: &[(&str, &str)]) -> ServiceError {
        ServiceError::new(
            400,
            PROVISIONED,
            "The level of configured provisioned throughput for the table was exceeded. (injected)",
        )
        .reasons(reasons)
    }

    /// `ReplicatedWriteConflictException`: a write to a multi-Region strongly consistent table
    /// conflicting with a write of the same item replicated from another Region.
    pub fn replicated_write_conflict() -> ServiceError {
        ServiceError::new(
            400,
            "com.amazonaws.dynamodb.v20120810#ReplicatedWriteConflictException",
            "The request conflicts with a replicated write in progress on the same item. (injected)",
        )
    }

    /// Adds `(reason, resource ARN)` pairs to the `ThrottlingReasons`.
    pub fn reasons(mut self, reasons: &[(&str, &str)]) -> ServiceError {
        self.throttling_reasons.extend(reasons.iter().map(|(r, a)| ((*r).to_owned(), (*a).to_owned())));
        self
    }

    /// What the injector records and counts it as.
    fn injected(&self) -> Injected {
        match self.error_type.as_str() {
            THROTTLING => Injected::Throttling,
            PROVISIONED => Injected::ProvisionedThroughputExceeded,
            _ => Injected::ServiceError,
        }
    }

    /// The answer's body, as DynamoDB writes it.
    fn body(&self) -> Value {
        let mut body = json!({ "__type": self.error_type, "message": self.message });
        if !self.throttling_reasons.is_empty() {
            // As DynamoDB's model spells the member: `throttlingReasons` in
            // `ThrottlingException`, `ThrottlingReasons` in the others.
            let field = if self.error_type.ends_with("#ThrottlingException") || self.error_type == "ThrottlingException"
            {
                "throttlingReasons"
            } else {
                "ThrottlingReasons"
            };
            body[field] = self
                .throttling_reasons
                .iter()
                .map(|(reason, resource)| json!({ "reason": reason, "resource": resource }))
                .collect();
        }
        body
    }
}

const THROTTLING: &str = "com.amazon.coral.availability#ThrottlingException";
const PROVISIONED: &str = "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException";

/// Which entries of a batch request [`Fault::Unprocessed`] claims.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Pick {
    /// The entries at these 0-based positions of the request.
    Positions(Vec<usize>),
    /// The entries whose `PK` and `SK` are one of these keys.
    Keys(Vec<PrimaryKey>),
    /// Each entry independently with this probability (seeded; see the module documentation).
    Rate(f64),
    /// Every entry.
    All,
}

/// A rule of a [`FaultInjector`]: a [`Fault`], the operation it applies to, how often and how
/// many times.
///
/// ```
/// use dynamo_entity_local::fault::{Fault, FaultRule};
/// // The next two BatchGetItem requests get HTTP 500.
/// let rule = FaultRule::new(Fault::InternalServerError).on("BatchGetItem").times(2);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct FaultRule {
    fault: Fault,
    operation: Option<String>,
    times: Option<u64>,
    rate: f64,
    answer_after: Option<std::time::Duration>,
}

impl FaultRule {
    /// A rule that applies `fault` to every request of every operation, until limited.
    pub fn new(fault: Fault) -> FaultRule {
        FaultRule { fault, operation: None, times: None, rate: 1.0, answer_after: None }
    }

    /// Only requests of this DynamoDB operation (`BatchWriteItem`, `PutItem`, ...: the part of
    /// the `X-Amz-Target` header after the dot).
    pub fn on(mut self, operation: impl Into<String>) -> FaultRule {
        self.operation = Some(operation.into());
        self
    }

    /// Fires at most `n` times (the next `n` requests it applies to, with a rate of 1).
    pub fn times(mut self, n: u64) -> FaultRule {
        self.times = Some(n);
        self
    }

    /// [`Fault::InternalServerErrorAfterApplying`] only: the server's answer is held this long
    /// after the request was applied before the 500 is sent, so that a test can write the
    /// item in between (another writer between an applied attempt and its resend).
    ///
    /// ```
    /// use dynamo_entity_local::fault::{Fault, FaultRule};
    /// let rule = FaultRule::new(Fault::InternalServerErrorAfterApplying)
    ///     .on("UpdateItem")
    ///     .times(1)
    ///     .answer_after(std::time::Duration::from_millis(300));
    /// ```
    pub fn answer_after(mut self, delay: std::time::Duration) -> FaultRule {
        self.answer_after = Some(delay);
        self
    }

    /// Fires on each request it applies to with probability `p` (clamped to 0..=1).
    pub fn rate(mut self, p: f64) -> FaultRule {
        self.rate = if p.is_nan() { 0.0 } else { p.clamp(0.0, 1.0) };
        self
    }
}

/// What was injected into one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Injected {
    /// This many writes or keys were claimed unprocessed (and not forwarded).
    Unprocessed {
        /// How many.
        items: usize,
    },
    /// Answered HTTP 400 `ProvisionedThroughputExceededException`.
    ProvisionedThroughputExceeded,
    /// Answered HTTP 400 `ThrottlingException`.
    Throttling,
    /// Answered HTTP 500 `InternalServerError`.
    InternalServerError,
    /// Answered with a [`ServiceError`] other than throttling.
    ServiceError,
    /// Forwarded, then answered HTTP 500 `InternalServerError` instead of the server's answer.
    InternalServerErrorAfterApplying,
    /// Answered HTTP 500 `InternalServerError` at once and forwarded later
    /// ([`Fault::ArrivesLate`]).
    ArrivesLate,
    /// Forwarded at once, its answer held ([`Fault::AnsweredLate`]).
    AnsweredLate,
    /// Answered HTTP 400 `TransactionCanceledException` (`TransactionConflict`) for a
    /// transaction of this many actions.
    TransactionConflict {
        /// The actions of the transaction.
        actions: usize,
    },
}

/// One HTTP request the SDK sent through the injector, in arrival order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordedRequest {
    /// The DynamoDB operation, such as `BatchWriteItem` (empty if the request named none).
    pub operation: String,
    /// Writes of a `BatchWriteItem` or keys of a `BatchGetItem` in the request as the SDK sent
    /// it (before any were removed); 0 for other operations.
    pub items: usize,
    /// The keys of those writes or keys, as `PK=… SK=…` (the `Display` form of
    /// [`PrimaryKey`]), in request order.
    pub keys: Vec<String>,
    /// The keys claimed unprocessed by [`Fault::Unprocessed`], in request order.
    pub claimed: Vec<String>,
    /// The fault injected, if any.
    pub injected: Option<Injected>,
}

/// Counts of what the injector did, per kind.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FaultCounts {
    /// HTTP requests seen, the SDK's own retries included.
    pub requests: u64,
    /// Requests forwarded to the server (whole, or with entries removed).
    pub forwarded: u64,
    /// Responses with injected `UnprocessedItems` / `UnprocessedKeys`.
    pub unprocessed_responses: u64,
    /// Writes and keys claimed unprocessed, summed.
    pub unprocessed_items: u64,
    /// `ProvisionedThroughputExceededException` responses.
    pub provisioned_throughput_exceeded: u64,
    /// `ThrottlingException` responses.
    pub throttling: u64,
    /// HTTP 500 responses (after forwarding or not).
    pub server_errors: u64,
    /// `TransactionCanceledException` responses with `TransactionConflict`.
    pub transaction_conflicts: u64,
    /// [`Fault::Service`] answers other than throttling (those count as throttling).
    pub service_errors: u64,
}

impl FaultCounts {
    /// Every injected fault: unprocessed responses, throttling, server errors and transaction
    /// conflicts.
    pub fn faults(&self) -> u64 {
        self.unprocessed_responses
            + self.provisioned_throughput_exceeded
            + self.throttling
            + self.server_errors
            + self.transaction_conflicts
            + self.service_errors
    }
}

/// Injects faults into the HTTP traffic of SDK clients made with [`FaultInjector::client`] or
/// given [`FaultInjector::wrap`]; see the [module documentation](self). Cheap to clone: clones
/// share their rules and records.
#[derive(Clone)]
pub struct FaultInjector {
    shared: Arc<Shared>,
}

struct Shared {
    seed: u64,
    state: Mutex<State>,
}

#[derive(Default)]
struct State {
    rules: Vec<(FaultRule, u64)>,
    /// How many requests with each body hash have been seen.
    seen: HashMap<u64, u64>,
    records: Vec<RecordedRequest>,
    counts: FaultCounts,
}

impl fmt::Debug for FaultInjector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.state();
        f.debug_struct("FaultInjector")
            .field("seed", &self.shared.seed)
            .field("rules", &state.rules.len())
            .field("counts", &state.counts)
            .finish()
    }
}

impl FaultInjector {
    /// An injector with no rules (it forwards everything) and this seed.
    pub fn new(seed: u64) -> FaultInjector {
        FaultInjector { shared: Arc::new(Shared { seed, state: Mutex::new(State::default()) }) }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.shared.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds a rule after the existing ones. For each request, the first rule that fires wins.
    pub fn add(&self, rule: FaultRule) -> &Self {
        self.state().rules.push((rule, 0));
        self
    }

    /// Removes every rule: from now on everything is forwarded untouched.
    pub fn clear_rules(&self) {
        self.state().rules.clear();
    }

    /// What was done so far, per kind.
    pub fn counts(&self) -> FaultCounts {
        self.state().counts
    }

    /// Every request seen so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        self.state().records.clone()
    }

    /// The requests of one operation, in arrival order.
    pub fn requests_for(&self, operation: &str) -> Vec<RecordedRequest> {
        self.state().records.iter().filter(|r| r.operation == operation).cloned().collect()
    }

    /// Forgets the records and counts (not the rules, nor how often each fired).
    pub fn reset_records(&self) {
        let mut state = self.state();
        state.records.clear();
        state.counts = FaultCounts::default();
    }

    /// `inner` with this injector in front of it.
    pub fn wrap(&self, inner: impl HttpClient + 'static) -> SharedHttpClient {
        SharedHttpClient::new(FaultyClient { inner: SharedHttpClient::new(inner), injector: self.clone() })
    }

    /// `base`'s configuration (endpoint, credentials, region, retry and timeout settings) with
    /// its HTTP client, or the SDK's default one (rustls, HTTP and HTTPS), behind this injector.
    pub fn config_builder(&self, base: &aws_sdk_dynamodb::Config) -> aws_sdk_dynamodb::config::Builder {
        let inner = base.http_client().unwrap_or_else(|| {
            use aws_smithy_http_client::tls::{Provider, rustls_provider::CryptoMode};
            aws_smithy_http_client::Builder::new().tls_provider(Provider::Rustls(CryptoMode::AwsLc)).build_https()
        });
        base.to_builder().http_client(self.wrap(inner))
    }

    /// A client like `base` whose HTTP traffic goes through this injector.
    pub fn client(&self, base: &aws_sdk_dynamodb::Client) -> aws_sdk_dynamodb::Client {
        aws_sdk_dynamodb::Client::from_conf(self.config_builder(base.config()).build())
    }

    /// Decides what to do with a request, and records it.
    fn plan(&self, operation: &str, body: Option<&[u8]>) -> Plan {
        let parsed: Option<Value> = body.and_then(|bytes| serde_json::from_slice(bytes).ok());
        let keys = match (operation, &parsed) {
            (BATCH_WRITE | BATCH_GET, Some(v)) => entry_keys(operation, v),
            _ => Vec::new(),
        };
        // The SDK writes the attributes of an item in hash map order, which changes from run to
        // run: hash the JSON with its object keys sorted so that equal requests hash equal.
        let hash = match (&parsed, body) {
            (Some(json), _) => canonical_hash(json, FNV_OFFSET),
            (None, Some(bytes)) => fnv1a(FNV_OFFSET, bytes),
            (None, None) => 0,
        };
        let seed = self.shared.seed;

        let mut state = self.state();
        let occurrence = {
            let n = state.seen.entry(hash).or_insert(0);
            *n += 1;
            *n
        };
        let dice = Dice { seed, hash, occurrence };
        let mut plan = Plan::Forward;
        for (index, (rule, fired)) in state.rules.iter_mut().enumerate() {
            if rule.operation.as_deref().is_some_and(|op| op != operation) || rule.times.is_some_and(|t| *fired >= t) {
                continue;
            }
            let salt = (index as u64) << 32;
            if rule.rate < 1.0 && dice.unit(salt) >= rule.rate {
                continue;
            }
            plan = match &rule.fault {
                Fault::Unprocessed(pick) => {
                    let Some(split) = parsed.as_ref().and_then(|body| split(operation, body, pick, &dice, salt)) else {
                        continue;
                    };
                    Plan::Unprocessed(split)
                }
                Fault::ProvisionedThroughputExceeded => Plan::Error(Injected::ProvisionedThroughputExceeded),
                Fault::Throttling => Plan::Error(Injected::Throttling),
                Fault::InternalServerError => Plan::Error(Injected::InternalServerError),
                Fault::Service(error) => Plan::Service(error.clone()),
                Fault::InternalServerErrorAfterApplying => Plan::ErrorAfterForward(rule.answer_after),
                Fault::ArrivesLate(delay) => Plan::ForwardLater(*delay),
                Fault::AnsweredLate(delay) => Plan::AnswerLater(*delay),
                Fault::TransactionConflict => {
                    let actions = parsed
                        .as_ref()
                        .filter(|_| operation == "TransactWriteItems")
                        .and_then(|b| b.get("TransactItems"))
                        .and_then(Value::as_array)
                        .map_or(0, Vec::len);
                    if actions == 0 {
                        continue;
                    }
                    Plan::Error(Injected::TransactionConflict { actions })
                }
            };
            *fired += 1;
            break;
        }

        let injected = match &plan {
            Plan::Forward => None,
            Plan::Unprocessed(split) => Some(Injected::Unprocessed { items: split.claimed.len() }),
            Plan::Error(kind) => Some(*kind),
            Plan::Service(error) => Some(error.injected()),
            Plan::ErrorAfterForward(_) => Some(Injected::InternalServerErrorAfterApplying),
            Plan::ForwardLater(_) => Some(Injected::ArrivesLate),
            Plan::AnswerLater(_) => Some(Injected::AnsweredLate),
        };
        let counts = &mut state.counts;
        counts.requests += 1;
        match &plan {
            Plan::Forward | Plan::AnswerLater(_) => counts.forwarded += 1,
            Plan::Unprocessed(split) => {
                counts.forwarded += u64::from(split.forward.is_some());
                counts.unprocessed_responses += 1;
                counts.unprocessed_items += split.claimed.len() as u64;
            }
            Plan::ErrorAfterForward(_) | Plan::ForwardLater(_) => {
                counts.forwarded += 1;
                counts.server_errors += 1;
            }
            Plan::Error(Injected::ProvisionedThroughputExceeded) => counts.provisioned_throughput_exceeded += 1,
            Plan::Error(Injected::Throttling) => counts.throttling += 1,
            Plan::Error(Injected::TransactionConflict { .. }) => counts.transaction_conflicts += 1,
            Plan::Error(_) => counts.server_errors += 1,
            Plan::Service(error) => match error.injected() {
                Injected::Throttling => counts.throttling += 1,
                Injected::ProvisionedThroughputExceeded => counts.provisioned_throughput_exceeded += 1,
                _ => counts.service_errors += 1,
            },
        }
        let claimed = match &plan {
            Plan::Unprocessed(split) => split.claimed.clone(),
            _ => Vec::new(),
        };
        state.records.push(RecordedRequest {
            operation: operation.to_owned(),
            items: keys.len(),
            keys,
            claimed,
            injected,
        });
        plan
    }
}

enum Plan {
    Forward,
    Unprocessed(Split),
    Error(Injected),
    Service(ServiceError),
    /// Forward, then answer HTTP 500 (after holding the answer this long).
    ErrorAfterForward(Option<std::time::Duration>),
    /// Answer HTTP 500 now, forward after this long.
    ForwardLater(std::time::Duration),
    /// Forward now, hand the answer over after this long.
    AnswerLater(std::time::Duration),
}

/// A batch request with some entries taken out.
struct Split {
    operation: &'static str,
    /// The request body to forward; `None` when every entry was taken out.
    forward: Option<Vec<u8>>,
    /// Per table: for `BatchWriteItem` an array of write requests, for `BatchGetItem` a
    /// `KeysAndAttributes` object holding the keys taken out.
    removed: Map<String, Value>,
    /// The keys taken out, as `PK=… SK=…`.
    claimed: Vec<String>,
}

/// Deterministic randomness: a function of the seed, the request body and its occurrence.
struct Dice {
    seed: u64,
    hash: u64,
    occurrence: u64,
}

impl Dice {
    /// A number in `[0, 1)` for this request and `salt`.
    fn unit(&self, salt: u64) -> f64 {
        let x = splitmix(self.seed ^ splitmix(self.hash ^ splitmix(self.occurrence ^ splitmix(salt))));
        (x >> 11) as f64 / (1u64 << 53) as f64
    }
}

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn fnv1a(hash: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(hash, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01B3))
}

/// A string, length first: no two sequences of strings hash the same input.
fn text_hash(hash: u64, text: &str) -> u64 {
    fnv1a(fnv1a(hash, &(text.len() as u64).to_le_bytes()), text.as_bytes())
}

/// A hash of a JSON value that does not depend on the order of object keys, nor on table
/// names (the value of `TableName`, the keys of `RequestItems`).
fn canonical_hash(value: &Value, hash: u64) -> u64 {
    match value {
        Value::Null => fnv1a(hash, b"n"),
        Value::Bool(b) => fnv1a(hash, if *b { b"t" } else { b"f" }),
        Value::Number(n) => fnv1a(fnv1a(hash, b"#"), n.to_string().as_bytes()),
        Value::String(s) => text_hash(fnv1a(hash, b"s"), s),
        Value::Array(items) => fnv1a(items.iter().fold(fnv1a(hash, b"["), |h, v| canonical_hash(v, h)), b"]"),
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let hash = keys.into_iter().fold(fnv1a(hash, b"{"), |h, k| {
                let h = text_hash(h, k);
                match (k.as_str(), map.get(k.as_str())) {
                    ("TableName", _) | (_, None) => h,
                    ("RequestItems", Some(Value::Object(tables))) => {
                        let mut each: Vec<u64> = tables.values().map(|t| canonical_hash(t, FNV_OFFSET)).collect();
                        each.sort_unstable();
                        each.into_iter().fold(h, |h, t| fnv1a(h, &t.to_le_bytes()))
                    }
                    (_, Some(v)) => canonical_hash(v, h),
                }
            });
            fnv1a(hash, b"}")
        }
    }
}

/// The entries of a batch request, every table in order.
fn entries<'a>(operation: &str, body: &'a Value) -> impl Iterator<Item = &'a Value> {
    let tables = body.get("RequestItems").and_then(Value::as_object);
    let operation = if operation == BATCH_WRITE { BATCH_WRITE } else { BATCH_GET };
    tables.into_iter().flat_map(|tables| tables.values()).flat_map(move |t| {
        let list = if operation == BATCH_WRITE { t.as_array() } else { t.get("Keys").and_then(Value::as_array) };
        list.into_iter().flatten()
    })
}

fn entry_keys(operation: &str, body: &Value) -> Vec<String> {
    entries(operation, body).map(|entry| describe(entry_key(operation, entry))).collect()
}

/// `PK=… SK=…` of a key in DynamoDB JSON, as `PrimaryKey`'s `Display` writes it.
fn describe(key: Option<&Map<String, Value>>) -> String {
    let part = |name: &str| {
        key.and_then(|k| k.get(name))
            .and_then(|v| v.get("S").or_else(|| v.get("N")))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned()
    };
    format!("{PK}={} {SK}={}", part(PK), part(SK))
}

/// The `PK` / `SK` of a write request (`PutRequest.Item` or `DeleteRequest.Key`) or of a key.
fn entry_key<'a>(operation: &str, entry: &'a Value) -> Option<&'a Map<String, Value>> {
    if operation == BATCH_GET {
        return entry.as_object();
    }
    entry
        .get("PutRequest")
        .and_then(|p| p.get("Item"))
        .or_else(|| entry.get("DeleteRequest").and_then(|d| d.get("Key")))
        .and_then(Value::as_object)
}

fn json_matches(json: Option<&Value>, value: &AttributeValue) -> bool {
    let (tag, text) = match value {
        AttributeValue::S(s) => ("S", s),
        AttributeValue::N(n) => ("N", n),
        _ => return false,
    };
    json.and_then(|v| v.get(tag)).and_then(Value::as_str) == Some(text.as_str())
}

impl Pick {
    fn chooses(&self, position: usize, key: Option<&Map<String, Value>>, dice: &Dice, salt: u64) -> bool {
        match self {
            Pick::Positions(positions) => positions.contains(&position),
            Pick::Keys(keys) => key.is_some_and(|key| {
                keys.iter().any(|k| json_matches(key.get(PK), &k.pk) && json_matches(key.get(SK), &k.sk))
            }),
            Pick::Rate(p) => dice.unit(salt | (position as u64 + 1)) < *p,
            Pick::All => true,
        }
    }
}

/// Takes the picked entries out of a batch request; `None` when the pick chooses none.
fn split(operation: &str, body: &Value, pick: &Pick, dice: &Dice, salt: u64) -> Option<Split> {
    let operation = match operation {
        BATCH_WRITE => BATCH_WRITE,
        BATCH_GET => BATCH_GET,
        _ => return None,
    };
    let mut body = body.clone();
    let tables = body.get_mut("RequestItems")?.as_object_mut()?;
    let mut removed = Map::new();
    let mut claimed = Vec::new();
    let mut position = 0;
    let mut emptied = Vec::new();
    for (table, request) in tables.iter_mut() {
        let entries = match operation {
            BATCH_WRITE => request.as_array_mut(),
            _ => request.get_mut("Keys").and_then(Value::as_array_mut),
        };
        let Some(entries) = entries else {
            continue;
        };
        let mut kept = Vec::with_capacity(entries.len());
        let mut taken = Vec::new();
        for entry in entries.drain(..) {
            let key = entry_key(operation, &entry);
            if pick.chooses(position, key, dice, salt) {
                claimed.push(describe(key));
                taken.push(entry);
            } else {
                kept.push(entry);
            }
            position += 1;
        }
        *entries = kept;
        let now_empty = entries.is_empty();
        if taken.is_empty() {
            continue;
        }
        let taken = match operation {
            BATCH_WRITE => Value::Array(taken),
            _ => {
                let mut keys_and_attributes = request.clone();
                keys_and_attributes["Keys"] = Value::Array(taken);
                keys_and_attributes
            }
        };
        removed.insert(table.clone(), taken);
        if now_empty {
            emptied.push(table.clone());
        }
    }
    if claimed.is_empty() {
        return None;
    }
    for table in &emptied {
        tables.remove(table);
    }
    let forward = if tables.is_empty() { None } else { serde_json::to_vec(&body).ok() };
    Some(Split { operation, forward, removed, claimed })
}

impl Split {
    /// The response when nothing was forwarded.
    fn synthesized(&self) -> Value {
        match self.operation {
            BATCH_WRITE => json!({ "UnprocessedItems": self.removed }),
            _ => json!({ "Responses": {}, "UnprocessedKeys": self.removed }),
        }
    }

    /// Adds the removed entries to the server's response.
    fn merge(&self, response: &mut Value) -> Option<()> {
        let field = if self.operation == BATCH_WRITE { "UnprocessedItems" } else { "UnprocessedKeys" };
        let object = response.as_object_mut()?;
        let unprocessed = object.entry(field).or_insert_with(|| json!({})).as_object_mut()?;
        for (table, taken) in &self.removed {
            match (self.operation, unprocessed.get_mut(table)) {
                (BATCH_WRITE, Some(existing)) => existing.as_array_mut()?.extend(taken.as_array()?.iter().cloned()),
                (_, Some(existing)) => existing
                    .get_mut("Keys")
                    .and_then(Value::as_array_mut)?
                    .extend(taken.get("Keys").and_then(Value::as_array)?.iter().cloned()),
                (_, None) => {
                    unprocessed.insert(table.clone(), taken.clone());
                }
            }
        }
        Some(())
    }
}

fn connector_error(e: impl Into<BoxError>) -> ConnectorError {
    ConnectorError::other(e.into(), None)
}

fn json_response(status: u16, body: &Value) -> Result<HttpResponse, ConnectorError> {
    let bytes = serde_json::to_vec(body).map_err(connector_error)?;
    let mut response = HttpResponse::new(StatusCode::try_from(status).map_err(connector_error)?, SdkBody::empty());
    set_body(&mut response, bytes)?;
    response
        .headers_mut()
        .try_insert("content-type", "application/x-amz-json-1.0")
        .and_then(|_| response.headers_mut().try_insert("x-amzn-requestid", "dynamo-entity-fault-injection"))
        .map_err(connector_error)?;
    Ok(response)
}

fn set_body(response: &mut HttpResponse, bytes: Vec<u8>) -> Result<(), ConnectorError> {
    response.headers_mut().remove("x-amz-crc32");
    response.headers_mut().try_insert("content-length", bytes.len().to_string()).map_err(connector_error)?;
    *response.body_mut() = SdkBody::from(bytes);
    Ok(())
}

fn error_response(kind: Injected) -> Result<HttpResponse, ConnectorError> {
    if let Injected::TransactionConflict { actions } = kind {
        let reasons: Vec<Value> = (0..actions)
            .map(|i| {
                if i == 0 {
                    json!({ "Code": "TransactionConflict", "Message": "Transaction is ongoing for the item (injected)" })
                } else {
                    json!({ "Code": "None" })
                }
            })
            .collect();
        let codes: Vec<&str> = (0..actions).map(|i| if i == 0 { "TransactionConflict" } else { "None" }).collect();
        return json_response(
            400,
            &json!({
                "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                "message": format!(
                    "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]",
                    codes.join(", ")
                ),
                "CancellationReasons": reasons,
            }),
        );
    }
    let (status, error_type, message) = match kind {
        Injected::ProvisionedThroughputExceeded => (
            400,
            "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
            "The level of configured provisioned throughput for the table was exceeded. (injected)",
        ),
        Injected::Throttling => (
            400,
            "com.amazon.coral.availability#ThrottlingException",
            "Rate of requests exceeds the allowed throughput. (injected)",
        ),
        _ => (500, "com.amazonaws.dynamodb.v20120810#InternalServerError", "Internal server error (injected)"),
    };
    json_response(status, &json!({ "__type": error_type, "message": message }))
}

/// The [`HttpClient`] in front of the real one.
#[derive(Debug)]
struct FaultyClient {
    inner: SharedHttpClient,
    injector: FaultInjector,
}

impl HttpClient for FaultyClient {
    fn http_connector(&self, settings: &HttpConnectorSettings, components: &RuntimeComponents) -> SharedHttpConnector {
        let inner = self.inner.http_connector(settings, components);
        SharedHttpConnector::new(FaultyConnector { inner, injector: self.injector.clone() })
    }

    fn connector_metadata(&self) -> Option<ConnectorMetadata> {
        self.inner.connector_metadata()
    }
}

#[derive(Debug)]
struct FaultyConnector {
    inner: SharedHttpConnector,
    injector: FaultInjector,
}

impl HttpConnector for FaultyConnector {
    fn call(&self, mut request: HttpRequest) -> HttpConnectorFuture {
        let operation = request
            .headers()
            .get("x-amz-target")
            .and_then(|target| target.rsplit('.').next())
            .unwrap_or_default()
            .to_owned();
        let plan = self.injector.plan(&operation, request.body().bytes());
        let inner = self.inner.clone();
        HttpConnectorFuture::new(async move {
            match plan {
                Plan::Forward => inner.call(request).await,
                Plan::Error(kind) => error_response(kind),
                Plan::Service(error) => json_response(error.status, &error.body()),
                Plan::ErrorAfterForward(delay) => {
                    // Read the whole answer, so that the server has finished with the request.
                    let mut response = inner.call(request).await?;
                    ByteStream::new(response.take_body()).collect().await.map_err(connector_error)?;
                    if let Some(delay) = delay {
                        tokio::time::sleep(delay).await;
                    }
                    error_response(Injected::InternalServerError)
                }
                Plan::AnswerLater(delay) => {
                    let mut response = inner.call(request).await?;
                    let bytes =
                        ByteStream::new(response.take_body()).collect().await.map_err(connector_error)?.into_bytes();
                    tokio::time::sleep(delay).await;
                    *response.body_mut() = SdkBody::from(bytes);
                    Ok(response)
                }
                Plan::ForwardLater(delay) => {
                    let late = request
                        .try_clone()
                        .ok_or_else(|| connector_error("a request body that cannot be sent twice"))?;
                    tokio::spawn(async move {
                        tokio::time::sleep(delay).await;
                        if let Ok(mut response) = inner.call(late).await {
                            let _ = ByteStream::new(response.take_body()).collect().await;
                        }
                    });
                    error_response(Injected::InternalServerError)
                }
                Plan::Unprocessed(split) => {
                    let Some(forward) = &split.forward else {
                        return json_response(200, &split.synthesized());
                    };
                    request
                        .headers_mut()
                        .try_insert("content-length", forward.len().to_string())
                        .map_err(connector_error)?;
                    *request.body_mut() = SdkBody::from(forward.clone());
                    let mut response = inner.call(request).await?;
                    if response.status().as_u16() != 200 {
                        return Ok(response);
                    }
                    let bytes =
                        ByteStream::new(response.take_body()).collect().await.map_err(connector_error)?.into_bytes();
                    let mut json: Value = serde_json::from_slice(&bytes).map_err(connector_error)?;
                    split.merge(&mut json).ok_or_else(|| connector_error("unexpected batch response shape"))?;
                    set_body(&mut response, serde_json::to_vec(&json).map_err(connector_error)?)?;
                    Ok(response)
                }
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write_body(n: usize) -> Vec<u8> {
        let entries: Vec<Value> = (0..n)
            .map(|i| json!({ "PutRequest": { "Item": { "PK": { "S": format!("P#{i}") }, "SK": { "S": "X" } } } }))
            .collect();
        serde_json::to_vec(&json!({ "RequestItems": { "t": entries } })).unwrap()
    }

    #[test]
    fn positions_and_keys_are_taken_out_of_the_request() {
        let injector = FaultInjector::new(1);
        injector.add(FaultRule::new(Fault::Unprocessed(Pick::Positions(vec![1, 3]))).on(BATCH_WRITE).times(1));
        let Plan::Unprocessed(split) = injector.plan(BATCH_WRITE, Some(&write_body(5))) else { panic!("no fault") };
        assert_eq!(split.claimed.len(), 2);
        let forwarded: Value = serde_json::from_slice(split.forward.as_deref().unwrap()).unwrap();
        assert_eq!(entry_keys(BATCH_WRITE, &forwarded).len(), 3);
        let mut response = json!({ "UnprocessedItems": {} });
        split.merge(&mut response).unwrap();
        assert_eq!(response["UnprocessedItems"]["t"][0]["PutRequest"]["Item"]["PK"]["S"], "P#1");
        assert_eq!(response["UnprocessedItems"]["t"][1]["PutRequest"]["Item"]["PK"]["S"], "P#3");
        // Used up: the next request is forwarded.
        assert!(matches!(injector.plan(BATCH_WRITE, Some(&write_body(5))), Plan::Forward));

        let key = PrimaryKey { pk: AttributeValue::S("P#2".into()), sk: AttributeValue::S("X".into()) };
        injector.add(FaultRule::new(Fault::Unprocessed(Pick::Keys(vec![key]))));
        assert!(matches!(injector.plan(BATCH_WRITE, Some(&write_body(2))), Plan::Forward), "P#2 is not there");
        let Plan::Unprocessed(split) = injector.plan(BATCH_WRITE, Some(&write_body(3))) else { panic!("no fault") };
        assert_eq!(split.claimed.len(), 1);
        let forwarded: Value = serde_json::from_slice(split.forward.as_deref().unwrap()).unwrap();
        assert_eq!(entry_keys(BATCH_WRITE, &forwarded).len(), 2);

        injector.clear_rules();
        injector.add(FaultRule::new(Fault::Unprocessed(Pick::All)));
        let Plan::Unprocessed(split) = injector.plan(BATCH_WRITE, Some(&write_body(3))) else { panic!("no fault") };
        assert!(split.forward.is_none());
        assert_eq!(split.synthesized()["UnprocessedItems"]["t"].as_array().unwrap().len(), 3);
        let counts = injector.counts();
        assert_eq!(
            (counts.requests, counts.forwarded, counts.unprocessed_responses, counts.unprocessed_items),
            (5, 4, 3, 6)
        );
    }

    #[test]
    fn equal_json_in_another_key_order_hashes_equal() {
        let a: Value = serde_json::from_str(r#"{"a": {"S": "x"}, "b": [1, {"c": null, "d": true}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"b": [1, {"d": true, "c": null}], "a": {"S": "x"}}"#).unwrap();
        let c: Value = serde_json::from_str(r#"{"b": [1, {"d": true, "c": null}], "a": {"S": "y"}}"#).unwrap();
        assert_eq!(canonical_hash(&a, FNV_OFFSET), canonical_hash(&b, FNV_OFFSET));
        assert_ne!(canonical_hash(&a, FNV_OFFSET), canonical_hash(&c, FNV_OFFSET));
        // Table names do not count.
        let t1: Value = serde_json::from_str(r#"{"TableName": "t-1", "RequestItems": {"t-1": [1]}}"#).unwrap();
        let t2: Value = serde_json::from_str(r#"{"TableName": "t-2", "RequestItems": {"t-2": [1]}}"#).unwrap();
        let t3: Value = serde_json::from_str(r#"{"TableName": "t-2", "RequestItems": {"t-2": [2]}}"#).unwrap();
        assert_eq!(canonical_hash(&t1, FNV_OFFSET), canonical_hash(&t2, FNV_OFFSET));
        assert_ne!(canonical_hash(&t2, FNV_OFFSET), canonical_hash(&t3, FNV_OFFSET));
    }

    #[test]
    fn rates_are_deterministic_per_seed_and_body() {
        let decisions = |seed| {
            let injector = FaultInjector::new(seed);
            injector.add(FaultRule::new(Fault::Throttling).rate(0.3));
            (0..200)
                .map(|i| matches!(injector.plan("PutItem", Some(&write_body(i % 7))), Plan::Error(_)))
                .collect::<Vec<_>>()
        };
        assert_eq!(decisions(42), decisions(42));
        assert_ne!(decisions(42), decisions(43));
        let fired = decisions(42).iter().filter(|&&f| f).count();
        assert!((30..90).contains(&fired), "about 30% of 200: {fired}");
    }
}

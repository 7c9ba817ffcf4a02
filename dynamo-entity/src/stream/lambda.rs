//! A Lambda handler for a DynamoDB stream source that reports `batchItemFailures` as Lambda
//! reads them for a stream (feature `aws-lambda-events`).
//!
//! With `ReportBatchItemFailures` on the event source mapping, Lambda retries a stream batch
//! from the LOWEST sequence number the function reports as failed: every record before it
//! counts as done, that record and every record after it come again. A handler that reports
//! every failed record, as for SQS, and goes on after a failure has already handled later
//! records (later changes of the same item among them) when the batch comes back from the
//! first failure: they are handled twice, and out of order with the change that failed.
//! [`handle`] stops at the first failed record in batch order and reports only it: the records
//! after it are not handled now and come again with it, in order.
//!
//! ```no_run
//! use aws_lambda_events::event::dynamodb::Event;
//! use aws_lambda_events::event::streams::DynamoDbEventResponse;
//! use dynamo_entity::stream::lambda::{Undecodable, handle};
//! use dynamo_entity::stream::ChangeKind;
//! # use dynamo_entity::{Entity, EntityEnum};
//! # #[derive(Entity, Debug, Clone, PartialEq)]
//! # #[entity(pk = "ORDER#<id>", sk = "META")]
//! # struct Order { id: String }
//! # #[derive(EntityEnum, Debug, Clone, PartialEq)]
//! # enum AnyItem { Order(Order) }
//! # async fn ship(_order: Order) -> Result<(), std::io::Error> { Ok(()) }
//!
//! async fn function(event: Event) -> DynamoDbEventResponse {
//!     let outcome = handle::<AnyItem, _, _, _>(&event, Undecodable::Fail, |change, _sequence_number| async move {
//!         match (change.kind, change.new) {
//!             (ChangeKind::Insert, Some(AnyItem::Order(order))) => ship(order).await,
//!             _ => Ok(()),
//!         }
//!     })
//!     .await;
//!     if let Some((sequence_number, why)) = &outcome.failure {
//!         eprintln!("record {sequence_number} failed: {why}");
//!     }
//!     outcome.response
//! }
//! ```

use std::fmt;
use std::future::Future;

use aws_lambda_events::event::dynamodb::Event;
use aws_lambda_events::event::streams::{DynamoDbBatchItemFailure, DynamoDbEventResponse};

use crate::collection::EntityEnum;
use crate::error::Error;
use crate::stream::Change;

/// What [`handle`] does with a record that does not decode into the entity enum (an image of a
/// named entity type with a missing or mistyped attribute, an unknown event name).
///
/// ```
/// use aws_lambda_events::event::dynamodb::{Event, EventRecord};
/// use dynamo_entity::stream::lambda::{Undecodable, handle};
/// # use dynamo_entity::{Entity, EntityEnum};
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "ORDER#<id>", sk = "META")]
/// # struct Order { id: String }
/// # #[derive(EntityEnum, Debug, Clone, PartialEq)]
/// # enum AnyItem { Order(Order) }
/// # futures::executor::block_on(async {
/// let mut record = EventRecord::default();
/// record.event_name = "TRUNCATE".into(); // no such event: the record does not decode
/// record.change.sequence_number = Some("100".into());
/// let mut event = Event::default();
/// event.records.push(record);
/// let outcome = handle::<AnyItem, _, _, _>(&event, Undecodable::Skip, |_, _| async { Ok::<(), String>(()) }).await;
/// assert!(outcome.response.batch_item_failures.is_empty());
/// assert_eq!(outcome.skipped[0].0, "100");
/// assert_eq!(outcome.skipped[0].1.to_string(), "invalid request: unknown stream event name `TRUNCATE`");
/// # });
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Undecodable {
    /// The record fails: it is reported as the batch's failure and the records after it are
    /// not handled, so Lambda delivers it again (until the event source mapping's retry limit
    /// or the record's age sends it to the on-failure destination).
    Fail,
    /// The record is passed over and listed in [`BatchOutcome::skipped`] with its error; the
    /// records after it are handled.
    Skip,
}

/// Why a record failed: [`BatchOutcome::failure`] (see [`handle`]'s example).
#[derive(Debug)]
pub enum RecordFailure<E> {
    /// It does not decode ([`Undecodable::Fail`]).
    Decode(Error),
    /// The handler returned this error.
    Handler(E),
}

impl<E: fmt::Display> fmt::Display for RecordFailure<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RecordFailure::Decode(e) => write!(f, "the record does not decode: {e}"),
            RecordFailure::Handler(e) => write!(f, "the handler failed: {e}"),
        }
    }
}

/// What [`handle`] did with a batch (see its example): return [`BatchOutcome::response`]
/// from the function.
#[derive(Debug)]
pub struct BatchOutcome<E> {
    /// The answer to return from the function: no `batchItemFailures` when every record was
    /// handled (or skipped), else exactly one, the failed record's sequence number.
    pub response: DynamoDbEventResponse,
    /// The sequence numbers of the records the handler succeeded on, in batch order.
    pub handled: Vec<String>,
    /// The sequence numbers of the records whose images are all of entity types the enum does
    /// not name: not passed to the handler, done.
    pub ignored: Vec<String>,
    /// The records passed over as undecodable ([`Undecodable::Skip`]), with their errors.
    pub skipped: Vec<(String, Error)>,
    /// The failed record's sequence number and why; the records after it were not handled.
    pub failure: Option<(String, RecordFailure<E>)>,
    /// The sequence numbers of the records after the failed one, not handled (Lambda delivers
    /// them again with it).
    pub not_handled: Vec<String>,
}

/// Handles a DynamoDB stream batch record by record, in batch order: each record is decoded
/// into `A` ([`Change::from_lambda`]) and passed to `handler` with its sequence number. At
/// the first record that fails (the handler's error, or a decode error with
/// [`Undecodable::Fail`]), it stops: the response names that record's sequence number only,
/// and the records after it are not handled, so Lambda, which resumes a stream batch from the
/// lowest failed sequence number, delivers that record and the ones after it again, once each.
/// A record without a sequence number that fails is reported with none, which Lambda reads as
/// a failure of the whole batch.
///
/// The function's event source mapping needs `FunctionResponseTypes: ["ReportBatchItemFailures"]`;
/// without it Lambda ignores the response and retries the whole batch on an error only. A
/// redelivered record may have been handled before (its batch failed later, or the function
/// timed out): the handler's writes must be idempotent (a conditional write on the sequence
/// number, or an idempotency key), which the sequence number passed in allows.
///
/// ```
/// use aws_lambda_events::event::dynamodb::{Event, EventRecord};
/// use dynamo_entity::stream::lambda::{Undecodable, handle};
/// # use dynamo_entity::{Entity, EntityEnum};
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "ORDER#<id>", sk = "META")]
/// # struct Order { id: String }
/// # #[derive(EntityEnum, Debug, Clone, PartialEq)]
/// # enum AnyItem { Order(Order) }
/// # futures::executor::block_on(async {
/// let mut event = Event::default();
/// for n in 1..=3 {
///     let mut record = EventRecord::default();
///     record.event_name = "INSERT".into();
///     record.change.sequence_number = Some(format!("{n}00"));
///     let order = Order { id: format!("o{n}") };
///     record.change.keys = order.primary_key()?.to_item().into();
///     record.change.new_image = order.to_item()?.into();
///     event.records.push(record);
/// }
/// let outcome = handle::<AnyItem, _, _, _>(&event, Undecodable::Fail, |_change, seq| async move {
///     if seq == "200" { Err("payment service down") } else { Ok(()) }
/// })
/// .await;
/// let failures: Vec<_> = outcome.response.batch_item_failures.iter().map(|f| f.item_identifier.clone()).collect();
/// assert_eq!(failures, [Some("200".to_owned())]);
/// assert_eq!((outcome.handled, outcome.not_handled), (vec!["100".to_owned()], vec!["300".to_owned()]));
/// # Ok::<(), dynamo_entity::Error>(())
/// # }).unwrap();
/// ```
pub async fn handle<A, F, Fut, E>(event: &Event, undecodable: Undecodable, mut handler: F) -> BatchOutcome<E>
where
    A: EntityEnum,
    F: FnMut(Change<A>, String) -> Fut,
    Fut: Future<Output = Result<(), E>>,
{
    let mut outcome = BatchOutcome {
        response: DynamoDbEventResponse::default(),
        handled: Vec::new(),
        ignored: Vec::new(),
        skipped: Vec::new(),
        failure: None,
        not_handled: Vec::new(),
    };
    let mut records = event.records.iter();
    for record in records.by_ref() {
        let seq = record.change.sequence_number.clone();
        let id = seq.clone().unwrap_or_default();
        let failure = match Change::<A>::from_lambda(record) {
            Ok(None) => {
                outcome.ignored.push(id);
                continue;
            }
            Ok(Some(change)) => match handler(change, id.clone()).await {
                Ok(()) => {
                    outcome.handled.push(id);
                    continue;
                }
                Err(e) => RecordFailure::Handler(e),
            },
            Err(e) if undecodable == Undecodable::Skip => {
                outcome.skipped.push((id, e));
                continue;
            }
            Err(e) => RecordFailure::Decode(e),
        };
        let mut item = DynamoDbBatchItemFailure::default();
        item.item_identifier = seq;
        outcome.response.batch_item_failures.push(item);
        outcome.failure = Some((id, failure));
        break;
    }
    outcome.not_handled = records.map(|r| r.change.sequence_number.clone().unwrap_or_default()).collect();
    outcome
}

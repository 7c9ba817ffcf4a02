//! The one request executor: every request the library sends to DynamoDB goes through
//! [`Table::execute`], which
//!
//! * opens a `tracing` span `dynamodb` with the fields `operation` (such as `PutItem`),
//!   `table`, `entity` (the entity type, empty for a request of several types), `index` (the
//!   index name of a query, empty for the table), `attempt` (1 for the first request of an
//!   operation, counting the library's own retries of unprocessed items, transaction
//!   conflicts and unique-field races; the SDK's retries of throttling and 5xx happen inside
//!   one attempt), and, when the answer comes, `consumed` (capacity units, as DynamoDB
//!   reported them) and `outcome` (`ok` or `error`);
//! * records the consumed capacity on the handle's meter ([`Table::consumed`]).
//!
//! Which requests are retried is each operation's decision, through one policy
//! ([`RetryPolicy`](crate::retry::RetryPolicy)).

use std::future::Future;

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
use tracing::Instrument;
use tracing::field::Empty;

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

impl Table {
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
        let span = tracing::info_span!(
            target: "dynamo_entity",
            "dynamodb",
            operation = call.operation,
            table = self.name(),
            entity = call.entity,
            index = call.index,
            attempt = call.attempt,
            consumed = Empty,
            outcome = Empty,
        );
        let request = Box::pin(request.instrument(span.clone()));
        let meter = self.meter();
        async move {
            let result = request.await;
            match &result {
                Ok(out) => {
                    let total = meter.record_consumed(out.consumed(), O::WRITE);
                    span.record("consumed", total);
                    span.record("outcome", "ok");
                }
                Err(_) => {
                    span.record("outcome", "error");
                }
            }
            result
        }
    }
}

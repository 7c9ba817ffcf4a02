//! Answers whose items are read from the response body by this crate's reader
//! ([`json`]) instead of the SDK's, which spends most of their client CPU on them: a `Query`
//! or `Scan` page's `Items`, a `GetItem`'s `Item`, the `Attributes` a `PutItem`,
//! `UpdateItem` or `DeleteItem` returns when it asks for them (`ReturnValues`), and the
//! `Responses` of a `BatchGetItem` or `TransactGetItems`.
//!
//! The request goes through the SDK's own client, with one interceptor of this crate,
//! [`ReadBodies`], which every handle's client carries ([`reading`]) and which acts only for
//! a request sent inside [`ANSWER`]'s scope, on that request's [`FromBody`]. (A request's
//! own interceptor, `customize`, adds a layer to the SDK's configuration that every lookup of
//! the request then walks: for one small item that cost as much as the reader saves.) The
//! SDK signs the request, sends it, retries it and reads its errors and every other
//! member of the answer (`Count`, `LastEvaluatedKey`, `ConsumedCapacity`, …) as usual. For a
//! 2xx answer the interceptor puts a wrapper around the body (`modify_before_deserialization`,
//! which runs before the SDK reads the body: `aws-smithy-runtime`'s orchestrator reads it
//! right after that hook); once the body's last byte is in, the wrapper reads the one member
//! into the request's slot and hands the SDK the same JSON without it. A page's `Items` are
//! checked there but left as JSON, a shared slice of the body ([`Paged`]): the page loop reads
//! them one at a time into one map as it decodes them (`value::json::ItemsReader`). Each attempt empties
//! the slot first, so a retried request's items are those of the attempt that answered. A
//! body this reader does not take on (see [`json`]) is left as it came, and the SDK reads it,
//! items included, as before. An answer without the member (a `GetItem` of an absent item)
//! is left as it came too: the SDK reads no item. An error's body (a failed condition's
//! `Item`, say) is the SDK's.
//!
//! The SDK does not check DynamoDB's `x-amz-crc32` header (the Rust SDK has no such check, for
//! DynamoDB or any other service); since the SDK sees a shortened body, the interceptor removes
//! that header and `content-length`, so that no later interceptor checks the shortened body
//! against them.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::{
    BeforeDeserializationInterceptorContextMut, BeforeTransmitInterceptorContextRef,
};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::{BoxError, BuildError, SdkError};
use aws_sdk_dynamodb::operation::batch_get_item::builders::{BatchGetItemFluentBuilder, BatchGetItemInputBuilder};
use aws_sdk_dynamodb::operation::delete_item::builders::{DeleteItemFluentBuilder, DeleteItemInputBuilder};
use aws_sdk_dynamodb::operation::get_item::builders::{GetItemFluentBuilder, GetItemInputBuilder};
use aws_sdk_dynamodb::operation::put_item::builders::{PutItemFluentBuilder, PutItemInputBuilder};
use aws_sdk_dynamodb::operation::query::builders::{QueryFluentBuilder, QueryInputBuilder};
use aws_sdk_dynamodb::operation::scan::builders::{ScanFluentBuilder, ScanInputBuilder};
use aws_sdk_dynamodb::operation::transact_get_items::builders::{
    TransactGetItemsFluentBuilder, TransactGetItemsInputBuilder,
};
use aws_sdk_dynamodb::operation::update_item::builders::{UpdateItemFluentBuilder, UpdateItemInputBuilder};
use aws_sdk_dynamodb::types::{ItemResponse, ReturnValue};
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use crate::error::Error;
use crate::value::Item;
use crate::value::json::{self, ItemsByTable, Malformed, RawItems, Taken};

use super::exec::Consumed;

/// The HTTP response the SDK's errors carry.
type HttpResponse = aws_sdk_dynamodb::config::http::HttpResponse;

/// Where the member read from a request's answer is put, once its body is read.
type Slot<T> = Arc<Mutex<Option<T>>>;

/// How the member is read from a whole body: its value and the body without it.
type Read<T> = fn(&Bytes) -> Result<Option<Taken<T>>, Malformed>;

/// The interceptor of one request that reads one member of its answer from the body (see the
/// [module](self) documentation): `Items` ([`FromBody::items`]), `Item`
/// ([`FromBody::item`]), `Attributes` ([`FromBody::attributes`]) or `Responses`
/// ([`FromBody::batch_responses`], [`FromBody::transact_responses`]).
#[derive(Debug, Clone)]
pub(crate) struct FromBody<T> {
    slot: Slot<T>,
    read: Read<T>,
}

impl FromBody<RawItems> {
    /// A `Query` or `Scan` answer's `Items`, left as JSON (read item by item as the page
    /// decodes them).
    pub(crate) fn items() -> Self {
        FromBody { slot: Slot::default(), read: json::take_raw_items }
    }
}

impl FromBody<Item> {
    /// A `GetItem` answer's `Item`.
    pub(crate) fn item() -> Self {
        FromBody { slot: Slot::default(), read: |body| json::take_item(body, "Item") }
    }

    /// The `Attributes` of a `PutItem`, `UpdateItem` or `DeleteItem` answer.
    pub(crate) fn attributes() -> Self {
        FromBody { slot: Slot::default(), read: |body| json::take_item(body, "Attributes") }
    }
}

impl FromBody<ItemsByTable> {
    /// A `BatchGetItem` answer's `Responses`.
    pub(crate) fn batch_responses() -> Self {
        FromBody { slot: Slot::default(), read: |body| json::take_batch_responses(body) }
    }
}

impl FromBody<Vec<ItemResponse>> {
    /// A `TransactGetItems` answer's `Responses`.
    pub(crate) fn transact_responses() -> Self {
        FromBody { slot: Slot::default(), read: |body| json::take_transact_responses(body) }
    }
}

impl<T> FromBody<T> {
    /// The member of the attempt that answered, if this crate's reader read it.
    pub(crate) fn take(&self) -> Option<T> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// What [`ReadBodies`] does to the answer of the request being sent: a [`FromBody`] of any
/// member.
trait Answer: Send + Sync {
    /// Reads the member from `response` (see [`FromBody::answer`]).
    fn read(&self, response: &mut HttpResponse);
}

impl<T: Send + 'static> Answer for FromBody<T> {
    fn read(&self, response: &mut HttpResponse) {
        self.answer(response);
    }
}

tokio::task_local! {
    /// The [`FromBody`] of the request being sent.
    static ANSWER: Arc<dyn Answer>;
}

/// The crate's one interceptor, on every handle's client ([`reading`]) and write client: it
/// reads the answer of a request sent inside [`ANSWER`]'s scope, keeps the body of a put sent
/// inside [`held::keeping`](super::held::keeping)'s, and does nothing for any other.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadBodies;

impl Intercept for ReadBodies {
    fn name(&self) -> &'static str {
        "dynamo_entity::table::ReadBodies"
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let _ = ANSWER.try_with(|answer| answer.read(context.response_mut()));
        Ok(())
    }

    fn read_after_serialization(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        super::held::keep(context);
        Ok(())
    }
}

/// `client` with [`ReadBodies`]: the client a handle sends through. A request sent through a
/// client without it gets the SDK's reading of its answer, the same values. A client that has
/// it already (another handle's) is returned as it is: a second one would read the body the
/// first one left, without the member, and answer an empty page.
pub(crate) fn reading(client: &Client) -> Client {
    if has_interceptor(client, ReadBodies.name()) {
        return client.clone();
    }
    let mut builder = client.config().to_builder();
    with_read_bodies(&mut builder);
    Client::from_conf(builder.build())
}

/// Adds [`ReadBodies`] to `builder`, always enabled: no request can disable it (its type is
/// the crate's own), so the SDK does not look in the request's configuration at every hook
/// for a `DisableInterceptor` of it, as it does for an interceptor added with
/// `Builder::interceptor` (about 4,800 instructions a request, a `PutItem` of the `e2e`
/// benchmark).
pub(crate) fn with_read_bodies(builder: &mut aws_sdk_dynamodb::config::Builder) {
    builder.push_interceptor(aws_smithy_runtime_api::client::interceptors::SharedInterceptor::permanent(ReadBodies));
}

/// Whether `client` has an interceptor named `name`.
pub(crate) fn has_interceptor(client: &Client, name: &str) -> bool {
    client.config().interceptors().any(|i| i.name() == name)
}

impl<T: Send + 'static> FromBody<T> {
    /// What the interceptor does to each attempt's `response`: empties the slot, then, for a
    /// 2xx answer, wraps its body (see the [module](self) documentation).
    fn answer(&self, response: &mut HttpResponse) {
        *self.slot.lock().unwrap_or_else(PoisonError::into_inner) = None;
        // An error's body is the SDK's to read.
        if !response.status().is_success() {
            return;
        }
        let headers = response.headers_mut();
        // The body is collected into a buffer of its announced length (at most 16 MiB ahead),
        // rather than one grown and copied frame after frame.
        let length = headers.get("content-length").and_then(|l| l.parse::<usize>().ok()).unwrap_or(0);
        headers.remove("content-length");
        headers.remove("x-amz-crc32");
        let body = std::mem::replace(response.body_mut(), SdkBody::taken());
        *response.body_mut() = match body.bytes() {
            // Already in memory: read at once.
            Some(bytes) => SdkBody::from(finish(bytes.to_vec(), &self.slot, self.read)),
            None => SdkBody::from_body_1_x(Collect {
                inner: Box::pin(body),
                buffer: Vec::with_capacity(length.min(MAX_RESERVED)),
                trailers: None,
                slot: self.slot.clone(),
                read: self.read,
                done: false,
            }),
        };
    }
}

/// The most bytes reserved for a body before its frames come (its `content-length`, up to this).
const MAX_RESERVED: usize = 16 << 20;

/// `body`, a whole answer: without its member when `read` reads it (the member goes to
/// `slot`), else as it is.
fn finish<T>(body: Vec<u8>, slot: &Slot<T>, read: Read<T>) -> Bytes {
    let body = Bytes::from(body);
    match read(&body) {
        Ok(Some(taken)) => {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(taken.value);
            Bytes::from(taken.rest)
        }
        Ok(None) => body,
        Err(e) => {
            tracing::debug!(at = e.at, reason = e.reason, "the answer's member is left to the SDK");
            body
        }
    }
}

/// A body that collects the frames of `inner` and yields, at its end, one frame: the body
/// [`finish`]ed.
struct Collect<T> {
    inner: Pin<Box<SdkBody>>,
    buffer: Vec<u8>,
    /// Trailers `inner` sent, yielded after the data.
    trailers: Option<Frame<Bytes>>,
    slot: Slot<T>,
    read: Read<T>,
    done: bool,
}

impl<T> Body for Collect<T> {
    type Data = Bytes;
    type Error = aws_smithy_types::body::Error;

    fn poll_frame(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if this.done {
            return Poll::Ready(this.trailers.take().map(Ok));
        }
        loop {
            match ready!(this.inner.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) => this.buffer.extend_from_slice(&data),
                    Err(trailers) => this.trailers = Some(trailers),
                },
                Some(Err(e)) => return Poll::Ready(Some(Err(e))),
                None => {
                    this.done = true;
                    let body = finish(std::mem::take(&mut this.buffer), &this.slot, this.read);
                    return Poll::Ready(Some(Ok(Frame::data(body))));
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done && self.trailers.is_none()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::default()
    }
}

/// Whether a write's `ReturnValues` asks for an item (`ALL_OLD`, `ALL_NEW`, …): without it,
/// the answer holds no `Attributes` and is sent as the SDK sends it.
fn returns_item(returning: &Option<ReturnValue>) -> bool {
    !matches!(returning, None | Some(ReturnValue::None))
}

/// The send functions: each sends its operation's request `input` through `client`, the
/// answer's member read by this crate's reader (see the [module](self) documentation), as the
/// SDK's `send_with` does, with the same output. A write whose `ReturnValues` asks for no item
/// is sent with `send_with` itself.
macro_rules! from_body {
    ($(
        $(#[$doc:meta])*
        $operation:ident($input:ident) -> $output:ident, $error:ident
            = $fluent:ident, $member:ident into $field:ident $(if $returning:ident)?;
    )*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        /// The SDK's.
        pub(crate) async fn $operation(
            client: &Client,
            input: $input,
        ) -> Result<
            aws_sdk_dynamodb::operation::$operation::$output,
            SdkError<aws_sdk_dynamodb::operation::$operation::$error, HttpResponse>,
        > {
            $(if !returns_item(input.$returning()) {
                return input.send_with(client).await;
            })?
            let answer = FromBody::$member();
            let builder = $fluent(client, input).map_err(SdkError::construction_failure)?;
            let mut out = ANSWER.scope(Arc::new(answer.clone()), builder.send()).await?;
            if let Some(read) = answer.take() {
                out.$field = Some(read);
            }
            Ok(out)
        }
    )*};
}

from_body!(
    /// Sends a `GetItem`, its `Item` read here.
    get_item(GetItemInputBuilder) -> GetItemOutput, GetItemError = get_item_builder, item into item;
    /// Sends a `PutItem`, the `Attributes` it returns read here.
    put_item(PutItemInputBuilder) -> PutItemOutput, PutItemError
        = put_item_builder, attributes into attributes if get_return_values;
    /// Sends an `UpdateItem`, the `Attributes` it returns read here.
    update_item(UpdateItemInputBuilder) -> UpdateItemOutput, UpdateItemError
        = update_item_builder, attributes into attributes if get_return_values;
    /// Sends a `DeleteItem`, the `Attributes` it returns read here.
    delete_item(DeleteItemInputBuilder) -> DeleteItemOutput, DeleteItemError
        = delete_item_builder, attributes into attributes if get_return_values;
    /// Sends a `BatchGetItem`, its `Responses` read here.
    batch_get_item(BatchGetItemInputBuilder) -> BatchGetItemOutput, BatchGetItemError
        = batch_get_item_builder, batch_responses into responses;
    /// Sends a `TransactGetItems`, its `Responses` read here.
    transact_get_items(TransactGetItemsInputBuilder) -> TransactGetItemsOutput, TransactGetItemsError
        = transact_get_items_builder, transact_responses into responses;
);

/// A `Query` or `Scan` answer (`output`) and its `Items` when this crate's reader took them
/// from the body (`items`; the output's `items` is then `None`): see [`query`].
#[derive(Debug)]
pub(crate) struct Paged<O> {
    /// The SDK's output.
    pub(crate) output: O,
    /// The page's items, left as the body's JSON, when the reader took them.
    pub(crate) items: Option<RawItems>,
}

impl<O: Consumed> Consumed for Paged<O> {
    const WRITE: bool = O::WRITE;
    fn consumed(&self) -> &[aws_sdk_dynamodb::types::ConsumedCapacity] {
        self.output.consumed()
    }
}

/// The send functions of a page: each sends its operation's request `input` through
/// `client`, the answer's `Items` taken from the body as JSON (see the [module](self)
/// documentation), to be read item by item as the page decodes them. A body the reader leaves
/// is the SDK's, `Items` included (`Paged::items` is then `None`).
macro_rules! paged {
    ($(
        $(#[$doc:meta])*
        $operation:ident($input:ident) -> $output:ident, $error:ident = $fluent:ident;
    )*) => {$(
        $(#[$doc])*
        ///
        /// # Errors
        /// The SDK's.
        pub(crate) async fn $operation(
            client: &Client,
            input: $input,
        ) -> Result<
            Paged<aws_sdk_dynamodb::operation::$operation::$output>,
            SdkError<aws_sdk_dynamodb::operation::$operation::$error, HttpResponse>,
        > {
            let answer = FromBody::items();
            let builder = $fluent(client, input).map_err(SdkError::construction_failure)?;
            let output = ANSWER.scope(Arc::new(answer.clone()), builder.send()).await?;
            Ok(Paged { output, items: answer.take() })
        }
    )*};
}

paged!(
    /// Sends a `Query`, its `Items` taken from the body.
    query(QueryInputBuilder) -> QueryOutput, QueryError = query_builder;
    /// Sends a `Scan`, its `Items` taken from the body.
    scan(ScanInputBuilder) -> ScanOutput, ScanError = scan_builder;
);

/// The error of a page whose items this crate's reader took from the body, but one of which it
/// could not read once the page decoded it (`operation`: `Query` or `Scan`): the error the SDK
/// gives for a body it cannot read, [`Error::Sdk`]. DynamoDB does not send such items; the
/// read fails, rather than return the page without it.
#[cold]
pub(crate) fn unreadable_item(operation: &'static str, malformed: Malformed) -> Error {
    use aws_sdk_dynamodb::operation::{query::QueryError, scan::ScanError};
    let response = || HttpResponse::new(200.try_into().unwrap_or_else(|_| unreachable!()), SdkBody::empty());
    if operation == "Scan" {
        Error::sdk(operation, SdkError::<ScanError, HttpResponse>::response_error(malformed, response()))
    } else {
        Error::sdk(operation, SdkError::<QueryError, HttpResponse>::response_error(malformed, response()))
    }
}

/// `input` as the client's fluent builder, every field moved.
fn query_builder(client: &Client, input: QueryInputBuilder) -> Result<QueryFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .query()
        .set_table_name(i.table_name)
        .set_index_name(i.index_name)
        .set_select(i.select)
        .set_attributes_to_get(i.attributes_to_get)
        .set_limit(i.limit)
        .set_consistent_read(i.consistent_read)
        .set_key_conditions(i.key_conditions)
        .set_query_filter(i.query_filter)
        .set_conditional_operator(i.conditional_operator)
        .set_scan_index_forward(i.scan_index_forward)
        .set_exclusive_start_key(i.exclusive_start_key)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_projection_expression(i.projection_expression)
        .set_filter_expression(i.filter_expression)
        .set_key_condition_expression(i.key_condition_expression)
        .set_expression_attribute_names(i.expression_attribute_names)
        .set_expression_attribute_values(i.expression_attribute_values))
}

/// `input` as the client's fluent builder, every field moved.
fn scan_builder(client: &Client, input: ScanInputBuilder) -> Result<ScanFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .scan()
        .set_table_name(i.table_name)
        .set_index_name(i.index_name)
        .set_attributes_to_get(i.attributes_to_get)
        .set_limit(i.limit)
        .set_select(i.select)
        .set_scan_filter(i.scan_filter)
        .set_conditional_operator(i.conditional_operator)
        .set_exclusive_start_key(i.exclusive_start_key)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_total_segments(i.total_segments)
        .set_segment(i.segment)
        .set_projection_expression(i.projection_expression)
        .set_filter_expression(i.filter_expression)
        .set_expression_attribute_names(i.expression_attribute_names)
        .set_expression_attribute_values(i.expression_attribute_values)
        .set_consistent_read(i.consistent_read))
}

/// `input` as the client's fluent builder, every field moved.
fn batch_get_item_builder(
    client: &Client,
    input: BatchGetItemInputBuilder,
) -> Result<BatchGetItemFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .batch_get_item()
        .set_request_items(i.request_items)
        .set_return_consumed_capacity(i.return_consumed_capacity))
}

/// `input` as the client's fluent builder, every field moved.
fn transact_get_items_builder(
    client: &Client,
    input: TransactGetItemsInputBuilder,
) -> Result<TransactGetItemsFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .transact_get_items()
        .set_transact_items(i.transact_items)
        .set_return_consumed_capacity(i.return_consumed_capacity))
}

/// `input` as the client's fluent builder, every field moved.
fn get_item_builder(client: &Client, input: GetItemInputBuilder) -> Result<GetItemFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .get_item()
        .set_table_name(i.table_name)
        .set_key(i.key)
        .set_attributes_to_get(i.attributes_to_get)
        .set_consistent_read(i.consistent_read)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_projection_expression(i.projection_expression)
        .set_expression_attribute_names(i.expression_attribute_names))
}

/// `input` as the client's fluent builder, every field moved.
fn put_item_builder(client: &Client, input: PutItemInputBuilder) -> Result<PutItemFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .put_item()
        .set_table_name(i.table_name)
        .set_item(i.item)
        .set_expected(i.expected)
        .set_return_values(i.return_values)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_return_item_collection_metrics(i.return_item_collection_metrics)
        .set_conditional_operator(i.conditional_operator)
        .set_condition_expression(i.condition_expression)
        .set_expression_attribute_names(i.expression_attribute_names)
        .set_expression_attribute_values(i.expression_attribute_values)
        .set_return_values_on_condition_check_failure(i.return_values_on_condition_check_failure))
}

/// `input` as the client's fluent builder, every field moved.
fn update_item_builder(client: &Client, input: UpdateItemInputBuilder) -> Result<UpdateItemFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .update_item()
        .set_table_name(i.table_name)
        .set_key(i.key)
        .set_attribute_updates(i.attribute_updates)
        .set_expected(i.expected)
        .set_conditional_operator(i.conditional_operator)
        .set_return_values(i.return_values)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_return_item_collection_metrics(i.return_item_collection_metrics)
        .set_update_expression(i.update_expression)
        .set_condition_expression(i.condition_expression)
        .set_expression_attribute_names(i.expression_attribute_names)
        .set_expression_attribute_values(i.expression_attribute_values)
        .set_return_values_on_condition_check_failure(i.return_values_on_condition_check_failure))
}

/// `input` as the client's fluent builder, every field moved.
fn delete_item_builder(client: &Client, input: DeleteItemInputBuilder) -> Result<DeleteItemFluentBuilder, BuildError> {
    let i = input.build()?;
    Ok(client
        .delete_item()
        .set_table_name(i.table_name)
        .set_key(i.key)
        .set_expected(i.expected)
        .set_conditional_operator(i.conditional_operator)
        .set_return_values(i.return_values)
        .set_return_consumed_capacity(i.return_consumed_capacity)
        .set_return_item_collection_metrics(i.return_item_collection_metrics)
        .set_condition_expression(i.condition_expression)
        .set_expression_attribute_names(i.expression_attribute_names)
        .set_expression_attribute_values(i.expression_attribute_values)
        .set_return_values_on_condition_check_failure(i.return_values_on_condition_check_failure))
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use aws_sdk_dynamodb::types::{
        AttributeValue, AttributeValueUpdate, Condition, ExpectedAttributeValue, ReturnConsumedCapacity,
        ReturnItemCollectionMetrics, ReturnValuesOnConditionCheckFailure, Select,
    };

    use super::*;

    #[test]
    fn a_client_reads_bodies_through_one_interceptor_however_many_handles_it_went_through() {
        let count = |c: &Client| c.config().interceptors().filter(|i| i.name() == ReadBodies.name()).count();
        let client = crate::table::offline_client();
        assert_eq!(count(&client), 0);
        // A second reader would find the body without its member and answer an empty page.
        let first = crate::Table::new(client, "t");
        let second = crate::Table::new(first.client().clone(), "t");
        assert_eq!(count(first.client()), 1);
        assert_eq!(count(second.client()), 1);
        assert_eq!((count(first.write_client()), count(second.write_client())), (1, 1));
    }

    /// A client whose requests are built, never sent.
    fn client() -> Client {
        crate::table::offline_client()
    }

    fn values() -> HashMap<String, AttributeValue> {
        HashMap::from([(":v".to_owned(), AttributeValue::S("x".to_owned()))])
    }

    #[test]
    fn every_field_of_a_query_reaches_the_fluent_builder() {
        let names = HashMap::from([("#n".to_owned(), "n".to_owned())]);
        let input = aws_sdk_dynamodb::operation::query::QueryInput::builder()
            .table_name("t")
            .index_name("i")
            .select(Select::AllAttributes)
            .attributes_to_get("a")
            .limit(3)
            .consistent_read(true)
            .key_conditions("k", Condition::builder().comparison_operator("EQ".into()).build().unwrap())
            .query_filter("f", Condition::builder().comparison_operator("EQ".into()).build().unwrap())
            .conditional_operator("AND".into())
            .scan_index_forward(false)
            .set_exclusive_start_key(Some(values()))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .projection_expression("p")
            .filter_expression("f")
            .key_condition_expression("k")
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values()));
        let built = query_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }

    #[test]
    fn every_field_of_a_scan_reaches_the_fluent_builder() {
        let names = HashMap::from([("#n".to_owned(), "n".to_owned())]);
        let input = aws_sdk_dynamodb::operation::scan::ScanInput::builder()
            .table_name("t")
            .index_name("i")
            .attributes_to_get("a")
            .limit(3)
            .select(Select::Count)
            .scan_filter("f", Condition::builder().comparison_operator("EQ".into()).build().unwrap())
            .conditional_operator("OR".into())
            .set_exclusive_start_key(Some(values()))
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .total_segments(4)
            .segment(2)
            .projection_expression("p")
            .filter_expression("f")
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values()))
            .consistent_read(true);
        let built = scan_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }

    /// A body sent in frames of `size` bytes, then trailers.
    struct Chunked(Vec<u8>, usize, bool);

    impl Body for Chunked {
        type Data = Bytes;
        type Error = aws_smithy_types::body::Error;

        fn poll_frame(
            mut self: Pin<&mut Self>,
            _: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
            let this = &mut *self;
            if this.0.is_empty() {
                if this.2 {
                    this.2 = false;
                    let mut trailers = http::HeaderMap::new();
                    trailers.insert("x-t", http::HeaderValue::from_static("1"));
                    return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
                }
                return Poll::Ready(None);
            }
            let n = this.1.min(this.0.len());
            let chunk: Vec<u8> = this.0.drain(..n).collect();
            Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
        }
    }

    /// The frames of `body` through a [`Collect`] of `answer`: the data joined, whether
    /// trailers came, and the member read.
    fn collect_with<T>(answer: &FromBody<T>, body: &[u8], size: usize) -> (Vec<u8>, bool, Option<T>) {
        let mut c = Collect {
            inner: Box::pin(SdkBody::from_body_1_x(Chunked(body.to_vec(), size, true))),
            buffer: Vec::new(),
            trailers: None,
            slot: answer.slot.clone(),
            read: answer.read,
            done: false,
        };
        let waker = std::task::Waker::noop();
        let mut cx = Context::from_waker(waker);
        let (mut data, mut trailers) = (Vec::new(), false);
        while let Poll::Ready(Some(frame)) = Pin::new(&mut c).poll_frame(&mut cx) {
            match frame.unwrap().into_data() {
                Ok(d) => data.extend_from_slice(&d),
                Err(_) => trailers = true,
            }
        }
        assert!(c.is_end_stream());
        (data, trailers, answer.take())
    }

    /// [`collect_with`] of a page's `Items`, each item read.
    fn collect(body: &[u8], size: usize) -> (Vec<u8>, bool, Option<Vec<Item>>) {
        let (data, trailers, items) = collect_with(&FromBody::items(), body, size);
        (data, trailers, items.map(|raw| raw.to_items().unwrap()))
    }

    #[test]
    fn a_body_in_frames_yields_its_items_and_the_rest() {
        let body = br#"{"Count":1,"Items":[{"a":{"S":"x"}}],"ScannedCount":1}"#;
        for size in [1, 7, 1000] {
            let (data, trailers, items) = collect(body, size);
            assert_eq!(String::from_utf8(data).unwrap(), r#"{"Count":1,"ScannedCount":1}"#);
            assert!(trailers);
            let item = HashMap::from([("a".to_owned(), AttributeValue::S("x".to_owned()))]);
            assert_eq!(items, Some(vec![item]));
        }
    }

    #[test]
    fn a_body_the_reader_leaves_is_passed_on_as_it_came() {
        let body = br#"{"Count":1,"Items":[{"a":{"X":"x"}}],"ScannedCount":1}"#;
        let (data, _, items) = collect(body, 5);
        assert_eq!(data, body.to_vec());
        assert_eq!(items, None);
    }

    #[test]
    fn a_get_items_body_in_frames_yields_its_item_and_the_rest() {
        let body = br#"{"ConsumedCapacity":{"CapacityUnits":0.5,"TableName":"t"},"Item":{"a":{"S":"x"}}}"#;
        for size in [1, 7, 1000] {
            let (data, trailers, item) = collect_with(&FromBody::item(), body, size);
            assert_eq!(
                String::from_utf8(data).unwrap(),
                r#"{"ConsumedCapacity":{"CapacityUnits":0.5,"TableName":"t"}}"#
            );
            assert!(trailers);
            assert_eq!(item, Some(HashMap::from([("a".to_owned(), AttributeValue::S("x".to_owned()))])));
        }
        // An absent item, a null one, and an escaped member name: the body as it came, no item.
        for body in [&br#"{"ConsumedCapacity":{"CapacityUnits":0.5}}"#[..], br#"{"Item":null}"#, br#"{"It\u0065m":{}}"#]
        {
            let (data, _, item) = collect_with(&FromBody::item(), body, 3);
            assert_eq!(data, body.to_vec());
            assert_eq!(item, None);
        }
    }

    #[test]
    fn a_writes_body_yields_its_attributes_and_not_an_item() {
        let body = br#"{"Attributes":{"v":{"N":"2"}},"ConsumedCapacity":{"CapacityUnits":1.0}}"#;
        let (data, _, item) = collect_with(&FromBody::attributes(), body, 4);
        assert_eq!(String::from_utf8(data).unwrap(), r#"{"ConsumedCapacity":{"CapacityUnits":1.0}}"#);
        assert_eq!(item, Some(HashMap::from([("v".to_owned(), AttributeValue::N("2".to_owned()))])));
        // `Attributes` is not a `GetItem`'s member.
        let (data, _, item) = collect_with(&FromBody::item(), body, 4);
        assert_eq!(data, body.to_vec());
        assert_eq!(item, None);
    }

    /// A response with `status` and `body`, its length and checksum in headers.
    fn response(status: u16, body: &[u8]) -> HttpResponse {
        let mut response = HttpResponse::new(status.try_into().unwrap(), SdkBody::from(body.to_vec()));
        response.headers_mut().insert("content-length", body.len().to_string());
        response.headers_mut().insert("x-amz-crc32", "1");
        response
    }

    /// The body of `response`, in memory.
    fn bytes(response: &HttpResponse) -> String {
        String::from_utf8(response.body().bytes().unwrap().to_vec()).unwrap()
    }

    #[test]
    fn each_attempt_empties_the_slot_first_and_an_error_stays_the_sdks() {
        let answer = FromBody::item();
        let mut read = response(200, br#"{"Item":{"a":{"S":"x"}}}"#);
        answer.answer(&mut read);
        assert_eq!(bytes(&read), "{}");
        assert_eq!(read.headers().get("content-length"), None);
        assert_eq!(read.headers().get("x-amz-crc32"), None);
        // A retried attempt whose answer is an error (its item the one a failed condition
        // returns) leaves nothing of the attempt before.
        let failed = br#"{"__type":"ConditionalCheckFailedException","Item":{"a":{"S":"y"}}}"#;
        let mut error = response(400, failed);
        answer.answer(&mut error);
        assert_eq!(answer.take(), None);
        assert_eq!(bytes(&error), String::from_utf8(failed.to_vec()).unwrap());
        assert_eq!(error.headers().get("content-length"), Some("67"));
        assert_eq!(error.headers().get("x-amz-crc32"), Some("1"));
        // Nor one whose body the reader leaves.
        answer.answer(&mut response(200, br#"{"Item":{"a":{"S":"x"}}}"#));
        answer.answer(&mut response(200, br#"{"Item":{"a":{"X":"x"}}}"#));
        assert_eq!(answer.take(), None);
        // The answer that came last is the one read.
        answer.answer(&mut response(200, br#"{"Item":{"a":{"S":"x"}}}"#));
        answer.answer(&mut response(200, br#"{"Item":{"a":{"S":"z"}}}"#));
        assert_eq!(answer.take(), Some(HashMap::from([("a".to_owned(), AttributeValue::S("z".to_owned()))])));
        assert_eq!(answer.take(), None);
    }

    #[test]
    fn a_batch_gets_and_a_transactions_responses_are_read_from_the_body() {
        let x = || HashMap::from([("a".to_owned(), AttributeValue::S("x".to_owned()))]);
        let body = br#"{"ConsumedCapacity":[],"Responses":{"t":[{"a":{"S":"x"}}],"u":[]},"UnprocessedKeys":{}}"#;
        let (data, _, tables) = collect_with(&FromBody::batch_responses(), body, 6);
        assert_eq!(String::from_utf8(data).unwrap(), r#"{"ConsumedCapacity":[],"UnprocessedKeys":{}}"#);
        assert_eq!(tables, Some(HashMap::from([("t".to_owned(), vec![x()]), ("u".to_owned(), vec![])])));
        let body = br#"{"Responses":[{"Item":{"a":{"S":"x"}}},{}],"ConsumedCapacity":[]}"#;
        let (data, _, responses) = collect_with(&FromBody::transact_responses(), body, 6);
        assert_eq!(String::from_utf8(data).unwrap(), r#"{"ConsumedCapacity":[]}"#);
        let expected = vec![ItemResponse::builder().set_item(Some(x())).build(), ItemResponse::builder().build()];
        assert_eq!(responses, Some(expected));
    }

    #[test]
    fn every_field_of_a_batch_get_and_a_transact_get_reaches_the_fluent_builder() {
        let keys = aws_sdk_dynamodb::types::KeysAndAttributes::builder().keys(values()).build().unwrap();
        let input = aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput::builder()
            .request_items("t", keys)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let built = batch_get_item_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
        let get = aws_sdk_dynamodb::types::Get::builder().table_name("t").set_key(Some(values())).build().unwrap();
        let input = aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsInput::builder()
            .transact_items(aws_sdk_dynamodb::types::TransactGetItem::builder().get(get).build())
            .return_consumed_capacity(ReturnConsumedCapacity::Total);
        let built = transact_get_items_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }

    #[test]
    fn only_a_write_that_asks_for_an_item_reads_it() {
        assert!(!returns_item(&None));
        assert!(!returns_item(&Some(ReturnValue::None)));
        for r in [ReturnValue::AllOld, ReturnValue::AllNew, ReturnValue::UpdatedOld, ReturnValue::UpdatedNew] {
            assert!(returns_item(&Some(r)));
        }
    }

    #[test]
    fn every_field_of_a_get_item_reaches_the_fluent_builder() {
        let names = HashMap::from([("#n".to_owned(), "n".to_owned())]);
        let input = aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
            .table_name("t")
            .set_key(Some(values()))
            .attributes_to_get("a")
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .projection_expression("p")
            .set_expression_attribute_names(Some(names));
        let built = get_item_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }

    fn expected() -> HashMap<String, ExpectedAttributeValue> {
        HashMap::from([("e".to_owned(), ExpectedAttributeValue::builder().exists(false).build())])
    }

    #[test]
    fn every_field_of_a_put_item_reaches_the_fluent_builder() {
        let names = HashMap::from([("#n".to_owned(), "n".to_owned())]);
        let input = aws_sdk_dynamodb::operation::put_item::PutItemInput::builder()
            .table_name("t")
            .set_item(Some(values()))
            .set_expected(Some(expected()))
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .conditional_operator("AND".into())
            .condition_expression("c")
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let built = put_item_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }

    #[test]
    fn every_field_of_an_update_item_reaches_the_fluent_builder() {
        let names = HashMap::from([("#n".to_owned(), "n".to_owned())]);
        let update = AttributeValueUpdate::builder().action("PUT".into()).build();
        let input = aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
            .table_name("t")
            .set_key(Some(values()))
            .attribute_updates("u", update)
            .set_expected(Some(expected()))
            .conditional_operator("OR".into())
            .return_values(ReturnValue::AllNew)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .update_expression("SET #n = :v")
            .condition_expression("c")
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let built = update_item_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }

    #[test]
    fn every_field_of_a_delete_item_reaches_the_fluent_builder() {
        let names = HashMap::from([("#n".to_owned(), "n".to_owned())]);
        let input = aws_sdk_dynamodb::operation::delete_item::DeleteItemInput::builder()
            .table_name("t")
            .set_key(Some(values()))
            .set_expected(Some(expected()))
            .conditional_operator("AND".into())
            .return_values(ReturnValue::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Total)
            .return_item_collection_metrics(ReturnItemCollectionMetrics::Size)
            .condition_expression("c")
            .set_expression_attribute_names(Some(names))
            .set_expression_attribute_values(Some(values()))
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        let built = delete_item_builder(&client(), input.clone()).unwrap();
        assert_eq!(built.as_input(), &input);
    }
}

//! `Query` and `Scan` answers whose items are read from the response body by this crate's
//! reader ([`json::take_items`]) instead of the SDK's, which spends most of a 1 MB page's
//! client CPU on them.
//!
//! The request goes through the SDK's own client, with one interceptor of its own,
//! [`ItemsFromBody`]: the SDK signs it, sends it, retries it and reads its errors, its
//! `Count`, `ScannedCount`, `LastEvaluatedKey` and `ConsumedCapacity` as usual. For a 2xx
//! answer the interceptor puts a wrapper around the body (`modify_before_deserialization`,
//! which runs before the SDK reads the body: `aws-smithy-runtime`'s orchestrator reads it
//! right after that hook); once the body's last byte is in, the wrapper reads the `Items`
//! into the request's slot and hands the SDK the same JSON without `Items`. Each attempt
//! empties the slot first, so a retried request's items are those of the attempt that
//! answered. A body this reader does not take on (see [`json`]) is left as it came, and the
//! SDK reads it, items included, as before.
//!
//! The SDK does not check DynamoDB's `x-amz-crc32` header (the Rust SDK has no such check, for
//! DynamoDB or any other service); since the SDK sees a shortened body, the interceptor removes
//! that header and `content-length`, so that no later interceptor checks the shortened body
//! against them.

use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, ready};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::interceptors::BeforeDeserializationInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::{BoxError, BuildError, SdkError};
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::operation::query::{QueryError, QueryOutput};
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::operation::scan::{ScanError, ScanOutput};
use aws_smithy_types::body::SdkBody;
use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};

use crate::value::Item;
use crate::value::json;

/// The HTTP response the SDK's errors carry.
type HttpResponse = aws_sdk_dynamodb::config::http::HttpResponse;

/// Where the items of a request's answer are put, once its body is read.
type Slot = Arc<Mutex<Option<Vec<Item>>>>;

/// The interceptor of one `Query` or `Scan` request that reads its answer's items from the
/// body (see the [module](self) documentation).
#[derive(Debug, Clone, Default)]
pub(crate) struct ItemsFromBody(Slot);

impl ItemsFromBody {
    /// The items of the attempt that answered, if this crate's reader read them.
    pub(crate) fn take(&self) -> Option<Vec<Item>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

impl Intercept for ItemsFromBody {
    fn name(&self) -> &'static str {
        "dynamo_entity::query::ItemsFromBody"
    }

    fn modify_before_deserialization(
        &self,
        context: &mut BeforeDeserializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = None;
        let response = context.response_mut();
        // An error's body is the SDK's to read.
        if !response.status().is_success() {
            return Ok(());
        }
        let headers = response.headers_mut();
        headers.remove("content-length");
        headers.remove("x-amz-crc32");
        let body = std::mem::replace(response.body_mut(), SdkBody::taken());
        *response.body_mut() = match body.bytes() {
            // Already in memory: read at once.
            Some(bytes) => SdkBody::from(finish(bytes.to_vec(), &self.0)),
            None => SdkBody::from_body_1_x(Collect {
                inner: Box::pin(body),
                buffer: Vec::new(),
                trailers: None,
                slot: self.0.clone(),
                done: false,
            }),
        };
        Ok(())
    }
}

/// `body`, a whole answer: without its items when they read (the items go to `slot`), else as
/// it is.
fn finish(body: Vec<u8>, slot: &Slot) -> Bytes {
    match json::take_items(&body) {
        Ok(Some(taken)) => {
            *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(taken.items);
            Bytes::from(taken.rest)
        }
        Ok(None) => Bytes::from(body),
        Err(e) => {
            tracing::debug!(at = e.at, reason = e.reason, "the answer's items are left to the SDK");
            Bytes::from(body)
        }
    }
}

/// A body that collects the frames of `inner` and yields, at its end, one frame: the body
/// [`finish`]ed.
struct Collect {
    inner: Pin<Box<SdkBody>>,
    buffer: Vec<u8>,
    /// Trailers `inner` sent, yielded after the data.
    trailers: Option<Frame<Bytes>>,
    slot: Slot,
    done: bool,
}

impl Body for Collect {
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
                    let body = finish(std::mem::take(&mut this.buffer), &this.slot);
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

/// Sends the `Query` request `input` through `client`, its items read by this crate's reader
/// (see the [module](self) documentation): the SDK's `send_with`, with the same output.
///
/// # Errors
/// The SDK's.
pub(crate) async fn query(
    client: &Client,
    input: QueryInputBuilder,
) -> Result<QueryOutput, SdkError<QueryError, HttpResponse>> {
    let items = ItemsFromBody::default();
    let builder = query_builder(client, input).map_err(SdkError::construction_failure)?;
    let mut out = builder.customize().interceptor(items.clone()).send().await?;
    if let Some(read) = items.take() {
        out.items = Some(read);
    }
    Ok(out)
}

/// `input` as the client's fluent builder, every field moved.
fn query_builder(
    client: &Client,
    input: QueryInputBuilder,
) -> Result<aws_sdk_dynamodb::operation::query::builders::QueryFluentBuilder, BuildError> {
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

/// As [`query`], for a `Scan`.
///
/// # Errors
/// The SDK's.
pub(crate) async fn scan(
    client: &Client,
    input: ScanInputBuilder,
) -> Result<ScanOutput, SdkError<ScanError, HttpResponse>> {
    let items = ItemsFromBody::default();
    let builder = scan_builder(client, input).map_err(SdkError::construction_failure)?;
    let mut out = builder.customize().interceptor(items.clone()).send().await?;
    if let Some(read) = items.take() {
        out.items = Some(read);
    }
    Ok(out)
}

/// `input` as the client's fluent builder, every field moved.
fn scan_builder(
    client: &Client,
    input: ScanInputBuilder,
) -> Result<aws_sdk_dynamodb::operation::scan::builders::ScanFluentBuilder, BuildError> {
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

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use aws_sdk_dynamodb::types::{AttributeValue, Condition, ReturnConsumedCapacity, Select};

    use super::*;

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

    /// The frames of `body` through a [`Collect`]: the data joined, and whether trailers came.
    fn collect(body: &[u8], size: usize) -> (Vec<u8>, bool, Option<Vec<Item>>) {
        let slot = Slot::default();
        let mut c = Collect {
            inner: Box::pin(SdkBody::from_body_1_x(Chunked(body.to_vec(), size, true))),
            buffer: Vec::new(),
            trailers: None,
            slot: slot.clone(),
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
        let items = slot.lock().unwrap().take();
        (data, trailers, items)
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
}

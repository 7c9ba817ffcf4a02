//! The writes of a `BatchWriteItem` request that failed, read back from what the SDK made of
//! them, so that a batch sends each write without keeping a copy.
//!
//! The SDK takes a request's input by value and gives nothing back when the request fails,
//! while a batch must still hold every write after a failure: to send it again when the error
//! is retryable, and to report it with its item ([`UnprocessedWrite`](crate::error::UnprocessedWrite))
//! when it is not. A copy of each chunk's writes before every request was the cost of that
//! (a third of the batch's client instructions). Instead, each request carries a [`Sent`]
//! interceptor that keeps, at no copy of the writes, what the request became:
//!
//! - once serialized, the request body (`read_after_serialization`, which runs before anything
//!   is sent and whatever else fails later: signing, the connection, the answer): the writes are
//!   parsed back from its JSON when the request fails, the exact values DynamoDB would have
//!   received;
//! - when the request fails before it is serialized (an interceptor of the client that
//!   refuses it), the input is still in the SDK's context, and `modify_before_completion`,
//!   which runs on every outcome, takes the writes out of it.
//!
//! One of the two is always there: serialization is the only step between them, and the
//! serializer of `BatchWriteItem` fails only on an `AttributeValue` variant this crate never
//! builds (`Unknown`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use aws_sdk_dynamodb::config::interceptors::{BeforeTransmitInterceptorContextRef, FinalizerInterceptorContextMut};
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use base64::Engine;
use serde_json::Value;

/// What a request became: nothing yet, its serialized body, or its writes taken back from an
/// input that was never serialized.
#[derive(Debug, Default)]
enum Kept {
    #[default]
    Nothing,
    Body(Vec<u8>),
    Writes(HashMap<String, Vec<WriteRequest>>),
}

/// An interceptor of one `BatchWriteItem` request that keeps what the request became (see the
/// [module](self) documentation); [`writes`](Sent::writes) reads the writes back.
#[derive(Debug, Clone, Default)]
pub(super) struct Sent(Arc<Mutex<Kept>>);

impl Sent {
    fn keep(&self, kept: Kept) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = kept;
    }

    /// The writes for `table` of the request, in the order they were sent; `None` when
    /// nothing was kept or the body does not parse (neither happens: see the module
    /// documentation).
    pub(super) fn writes(&self, table: &str) -> Option<Vec<WriteRequest>> {
        let kept = std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner));
        match kept {
            Kept::Nothing => None,
            Kept::Writes(mut by_table) => by_table.remove(table),
            Kept::Body(body) => writes_from_body(&body, table),
        }
    }
}

impl Intercept for Sent {
    fn name(&self) -> &'static str {
        "dynamo_entity::batch::Sent"
    }

    fn read_after_serialization(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        if let Some(body) = context.request().body().bytes() {
            self.keep(Kept::Body(body.to_vec()));
        }
        Ok(())
    }

    fn modify_before_completion(
        &self,
        context: &mut FinalizerInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        // Present only when the request failed before it was serialized.
        if let Some(input) = context.input_mut().and_then(|i| i.downcast_mut::<BatchWriteItemInput>()) {
            if let Some(writes) = input.request_items.take() {
                self.keep(Kept::Writes(writes));
            }
        }
        Ok(())
    }
}

/// The writes for `table` in a `BatchWriteItem` request body (`{"RequestItems": {table:
/// [{"PutRequest": {"Item": …}} | {"DeleteRequest": {"Key": …}}, …]}, …}`).
fn writes_from_body(body: &[u8], table: &str) -> Option<Vec<WriteRequest>> {
    let body: Value = serde_json::from_slice(body).ok()?;
    let writes = body.get("RequestItems")?.get(table)?.as_array()?;
    writes.iter().map(write_request).collect()
}

fn write_request(value: &Value) -> Option<WriteRequest> {
    if let Some(put) = value.get("PutRequest") {
        let item = map(put.get("Item")?)?;
        return Some(
            WriteRequest::builder().put_request(PutRequest::builder().set_item(Some(item)).build().ok()?).build(),
        );
    }
    let key = map(value.get("DeleteRequest")?.get("Key")?)?;
    Some(WriteRequest::builder().delete_request(DeleteRequest::builder().set_key(Some(key)).build().ok()?).build())
}

fn map(value: &Value) -> Option<HashMap<String, AttributeValue>> {
    value.as_object()?.iter().map(|(name, v)| Some((name.clone(), attribute_value(v)?))).collect()
}

fn blob(value: &Value) -> Option<Blob> {
    base64::engine::general_purpose::STANDARD.decode(value.as_str()?).ok().map(Blob::new)
}

fn strings(value: &Value) -> Option<Vec<String>> {
    value.as_array()?.iter().map(|s| s.as_str().map(str::to_owned)).collect()
}

/// An attribute value in DynamoDB's JSON form: an object of one member named by its type.
fn attribute_value(value: &Value) -> Option<AttributeValue> {
    let object = value.as_object()?;
    if object.len() != 1 {
        return None;
    }
    let (tag, v) = object.iter().next()?;
    Some(match tag.as_str() {
        "S" => AttributeValue::S(v.as_str()?.to_owned()),
        "N" => AttributeValue::N(v.as_str()?.to_owned()),
        "B" => AttributeValue::B(blob(v)?),
        "BOOL" => AttributeValue::Bool(v.as_bool()?),
        "NULL" => AttributeValue::Null(v.as_bool()?),
        "SS" => AttributeValue::Ss(strings(v)?),
        "NS" => AttributeValue::Ns(strings(v)?),
        "BS" => AttributeValue::Bs(v.as_array()?.iter().map(blob).collect::<Option<_>>()?),
        "L" => AttributeValue::L(v.as_array()?.iter().map(attribute_value).collect::<Option<_>>()?),
        "M" => AttributeValue::M(map(v)?),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_attribute_type_reads_back_from_a_request_body() {
        let body = br#"{"RequestItems":{"t":[
            {"PutRequest":{"Item":{"PK":{"S":"A#1"},"n":{"N":"-1.5E3"},"b":{"B":"AAEC/w=="},
              "t":{"BOOL":true},"z":{"NULL":true},"ss":{"SS":["x","y"]},"ns":{"NS":["1","2"]},
              "bs":{"BS":["AQ==","Ag=="]},"l":{"L":[{"S":"a"},{"N":"7"}]},"m":{"M":{"k":{"L":[]}}}}}},
            {"DeleteRequest":{"Key":{"PK":{"S":"A#2"},"SK":{"S":"META"}}}}
        ]},"ReturnConsumedCapacity":"INDEXES"}"#;
        let writes = writes_from_body(body, "t").unwrap();
        let item = &writes[0].put_request.as_ref().unwrap().item;
        let want: HashMap<String, AttributeValue> = [
            ("PK", AttributeValue::S("A#1".into())),
            ("n", AttributeValue::N("-1.5E3".into())),
            ("b", AttributeValue::B(Blob::new(vec![0, 1, 2, 255]))),
            ("t", AttributeValue::Bool(true)),
            ("z", AttributeValue::Null(true)),
            ("ss", AttributeValue::Ss(vec!["x".into(), "y".into()])),
            ("ns", AttributeValue::Ns(vec!["1".into(), "2".into()])),
            ("bs", AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2])])),
            ("l", AttributeValue::L(vec![AttributeValue::S("a".into()), AttributeValue::N("7".into())])),
            ("m", AttributeValue::M(HashMap::from([("k".to_owned(), AttributeValue::L(vec![]))]))),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
        assert_eq!(*item, want);
        let key = &writes[1].delete_request.as_ref().unwrap().key;
        assert_eq!(key["SK"], AttributeValue::S("META".into()));
        assert_eq!(writes.len(), 2);
        assert_eq!(writes_from_body(body, "other"), None);
    }

    #[test]
    fn a_body_that_is_not_a_batch_write_reads_as_nothing() {
        for body in [
            &br"{"[..],
            br#"{"RequestItems":{"t":[{"PutRequest":{"Item":{"a":{"X":"1"}}}}]}}"#,
            br#"{"RequestItems":{"t":[{"PutRequest":{"Item":{"a":{"S":"1","N":"1"}}}}]}}"#,
            br#"{"RequestItems":{"t":[{}]}}"#,
        ] {
            assert_eq!(writes_from_body(body, "t"), None, "{}", String::from_utf8_lossy(body));
        }
    }
}

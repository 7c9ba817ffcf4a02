//! A batch write's writes as they go on the wire.
//!
//! A batch checks every write before it sends any (see the [batch](super) documentation), so
//! it holds every write at once. Held as the SDK's `WriteRequest` (an item's
//! `HashMap<String, AttributeValue>`, about 4.6 KB of heap for an item of 18 attributes),
//! 10,000 writes are 46 MB of memory written once and read once, where a loop that encodes 25
//! items a request reuses the same few kilobytes. So each write is turned, when it is added,
//! into its element of a `BatchWriteItem` request's `RequestItems` in DynamoDB's JSON
//! ([`Wire`], about a quarter of the size), and the item's map is freed at once. A request's
//! writes are those elements joined; the request goes through the SDK as usual (its endpoint,
//! retries, signing, the client's interceptors), with no writes in its input, and the [`Body`]
//! interceptor puts them into the serialized body once, after serialization and before the
//! SDK's retry loop ([`splice`]): whatever else the input holds, an interceptor of the client's
//! included, is sent as the SDK serialized it.
//!
//! The writes never leave the batch, so a request that fails or comes back with
//! `UnprocessedItems` is simply built again from the writes still pending; a write reported in
//! [`UnprocessedWrite`](crate::error::UnprocessedWrite) is read back from its bytes
//! ([`Wire::request`]), the exact values DynamoDB would have received.
//!
//! Interceptors of the user's client see the input with no writes before serialization (a
//! change they make to it is kept), and the body DynamoDB receives from `modify_before_signing`
//! on; only their `read_after_serialization` and `modify_before_retry_loop` see the body
//! without the writes.

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextMut;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::{AttributeValue, DeleteRequest, PutRequest, WriteRequest};
use aws_smithy_types::body::SdkBody;
use base64::Engine;
use serde_json::Value;

use crate::value::Item;

/// One write of a batch in DynamoDB's JSON: `{"PutRequest":{"Item":{…}}}` or
/// `{"DeleteRequest":{"Key":{…}}}`, an element of a `BatchWriteItem` request's
/// `RequestItems` list.
#[derive(Clone, PartialEq, Eq)]
pub(super) struct Wire(Box<[u8]>);

impl fmt::Debug for Wire {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&String::from_utf8_lossy(&self.0))
    }
}

/// An attribute value of a type this crate does not know (the SDK's `Unknown`, which only the
/// SDK can make, when it reads a type added to DynamoDB after it was built): it cannot be
/// written. No test makes one; the SDK's own serializer refuses it too.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct UnknownType {
    /// The attribute it was found in.
    pub(super) attribute: String,
}

impl Wire {
    /// The put of `item`.
    ///
    /// # Errors
    /// An attribute value of a type this crate does not know.
    pub(super) fn put(item: &Item) -> Result<Wire, UnknownType> {
        Self::write(b"{\"PutRequest\":{\"Item\":", item)
    }

    /// The delete of the item with `key`.
    ///
    /// # Errors
    /// As [`put`](Self::put).
    pub(super) fn delete(key: &Item) -> Result<Wire, UnknownType> {
        Self::write(b"{\"DeleteRequest\":{\"Key\":", key)
    }

    fn write(head: &[u8], map: &Item) -> Result<Wire, UnknownType> {
        // Each attribute takes at least its name, its type tag and the punctuation around
        // them: sized once for a typical item, grown for a larger one.
        let mut out = Vec::with_capacity(head.len() + 2 + map.len() * 48);
        out.extend_from_slice(head);
        push_map(&mut out, map)?;
        out.extend_from_slice(b"}}");
        Ok(Wire(out.into_boxed_slice()))
    }

    /// The write as the SDK's `WriteRequest`; `None` when the bytes are not a write (they
    /// always are: they were made by [`put`](Self::put) or [`delete`](Self::delete)).
    pub(super) fn request(&self) -> Option<WriteRequest> {
        write_request(&serde_json::from_slice(&self.0).ok()?)
    }

    /// The number of bytes.
    pub(super) fn len(&self) -> usize {
        self.0.len()
    }
}

/// The request's envelope around the writes, as the SDK serializes a `BatchWriteItem` input
/// of no writes to `table` that asks for the consumed capacity by index, as every batch write
/// does: `{"RequestItems":{"<table>":[` and `]},"ReturnConsumedCapacity":"INDEXES"}`.
fn envelope(table: &str) -> (Vec<u8>, &'static [u8]) {
    let mut head = b"{\"RequestItems\":{".to_vec();
    push_str(&mut head, table);
    head.extend_from_slice(b":[");
    (head, b"]},\"ReturnConsumedCapacity\":\"INDEXES\"}")
}

/// The bytes of the envelope of a request to `table` ([`envelope`]).
pub(super) fn envelope_len(table: &str) -> usize {
    let (head, tail) = envelope(table);
    head.len() + tail.len()
}

/// `writes` joined by commas: the contents of a request's list of writes.
pub(super) fn joined<'a>(writes: impl Iterator<Item = &'a Wire> + Clone) -> Vec<u8> {
    let size = writes.clone().map(|w| w.len() + 1).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    for (i, w) in writes.enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(&w.0);
    }
    out
}

/// The body of the serialized `BatchWriteItem` request `serialized` (of no writes, or of some
/// an interceptor added) with `writes` ([`joined`]) first in `table`'s list.
///
/// The SDK's own body (`{"RequestItems":{"<table>":[]},"ReturnConsumedCapacity":"INDEXES"}`)
/// is recognised as it is; any other (an interceptor of the client changed the input) is
/// parsed, and only the table's list is rewritten.
///
/// # Errors
/// `serialized` is not JSON, or has no list of writes for `table`.
pub(super) fn splice(serialized: &[u8], table: &str, writes: &[u8]) -> Result<Vec<u8>, BoxError> {
    let (head, tail) = envelope(table);
    if serialized.len() == head.len() + tail.len() && serialized.starts_with(&head) && serialized.ends_with(tail) {
        let mut out = Vec::with_capacity(serialized.len() + writes.len());
        out.extend_from_slice(&head);
        out.extend_from_slice(writes);
        out.extend_from_slice(tail);
        return Ok(out);
    }
    // A string no input holds, in the table's list's place: the list is written where its
    // encoding lands in the serialized text.
    const MARK: &str = "\u{0}dynamo_entity batch writes\u{0}";
    let mut body: Value = serde_json::from_slice(serialized)?;
    let list = body
        .get_mut("RequestItems")
        .and_then(|items| items.get_mut(table))
        .ok_or_else(|| format!("the serialized BatchWriteItem request has no list of writes for table {table}"))?;
    let added = match list.take() {
        Value::Array(added) => added,
        _ => {
            return Err(
                format!("the serialized BatchWriteItem request's writes for table {table} are not a list").into()
            );
        }
    };
    *list = Value::String(MARK.to_owned());
    let text = serde_json::to_vec(&body)?;
    let mark = serde_json::to_vec(MARK)?;
    let at = text.windows(mark.len()).position(|w| w == mark.as_slice()).ok_or("the list's place was not found")?;
    let mut out = Vec::with_capacity(text.len() + writes.len() + 2);
    out.extend_from_slice(&text[..at]);
    out.push(b'[');
    out.extend_from_slice(writes);
    for (i, write) in added.iter().enumerate() {
        if i > 0 || !writes.is_empty() {
            out.push(b',');
        }
        serde_json::to_writer(&mut out, write)?;
    }
    out.push(b']');
    out.extend_from_slice(&text[at + mark.len()..]);
    Ok(out)
}

/// An interceptor of one `BatchWriteItem` request, whose input holds no writes, that puts the
/// writes into its serialized body ([`splice`]) before the SDK's retry loop: the SDK's own
/// retries send that body again.
#[derive(Debug)]
pub(super) struct Body {
    table: String,
    /// The writes, joined ([`joined`]).
    writes: Vec<u8>,
}

impl Body {
    pub(super) fn new(table: &str, writes: Vec<u8>) -> Body {
        Body { table: table.to_owned(), writes }
    }
}

impl Intercept for Body {
    fn name(&self) -> &'static str {
        "dynamo_entity::batch::Body"
    }

    fn modify_before_retry_loop(
        &self,
        context: &mut BeforeTransmitInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let serialized =
            context.request().body().bytes().ok_or("the serialized BatchWriteItem request is in memory")?;
        let body = splice(serialized, &self.table, &self.writes)?;
        let request = context.request_mut();
        request.headers_mut().insert("content-length", body.len().to_string());
        *request.body_mut() = SdkBody::from(body);
        Ok(())
    }
}

// --- writing ----------------------------------------------------------------------------------

fn push_map(out: &mut Vec<u8>, map: &HashMap<String, AttributeValue>) -> Result<(), UnknownType> {
    out.push(b'{');
    for (i, (name, value)) in map.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        push_str(out, name);
        out.push(b':');
        if !push_value(out, value) {
            return Err(UnknownType { attribute: name.clone() });
        }
    }
    out.push(b'}');
    Ok(())
}

/// `value` in DynamoDB's JSON (an object of one member named by its type); `false` for a type
/// this crate does not know, inside any list or map included.
fn push_value(out: &mut Vec<u8>, value: &AttributeValue) -> bool {
    match value {
        AttributeValue::S(s) => {
            out.extend_from_slice(b"{\"S\":");
            push_str(out, s);
        }
        // Numbers travel as strings.
        AttributeValue::N(n) => {
            out.extend_from_slice(b"{\"N\":");
            push_str(out, n);
        }
        AttributeValue::B(b) => {
            out.extend_from_slice(b"{\"B\":");
            push_blob(out, b.as_ref());
        }
        AttributeValue::Bool(b) => out.extend_from_slice(if *b { b"{\"BOOL\":true" } else { b"{\"BOOL\":false" }),
        AttributeValue::Null(b) => out.extend_from_slice(if *b { b"{\"NULL\":true" } else { b"{\"NULL\":false" }),
        AttributeValue::Ss(v) | AttributeValue::Ns(v) => {
            out.extend_from_slice(if matches!(value, AttributeValue::Ss(_)) { b"{\"SS\":" } else { b"{\"NS\":" });
            push_list(out, v, |out, s| {
                push_str(out, s);
                true
            });
        }
        AttributeValue::Bs(v) => {
            out.extend_from_slice(b"{\"BS\":");
            push_list(out, v, |out, b| {
                push_blob(out, b.as_ref());
                true
            });
        }
        AttributeValue::L(v) => {
            out.extend_from_slice(b"{\"L\":");
            if !push_list(out, v, push_value) {
                return false;
            }
        }
        AttributeValue::M(m) => {
            out.extend_from_slice(b"{\"M\":");
            if push_map(out, m).is_err() {
                return false;
            }
        }
        _ => return false,
    }
    out.push(b'}');
    true
}

/// `items` as a JSON array, each written by `push` (`false` stops the array and is returned).
fn push_list<T>(out: &mut Vec<u8>, items: &[T], mut push: impl FnMut(&mut Vec<u8>, &T) -> bool) -> bool {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        if !push(out, item) {
            return false;
        }
    }
    out.push(b']');
    true
}

/// `s` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\r`, `\t` or
/// `\u00XX`; everything else (all of Unicode) as its UTF-8 bytes.
fn push_str(out: &mut Vec<u8>, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let escaped: [u8; 6];
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1f => {
                escaped = [b'\\', b'u', b'0', b'0', HEX[usize::from(b >> 4)], HEX[usize::from(b & 0xf)]];
                &escaped
            }
            _ => continue,
        };
        out.extend_from_slice(&bytes[start..i]);
        out.extend_from_slice(escape);
        start = i + 1;
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

/// `bytes` as a JSON string of their standard base64 (with padding), as DynamoDB's JSON
/// carries binary values.
fn push_blob(out: &mut Vec<u8>, bytes: &[u8]) {
    let engine = &base64::engine::general_purpose::STANDARD;
    out.push(b'"');
    let start = out.len();
    // The exact length of padded base64 (4 characters for each 3 bytes or part of them);
    // `encode_slice` cannot then fail.
    out.resize(start + bytes.len().div_ceil(3) * 4, 0);
    let written = engine.encode_slice(bytes, &mut out[start..]).unwrap_or(0);
    out.truncate(start + written);
    out.push(b'"');
}

// --- reading back -----------------------------------------------------------------------------

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

    fn every_type() -> Item {
        [
            ("PK", AttributeValue::S("A#1".into())),
            ("n", AttributeValue::N("-1.5E3".into())),
            ("b", AttributeValue::B(Blob::new(vec![0, 1, 2, 255]))),
            ("b0", AttributeValue::B(Blob::new(vec![]))),
            ("t", AttributeValue::Bool(true)),
            ("f", AttributeValue::Bool(false)),
            ("z", AttributeValue::Null(true)),
            ("ss", AttributeValue::Ss(vec!["x".into(), "y".into()])),
            ("ns", AttributeValue::Ns(vec!["1".into(), "2".into()])),
            ("bs", AttributeValue::Bs(vec![Blob::new(vec![1]), Blob::new(vec![2, 3])])),
            ("l", AttributeValue::L(vec![AttributeValue::S("a".into()), AttributeValue::N("7".into())])),
            ("l0", AttributeValue::L(vec![])),
            ("m", AttributeValue::M(HashMap::from([("k".to_owned(), AttributeValue::L(vec![]))]))),
            ("m0", AttributeValue::M(HashMap::new())),
            // Everything a JSON string must escape, and text beyond ASCII.
            ("esc", AttributeValue::S("q\"b\\n\nr\rt\tnul\u{0}us\u{1f}del\u{7f}é€😀".into())),
            ("we\"ird\\name\n", AttributeValue::S(String::new())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    }

    #[test]
    fn every_attribute_type_reads_back_exactly_as_written() {
        let item = every_type();
        let put = Wire::put(&item).unwrap();
        let request = put.request().unwrap();
        assert_eq!(request.put_request.unwrap().item, item);
        assert_eq!(request.delete_request, None);

        let key: Item =
            [("PK".to_owned(), AttributeValue::S("A#2".into())), ("SK".to_owned(), AttributeValue::N("7".into()))]
                .into_iter()
                .collect();
        let delete = Wire::delete(&key).unwrap();
        let request = delete.request().unwrap();
        assert_eq!(request.delete_request.unwrap().key, key);
        assert_eq!(request.put_request, None);
    }

    #[test]
    fn strings_and_binaries_are_written_as_dynamodb_json() {
        let one = |name: &str, v: AttributeValue| {
            let wire = Wire::put(&[(name.to_owned(), v)].into_iter().collect()).unwrap();
            String::from_utf8(wire.0.into_vec()).unwrap()
        };
        assert_eq!(
            one("s", AttributeValue::S("a\"\\\n\u{1}é".into())),
            r#"{"PutRequest":{"Item":{"s":{"S":"a\"\\\n\u0001é"}}}}"#
        );
        assert_eq!(
            one("b", AttributeValue::B(Blob::new(vec![0, 1, 2, 255]))),
            r#"{"PutRequest":{"Item":{"b":{"B":"AAEC/w=="}}}}"#
        );
        assert_eq!(one("n", AttributeValue::N("12.50".into())), r#"{"PutRequest":{"Item":{"n":{"N":"12.50"}}}}"#);
        assert_eq!(one("z", AttributeValue::Null(true)), r#"{"PutRequest":{"Item":{"z":{"NULL":true}}}}"#);
        assert_eq!(
            one("l", AttributeValue::L(vec![AttributeValue::Bool(false), AttributeValue::Ns(vec!["1".into()])])),
            r#"{"PutRequest":{"Item":{"l":{"L":[{"BOOL":false},{"NS":["1"]}]}}}}"#
        );
        let json: Value = serde_json::from_str(&one("esc", AttributeValue::S("\u{0}\u{1f}\t\r".into()))).unwrap();
        assert_eq!(json["PutRequest"]["Item"]["esc"]["S"], "\u{0}\u{1f}\t\r");
    }

    #[test]
    fn a_request_body_joins_the_writes_into_what_the_sdk_serialized() {
        let a = Wire::delete(&[("PK".to_owned(), AttributeValue::S("A".into()))].into_iter().collect()).unwrap();
        let b = Wire::put(&[("PK".to_owned(), AttributeValue::S("B".into()))].into_iter().collect()).unwrap();
        let writes = joined([&a, &b].into_iter());
        let sdk = br#"{"RequestItems":{"my-table":[]},"ReturnConsumedCapacity":"INDEXES"}"#;
        let want = r#"{"RequestItems":{"my-table":[{"DeleteRequest":{"Key":{"PK":{"S":"A"}}}},{"PutRequest":{"Item":{"PK":{"S":"B"}}}}]},"ReturnConsumedCapacity":"INDEXES"}"#;
        assert_eq!(String::from_utf8(splice(sdk, "my-table", &writes).unwrap()).unwrap(), want);
        assert_eq!(envelope_len("my-table"), sdk.len());

        // An interceptor of the client set another member and added a write of its own: both
        // are kept, the batch's writes first.
        let changed = br#"{"RequestItems":{"my-table":[{"DeleteRequest":{"Key":{"PK":{"S":"C"}}}}]},"ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}"#;
        let spliced: Value = serde_json::from_slice(&splice(changed, "my-table", &writes).unwrap()).unwrap();
        let want: Value = serde_json::from_str(
            r#"{"RequestItems":{"my-table":[{"DeleteRequest":{"Key":{"PK":{"S":"A"}}}},{"PutRequest":{"Item":{"PK":{"S":"B"}}}},{"DeleteRequest":{"Key":{"PK":{"S":"C"}}}}]},"ReturnConsumedCapacity":"INDEXES","ReturnItemCollectionMetrics":"SIZE"}"#,
        )
        .unwrap();
        assert_eq!(spliced, want);

        assert_eq!(
            splice(br#"{"RequestItems":{}}"#, "my-table", &writes).unwrap_err().to_string(),
            "the serialized BatchWriteItem request has no list of writes for table my-table"
        );
        assert!(splice(b"{", "my-table", &writes).is_err());
    }

    #[test]
    fn bytes_that_are_not_a_write_read_as_nothing() {
        for bytes in [
            &br"{"[..],
            br#"{"PutRequest":{"Item":{"a":{"X":"1"}}}}"#,
            br#"{"PutRequest":{"Item":{"a":{"S":"1","N":"1"}}}}"#,
            br#"{}"#,
        ] {
            assert_eq!(Wire(bytes.to_vec().into_boxed_slice()).request(), None, "{}", String::from_utf8_lossy(bytes));
        }
    }
}

//! Requests rendered without sending: the exact SDK input an operation would send, for
//! debugging and for snapshot tests.
//!
//! Each builder renders its own request, made by the same function that builds the request it
//! sends, so the two cannot drift:
//!
//! | operation | rendered by | gives |
//! |---|---|---|
//! | [`Table::get`], [`Table::put`], [`Table::create`], [`Table::replace`], [`Table::delete`], [`Table::delete_if_version`] | [`Table::render`] ([`Render`](crate::item::Render)) | [`Request`]s |
//! | [`UpdateRequest`](crate::update::UpdateRequest) | [`UpdateRequest::render`](crate::update::UpdateRequest::render) | `UpdateItemInput` |
//! | [`QueryRequest`](crate::query::QueryRequest) | [`QueryRequest::render`](crate::query::QueryRequest::render) | `QueryInput` (the first page) |
//! | [`TransactWrite`](crate::transact::TransactWrite) | [`TransactWrite::render`](crate::transact::TransactWrite::render) | `TransactWriteItemsInput` |
//! | [`TransactGet`](crate::transact::TransactGet) | [`TransactGet::render`](crate::transact::TransactGet::render) | `TransactGetItemsInput` |
//! | [`BatchWrite`](crate::batch::BatchWrite) | [`BatchWrite::render`](crate::batch::BatchWrite::render) | one `BatchWriteItemInput` per 25 writes |
//! | [`BatchGet`](crate::batch::BatchGet), [`BatchGetMixed`](crate::batch::BatchGetMixed) | `render` | one `BatchGetItemInput` per 100 keys |
//! | [`CollectionRequest`](crate::collection::CollectionRequest) | [`CollectionRequest::render`](crate::collection::CollectionRequest::render) | `QueryInput` (the first page) |
//! | [`UniqueUpdate`](crate::unique::UniqueUpdate) | [`UniqueUpdate::render`](crate::unique::UniqueUpdate::render), given the item its read would find | the `GetItem`, then the `TransactWriteItems` |
//!
//! Not rendered: [`Table::get_by_unique`], whose second read depends on what the first returns.
//!
//! [`Request::to_json`] writes any of them as the JSON body DynamoDB receives (its parameter
//! names, attribute values in DynamoDB JSON such as `{"S": "..."}`, binary as base64), with
//! every map's keys sorted, so the text is the same from run to run whatever the order of the
//! `HashMap`s inside: fit for `insta::assert_json_snapshot!`. Legacy parameters that this crate
//! never sets (`Expected`, `AttributeUpdates`, `KeyConditions`, ...) are left out.
//!
//! ```no_run
//! # async fn f<E: dynamo_entity::Entity>(table: dynamo_entity::Table, value: E) -> dynamo_entity::Result<()> {
//! for request in table.render().put(&value)? {
//!     println!("{}", serde_json::to_string_pretty(&request.to_json()).unwrap());
//! }
//! # Ok(())
//! # }
//! ```

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemInput;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsInput;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::{AttributeValue, KeysAndAttributes, TransactGetItem, TransactWriteItem, WriteRequest};
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value};

use crate::error::Error;
#[cfg(doc)]
use crate::schema::Entity;
#[cfg(doc)]
use crate::table::Table;

#[cfg(doc)]
use crate::schema::Item;

/// One request as the SDK would send it.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum Request {
    /// `GetItem`.
    GetItem(GetItemInput),
    /// `PutItem`.
    PutItem(PutItemInput),
    /// `UpdateItem`.
    UpdateItem(UpdateItemInput),
    /// `DeleteItem`.
    DeleteItem(DeleteItemInput),
    /// `Query`.
    Query(QueryInput),
    /// `BatchWriteItem`.
    BatchWriteItem(BatchWriteItemInput),
    /// `BatchGetItem`.
    BatchGetItem(BatchGetItemInput),
    /// `TransactWriteItems`.
    TransactWriteItems(TransactWriteItemsInput),
    /// `TransactGetItems`.
    TransactGetItems(TransactGetItemsInput),
}

macro_rules! conversions {
    ($($variant:ident($input:ty) => $into:ident,)*) => {
        impl Request {
            $(
                #[doc = concat!("The `", stringify!($variant), "` input, if this is one.")]
                pub fn $into(self) -> Option<$input> {
                    match self {
                        Request::$variant(input) => Some(input),
                        _ => None,
                    }
                }
            )*
        }
        $(
            impl From<$input> for Request {
                fn from(input: $input) -> Request {
                    Request::$variant(input)
                }
            }
        )*
    };
}

conversions! {
    GetItem(GetItemInput) => into_get_item,
    PutItem(PutItemInput) => into_put_item,
    UpdateItem(UpdateItemInput) => into_update_item,
    DeleteItem(DeleteItemInput) => into_delete_item,
    Query(QueryInput) => into_query,
    BatchWriteItem(BatchWriteItemInput) => into_batch_write_item,
    BatchGetItem(BatchGetItemInput) => into_batch_get_item,
    TransactWriteItems(TransactWriteItemsInput) => into_transact_write_items,
    TransactGetItems(TransactGetItemsInput) => into_transact_get_items,
}

impl Request {
    /// The DynamoDB operation name, such as `PutItem`.
    pub fn operation(&self) -> &'static str {
        match self {
            Request::GetItem(_) => "GetItem",
            Request::PutItem(_) => "PutItem",
            Request::UpdateItem(_) => "UpdateItem",
            Request::DeleteItem(_) => "DeleteItem",
            Request::Query(_) => "Query",
            Request::BatchWriteItem(_) => "BatchWriteItem",
            Request::BatchGetItem(_) => "BatchGetItem",
            Request::TransactWriteItems(_) => "TransactWriteItems",
            Request::TransactGetItems(_) => "TransactGetItems",
        }
    }

    /// The request as a JSON object `{"operation": "PutItem", "input": {...}}`, where `input` is
    /// the body DynamoDB receives, every map's keys sorted: deterministic, for snapshot tests.
    pub fn to_json(&self) -> Value {
        let input = match self {
            Request::GetItem(i) => get_item(i),
            Request::PutItem(i) => put_item(i),
            Request::UpdateItem(i) => update_item(i),
            Request::DeleteItem(i) => delete_item(i),
            Request::Query(i) => query(i),
            Request::BatchWriteItem(i) => batch_write_item(i),
            Request::BatchGetItem(i) => batch_get_item(i),
            Request::TransactWriteItems(i) => transact_write_items(i),
            Request::TransactGetItems(i) => transact_get_items(i),
        };
        object([("operation", Some(Value::from(self.operation()))), ("input", Some(input))])
    }
}

/// The SDK's input from its builder; a missing required parameter is [`Error::Invalid`] (it
/// cannot happen for the requests this crate builds). Inlined, so that the input (several
/// hundred bytes) is not copied once more on its way out.
#[inline(always)]
pub(crate) fn built<T>(input: Result<T, aws_sdk_dynamodb::error::BuildError>) -> Result<T, Error> {
    input.map_err(|e| Error::Invalid { reason: format!("the request cannot be built: {e}") })
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// JSON

/// An object of the present entries, keys sorted.
fn object<'a>(entries: impl IntoIterator<Item = (&'a str, Option<Value>)>) -> Value {
    let sorted: BTreeMap<&str, Value> = entries.into_iter().filter_map(|(k, v)| Some((k, v?))).collect();
    Value::Object(sorted.into_iter().map(|(k, v)| (k.to_owned(), v)).collect::<Map<String, Value>>())
}

fn sorted<'a, T: 'a>(map: &'a HashMap<String, T>, f: impl Fn(&'a T) -> Value) -> Value {
    let sorted: BTreeMap<&String, &T> = map.iter().collect();
    Value::Object(sorted.into_iter().map(|(k, v)| (k.clone(), f(v))).collect::<Map<String, Value>>())
}

/// An attribute value in DynamoDB JSON.
pub(crate) fn attribute_json(value: &AttributeValue) -> Value {
    let one = |tag: &str, v: Value| object([(tag, Some(v))]);
    match value {
        AttributeValue::S(s) => one("S", Value::from(s.as_str())),
        AttributeValue::N(n) => one("N", Value::from(n.as_str())),
        AttributeValue::B(b) => one("B", Value::from(STANDARD.encode(b.as_ref()))),
        AttributeValue::Bool(b) => one("BOOL", Value::from(*b)),
        AttributeValue::Null(b) => one("NULL", Value::from(*b)),
        AttributeValue::Ss(v) => one("SS", v.iter().map(|s| Value::from(s.as_str())).collect()),
        AttributeValue::Ns(v) => one("NS", v.iter().map(|s| Value::from(s.as_str())).collect()),
        AttributeValue::Bs(v) => one("BS", v.iter().map(|b| Value::from(STANDARD.encode(b.as_ref()))).collect()),
        AttributeValue::L(v) => one("L", v.iter().map(attribute_json).collect()),
        AttributeValue::M(m) => one("M", sorted(m, attribute_json)),
        other => one("UNKNOWN", Value::from(format!("{other:?}"))),
    }
}

/// An item (or key, or map of expression attribute values) in DynamoDB JSON, keys sorted.
pub(crate) fn item_json(item: &HashMap<String, AttributeValue>) -> Value {
    sorted(item, attribute_json)
}

fn s(v: Option<&str>) -> Option<Value> {
    v.map(Value::from)
}
fn item(v: Option<&HashMap<String, AttributeValue>>) -> Option<Value> {
    v.map(item_json)
}
fn names(v: Option<&HashMap<String, String>>) -> Option<Value> {
    v.map(|m| sorted(m, |s| Value::from(s.as_str())))
}
fn enum_str<T: AsRef<str>>(v: Option<&T>) -> Option<Value> {
    v.map(|e| Value::from(e.as_ref()))
}

fn get_item(i: &GetItemInput) -> Value {
    object([
        ("TableName", s(i.table_name())),
        ("Key", item(i.key())),
        ("ConsistentRead", i.consistent_read().map(Value::from)),
        ("ProjectionExpression", s(i.projection_expression())),
        ("ExpressionAttributeNames", names(i.expression_attribute_names())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
    ])
}

fn put_item(i: &PutItemInput) -> Value {
    object([
        ("TableName", s(i.table_name())),
        ("Item", item(i.item())),
        ("ConditionExpression", s(i.condition_expression())),
        ("ExpressionAttributeNames", names(i.expression_attribute_names())),
        ("ExpressionAttributeValues", item(i.expression_attribute_values())),
        ("ReturnValues", enum_str(i.return_values())),
        ("ReturnValuesOnConditionCheckFailure", enum_str(i.return_values_on_condition_check_failure())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
        ("ReturnItemCollectionMetrics", enum_str(i.return_item_collection_metrics())),
    ])
}

fn update_item(i: &UpdateItemInput) -> Value {
    object([
        ("TableName", s(i.table_name())),
        ("Key", item(i.key())),
        ("UpdateExpression", s(i.update_expression())),
        ("ConditionExpression", s(i.condition_expression())),
        ("ExpressionAttributeNames", names(i.expression_attribute_names())),
        ("ExpressionAttributeValues", item(i.expression_attribute_values())),
        ("ReturnValues", enum_str(i.return_values())),
        ("ReturnValuesOnConditionCheckFailure", enum_str(i.return_values_on_condition_check_failure())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
        ("ReturnItemCollectionMetrics", enum_str(i.return_item_collection_metrics())),
    ])
}

fn delete_item(i: &DeleteItemInput) -> Value {
    object([
        ("TableName", s(i.table_name())),
        ("Key", item(i.key())),
        ("ConditionExpression", s(i.condition_expression())),
        ("ExpressionAttributeNames", names(i.expression_attribute_names())),
        ("ExpressionAttributeValues", item(i.expression_attribute_values())),
        ("ReturnValues", enum_str(i.return_values())),
        ("ReturnValuesOnConditionCheckFailure", enum_str(i.return_values_on_condition_check_failure())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
        ("ReturnItemCollectionMetrics", enum_str(i.return_item_collection_metrics())),
    ])
}

fn query(i: &QueryInput) -> Value {
    object([
        ("TableName", s(i.table_name())),
        ("IndexName", s(i.index_name())),
        ("KeyConditionExpression", s(i.key_condition_expression())),
        ("FilterExpression", s(i.filter_expression())),
        ("ProjectionExpression", s(i.projection_expression())),
        ("ExpressionAttributeNames", names(i.expression_attribute_names())),
        ("ExpressionAttributeValues", item(i.expression_attribute_values())),
        ("ScanIndexForward", i.scan_index_forward().map(Value::from)),
        ("Limit", i.limit().map(Value::from)),
        ("ExclusiveStartKey", item(i.exclusive_start_key())),
        ("ConsistentRead", i.consistent_read().map(Value::from)),
        ("Select", enum_str(i.select())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
    ])
}

fn write_request(w: &WriteRequest) -> Value {
    object([
        ("PutRequest", w.put_request().map(|p| object([("Item", Some(item_json(p.item())))]))),
        ("DeleteRequest", w.delete_request().map(|d| object([("Key", Some(item_json(d.key())))]))),
    ])
}

fn batch_write_item(i: &BatchWriteItemInput) -> Value {
    object([
        ("RequestItems", i.request_items().map(|m| sorted(m, |v| v.iter().map(write_request).collect()))),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
        ("ReturnItemCollectionMetrics", enum_str(i.return_item_collection_metrics())),
    ])
}

fn keys_and_attributes(k: &KeysAndAttributes) -> Value {
    object([
        ("Keys", Some(k.keys().iter().map(item_json).collect())),
        ("ConsistentRead", k.consistent_read().map(Value::from)),
        ("ProjectionExpression", s(k.projection_expression())),
        ("ExpressionAttributeNames", names(k.expression_attribute_names())),
    ])
}

fn batch_get_item(i: &BatchGetItemInput) -> Value {
    object([
        ("RequestItems", i.request_items().map(|m| sorted(m, keys_and_attributes))),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
    ])
}

fn transact_write_item(t: &TransactWriteItem) -> Value {
    let on_failure = |v| enum_str(v);
    object([
        (
            "Put",
            t.put().map(|p| {
                object([
                    ("TableName", Some(Value::from(p.table_name()))),
                    ("Item", Some(item_json(p.item()))),
                    ("ConditionExpression", s(p.condition_expression())),
                    ("ExpressionAttributeNames", names(p.expression_attribute_names())),
                    ("ExpressionAttributeValues", item(p.expression_attribute_values())),
                    ("ReturnValuesOnConditionCheckFailure", on_failure(p.return_values_on_condition_check_failure())),
                ])
            }),
        ),
        (
            "Update",
            t.update().map(|u| {
                object([
                    ("TableName", Some(Value::from(u.table_name()))),
                    ("Key", Some(item_json(u.key()))),
                    ("UpdateExpression", Some(Value::from(u.update_expression()))),
                    ("ConditionExpression", s(u.condition_expression())),
                    ("ExpressionAttributeNames", names(u.expression_attribute_names())),
                    ("ExpressionAttributeValues", item(u.expression_attribute_values())),
                    ("ReturnValuesOnConditionCheckFailure", on_failure(u.return_values_on_condition_check_failure())),
                ])
            }),
        ),
        (
            "Delete",
            t.delete().map(|d| {
                object([
                    ("TableName", Some(Value::from(d.table_name()))),
                    ("Key", Some(item_json(d.key()))),
                    ("ConditionExpression", s(d.condition_expression())),
                    ("ExpressionAttributeNames", names(d.expression_attribute_names())),
                    ("ExpressionAttributeValues", item(d.expression_attribute_values())),
                    ("ReturnValuesOnConditionCheckFailure", on_failure(d.return_values_on_condition_check_failure())),
                ])
            }),
        ),
        (
            "ConditionCheck",
            t.condition_check().map(|c| {
                object([
                    ("TableName", Some(Value::from(c.table_name()))),
                    ("Key", Some(item_json(c.key()))),
                    ("ConditionExpression", Some(Value::from(c.condition_expression()))),
                    ("ExpressionAttributeNames", names(c.expression_attribute_names())),
                    ("ExpressionAttributeValues", item(c.expression_attribute_values())),
                    ("ReturnValuesOnConditionCheckFailure", on_failure(c.return_values_on_condition_check_failure())),
                ])
            }),
        ),
    ])
}

fn transact_write_items(i: &TransactWriteItemsInput) -> Value {
    object([
        ("TransactItems", Some(i.transact_items().iter().map(transact_write_item).collect())),
        ("ClientRequestToken", s(i.client_request_token())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
        ("ReturnItemCollectionMetrics", enum_str(i.return_item_collection_metrics())),
    ])
}

fn transact_get_item(t: &TransactGetItem) -> Value {
    object([(
        "Get",
        t.get().map(|g| {
            object([
                ("TableName", Some(Value::from(g.table_name()))),
                ("Key", Some(item_json(g.key()))),
                ("ProjectionExpression", s(g.projection_expression())),
                ("ExpressionAttributeNames", names(g.expression_attribute_names())),
            ])
        }),
    )])
}

fn transact_get_items(i: &TransactGetItemsInput) -> Value {
    object([
        ("TransactItems", Some(i.transact_items().iter().map(transact_get_item).collect())),
        ("ReturnConsumedCapacity", enum_str(i.return_consumed_capacity())),
    ])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_sorted_dynamodb_json() {
        let item: HashMap<String, AttributeValue> = [
            ("b".to_owned(), AttributeValue::N("1".into())),
            ("a".to_owned(), AttributeValue::M([("z".to_owned(), AttributeValue::Bool(true))].into())),
            ("c".to_owned(), AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(b"hi".to_vec()))),
        ]
        .into();
        assert_eq!(
            serde_json::to_string(&item_json(&item)).unwrap(),
            r#"{"a":{"M":{"z":{"BOOL":true}}},"b":{"N":"1"},"c":{"B":"aGk="}}"#
        );
    }
}

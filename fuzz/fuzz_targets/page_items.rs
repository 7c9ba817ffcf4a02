//! The library's reader of an answer's member against the SDK's own deserializer, on the same
//! bytes: a `Query` answer's `Items` (`take_items`), a `GetItem` answer's `Item` and an
//! `UpdateItem` answer's `Attributes` (`take_item`), a `BatchGetItem` answer's `Responses`
//! (`take_batch_responses`) and a `TransactGetItems` answer's (`take_transact_responses`). What a read gets (the member this crate's
//! reader took, and the SDK's reading of the body without it; or, when the reader leaves the
//! body, the SDK's reading of the whole body) must be exactly what the SDK alone makes of the
//! body: the same output (items, counts, `LastEvaluatedKey`, consumed capacity), or an error
//! from both.
//!
//! A page's `Items` are also taken as JSON (`take_raw_items`) and read as the page reads them,
//! one item after the other into one reused map: the items must be the same, and the JSON
//! reader must leave to the SDK exactly the bodies the eager one leaves.
#![no_main]

use std::collections::HashMap;
use std::fmt::Debug;

use aws_sdk_dynamodb::operation::batch_get_item::{BatchGetItem, BatchGetItemOutput};
use aws_sdk_dynamodb::operation::get_item::{GetItem, GetItemOutput};
use aws_sdk_dynamodb::operation::query::{Query, QueryOutput};
use aws_sdk_dynamodb::operation::transact_get_items::{TransactGetItems, TransactGetItemsOutput};
use aws_sdk_dynamodb::operation::update_item::{UpdateItem, UpdateItemOutput};
use aws_smithy_runtime_api::client::runtime_plugin::RuntimePlugin;
use aws_smithy_runtime_api::client::ser_de::{DeserializeResponse, SharedResponseDeserializer};
use aws_smithy_runtime_api::http::{Response, StatusCode};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::ConfigBag;
use bytes::Bytes;
use dynamo_entity::__private::{
    Malformed, RawItems, Taken, take_batch_responses, take_item, take_items, take_raw_items, take_transact_responses,
};
use libfuzzer_sys::fuzz_target;

/// The SDK's reading of `body`, a 200 answer to the operation `operation` (its runtime plugin).
fn sdk<O: Debug + Send + Sync + 'static>(operation: &impl RuntimePlugin, body: &[u8]) -> Option<O> {
    let layer = operation.config().expect("the operation's configuration");
    let deserializer = layer.load::<SharedResponseDeserializer>().expect("the operation's deserializer");
    let status = StatusCode::try_from(200).expect("200 is a status");
    let response = Response::new(status, SdkBody::from(body.to_vec()));
    let output = deserializer.deserialize_nonstreaming_with_config(&response, &ConfigBag::base()).ok()?;
    Some(output.downcast::<O>().expect("the operation's output"))
}

/// Compares, for `body`, the SDK alone with the reader's `taken` and the SDK's reading of the
/// rest; `member` is the output's field the reader fills.
fn compare<O, T>(
    operation: &impl RuntimePlugin,
    body: &[u8],
    taken: Result<Option<Taken<T>>, Malformed>,
    member: impl Fn(&mut O) -> &mut Option<T>,
) where
    O: Debug + PartialEq + Clone + Send + Sync + 'static,
    T: Debug,
{
    let alone = sdk::<O>(operation, body);
    let through_reader = match taken {
        Ok(Some(taken)) => sdk::<O>(operation, &taken.rest).map(|mut out| {
            assert!(member(&mut out).is_none(), "the body without the member has none");
            *member(&mut out) = Some(taken.value);
            out
        }),
        Ok(None) | Err(_) => alone.clone(),
    };
    assert_eq!(through_reader, alone);
}

/// The items of `raw` as a page reads them: each into the one map, a copy of the map after each.
fn read_in_turn(raw: &RawItems) -> Vec<HashMap<String, aws_sdk_dynamodb::types::AttributeValue>> {
    let mut reader = raw.reader().expect("a list taken from a checked body is UTF-8");
    let (mut map, mut items) = (HashMap::new(), Vec::new());
    while reader.next_into(&mut map).expect("an item the check let through reads") {
        items.push(map.clone());
    }
    assert_eq!(items.len(), raw.len(), "as many items as the check counted");
    items
}

fuzz_target!(|data: &[u8]| {
    let eager = take_items(data);
    let body = Bytes::copy_from_slice(data);
    let raw = take_raw_items(&body);
    // The same bodies read, the same left to the SDK.
    assert_eq!(raw.as_ref().map(Option::is_some).map_err(|_| ()), eager.as_ref().map(Option::is_some).map_err(|_| ()));
    let raw = raw.map(|taken| {
        taken.map(|t| {
            let items = read_in_turn(&t.value);
            assert_eq!(t.value.to_items().as_ref(), Ok(&items));
            Taken { value: items, rest: t.rest }
        })
    });
    if let (Ok(Some(raw)), Ok(Some(eager))) = (&raw, &eager) {
        assert_eq!(raw, eager);
    }
    compare::<QueryOutput, _>(&Query::new(), data, raw, |o| &mut o.items);
    compare::<QueryOutput, _>(&Query::new(), data, eager, |o| &mut o.items);
    compare::<GetItemOutput, _>(&GetItem::new(), data, take_item(data, "Item"), |o| &mut o.item);
    compare::<UpdateItemOutput, _>(&UpdateItem::new(), data, take_item(data, "Attributes"), |o| &mut o.attributes);
    compare::<BatchGetItemOutput, _>(&BatchGetItem::new(), data, take_batch_responses(data), |o| &mut o.responses);
    let transact = take_transact_responses(data);
    compare::<TransactGetItemsOutput, _>(&TransactGetItems::new(), data, transact, |o| &mut o.responses);
});

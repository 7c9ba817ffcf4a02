//! The library's reader of an answer's `Items` (`take_items`) against the SDK's own
//! deserializer of a `Query` answer, on the same bytes: what a page read gets (the items this
//! crate's reader took, and the SDK's reading of the body without them; or, when the reader
//! leaves the body, the SDK's reading of the whole body) must be exactly what the SDK alone
//! makes of the body: the same output (items, counts, `LastEvaluatedKey`, consumed capacity),
//! or an error from both.
#![no_main]

use aws_sdk_dynamodb::operation::query::{Query, QueryOutput};
use aws_smithy_runtime_api::client::runtime_plugin::RuntimePlugin;
use aws_smithy_runtime_api::client::ser_de::{DeserializeResponse, SharedResponseDeserializer};
use aws_smithy_runtime_api::http::{Response, StatusCode};
use aws_smithy_types::body::SdkBody;
use aws_smithy_types::config_bag::ConfigBag;
use dynamo_entity::__private::take_items;
use libfuzzer_sys::fuzz_target;

/// The SDK's reading of `body`, a 200 answer to a `Query`.
fn sdk(body: &[u8]) -> Option<QueryOutput> {
    let layer = Query::new().config().expect("the Query operation's configuration");
    let deserializer = layer.load::<SharedResponseDeserializer>().expect("the Query operation's deserializer");
    let status = StatusCode::try_from(200).expect("200 is a status");
    let response = Response::new(status, SdkBody::from(body.to_vec()));
    let output = deserializer.deserialize_nonstreaming_with_config(&response, &ConfigBag::base()).ok()?;
    Some(output.downcast::<QueryOutput>().expect("a Query's output"))
}

fuzz_target!(|data: &[u8]| {
    let alone = sdk(data);
    let through_reader = match take_items(data) {
        Ok(Some(taken)) => sdk(&taken.rest).map(|mut out| {
            assert_eq!(out.items, None, "the body without Items has no items");
            out.items = Some(taken.items);
            out
        }),
        Ok(None) | Err(_) => alone.clone(),
    };
    assert_eq!(through_reader, alone);
});

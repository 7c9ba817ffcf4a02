//! The same decoders on bytes parsed as DynamoDB JSON (`{"PK": {"S": "..."}}`, the form of
//! exports, the CLI and stream records), through serde_dynamo: one item, a list of items (a
//! collection), and a Lambda DynamoDB stream record decoded with `Change::<AnyItem>::from_lambda`.
#![no_main]

use aws_lambda_events::event::dynamodb::EventRecord;
use dynamo_entity::stream::Change;
use dynamo_entity_examples::skill_exchange::AnyItem;
use dynamo_entity_fuzz::{decode_everything, items_from_json};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(item) = serde_json::from_slice::<serde_dynamo::Item>(data) {
        decode_everything(&items_from_json(vec![item]));
    }
    if let Ok(items) = serde_json::from_slice::<Vec<serde_dynamo::Item>>(data) {
        decode_everything(&items_from_json(items));
    }
    if let Ok(record) = serde_json::from_slice::<EventRecord>(data) {
        match Change::<AnyItem>::from_lambda(&record) {
            Ok(change) => {
                let _ = format!("{change:?}");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});

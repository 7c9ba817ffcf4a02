//! Shared set-up of the integration tests: one DynamoDB Local per run (from
//! `DYNAMODB_ENDPOINT`, or started by the harness), one fresh table per test.

#![allow(dead_code)]

use dynamo_entity::local::{LocalDynamoDb, unique_table_name};
use dynamo_entity::{EntitySchema, Table};

/// A new, empty table named after the test, created for `entities`.
pub async fn table(test: &str, entities: &[&'static EntitySchema]) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table(entities).await.expect("the table is created");
    table
}

/// The raw item stored under `pk` / `sk`, read with the SDK alone.
pub async fn raw_item(table: &Table, pk: &str, sk: &str) -> Option<dynamo_entity::Item> {
    use aws_sdk_dynamodb::types::AttributeValue;
    table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S(pk.to_owned()))
        .key("SK", AttributeValue::S(sk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .expect("GetItem succeeds")
        .item
}

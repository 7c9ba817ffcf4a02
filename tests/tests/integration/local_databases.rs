//! DynamoDB Local keeps one database per access key id and region (neither
//! `scripts/dynamodb-local` nor `dynamo_entity_local` starts it with `-sharedDb`):
//! `LocalDynamoDb::client_builder` chooses the database a client sees.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::error::ProvideErrorMetadata;
use aws_sdk_dynamodb::types::{
    AttributeDefinition, AttributeValue, BillingMode, KeySchemaElement, KeyType, ScalarAttributeType,
};
use dynamo_entity_local::{DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION, LocalDynamoDb, unique_table_name};

/// An access key id (letters and digits only) that no other test, nor an earlier run against
/// the same server, uses: its database starts empty.
fn fresh_access_key_id(tag: &str) -> String {
    let nanos = SystemTime::now().duration_since(UNIX_EPOCH).unwrap().as_nanos();
    format!("{tag}{}x{nanos}", std::process::id())
}

async fn create_table(client: &Client, name: &str) {
    client
        .create_table()
        .table_name(name)
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("PK").attribute_type(ScalarAttributeType::S).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("PK").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(BillingMode::PayPerRequest)
        .send()
        .await
        .unwrap();
}

/// Every table of the client's database, in ListTables order (by name).
async fn table_names(client: &Client) -> Vec<String> {
    let mut names = Vec::new();
    let mut start = None;
    loop {
        let page = client.list_tables().set_exclusive_start_table_name(start).send().await.unwrap();
        names.extend(page.table_names().iter().cloned());
        start = page.last_evaluated_table_name().map(str::to_owned);
        if start.is_none() {
            return names;
        }
    }
}

/// The error code DescribeTable answers with, or `None` when the table exists.
async fn describe_error(client: &Client, name: &str) -> Option<String> {
    client.describe_table().table_name(name).send().await.err().map(|e| e.code().unwrap_or("no code").to_owned())
}

async fn put(client: &Client, table: &str, pk: &str, owner: &str) {
    client
        .put_item()
        .table_name(table)
        .item("PK", AttributeValue::S(pk.to_owned()))
        .item("owner", AttributeValue::S(owner.to_owned()))
        .send()
        .await
        .unwrap();
}

async fn get(client: &Client, table: &str, pk: &str) -> Option<HashMap<String, AttributeValue>> {
    client.get_item().table_name(table).key("PK", AttributeValue::S(pk.to_owned())).send().await.unwrap().item
}

fn item(pk: &str, owner: &str) -> HashMap<String, AttributeValue> {
    HashMap::from([
        ("PK".to_owned(), AttributeValue::S(pk.to_owned())),
        ("owner".to_owned(), AttributeValue::S(owner.to_owned())),
    ])
}

#[tokio::test]
async fn two_access_keys_see_two_databases() {
    let server = LocalDynamoDb::shared().await.unwrap();
    let (key_a, key_b) = (fresh_access_key_id("a"), fresh_access_key_id("b"));
    let a = server.client_builder().access_key_id(&key_a).build().unwrap();
    let b = server.client_builder().access_key_id(&key_b).build().unwrap();
    assert_eq!(a.config().region().map(|r| r.as_ref().to_owned()), Some(DEFAULT_REGION.to_owned()));
    let name = unique_table_name("databases");

    // A table created with key A exists for A only.
    create_table(&a, &name).await;
    assert_eq!(table_names(&a).await, vec![name.clone()]);
    assert_eq!(describe_error(&a, &name).await, None);
    assert_eq!(table_names(&b).await, Vec::<String>::new());
    assert_eq!(describe_error(&b, &name).await.as_deref(), Some("ResourceNotFoundException"));
    // Nor does the shared database of `LocalDynamoDb::client` (key `dynamoentitylocal`) have it.
    assert_eq!(DEFAULT_ACCESS_KEY_ID, "dynamoentitylocal");
    assert_eq!(describe_error(&server.client(), &name).await.as_deref(), Some("ResourceNotFoundException"));
    // The same key in another region is another database again.
    let a_west = server.client_builder().access_key_id(&key_a).region("eu-west-1").build().unwrap();
    assert_eq!(a_west.config().region().map(|r| r.as_ref().to_owned()), Some("eu-west-1".to_owned()));
    assert_eq!(table_names(&a_west).await, Vec::<String>::new());
    assert_eq!(describe_error(&a_west, &name).await.as_deref(), Some("ResourceNotFoundException"));

    // Key B creates a table of the same name: two tables, each with its own items.
    create_table(&b, &name).await;
    assert_eq!(table_names(&b).await, vec![name.clone()]);
    put(&a, &name, "k", "written with key A").await;
    put(&b, &name, "k", "written with key B").await;
    assert_eq!(get(&a, &name, "k").await, Some(item("k", "written with key A")));
    assert_eq!(get(&b, &name, "k").await, Some(item("k", "written with key B")));
    // The database belongs to the key and region, not to the client: a new client with key A
    // reads A's item.
    let a_again = server.client_builder().access_key_id(&key_a).build().unwrap();
    assert_eq!(get(&a_again, &name, "k").await, Some(item("k", "written with key A")));

    // Deleting A's table leaves B's.
    a.delete_table().table_name(&name).send().await.unwrap();
    assert_eq!(table_names(&a).await, Vec::<String>::new());
    assert_eq!(get(&b, &name, "k").await, Some(item("k", "written with key B")));
    b.delete_table().table_name(&name).send().await.unwrap();
    assert_eq!(table_names(&b).await, Vec::<String>::new());
}

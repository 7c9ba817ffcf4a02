//! What a fresh database of the embedded engine costs a test: `dynamo_entity_local::embedded()`
//! (a new in-memory Dynoxide database served on a new port of `127.0.0.1` in this process) and
//! the client's first request, 1,000 times in a loop, each client dropped (its server stopped)
//! before the next. Goal: under 5 ms a client.
//!
//! `cargo bench -p dynamo-entity-examples --bench embedded_clients` (1,000 clients);
//! `-- --quick` makes 100 (CI: checks that it runs and that every database starts empty).

use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{AttributeDefinition, KeySchemaElement, KeyType, ScalarAttributeType};

/// A client of a fresh database, and its first request, which must find no table.
async fn fresh_client_and_first_request() -> aws_sdk_dynamodb::Client {
    let client = dynamo_entity_local::embedded().expect("the embedded engine starts");
    let tables = client.list_tables().send().await.expect("ListTables succeeds");
    assert!(tables.table_names().is_empty(), "a fresh database has no table: {:?}", tables.table_names());
    client
}

fn per_client(total: Duration, n: u32) -> f64 {
    total.as_secs_f64() * 1000.0 / f64::from(n)
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick" || a == "--test");
    let n: u32 = if quick { 100 } else { 1_000 };

    // The first client builds the engine's runtime; not counted.
    drop(fresh_client_and_first_request().await);

    // A table made in one database is not in the next one.
    let first = fresh_client_and_first_request().await;
    first
        .create_table()
        .table_name("notes")
        .attribute_definitions(
            AttributeDefinition::builder().attribute_name("PK").attribute_type(ScalarAttributeType::S).build().unwrap(),
        )
        .key_schema(KeySchemaElement::builder().attribute_name("PK").key_type(KeyType::Hash).build().unwrap())
        .billing_mode(aws_sdk_dynamodb::types::BillingMode::PayPerRequest)
        .send()
        .await
        .expect("CreateTable succeeds");
    assert_eq!(first.list_tables().send().await.unwrap().table_names(), ["notes"]);
    drop(fresh_client_and_first_request().await);
    drop(first);

    let started = Instant::now();
    for _ in 0..n {
        let client = dynamo_entity_local::embedded().expect("the embedded engine starts");
        drop(client);
    }
    let create_only = started.elapsed();

    let started = Instant::now();
    for _ in 0..n {
        drop(fresh_client_and_first_request().await);
    }
    let with_request = started.elapsed();

    let ms = per_client(with_request, n);
    println!(
        "embedded_clients: {n} clients, each a fresh database: {:.3} ms a client to create, {ms:.3} ms with its first request (ListTables); goal under 5 ms",
        per_client(create_only, n),
    );
    println!("ratio per_client_vs_goal={:.3}", ms / 5.0);
}

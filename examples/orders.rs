//! Orders end to end: creates the table, loads a generated data set, runs every access pattern
//! against DynamoDB (a user's orders newest first 20 a page, order lookup by id, user by e-mail
//! through GSI1, create-if-absent, checkout in one transaction with the order counter) and the
//! stream handler that confirms new orders, checking each answer. Exits non-zero on any
//! mismatch.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local itself.
//!
//! ```text
//! cargo run --release -p dynamo-entity-examples --example orders [-- --small | --design]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use dynamo_entity::Table;
use dynamo_entity_examples::orders::{self, Dataset, PatternReport, Sizes};
use dynamo_entity_local::LocalDynamoDb;

const TABLE: &str = "orders";

/// Where the example's design document lives.
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/orders/DESIGN.md");

fn print(r: &PatternReport) {
    println!("{:<70} {:>6} items {:>10.1} ms", r.name, r.items, r.micros as f64 / 1000.0);
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    // `--design`: write the design document (access patterns, indexes) and stop.
    if std::env::args().any(|a| a == "--design") {
        let doc = orders::design_markdown()?;
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/orders"))?;
        std::fs::write(DESIGN, doc)?;
        println!("wrote {DESIGN}");
        return Ok(());
    }
    let small = std::env::args().any(|a| a == "--small");
    let sizes = if small { Sizes::SMALL } else { Sizes::FULL };
    let started = Instant::now();
    let server = LocalDynamoDb::shared().await?;
    println!("DynamoDB at {}", server.endpoint());
    let table = Table::new(server.client(), TABLE);

    // Start from an empty table on every run.
    let _ = table.delete_table().await;
    table.create_table_from(&orders::layout()?).await?;
    println!("created table {TABLE} (PK/SK, GSI1, GSI2, on-demand)");

    let data = Dataset::generate(4, sizes);
    println!("data set: {} users, {} products, {} orders", data.users.len(), data.products.len(), data.orders.len());
    println!();
    println!("{:<70} {:>12} {:>13}", "access pattern", "answer", "time");
    print(&orders::scenario::load(&table, &data, 16).await?);
    let reports = orders::run(&table, &server.streams_client(), &data).await?;
    for r in &reports {
        print(r);
    }
    println!();
    println!("all {} access patterns answered as expected in {:.1} s", reports.len(), started.elapsed().as_secs_f64());
    Ok(())
}

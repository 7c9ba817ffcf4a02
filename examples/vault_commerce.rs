//! Vault Commerce end to end: creates the table, loads a generated data set, runs every access
//! pattern against DynamoDB (the account page in one Query, login by e-mail through GSI1, who
//! wishes a product through the inverted index, renames that reach every order) and checks each
//! answer. Exits non-zero on any mismatch.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local itself.
//!
//! ```text
//! cargo run --release -p dynamo-entity-examples --example vault_commerce [-- --small | --design]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use dynamo_entity::Table;
use dynamo_entity_examples::vault_commerce::{self, Dataset, PatternReport, Sizes};
use dynamo_entity_local::LocalDynamoDb;

const TABLE: &str = "vault-commerce";

/// Where the example's design document lives.
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/vault_commerce/DESIGN.md");

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
        let doc = vault_commerce::design_markdown()?;
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/vault_commerce"))?;
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
    table.create_table_from(&vault_commerce::layout()?).await?;
    println!("created table {TABLE} (PK/SK, GSI1, the inverted index SK/PK, on-demand)");

    let data = Dataset::generate(7, sizes);
    println!(
        "data set: {} users, {} products, {} orders, {} wishlist items",
        data.users.len(),
        data.products.len(),
        data.orders.len(),
        data.wishes.len()
    );
    println!();
    println!("{:<70} {:>12} {:>13}", "access pattern", "answer", "time");
    print(&vault_commerce::scenario::load(&table, &data, 16).await?);
    let reports = vault_commerce::run(&table, &data).await?;
    for r in &reports {
        print(r);
    }
    println!();
    println!("all {} access patterns answered as expected in {:.1} s", reports.len(), started.elapsed().as_secs_f64());
    Ok(())
}

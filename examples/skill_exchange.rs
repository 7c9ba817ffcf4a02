//! Skill Exchange end to end: creates the table, loads a generated data set, runs every access
//! pattern against DynamoDB and checks each answer. Exits non-zero on any mismatch.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local itself.
//!
//! ```text
//! cargo run --release -p dynamo-entity-examples --example skill_exchange [-- --small]
//! ```

use std::process::ExitCode;
use std::time::Instant;

use dynamo_entity::Table;
use dynamo_entity_examples::skill_exchange::{self, Dataset, PatternReport, Sizes};
use dynamo_entity_local::LocalDynamoDb;

const TABLE: &str = "skill-exchange";

fn print(r: &PatternReport) {
    println!("{:<56} {:>6} items {:>10.1} ms", r.name, r.items, r.micros as f64 / 1000.0);
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

/// Where the example's design document lives.
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skill_exchange/DESIGN.md");
/// Where the example's NoSQL Workbench data model lives.
const WORKBENCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skill_exchange/skill_exchange.workbench.json");

async fn run() -> Result<(), Box<dyn std::error::Error>> {
    // `--design`: write the design document (access patterns, indexes) and the NoSQL Workbench
    // data model, and stop.
    if std::env::args().any(|a| a == "--design") {
        let doc = skill_exchange::design_markdown()?;
        std::fs::create_dir_all(concat!(env!("CARGO_MANIFEST_DIR"), "/skill_exchange"))?;
        std::fs::write(DESIGN, doc)?;
        println!("wrote {DESIGN}");
        let model = serde_json::to_string_pretty(&skill_exchange::workbench_json()?)? + "\n";
        std::fs::write(WORKBENCH, model)?;
        println!("wrote {WORKBENCH}");
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
    table.create_table_from(&<skill_exchange::SkillExchange as dynamo_entity::TableDef>::layout()?).await?;
    println!("created table {TABLE} (PK/SK, GSI1-GSI5, on-demand)");

    let data = Dataset::generate(42, sizes);
    println!(
        "data set: {} users, {} skills, {} reviews, {} purchases, {} coupons, {} badges",
        data.users.len(),
        data.skills.len(),
        data.reviews.len(),
        data.purchases.len(),
        data.coupons.len(),
        data.badges.len()
    );
    println!();
    println!("{:<56} {:>12} {:>13}", "access pattern", "answer", "time");
    print(&skill_exchange::scenario::load(&table, &data, 32).await?);
    let reports = skill_exchange::run(&table, &data).await?;
    for r in &reports {
        print(r);
    }
    println!();
    println!("all {} access patterns answered as expected in {:.1} s", reports.len(), started.elapsed().as_secs_f64());
    Ok(())
}

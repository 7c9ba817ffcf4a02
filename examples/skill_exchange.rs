//! Skill Exchange end to end: creates the table, loads a generated data set, runs every access
//! pattern against DynamoDB and checks each answer. Exits non-zero on any mismatch.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local itself.
//!
//! ```text
//! cargo run --release -p dynamo-entity-examples --example skill_exchange [-- --small | --design]
//! ```

use std::process::ExitCode;

use dynamo_entity::Table;
use dynamo_entity::schema::TableLayout;
use dynamo_entity_examples::runner::{self, BoxError, Example};
use dynamo_entity_examples::skill_exchange::{self, Dataset, Mismatch, PatternReport, Sizes};
use dynamo_entity_local::LocalDynamoDb;

/// Where the example's design document lives.
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skill_exchange/DESIGN.md");
/// Where the example's design page lives.
const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skill_exchange/DESIGN.html");
/// Where the example's NoSQL Workbench data model lives.
const WORKBENCH: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/skill_exchange/skill_exchange.workbench.json");

/// Skill Exchange as the shared runner runs it.
struct App;

impl Example for App {
    const TABLE: &'static str = "skill-exchange";
    const SHAPE: &'static str = "PK/SK, GSI1-GSI5, on-demand";
    const WIDTH: usize = 56;
    type Data = Dataset;

    /// The design document (access patterns, indexes), the NoSQL Workbench data model and the design page.
    fn design() -> Result<Vec<(&'static str, String)>, BoxError> {
        let doc = skill_exchange::design_markdown()?;
        let model = serde_json::to_string_pretty(&skill_exchange::workbench_json()?)? + "\n";
        Ok(vec![(DESIGN, doc), (WORKBENCH, model), (PAGE, skill_exchange::design_html()?)])
    }

    fn layout() -> Result<TableLayout, dynamo_entity::Error> {
        <skill_exchange::SkillExchange as dynamo_entity::TableDef>::layout()
    }

    fn data(small: bool) -> Dataset {
        Dataset::generate(42, if small { Sizes::SMALL } else { Sizes::FULL })
    }

    fn summary(data: &Dataset) -> String {
        format!(
            "{} users, {} skills, {} reviews, {} purchases, {} coupons, {} badges",
            data.users.len(),
            data.skills.len(),
            data.reviews.len(),
            data.purchases.len(),
            data.coupons.len(),
            data.badges.len()
        )
    }

    async fn load(table: &Table, data: &Dataset) -> Result<PatternReport, Mismatch> {
        skill_exchange::scenario::load(table, data, 32).await
    }

    async fn run(_: &LocalDynamoDb, table: &Table, data: &Dataset) -> Result<Vec<PatternReport>, Mismatch> {
        let mut reports = skill_exchange::run(table, data).await?;
        // After launch: "a user's reviews, newest first" on a new GSI6, brought to the loaded
        // table by the migration runner (skill_exchange::migration).
        let migration = skill_exchange::migration::run(table, data).await?;
        for status in &migration.after {
            println!("migration {status}");
        }
        reports.push(migration.pattern);
        Ok(reports)
    }
}

fn main() -> ExitCode {
    runner::main::<App>()
}

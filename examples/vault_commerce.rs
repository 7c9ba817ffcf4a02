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

use dynamo_entity::Table;
use dynamo_entity::schema::TableLayout;
use dynamo_entity_examples::runner::{self, BoxError, Example};
use dynamo_entity_examples::vault_commerce::{self, Dataset, Mismatch, PatternReport, Sizes};
use dynamo_entity_local::LocalDynamoDb;

/// Where the example's design document lives.
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/vault_commerce/DESIGN.md");
/// Where the example's design page lives.
const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/vault_commerce/DESIGN.html");

/// Vault Commerce as the shared runner runs it.
struct App;

impl Example for App {
    const TABLE: &'static str = "vault-commerce";
    const SHAPE: &'static str = "PK/SK, GSI1, the inverted index SK/PK, on-demand";
    const WIDTH: usize = 70;
    type Data = Dataset;

    /// The design document (access patterns, indexes) and the design page.
    fn design() -> Result<Vec<(&'static str, String)>, BoxError> {
        Ok(vec![(DESIGN, vault_commerce::design_markdown()?), (PAGE, vault_commerce::design_html()?)])
    }

    fn layout() -> Result<TableLayout, dynamo_entity::Error> {
        vault_commerce::layout()
    }

    fn data(small: bool) -> Dataset {
        Dataset::generate(7, if small { Sizes::SMALL } else { Sizes::FULL })
    }

    fn summary(data: &Dataset) -> String {
        format!(
            "{} users, {} products, {} orders, {} wishlist items",
            data.users.len(),
            data.products.len(),
            data.orders.len(),
            data.wishes.len()
        )
    }

    async fn load(table: &Table, data: &Dataset) -> Result<PatternReport, Mismatch> {
        vault_commerce::scenario::load(table, data, 16).await
    }

    async fn run(_: &LocalDynamoDb, table: &Table, data: &Dataset) -> Result<Vec<PatternReport>, Mismatch> {
        vault_commerce::run(table, data).await
    }
}

fn main() -> ExitCode {
    runner::main::<App>()
}

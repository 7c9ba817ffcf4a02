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

use dynamo_entity::Table;
use dynamo_entity::schema::TableLayout;
use dynamo_entity_examples::orders::{self, Dataset, Mismatch, PatternReport, Sizes};
use dynamo_entity_examples::runner::{self, BoxError, Example};
use dynamo_entity_local::LocalDynamoDb;

/// Where the example's design document lives.
const DESIGN: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/orders/DESIGN.md");
/// Where the example's design page lives.
const PAGE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/orders/DESIGN.html");

/// Orders as the shared runner runs it.
struct App;

impl Example for App {
    const TABLE: &'static str = "orders";
    const SHAPE: &'static str = "PK/SK, GSI1, GSI2, on-demand";
    const WIDTH: usize = 70;
    type Data = Dataset;

    /// The design document (access patterns, indexes) and the design page.
    fn design() -> Result<Vec<(&'static str, String)>, BoxError> {
        Ok(vec![(DESIGN, orders::design_markdown()?), (PAGE, orders::design_html()?)])
    }

    fn layout() -> Result<TableLayout, dynamo_entity::Error> {
        orders::layout()
    }

    fn data(small: bool) -> Dataset {
        Dataset::generate(4, if small { Sizes::SMALL } else { Sizes::FULL })
    }

    fn summary(data: &Dataset) -> String {
        format!("{} users, {} products, {} orders", data.users.len(), data.products.len(), data.orders.len())
    }

    async fn load(table: &Table, data: &Dataset) -> Result<PatternReport, Mismatch> {
        orders::scenario::load(table, data, 16).await
    }

    /// The access patterns, then the stream handler on the table's stream.
    async fn run(server: &LocalDynamoDb, table: &Table, data: &Dataset) -> Result<Vec<PatternReport>, Mismatch> {
        orders::run(table, &server.streams_client(), data).await
    }
}

fn main() -> ExitCode {
    runner::main::<App>()
}

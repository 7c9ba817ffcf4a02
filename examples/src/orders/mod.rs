//! Orders: users, products and orders on one DynamoDB table, with a DynamoDB Streams handler
//! for new orders, after the write-up in `/work/shared/seeds/004_fca20cf2a3c23bd2.txt`.
//!
//! | entity | PK | SK | indexes |
//! |---|---|---|---|
//! | [`User`] | `USER#<id>` | `PROFILE` | GSI1 `EMAIL#<email>` / `USER#<id>` (user by e-mail) |
//! | [`Order`] | `ORDER#<id>` | `DETAILS` | GSI2 `USER#<user_id>` / `<created_at>` (a user's orders by date) |
//! | [`Product`] | `PRODUCT#<id>` | `DETAILS` | |
//!
//! An order is one item: found by id with a `GetItem` (strongly consistent, right after
//! checkout), and listed by user, newest first, through GSI2. Placing an order is one
//! transaction: the order, only if its id is new, and one more on the user's `order_count`. A
//! stream handler ([`scenario::handle_records`]) decodes the table's stream records by entity
//! type and confirms each new order.

pub mod data;
pub mod model;
pub mod scenario;

pub use data::{Dataset, Sizes};
pub use model::*;
pub use scenario::{Mismatch, PatternReport, run};

/// Every entity of the table, as [`Orders`] declares them.
pub fn schemas() -> Vec<&'static dynamo_entity::schema::EntitySchema> {
    use dynamo_entity::TableDef;
    Orders::ENTITIES.to_vec()
}

/// The table as [`Orders`] declares it, for
/// [`Table::create_table_from`](dynamo_entity::Table::create_table_from).
///
/// # Errors
/// When the declaration and the entities disagree (checked at compile time too).
pub fn layout() -> Result<dynamo_entity::schema::TableLayout, dynamo_entity::Error> {
    use dynamo_entity::TableDef;
    Orders::layout()
}

/// The table's design document: key attributes, entities, the access-pattern matrix and a
/// Mermaid diagram (`examples/orders/DESIGN.md`; a test fails when it is stale).
///
/// # Errors
/// When the declaration and the entities disagree.
pub fn design_markdown() -> Result<String, dynamo_entity::Error> {
    Ok(layout()?.markdown("Orders"))
}

/// The sample items of the design page: the first two users of the data set of seed 11, up to
/// three orders of each, and the products those orders hold.
///
/// # Errors
/// When a sample cannot be encoded.
pub fn workbench_model() -> Result<dynamo_entity::design::workbench::WorkbenchModel, dynamo_entity::Error> {
    use dynamo_entity::design::workbench::WorkbenchModel;
    let data = Dataset::generate(11, Sizes::SMALL);
    let users: Vec<&User> = data.users.iter().take(2).collect();
    let orders: Vec<&Order> =
        users.iter().flat_map(|u| data.orders.iter().filter(|o| o.user_id == u.id).take(3)).collect();
    let products = data.products.iter().filter(|p| orders.iter().any(|o| o.lines.iter().any(|l| l.product == p.id)));
    WorkbenchModel::new("Orders", "orders")
        .author("dynamo-entity")
        .dated(data::base_time())
        .samples(users.iter().copied())?
        .samples(orders.iter().copied())?
        .samples(products)
}

/// The table's design page (`examples/orders/DESIGN.html`; a test fails when it is stale, and
/// the browser test renders it), drawn from the samples of [`workbench_model`].
///
/// # Errors
/// When the declaration and the entities disagree or a sample cannot be encoded.
pub fn design_html() -> Result<String, dynamo_entity::Error> {
    Ok(layout()?.html("Orders", workbench_model()?.items()))
}

//! Vault Commerce: an order microservice on one DynamoDB table (users, orders, wishlists and
//! products), after the write-up in `/work/shared/seeds/002_1f76cf4367ac7bc7.txt`.
//!
//! | entity | PK | SK | indexes |
//! |---|---|---|---|
//! | [`User`] | `USER#<id>` | `PROFILE` | GSI1 `EMAIL#<email>` / `USER#<id>` (login by e-mail) |
//! | [`Order`] | `USER#<user_id>` | `ORDER#<order_id>` | GSI1 `STATUS#<status>` / `<created_at>` (orders by status) |
//! | [`WishlistItem`] | `USER#<user_id>` | `WISHLIST#<sku>` | the inverted index (who wishes a product) |
//! | [`Product`] | `PRODUCT#<sku>` | `METADATA` | |
//!
//! The account page (profile, orders, wishlist) is one Query of the user's partition
//! ([`AccountPage`]). A wishlist is an adjacency list between users and products: one item per
//! wished product, in the user's partition and keyed on the product, read from the product's
//! end through the inverted index (`SK = WISHLIST#<sku>`, sorted by `PK`). GSI1 is overloaded:
//! users are keyed on their e-mail, orders on their status. The customer's name is copied onto
//! every order; a rename reaches the orders in one transaction, or through a reconcile pass
//! when they are too many for one (see [`scenario::rename_customer`]).

pub mod data;
pub mod model;
pub mod scenario;

pub use data::{Dataset, Sizes};
pub use model::*;
pub use scenario::{Mismatch, PatternReport, Propagation, run};

/// Every entity of the table, as [`VaultCommerce`] declares them.
pub fn schemas() -> Vec<&'static dynamo_entity::schema::EntitySchema> {
    use dynamo_entity::TableDef;
    VaultCommerce::ENTITIES.to_vec()
}

/// The table as [`VaultCommerce`] declares it, for
/// [`Table::create_table_from`](dynamo_entity::Table::create_table_from).
///
/// # Errors
/// When the declaration and the entities disagree (checked at compile time too).
pub fn layout() -> Result<dynamo_entity::schema::TableLayout, dynamo_entity::Error> {
    use dynamo_entity::TableDef;
    VaultCommerce::layout()
}

/// The table's design document: key attributes, entities, the access-pattern matrix and a
/// Mermaid diagram (`examples/vault_commerce/DESIGN.md`; a test fails when it is stale).
///
/// # Errors
/// When the declaration and the entities disagree.
pub fn design_markdown() -> Result<String, dynamo_entity::Error> {
    Ok(layout()?.markdown("Vault Commerce"))
}

/// The sample items of the design page: the first two users of the data set of seed 7, each
/// with up to two orders and two wishlist items (so the account page's item collection shows
/// all three kinds), and the products they wish.
///
/// # Errors
/// When a sample cannot be encoded.
pub fn workbench_model() -> Result<dynamo_entity::design::workbench::WorkbenchModel, dynamo_entity::Error> {
    use dynamo_entity::design::workbench::WorkbenchModel;
    let data = Dataset::generate(7, Sizes::SMALL);
    let users: Vec<&User> = data.users.iter().take(2).collect();
    let mut model = WorkbenchModel::new("Vault Commerce", "vault-commerce")
        .author("dynamo-entity")
        .dated(dynamo_entity::Timestamp::from_millis(1_767_225_600_000).unwrap_or(dynamo_entity::Timestamp::EPOCH))
        .samples(users.iter().copied())?;
    let mut skus: Vec<&Sku> = Vec::new();
    for u in &users {
        model = model.samples(data.orders.iter().filter(|o| o.user_id == u.id).take(2))?;
        let wishes: Vec<&WishlistItem> = data.wishes.iter().filter(|w| w.user_id == u.id).take(2).collect();
        skus.extend(wishes.iter().map(|w| &w.sku));
        model = model.samples(wishes)?;
    }
    model.samples(data.products.iter().filter(|p| skus.contains(&&p.sku)))
}

/// The table's design page (`examples/vault_commerce/DESIGN.html`; a test fails when it is
/// stale, and the browser test renders it), drawn from the samples of [`workbench_model`].
///
/// # Errors
/// When the declaration and the entities disagree or a sample cannot be encoded.
pub fn design_html() -> Result<String, dynamo_entity::Error> {
    Ok(layout()?.html("Vault Commerce", workbench_model()?.items()))
}

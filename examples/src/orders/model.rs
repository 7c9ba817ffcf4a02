//! The entities of the Orders service.

use dynamo_entity::{Entity, KeyPart, TableDef, Timestamp};
use serde::{Deserialize, Serialize};

/// A user id such as `alice`.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(pub String);

/// An order id such as `o000042`.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrderId(pub String);

/// A product id such as `prod0456`.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ProductId(pub String);

/// Where an order is, stored as its lower-case name.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OrderStatus {
    /// Placed by the customer; the stream handler has not seen it yet.
    Placed,
    /// Confirmed by the stream handler.
    Confirmed,
    /// Shipped.
    Shipped,
}

/// A user (`USER#<id>` / `PROFILE`), found by e-mail through GSI1 (`EMAIL#<email>`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER#<id>")]
pub struct User {
    /// The user id.
    pub id: UserId,
    /// Display name.
    pub name: String,
    /// E-mail address, the GSI1 partition.
    pub email: String,
    /// How many orders the user has placed, kept in step by the transaction that places one.
    #[entity(rename = "orderCount")]
    pub order_count: u32,
    /// Sign-up time.
    #[entity(rename = "createdAt")]
    pub created_at: Timestamp,
}

/// One line of an order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Line {
    /// The product.
    pub product: ProductId,
    /// How many.
    pub quantity: u32,
    /// Unit price in cents when ordered.
    pub unit_cents: u64,
}

/// An order (`ORDER#<id>` / `DETAILS`); GSI2 lists a user's orders by time
/// (`USER#<user_id>` / `<created_at>`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ORDER#<id>", sk = "DETAILS", gsi2 = "USER#<user_id>", gsi2_sk = "<created_at>")]
pub struct Order {
    /// The order id.
    pub id: OrderId,
    /// The customer, the GSI2 partition.
    #[entity(rename = "userId")]
    pub user_id: UserId,
    /// The lines, stored as a list of maps.
    #[entity(serde)]
    pub lines: Vec<Line>,
    /// Total in cents: the sum of the lines.
    #[entity(rename = "totalCents")]
    pub total_cents: u64,
    /// Where the order is.
    pub status: OrderStatus,
    /// When it was placed, the GSI2 sort key.
    #[entity(rename = "createdAt")]
    pub created_at: Timestamp,
}

/// A product (`PRODUCT#<id>` / `DETAILS`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "PRODUCT#<id>", sk = "DETAILS")]
pub struct Product {
    /// The product id.
    pub id: ProductId,
    /// Name shown in the shop.
    pub name: String,
    /// Price in cents.
    #[entity(rename = "priceCents")]
    pub price_cents: u64,
}

/// The Orders table: its entities, GSI1 (user by e-mail) and GSI2 (a user's orders by date),
/// checked together at compile time. Its item enum, [`AnyItem`], decodes any item of the table
/// by its entity type attribute (the stream handler's records).
#[derive(TableDef)]
#[table(
    entities(User, Order, Product),
    gsi1(projection = all),
    gsi2(projection = all),
    item(name = AnyItem, derive(Debug, Clone, PartialEq))
)]
pub struct Orders;

//! The entities of Vault Commerce.

use dynamo_entity::{Collection, Entity, KeyPart, TableDef, Timestamp};

/// A user id such as `0042` (the partition `USER#0042`).
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct UserId(pub String);

/// A product's stock-keeping unit such as `SKU-8842`.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sku(pub String);

/// An order id such as `2026-00042`: the year and a sequence number, so ids sort by age.
#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OrderId(pub String);

/// A customer's loyalty tier, stored as its lower-case name.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Tier {
    /// The default tier.
    Bronze,
    /// More than a few orders.
    Silver,
    /// The best customers.
    Gold,
}

/// Where an order is; the GSI1 partition `STATUS#<status>` of the order.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum OrderStatus {
    /// Placed, not paid yet.
    Pending,
    /// Paid, waiting to ship.
    Paid,
    /// On its way.
    Shipped,
}

/// A customer's profile (`USER#<id>` / `PROFILE`), found at login by e-mail through GSI1
/// (`GSI1PK = EMAIL#<email>`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER#<id>")]
pub struct User {
    /// The user id.
    pub id: UserId,
    /// The name shown on the account page and copied onto every order.
    pub name: String,
    /// The login e-mail address, the GSI1 partition.
    pub email: String,
    /// Loyalty tier.
    pub tier: Tier,
    /// Sign-up time.
    pub created_at: Timestamp,
}

/// An order (`USER#<user_id>` / `ORDER#<order_id>`), in its customer's item collection; GSI1
/// lists the orders of one status by time (`STATUS#<status>` / `<created_at>`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", gsi1 = "STATUS#<status>", gsi1_sk = "<created_at>")]
pub struct Order {
    /// The customer.
    pub user_id: UserId,
    /// The order id, which sorts by age.
    pub order_id: OrderId,
    /// The customer's name, copied from the profile so that an order list needs no second read.
    #[entity(rename = "customerName")]
    pub customer_name: String,
    /// Total in cents.
    pub total_cents: u64,
    /// Where the order is, the GSI1 partition.
    pub status: OrderStatus,
    /// When it was placed, the GSI1 sort key.
    pub created_at: Timestamp,
}

/// A product on a user's wishlist (`USER#<user_id>` / `WISHLIST#<sku>`): one edge of the
/// many-to-many relationship between users and products, read from the product's end through
/// the inverted index (`WishlistItem::inverted(&sku)`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "WISHLIST#<sku>", inverted)]
pub struct WishlistItem {
    /// Whose wishlist.
    pub user_id: UserId,
    /// The product wished for.
    pub sku: Sku,
    /// When it was added.
    pub added_at: Timestamp,
}

/// A product (`PRODUCT#<sku>` / `METADATA`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "PRODUCT#<sku>", sk = "METADATA")]
pub struct Product {
    /// The stock-keeping unit.
    pub sku: Sku,
    /// Title shown in the shop.
    pub title: String,
    /// Price in cents.
    pub price_cents: u32,
}

/// The account page: a user's whole item collection (`PK = USER#<id>`) from one Query, the
/// orders (`ORDER#…`) first, then the profile (`PROFILE`) and the wishlist (`WISHLIST#…`), in
/// sort-key order.
#[derive(Collection, Debug, Clone, PartialEq)]
pub struct AccountPage {
    /// The profile; a page without it is an error.
    pub profile: User,
    /// The orders, oldest first (order ids sort by age).
    pub orders: Vec<Order>,
    /// The wishlist, by SKU.
    pub wishlist: Vec<WishlistItem>,
}

/// The Vault Commerce table: its entities, GSI1 (login by e-mail, orders by status) and the
/// inverted index (who wishes a product), checked together at compile time. Its item enum,
/// [`VaultItem`], decodes any item of the table (stream records, scans).
#[derive(TableDef)]
#[table(
    entities(User, Order, WishlistItem, Product),
    gsi1(projection = all),
    inverted(projection = all),
    item(name = VaultItem, derive(Debug, Clone, PartialEq))
)]
pub struct VaultCommerce;

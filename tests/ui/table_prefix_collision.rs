//! A query's default `begins_with` on one entity's sort-key prefix reads another's items.
use dynamo_entity::{Entity, TableDef};

/// `Order::query` adds `begins_with(SK, "ORDER#")`.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>")]
pub struct Order {
    pub user_id: String,
    pub order_id: String,
}

/// `ORDER#<order_id>#LINE#<line>` starts with `ORDER#` too.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>#LINE#<line>")]
pub struct OrderLine {
    pub user_id: String,
    pub order_id: String,
    pub line: u32,
}

/// `ORDERS#` is another literal: no collision in the table. In GSI1 it shares the partition
/// `SHOP#<shop>` with `Shop`, whose `ITEM#` prefix matches `ITEM#<sku>#<n>`.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDERS#<month>", gsi1 = "SHOP#<shop>", gsi1_sk = "ITEM#<sku>#<n>")]
pub struct Summary {
    pub user_id: String,
    pub month: String,
    pub shop: String,
    pub sku: String,
    pub n: u32,
}

#[derive(Entity)]
#[entity(pk = "SHOP#<id>", sk = "META", gsi1 = "SHOP#<id>", gsi1_sk = "ITEM#<sku>")]
pub struct Shop {
    pub id: String,
    pub sku: String,
}

#[derive(TableDef)]
#[table(entities(Order, OrderLine, Summary, Shop), gsi1(projection = all))]
pub struct Orders;

fn main() {}

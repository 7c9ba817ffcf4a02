//! The entities of one table separate their key segments with one delimiter.
use dynamo_entity::{Entity, TableDef};

/// `USER|<id>` / `PROFILE`.
#[derive(Entity)]
#[entity(pk = "USER|<id>", sk = "PROFILE", delimiter = "|")]
pub struct User {
    pub id: String,
}

/// The default `#`: its keys cannot be compared segment by segment with `User`'s.
#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "ORDER#<order_id>")]
pub struct Order {
    pub id: String,
    pub order_id: String,
}

/// `|` as `User`: no error.
#[derive(Entity)]
#[entity(pk = "TAG|<tag>", sk = "ITEM|<id>", delimiter = "|")]
pub struct Tag {
    pub tag: String,
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(User, Order, Tag))]
pub struct Store;

fn main() {}

//! An entity writes an LSI that the table does not declare.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>", lsi4 = "<total>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
    pub total: u64,
}

#[derive(TableDef)]
#[table(entities(Order), lsi1(projection = all))]
pub struct Shop;

fn main() {}

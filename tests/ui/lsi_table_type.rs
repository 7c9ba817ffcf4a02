//! LSI sort key types that differ between entities, or from the declaration.
use dynamo_entity::{Entity, TableDef};

/// `LSI1SK` is `N` (one numeric placeholder), `LSI2SK` is `S`.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>", lsi2 = "ORDER#<id>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
}

/// `LSI1SK` is `S` here.
#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "NOTE#<id>", lsi1 = "NOTE#<written>")]
pub struct Note {
    pub user_id: String,
    pub id: u32,
    pub written: u32,
}

#[derive(TableDef)]
#[table(entities(Order, Note), lsi1(projection = all), lsi2(projection = all, sk = N))]
pub struct Shop;

fn main() {}

//! Mistakes in the `lsiN(...)` of a table declaration, all reported at once.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
}

#[derive(TableDef)]
#[table(
    entities(Order),
    lsi1(projection = all, pk = S),
    lsi6(projection = all),
    lsi0(projection = keys_only),
    lsi2(projection = keys_only, sk = N),
    lsi2(projection = all),
    lsi3(projection = include(LSI3SK, placed)),
)]
pub struct Shop;

fn main() {}

//! An entity of a table with its own names that does not say `#[entity(table = ...)]`: its
//! items would be written under the default names. Spanned on the entity in `entities(...)`.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>")]
pub struct Order {
    pub user_id: String,
    pub order_id: u32,
}

#[derive(TableDef)]
#[table(entities(User, Order), pk = "pk", sk = "sk")]
pub struct Shop;

fn main() {}

//! A renamed field whose alias is an attribute the table uses as a key or as the type
//! attribute: reads would take the key as the field's value, and `write_alias` would overwrite
//! the key. Spanned on the entity in `entities(...)`.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE", gsi1 = "TEAM#<team>", gsi1_sk = "<id>")]
pub struct User {
    pub id: String,
    pub team: String,
    #[entity(alias = "gsi1pk", write_alias)]
    pub name: String,
}

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<user_id>", sk = "ORDER#<order_id>")]
pub struct Order {
    pub user_id: String,
    pub order_id: u32,
    #[entity(alias = "kind")]
    pub category: String,
}

#[derive(TableDef)]
#[table(entities(User, Order), pk = "pk", sk = "sk", entity_type = "kind", gsi1(pk = "gsi1pk", sk = "gsi1sk"))]
pub struct Shop;

fn main() {}

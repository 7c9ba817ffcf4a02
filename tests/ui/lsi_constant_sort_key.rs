//! An LSI sort key template needs a placeholder: a constant orders nothing.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>", lsi2 = "ALL")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
}

fn main() {}

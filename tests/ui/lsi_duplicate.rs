//! An LSI's sort key template is given once.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>", lsi2 = "<total>", lsi1 = "<total>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
    pub total: u64,
}

fn main() {}

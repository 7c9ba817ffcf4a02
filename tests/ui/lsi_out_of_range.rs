//! LSIs are numbered `lsi1` to `lsi5` and have one template, the sort key; every mistake is
//! reported at once.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi0 = "<placed>", lsi6 = "<placed>", lsi1_sk = "<placed>",
         lsi = "<placed>", lsi2_pk = "USER#<user_id>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
}

fn main() {}

//! `LSI1SK` to `LSI5SK` hold the LSIs' sort keys: no field may be stored under those names.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    #[entity(rename = "LSI1SK")]
    pub placed: u32,
    #[entity(rename = "LSI6SK")]
    pub total: u64,
}

fn main() {}

//! A shard suffix belongs in a GSI partition key, never in an LSI sort key.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>#<shard(id, 4)>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
}

fn main() {}

//! Every placeholder of an LSI sort key template names a field of the struct.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placd>", lsi2 = "ST#<state>#<placed>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
    pub status: String,
}

fn main() {}

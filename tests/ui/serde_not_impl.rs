use dynamo_entity::Entity;

pub struct Address {
    pub city: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    #[entity(serde)]
    pub address: Address,
}

fn main() {}

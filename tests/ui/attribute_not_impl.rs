use dynamo_entity::Entity;

// Not a key part, and stored without `#[entity(serde)]`: it needs `Attribute`.
pub struct Address {
    pub city: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    pub address: Option<Address>,
}

fn main() {}

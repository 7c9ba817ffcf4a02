use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE", rename_all = "camel_case")]
pub struct User {
    pub id: String,
    pub created_at: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "ORDER", key_fields = "none")]
pub struct Order {
    pub id: String,
}

fn main() {}

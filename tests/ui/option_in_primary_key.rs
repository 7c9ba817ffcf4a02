use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "EMAIL#<email>")]
pub struct User {
    pub id: String,
    pub email: Option<String>,
}

fn main() {}

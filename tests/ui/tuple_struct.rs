use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<0>", sk = "META")]
pub struct Skill(pub String);

fn main() {}

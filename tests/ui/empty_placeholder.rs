use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<>", sk = "META")]
pub struct Skill {
    pub id: String,
}

fn main() {}

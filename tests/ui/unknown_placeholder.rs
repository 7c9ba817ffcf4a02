use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<ids>", sk = "META")]
pub struct Skill {
    pub id: String,
    pub title: String,
}

fn main() {}

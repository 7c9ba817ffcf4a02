use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META")]
#[entity(pk = "ITEM#<id>")]
pub struct Skill {
    pub id: String,
}

fn main() {}

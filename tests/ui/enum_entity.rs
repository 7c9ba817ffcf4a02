use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META")]
pub enum Skill {
    Draft { id: String },
}

fn main() {}

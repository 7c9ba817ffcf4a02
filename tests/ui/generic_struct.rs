use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META")]
pub struct Skill<T> {
    pub id: String,
    pub payload: T,
}

fn main() {}

use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META")]
pub struct Skill {
    #[entity(rename = "PK")]
    pub id: String,
    #[entity(rename = "GSI3SK")]
    pub rank: u32,
    pub _type: String,
}

fn main() {}

use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META")]
pub struct Skill {
    #[entity(pk = "X")]
    pub id: String,
    #[entity(renam = "t")]
    pub title: String,
    #[entity(rename = "a", rename = "b")]
    pub body: String,
    #[entity(rename = 5)]
    pub rank: u32,
}

fn main() {}

use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META")]
pub struct Skill {
    pub id: String,
    pub title: String,
    #[entity(rename = "title")]
    pub headline: String,
}

fn main() {}

use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "TAGS#<tags>")]
pub struct Skill {
    pub id: String,
    pub tags: Vec<String>,
}

fn main() {}

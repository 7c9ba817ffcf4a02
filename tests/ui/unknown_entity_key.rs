use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", partition = "X", gsi = "CAT#<category>", nmae = "Skill")]
pub struct Skill {
    pub id: String,
    pub category: String,
}

fn main() {}

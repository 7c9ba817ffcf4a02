use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi21 = "CAT#<category>", gsi21_sk = "<id>")]
pub struct Skill {
    pub id: String,
    pub category: String,
}

fn main() {}

use dynamo_entity::Entity;

#[derive(Entity)]
pub struct Skill {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "SKILL#<id>")]
pub struct Review {
    pub id: String,
}

fn main() {}

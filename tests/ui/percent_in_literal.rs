use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "100%")]
pub struct Skill {
    pub id: String,
}

fn main() {}

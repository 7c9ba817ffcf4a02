use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "V<version>")]
pub struct SkillVersion {
    pub id: String,
    pub version: u32,
}

fn main() {}

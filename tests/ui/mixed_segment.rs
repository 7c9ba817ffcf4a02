use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "V<major>.<minor>")]
pub struct SkillVersion {
    pub id: String,
    pub major: u32,
    pub minor: u32,
}

fn main() {}

// A schema version upgrades from the version just before it: version 3 `from` a version 1
// struct leaves a gap (version 2 is missing).
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 1))]
pub struct SkillV1 {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", schema(version = 3, from = SkillV1))]
pub struct Skill {
    pub id: String,
}

impl From<SkillV1> for Skill {
    fn from(v: SkillV1) -> Skill {
        Skill { id: v.id }
    }
}

fn main() {}

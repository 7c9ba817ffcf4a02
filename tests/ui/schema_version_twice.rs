// Each schema version is declared once: a struct cannot upgrade `from` a struct of its own
// version.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 2))]
pub struct SkillV2 {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", schema(version = 2, from = SkillV2))]
pub struct Skill {
    pub id: String,
}

impl From<SkillV2> for Skill {
    fn from(v: SkillV2) -> Skill {
        Skill { id: v.id }
    }
}

fn main() {}

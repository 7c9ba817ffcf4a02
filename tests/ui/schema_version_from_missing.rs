//! `schema(from = SkillV1)` reads an item of the earlier version as `SkillV1` and converts it
//! with `From`: without `impl From<SkillV1> for Skill`, one error at `from = ..` names the impl
//! to write. That impl is `pass/schema_version_from.rs`.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 1))]
pub struct SkillV1 {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", schema(version = 2, from = SkillV1))]
pub struct Skill {
    pub id: String,
    pub title: String,
}

fn main() {}

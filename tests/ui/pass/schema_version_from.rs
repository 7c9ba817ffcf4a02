//! The impl the message of `ui/schema_version_from_missing.rs` asks for, written as it says:
//! an item of version 1 is read as `SkillV1` and converted to `Skill` with it.
use dynamo_entity::Entity;

#[derive(Entity, Debug, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 1))]
pub struct SkillV1 {
    pub id: String,
}

#[derive(Entity, Debug, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", schema(version = 2, from = SkillV1))]
pub struct Skill {
    pub id: String,
    pub title: String,
}

impl From<SkillV1> for Skill {
    fn from(old: SkillV1) -> Skill {
        Skill { id: old.id, title: "untitled".to_owned() }
    }
}

fn main() {
    let old = SkillV1 { id: "s1".into() }.to_item().unwrap();
    assert_eq!(Skill::from_item(&old).unwrap(), Skill { id: "s1".into(), title: "untitled".into() });
    let new = Skill { id: "s2".into(), title: "Rust".into() }.to_item().unwrap();
    assert_eq!(Skill::from_item(&new).unwrap(), Skill { id: "s2".into(), title: "Rust".into() });
}

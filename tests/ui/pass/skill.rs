//! The design guide's `Skill`: newtype id, enum status, a numeric GSI sort key, a sparse GSI.

use dynamo_entity::{Entity, Index, KeyPart, Timestamp};

#[derive(KeyPart, Debug, Clone, PartialEq)]
pub struct SkillId(String);

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum SkillStatus {
    Draft,
    PendingReview,
    #[key_part(rename = "live")]
    Approved,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "SKILL#<id>",
    sk = "META",
    gsi1 = "CAT#<category>",
    gsi1_sk = "<downloads>",
    gsi4 = "SKILL#<status>",
    gsi4_sk = "<submitted_at>"
)]
pub struct Skill {
    pub id: SkillId,
    pub title: String,
    pub category: String,
    pub status: SkillStatus,
    pub downloads: u64,
    pub submitted_at: Option<Timestamp>,
    #[entity(rename = "verified")]
    pub seller_verified: bool,
}

fn main() {
    let skill = Skill {
        id: SkillId("s-1".into()),
        title: "PDF tools".into(),
        category: "documents".into(),
        status: SkillStatus::PendingReview,
        downloads: 42,
        submitted_at: None,
        seller_verified: true,
    };

    // Typed constructors.
    let key = Skill::key(&SkillId("s-1".into())).into_encoded().unwrap();
    assert_eq!(key, skill.primary_key().unwrap());
    let _: dynamo_entity::query::QuerySpec<Skill, ()> = Skill::query(&SkillId("s-1".into()));
    let _: dynamo_entity::query::QuerySpec<Skill, (u64,)> = Skill::gsi1("documents");
    let _: dynamo_entity::query::QuerySpec<Skill, (Option<Timestamp>,)> =
        Skill::gsi4(&SkillStatus::Approved);

    // The schema.
    let schema = Skill::schema();
    assert_eq!(Skill::TYPE, "Skill");
    assert_eq!(schema.name, "Skill");
    assert_eq!(schema.primary.pk.source, "SKILL#<id>");
    assert_eq!(schema.gsis.len(), 2);
    assert_eq!(schema.gsis[1].index, Index::Gsi(4));
    assert_eq!(schema.gsis[0].sk.key_type, dynamo_entity::key::KeyType::N);
    assert_eq!(schema.fields.len(), 7);
    assert_eq!(schema.fields[6].attribute, "verified");

    // Field handles.
    assert_eq!(Skill::SELLER_VERIFIED.attribute, "verified");
    assert!(Skill::ID.part.is_some());
    assert!(Skill::TITLE.part.is_none());
    let _: dynamo_entity::Field<Skill, SkillId, dynamo_entity::expr::Immutable> = Skill::ID;
    let _: dynamo_entity::Field<Skill, u64> = Skill::DOWNLOADS;

    // Items round-trip; the sparse GSI4 is absent while `submitted_at` is None.
    let item = skill.to_item().unwrap();
    assert_eq!(item["PK"].as_s().unwrap(), "SKILL#s-1");
    assert_eq!(item["SK"].as_s().unwrap(), "META");
    assert_eq!(item["GSI1PK"].as_s().unwrap(), "CAT#documents");
    assert_eq!(item["GSI1SK"].as_n().unwrap(), "42");
    assert!(!item.contains_key("GSI4PK") && !item.contains_key("GSI4SK"));
    assert_eq!(item["status"].as_s().unwrap(), "pending_review");
    assert_eq!(item["verified"].as_bool().unwrap(), &true);
    assert_eq!(item["_type"].as_s().unwrap(), "Skill");
    assert_eq!(item.len(), 2 + 2 + 6 + 1); // keys, GSI1, fields (submitted_at absent), type
    assert_eq!(Skill::from_item(&item).unwrap(), skill);
    assert_eq!(skill.gsi_keys().unwrap().len(), 2);

    let approved = Skill {
        status: SkillStatus::Approved,
        submitted_at: Some(Timestamp::from_millis(0).unwrap()),
        ..skill
    };
    let item = approved.to_item().unwrap();
    assert_eq!(item["GSI4PK"].as_s().unwrap(), "SKILL#live");
    assert_eq!(item["GSI4SK"].as_s().unwrap(), "1970-01-01T00:00:00.000Z");
    assert_eq!(approved.gsi_keys().unwrap().len(), 4);
    assert_eq!(Skill::from_item(&item).unwrap(), approved);
}

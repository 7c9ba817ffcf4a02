//! `Option` fields in GSI keys make the index sparse, in the partition or the sort key.

use dynamo_entity::{Entity, KeyPart};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
#[key_part(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Tier {
    Free,
    ProPlus,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "USER#<id>",
    sk = "PROFILE",
    gsi1 = "EMAIL#<email>",
    gsi1_sk = "USER",
    gsi2 = "TIER#<tier>",
    gsi2_sk = "<referrals>"
)]
pub struct User {
    pub id: u64,
    pub email: Option<String>,
    pub tier: Option<Tier>,
    pub referrals: Option<u32>,
}

fn main() {
    let _: dynamo_entity::query::QuerySpec<User, ()> = User::gsi1("a@example.com");
    let _: dynamo_entity::query::QuerySpec<User, (Option<u32>,)> = User::gsi2(&Tier::ProPlus);
    assert_eq!(
        User::schema().gsis[1].sk.key_type,
        dynamo_entity::key::KeyType::N
    );

    let none = User {
        id: 1,
        email: None,
        tier: Some(Tier::Free),
        referrals: None,
    };
    let item = none.to_item().unwrap();
    assert!(!item.keys().any(|k| k.starts_with("GSI")));
    assert!(none.gsi_keys().unwrap().is_empty());
    assert_eq!(User::from_item(&item).unwrap(), none);

    let all = User {
        id: 2,
        email: Some("a@example.com".into()),
        tier: Some(Tier::ProPlus),
        referrals: Some(3),
    };
    let item = all.to_item().unwrap();
    assert_eq!(item["PK"].as_s().unwrap(), "USER#00000000000000000002");
    assert_eq!(item["GSI1PK"].as_s().unwrap(), "EMAIL#a@example.com");
    assert_eq!(item["GSI1SK"].as_s().unwrap(), "USER");
    assert_eq!(item["GSI2PK"].as_s().unwrap(), "TIER#PRO_PLUS");
    assert_eq!(item["GSI2SK"].as_n().unwrap(), "3");
    assert_eq!(User::from_item(&item).unwrap(), all);
}

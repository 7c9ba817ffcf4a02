//! The Skill Exchange example's access patterns against DynamoDB Local, on the small data set.

use crate::common;

use dynamo_entity::Entity;
use dynamo_entity_examples::skill_exchange::{self, Dataset, Sizes, Skill, SkillStatus};

#[tokio::test]
async fn every_access_pattern_answers_as_the_data_set_says() {
    let data = Dataset::generate(42, Sizes::SMALL);
    // The generator's own invariants, which the patterns rely on.
    assert_eq!((data.users.len(), data.skills.len(), data.reviews.len(), data.purchases.len()), (20, 60, 80, 200));
    let downloads: u64 = data.skills.iter().map(|s| s.downloads).sum();
    let sales: u64 = data.users.iter().map(|u| u.sales).sum();
    assert_eq!((downloads, sales), (200, 200));
    assert!(data.skills.iter().all(|s| (s.status == SkillStatus::Draft) == s.submitted_at.is_none()));

    let table = common::table("skill_exchange", &skill_exchange::schemas()).await;
    let load = skill_exchange::scenario::load(&table, &data, 16).await.unwrap();
    assert_eq!(load.items, data.item_count());
    // Every user's e-mail has its guard item: one per user.
    let guards = table
        .client()
        .scan()
        .table_name(table.name())
        .filter_expression("#t = :g")
        .expression_attribute_names("#t", "_type")
        .expression_attribute_values(":g", aws_sdk_dynamodb::types::AttributeValue::S("_unique".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(guards.count, 20);
    let reports = skill_exchange::run(&table, &data).await.unwrap();
    let names: Vec<&str> = reports.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        vec![
            "get a skill by id",
            "get a user by id",
            "get a purchase by id",
            "a category's top 20 skills by downloads",
            "a whole category, 7 a page, by cursor",
            "a seller's skills, newest first",
            "a buyer's library, newest first",
            "the review queue (GSI4 SKILL#pending)",
            "the live marketplace (GSI4 SKILL#approved), newest 25",
            "a skill and its reviews (one query of SKILL#<id>)",
            "approve a skill (one UpdateItem rewrites GSI4PK)",
            "a purchase: 50 concurrent attempts, one transaction each",
            "sign up with a taken e-mail; look a user up by e-mail",
            "redeem a coupon twice for one user",
            "a user's badges",
            "the sellers' leaderboard, top 10 (GSI5 by sales)",
            "nightly job: verify a seller, re-stamp their skills, recompute badges",
        ]
    );
    let pending = data.skills.iter().filter(|s| s.status == SkillStatus::Pending).count();
    let queue = reports.iter().find(|r| r.name.starts_with("the review queue")).unwrap();
    assert_eq!(queue.items, pending);
}

#[tokio::test]
async fn a_mismatch_is_reported() {
    // Run the patterns against a data set that differs from what was loaded: the first check
    // that reads the changed item must fail.
    let data = Dataset::generate(42, Sizes::SMALL);
    let table = common::table("skill_exchange_mismatch", &skill_exchange::schemas()).await;
    skill_exchange::scenario::load(&table, &data, 16).await.unwrap();
    let mut changed = data.clone();
    let middle = changed.skills.len() / 2;
    changed.skills[middle].title.push_str(" (edited)");
    let err = skill_exchange::run(&table, &changed).await.unwrap_err();
    assert_eq!(err.pattern, "get a skill by id");

    // A stored item that no longer decodes is an error too, not a silent skip.
    let mut item = data.skills[middle].to_item().unwrap();
    item.remove("title");
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    let err = table.get(Skill::key(&data.skills[middle].id)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "cannot decode Skill PK=SKILL#{} SK=META: attribute `title`: the attribute is missing",
            data.skills[middle].id.0
        )
    );
}

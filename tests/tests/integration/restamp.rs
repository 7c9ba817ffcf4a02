//! Re-stamping a denormalized field (`Table::restamp`): only stale items are written, each by
//! its field alone on the condition that it still holds what was read; a concurrent write of
//! another field is kept, one of the same field stands; a stopped run resumes from its cursor.

use std::time::Duration;

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::restamp::RestampReport;
use dynamo_entity::{Entity, Table, TableDef};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "SELLER#<seller_id>", gsi1_sk = "<id>")]
struct Skill {
    id: String,
    seller_id: String,
    seller_verified: bool,
    downloads: u64,
}

/// The table declared, for a re-stamp through a declared handle.
#[derive(TableDef)]
#[table(entities(Skill), gsi1)]
struct Shop;

fn skill(i: usize, seller: &str, verified: bool) -> Skill {
    Skill { id: format!("s{i:02}"), seller_id: seller.into(), seller_verified: verified, downloads: 0 }
}

/// 30 skills of u1 (5 already verified: s25..s29) and 4 of u2.
async fn load(test: &str) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Skill::schema()]).await;
    for i in 0..30 {
        plain.create(&skill(i, "u1", i >= 25)).await.unwrap();
    }
    for i in 30..34 {
        plain.create(&skill(i, "u2", false)).await.unwrap();
    }
    let faults = FaultInjector::new(3);
    let faulty = Table::new(faults.client(plain.client()), plain.name());
    (plain, faulty, faults)
}

async fn verified(plain: &Table, seller: &str) -> Vec<bool> {
    let skills = plain.query(Skill::gsi1(seller)).all().await.unwrap();
    skills.iter().map(|s| s.seller_verified).collect()
}

#[tokio::test]
async fn only_stale_items_are_written_and_concurrent_writes_are_kept() {
    let (plain, faulty, faults) = load("restamp_concurrent").await;
    // The first page's answer is held 400 ms: meanwhile one skill is bought (another field)
    // and one is marked verified by another writer (the same field).
    faults.add(FaultRule::new(Fault::AnsweredLate(Duration::from_millis(400))).on("Query").times(1));
    let other = plain.clone();
    let meanwhile = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        other.update(Skill::key("s01")).add(Skill::DOWNLOADS, &1).send().await.unwrap().unwrap();
        other.update(Skill::key("s02")).set(Skill::SELLER_VERIFIED, &true).send().await.unwrap().unwrap();
    });
    let report = faulty
        .restamp(faulty.query(Skill::gsi1("u1")).page_items(10))
        .set(Skill::SELLER_VERIFIED, &true)
        .run()
        .await
        .unwrap();
    meanwhile.await.unwrap();
    assert_eq!(report, RestampReport { read: 30, stamped: 24, current: 5, changed: 1, gone: 0, resumed: false });
    assert_eq!(verified(&plain, "u1").await, vec![true; 30]);
    assert_eq!(verified(&plain, "u2").await, vec![false; 4]);
    let bought = plain.get(Skill::key("s01")).await.unwrap().unwrap();
    assert_eq!(bought, Skill { seller_verified: true, downloads: 1, ..skill(1, "u1", true) });
    // 24 updates, none for the 5 current items nor for the one another writer changed first
    // (its update was sent and refused: 25 UpdateItem requests).
    assert_eq!(faults.requests_for("UpdateItem").len(), 25);
}

#[tokio::test]
async fn a_stopped_run_resumes_from_its_cursor_and_a_finished_one_starts_over() {
    let (plain, _, _) = load("restamp_resume").await;
    // A run that stopped after its first page of 10: its record, as the run writes it.
    let first = plain.query(Skill::gsi1("u1")).page_items(10).send().await.unwrap();
    for s in &first.items {
        plain.update(Skill::key(&s.id)).set(Skill::SELLER_VERIFIED, &true).send().await.unwrap().unwrap();
    }
    let n = |v: u64| AttributeValue::N(v.to_string());
    plain
        .client()
        .put_item()
        .table_name(plain.name())
        .item("PK", AttributeValue::S("_MIGRATION#restamp:verify-u1".into()))
        .item("SK", AttributeValue::S("RUN".into()))
        .item("_type", AttributeValue::S("_migration".into()))
        .item("status", AttributeValue::S("running".into()))
        .item("cursor", AttributeValue::S(first.cursor.unwrap().as_str().to_owned()))
        .item("read", n(10))
        .item("stamped", n(10))
        .item("current", n(0))
        .item("changed", n(0))
        .item("gone", n(0))
        .send()
        .await
        .unwrap();
    let run = || {
        plain
            .restamp(plain.query(Skill::gsi1("u1")).page_items(10))
            .set(Skill::SELLER_VERIFIED, &true)
            .resumable("verify-u1")
    };
    let resumed = run().run().await.unwrap();
    assert_eq!(resumed, RestampReport { read: 30, stamped: 25, current: 5, changed: 0, gone: 0, resumed: true });
    assert_eq!(verified(&plain, "u1").await, vec![true; 30]);
    let record = common::raw_item(&plain, "_MIGRATION#restamp:verify-u1", "RUN").await.unwrap();
    assert_eq!(record["status"], AttributeValue::S("completed".into()));
    assert_eq!(record.get("cursor"), None);
    // Finished: the next run starts over, and finds every item current.
    let again = run().run().await.unwrap();
    assert_eq!(again, RestampReport { read: 30, stamped: 0, current: 30, changed: 0, gone: 0, resumed: false });

    // Through a declared handle, the same (its table lists Skill).
    let shop: Table<Shop> = plain.clone().declared();
    let declared = shop.restamp(shop.query(Skill::gsi1("u2"))).set(Skill::SELLER_VERIFIED, &true).run().await.unwrap();
    assert_eq!(declared, RestampReport { read: 4, stamped: 4, current: 0, changed: 0, gone: 0, resumed: false });

    // A re-stamp without a field, or with an empty name, is refused.
    let none = plain.restamp(plain.query(Skill::gsi1("u1"))).run().await.unwrap_err();
    assert_eq!(none.to_string(), "invalid request: a re-stamp of Skill sets no field");
}

//! An update that changes one part of a secondary index key rebuilds the key from what the item
//! holds (`update::stored`): approving a ticket with `set(STATUS)` alone reads `created_at`
//! from the stored item, and the update requires it unchanged.

use std::time::Duration;

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Error, KeyPart, Table, Timestamp};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
enum Status {
    Pending,
    Approved,
}

/// A skill waits in the review queue (GSI1: `QUEUE#<queue>` / `STATUS#<status>#<submitted_at>`)
/// once submitted; a draft (`submitted_at` None) is in no queue.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "QUEUE#<queue>", gsi1_sk = "STATUS#<status>#<submitted_at>")]
struct Skill {
    id: String,
    queue: String,
    status: Status,
    submitted_at: Option<Timestamp>,
}

fn at(text: &str) -> Timestamp {
    text.parse().unwrap()
}

fn skill(id: &str, submitted_at: Option<&str>) -> Skill {
    Skill { id: id.into(), queue: "q".into(), status: Status::Pending, submitted_at: submitted_at.map(at) }
}

/// A fresh table, a handle on it without faults and one whose requests go through `faults`.
async fn tables(test: &str) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Skill::schema()]).await;
    let faults = FaultInjector::new(5);
    let faulty = Table::new(faults.client(plain.client()), plain.name());
    (plain, faulty, faults)
}

async fn gsi1sk(plain: &Table, id: &str) -> Option<AttributeValue> {
    common::raw_item(plain, &format!("SKILL#{id}"), "META").await.unwrap().get("GSI1SK").cloned()
}

fn operations(faults: &FaultInjector) -> Vec<String> {
    faults.requests().into_iter().map(|r| r.operation).collect()
}

#[tokio::test]
async fn approving_with_set_status_alone_rebuilds_the_queue_key_from_the_stored_item() {
    let (plain, faulty, faults) = tables("rebuild_approve").await;
    plain.create(&skill("s1", Some("2026-05-01T10:00:00.000Z"))).await.unwrap();
    faults.reset_records();

    let approved = faulty.update(Skill::key("s1")).set(Skill::STATUS, &Status::Approved).send().await.unwrap().unwrap();
    assert_eq!(approved, Skill { status: Status::Approved, ..skill("s1", Some("2026-05-01T10:00:00.000Z")) });
    assert_eq!(operations(&faults), ["GetItem", "UpdateItem"]);
    assert_eq!(gsi1sk(&plain, "s1").await, Some(AttributeValue::S("STATUS#approved#2026-05-01T10:00:00.000Z".into())));
    let queue = plain.query(Skill::gsi1("q")).all().await.unwrap();
    assert_eq!(queue, vec![approved]);

    // Rendered, the update cannot read: it is refused, naming the field to set.
    let err = plain.update(Skill::key("s1")).set(Skill::STATUS, &Status::Pending).render().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: this update of Skill sets `status`, which GSI1PK `QUEUE#<queue>` and GSI1SK \
         `STATUS#<status>#<submitted_at>` are built from; set `queue`, `submitted_at` in the same update so the key \
         can be rebuilt"
    );
}

#[tokio::test]
async fn a_draft_stays_out_of_the_queue_and_a_missing_item_is_not_created() {
    let (plain, faulty, _) = tables("rebuild_draft").await;
    plain.create(&skill("d1", None)).await.unwrap();
    let approved = faulty.update(Skill::key("d1")).set(Skill::STATUS, &Status::Approved).send().await.unwrap().unwrap();
    assert_eq!(approved, Skill { status: Status::Approved, ..skill("d1", None) });
    assert_eq!(gsi1sk(&plain, "d1").await, None);
    assert_eq!(plain.query(Skill::gsi1("q")).all().await.unwrap(), vec![]);

    let err = faulty.update(Skill::key("none")).set(Skill::STATUS, &Status::Approved).send().await.unwrap_err();
    assert!(matches!(&err, Error::NotFound { entity: "Skill", key } if key == "PK=SKILL#none SK=META"), "{err:?}");
    assert_eq!(common::raw_item(&plain, "SKILL#none", "META").await, None);
}

#[tokio::test]
async fn a_part_changed_between_the_read_and_the_write_is_read_again() {
    let (plain, faulty, faults) = tables("rebuild_race").await;
    plain.create(&skill("s2", Some("2026-05-01T10:00:00.000Z"))).await.unwrap();
    // The first read's answer is held 400 ms; meanwhile another writer resubmits the skill.
    faults.add(FaultRule::new(Fault::AnsweredLate(Duration::from_millis(400))).on("GetItem").times(1));
    faults.reset_records();
    let other = plain.clone();
    let resubmit = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        other
            .update(Skill::key("s2"))
            .set(Skill::SUBMITTED_AT, &Some(at("2026-06-01T09:00:00.000Z")))
            .set(Skill::STATUS, &Status::Pending)
            .send()
            .await
            .unwrap()
            .unwrap()
    });
    let approved = faulty.update(Skill::key("s2")).set(Skill::STATUS, &Status::Approved).send().await.unwrap().unwrap();
    resubmit.await.unwrap();
    // The stale read's update was refused, the item read again: the key holds the new time.
    assert_eq!(operations(&faults), ["GetItem", "UpdateItem", "GetItem", "UpdateItem"]);
    assert_eq!(approved, Skill { status: Status::Approved, ..skill("s2", Some("2026-06-01T09:00:00.000Z")) });
    assert_eq!(gsi1sk(&plain, "s2").await, Some(AttributeValue::S("STATUS#approved#2026-06-01T09:00:00.000Z".into())));
}

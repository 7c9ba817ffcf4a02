//! Whole-item writes never replace an item stored at a newer schema version (see
//! `dynamo_entity::schema::evolve`, "Writes"). A `put`, a `replace`, a versioned put
//! (`#[entity(version)]`), a transaction's put and the put of an entity with unique fields,
//! through the struct of version 1 of an item a newer program stored at version 2, write
//! nothing: `Error::UpgradeRequired` (a transaction: canceled, with the item), and the stored
//! item keeps every attribute, its write history included. An update or an upsert through
//! version 1 is refused with the same error. Over an item of version 1, an item
//! without a version attribute, or no item, they write as before; a lost answer on such a put
//! still ends `Ok`, applied once.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::error::{ActionKind, CancellationCode, Returned};
use dynamo_entity::{Entity, Error, Item, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector};

use crate::common::{self, lose};
use crate::retype_rolling::{TicketV1, TicketV2};

/// A note with an optimistic lock, version 1 of its schema.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META", name = "Note", schema(version = 1))]
struct NoteV1 {
    id: String,
    text: String,
    #[entity(version)]
    version: u64,
}

/// Version 2: a language.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META", name = "Note", schema(version = 2, from = NoteV1))]
struct NoteV2 {
    id: String,
    text: String,
    lang: String,
    #[entity(version)]
    version: u64,
}

impl From<NoteV1> for NoteV2 {
    fn from(v1: NoteV1) -> NoteV2 {
        NoteV2 { id: v1.id, text: v1.text, lang: "en".into(), version: v1.version }
    }
}

/// A member with a unique e-mail address, version 1 of its schema.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "META", name = "Member", schema(version = 1))]
struct MemberV1 {
    id: String,
    #[entity(unique)]
    email: String,
}

/// Version 2: a display name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "META", name = "Member", schema(version = 2, from = MemberV1))]
struct MemberV2 {
    id: String,
    #[entity(unique)]
    email: String,
    name: String,
}

impl From<MemberV1> for MemberV2 {
    fn from(v1: MemberV1) -> MemberV2 {
        MemberV2 { id: v1.id, email: v1.email, name: String::new() }
    }
}

async fn table(test: &str) -> Table {
    common::table(test, &[TicketV2::schema(), NoteV2::schema(), MemberV2::schema()]).await
}

/// The whole item stored under `pk`, `META`, write history included.
async fn whole(table: &Table, pk: &str) -> Option<Item> {
    table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", s(pk))
        .key("SK", s("META"))
        .consistent_read(true)
        .send()
        .await
        .expect("GetItem succeeds")
        .item
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn item(pairs: &[(&str, AttributeValue)]) -> Item {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect::<HashMap<_, _>>()
}

/// A ticket as `TicketV1` stores it.
fn ticket_v1(id: &str, priority: u8, views: u64) -> Item {
    item(&[
        ("PK", s(&format!("TICKET#{id}"))),
        ("SK", s("META")),
        ("_type", s("Ticket")),
        ("_schema", n("1")),
        ("id", s(id)),
        ("priority", n(&priority.to_string())),
        ("views", n(&views.to_string())),
    ])
}

fn refused(e: &Error, operation: &str, entity: &str, key: &str) -> bool {
    matches!(e, Error::UpgradeRequired { operation: o, entity: t, key: k, stored: 2, current: 1 }
        if *o == operation && *t == entity && k == key)
}

#[tokio::test]
async fn a_put_or_replace_through_version_1_leaves_an_item_of_version_2_as_it_is() {
    let table = table("guard_put").await;
    table.create(&TicketV2 { id: "t1".into(), due_in_hours: 24, views: 5 }).await.unwrap();
    let before = whole(&table, "TICKET#t1").await.unwrap();
    assert_eq!(before["_schema"], n("2"));
    assert_eq!(before["due_in_hours"], n("24"));
    assert_eq!(before.len(), 8, "{before:?}"); // the key, type, version, 3 fields, _w1

    let e = table.put(&TicketV1 { id: "t1".into(), priority: 1, views: 9 }).await.unwrap_err();
    assert!(refused(&e, "put", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "Ticket PK=TICKET#t1 SK=META is stored at schema version 2, newer than version 1 this put writes; nothing \
         was written: write it from a program that knows version 2"
    );
    assert_eq!(whole(&table, "TICKET#t1").await.unwrap(), before);

    let e = table.replace(&TicketV1 { id: "t1".into(), priority: 1, views: 9 }).await.unwrap_err();
    assert!(refused(&e, "replace", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    assert_eq!(whole(&table, "TICKET#t1").await.unwrap(), before);

    // A handle without write tokens gets the same answer.
    let plain = table.clone().without_write_tokens();
    let e = plain.put(&TicketV1 { id: "t1".into(), priority: 1, views: 9 }).await.unwrap_err();
    assert!(refused(&e, "put", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    let e = plain.replace(&TicketV1 { id: "t1".into(), priority: 1, views: 9 }).await.unwrap_err();
    assert!(refused(&e, "replace", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    assert_eq!(whole(&table, "TICKET#t1").await.unwrap(), before);

    // Version 2 still reads it, and writes it.
    assert_eq!(
        table.get(TicketV2::key("t1")).await.unwrap(),
        Some(TicketV2 { id: "t1".into(), due_in_hours: 24, views: 5 })
    );
    table.put(&TicketV2 { id: "t1".into(), due_in_hours: 8, views: 6 }).await.unwrap();
    assert_eq!(common::raw_item(&table, "TICKET#t1", "META").await.unwrap()["due_in_hours"], n("8"));
}

#[tokio::test]
async fn an_update_or_upsert_through_version_1_of_an_item_of_version_2_is_refused_the_same_way() {
    let table = table("guard_update").await;
    table.create(&TicketV2 { id: "t1".into(), due_in_hours: 24, views: 5 }).await.unwrap();
    let before = whole(&table, "TICKET#t1").await.unwrap();

    let e = table.update(TicketV1::key("t1")).set(TicketV1::PRIORITY, &3).send().await.unwrap_err();
    assert!(refused(&e, "update", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    assert_eq!(
        e.to_string(),
        "Ticket PK=TICKET#t1 SK=META is stored at schema version 2, newer than version 1 this update writes; \
         nothing was written: write it from a program that knows version 2"
    );
    let e = table.upsert(TicketV1::key("t1")).set(TicketV1::PRIORITY, &3).send().await.unwrap_err();
    assert!(refused(&e, "upsert", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    let e = table.increment(TicketV1::key("t1"), TicketV1::VIEWS, 1).send().await.unwrap_err();
    assert!(refused(&e, "upsert", "Ticket", "PK=TICKET#t1 SK=META"), "{e:?}");
    assert_eq!(whole(&table, "TICKET#t1").await.unwrap(), before);

    // Through version 2 the same change is written.
    table.increment(TicketV2::key("t1"), TicketV2::VIEWS, 1).send().await.unwrap();
    assert_eq!(whole(&table, "TICKET#t1").await.unwrap()["views"], n("6"));
}

#[tokio::test]
async fn a_put_over_an_item_of_version_1_without_a_version_or_none_writes_version_1() {
    let table = table("guard_older").await;
    // No item.
    table.put(&TicketV1 { id: "t1".into(), priority: 2, views: 0 }).await.unwrap();
    assert_eq!(common::raw_item(&table, "TICKET#t1", "META").await, Some(ticket_v1("t1", 2, 0)));
    // An item of version 1.
    table.put(&TicketV1 { id: "t1".into(), priority: 3, views: 1 }).await.unwrap();
    assert_eq!(common::raw_item(&table, "TICKET#t1", "META").await, Some(ticket_v1("t1", 3, 1)));
    let old = table.replace(&TicketV1 { id: "t1".into(), priority: 1, views: 2 }).await.unwrap();
    assert_eq!(old, TicketV1 { id: "t1".into(), priority: 3, views: 1 });
    assert_eq!(common::raw_item(&table, "TICKET#t1", "META").await, Some(ticket_v1("t1", 1, 2)));

    // An item another client wrote without the version attribute: of the oldest version.
    let mut other = ticket_v1("t2", 1, 7);
    other.remove("_schema");
    table.client().put_item().table_name(table.name()).set_item(Some(other)).send().await.unwrap();
    table.replace(&TicketV1 { id: "t2".into(), priority: 2, views: 8 }).await.unwrap();
    assert_eq!(common::raw_item(&table, "TICKET#t2", "META").await, Some(ticket_v1("t2", 2, 8)));

    // Version 2 writes over version 1: the newer struct.
    table.put(&TicketV2 { id: "t1".into(), due_in_hours: 16, views: 3 }).await.unwrap();
    let stored = common::raw_item(&table, "TICKET#t1", "META").await.unwrap();
    assert_eq!((&stored["_schema"], &stored["due_in_hours"]), (&n("2"), &n("16")));
    assert!(!stored.contains_key("priority"), "{stored:?}");
}

#[tokio::test]
async fn a_malformed_stored_version_is_a_decode_error_and_nothing_is_written() {
    let table = table("guard_malformed").await;
    let mut odd = ticket_v1("t1", 1, 0);
    odd.insert("_schema".into(), s("1"));
    table.client().put_item().table_name(table.name()).set_item(Some(odd.clone())).send().await.unwrap();
    let e = table.put(&TicketV1 { id: "t1".into(), priority: 2, views: 0 }).await.unwrap_err();
    assert!(matches!(&e, Error::Decode { entity: "Ticket", attribute: "_schema", .. }), "{e:?}");
    assert_eq!(common::raw_item(&table, "TICKET#t1", "META").await, Some(odd));
}

#[tokio::test]
async fn a_versioned_put_checks_the_schema_version_before_the_lock_version() {
    let table = table("guard_versioned").await;
    let mut v2 = NoteV2 { id: "a".into(), text: "hello".into(), lang: "fr".into(), version: 0 };
    table.create(&mut v2).await.unwrap();
    assert_eq!(v2.version, 1);
    let before = whole(&table, "NOTE#a").await.unwrap();

    // The lock version matches: still refused, as the schema version is newer.
    let e = table.put(&NoteV1 { id: "a".into(), text: "bye".into(), version: 1 }).await.unwrap_err();
    assert!(refused(&e, "put", "Note", "PK=NOTE#a SK=META"), "{e:?}");
    // The lock version does not match either: the schema version is what is said.
    let e = table.put(&NoteV1 { id: "a".into(), text: "bye".into(), version: 7 }).await.unwrap_err();
    assert!(refused(&e, "put", "Note", "PK=NOTE#a SK=META"), "{e:?}");
    let e = table.replace(&NoteV1 { id: "a".into(), text: "bye".into(), version: 1 }).await.unwrap_err();
    assert!(refused(&e, "replace", "Note", "PK=NOTE#a SK=META"), "{e:?}");
    assert_eq!(whole(&table, "NOTE#a").await.unwrap(), before);

    // Version 1 over version 1, and over no item: as before.
    let mut v1 = NoteV1 { id: "b".into(), text: "one".into(), version: 0 };
    table.put(&mut v1).await.unwrap();
    assert_eq!(v1.version, 1);
    v1.text = "two".into();
    table.put(&mut v1).await.unwrap();
    assert_eq!(v1.version, 2);
    let stale = NoteV1 { id: "b".into(), text: "lost".into(), version: 1 };
    let e = table.put(&stale).await.unwrap_err();
    assert!(matches!(e, Error::VersionConflict { entity: "Note", expected: 1, found: Some(2), .. }), "{e:?}");
    assert_eq!(
        common::raw_item(&table, "NOTE#b", "META").await,
        Some(item(&[
            ("PK", s("NOTE#b")),
            ("SK", s("META")),
            ("_type", s("Note")),
            ("_schema", n("1")),
            ("id", s("b")),
            ("text", s("two")),
            ("version", n("2")),
        ]))
    );
}

#[tokio::test]
async fn a_transaction_put_of_version_1_over_version_2_is_canceled_with_the_item() {
    let table = table("guard_tx").await;
    table.create(&TicketV2 { id: "t1".into(), due_in_hours: 24, views: 5 }).await.unwrap();
    let before = whole(&table, "TICKET#t1").await.unwrap();
    for replace in [false, true] {
        let v1 = TicketV1 { id: "t1".into(), priority: 1, views: 9 };
        let tx = table.transact();
        let tx = if replace { tx.replace(&v1) } else { tx.put(&v1) };
        let e = tx.send().await.unwrap_err();
        let Error::TransactionCanceled { reasons } = &e else { panic!("{e:?}") };
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        let r = &reasons[0];
        let kind = if replace { ActionKind::Replace } else { ActionKind::Put };
        assert_eq!((r.index, r.action, r.entity, r.key.as_str()), (0, kind, "Ticket", "PK=TICKET#t1 SK=META"));
        assert_eq!(r.code, CancellationCode::ConditionalCheckFailed);
        assert_eq!(r.item.as_ref(), Some(&before));
        assert_eq!(whole(&table, "TICKET#t1").await.unwrap(), before);
    }
    // Over version 1: applied.
    table.transact().put(&TicketV1 { id: "t2".into(), priority: 2, views: 0 }).send().await.unwrap();
    table.transact().replace(&TicketV1 { id: "t2".into(), priority: 3, views: 1 }).send().await.unwrap();
    assert_eq!(common::raw_item(&table, "TICKET#t2", "META").await, Some(ticket_v1("t2", 3, 1)));
}

#[tokio::test]
async fn a_put_of_an_entity_with_a_unique_field_through_version_1_leaves_version_2_as_it_is() {
    let table = table("guard_unique").await;
    let v2 = MemberV2 { id: "m1".into(), email: "ann@example.test".into(), name: "Ann".into() };
    table.create(&v2).await.unwrap();
    let before = common::scan_all(&table).await;
    assert_eq!(before.len(), 2, "{before:?}"); // the member and its guard
    let v1 = MemberV1 { id: "m1".into(), email: "bo@example.test".into() };
    let e = table.put(&v1).await.unwrap_err();
    assert!(refused(&e, "put", "Member", "PK=MEMBER#m1 SK=META"), "{e:?}");
    let e = table.replace(&v1).await.unwrap_err();
    assert!(refused(&e, "replace", "Member", "PK=MEMBER#m1 SK=META"), "{e:?}");
    let mut after = common::scan_all(&table).await;
    let mut expected = before.clone();
    let order = |i: &Item| format!("{:?}", i.get("PK"));
    after.sort_by_key(order);
    expected.sort_by_key(order);
    assert_eq!(after, expected);

    // Over version 1: the e-mail address moves.
    table.create(&MemberV1 { id: "m2".into(), email: "cy@example.test".into() }).await.unwrap();
    table.put(&MemberV1 { id: "m2".into(), email: "di@example.test".into() }).await.unwrap();
    assert_eq!(
        table.get(MemberV1::key("m2")).await.unwrap(),
        Some(MemberV1 { id: "m2".into(), email: "di@example.test".into() })
    );
}

#[tokio::test]
async fn a_put_whose_answer_is_lost_once_is_applied_once_and_ends_ok() {
    let plain = table("guard_lost").await;
    let faults = FaultInjector::new(11);
    let faulty = Table::new(faults.client(plain.client()), plain.name());

    // Over no item, then over version 1: applied, the answer lost, sent again: Ok.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.put(&TicketV1 { id: "t1".into(), priority: 2, views: 0 }).await.unwrap();
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 2, 1));
    assert_eq!(common::raw_item(&plain, "TICKET#t1", "META").await, Some(ticket_v1("t1", 2, 0)));
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.put(&TicketV1 { id: "t1".into(), priority: 3, views: 1 }).await.unwrap();
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 2, 1));
    assert_eq!(common::raw_item(&plain, "TICKET#t1", "META").await, Some(ticket_v1("t1", 3, 1)));
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    let old = faulty.replace(&TicketV1 { id: "t1".into(), priority: 1, views: 2 }).await.unwrap();
    assert!(matches!(&old, Returned::Lost { entity: "Ticket", key } if key == "PK=TICKET#t1 SK=META"), "{old:?}");
    assert_eq!(common::raw_item(&plain, "TICKET#t1", "META").await, Some(ticket_v1("t1", 1, 2)));

    // A versioned put of version 1 over version 1, lost once: Ok, the lock version bumped once.
    let mut note = NoteV1 { id: "a".into(), text: "one".into(), version: 0 };
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.put(&mut note).await.unwrap();
    note.text = "two".into();
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.put(&mut note).await.unwrap();
    assert_eq!(note.version, 2);
    assert_eq!(plain.get_consistent(NoteV1::key("a")).await.unwrap(), Some(note));

    // Not applied (the answer lost before DynamoDB saw it) over version 2: the resend is
    // refused for the version, and says so. (The item has no write history, as another
    // client writes it, so the resend can tell the first attempt was not applied.)
    let v2 = TicketV2 { id: "t3".into(), due_in_hours: 24, views: 5 }.to_item().unwrap();
    plain.client().put_item().table_name(plain.name()).set_item(Some(v2)).send().await.unwrap();
    let before = whole(&plain, "TICKET#t3").await.unwrap();
    lose(&faults, Fault::InternalServerError, "PutItem", Some(1));
    let e = faulty.put(&TicketV1 { id: "t3".into(), priority: 1, views: 9 }).await.unwrap_err();
    assert!(refused(&e, "put", "Ticket", "PK=TICKET#t3 SK=META"), "{e:?}");
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 1, 1));
    assert_eq!(whole(&plain, "TICKET#t3").await.unwrap(), before);
}

/// The condition a put and a replace of an entity with a schema version send: the guard of
/// every write, then the stored version not newer than the struct's.
#[test]
fn the_condition_of_a_put_and_a_replace_of_version_1() {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(aws_sdk_dynamodb::config::BehaviorVersion::latest())
        .region(aws_sdk_dynamodb::config::Region::new("us-east-1"))
        .build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), "tickets");
    let v1 = TicketV1 { id: "t1".into(), priority: 1, views: 0 };
    let put = table.render().put(&v1).unwrap().remove(0).into_put_item().unwrap();
    assert_eq!(
        put.condition_expression(),
        Some("(attribute_not_exists(#n0) OR #n1 = :v0) AND (attribute_not_exists(#n2) OR #n2 <= :v1)")
    );
    let names = put.expression_attribute_names().unwrap();
    assert_eq!(
        names,
        &HashMap::from([("#n0".into(), "PK".into()), ("#n1".into(), "_type".into()), ("#n2".into(), "_schema".into())])
    );
    let values = put.expression_attribute_values().unwrap();
    assert_eq!(values, &HashMap::from([(":v0".into(), s("Ticket")), (":v1".into(), n("1"))]));
    let replace = table.render().replace(&v1).unwrap().remove(0).into_put_item().unwrap();
    assert_eq!(
        replace.condition_expression(),
        Some("attribute_exists(#n0) AND #n1 = :v0 AND (attribute_not_exists(#n2) OR #n2 <= :v1)")
    );
    // With a lock version, after the schema version.
    let note = NoteV1 { id: "a".into(), text: "x".into(), version: 3 };
    let put = table.render().put(&note).unwrap().remove(0).into_put_item().unwrap();
    assert_eq!(
        put.condition_expression(),
        Some("(attribute_not_exists(#n0) OR #n1 = :v0) AND (attribute_not_exists(#n2) OR #n2 <= :v1) AND (#n3 = :v2)")
    );
}

//! Versioning, time and TTL against DynamoDB Local: optimistic locking on every write path
//! (put, replace, update, transactions, unique entities), a race of 10 writers from one read,
//! the timestamps the library maintains, and TTL stored as epoch seconds with the table's TTL
//! setting.

use crate::common;

use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, TimeToLiveStatus};
use dynamo_entity::transact::{ActionKind, CancellationCode};
use dynamo_entity::value::ValueError;
use dynamo_entity::versioning::EpochSeconds;
use dynamo_entity::{Entity, Error, Table, Timestamp};

/// A versioned document with both timestamps; GSI1 lists an author's documents by creation time.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META", gsi1 = "AUTHOR#<author>", gsi1_sk = "<created_at>")]
struct Doc {
    id: String,
    author: String,
    title: String,
    #[entity(version)]
    version: u64,
    #[entity(created_at)]
    created_at: Timestamp,
    #[entity(updated_at, rename = "modified")]
    updated_at: Timestamp,
}

fn doc(id: &str, title: &str) -> Doc {
    Doc {
        id: id.into(),
        author: "ann".into(),
        title: title.into(),
        version: 0,
        created_at: Timestamp::EPOCH,
        updated_at: Timestamp::EPOCH,
    }
}

/// A session that may expire; tokens share its TTL attribute name.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SESSION#<id>", sk = "META")]
struct Session {
    id: String,
    user: String,
    #[entity(ttl)]
    expires_at: Option<Timestamp>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TOKEN#<id>", sk = "META")]
struct Token {
    id: String,
    #[entity(ttl)]
    expires_at: Timestamp,
}

/// A TTL attribute of another name than `Session`'s.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CACHE#<id>", sk = "META")]
struct CacheEntry {
    id: String,
    #[entity(ttl)]
    evict_at: Timestamp,
}

/// A versioned entity with a unique field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "PROFILE")]
struct Member {
    id: String,
    #[entity(unique)]
    email: String,
    #[entity(version)]
    rev: u32,
}

/// A version that runs out at 255.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TINY#<id>", sk = "META")]
struct Tiny {
    id: String,
    #[entity(version)]
    version: u8,
}

/// Not versioned.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META")]
struct Note {
    id: String,
    text: String,
}

fn ts(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

fn n(s: &str) -> AttributeValue {
    AttributeValue::N(s.to_owned())
}

async fn stored(table: &Table, id: &str) -> Doc {
    table.get_consistent(Doc::key(id)).await.unwrap().expect("the document exists")
}

fn conflict(err: Error) -> (u64, Option<u64>) {
    match err {
        Error::VersionConflict { entity, expected, found, .. } => {
            assert!(entity == "Doc" || entity == "Member", "{entity}");
            (expected, found)
        }
        other => panic!("expected VersionConflict, got {other:?}"),
    }
}

// Optimistic locking -------------------------------------------------------------------------

#[tokio::test]
async fn create_stores_version_1_and_each_put_the_next() {
    let table = common::table("ver_put", &[Doc::schema()]).await;
    // A create stores version 1 whatever the struct holds.
    table.create(&Doc { version: 7, ..doc("d1", "Draft") }).await.unwrap();
    let item = common::raw_item(&table, "DOC#d1", "META").await.unwrap();
    assert_eq!(item["version"], n("1"));
    let read = stored(&table, "d1").await;
    assert_eq!(read.version, 1);

    // A put with the version read stores the next one.
    table.put(&Doc { title: "Second".into(), ..read.clone() }).await.unwrap();
    let second = stored(&table, "d1").await;
    assert_eq!((second.version, second.title.as_str()), (2, "Second"));

    // A put from the stale read loses, and changes nothing.
    let err = table.put(&Doc { title: "Stale".into(), ..read.clone() }).await.unwrap_err();
    assert_eq!(err.to_string(), "Doc PK=DOC#d1 SK=META changed since it was read: expected version 1, found version 2");
    match err {
        Error::VersionConflict { entity, key, expected, found } => {
            assert_eq!((entity, key.as_str(), expected, found), ("Doc", "PK=DOC#d1 SK=META", 1, Some(2)));
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(stored(&table, "d1").await, second);

    // Version 0 means "not stored yet": a put of a new item works once.
    table.put(&doc("d2", "New")).await.unwrap();
    assert_eq!(stored(&table, "d2").await.version, 1);
    assert_eq!(conflict(table.put(&doc("d2", "Again")).await.unwrap_err()), (0, Some(1)));
    assert_eq!(stored(&table, "d2").await.title, "New");

    // A put of a version that was never stored: there is no item to match.
    assert_eq!(conflict(table.put(&Doc { version: 3, ..doc("d3", "Ghost") }).await.unwrap_err()), (3, None));
    assert_eq!(common::raw_item(&table, "DOC#d3", "META").await, None);
}

#[tokio::test]
async fn a_mutable_reference_gets_the_stored_version_and_times() {
    let table = common::table("ver_mut", &[Doc::schema()]).await;
    let mut d = doc("d1", "Draft");
    let before = Timestamp::now();
    table.create(&mut d).await.unwrap();
    assert_eq!(d.version, 1);
    assert!(d.created_at >= before && d.created_at == d.updated_at, "{d:?}");
    assert_eq!(stored(&table, "d1").await, d);

    d.title = "Final".into();
    table.put(&mut d).await.unwrap();
    assert_eq!(d.version, 2);
    assert_eq!(stored(&table, "d1").await, d);
    d.title = "Replaced".into();
    let old = table.replace(&mut d).await.unwrap().unwrap();
    assert_eq!((old.version, old.title.as_str()), (2, "Final"));
    assert_eq!(d.version, 3);
    assert_eq!(stored(&table, "d1").await, d);

    // `&E` leaves the value alone.
    let copy = d.clone();
    table.put(&copy).await.unwrap();
    assert_eq!(copy, d);
    assert_eq!(stored(&table, "d1").await.version, 4);
}

#[tokio::test]
async fn replace_checks_the_version_and_existence() {
    let table = common::table("ver_replace", &[Doc::schema()]).await;
    let mut d = doc("d1", "One");
    table.create(&mut d).await.unwrap();
    table.replace(&Doc { title: "Two".into(), ..d.clone() }).await.unwrap();
    assert_eq!(conflict(table.replace(&Doc { title: "Stale".into(), ..d.clone() }).await.unwrap_err()), (1, Some(2)));
    assert_eq!(stored(&table, "d1").await.title, "Two");
    let err = table.replace(&doc("nobody", "x")).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Doc", .. }), "{err:?}");
    let err = table.replace(&Doc { version: 4, ..doc("nobody", "x") }).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Doc", .. }), "{err:?}");
}

#[tokio::test]
async fn updates_check_and_bump_the_version() {
    let table = common::table("ver_update", &[Doc::schema(), Note::schema()]).await;
    let mut d = doc("d1", "One");
    table.create(&mut d).await.unwrap();

    let updated =
        table.update(Doc::key("d1")).set(Doc::TITLE, &"Two".to_owned()).if_version(1).send().await.unwrap().unwrap();
    assert_eq!((updated.version, updated.title.as_str()), (2, "Two"));
    assert_eq!(stored(&table, "d1").await, updated);

    // A stale version: nothing changes.
    let err = table.update(Doc::key("d1")).set(Doc::TITLE, &"Stale".to_owned()).if_version(1).send().await.unwrap_err();
    assert_eq!(conflict(err), (1, Some(2)));
    assert_eq!(stored(&table, "d1").await, updated);

    // Without a version: refused before sending.
    let err = table.update(Doc::key("d1")).set(Doc::TITLE, &"Blind".to_owned()).send().await.unwrap_err();
    match &err {
        Error::Invalid { reason } => {
            assert!(reason.contains("Doc is versioned for optimistic locking (field `version`)"), "{reason}");
            assert!(reason.contains("`.if_version(v)`") && reason.contains("`.any_version()`"), "{reason}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(stored(&table, "d1").await, updated);

    // An explicit `any_version` updates whatever the version is, and still bumps it.
    let any =
        table.update(Doc::key("d1")).set(Doc::TITLE, &"Any".to_owned()).any_version().send().await.unwrap().unwrap();
    assert_eq!((any.version, any.title.as_str()), (3, "Any"));

    // A missing item is NotFound, whatever the version; a version on an unversioned entity is
    // refused.
    let err = table.update(Doc::key("nobody")).set(Doc::TITLE, &"x".to_owned()).if_version(1).send().await;
    assert!(matches!(err, Err(Error::NotFound { .. })), "{err:?}");
    table.create(&Note { id: "n1".into(), text: "hi".into() }).await.unwrap();
    let err = table.update(Note::key("n1")).set(Note::TEXT, &"x".to_owned()).if_version(1).send().await;
    assert!(
        matches!(&err, Err(Error::Invalid { reason }) if reason.contains("Note has no `#[entity(version)]` field"))
    );
}

#[tokio::test]
async fn deletes_at_a_version() {
    let table = common::table("ver_delete", &[Doc::schema(), Note::schema(), Member::schema()]).await;
    let mut d = doc("d1", "One");
    table.create(&mut d).await.unwrap();
    table.put(&mut d).await.unwrap();
    assert_eq!(conflict(table.delete_if_version(Doc::key("d1"), 1).await.unwrap_err()), (1, Some(2)));
    assert_eq!(stored(&table, "d1").await, d);
    assert_eq!(table.delete_if_version(Doc::key("d1"), 2).await.unwrap(), d);
    assert_eq!(common::raw_item(&table, "DOC#d1", "META").await, None);
    let err = table.delete_if_version(Doc::key("d1"), 2).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Doc", .. }), "{err:?}");
    let err = table.delete_if_version(Note::key("n1"), 1).await.unwrap_err();
    assert!(matches!(&err, Error::Invalid { reason } if reason.contains("Note has no `#[entity(version)]` field")));

    // With a unique field: the guard goes with the item, at the right version only.
    let mut m = Member { id: "m1".into(), email: "ann@example.test".into(), rev: 0 };
    table.create(&mut m).await.unwrap();
    table.put(&mut m).await.unwrap();
    assert_eq!(conflict(table.delete_if_version(Member::key("m1"), 1).await.unwrap_err()), (1, Some(2)));
    assert!(table.get_by_unique(Member::EMAIL, &m.email).await.unwrap().is_some());
    assert_eq!(table.delete_if_version(Member::key("m1"), 2).await.unwrap(), m);
    assert!(table.get_by_unique(Member::EMAIL, &m.email).await.unwrap().is_none());
    let guard = common::raw_item(&table, "UNIQUE#Member#email#ann@example.test", "UNIQUE").await;
    assert_eq!(guard, None);
    let err = table.delete_if_version(Member::key("m1"), 2).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Member", .. }), "{err:?}");
}

#[tokio::test]
async fn ten_concurrent_puts_from_one_read_exactly_one_wins() {
    let table = common::table("ver_race", &[Doc::schema()]).await;
    let mut d = doc("d1", "Start");
    table.create(&mut d).await.unwrap();
    let read = stored(&table, "d1").await;
    let tasks: Vec<_> = (0..10)
        .map(|i| {
            let (table, value) = (table.clone(), Doc { title: format!("writer {i}"), ..read.clone() });
            tokio::spawn(async move { table.put(&value).await.map(|()| i) })
        })
        .collect();
    let mut winners = Vec::new();
    for t in tasks {
        match t.await.unwrap() {
            Ok(i) => winners.push(i),
            Err(e) => assert_eq!(conflict(e), (1, Some(2))),
        }
    }
    assert_eq!(winners.len(), 1, "{winners:?}");
    let after = stored(&table, "d1").await;
    assert_eq!((after.version, after.title), (2, format!("writer {}", winners[0])));
}

#[tokio::test]
async fn items_without_a_version_read_as_version_0() {
    let table = common::table("ver_legacy", &[Doc::schema()]).await;
    // Stored before the entity had a version.
    let mut item = doc("d1", "Legacy").to_item().unwrap();
    item.remove("version");
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    let legacy = stored(&table, "d1").await;
    assert_eq!(legacy.version, 0);
    // Version 0 may replace it, once.
    table.put(&Doc { title: "Versioned".into(), ..legacy.clone() }).await.unwrap();
    assert_eq!(stored(&table, "d1").await.version, 1);
    assert_eq!(conflict(table.put(&legacy).await.unwrap_err()), (0, Some(1)));
}

#[tokio::test]
async fn a_version_that_does_not_fit_its_type_is_refused_before_sending() {
    let table = common::table("ver_tiny", &[Tiny::schema()]).await;
    let err = table.put(&Tiny { id: "t".into(), version: 255 }).await.unwrap_err();
    match &err {
        Error::Invalid { reason } => assert!(reason.contains("Tiny.version is 255, the highest version"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let err = table.update(Tiny::key("t")).with_version_change().if_version(255).send().await.unwrap_err();
    assert!(matches!(err, Error::Invalid { .. }), "{err:?}");
    assert_eq!(common::raw_item(&table, "TINY#t", "META").await, None);
    // With any_version, DynamoDB refuses the bump past 255 through the update's range guard.
    let mut item = Tiny { id: "t".into(), version: 0 }.to_item().unwrap();
    item.insert("version".into(), n("255"));
    item.insert("note".into(), AttributeValue::S("x".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    let err = table.update(Tiny::key("t")).with_version_change().any_version().send().await.unwrap_err();
    assert!(matches!(err, Error::OutOfRange { field: "version", .. }), "{err:?}");
}

/// An update of `Tiny`, which has no field but its version: `set_if_absent` on a field handle
/// built for the test, to have something to change.
trait TinyUpdate {
    fn with_version_change(self) -> Self;
}

impl TinyUpdate for dynamo_entity::update::UpdateRequest<Tiny> {
    fn with_version_change(self) -> Self {
        self.set_if_absent(dynamo_entity::Field::<Tiny, String>::new("note", "note", None), &"x".to_owned())
    }
}

// Transactions and unique entities -----------------------------------------------------------

#[tokio::test]
async fn transactions_check_and_bump_versions() {
    let table = common::table("ver_tx", &[Doc::schema()]).await;
    table.transact().create(&Doc { version: 9, ..doc("d1", "One") }).create(&doc("d2", "Two")).send().await.unwrap();
    let (d1, d2) = (stored(&table, "d1").await, stored(&table, "d2").await);
    assert_eq!((d1.version, d2.version), (1, 1));
    assert!(d1.created_at > Timestamp::EPOCH && d1.updated_at == d1.created_at);

    // A put and an update at the versions read.
    table
        .transact()
        .put(&Doc { title: "One'".into(), ..d1.clone() })
        .update(table.update(Doc::key("d2")).set(Doc::TITLE, &"Two'".to_owned()).if_version(1))
        .send()
        .await
        .unwrap();
    assert_eq!(stored(&table, "d1").await.version, 2);
    assert_eq!(stored(&table, "d2").await.version, 2);

    // Stale versions cancel the transaction; each failed action brings the stored version.
    let err = table
        .transact()
        .replace(&Doc { title: "stale".into(), ..d1.clone() })
        .update(table.update(Doc::key("d2")).set(Doc::TITLE, &"stale".to_owned()).if_version(1))
        .send()
        .await
        .unwrap_err();
    let Error::TransactionCanceled { reasons } = err else { panic!("{err:?}") };
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    for (r, kind) in reasons.iter().zip([ActionKind::Replace, ActionKind::Update]) {
        assert_eq!((r.action, &r.code), (kind, &CancellationCode::ConditionalCheckFailed));
        assert_eq!(r.item.as_ref().unwrap()["version"], n("2"));
    }
    assert_eq!(stored(&table, "d1").await.title, "One'");

    // An update without a version is refused before sending.
    let err = table.transact().update(table.update(Doc::key("d2")).set(Doc::TITLE, &"x".to_owned())).send().await;
    assert!(matches!(err, Err(Error::Invalid { .. })), "{err:?}");
}

#[tokio::test]
async fn unique_entities_check_versions_too() {
    let table = common::table("ver_unique", &[Member::schema()]).await;
    let mut m = Member { id: "m1".into(), email: "ann@example.test".into(), rev: 0 };
    table.create(&mut m).await.unwrap();
    assert_eq!(m.rev, 1);
    let read = m.clone();
    m.email = "ann@example.org".into();
    table.put(&mut m).await.unwrap();
    assert_eq!(m.rev, 2);
    // The stale read loses before its guard moves.
    let err = table.put(&Member { email: "ann@example.net".into(), ..read.clone() }).await.unwrap_err();
    assert_eq!(conflict(err), (1, Some(2)));
    let err = table.replace(&Member { email: "ann@example.net".into(), ..read.clone() }).await.unwrap_err();
    assert_eq!(conflict(err), (1, Some(2)));
    assert!(table.get_by_unique(Member::EMAIL, &"ann@example.net".to_owned()).await.unwrap().is_none());
    // A unique update at a stale version loses too; at the current one it moves the guard.
    let err = table
        .update(Member::key("m1"))
        .set_unique(Member::EMAIL, &"ann@example.net".to_owned())
        .if_version(1)
        .send()
        .await
        .unwrap_err();
    assert_eq!(conflict(err), (1, Some(2)));
    table
        .update(Member::key("m1"))
        .set_unique(Member::EMAIL, &"ann@example.net".to_owned())
        .if_version(2)
        .send()
        .await
        .unwrap();
    let now = table.get_by_unique(Member::EMAIL, &"ann@example.net".to_owned()).await.unwrap().unwrap();
    assert_eq!(now.rev, 3);
    assert!(table.get_by_unique(Member::EMAIL, &"ann@example.org".to_owned()).await.unwrap().is_none());
}

// Timestamps ---------------------------------------------------------------------------------

#[tokio::test]
async fn timestamps_are_set_on_create_put_and_update() {
    let table = common::table("ver_times", &[Doc::schema()]).await;
    let before = Timestamp::now();
    table.create(&Doc { created_at: ts("2001-01-01T00:00:00.000Z"), ..doc("d1", "One") }).await.unwrap();
    let after = Timestamp::now();
    let created = stored(&table, "d1").await;
    assert!(before <= created.created_at && created.created_at <= after, "{created:?}");
    assert_eq!(created.updated_at, created.created_at);
    // The GSI key built from the creation time follows the time the create set.
    let item = common::raw_item(&table, "DOC#d1", "META").await.unwrap();
    assert_eq!(item["GSI1SK"], AttributeValue::S(created.created_at.to_string()));
    assert_eq!(item["modified"], AttributeValue::S(created.created_at.to_string()));
    let listed = table.query(Doc::gsi1("ann")).all().await.unwrap();
    assert_eq!(listed, vec![created.clone()]);

    // A put keeps created_at as the struct holds it and sets updated_at.
    tokio::time::sleep(Duration::from_millis(5)).await;
    table.put(&Doc { title: "Two".into(), ..created.clone() }).await.unwrap();
    let put = stored(&table, "d1").await;
    assert_eq!(put.created_at, created.created_at);
    assert!(put.updated_at > created.updated_at && put.updated_at <= Timestamp::now(), "{put:?}");

    // An update sets updated_at in the same request and returns it.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let updated =
        table.update(Doc::key("d1")).set(Doc::TITLE, &"Three".to_owned()).if_version(2).send().await.unwrap().unwrap();
    assert_eq!(updated.created_at, created.created_at);
    assert!(updated.updated_at > put.updated_at && updated.updated_at <= Timestamp::now(), "{updated:?}");
    assert_eq!(stored(&table, "d1").await, updated);
}

// TTL ----------------------------------------------------------------------------------------

#[tokio::test]
async fn ttl_is_stored_as_epoch_seconds() {
    let table = common::table("ttl_store", &[Session::schema(), Token::schema()]).await;
    let expires = ts("2031-02-03T04:05:06.789Z");
    let s = Session { id: "s1".into(), user: "ann".into(), expires_at: Some(expires) };
    table.put(&s).await.unwrap();
    let item = common::raw_item(&table, "SESSION#s1", "META").await.unwrap();
    assert_eq!(item["expires_at"], n("1927857906"));
    // Second precision: the milliseconds are dropped.
    let read = table.get(Session::key("s1")).await.unwrap().unwrap();
    assert_eq!(read.expires_at, Some(ts("2031-02-03T04:05:06.000Z")));
    assert_eq!(read.expires_at.unwrap().as_secs(), expires.as_secs());

    // None stores no attribute: the item never expires.
    table.put(&Session { id: "s2".into(), user: "bob".into(), expires_at: None }).await.unwrap();
    let item = common::raw_item(&table, "SESSION#s2", "META").await.unwrap();
    assert!(!item.contains_key("expires_at"), "{item:?}");
    assert_eq!(table.get(Session::key("s2")).await.unwrap().unwrap().expires_at, None);

    // An update and a condition write and compare numbers too.
    let later = ts("2032-01-01T00:00:00.000Z");
    let moved = table
        .update(Session::key("s1"))
        .set(Session::EXPIRES_AT, &Some(EpochSeconds(later)))
        .condition(Session::EXPIRES_AT.lt(&Some(EpochSeconds(later))))
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.expires_at, Some(later));
    assert_eq!(common::raw_item(&table, "SESSION#s1", "META").await.unwrap()["expires_at"], n("1956528000"));

    // A required TTL field, and one in the past: DynamoDB Local never deletes it (DynamoDB
    // deletes such items in the background, typically within days).
    let past = Timestamp::now().add_millis(-3_600_000);
    table.put(&Token { id: "t1".into(), expires_at: past }).await.unwrap();
    let token = table.get_consistent(Token::key("t1")).await.unwrap().unwrap();
    assert_eq!(token.expires_at.as_secs(), past.as_secs());
}

#[tokio::test]
async fn ttl_decode_errors_are_typed() {
    let table = common::table("ttl_decode", &[Session::schema()]).await;
    for (value, expected) in [
        (AttributeValue::S("2031-02-03T04:05:06.789Z".into()), ValueError::WrongType { expected: "N", found: "S" }),
        (n("1.5"), ValueError::NotInteger { text: "1.5".into(), ty: "a Timestamp (epoch seconds)" }),
        // Past the year 9999.
        (n("253402300800"), ValueError::Number { text: "253402300800".into(), ty: "a Timestamp (epoch seconds)" }),
    ] {
        let mut item = Session { id: "s1".into(), user: "ann".into(), expires_at: None }.to_item().unwrap();
        item.insert("expires_at".into(), value);
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
        match table.get(Session::key("s1")).await.unwrap_err() {
            Error::Decode { entity, attribute, key, source } => {
                assert_eq!((entity, attribute, key.as_str()), ("Session", "expires_at", "PK=SESSION#s1 SK=META"));
                assert_eq!(source, expected);
            }
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test]
async fn create_table_enables_ttl_on_the_attribute() {
    let table = common::table("ttl_table", &[Session::schema(), Token::schema(), Doc::schema()]).await;
    let resp = table.client().describe_time_to_live().table_name(table.name()).send().await.unwrap();
    let ttl = resp.time_to_live_description().expect("a TTL description");
    assert_eq!(ttl.time_to_live_status(), Some(&TimeToLiveStatus::Enabled));
    assert_eq!(ttl.attribute_name(), Some("expires_at"));

    // Without a TTL field, TTL stays disabled.
    let plain = common::table("ttl_none", &[Doc::schema()]).await;
    let resp = plain.client().describe_time_to_live().table_name(plain.name()).send().await.unwrap();
    assert_eq!(
        resp.time_to_live_description().and_then(|d| d.time_to_live_status()),
        Some(&TimeToLiveStatus::Disabled)
    );
}

#[tokio::test]
async fn entities_with_different_ttl_attributes_cannot_share_a_table() {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.unwrap();
    let table = Table::new(server.client(), dynamo_entity_local::unique_table_name("ttl_clash"));
    let err = table.create_table(&[Session::schema(), CacheEntry::schema()]).await.unwrap_err();
    match &err {
        Error::Invalid { reason } => {
            assert!(
                reason
                    .contains("Session keeps its time to live in attribute `expires_at` and CacheEntry in `evict_at`"),
                "{reason}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Nothing was sent: the table does not exist.
    let described = table.client().describe_table().table_name(table.name()).send().await;
    assert!(described.is_err());
}

/// Timestamps without a version.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMO#<id>", sk = "META")]
struct Memo {
    id: String,
    #[entity(updated_at)]
    updated_at: Timestamp,
}

#[tokio::test]
async fn batches_refuse_versioned_entities_and_stamp_updated_at() {
    let table = common::table("versioned_batch", &[Doc::schema(), Memo::schema()]).await;
    let err = table.batch_write().put(&doc("d1", "t")).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: a batch cannot put Doc: it is versioned, and BatchWriteItem has no conditions to check the \
         version; use Table::put"
    );
    let before = Timestamp::now();
    let outcome =
        table.batch_write().put(&Memo { id: "m1".into(), updated_at: Timestamp::EPOCH }).send().await.unwrap();
    assert_eq!(outcome.written, 1);
    let after = Timestamp::now();
    let stored = table.get(Memo::key("m1")).await.unwrap().unwrap();
    assert!(stored.updated_at >= before && stored.updated_at <= after, "{stored:?}");
}

/// A sparse GSI on an optional tag, sorted by the creation time the library maintains.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "POST#<id>", sk = "META", gsi5 = "TAG#<tag>", gsi5_sk = "<created_at>")]
struct Post {
    id: String,
    tag: Option<String>,
    #[entity(created_at)]
    created_at: Timestamp,
}

#[tokio::test]
async fn a_gsi_sorted_by_created_at_follows_its_optional_partition() {
    let table = common::table("post_tag", &[Post::schema()]).await;
    let mut post = Post { id: "p1".into(), tag: None, created_at: Timestamp::EPOCH };
    table.create(&mut post).await.unwrap();
    assert_eq!(table.query(Post::gsi5("rust")).all().await.unwrap(), vec![]);
    // created_at cannot be set by an update; the sort key is copied from the stored attribute.
    let tagged = table.update(Post::key("p1")).set(Post::TAG, &Some("rust".into())).send().await.unwrap().unwrap();
    assert_eq!(tagged, Post { tag: Some("rust".into()), ..post.clone() });
    assert_eq!(table.query(Post::gsi5("rust")).all().await.unwrap(), vec![tagged.clone()]);
    let item = common::raw_item(&table, "POST#p1", "META").await.unwrap();
    assert_eq!(item["GSI5SK"], item["created_at"]);
    let untagged = table.update(Post::key("p1")).set(Post::TAG, &None).send().await.unwrap().unwrap();
    assert_eq!(untagged.tag, None);
    assert_eq!(table.query(Post::gsi5("rust")).all().await.unwrap(), vec![]);
}

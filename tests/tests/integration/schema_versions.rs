//! Versioned entity schemas (`#[entity(schema(version = N, from = Prev))]`,
//! `dynamo_entity::schema::evolve`): items of schema version 1 written by other clients (the
//! Rust SDK's `PutItem` directly, and the AWS SDK for JavaScript v3) and of version 2 read as
//! version 3 through every read path (get, query, item collection decoders, batch get,
//! transactional get, scans of the entity and of the table-level enum, stream records from
//! DynamoDB Local's stream, lenient reads), with nothing written; written back only by
//! `Table::upgrade` / `Table::upgrade_key`, on the condition that the stored item is as read;
//! an item of a version newer than declared is a typed error, and a lenient read's skipped item.

use crate::common;

use std::collections::BTreeMap;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, StreamSpecification, StreamViewType};
use aws_sdk_dynamodbstreams::types::ShardIteratorType;
use dynamo_entity::migrate::upgrade::{Upgraded, WriteBack};
use dynamo_entity::stream::{Change, ChangeKind};
use dynamo_entity::{Collection, Entity, Error, Item, Page, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use futures::TryStreamExt;

/// Version 1, as launched: the price in whole units, one title.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 1))]
pub struct SkillV1 {
    pub id: String,
    pub title: String,
    pub category: String,
    pub price: u32,
}

/// Version 2: the price in cents.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 2, from = SkillV1))]
pub struct SkillV2 {
    pub id: String,
    pub title: String,
    pub category: String,
    pub price_cents: u64,
}

impl From<SkillV1> for SkillV2 {
    fn from(v1: SkillV1) -> SkillV2 {
        SkillV2 { id: v1.id, title: v1.title, category: v1.category, price_cents: u64::from(v1.price) * 100 }
    }
}

/// Version 3, the struct the program uses: the title split at `": "`, optimistic locking.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<id>",
    schema(version = 3, from = SkillV2),
)]
pub struct Skill {
    pub id: String,
    pub name: String,
    pub subtitle: Option<String>,
    pub category: String,
    pub price_cents: u64,
    #[entity(version)]
    pub lock: u64,
}

impl From<SkillV2> for Skill {
    fn from(v2: SkillV2) -> Skill {
        let (name, subtitle) = match v2.title.split_once(": ") {
            Some((name, subtitle)) => (name.to_owned(), Some(subtitle.to_owned())),
            None => (v2.title, None),
        };
        Skill { id: v2.id, name, subtitle, category: v2.category, price_cents: v2.price_cents, lock: 0 }
    }
}

/// An entity without versions in the same item collection.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<n>")]
pub struct Review {
    pub skill_id: String,
    pub n: u32,
    pub stars: u8,
}

#[derive(Collection, Debug, PartialEq)]
pub struct SkillPage {
    pub skill: Skill,
    pub reviews: Vec<Review>,
}

#[derive(TableDef)]
#[table(entities(Skill, Review), gsi1, item(derive(Debug, Clone, PartialEq)))]
pub struct Shop;

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// A version 1 item as another client writes it: no schema version attribute.
pub(crate) fn v1_item(id: &str, title: &str, category: &str, price: u32) -> Item {
    Item::from([
        ("PK".to_owned(), s(&format!("SKILL#{id}"))),
        ("SK".to_owned(), s("META")),
        ("_type".to_owned(), s("Skill")),
        ("id".to_owned(), s(id)),
        ("title".to_owned(), s(title)),
        ("category".to_owned(), s(category)),
        ("price".to_owned(), n(&price.to_string())),
        ("GSI1PK".to_owned(), s(&format!("CAT#{category}"))),
        ("GSI1SK".to_owned(), s(id)),
    ])
}

/// A version 2 item as another client writes it, stamped `_schema = 2`.
pub(crate) fn v2_item(id: &str, title: &str, category: &str, price_cents: u64) -> Item {
    let mut item = v1_item(id, title, category, 0);
    item.remove("price");
    item.insert("price_cents".into(), n(&price_cents.to_string()));
    item.insert("_schema".into(), n("2"));
    item
}

pub(crate) fn skill(id: &str, name: &str, subtitle: Option<&str>, price_cents: u64, lock: u64) -> Skill {
    Skill {
        id: id.into(),
        name: name.into(),
        subtitle: subtitle.map(Into::into),
        category: "dev".into(),
        price_cents,
        lock,
    }
}

/// What every read returns for the items of [`fill`]: s1 and s2 (version 1), s3 (version 2)
/// upgraded in memory, s4 as created at version 3.
fn expected() -> Vec<Skill> {
    vec![
        skill("s1", "Rust 101", Some("basics"), 1200, 0),
        skill("s2", "Go tour", None, 700, 0),
        skill("s3", "Zig", Some("comptime"), 4550, 0),
        skill("s4", "Nim", Some("macros"), 990, 1),
    ]
}

pub(crate) async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.expect("PutItem succeeds");
}

pub(crate) async fn new_table(test: &str, stream: bool) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Shop::layout().unwrap()).await.expect("the table is created");
    if stream {
        let spec = StreamSpecification::builder()
            .stream_enabled(true)
            .stream_view_type(StreamViewType::NewAndOldImages)
            .build()
            .unwrap();
        table.client().update_table().table_name(table.name()).stream_specification(spec).send().await.unwrap();
    }
    table
}

/// s1, s2 (version 1, raw `PutItem`), s3 (version 2, raw), s4 (created by the library at
/// version 3), and two reviews of s1.
async fn fill(table: &Table) {
    raw_put(table, v1_item("s1", "Rust 101: basics", "dev", 12)).await;
    raw_put(table, v1_item("s2", "Go tour", "dev", 7)).await;
    raw_put(table, v2_item("s3", "Zig: comptime", "dev", 4550)).await;
    let mut s4 = skill("s4", "Nim", Some("macros"), 990, 0);
    table.create(&mut s4).await.unwrap();
    assert_eq!(s4.lock, 1);
    table.put(&Review { skill_id: "s1".into(), n: 1, stars: 5 }).await.unwrap();
    table.put(&Review { skill_id: "s1".into(), n: 2, stars: 4 }).await.unwrap();
}

/// Every stored item, by key, read with the SDK alone.
async fn stored(table: &Table) -> BTreeMap<String, Item> {
    common::scan_all(table).await.into_iter().map(|i| (format!("{}/{}", show(&i["PK"]), show(&i["SK"])), i)).collect()
}

fn show(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) | AttributeValue::N(s) => s.clone(),
        other => format!("{other:?}"),
    }
}

fn by_id(mut skills: Vec<Skill>) -> Vec<Skill> {
    skills.sort_by(|a, b| a.id.cmp(&b.id));
    skills
}

/// The records of the table's stream, in order.
async fn stream_records(table: &Table) -> Vec<aws_sdk_dynamodbstreams::types::Record> {
    let server = LocalDynamoDb::shared().await.unwrap();
    let streams = server.streams_client();
    let arn = table
        .client()
        .describe_table()
        .table_name(table.name())
        .send()
        .await
        .unwrap()
        .table
        .and_then(|t| t.latest_stream_arn)
        .expect("the table has a stream");
    let description = streams.describe_stream().stream_arn(&arn).send().await.unwrap();
    let mut records = Vec::new();
    for shard in description.stream_description.unwrap().shards.unwrap_or_default() {
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard.shard_id.unwrap())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap()
            .shard_iterator;
        for _ in 0..5 {
            let Some(it) = iterator.take() else { break };
            let out = streams.get_records().shard_iterator(it).send().await.unwrap();
            let got = out.records.unwrap_or_default();
            let empty = got.is_empty();
            records.extend(got);
            iterator = out.next_shard_iterator;
            if empty && records.len() >= 6 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
    records
}

#[tokio::test]
async fn earlier_versions_read_as_the_current_one_through_every_read_path_and_nothing_is_written() {
    let table = new_table("schema_read_paths", true).await;
    fill(&table).await;
    let before = stored(&table).await;
    assert_eq!(before.len(), 6);
    let want = expected();
    let reviews =
        vec![Review { skill_id: "s1".into(), n: 1, stars: 5 }, Review { skill_id: "s1".into(), n: 2, stars: 4 }];

    // GetItem, eventually and strongly consistent.
    for w in &want {
        assert_eq!(table.get(Skill::key(&w.id)).await.unwrap().as_ref(), Some(w));
        assert_eq!(table.get_consistent(Skill::key(&w.id)).await.unwrap().as_ref(), Some(w));
    }
    // Query of GSI1 (in GSI1SK order), and of the primary index.
    assert_eq!(table.query(Skill::gsi1("dev")).all().await.unwrap(), want);
    assert_eq!(table.query(Skill::query("s3")).all().await.unwrap(), vec![want[2].clone()]);
    // Item collection decoders: a `Collection` struct, `all` / `one`, the table-level enum.
    let items = table.collection(Skill::query("s1")).consistent_read().send().await.unwrap();
    assert_eq!(items.decode::<SkillPage>().unwrap(), SkillPage { skill: want[0].clone(), reviews: reviews.clone() });
    assert_eq!(items.one::<Skill>().unwrap(), Some(want[0].clone()));
    assert_eq!(items.all::<Skill>().unwrap(), vec![want[0].clone()]);
    assert_eq!(
        items.decode_each::<ShopItem>().unwrap(),
        vec![
            ShopItem::Skill(want[0].clone()),
            ShopItem::Review(reviews[0].clone()),
            ShopItem::Review(reviews[1].clone())
        ]
    );
    // BatchGetItem (in key order) and TransactGetItems.
    let got = table.batch_get(want.iter().map(|w| Skill::key(&w.id))).send().await.unwrap().into_result().unwrap();
    assert_eq!(got, want.iter().cloned().map(Some).collect::<Vec<_>>());
    let (a, b, c) =
        table.transact_get().get(Skill::key("s1")).get(Skill::key("s3")).get(Skill::key("none")).send().await.unwrap();
    assert_eq!((a, b, c), (Some(want[0].clone()), Some(want[2].clone()), None));
    // Scans: of the entity (parallel too) and of the table-level enum.
    assert_eq!(by_id(table.scan::<Skill>().consistent_read().all().await.unwrap()), want);
    assert_eq!(by_id(table.scan::<Skill>().parallel(3).all().await.unwrap()), want);
    let mut all: Vec<ShopItem> = table.scan_table::<ShopItem>().consistent_read().all().await.unwrap();
    all.sort_by_key(|i| match i {
        ShopItem::Skill(s) => (s.id.clone(), 0),
        ShopItem::Review(r) => (r.skill_id.clone(), r.n),
    });
    assert_eq!(
        all,
        vec![
            ShopItem::Skill(want[0].clone()),
            ShopItem::Review(reviews[0].clone()),
            ShopItem::Review(reviews[1].clone()),
            ShopItem::Skill(want[1].clone()),
            ShopItem::Skill(want[2].clone()),
            ShopItem::Skill(want[3].clone()),
        ]
    );
    // Lenient reads decode every version too, skipping nothing.
    let page = table.query(Skill::gsi1("dev")).lenient().all().await.unwrap();
    assert_eq!((page.items, page.skipped.len()), (want.clone(), 0));
    let page = items.lenient().all::<Skill>();
    assert_eq!((page.items, page.skipped), (vec![want[0].clone()], vec![]));

    // Stream records: the inserts of the raw version 1 and 2 items decode as version 3.
    let records = stream_records(&table).await;
    let changes: Vec<Change<ShopItem>> =
        records.iter().filter_map(|r| Change::<ShopItem>::from_sdk(r).unwrap()).collect();
    let skills: Vec<(ChangeKind, Option<ShopItem>)> =
        changes.into_iter().filter(|c| matches!(c.new, Some(ShopItem::Skill(_)))).map(|c| (c.kind, c.new)).collect();
    assert_eq!(skills, want.iter().map(|w| (ChangeKind::Insert, Some(ShopItem::Skill(w.clone())))).collect::<Vec<_>>());

    // No read wrote anything: every stored item is as written, byte for byte.
    assert_eq!(stored(&table).await, before);
    assert_eq!(before["SKILL#s1/META"], v1_item("s1", "Rust 101: basics", "dev", 12));
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn upgrades_are_written_back_only_when_asked() {
    let table = new_table("schema_write_back", false).await;
    fill(&table).await;
    let before = stored(&table).await;

    // Asked for: s1 (version 1, no lock version yet) is written as version 3 with lock 1.
    let up = table.upgrade_key(Skill::key("s1")).await.unwrap().unwrap();
    assert_eq!(
        up,
        Upgraded {
            value: skill("s1", "Rust 101", Some("basics"), 1200, 1),
            stored: None,
            write_back: WriteBack::Written
        }
    );
    let want_s1 = Item::from([
        ("PK".to_owned(), s("SKILL#s1")),
        ("SK".to_owned(), s("META")),
        ("_type".to_owned(), s("Skill")),
        ("_schema".to_owned(), n("3")),
        ("id".to_owned(), s("s1")),
        ("name".to_owned(), s("Rust 101")),
        ("subtitle".to_owned(), s("basics")),
        ("category".to_owned(), s("dev")),
        ("price_cents".to_owned(), n("1200")),
        ("lock".to_owned(), n("1")),
        ("GSI1PK".to_owned(), s("CAT#dev")),
        ("GSI1SK".to_owned(), s("s1")),
    ]);
    let after = stored(&table).await;
    assert_eq!(after["SKILL#s1/META"], want_s1);
    // Nothing else changed.
    let mut others = before.clone();
    others.insert("SKILL#s1/META".into(), want_s1.clone());
    assert_eq!(after, others);
    // It reads back as the value returned; upgrading it again writes nothing.
    assert_eq!(table.get(Skill::key("s1")).await.unwrap(), Some(up.value.clone()));
    let again = table.upgrade_key(Skill::key("s1")).await.unwrap().unwrap();
    assert_eq!((again.value, again.stored, again.write_back), (up.value, Some(3), WriteBack::Current));
    assert_eq!(stored(&table).await["SKILL#s1/META"], want_s1);

    // An item as read (a version 2 one) upgrades the same way.
    let raw = common::raw_item(&table, "SKILL#s3", "META").await.unwrap();
    let up: Upgraded<Skill> = table.upgrade(&raw).await.unwrap();
    assert_eq!((up.stored, up.write_back), (Some(2), WriteBack::Written));
    assert_eq!(up.value, skill("s3", "Zig", Some("comptime"), 4550, 1));
    let mut want_s3 = want_s1.clone();
    for (k, v) in [
        ("PK", s("SKILL#s3")),
        ("id", s("s3")),
        ("name", s("Zig")),
        ("subtitle", s("comptime")),
        ("price_cents", n("4550")),
        ("GSI1SK", s("s3")),
    ] {
        want_s3.insert(k.into(), v);
    }
    assert_eq!(common::raw_item(&table, "SKILL#s3", "META").await.unwrap(), want_s3);
    // A title without a subtitle: no `subtitle` attribute is written.
    let up = table.upgrade_key(Skill::key("s2")).await.unwrap().unwrap();
    assert_eq!(up.write_back, WriteBack::Written);
    let s2 = common::raw_item(&table, "SKILL#s2", "META").await.unwrap();
    assert!(!s2.contains_key("subtitle") && !s2.contains_key("title") && !s2.contains_key("price"));
    assert_eq!(s2["_schema"], n("3"));
    // An item created at version 3 is current; no item, nothing.
    let s4 = table.upgrade_key(Skill::key("s4")).await.unwrap().unwrap();
    assert_eq!((s4.stored, s4.write_back), (Some(3), WriteBack::Current));
    assert_eq!(table.upgrade_key(Skill::key("none")).await.unwrap(), None);
    // A later library write of the upgraded value goes through its lock version.
    let mut v = table.get(Skill::key("s3")).await.unwrap().unwrap();
    v.price_cents = 5000;
    table.put(&mut v).await.unwrap();
    assert_eq!(v.lock, 2);
    // An entity without a schema version has nothing to upgrade.
    let err = table.upgrade_key(Review::key("s1", &1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: Review declares no schema version (`#[entity(schema(version = N))]`), so it has no item to upgrade"
    );
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn a_change_between_the_read_and_the_write_back_refuses_it() {
    let table = new_table("schema_write_back_race", false).await;
    fill(&table).await;

    // Another client changes s1 (still version 1) after it was read: nothing is written.
    let read = common::raw_item(&table, "SKILL#s1", "META").await.unwrap();
    table
        .client()
        .update_item()
        .table_name(table.name())
        .key("PK", s("SKILL#s1"))
        .key("SK", s("META"))
        .update_expression("SET price = :p")
        .expression_attribute_values(":p", n("13"))
        .send()
        .await
        .unwrap();
    let changed = common::raw_item(&table, "SKILL#s1", "META").await.unwrap();
    let up: Upgraded<Skill> = table.upgrade(&read).await.unwrap();
    assert_eq!(
        up,
        Upgraded {
            value: skill("s1", "Rust 101", Some("basics"), 1200, 0),
            stored: None,
            write_back: WriteBack::Changed
        }
    );
    assert_eq!(common::raw_item(&table, "SKILL#s1", "META").await.unwrap(), changed);
    // Read again, it upgrades what is there now.
    let up = table.upgrade_key(Skill::key("s1")).await.unwrap().unwrap();
    assert_eq!((up.value.price_cents, up.write_back), (1300, WriteBack::Written));

    // The library writes s2 (through its lock version: none stored, so `put` at 0) after the
    // read of its version 1 item: the write-back of the old read is refused, the put stays.
    let read = common::raw_item(&table, "SKILL#s2", "META").await.unwrap();
    let mut v = table.get(Skill::key("s2")).await.unwrap().unwrap();
    v.name = "Go tour, 2nd ed.".into();
    table.put(&mut v).await.unwrap();
    let put = common::raw_item(&table, "SKILL#s2", "META").await.unwrap();
    assert_eq!((put["_schema"].clone(), put["lock"].clone()), (n("3"), n("1")));
    let up: Upgraded<Skill> = table.upgrade(&read).await.unwrap();
    assert_eq!((up.value.name.as_str(), up.write_back), ("Go tour", WriteBack::Changed));
    assert_eq!(common::raw_item(&table, "SKILL#s2", "META").await.unwrap(), put);

    // Another client adds an attribute the write-back adds too (here the schema version
    // itself, `attribute_not_exists` in the condition): refused.
    raw_put(&table, v1_item("s5", "Elm: views", "dev", 2)).await;
    let read = common::raw_item(&table, "SKILL#s5", "META").await.unwrap();
    table
        .client()
        .update_item()
        .table_name(table.name())
        .key("PK", s("SKILL#s5"))
        .key("SK", s("META"))
        .update_expression("SET #s = :one")
        .expression_attribute_names("#s", "_schema")
        .expression_attribute_values(":one", n("1"))
        .send()
        .await
        .unwrap();
    let stamped = common::raw_item(&table, "SKILL#s5", "META").await.unwrap();
    let up: Upgraded<Skill> = table.upgrade(&read).await.unwrap();
    assert_eq!(up.write_back, WriteBack::Changed);
    assert_eq!(common::raw_item(&table, "SKILL#s5", "META").await.unwrap(), stamped);

    // The same upgrade of the same read twice (an SDK retry of an applied write, or two
    // processes upgrading one item): the stored item is what the second would write, so it is
    // reported written, and nothing is applied twice (the lock version stays 1).
    let read = common::raw_item(&table, "SKILL#s3", "META").await.unwrap();
    let first: Upgraded<Skill> = table.upgrade(&read).await.unwrap();
    assert_eq!(first.write_back, WriteBack::Written);
    let after_first = common::raw_item(&table, "SKILL#s3", "META").await.unwrap();
    assert_eq!(after_first["lock"], n("1"));
    let second: Upgraded<Skill> = table.upgrade(&read).await.unwrap();
    assert_eq!(second, first);
    assert_eq!(common::raw_item(&table, "SKILL#s3", "META").await.unwrap(), after_first);

    // Deleted after the read: nothing is written, nothing comes back.
    table.delete(Skill::key("s4")).await.unwrap();
    let gone = v1_item("s4", "Nim: macros", "dev", 9);
    let up: Upgraded<Skill> = table.upgrade(&gone).await.unwrap();
    assert_eq!(up.write_back, WriteBack::Deleted);
    assert_eq!(common::raw_item(&table, "SKILL#s4", "META").await, None);
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn a_version_newer_than_declared_is_a_typed_error_and_a_skipped_item() {
    let table = new_table("schema_newer", false).await;
    fill(&table).await;
    let mut v4 = v2_item("s9", "From the future", "dev", 1);
    v4.insert("_schema".into(), n("4"));
    raw_put(&table, v4.clone()).await;
    let message =
        "Skill PK=SKILL#s9 SK=META has schema version 4, newer than this program knows: Skill declares versions 1 to 3";

    let err = table.get(Skill::key("s9")).await.unwrap_err();
    assert_eq!(err.to_string(), message);
    assert!(matches!(
        &err,
        Error::SchemaVersion { entity: "Skill", key, stored: 4, oldest: 1, newest: 3 } if key == "PK=SKILL#s9 SK=META"
    ));
    // Strict reads fail naming it; lenient ones skip it and say so.
    assert_eq!(table.query(Skill::gsi1("dev")).all().await.unwrap_err().to_string(), message);
    assert_eq!(table.scan::<Skill>().all().await.unwrap_err().to_string(), message);
    let page = table.query(Skill::gsi1("dev")).lenient().all().await.unwrap();
    assert_eq!(page.items, expected());
    assert_eq!(page.skipped.len(), 1);
    assert_eq!((page.skipped[0].key.as_str(), &page.skipped[0].item), ("PK=SKILL#s9 SK=META", &v4));
    assert_eq!(page.skipped[0].error.to_string(), message);
    let items = table.collection(Skill::query("s9")).send().await.unwrap();
    let Page { items: ok, skipped, .. } = items.lenient().all::<Skill>();
    assert_eq!((ok.len(), skipped.len(), skipped[0].error.to_string()), (0, 1, message.to_owned()));
    // Cloned skipped items keep the typed error.
    assert!(matches!(page.skipped[0].clone().error, Error::SchemaVersion { stored: 4, .. }));
    // `upgrade` refuses it before sending; the item is untouched.
    let err = table.upgrade::<Skill>(&v4).await.unwrap_err();
    assert_eq!(err.to_string(), message);
    assert_eq!(common::raw_item(&table, "SKILL#s9", "META").await.unwrap(), v4);
    // A version attribute that is not a number is a decode error naming it.
    let mut bad = v1_item("s8", "Bad", "misc", 1);
    bad.insert("_schema".into(), s("three"));
    raw_put(&table, bad).await;
    assert_eq!(
        table.get(Skill::key("s8")).await.unwrap_err().to_string(),
        "cannot decode Skill PK=SKILL#s8 SK=META: attribute `_schema`: expected type N, found S"
    );
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn writes_stamp_the_current_version() {
    let table = new_table("schema_stamp", false).await;
    let mut v = skill("s1", "Rust", None, 100, 0);
    table.create(&mut v).await.unwrap();
    assert_eq!(common::raw_item(&table, "SKILL#s1", "META").await.unwrap()["_schema"], n("3"));
    // An earlier version's struct writes its own version, read back as the current one.
    table
        .batch_put(&[SkillV1 { id: "s2".into(), title: "Go: fast".into(), category: "dev".into(), price: 3 }])
        .await
        .unwrap()
        .check()
        .unwrap();
    let raw = common::raw_item(&table, "SKILL#s2", "META").await.unwrap();
    assert_eq!(raw["_schema"], n("1"));
    assert_eq!(table.get(Skill::key("s2")).await.unwrap(), Some(skill("s2", "Go", Some("fast"), 300, 0)));
    let stream: Vec<Skill> = table.scan::<Skill>().stream().try_collect().await.unwrap();
    assert_eq!(by_id(stream).len(), 2);
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn version_1_items_written_by_the_javascript_sdk_read_as_version_3_and_upgrade_when_asked() {
    let table = new_table("schema_js", false).await;
    let server = LocalDynamoDb::shared().await.unwrap();
    let out = crate::interop::node("schema_v1.cjs", &["write", table.name()], server.endpoint());
    assert_eq!(out, serde_json::json!("ok"));
    let before = stored(&table).await;
    // lib-dynamodb marshals a JavaScript number as N and writes no schema version.
    assert_eq!(before["SKILL#js1/META"]["price"], n("15"));
    assert!(!before["SKILL#js1/META"].contains_key("_schema"));
    let js = |id: &str, name: &str, subtitle: Option<&str>, price_cents: u64, lock: u64| Skill {
        category: "js".into(),
        ..skill(id, name, subtitle, price_cents, lock)
    };
    let want = vec![js("js1", "Deno", Some("permissions"), 1500, 0), js("js2", "Bun", None, 400, 0)];
    assert_eq!(table.query(Skill::gsi1("js")).all().await.unwrap(), want);
    assert_eq!(table.get(Skill::key("js1")).await.unwrap().as_ref(), Some(&want[0]));
    assert_eq!(by_id(table.scan::<Skill>().all().await.unwrap()), want);
    assert_eq!(stored(&table).await, before);
    // Written back when asked, then stored at version 3.
    let up = table.upgrade_key(Skill::key("js2")).await.unwrap().unwrap();
    assert_eq!((up.value, up.stored, up.write_back), (js("js2", "Bun", None, 400, 1), None, WriteBack::Written));
    let raw = common::raw_item(&table, "SKILL#js2", "META").await.unwrap();
    assert_eq!(
        raw,
        Item::from([
            ("PK".to_owned(), s("SKILL#js2")),
            ("SK".to_owned(), s("META")),
            ("_type".to_owned(), s("Skill")),
            ("_schema".to_owned(), n("3")),
            ("id".to_owned(), s("js2")),
            ("name".to_owned(), s("Bun")),
            ("category".to_owned(), s("js")),
            ("price_cents".to_owned(), n("400")),
            ("lock".to_owned(), n("1")),
            ("GSI1PK".to_owned(), s("CAT#js")),
            ("GSI1SK".to_owned(), s("js2")),
        ])
    );
    assert_eq!(stored(&table).await["SKILL#js1/META"], before["SKILL#js1/META"]);
    table.delete_table().await.unwrap();
}

#[test]
fn design_exports_name_the_schema_version() {
    use dynamo_entity::design::workbench::WorkbenchModel;
    let layout = Shop::layout().unwrap();
    let md = layout.markdown("Shop");
    assert!(
        md.lines()
            .any(|l| l == "`Skill` is schema version 3 (reads versions 1 to 3; an item without `_schema` reads as 1)."),
        "{md}"
    );
    assert_eq!(md.matches("is schema version").count(), 1);
    // The Workbench model lists the version attribute among Skill's attributes, typed from the
    // sample (a number).
    let model = WorkbenchModel::new("Shop", "shop")
        .samples([&skill("s1", "Rust", Some("intro"), 100, 1)])
        .and_then(|m| m.samples([&Review { skill_id: "s1".into(), n: 1, stars: 5 }]))
        .unwrap();
    let json = layout.workbench(&model).unwrap();
    let facets = json["DataModel"][0]["TableFacets"].as_array().unwrap();
    let skill_facet = facets.iter().find(|f| f["FacetName"] == "Skill").unwrap();
    let review_facet = facets.iter().find(|f| f["FacetName"] == "Review").unwrap();
    assert!(skill_facet["NonKeyAttributes"].as_array().unwrap().iter().any(|a| a == "_schema"));
    assert!(!review_facet["NonKeyAttributes"].as_array().unwrap().iter().any(|a| a == "_schema"));
    assert_eq!(skill_facet["TableData"][0]["_schema"], serde_json::json!({ "N": "3" }));
}

/// An update through the current struct of an item stored at an earlier schema version is
/// refused (`Error::UpgradeRequired`), nothing written: the item would keep its old version
/// and attributes, and every read would decode it without the update. Once upgraded, the
/// same update applies.
#[tokio::test]
async fn an_update_of_an_item_stored_at_an_earlier_version_is_refused_until_upgraded() {
    let table = new_table("schema_update_refused", false).await;
    raw_put(&table, v1_item("s1", "Rust 101: basics", "dev", 12)).await;
    let before = stored(&table).await;
    let err = table.update(Skill::key("s1")).set(Skill::PRICE_CENTS, &1500).any_version().send().await.unwrap_err();
    assert!(
        matches!(&err, Error::UpgradeRequired { operation: "update", entity: "Skill", key, stored: 1, current: 3 } if key == "PK=SKILL#s1 SK=META"),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        "Skill PK=SKILL#s1 SK=META is stored at schema version 1, older than version 3 this update writes; nothing \
         was written: upgrade the item first (Table::upgrade_key), then update again"
    );
    assert_eq!(stored(&table).await, before, "nothing was written");
    assert_eq!(table.get(Skill::key("s1")).await.unwrap().unwrap().price_cents, 1200);

    let report = table.upgrade_all::<Skill>("upgrade-s1").segments(1).run().await.unwrap();
    assert_eq!((report.scanned, report.updated), (1, 1), "{report}");
    table.update(Skill::key("s1")).set(Skill::PRICE_CENTS, &1500).any_version().send().await.unwrap();
    assert_eq!(table.get(Skill::key("s1")).await.unwrap().unwrap().price_cents, 1500);
}

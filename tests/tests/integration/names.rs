//! A table with its own attribute and index names (`#[table(pk = "pk", ...)]` and
//! `#[entity(table = Shop)]`), against DynamoDB Local: every item, key, query, cursor, batch,
//! transaction, collection, unique guard and version uses the declared names, and no default
//! name (`PK`, `SK`, `_type`, `GSI1PK`, ...) is ever written. Also the table's CloudFormation
//! and NoSQL Workbench exports.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_dynamodb::types::{AttributeValue, KeyType as SdkKeyType, ScalarAttributeType};
use dynamo_entity::design::workbench::WorkbenchModel;
use dynamo_entity::{Collection, Entity, Error, Index, Item, Table, TableDef, Timestamp};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use serde_json::{Value, json};

/// A member: unique e-mail, queried by team (GSI1) and by city (GSI2, sparse).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    table = Shop,
    pk = "USER#<id>",
    sk = "PROFILE",
    gsi1 = "TEAM#<team>",
    gsi1_sk = "<name>",
    gsi2 = "CITY#<city>",
    gsi2_sk = "<id>"
)]
pub struct Member {
    pub id: String,
    #[entity(unique)]
    pub email: String,
    pub team: String,
    pub name: String,
    pub city: Option<String>,
}

/// An order of a member: in the member's item collection, sorted by total in LSI1, found by
/// order number across members through the inverted index, versioned.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Shop, pk = "USER#<user_id>", sk = "ORDER#<order_id>", lsi1 = "<total>", inverted)]
pub struct Order {
    pub user_id: String,
    pub order_id: u32,
    pub total: u64,
    #[entity(version)]
    pub version: u64,
}

/// A tag of a member: a plain entity, which batches can write.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Shop, pk = "USER#<user_id>", sk = "TAG#<tag>")]
pub struct Tag {
    pub user_id: String,
    pub tag: String,
}

/// An entity with the default names, in no declared table.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "NOTE")]
pub struct Note {
    pub id: String,
}

/// An entry of another table, whose key attributes are `key` / `range`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Ledger, pk = "ENTRY#<id>", sk = "REV#<rev>")]
pub struct Entry {
    pub id: String,
    pub rev: u32,
    pub body: String,
}

#[derive(TableDef)]
#[table(entities(Entry), pk = "key", sk = "range", entity_type = "kind")]
pub struct Ledger;

/// Custom names everywhere, as users of ElectroDB or DynamoDB Toolbox write them.
#[derive(TableDef)]
#[table(
    entities(Member, Order, Tag),
    pk = "pk",
    sk = "sk",
    entity_type = "__edb_e__",
    gsi1(name = "ByTeam", pk = "gsi1pk", sk = "gsi1sk", projection = all),
    gsi2(name = "ByCity", pk = "gsi2pk", sk = "gsi2sk": S),
    lsi1(name = "ByTotal", sk = "lsi1sk"),
    inverted(name = "ByTarget"),
)]
pub struct Shop;

#[derive(Collection, Debug)]
struct Account {
    member: Member,
    orders: Vec<Order>,
}

/// The attribute names that must never appear in this table.
const DEFAULT_NAMES: [&str; 8] = ["PK", "SK", "_type", "GSI1PK", "GSI1SK", "GSI2PK", "GSI2SK", "LSI1SK"];

async fn table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Shop::layout().unwrap()).await.expect("the table is created");
    table
}

fn member(id: &str, team: &str, city: Option<&str>) -> Member {
    Member {
        id: id.to_owned(),
        email: format!("{id}@example.test"),
        team: team.to_owned(),
        name: format!("name-{id}"),
        city: city.map(str::to_owned),
    }
}

/// The raw item under `pk` / `sk`, read with the SDK alone by the custom key names.
async fn raw(table: &Table, pk: &str, sk: &str) -> Option<Item> {
    table
        .client()
        .get_item()
        .table_name(table.name())
        .key("pk", AttributeValue::S(pk.to_owned()))
        .key("sk", AttributeValue::S(sk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
        .map(common::without_history)
}

fn names(item: &Item) -> BTreeSet<&str> {
    item.keys().map(String::as_str).collect()
}

fn s(item: &Item, attribute: &str) -> String {
    item[attribute].as_s().unwrap().clone()
}

#[test]
fn the_entities_take_the_tables_names() {
    assert!(std::ptr::eq(Member::NAMES, Shop::NAMES));
    assert!(std::ptr::eq(Order::NAMES, Shop::NAMES));
    let n = Shop::NAMES;
    assert_eq!((n.pk, n.sk, n.entity_type), ("pk", "sk", "__edb_e__"));
    assert_eq!(
        (n.index_name(Index::Gsi(1)), n.pk_of(Index::Gsi(1)), n.sk_of(Index::Gsi(1))),
        (Some("ByTeam"), "gsi1pk", "gsi1sk")
    );
    assert_eq!(
        (n.index_name(Index::Gsi(2)), n.pk_of(Index::Gsi(2)), n.sk_of(Index::Gsi(2))),
        (Some("ByCity"), "gsi2pk", "gsi2sk")
    );
    assert_eq!(
        (n.index_name(Index::Lsi(1)), n.pk_of(Index::Lsi(1)), n.sk_of(Index::Lsi(1))),
        (Some("ByTotal"), "pk", "lsi1sk")
    );
    assert_eq!(
        (n.index_name(Index::Inverted), n.pk_of(Index::Inverted), n.sk_of(Index::Inverted)),
        (Some("ByTarget"), "sk", "pk")
    );
    // Undeclared indexes keep the default names.
    assert_eq!((n.index_name(Index::Gsi(3)), n.pk_of(Index::Gsi(3))), (Some("GSI3"), "GSI3PK"));
    assert_eq!(Member::schema().names, Shop::NAMES);
}

#[tokio::test]
async fn create_table_from_the_layout_uses_the_names() {
    let table = table("names_create").await;
    let (desc, defs) = common::describe(&table).await;
    let (st, nt) = (ScalarAttributeType::S, ScalarAttributeType::N);
    let expected: BTreeMap<String, ScalarAttributeType> =
        [("pk", &st), ("sk", &st), ("gsi1pk", &st), ("gsi1sk", &st), ("gsi2pk", &st), ("gsi2sk", &st), ("lsi1sk", &nt)]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.clone()))
            .collect();
    assert_eq!(defs, expected);
    let key = |ks: &[aws_sdk_dynamodb::types::KeySchemaElement]| -> Vec<(String, SdkKeyType)> {
        ks.iter().map(|k| (k.attribute_name().to_owned(), k.key_type().clone())).collect()
    };
    let (h, r) = (SdkKeyType::Hash, SdkKeyType::Range);
    assert_eq!(key(desc.key_schema()), [("pk".to_owned(), h.clone()), ("sk".to_owned(), r.clone())]);
    let mut gsis: Vec<(String, Vec<(String, SdkKeyType)>)> = desc
        .global_secondary_indexes()
        .iter()
        .map(|g| (g.index_name().unwrap().to_owned(), key(g.key_schema())))
        .collect();
    gsis.sort();
    let pair = |a: &str, b: &str| vec![(a.to_owned(), h.clone()), (b.to_owned(), r.clone())];
    assert_eq!(
        gsis,
        [
            ("ByCity".to_owned(), pair("gsi2pk", "gsi2sk")),
            ("ByTarget".to_owned(), pair("sk", "pk")),
            ("ByTeam".to_owned(), pair("gsi1pk", "gsi1sk")),
        ]
    );
    let lsis: Vec<(String, Vec<(String, SdkKeyType)>)> = desc
        .local_secondary_indexes()
        .iter()
        .map(|l| (l.index_name().unwrap().to_owned(), key(l.key_schema())))
        .collect();
    assert_eq!(lsis, [("ByTotal".to_owned(), pair("pk", "lsi1sk"))]);
}

#[tokio::test]
async fn items_guards_and_versions_are_stored_under_the_names() {
    let table = table("names_items").await;
    let ann = member("ann", "red", Some("oslo"));
    let bob = member("bob", "red", None);
    table.create(&ann).await.unwrap();
    table.put(&bob).await.unwrap();
    let again = table.create(&ann).await.unwrap_err();
    assert!(
        matches!(again, Error::AlreadyExists { entity: "Member", ref key } if key == "pk=USER#ann sk=PROFILE"),
        "{again}"
    );
    assert_eq!(table.get(Member::key("ann")).await.unwrap(), Some(ann.clone()));

    let item = raw(&table, "USER#ann", "PROFILE").await.unwrap();
    assert_eq!(
        names(&item),
        BTreeSet::from([
            "pk",
            "sk",
            "__edb_e__",
            "gsi1pk",
            "gsi1sk",
            "gsi2pk",
            "gsi2sk",
            "id",
            "email",
            "team",
            "name",
            "city"
        ])
    );
    assert_eq!(s(&item, "__edb_e__"), "Member");
    assert_eq!((s(&item, "gsi1pk"), s(&item, "gsi1sk")), ("TEAM#red".to_owned(), "name-ann".to_owned()));
    assert_eq!((s(&item, "gsi2pk"), s(&item, "gsi2sk")), ("CITY#oslo".to_owned(), "ann".to_owned()));
    // Bob has no city: no GSI2 keys (sparse).
    let item = raw(&table, "USER#bob", "PROFILE").await.unwrap();
    assert_eq!(
        names(&item),
        BTreeSet::from(["pk", "sk", "__edb_e__", "gsi1pk", "gsi1sk", "id", "email", "team", "name"])
    );

    // The unique guard item is keyed and typed under the same names.
    let guard = raw(&table, "UNIQUE#Member#email#ann@example.test", "UNIQUE").await.unwrap();
    assert_eq!(
        names(&guard),
        BTreeSet::from(["pk", "sk", "__edb_e__", "entity", "field", "value", "ownerPK", "ownerSK"])
    );
    assert_eq!(s(&guard, "__edb_e__"), "_unique");
    assert_eq!((s(&guard, "ownerPK"), s(&guard, "ownerSK")), ("USER#ann".to_owned(), "PROFILE".to_owned()));
    assert_eq!(table.get_by_unique(Member::EMAIL, &"ann@example.test".to_owned()).await.unwrap(), Some(ann.clone()));
    let taken = table.create(&Member { id: "ann2".into(), ..ann.clone() }).await.unwrap_err();
    assert!(matches!(taken, Error::UniqueViolation { field: "email", .. }), "{taken}");

    // An update that changes a GSI key part rewrites that GSI's keys under their names.
    table.update(Member::key("ann")).set(Member::TEAM, &"blue".to_owned()).send().await.unwrap();
    let item = raw(&table, "USER#ann", "PROFILE").await.unwrap();
    assert_eq!((s(&item, "gsi1pk"), s(&item, "gsi1sk")), ("TEAM#blue".to_owned(), "name-ann".to_owned()));
    // Setting the city to None removes GSI2's keys.
    table.update(Member::key("ann")).set(Member::CITY, &None).send().await.unwrap();
    let item = raw(&table, "USER#ann", "PROFILE").await.unwrap();
    assert!(!item.contains_key("gsi2pk") && !item.contains_key("gsi2sk"), "{item:?}");

    // A versioned entity: version 1 on create, 2 after a put of the value read.
    let mut order = Order { user_id: "ann".into(), order_id: 7, total: 900, version: 0 };
    table.create(&mut order).await.unwrap();
    assert_eq!(order.version, 1);
    table.put(&mut order).await.unwrap();
    let item = raw(&table, "USER#ann", "ORDER#0000000007").await.unwrap();
    assert_eq!(
        names(&item),
        BTreeSet::from(["pk", "sk", "__edb_e__", "lsi1sk", "user_id", "order_id", "total", "version"])
    );
    assert_eq!((item["version"].as_n().unwrap().as_str(), item["lsi1sk"].as_n().unwrap().as_str()), ("2", "900"));
    let stale = table.put(&Order { version: 1, ..order.clone() }).await.unwrap_err();
    assert!(
        matches!(stale, Error::VersionConflict { ref key, expected: 1, found: Some(2), .. } if key == "pk=USER#ann sk=ORDER#0000000007"),
        "{stale}"
    );

    // Delete: the item and its guard go; a delete of an item of another type is refused.
    assert_eq!(table.delete(Member::key("ann")).await.unwrap().unwrap().map(|m| m.team), Some("blue".to_owned()));
    assert_eq!(raw(&table, "USER#ann", "PROFILE").await, None);
    assert_eq!(raw(&table, "UNIQUE#Member#email#ann@example.test", "UNIQUE").await, None);

    // No item of the table carries a default attribute name.
    for item in common::scan_all(&table).await {
        for n in DEFAULT_NAMES {
            assert!(!item.contains_key(n), "{n} in {item:?}");
        }
    }
}

/// Reads every page of `query` with `limit` items a page, following the cursors.
macro_rules! pages {
    ($table:expr, $spec:expr, $limit:expr, $map:expr) => {{
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let page = $table.query($spec).page_items($limit).after(cursor).send().await.unwrap();
            pages.push(page.items.iter().map($map).collect::<Vec<_>>());
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        pages
    }};
}

#[tokio::test]
async fn queries_batches_transactions_and_collections_use_the_names() {
    let table = table("names_reads").await;
    let members: Vec<Member> = (0..5)
        .map(|i| member(&format!("m{i}"), if i % 2 == 0 { "red" } else { "blue" }, (i < 3).then_some("oslo")))
        .collect();
    for m in &members {
        table.create(m).await.unwrap();
    }
    let orders: Vec<Order> = (1..=7)
        .map(|i| Order { user_id: "m0".into(), order_id: i, total: u64::from(8 - i) * 100, version: 0 })
        .collect();
    // Versioned entities are refused by batches; create them in a transaction.
    let mut tx = table.transact();
    for o in &orders {
        tx = tx.create(o);
    }
    tx.send().await.unwrap();

    // GSI1 (ByTeam), two a page.
    let red = pages!(table, Member::gsi1("red"), 2, |m: &Member| m.id.clone());
    assert_eq!(red, [vec!["m0", "m2"], vec!["m4"]]);
    // GSI2 (ByCity), sparse: m3 and m4 have no city.
    let oslo = pages!(table, Member::gsi2("oslo"), 2, |m: &Member| m.id.clone());
    assert_eq!(oslo, [vec!["m0", "m1"], vec!["m2"]]);
    // The primary index: the orders of m0 in sort key order.
    let by_id = pages!(table, Order::query("m0"), 3, |o: &Order| o.order_id);
    assert_eq!(by_id, [vec![1, 2, 3], vec![4, 5, 6], vec![7]]);
    // LSI1 (ByTotal): the same orders by total, which falls as the number rises.
    let by_total = pages!(table, Order::lsi1("m0"), 3, |o: &Order| o.order_id);
    assert_eq!(by_total, [vec![7, 6, 5], vec![4, 3, 2], vec![1]]);
    // The inverted index (ByTarget): order 3 across members.
    let mut third = Order { user_id: "m1".into(), order_id: 3, total: 50, version: 0 };
    table.create(&mut third).await.unwrap();
    let of_3 = pages!(table, Order::inverted(&3), 1, |o: &Order| o.user_id.clone());
    // The second page fills its limit, so DynamoDB returns a LastEvaluatedKey: one empty page.
    assert_eq!(of_3, [vec!["m0"], vec!["m1"], vec![]]);

    // Batch get of members, batch write and delete of tags, under the names.
    let got = table.batch_get(members.iter().map(|m| Member::key(&m.id))).send().await.unwrap().into_result().unwrap();
    assert_eq!(got, members.iter().cloned().map(Some).collect::<Vec<_>>());
    let tags: Vec<Tag> = (0..30).map(|i| Tag { user_id: format!("m{}", i % 2), tag: format!("t{i:02}") }).collect();
    table.batch_write().put_all(&tags).send().await.unwrap().check().unwrap();
    let keys = || tags.iter().map(|t| Tag::key(&t.user_id, &t.tag));
    let read = table.batch_get(keys()).send().await.unwrap().into_result().unwrap();
    assert_eq!(read, tags.iter().cloned().map(Some).collect::<Vec<_>>());
    let item = raw(&table, "USER#m1", "TAG#t01").await.unwrap();
    assert_eq!(names(&item), BTreeSet::from(["pk", "sk", "__edb_e__", "user_id", "tag"]));
    table.batch_write().delete_all(keys().skip(2)).send().await.unwrap().check().unwrap();
    let read = table.batch_get(keys()).send().await.unwrap().into_result().unwrap();
    assert_eq!(read.iter().filter(|t| t.is_some()).count(), 2);

    // A transaction: an update and a condition check, then a transactional read.
    table
        .transact()
        .update(table.update(Member::key("m1")).set(Member::NAME, &"Mia".to_owned()))
        .condition_check(Member::key("m0"), Member::TEAM.eq(&"red".to_owned()))
        .send()
        .await
        .unwrap();
    let (m1, m0) = table.transact_get().get(Member::key("m1")).get(Member::key("m0")).send().await.unwrap();
    assert_eq!((m1.unwrap().name, m0.unwrap().team), ("Mia".to_owned(), "red".to_owned()));
    let item = raw(&table, "USER#m1", "PROFILE").await.unwrap();
    assert_eq!(s(&item, "gsi1sk"), "Mia");

    // The item collection of m0: the member and its orders, told apart by `__edb_e__`.
    let c = table.collection(Member::query("m0")).send().await.unwrap();
    assert_eq!(
        c.type_counts(),
        [("Member".to_owned(), 1), ("Order".to_owned(), 7), ("Tag".to_owned(), 1)].into_iter().collect()
    );
    let account: Account = c.decode().unwrap();
    assert_eq!(account.member.id, "m0");
    assert_eq!(account.orders.iter().map(|o| o.order_id).collect::<Vec<_>>(), [1, 2, 3, 4, 5, 6, 7]);
    let any: Vec<ShopItem> = c.decode_each().unwrap();
    assert_eq!(any.len(), 9);
    // In sort key order: `ORDER#…`, `PROFILE`, `TAG#…`.
    assert!(matches!(&any[0], ShopItem::Order(o) if o.order_id == 1));
    assert!(matches!(&any[7], ShopItem::Member(m) if m.id == "m0"));
    assert!(matches!(&any[8], ShopItem::Tag(t) if t.tag == "t00"));

    for item in common::scan_all(&table).await {
        for n in DEFAULT_NAMES {
            assert!(!item.contains_key(n), "{n} in {item:?}");
        }
    }
}

#[test]
fn cloudformation_names_every_key_and_index() {
    let cfn = Shop::layout().unwrap().cloudformation("names-shop");
    let props = &cfn["Resources"]["NamesShopTable"]["Properties"];
    assert_eq!(
        props["AttributeDefinitions"],
        json!([
            { "AttributeName": "pk", "AttributeType": "S" },
            { "AttributeName": "sk", "AttributeType": "S" },
            { "AttributeName": "gsi1pk", "AttributeType": "S" },
            { "AttributeName": "gsi1sk", "AttributeType": "S" },
            { "AttributeName": "gsi2pk", "AttributeType": "S" },
            { "AttributeName": "gsi2sk", "AttributeType": "S" },
            { "AttributeName": "lsi1sk", "AttributeType": "N" },
        ])
    );
    assert_eq!(
        props["KeySchema"],
        json!([{ "AttributeName": "pk", "KeyType": "HASH" }, { "AttributeName": "sk", "KeyType": "RANGE" }])
    );
    let index = |name: &str, pk: &str, sk: &str| {
        json!({
            "IndexName": name,
            "KeySchema": [{ "AttributeName": pk, "KeyType": "HASH" }, { "AttributeName": sk, "KeyType": "RANGE" }],
            "Projection": { "ProjectionType": "ALL" },
        })
    };
    assert_eq!(
        props["GlobalSecondaryIndexes"],
        json!([
            index("ByTeam", "gsi1pk", "gsi1sk"),
            index("ByCity", "gsi2pk", "gsi2sk"),
            index("ByTarget", "sk", "pk")
        ])
    );
    assert_eq!(props["LocalSecondaryIndexes"], json!([index("ByTotal", "pk", "lsi1sk")]));
}

#[test]
fn workbench_export_uses_the_names_and_validates() {
    let model = WorkbenchModel::new("Names", "names-shop")
        .dated(Timestamp::EPOCH)
        .sample(&member("ann", "red", Some("oslo")))
        .unwrap()
        .sample(&Order { user_id: "ann".into(), order_id: 1, total: 900, version: 1 })
        .unwrap()
        .sample(&Tag { user_id: "ann".into(), tag: "vip".into() })
        .unwrap();
    let model = Shop::layout().unwrap().workbench(&model).unwrap();
    let table = &model["DataModel"][0];
    assert_eq!(
        table["KeyAttributes"],
        json!({
            "PartitionKey": { "AttributeName": "pk", "AttributeType": "S" },
            "SortKey": { "AttributeName": "sk", "AttributeType": "S" },
        })
    );
    let gsis: Vec<(&str, &str, &str)> = table["GlobalSecondaryIndexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| {
            (
                g["IndexName"].as_str().unwrap(),
                g["KeyAttributes"]["PartitionKey"]["AttributeName"].as_str().unwrap(),
                g["KeyAttributes"]["SortKey"]["AttributeName"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(gsis, [("ByTeam", "gsi1pk", "gsi1sk"), ("ByCity", "gsi2pk", "gsi2sk"), ("ByTarget", "sk", "pk")]);
    let non_key: Vec<&str> =
        table["NonKeyAttributes"].as_array().unwrap().iter().map(|a| a["AttributeName"].as_str().unwrap()).collect();
    assert_eq!(
        non_key,
        [
            "__edb_e__",
            "id",
            "email",
            "team",
            "name",
            "city",
            "gsi1pk",
            "gsi1sk",
            "gsi2pk",
            "gsi2sk",
            "user_id",
            "order_id",
            "total",
            "version",
            "lsi1sk",
            "tag"
        ]
    );
    let schema: Value =
        serde_json::from_str(include_str!("../../../dynamo-entity/schemas/nosql-workbench-model.schema.json")).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let complaints: Vec<String> =
        validator.iter_errors(&model).map(|e| format!("{}: {e}", e.instance_path())).collect();
    assert_eq!(complaints, Vec::<String>::new());
    // The design document names the indexes and attributes too.
    let md = Shop::layout().unwrap().markdown("Names");
    assert!(md.contains("| `gsi1pk` | S | ByTeam |"), "{md}");
    assert!(md.contains("| `pk` | S | table; sort key of ByTarget; partition key of ByTotal |"), "{md}");
    assert!(md.contains("| entity | pk | sk | GSIs / LSIs |"), "{md}");
}

#[test]
fn a_layout_refuses_entities_with_different_names() {
    let err = dynamo_entity::schema::TableLayout::new(&[Member::schema(), Note::schema()]).unwrap_err();
    let Error::Invalid { reason } = err else { panic!("{err}") };
    assert_eq!(
        reason,
        "entities Member and Note use different attribute names: every entity of one table must say the same \
         `#[entity(table = ...)]` (or none)"
    );
    // A note keeps the default names; an entity of Shop takes Shop's.
    assert!(Note::NAMES.is_default() && !Member::NAMES.is_default());
    assert_eq!(Note::NAMES.index_name(Index::Inverted), Some("INVERTED"));
}

#[tokio::test]
async fn consumed_capacity_is_reported_under_the_index_names() {
    use dynamo_entity::capacity::{self, Capacity, ReadMode, Units, WriteMode};
    let table = table("names_capacity").await;

    // A put of an order writes the table, the LSI `ByTotal` and the inverted index `ByTarget`.
    let order = Order { user_id: "cap".into(), order_id: 7, total: 1250, version: 0 };
    let op = table.metered();
    op.put(&order).await.unwrap();
    let encoded = order.to_item().unwrap();
    let stored = raw(&table, &s(&encoded, "pk"), &s(&encoded, "sk")).await.unwrap();
    let estimate =
        capacity::write_in(Shop::NAMES, [Index::Lsi(1), Index::Inverted], None, Some(&stored), WriteMode::Standard);
    let expected = Capacity::table(Units::writes(1.0))
        .with_index_in(Shop::NAMES, Index::Lsi(1), Units::writes(1.0))
        .with_index_in(Shop::NAMES, Index::Inverted, Units::writes(1.0));
    assert_eq!((op.consumed(), estimate), (expected.clone(), expected.clone()));
    assert_eq!(expected.indexes.keys().map(String::as_str).collect::<Vec<_>>(), ["ByTarget", "ByTotal"]);
    assert_eq!(op.consumed().index_in(Shop::NAMES, Index::Lsi(1)), Units::writes(1.0));
    // Under the default names there is no such index.
    assert_eq!(op.consumed().index(Index::Lsi(1)), Units::default());

    // A query of GSI1 is charged to `ByTeam`.
    for id in ["c1", "c2", "c3"] {
        table.create(&member(id, "teal", None)).await.unwrap();
    }
    let op = table.metered();
    let page = op.query(Member::gsi1("teal")).send().await.unwrap();
    assert_eq!(page.items.len(), 3);
    let items: Vec<Item> = page.items.iter().map(|m| m.to_item().unwrap()).collect();
    let estimate = capacity::query_in(Shop::NAMES, Index::Gsi(1), &items, ReadMode::Eventual);
    assert_eq!(estimate, Capacity::zero().with_index_in(Shop::NAMES, Index::Gsi(1), Units::reads(0.5)));
    assert_eq!(op.consumed(), estimate);
}

#[test]
fn stream_records_decode_and_name_the_key_under_the_names() {
    use dynamo_entity::stream::{Change, ChangeKind};
    let tag = Tag { user_id: "s1".into(), tag: "blue".into() };
    let item = tag.to_item().unwrap();
    let keys: Item = ["pk", "sk"].into_iter().map(|k| (k.to_owned(), item[k].clone())).collect();
    let change = Change::<ShopItem>::from_images(ChangeKind::Insert, &keys, None, Some(&item)).unwrap().unwrap();
    assert_eq!(change.key, "pk=USER#s1 sk=TAG#blue");
    assert!(matches!(change.new, Some(ShopItem::Tag(t)) if t == tag));
    assert!(change.old.is_none());
    assert_eq!(<ShopItem as dynamo_entity::EntityEnum>::NAMES.entity_type, "__edb_e__");
}

#[test]
fn decode_errors_name_the_key_under_the_names() {
    let mut item = member("d1", "red", None).to_item().unwrap();
    item.insert("team".into(), AttributeValue::N("7".into()));
    match Member::from_item(&item) {
        Err(Error::Decode { entity, attribute, key, .. }) => {
            assert_eq!((entity, attribute, key.as_str()), ("Member", "team", "pk=USER#d1 sk=PROFILE"));
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    item.remove("team");
    item.insert("__edb_e__".into(), AttributeValue::S("Tag".into()));
    match Member::from_item(&item) {
        Err(Error::WrongEntity { expected, found, key }) => {
            assert_eq!((expected, found.as_deref(), key.as_str()), ("Member", Some("Tag"), "pk=USER#d1 sk=PROFILE"));
        }
        other => panic!("expected a wrong-entity error, got {other:?}"),
    }
    // A key that disagrees with the fields names the custom key attribute.
    let mut item = member("d2", "red", None).to_item().unwrap();
    item.insert("sk".into(), AttributeValue::S("OTHER".into()));
    match Member::from_item(&item) {
        Err(Error::Decode { entity, attribute, key, .. }) => {
            assert_eq!((entity, attribute, key.as_str()), ("Member", "sk", "pk=USER#d2 sk=OTHER"));
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
}

#[tokio::test]
async fn errors_before_sending_name_the_key_and_refuse_mixed_names() {
    let table = table("names_refusals").await;
    // An item over 400 KB: the error names its key under its table's names.
    let big = Entry { id: "big".into(), rev: 1, body: "x".repeat(410_000) };
    match table.put(&big).await {
        Err(Error::ItemTooLarge { entity, key, size, limit }) => {
            assert_eq!((entity, key.as_str(), limit), ("Entry", "key=ENTRY#big range=REV#0000000001", 409_600));
            assert!(size > 410_000, "{size}");
        }
        other => panic!("expected ItemTooLarge, got {other:?}"),
    }
    let tag = Tag { user_id: "u1".into(), tag: "red".into() };
    match table.batch_write().put(&tag).put(&tag).send().await {
        Err(Error::DuplicateKey { key, .. }) => assert_eq!(key, "pk=USER#u1 sk=TAG#red"),
        other => panic!("expected DuplicateKey, got {other:?}"),
    }
    // Entities of a table with other attribute names cannot share this one.
    let entry = Entry { id: "e1".into(), rev: 1, body: String::new() };
    let err = table.batch_write().put(&tag).put(&entry).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: one batch holds Tag (key attributes pk / sk, type attribute __edb_e__) and Entry (key \
         attributes key / range, type attribute kind): entities of tables with different attribute names cannot share \
         a table"
    );
    let err = table.transact().put(&tag).put(&entry).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "invalid request: actions 0 (put Tag) and 1 (put Entry) of this transaction are on table {} but use \
             different attribute names (key attributes pk / sk and key / range, type attribute __edb_e__ and kind): \
             entities of tables with different attribute names cannot share a table",
            table.name()
        )
    );
    // Nothing was written.
    assert!(common::scan_all(&table).await.is_empty());
}

//! Local secondary indexes (`#[entity(lsi1 = "...")]`, `#[table(lsi1(...))]`): keyed on the
//! table's `PK` and their own sort key `LSI<n>SK`, created with the table, sparse when a part of
//! the sort key is `None`, and kept in step by updates.

use crate::common;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{AttributeValue, KeyType as SdkKeyType, ProjectionType, ScalarAttributeType};
use dynamo_entity::capacity::{self, WriteMode};
use dynamo_entity::key::{KeyError, KeyType};
use dynamo_entity::schema::{GsiDecl, Projection, TableLayout};
use dynamo_entity::{Entity, Error, Index, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use serde_json::json;

/// A user's profile, in the same partition as the user's orders; it writes no LSI key, so it
/// is in none of the LSIs.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    pub name: String,
}

/// An order, in its user's partition, sorted three more ways: by the time it was placed (LSI1,
/// a number), by its total (LSI2, a number, keys only) and by status then time (LSI3, a string;
/// an order without a status is not in it).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed>", lsi2 = "<total>", lsi3 = "ST#<status>#<placed>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub placed: u32,
    pub total: u64,
    pub status: Option<String>,
    pub note: String,
}

/// The declaration under test: one LSI of each projection type.
#[derive(TableDef)]
#[table(
    entities(User, Order),
    lsi1(projection = all),
    lsi2(projection = keys_only, sk = N),
    lsi3(projection = include(user_id, id, placed, total, status, note)),
)]
pub struct Shop;

async fn table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Shop::layout().unwrap()).await.expect("the table is created");
    table
}

/// Order `id` of `user`: placed at `(id * 7) % 13 * 100`, a permutation of the ids' order.
fn order(user: &str, id: u32) -> Order {
    Order {
        user_id: user.to_owned(),
        id,
        placed: (id * 7) % 13 * 100,
        total: u64::from(id) * 10,
        status: Some(if id % 3 == 0 { "open" } else { "shipped" }.to_owned()),
        note: format!("order {id}"),
    }
}

/// The ids of orders 1 to 12 sorted by placement time: `placed` is 700, 100, 800, 200, 900,
/// 300, 1000, 400, 1100, 500, 1200, 600 for ids 1 to 12.
const BY_PLACED: [u32; 12] = [2, 4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 11];

fn ids(orders: &[Order]) -> Vec<u32> {
    orders.iter().map(|o| o.id).collect()
}

async fn load(table: &Table) {
    let orders: Vec<Order> = (1..=12).map(|i| order("u1", i)).chain((1..=4).map(|i| order("u2", i))).collect();
    let users = [User { id: "u1".into(), name: "Ada".into() }, User { id: "u2".into(), name: "Bo".into() }];
    table.batch_write().put_all(&orders).put_all(&users).send().await.unwrap().check().unwrap();
}

#[tokio::test]
async fn create_table_from_a_declaration_has_its_lsis() {
    let table = table("lsi_create").await;
    let (desc, defs) = common::describe(&table).await;
    let (s, n) = (ScalarAttributeType::S, ScalarAttributeType::N);
    let expected: BTreeMap<String, ScalarAttributeType> =
        [("PK", &s), ("SK", &s), ("LSI1SK", &n), ("LSI2SK", &n), ("LSI3SK", &s)]
            .into_iter()
            .map(|(a, t)| (a.to_owned(), t.clone()))
            .collect();
    assert_eq!(defs, expected);
    assert!(desc.global_secondary_indexes().is_empty());

    type LsiShape = (String, Vec<(String, SdkKeyType)>, ProjectionType, Vec<String>);
    let mut lsis: Vec<LsiShape> = desc
        .local_secondary_indexes()
        .iter()
        .map(|l| {
            let p = l.projection().unwrap();
            (
                l.index_name().unwrap().to_owned(),
                l.key_schema().iter().map(|k| (k.attribute_name().to_owned(), k.key_type().clone())).collect(),
                p.projection_type().unwrap().clone(),
                p.non_key_attributes().to_vec(),
            )
        })
        .collect();
    lsis.sort_by(|a, b| a.0.cmp(&b.0));
    let keys = |n: u8| vec![("PK".to_owned(), SdkKeyType::Hash), (format!("LSI{n}SK"), SdkKeyType::Range)];
    let included: Vec<String> =
        ["_type", "user_id", "id", "placed", "total", "status", "note"].into_iter().map(str::to_owned).collect();
    assert_eq!(
        lsis,
        vec![
            ("LSI1".to_owned(), keys(1), ProjectionType::All, vec![]),
            ("LSI2".to_owned(), keys(2), ProjectionType::KeysOnly, vec![]),
            ("LSI3".to_owned(), keys(3), ProjectionType::Include, included),
        ]
    );
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn queries_through_an_lsi_in_both_orders_with_sort_key_conditions() {
    let table = table("lsi_queries").await;
    load(&table).await;

    // The user's partition sorted by LSI1SK: the orders only (the profile has no LSI1SK), and
    // none of u2's.
    let asc = table.query(Order::lsi1("u1")).all().await.unwrap();
    assert_eq!(ids(&asc), BY_PLACED);
    assert_eq!(asc[0], order("u1", 2));
    let desc = table.query(Order::lsi1("u1")).descending().all().await.unwrap();
    let mut reversed = BY_PLACED;
    reversed.reverse();
    assert_eq!(ids(&desc), reversed);
    // Strongly consistent reads are allowed on an LSI.
    let strong = table.query(Order::lsi1("u1")).consistent_read().all().await.unwrap();
    assert_eq!(ids(&strong), BY_PLACED);

    // Sort-key conditions take the LSI's sort key parts (here the placement time, a number).
    let between = table.query(Order::lsi1("u1")).sk_between(&300, &800).all().await.unwrap();
    assert_eq!(ids(&between), [6, 8, 10, 12, 1, 3]);
    let between_desc = table.query(Order::lsi1("u1")).sk_between(&300, &800).descending().all().await.unwrap();
    assert_eq!(ids(&between_desc), [3, 1, 12, 10, 8, 6]);
    let after = table.query(Order::lsi1("u1")).sk_gt(&800).all().await.unwrap();
    assert_eq!(ids(&after), [5, 7, 9, 11]);
    let up_to = table.query(Order::lsi1("u1")).sk_le(&200).descending().all().await.unwrap();
    assert_eq!(ids(&up_to), [4, 2]);
    let one = table.query(Order::lsi1("u1")).sk_eq(&900).all().await.unwrap();
    assert_eq!(ids(&one), [5]);
    let u2 = table.query(Order::lsi1("u2")).all().await.unwrap();
    assert_eq!(ids(&u2), [2, 4, 1, 3]);

    // A composite string sort key: status, then time.
    let open = table.query(Order::lsi3("u1")).sk_begins_with(("open",)).all().await.unwrap();
    assert_eq!(ids(&open), [6, 12, 3, 9]);
    let all = table.query(Order::lsi3("u1")).all().await.unwrap();
    assert_eq!(ids(&all), [6, 12, 3, 9, 2, 4, 8, 10, 1, 5, 7, 11]);
    let late_shipped =
        table.query(Order::lsi3("u1")).sk_between(("shipped", &700), ("shipped", &1100)).descending().all().await;
    assert_eq!(ids(&late_shipped.unwrap()), [7, 5, 1]);
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn pagination_through_an_lsi() {
    let table = table("lsi_pages").await;
    load(&table).await;
    for descending in [false, true] {
        let mut pages: Vec<Vec<u32>> = Vec::new();
        let mut cursor = None;
        loop {
            let mut q = table.query(Order::lsi1("u1")).page_items(5).after(cursor);
            if descending {
                q = q.descending();
            }
            let page = q.send().await.unwrap();
            pages.push(ids(&page.items));
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let mut expect = BY_PLACED.to_vec();
        if descending {
            expect.reverse();
        }
        let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
        assert_eq!(sizes, [5, 5, 2], "descending: {descending}");
        assert_eq!(pages.concat(), expect, "descending: {descending}");
    }
    // A cursor of LSI1 opens neither the primary-index query nor another LSI of the partition.
    let first = table.query(Order::lsi1("u1")).page_items(3).send().await.unwrap();
    let err = table.query(Order::query("u1")).after(first.cursor.clone()).send().await.unwrap_err();
    assert!(matches!(err, Error::Cursor { .. }), "{err:?}");
    let err = table.query(Order::lsi3("u1")).after(first.cursor).send().await.unwrap_err();
    assert!(matches!(err, Error::Cursor { .. }), "{err:?}");
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn an_update_moves_the_item_in_the_lsi_and_a_none_takes_it_out() {
    let table = table("lsi_update").await;
    load(&table).await;

    // `placed` is in LSI1SK and LSI3SK; LSI3SK also needs `status`, which a rendered update
    // must set (a sent one reads it from the item: see `key_rebuild`).
    let err = table.update(Order::key("u1", &2)).set(Order::PLACED, &1150).render().unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: this update of Order sets `placed`, which LSI3SK `ST#<status>#<placed>` is built from; \
         set `status` in the same update so the key can be rebuilt"
    );

    // Order 2 (placed first) moves to between orders 9 and 11 in LSI1, and in LSI3.
    let moved = table
        .update(Order::key("u1", &2))
        .set(Order::PLACED, &1150)
        .set(Order::STATUS, &Some("shipped".to_owned()))
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.placed, 1150);
    let raw = common::raw_item(&table, "USER#u1", "ORDER#0000000002").await.unwrap();
    assert_eq!(raw.get("LSI1SK"), Some(&AttributeValue::N("1150".into())));
    assert_eq!(raw.get("LSI3SK"), Some(&AttributeValue::S("ST#shipped#0000001150".into())));
    let asc = ids(&table.query(Order::lsi1("u1")).all().await.unwrap());
    assert_eq!(asc, [4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 2, 11]);
    let shipped = ids(&table.query(Order::lsi3("u1")).sk_begins_with(("shipped",)).all().await.unwrap());
    assert_eq!(shipped, [4, 8, 10, 1, 5, 7, 2, 11]);

    // A status of None removes LSI3SK alone: the order leaves LSI3 and stays in LSI1.
    table.update(Order::key("u1", &6)).set(Order::STATUS, &None).set(Order::PLACED, &300).send().await.unwrap();
    let raw = common::raw_item(&table, "USER#u1", "ORDER#0000000006").await.unwrap();
    assert_eq!((raw.contains_key("LSI3SK"), raw.get("LSI1SK")), (false, Some(&AttributeValue::N("300".into()))));
    let open = ids(&table.query(Order::lsi3("u1")).sk_begins_with(("open",)).all().await.unwrap());
    assert_eq!(open, [12, 3, 9]);
    assert_eq!(ids(&table.query(Order::lsi1("u1")).all().await.unwrap()), [4, 6, 8, 10, 12, 1, 3, 5, 7, 9, 2, 11]);

    // A status again puts it back, under the time it kept.
    table
        .update(Order::key("u1", &6))
        .set(Order::STATUS, &Some("open".to_owned()))
        .set(Order::PLACED, &300)
        .send()
        .await
        .unwrap();
    let open = ids(&table.query(Order::lsi3("u1")).sk_begins_with(("open",)).all().await.unwrap());
    assert_eq!(open, [6, 12, 3, 9]);

    // Adding to a numeric LSI sort key field moves its key by the same amount.
    table.update(Order::key("u1", &1)).add(Order::TOTAL, &500).send().await.unwrap();
    let raw = common::raw_item(&table, "USER#u1", "ORDER#0000000001").await.unwrap();
    assert_eq!(raw.get("LSI2SK"), Some(&AttributeValue::N("510".into())));
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn a_none_part_keeps_the_item_out_of_the_lsi() {
    let table = table("lsi_sparse").await;
    let draft = Order { status: None, ..order("u1", 3) };
    let item = draft.to_item().unwrap();
    assert!(!item.contains_key("LSI3SK"));
    assert_eq!(item.get("LSI1SK"), Some(&AttributeValue::N("800".into())));
    assert_eq!(
        draft.gsi_keys().unwrap(),
        vec![("LSI1SK", AttributeValue::N("800".into())), ("LSI2SK", AttributeValue::N("30".into()))]
    );
    table.put(&draft).await.unwrap();
    table.put(&order("u1", 4)).await.unwrap();
    assert_eq!(ids(&table.query(Order::lsi3("u1")).all().await.unwrap()), [4]);
    assert_eq!(ids(&table.query(Order::lsi1("u1")).all().await.unwrap()), [4, 3]);

    // The keys-only LSI2 holds the table's and its own keys, nothing else.
    let resp = table
        .client()
        .query()
        .table_name(table.name())
        .index_name("LSI2")
        .key_condition_expression("PK = :pk")
        .expression_attribute_values(":pk", AttributeValue::S("USER#u1".into()))
        .send()
        .await
        .unwrap();
    let names: Vec<Vec<&str>> = resp
        .items()
        .iter()
        .map(|i| {
            let mut n: Vec<&str> = i.keys().map(String::as_str).collect();
            n.sort_unstable();
            n
        })
        .collect();
    assert_eq!(names, vec![vec!["LSI2SK", "PK", "SK"]; 2]);
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn a_write_costs_one_unit_in_each_lsi_it_enters() {
    let table = table("lsi_capacity").await;
    let value = order("u1", 1);
    let op = table.metered();
    op.put(&value).await.unwrap();
    let estimate = capacity::write(
        [Index::Lsi(1), Index::Lsi(2), Index::Lsi(3)],
        None,
        value.to_item().ok().as_ref(),
        WriteMode::Standard,
    );
    assert_eq!(op.consumed(), estimate);
    assert_eq!(estimate.index(Index::Lsi(3)).write, 1.0);
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn an_lsi_sort_key_over_the_limit_is_refused_before_sending() {
    let table = table("lsi_limit").await;
    let long = Order { status: Some("x".repeat(1100)), ..order("u1", 1) };
    match table.put(&long).await.unwrap_err() {
        Error::Key(KeyError::TooLong { entity, attribute, bytes, limit, .. }) => {
            assert_eq!((entity, attribute, bytes, limit), ("Order", "LSI3SK", 1114, 1024));
        }
        other => panic!("expected a key error, got {other:?}"),
    }
    table.delete_table().await.unwrap();
}

#[test]
fn the_layout_exports_the_lsis() {
    let layout = Shop::layout().unwrap();
    assert_eq!(layout.lsis(), [1, 2, 3]);
    assert!(layout.gsis().is_empty());
    assert_eq!(layout.indexes(), vec![Index::Lsi(1), Index::Lsi(2), Index::Lsi(3)]);
    assert_eq!(layout.key_attributes(), vec!["PK", "SK", "LSI1SK", "LSI2SK", "LSI3SK"]);
    assert_eq!((layout.key_type("LSI1SK"), layout.key_type("LSI3SK")), (KeyType::N, KeyType::S));
    assert_eq!(
        {
            let names = dynamo_entity::AttributeNames::DEFAULT;
            (names.index_name(Index::Lsi(2)), names.pk_of(Index::Lsi(2)), names.sk_of(Index::Lsi(2)))
        },
        (Some("LSI2"), "PK", "LSI2SK")
    );

    let cfn = layout.cloudformation("shop");
    let props = &cfn["Resources"]["ShopTable"]["Properties"];
    let keys = |n: u8| json!([{ "AttributeName": "PK", "KeyType": "HASH" }, { "AttributeName": format!("LSI{n}SK"), "KeyType": "RANGE" }]);
    assert_eq!(
        props["LocalSecondaryIndexes"],
        json!([
            { "IndexName": "LSI1", "KeySchema": keys(1), "Projection": { "ProjectionType": "ALL" } },
            { "IndexName": "LSI2", "KeySchema": keys(2), "Projection": { "ProjectionType": "KEYS_ONLY" } },
            {
                "IndexName": "LSI3",
                "KeySchema": keys(3),
                "Projection": {
                    "ProjectionType": "INCLUDE",
                    "NonKeyAttributes": ["_type", "user_id", "id", "placed", "total", "status", "note"]
                }
            }
        ])
    );
    assert!(props.get("GlobalSecondaryIndexes").is_none());
    assert_eq!(
        props["AttributeDefinitions"],
        json!([
            { "AttributeName": "PK", "AttributeType": "S" },
            { "AttributeName": "SK", "AttributeType": "S" },
            { "AttributeName": "LSI1SK", "AttributeType": "N" },
            { "AttributeName": "LSI2SK", "AttributeType": "N" },
            { "AttributeName": "LSI3SK", "AttributeType": "S" }
        ])
    );

    let patterns = layout.access_patterns();
    let lsi: Vec<(&str, &str, &str, bool)> = patterns
        .iter()
        .filter(|p| p.index.is_local())
        .map(|p| (p.name.as_str(), p.partition.as_str(), p.sort.as_str(), p.sparse))
        .collect();
    assert_eq!(
        lsi,
        [
            ("Order::lsi1", "PK = USER#<user_id>", "LSI1SK `<placed>` (N)", false),
            ("Order::lsi2", "PK = USER#<user_id>", "LSI2SK `<total>` (N)", false),
            ("Order::lsi3", "PK = USER#<user_id>", "LSI3SK `ST#<status>#<placed>` (S)", true),
        ]
    );
    let md = layout.markdown("Shop");
    assert!(md.contains("| `PK` | S | table; partition key of LSI1, LSI2, LSI3 |"), "{md}");
    assert!(md.contains("| `LSI3SK` | S | LSI3 |"), "{md}");
    assert!(md.contains("| entity | PK | SK | GSIs / LSIs |"), "{md}");
    assert!(
        md.contains(
            "| `Order::lsi3` | LSI3 | `PK = USER#<user_id>` | LSI3SK `ST#<status>#<placed>` (S) | Order | yes |"
        ),
        "{md}"
    );
    assert!(md.contains("    lsi1[(\"LSI1: PK / LSI1SK\")]"), "{md}");
    assert!(md.contains("    Order -.->|\"USER#{user_id} / {placed}\"| lsi1"), "{md}");
}

#[test]
fn a_declaration_built_by_hand_is_checked_for_its_lsis() {
    let decl = |index: Index| GsiDecl { index, projection: Projection::All, pk: None, sk: None };
    let entities = [User::schema(), Order::schema()];
    let err = TableLayout::declared(&entities, &[decl(Index::Lsi(1)), decl(Index::Lsi(3))]).unwrap_err();
    assert_eq!(err.to_string(), "invalid request: entity Order writes LSI2, which the table does not declare");
    let all = [decl(Index::Lsi(1)), decl(Index::Lsi(2)), decl(Index::Lsi(3))];
    let err = TableLayout::declared(&entities, &[all[0], all[1], all[2], decl(Index::Lsi(6))]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: LSIs are numbered 1 to 5: DynamoDB allows 5 local secondary indexes a table, not LSI6"
    );
    let typed = GsiDecl { pk: Some(KeyType::S), ..all[0] };
    let err = TableLayout::declared(&entities, &[typed, all[1], all[2]]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: LSI1 is keyed on the table's PK, whose type the entities set; declare only its sort key type"
    );
    let string_sk = GsiDecl { sk: Some(KeyType::S), ..all[1] };
    let err = TableLayout::declared(&entities, &[all[0], string_sk, all[2]]).unwrap_err();
    assert_eq!(err.to_string(), "invalid request: entity Order stores LSI2SK as N but the table declares it S");
    // An LSI no entity writes is created too, with the declared sort key type.
    let extra = GsiDecl { sk: Some(KeyType::N), ..decl(Index::Lsi(5)) };
    let layout = TableLayout::declared(&entities, &[all[0], all[1], all[2], extra]).unwrap();
    assert_eq!(layout.lsis(), [1, 2, 3, 5]);
    assert_eq!(layout.key_type("LSI5SK"), KeyType::N);

    // `create_table` from the entities alone creates every LSI they write.
    let plain = TableLayout::new(&entities).unwrap();
    assert_eq!(plain.indexes(), vec![Index::Lsi(1), Index::Lsi(2), Index::Lsi(3)]);
}

#[tokio::test]
async fn create_table_from_the_entities_creates_their_lsis() {
    let table = common::table("lsi_from_entities", &[User::schema(), Order::schema()]).await;
    let desc = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let mut names: Vec<(&str, Option<&ProjectionType>)> = desc
        .local_secondary_indexes()
        .iter()
        .map(|l| (l.index_name().unwrap(), l.projection().and_then(|p| p.projection_type())))
        .collect();
    names.sort_unstable_by_key(|n| n.0);
    let all = Some(&ProjectionType::All);
    assert_eq!(names, [("LSI1", all), ("LSI2", all), ("LSI3", all)]);
    load(&table).await;
    assert_eq!(ids(&table.query(Order::lsi1("u1")).all().await.unwrap()), BY_PLACED);
    table.delete_table().await.unwrap();
}

/// The request of an update that changes an LSI sort key: `LSI<n>SK` is set or removed, `PK`
/// (the LSI's partition key, the item's own) is never written.
#[tokio::test]
async fn an_lsi_update_rewrites_or_removes_the_sort_key_alone() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), "lsi-render-only");
    type Shape = (String, Vec<(String, String)>, Vec<(String, AttributeValue)>);
    let render = |u: dynamo_entity::update::UpdateRequest<Order>| -> Shape {
        let input = u.render().unwrap();
        let mut names: Vec<(String, String)> = input.expression_attribute_names.unwrap().into_iter().collect();
        names.sort();
        let mut values: Vec<(String, AttributeValue)> =
            input.expression_attribute_values.unwrap().into_iter().collect();
        values.sort_by(|a, b| a.0.cmp(&b.0));
        (input.update_expression.unwrap(), names, values)
    };
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
    };
    let names = pairs(&[
        ("#n0", "placed"),
        ("#n1", "status"),
        ("#n2", "LSI1SK"),
        ("#n3", "LSI3SK"),
        ("#n4", "PK"),
        ("#n5", "_type"),
    ]);
    let s = |v: &str| AttributeValue::S(v.to_owned());
    let n = |v: &str| AttributeValue::N(v.to_owned());
    let moved = render(
        table.update(Order::key("u1", &2)).set(Order::PLACED, &1150).set(Order::STATUS, &Some("shipped".to_owned())),
    );
    assert_eq!(
        moved,
        (
            "SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3".to_owned(),
            names,
            vec![
                (":v0".to_owned(), n("1150")),
                (":v1".to_owned(), s("shipped")),
                (":v2".to_owned(), n("1150")),
                (":v3".to_owned(), s("ST#shipped#0000001150")),
                (":v4".to_owned(), s("Order")),
            ]
        )
    );
    let (expression, names, values) =
        render(table.update(Order::key("u1", &2)).set(Order::STATUS, &None).set(Order::PLACED, &1150));
    assert_eq!(expression, "SET #n1 = :v0, #n2 = :v1 REMOVE #n0, #n3");
    assert_eq!(
        names,
        pairs(&[
            ("#n0", "status"),
            ("#n1", "placed"),
            ("#n2", "LSI1SK"),
            ("#n3", "LSI3SK"),
            ("#n4", "PK"),
            ("#n5", "_type"),
        ])
    );
    assert_eq!(
        values,
        vec![(":v0".to_owned(), n("1150")), (":v1".to_owned(), n("1150")), (":v2".to_owned(), s("Order"))]
    );
}

/// A post in its author's partition, in LSI1 by the creation time that a create stamps.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "AUTHOR#<author>", sk = "POST#<slug>", lsi1 = "<created_at>")]
pub struct Post {
    pub author: String,
    pub slug: String,
    #[entity(created_at)]
    pub created_at: dynamo_entity::Timestamp,
}

#[tokio::test]
async fn an_lsi_on_the_creation_time_follows_the_time_a_create_stamps() {
    let table = common::table("lsi_created_at", &[Post::schema()]).await;
    let mut stored = Vec::new();
    for slug in ["b", "c", "a"] {
        let mut post = Post { author: "ann".into(), slug: slug.into(), created_at: dynamo_entity::Timestamp::now() };
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        table.create(&mut post).await.unwrap();
        let raw = common::raw_item(&table, "AUTHOR#ann", &format!("POST#{slug}")).await.unwrap();
        assert_eq!(raw.get("LSI1SK"), Some(&AttributeValue::S(post.created_at.to_string())), "{slug}");
        stored.push(post);
    }
    // By slug through the table, newest first through LSI1.
    let slugs = |posts: Vec<Post>| posts.into_iter().map(|p| p.slug).collect::<Vec<_>>();
    assert_eq!(slugs(table.query(Post::query("ann")).all().await.unwrap()), ["a", "b", "c"]);
    assert_eq!(slugs(table.query(Post::lsi1("ann")).descending().all().await.unwrap()), ["a", "c", "b"]);
    let since = table.query(Post::lsi1("ann")).sk_ge(&stored[1].created_at).all().await.unwrap();
    assert_eq!(since, stored[1..].to_vec());
    table.delete_table().await.unwrap();
}

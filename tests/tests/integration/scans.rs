//! Typed scans (`Table::scan`, `Table::scan_table`): an entity's items and the counts of what
//! was left out, typed filters, cursors bound to their scan (and segment), parallel scans with
//! bounded concurrency, the read rate limit, strict decoding, and the table-level enum.

use crate::common;
use dynamo_entity_local::Divergence;

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Error, Table, TableDef};
use futures::TryStreamExt;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    pub name: String,
    pub sales: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>")]
pub struct Order {
    pub user_id: String,
    pub order_id: u32,
    pub total: u64,
}

#[derive(TableDef)]
#[table(entities(User, Order), item(derive(Debug, Clone, PartialEq)))]
pub struct Shop;

const USERS: usize = 30;
const ORDERS: usize = 20;

fn user(i: usize) -> User {
    User { id: format!("u{i:02}"), name: format!("name {i}"), sales: i as u64 }
}

fn order(i: usize) -> Order {
    Order { user_id: format!("u{:02}", i % 5), order_id: i as u32, total: (i as u64) * 10 }
}

/// A table of 30 users and 20 orders.
async fn loaded(test: &str) -> Table {
    let table = common::table(test, &[User::SCHEMA, Order::SCHEMA]).await;
    for i in 0..USERS {
        table.put(&user(i)).await.unwrap();
    }
    for i in 0..ORDERS {
        table.put(&order(i)).await.unwrap();
    }
    table
}

fn ids(users: &[User]) -> Vec<String> {
    let mut ids: Vec<String> = users.iter().map(|u| u.id.clone()).collect();
    ids.sort();
    ids
}

fn all_ids() -> Vec<String> {
    (0..USERS).map(|i| user(i).id).collect()
}

#[tokio::test]
async fn an_entity_scan_returns_every_item_of_the_entity_and_counts_the_others() {
    let table = loaded("scan_entity").await;
    let mut users = table.scan::<User>().all().await.unwrap();
    users.sort_by(|a, b| a.id.cmp(&b.id));
    assert_eq!(users, (0..USERS).map(user).collect::<Vec<_>>());

    // Pages of 10 items read: every item is read once, and each page accounts for all it read.
    let pages: Vec<dynamo_entity::Page<User>> = table.scan::<User>().page_size(10).pages().try_collect().await.unwrap();
    let scanned: u64 = pages.iter().map(|p| p.scanned).sum();
    let filtered: u64 = pages.iter().map(|p| p.filtered_out).sum();
    let returned: usize = pages.iter().map(|p| p.items.len()).sum();
    assert_eq!((scanned, filtered, returned), ((USERS + ORDERS) as u64, ORDERS as u64, USERS));
    let empty_free = common::diverges(Divergence::EmptyReadsCostNothing).await;
    for p in &pages {
        assert_eq!(p.scanned, p.items.len() as u64 + p.filtered_out + p.passed_over);
        assert_eq!(p.passed_over, 0);
        assert_eq!(p.segment, None);
        // A page that read nothing still costs the minimum
        // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#read-operation-consumption).
        let charged = p.scanned > 0 || !empty_free;
        assert_eq!(p.consumed.read() > 0.0, charged, "a page that read items reports its read units");
    }
    assert_eq!(pages.len(), 6, "5 full pages of 10 and an empty last one");
    assert_eq!(pages.last().unwrap().cursor, None);

    let orders = table.scan::<Order>().filter(Order::TOTAL.ge(&150)).all().await.unwrap();
    let mut got: Vec<u32> = orders.iter().map(|o| o.order_id).collect();
    got.sort_unstable();
    assert_eq!(got, vec![15, 16, 17, 18, 19]);
}

#[tokio::test]
async fn a_scan_cursor_resumes_its_scan_and_no_other() {
    let table = loaded("scan_cursor").await;
    let first = table.scan::<User>().page_items(7).send().await.unwrap();
    assert_eq!(first.items.len(), 7);
    let cursor = first.cursor.clone().expect("more users follow");
    let mut seen: Vec<User> = first.items;
    let mut next = Some(cursor.clone());
    while let Some(c) = next {
        let page = table.scan::<User>().page_items(7).after(c).send().await.unwrap();
        seen.extend(page.items);
        next = page.cursor;
    }
    assert_eq!(ids(&seen), all_ids(), "the pages return every user once");

    let another_scan = "invalid cursor: it belongs to a scan of User (table) with another filter or consistency";
    for (other, what, refusal) in [
        (
            table.scan::<Order>().after(cursor.clone()).send().await.map(|_| ()),
            "another entity",
            "invalid cursor: it belongs to a scan of User (table), not to a scan of Order (table)",
        ),
        (
            table.scan::<User>().filter(User::SALES.gt(&3)).after(cursor.clone()).send().await.map(|_| ()),
            "another filter",
            another_scan,
        ),
        (
            table.scan::<User>().consistent_read().after(cursor.clone()).send().await.map(|_| ()),
            "another consistency",
            another_scan,
        ),
        (
            table.scan::<User>().segment(0, 2).after(cursor.clone()).send().await.map(|_| ()),
            "a segment",
            "invalid cursor: it belongs to a scan of User (table), not to a scan of User (segment 0/2)",
        ),
    ] {
        match other {
            Err(e @ Error::Cursor { .. }) => assert_eq!(e.to_string(), refusal, "{what}"),
            other => panic!("a cursor of the scan is refused by {what}: {other:?}"),
        }
    }
    let mut altered = cursor.as_str().to_owned();
    altered.pop();
    altered.push(if cursor.as_str().ends_with('A') { 'B' } else { 'A' });
    let err = table.scan::<User>().after(dynamo_entity::Cursor::from(altered)).send().await;
    assert!(matches!(err, Err(Error::Cursor { .. })), "{err:?}");
}

#[tokio::test]
async fn a_parallel_scan_reads_every_segment_with_bounded_concurrency() {
    let table = loaded("scan_parallel").await;
    let pages: Vec<dynamo_entity::Page<User>> = table
        .scan::<User>()
        .parallel(4)
        .concurrency(2)
        .page_size(4)
        .consistent_read()
        .pages()
        .try_collect()
        .await
        .unwrap();
    let users: Vec<User> = pages.iter().flat_map(|p| p.items.clone()).collect();
    assert_eq!(ids(&users), all_ids());
    let segments: BTreeSet<u32> = pages.iter().map(|p| p.segment.expect("a segment page")).collect();
    assert_eq!(segments, (0..4).collect());
    assert_eq!(pages.iter().map(|p| p.scanned).sum::<u64>(), (USERS + ORDERS) as u64);

    // One segment at a time, as workers would take them: the same items.
    let mut by_segment = Vec::new();
    for s in 0..4 {
        by_segment.extend(table.scan::<User>().segment(s, 4).all().await.unwrap());
    }
    assert_eq!(ids(&by_segment), all_ids());

    let rendered = table.scan::<User>().segment(1, 4).consistent_read().render().unwrap();
    assert_eq!((rendered.segment, rendered.total_segments, rendered.consistent_read), (Some(1), Some(4), Some(true)));
    // The handle knows the table's entities (it created it): DynamoDB leaves out the items of
    // the other entity and the library's own, except where a user's key could be.
    assert_eq!(
        rendered.filter_expression.as_deref(),
        Some("(NOT (#n0 IN (:v0, :v1, :v2)) OR (begins_with(#n1, :v3) AND begins_with(#n2, :v4)))")
    );
    let values: BTreeMap<String, AttributeValue> = rendered.expression_attribute_values.unwrap().into_iter().collect();
    let strings = |v: &[&str]| v.iter().map(|s| AttributeValue::S((*s).to_owned())).collect::<Vec<_>>();
    assert_eq!(
        values.into_values().collect::<Vec<_>>(),
        strings(&["Order", "_migration", "_unique", "USER#", "PROFILE"])
    );
    let names: BTreeMap<String, String> = rendered.expression_attribute_names.unwrap().into_iter().collect();
    assert_eq!(names.into_values().collect::<Vec<_>>(), ["_type", "PK", "SK"]);

    let limited = table.scan::<User>().parallel(3).max_items(11).all().await.unwrap();
    assert_eq!(limited.len(), 11);

    for bad in [
        table.scan::<User>().segment(4, 4).send().await.map(|_| ()),
        table.scan::<User>().segment(0, 0).send().await.map(|_| ()),
        table.scan::<User>().parallel(4).send().await.map(|_| ()),
        table.scan::<User>().parallel(0).all().await.map(|_| ()),
    ] {
        assert!(matches!(bad, Err(Error::Invalid { .. })), "{bad:?}");
    }
}

#[tokio::test]
async fn the_read_rate_limit_holds_over_a_parallel_scan() {
    let table = loaded("scan_rate").await;
    let rate = 4.0;
    let started = std::time::Instant::now();
    let pages: Vec<dynamo_entity::Page<User>> = table
        .scan::<User>()
        .parallel(2)
        .page_size(2)
        .consistent_read()
        .read_rate(rate)
        .pages()
        .try_collect()
        .await
        .unwrap();
    let elapsed = started.elapsed().as_secs_f64();
    let units: f64 = pages.iter().map(|p| p.consumed.read()).sum();
    let largest = pages.iter().map(|p| p.consumed.read()).fold(0.0, f64::max);
    // The bucket starts with one second's worth; every request but the last of each segment
    // waited for the units before it to be paid back.
    let floor = (units - rate - 2.0 * largest) / rate;
    assert!(units >= 12.0, "25 strongly consistent requests of one unit or more: {units}");
    assert!(elapsed >= floor, "{units} read units at {rate}/s took {elapsed:.2} s, less than {floor:.2} s");
    assert_eq!(ids(&pages.into_iter().flat_map(|p| p.items).collect::<Vec<_>>()), all_ids());
}

#[tokio::test]
async fn an_undecodable_item_of_the_entity_is_an_error_naming_its_key() {
    let table = loaded("scan_strict").await;
    table
        .client()
        .put_item()
        .table_name(table.name())
        .item("PK", AttributeValue::S("USER#bad".into()))
        .item("SK", AttributeValue::S("PROFILE".into()))
        .item("_type", AttributeValue::S("User".into()))
        .item("id", AttributeValue::S("bad".into()))
        .item("name", AttributeValue::S("x".into()))
        .item("sales", AttributeValue::S("many".into()))
        .send()
        .await
        .unwrap();
    match table.scan::<User>().all().await {
        Err(Error::Decode { entity: "User", attribute: "sales", key, .. }) => {
            assert_eq!(key, "PK=USER#bad SK=PROFILE");
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    // The orders are not affected.
    assert_eq!(table.scan::<Order>().all().await.unwrap().len(), ORDERS);
}

async fn raw_put(table: &Table, pairs: &[(&str, &str)]) {
    let item = pairs.iter().map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned()))).collect();
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// Counts the users and orders of a table scan, checking each against what was written.
fn count(items: &[ShopItem]) -> (usize, usize) {
    let (mut users, mut orders) = (0, 0);
    for item in items {
        match item {
            ShopItem::User(u) => {
                assert_eq!(*u, user(u.sales as usize));
                users += 1;
            }
            ShopItem::Order(o) => {
                assert_eq!(*o, order(o.order_id as usize));
                orders += 1;
            }
        }
    }
    (users, orders)
}

#[tokio::test]
async fn a_table_scan_decodes_every_entity_and_refuses_or_reports_unknown_types() {
    let table = loaded("scan_table").await;
    // The library's own items: a guard and a migration record, always left out and counted.
    raw_put(&table, &[("PK", "UNIQUE#User#email#a%40b"), ("SK", "UNIQUE"), ("_type", "_unique")]).await;
    raw_put(&table, &[("PK", "_MIGRATION#m1"), ("SK", "RUN"), ("_type", "_migration")]).await;

    // Without an item of another type, the strict default reads every entity item.
    let pages: Vec<dynamo_entity::Page<ShopItem>> = table.scan_table::<ShopItem>().pages().try_collect().await.unwrap();
    let items: Vec<ShopItem> = pages.iter().flat_map(|p| p.items.clone()).collect();
    assert_eq!(count(&items), (USERS, ORDERS));
    assert_eq!(pages.iter().map(|p| p.passed_over).sum::<u64>(), 2, "the guard and the migration record");
    assert_eq!(pages.iter().map(|p| p.skipped.len()).sum::<usize>(), 0);

    // An item of a type the enum does not name: the default scan fails, naming it.
    raw_put(&table, &[("PK", "OTHER#1"), ("SK", "X"), ("_type", "Coupon")]).await;
    let err = table.scan_table::<ShopItem>().all().await.unwrap_err();
    assert_eq!(err.to_string(), "ShopItem does not hold items of entity type `Coupon`: PK=OTHER#1 SK=X");
    let err = table.scan_table::<ShopItem>().parallel(3).pages().try_collect::<Vec<_>>().await.unwrap_err();
    assert!(matches!(err, Error::UnexpectedItem { collection: "ShopItem", found: Some(ref t), .. } if t == "Coupon"));

    // Lenient: reported beside the items, with its key and the item as read.
    let dynamo_entity::Page { items, skipped: undecodable, .. } =
        table.scan_table::<ShopItem>().parallel(3).lenient().all().await.unwrap();
    assert_eq!(count(&items), (USERS, ORDERS));
    assert_eq!(undecodable.len(), 1);
    assert_eq!(undecodable[0].key, "PK=OTHER#1 SK=X");
    assert_eq!(undecodable[0].item["_type"], AttributeValue::S("Coupon".into()));
    assert!(matches!(undecodable[0].error, Error::UnexpectedItem { .. }));

    // skip_unknown: the caller's choice, counted with the library's own items.
    let pages: Vec<dynamo_entity::Page<ShopItem>> =
        table.scan_table::<ShopItem>().skip_unknown().pages().try_collect().await.unwrap();
    let items: Vec<ShopItem> = pages.iter().flat_map(|p| p.items.clone()).collect();
    assert_eq!(count(&items), (USERS, ORDERS));
    assert_eq!(pages.iter().map(|p| p.passed_over).sum::<u64>(), 3, "the Coupon item, the guard and the record");
    assert_eq!(pages.iter().map(|p| p.filtered_out).sum::<u64>(), 0);
    assert_eq!(pages.iter().map(|p| p.scanned).sum::<u64>(), (USERS + ORDERS + 3) as u64);
}

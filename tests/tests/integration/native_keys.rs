//! Synthetic to native keys (`Table::native_keys`): orders served by a template GSI (GSI1,
//! `CUST#<customer>` / `<placed>`) move to a native multi-attribute GSI (GSI2 on `customer`,
//! `placed`): the index is created, the items that lack its attributes get them, the result is
//! verified, then the synthetic attributes are removed and GSI1 is deleted; a second run does
//! nothing; the new index answers the access pattern with exactly the orders. A second test
//! runs the same move through the migration runner (`Migrations::native_keys`): its plan and
//! status text, a run stopped after its first checkpoint and resumed, then the step that
//! removes the old keys and index.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::{Applied, Migrations, Observer, PageDone, RunOptions, Wait};
use dynamo_entity::schema::{Index, TableLayout};
use dynamo_entity::{Entity, Item, Table};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

use crate::common;

/// An order as launched: a customer's orders on GSI1, by template; its key fields stored only
/// inside its keys (`customer` in GSI1PK, `placed` in GSI1SK).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "Order",
    pk = "ORDER#<id>",
    sk = "META",
    gsi1 = "CUST#<customer>",
    gsi1_sk = "<placed>",
    key_fields = "keys",
    schema(version = 1)
)]
pub struct OrderV1 {
    pub id: String,
    pub customer: String,
    pub placed: u32,
    pub total: u32,
}

/// The order today: the same access pattern on GSI2, keyed on its own attributes. An item of
/// version 1 reads `customer` and `placed` from GSI1's keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Order", pk = "ORDER#<id>", sk = "META", gsi2(pk(customer), sk(placed)), schema(version = 2, from = OrderV1))]
pub struct Order {
    pub id: String,
    pub customer: String,
    pub placed: u32,
    pub total: u32,
}

impl From<OrderV1> for Order {
    fn from(o: OrderV1) -> Order {
        Order { id: o.id, customer: o.customer, placed: o.placed, total: o.total }
    }
}

fn v1(i: u32) -> OrderV1 {
    OrderV1 { id: format!("o{i:03}"), customer: format!("c{}", i % 4), placed: 1000 - i, total: i * 3 }
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

const FAST: Wait = Wait { timeout: std::time::Duration::from_secs(120), poll: std::time::Duration::from_millis(100) };

#[tokio::test]
async fn a_template_gsi_moves_to_a_native_multi_attribute_gsi() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("native_keys"));
    table.create_table_from(&TableLayout::new(&[OrderV1::SCHEMA]).unwrap()).await.unwrap();
    // 40 orders written by the launch code: `customer` and `placed` only inside GSI1PK /
    // GSI1SK.
    let orders: Vec<OrderV1> = (0..40).map(v1).collect();
    table.batch_write().put_all(&orders).send().await.unwrap().check().unwrap();
    let mut launched = BTreeMap::new();
    for o in &orders {
        let item = common::raw_item(&table, &format!("ORDER#{}", o.id), "META").await.unwrap();
        assert!(!item.contains_key("customer") && !item.contains_key("placed") && item.contains_key("GSI1PK"));
        launched.insert(o.id.clone(), item);
    }
    let layout = TableLayout::new(&[Order::SCHEMA]).unwrap();

    let migration = table
        .native_keys::<Order>("orders-native", &layout, Index::Gsi(1), Index::Gsi(2))
        .wait(FAST)
        .configure(|b| b.segments(2).page_size(9));
    // Without drop_old: the index is created and verified; nothing removed.
    let first = migration.run().await.unwrap();
    assert!(first.created && first.fill.completed, "{first}");
    // Each order got its two attributes (one conditional update each).
    assert_eq!((first.fill.scanned, first.fill.updated, first.fill.skipped, first.fill.failed), (40, 40, 0, 0));
    for o in &orders {
        let mut want = launched[&o.id].clone();
        want.insert("customer".to_owned(), s(&o.customer));
        want.insert("placed".to_owned(), AttributeValue::N(o.placed.to_string()));
        assert_eq!(common::raw_item(&table, &format!("ORDER#{}", o.id), "META").await.unwrap(), want);
    }
    assert_eq!((first.unindexed, first.strip.clone(), first.dropped), (0, None, false));
    let (desc, _) = common::describe(&table).await;
    let gsis: BTreeMap<String, Vec<(String, String)>> = desc
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let keys = g.key_schema().iter().map(|k| (k.attribute_name().to_owned(), k.key_type().as_str().to_owned()));
            (g.index_name().unwrap().to_owned(), keys.collect())
        })
        .collect();
    assert_eq!(
        gsis,
        BTreeMap::from([
            (
                "GSI1".to_owned(),
                vec![("GSI1PK".to_owned(), "HASH".to_owned()), ("GSI1SK".to_owned(), "RANGE".to_owned())]
            ),
            (
                "GSI2".to_owned(),
                vec![("customer".to_owned(), "HASH".to_owned()), ("placed".to_owned(), "RANGE".to_owned())]
            ),
        ])
    );
    // The new index answers the access pattern: c1's orders by `placed`.
    let c1: Vec<String> = table.query(Order::gsi2("c1")).all().await.unwrap().into_iter().map(|o| o.id).collect();
    let want: Vec<String> = (0..40).rev().filter(|i| i % 4 == 1).map(|i| format!("o{i:03}")).collect();
    assert_eq!(c1, want);

    // Then with drop_old: the synthetic attributes go, and GSI1 with them.
    let second = table
        .native_keys::<Order>("orders-native", &layout, Index::Gsi(1), Index::Gsi(2))
        .wait(FAST)
        .configure(|b| b.segments(2).page_size(9))
        .drop_old()
        .run()
        .await
        .unwrap();
    assert!(!second.created && second.dropped, "{second}");
    assert_eq!(second.fill, first.fill, "the fill pass was done: its report, nothing read");
    let strip = second.strip.clone().unwrap();
    assert_eq!((strip.scanned, strip.updated, strip.skipped, strip.failed, strip.run), (40, 40, 0, 0, 1));
    let (desc, _) = common::describe(&table).await;
    let names: Vec<&str> = desc.global_secondary_indexes().iter().map(|g| g.index_name().unwrap()).collect();
    assert_eq!(names, ["GSI2"]);
    for o in &orders {
        let item = common::raw_item(&table, &format!("ORDER#{}", o.id), "META").await.unwrap();
        let mut want: Item = launched[&o.id].clone();
        want.remove("GSI1PK");
        want.remove("GSI1SK");
        want.insert("customer".to_owned(), s(&o.customer));
        want.insert("placed".to_owned(), AttributeValue::N(o.placed.to_string()));
        assert_eq!(item, want, "order {} has its attributes and no synthetic key", o.id);
    }
    let c1: Vec<String> = table.query(Order::gsi2("c1")).all().await.unwrap().into_iter().map(|o| o.id).collect();
    assert_eq!(c1, want);

    // Run again: everything is done; nothing is written or changed.
    let third = table
        .native_keys::<Order>("orders-native", &layout, Index::Gsi(1), Index::Gsi(2))
        .wait(FAST)
        .drop_old()
        .run()
        .await
        .unwrap();
    assert!(!third.created && !third.dropped);
    assert_eq!(third.strip.unwrap(), strip);

    // The old index still declared: drop_old is refused before anything is sent.
    let old_layout = TableLayout::new(&[OrderV1::SCHEMA]).unwrap();
    let err = table
        .native_keys::<Order>("other", &old_layout, Index::Gsi(1), Index::Gsi(2))
        .drop_old()
        .run()
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: native keys other: GSI1 is still declared (by Order or the table layout): it cannot be dropped"
    );
    table.delete_table().await.unwrap();
}

/// Tells the test when the first checkpoint of a run is written.
struct StopAfterFirstCheckpoint(Arc<tokio::sync::Notify>);

impl Observer for StopAfterFirstCheckpoint {
    fn page(&self, _: &str, _: &PageDone) {
        self.0.notify_one();
    }
}

/// The orders whose item has its own `customer` attribute (the native GSI2's partition key).
async fn filled(table: &Table) -> u64 {
    let items = common::scan_all(table).await;
    items.iter().filter(|i| i.get("_type") == Some(&s("Order")) && i.contains_key("customer")).count() as u64
}

#[tokio::test]
async fn the_runner_moves_an_access_pattern_to_native_keys_and_resumes_the_move() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("native_keys_runner"));
    table.create_table_from(&TableLayout::new(&[OrderV1::SCHEMA]).unwrap()).await.unwrap();
    let orders: Vec<OrderV1> = (0..40).map(v1).collect();
    table.batch_write().put_all(&orders).send().await.unwrap().check().unwrap();
    let layout = TableLayout::new(&[Order::SCHEMA]).unwrap();
    const MOVE: &str = "0001-orders-native";
    const DROP: &str = "0002-orders-drop-gsi1";
    // The move in one segment, pages of 10, a checkpoint after every page; then, once the
    // application reads GSI2, the removal of GSI1 and its keys.
    let migrations = Migrations::new(layout.clone())
        .heartbeat(Duration::from_millis(200))
        .wait(FAST)
        .native_keys::<Order>(MOVE, Index::Gsi(1), Index::Gsi(2), false, |b| b.segments(1).concurrency(1).page_size(10))
        .native_keys::<Order>(DROP, Index::Gsi(1), Index::Gsi(2), true, |b| b.segments(2).page_size(9));
    let move_line = "[native-keys] move the Order access pattern from GSI1 to the native multi-attribute GSI2";
    let drop_line = format!("{move_line}, then remove the old keys and index");
    let what = "create the index if missing, a parallel scan writing the attributes items lack, a verifying scan";
    let status_text = |st: Vec<dynamo_entity::migrate::MigrationStatus>| -> Vec<String> {
        st.iter().map(ToString::to_string).collect()
    };

    assert_eq!(
        status_text(migrations.status(&table).await.unwrap()),
        [format!("pending  {MOVE} {move_line}"), format!("pending  {DROP} {drop_line}")]
    );
    let plan = migrations.plan(&table, None).await.unwrap();
    let described = |line: &str| line.trim_start_matches("[native-keys] ").to_owned();
    assert_eq!(
        plan,
        [
            (MOVE.to_owned(), vec![format!("{}: {what}", described(move_line))]),
            (DROP.to_owned(), vec![format!("{}: {what}", described(&drop_line))]),
        ]
    );
    assert_eq!(filled(&table).await, 0, "plan wrote nothing");

    // apply, dropped once the move's first checkpoint is written (its first page done).
    let stop = Arc::new(tokio::sync::Notify::new());
    let options = RunOptions {
        to: Some(MOVE.to_owned()),
        observer: Arc::new(StopAfterFirstCheckpoint(Arc::clone(&stop))),
        ..RunOptions::default()
    };
    tokio::select! {
        r = migrations.apply(&table, &options) => panic!("the run ended before it was stopped: {r:?}"),
        () = stop.notified() => {}
    }
    // Stopped once its heartbeat is older than 3 periods of 200 ms; an update already sent
    // when the run was dropped lands meanwhile.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let native = table.native_keys::<Order>(MOVE, &layout, Index::Gsi(1), Index::Gsi(2));
    let at_stop = native.status().await.unwrap().unwrap();
    let first_page = at_stop.scanned;
    assert!(!at_stop.completed && first_page > 0 && first_page <= 10, "{at_stop}");
    assert_eq!((at_stop.updated, at_stop.skipped, at_stop.failed), (first_page, 0, 0), "{at_stop}");
    // The orders of the first page have their attributes, and those of the second page whose
    // update was sent before the run was dropped (at most 8 in flight).
    let filled_at_stop = filled(&table).await;
    assert!(filled_at_stop >= first_page && filled_at_stop <= first_page + 8, "{filled_at_stop} {at_stop}");
    let checkpoint = format!("(checkpoint: run 1, {first_page} scanned, {first_page} updated, 0 skipped)");
    assert_eq!(
        status_text(migrations.status(&table).await.unwrap()),
        [format!("stopped  {MOVE} {move_line}: {checkpoint}"), format!("pending  {DROP} {drop_line}")]
    );
    let plan = migrations.plan(&table, Some(MOVE)).await.unwrap();
    assert_eq!(
        plan,
        [(
            MOVE.to_owned(),
            vec![format!("{}: {what}", described(move_line)), format!("fill pass checkpoint: {at_stop}")]
        )]
    );

    // resume: the move continues after its first page, and nothing else runs.
    let resumed = migrations.resume(&table, &RunOptions::default()).await.unwrap();
    let report = native.status().await.unwrap().unwrap();
    // Every order read once: the first page before the stop, the others after it; those the
    // dropped run had already updated are skipped.
    let again = filled_at_stop - first_page;
    assert_eq!(
        (report.run, report.completed, report.scanned, report.updated, report.skipped, report.failed),
        (1, true, 40, 40 - again, again, 0),
        "{report}"
    );
    assert_eq!((report.vanished, report.changed), (0, 0), "{report}");
    let summary = format!("native keys: index already there; fill: {report}; verified (0 unindexed)");
    assert_eq!(resumed, [Applied { id: MOVE.to_owned(), summary: summary.clone() }]);
    assert_eq!(
        status_text(migrations.status(&table).await.unwrap()),
        [
            format!("applied  {MOVE} {move_line}: {summary}; not verified since applied"),
            format!("pending  {DROP} {drop_line}")
        ]
    );
    assert_eq!(filled(&table).await, 40);
    let c1_want: Vec<String> = (0..40).rev().filter(|i| i % 4 == 1).map(|i| format!("o{i:03}")).collect();
    let c1: Vec<String> = table.query(Order::gsi2("c1")).all().await.unwrap().into_iter().map(|o| o.id).collect();
    assert_eq!(c1, c1_want, "GSI2 answers c1's orders, newest placed first");
    for o in &orders {
        let item = common::raw_item(&table, &format!("ORDER#{}", o.id), "META").await.unwrap();
        assert_eq!(item.get("GSI1PK"), Some(&s(&format!("CUST#{}", o.customer))), "GSI1 keys kept until the drop");
        assert_eq!(item.get("placed"), Some(&AttributeValue::N(o.placed.to_string())));
    }

    // apply: the removal of GSI1 and its keys (its fill pass finds every order filled).
    let applied = migrations.apply(&table, &RunOptions::default()).await.unwrap();
    let fill = table.native_keys::<Order>(DROP, &layout, Index::Gsi(1), Index::Gsi(2)).status().await.unwrap().unwrap();
    let strip = table.backfill::<Order>(format!("{DROP}+strip")).status().await.unwrap().unwrap();
    assert_eq!((fill.completed, fill.scanned, fill.updated, fill.skipped, fill.failed), (true, 40, 0, 40, 0), "{fill}");
    assert_eq!(
        (strip.completed, strip.scanned, strip.updated, strip.skipped, strip.failed),
        (true, 40, 40, 0, 0),
        "{strip}"
    );
    let summary = format!(
        "native keys: index already there; fill: {fill}; verified (0 unindexed); strip: {strip}; old index deleted"
    );
    assert_eq!(applied, [Applied { id: DROP.to_owned(), summary: summary.clone() }]);
    let st = status_text(migrations.status(&table).await.unwrap());
    assert_eq!(st[1], format!("applied  {DROP} {drop_line}: {summary}; not verified since applied"));
    assert!(migrations.plan(&table, None).await.unwrap().is_empty());
    let (desc, _) = common::describe(&table).await;
    let names: Vec<&str> = desc.global_secondary_indexes().iter().map(|g| g.index_name().unwrap()).collect();
    assert_eq!(names, ["GSI2"]);
    for o in &orders {
        let item = common::raw_item(&table, &format!("ORDER#{}", o.id), "META").await.unwrap();
        assert!(!item.contains_key("GSI1PK") && !item.contains_key("GSI1SK"), "{item:?}");
        assert_eq!(Order::from_item(&item).unwrap(), Order::from(o.clone()));
    }
    let c1: Vec<String> = table.query(Order::gsi2("c1")).all().await.unwrap().into_iter().map(|o| o.id).collect();
    assert_eq!(c1, c1_want);
    table.delete_table().await.unwrap();
}

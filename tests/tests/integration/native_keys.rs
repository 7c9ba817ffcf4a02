//! Synthetic to native keys (`Table::native_keys`): orders served by a template GSI (GSI1,
//! `CUST#<customer>` / `<placed>`) move to a native multi-attribute GSI (GSI2 on `customer`,
//! `placed`): the index is created, the items that lack its attributes get them, the result is
//! verified, then the synthetic attributes are removed and GSI1 is deleted; a second run does
//! nothing; the new index answers the access pattern with exactly the orders.

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::Wait;
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

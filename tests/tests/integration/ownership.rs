//! Whose item is this: items planted at an entity's keys by another writer, whose type
//! attribute holds each of the library's reserved values (`_unique`, `_migration`), a number,
//! a JavaScript `null`, a type value no entity has, or nothing, are never passed over in
//! silence. Every read path (get, query, GSI query, scan, the table's item enum, item
//! collections, batch get, transactional get, stream images) either fails on them (strict) or
//! reports each one with its key (lenient); the decoded and reported items add up to every
//! item stored. The library's own guard and migration items, at the library's own keys, are the
//! only ones a read passes over unreported.
//!
//! In a table without a type attribute (`entity_type = none`) an item at an entity's key is
//! that entity's, whatever other attributes it holds: the same plants decode.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::error::ItemError;
use dynamo_entity::query::Decoded;
use dynamo_entity::stream::{Change, ChangeKind};
use dynamo_entity::{Collection, Entity, EntityEnum, Error, Item, Page, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

mod typed {
    use super::*;

    /// A ledger row; `memo` is optional, so some rows leave it out.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "ACCT#<account>", sk = "ROW#<seq>", gsi1 = "KIND#<kind>", gsi1_sk = "<seq>", table = Ledger)]
    pub struct Row {
        pub account: String,
        pub seq: u32,
        pub kind: String,
        pub amount: i64,
        pub memo: Option<String>,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "ACCT#<account>", sk = "META", table = Ledger)]
    pub struct Account {
        pub account: String,
        pub owner: String,
    }

    #[derive(TableDef)]
    #[table(entities(Row, Account), gsi1(projection = all))]
    pub struct Ledger;

    #[derive(EntityEnum, Debug, Clone, PartialEq)]
    pub enum AnyItem {
        Row(Row),
        Account(Account),
    }

    #[derive(Collection, Debug, PartialEq)]
    pub struct Book {
        pub account: Account,
        pub rows: Vec<Row>,
    }
}

mod untyped {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "ACCT#<account>", sk = "ROW#<seq>", table = Bare)]
    pub struct Row {
        pub account: String,
        pub seq: u32,
        pub kind: String,
        pub amount: i64,
        pub memo: Option<String>,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "ACCT#<account>", sk = "META", table = Bare)]
    pub struct Account {
        pub account: String,
        pub owner: String,
    }

    #[derive(TableDef)]
    #[table(entities(Row, Account), entity_type = none)]
    pub struct Bare;

    #[derive(EntityEnum, Debug, Clone, PartialEq)]
    pub enum AnyItem {
        Row(Row),
        Account(Account),
    }
}

/// What another writer put in the type attribute of a planted row, by the row's `seq`.
fn plants() -> Vec<(u32, Option<AttributeValue>, Option<String>)> {
    vec![
        (8, Some(s("_unique")), Some("_unique".to_owned())),
        (9, Some(s("_migration")), Some("_migration".to_owned())),
        (10, Some(AttributeValue::N("1".to_owned())), Some("the number 1".to_owned())),
        (11, Some(AttributeValue::Null(true)), Some("a value of type NULL".to_owned())),
        (12, Some(s("Invoice")), Some("Invoice".to_owned())),
        (13, None, None),
    ]
}

const VALID: u32 = 7;

fn row_key(seq: u32) -> String {
    format!("PK=ACCT#a1 SK=ROW#{seq:010}")
}

fn row(seq: u32) -> typed::Row {
    typed::Row {
        account: "a1".into(),
        seq,
        kind: "deposit".into(),
        amount: i64::from(seq) * 100,
        // Every other row without a memo: such rows must not be read twice through the GSI.
        memo: (seq % 2 == 0).then(|| format!("memo {seq}")),
    }
}

async fn put_raw(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// A fresh typed table with the account, 7 rows written by the library and the 6 plants (rows
/// 8 to 13 with their type attribute replaced or removed), plus the library's own items a
/// unique guard and a migration record would leave (which every read passes over).
async fn typed_table(test: &str) -> Table {
    use typed::*;
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Ledger::layout().unwrap()).await.unwrap();
    table.put(&Account { account: "a1".into(), owner: "Ann".into() }).await.unwrap();
    for seq in 1..=VALID {
        table.put(&row(seq)).await.unwrap();
    }
    for (seq, ty, _) in plants() {
        let mut item = row(seq).to_item().unwrap();
        match ty {
            Some(v) => item.insert("_type".into(), v),
            None => item.remove("_type"),
        };
        put_raw(&table, item).await;
    }
    let library = |pk: &str, sk: &str, ty: &str| -> Item {
        [("PK", s(pk)), ("SK", s(sk)), ("_type", s(ty))].into_iter().map(|(k, v)| (k.to_owned(), v)).collect()
    };
    put_raw(&table, library("UNIQUE#Row#memo#x", "UNIQUE", "_unique")).await;
    put_raw(&table, library("_MIGRATION#m1", "RUN", "_migration")).await;
    table
}

/// The error a read of a row reports for plant `seq` whose type attribute holds `found`.
fn wrong_entity(seq: u32, found: &Option<String>) -> String {
    Error::WrongEntity { expected: "Row", found: found.clone(), key: row_key(seq) }.to_string()
}

fn reported(skipped: &[ItemError]) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = skipped.iter().map(|e| (e.key.clone(), e.error.to_string())).collect();
    out.sort();
    out
}

fn expected_reports() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> =
        plants().iter().map(|(seq, _, found)| (row_key(*seq), wrong_entity(*seq, found))).collect();
    out.sort();
    out
}

/// The first plant in sort-key order, as a strict read reports it.
fn first_plant_error() -> String {
    let (seq, _, found) = &plants()[0];
    wrong_entity(*seq, found)
}

fn seqs(rows: &[typed::Row]) -> Vec<u32> {
    let mut s: Vec<u32> = rows.iter().map(|r| r.seq).collect();
    s.sort_unstable();
    s
}

#[tokio::test]
async fn every_read_of_a_typed_table_reports_items_of_no_entity_at_an_entitys_key() {
    use typed::*;
    let table = typed_table("ownership_typed").await;
    let valid: Vec<u32> = (1..=VALID).collect();

    // get: each plant's key is refused with its type value.
    for (seq, _, found) in plants() {
        let err = table.get_consistent(Row::key("a1", &seq)).await.unwrap_err();
        assert_eq!(err.to_string(), wrong_entity(seq, &found), "get of row {seq}");
    }

    // Query of the partition: strict fails on the first plant; lenient decodes 7, reports 6.
    let err = table.query(Row::query("a1")).consistent_read().all().await.unwrap_err();
    assert_eq!(err.to_string(), first_plant_error());
    let page = table.query(Row::query("a1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(seqs(&page.items), valid);
    assert_eq!(reported(&page.skipped), expected_reports());

    // GSI query (projection ALL).
    let err = table.query(Row::gsi1("deposit")).all().await.unwrap_err();
    assert_eq!(err.to_string(), first_plant_error());
    let page = table.query(Row::gsi1("deposit")).lenient().all().await.unwrap();
    assert_eq!(seqs(&page.items), valid);
    assert_eq!(reported(&page.skipped), expected_reports());

    // Scan of the entity.
    let err = table.scan::<Row>().consistent_read().all().await.unwrap_err();
    assert!(expected_reports().iter().any(|(_, e)| *e == err.to_string()), "scan: {err}");
    let dynamo_entity::Page { items: rows, skipped, .. } =
        table.scan::<Row>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(seqs(&rows), valid);
    assert_eq!(reported(&skipped), expected_reports());

    // Scan of the table into its item enum: 7 rows and the account decode, 6 reported.
    let err = table.scan_table::<AnyItem>().consistent_read().all().await.unwrap_err();
    assert!(expected_reports().iter().any(|(_, e)| *e == err.to_string()), "scan_table: {err}");
    let dynamo_entity::Page { items, skipped, .. } =
        table.scan_table::<AnyItem>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(items.len(), VALID as usize + 1);
    assert_eq!(reported(&skipped), expected_reports());

    // The item collection, as a collection and item by item.
    let items = table.collection(Row::query("a1")).consistent_read().send().await.unwrap();
    assert_eq!(items.decode::<Book>().unwrap_err().to_string(), first_plant_error());
    assert_eq!(items.strict().decode::<Book>().unwrap_err().to_string(), first_plant_error());
    let Decoded { value: book, skipped } = items.lenient().decode::<Book>().unwrap();
    assert_eq!(seqs(&book.rows), valid);
    assert_eq!(reported(&skipped), expected_reports());
    assert_eq!(items.decode_each::<AnyItem>().unwrap_err().to_string(), first_plant_error());
    let Page { items: each, skipped, .. } = items.lenient().decode_each::<AnyItem>();
    assert_eq!(each.len(), VALID as usize + 1);
    assert_eq!(reported(&skipped), expected_reports());
    assert_eq!(items.all::<Row>().unwrap_err().to_string(), first_plant_error());
    let Page { items: rows, skipped, .. } = items.lenient().all::<Row>();
    assert_eq!(seqs(&rows), valid);
    assert_eq!(reported(&skipped), expected_reports());

    // Batch get and transactional get of a plant's key.
    let keys = (1..=13).map(|seq| Row::key("a1", &seq));
    let err = table.batch_get(keys).consistent_read().send().await.unwrap_err();
    assert_eq!(err.to_string(), first_plant_error());
    let outcome =
        table.batch_get((1..=13).map(|seq| Row::key("a1", &seq))).consistent_read().lenient().send().await.unwrap();
    assert_eq!(outcome.items.iter().filter(|i| i.is_some()).count(), VALID as usize);
    let skipped: Vec<ItemError> = outcome.skipped.into_iter().map(|(_, e)| e).collect();
    assert_eq!(reported(&skipped), expected_reports());
    for (seq, _, found) in plants() {
        let err = table.transact_get().get(Row::key("a1", &seq)).send().await.unwrap_err();
        assert_eq!(err.to_string(), wrong_entity(seq, &found), "transact_get of row {seq}");
    }

    // Stream images of each plant: an error, and reported by the lenient decoder.
    for (seq, ty, found) in plants() {
        let mut image = row(seq).to_item().unwrap();
        match ty {
            Some(v) => image.insert("_type".into(), v),
            None => image.remove("_type"),
        };
        let keys: Item =
            image.iter().filter(|(k, _)| *k == "PK" || *k == "SK").map(|(k, v)| (k.clone(), v.clone())).collect();
        let err = Change::<AnyItem>::from_images(ChangeKind::Insert, &keys, None, Some(&image)).unwrap_err();
        assert_eq!(err.to_string(), wrong_entity(seq, &found), "stream image of row {seq}");
        let Decoded { value: change, skipped } =
            Change::<AnyItem>::lenient().from_images(ChangeKind::Insert, &keys, None, Some(&image)).unwrap();
        assert_eq!(change, None, "stream image of row {seq}");
        assert_eq!(reported(&skipped), vec![(row_key(seq), wrong_entity(seq, &found))]);
    }
}

#[tokio::test]
async fn a_table_without_a_type_attribute_reads_every_item_at_an_entitys_key_as_that_entitys() {
    use untyped::*;
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("ownership_untyped"));
    table.create_table_from(&Bare::layout().unwrap()).await.unwrap();
    table.put(&Account { account: "a1".into(), owner: "Ann".into() }).await.unwrap();
    for seq in 1..=13 {
        let r = row(seq);
        let mut item =
            Row { account: r.account, seq: r.seq, kind: r.kind, amount: r.amount, memo: r.memo }.to_item().unwrap();
        // Whatever another writer stored under `_type`, it is no type attribute in this table.
        if let Some((_, Some(ty), _)) = plants().into_iter().find(|(s, _, _)| *s == seq) {
            item.insert("_type".into(), ty);
        }
        put_raw(&table, item).await;
    }
    let rows = table.query(Row::query("a1")).consistent_read().all().await.unwrap();
    assert_eq!(rows.iter().map(|r| r.seq).collect::<Vec<_>>(), (1..=13).collect::<Vec<_>>());
    let dynamo_entity::Page { items: rows, skipped, .. } =
        table.scan::<Row>().consistent_read().lenient().all().await.unwrap();
    assert_eq!((rows.len(), skipped.len()), (13, 0));
    let items = table.scan_table::<AnyItem>().consistent_read().all().await.unwrap();
    assert_eq!(items.len(), 14);
    let items = table.collection(Row::query("a1")).consistent_read().send().await.unwrap();
    assert_eq!(items.strict().decode_each::<AnyItem>().unwrap().len(), 14);
}

#[tokio::test]
async fn a_gsi_query_of_items_with_none_fields_sends_one_query_per_page() {
    use typed::*;
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    // `Table::new` without a layout, as in the README's first example.
    let table = Table::new(server.client(), unique_table_name("ownership_gsi_none"));
    table.create_table_from(&Ledger::layout().unwrap()).await.unwrap();
    for seq in 1..=VALID {
        table.put(&row(seq)).await.unwrap();
    }
    // Every request through a recording (fault-free) layer.
    let recorder = dynamo_entity_local::fault::FaultInjector::new(1);
    let recorded = Table::new(recorder.client(table.client()), table.name());
    let rows = recorded.query(Row::gsi1("deposit")).all().await.unwrap();
    assert_eq!(rows, (1..=VALID).map(row).collect::<Vec<_>>());
    // One Query for the one page, no BatchGetItem of the rows whose memo is None.
    let ops: Vec<String> = recorder.requests().into_iter().map(|r| r.operation).collect();
    assert_eq!(ops, ["Query"]);
}

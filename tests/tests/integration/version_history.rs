//! The version-history pattern without `hierarchy(...)`: `V#<version>` (a `u64`, 20 digits)
//! beside `V#LATEST` in one item collection. The versions' default query is narrowed to
//! `BETWEEN "V#000…0" AND "V#999…9$"`, so it never reads the latest copy; both read back
//! exactly, against DynamoDB Local.

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, TableDef, Timestamp};

use crate::common;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "V#<version>")]
struct DocVersion {
    id: String,
    version: u64,
    body: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "V#LATEST")]
struct DocLatest {
    id: String,
    version: u64,
    body: String,
}

/// `T#<at>` (a timestamp) beside `T#NEVER`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "T#<at>")]
struct Touch {
    id: String,
    at: Timestamp,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "T#NEVER")]
struct NeverTouched {
    id: String,
}

/// No `hierarchy(...)`: the compile-time checks prove that neither narrowed query reads the
/// constant sort key beside it.
#[derive(TableDef)]
#[table(entities(DocVersion, DocLatest, Touch, NeverTouched))]
struct Docs;

#[tokio::test]
async fn versions_and_the_latest_copy_read_back_apart_without_an_opt_in() {
    let table = common::table("version_history", &[DocVersion::schema(), DocLatest::schema()]).await;
    assert!(Docs::layout().is_ok());
    let versions: Vec<DocVersion> = [1u64, 2, 10, u64::MAX]
        .iter()
        .map(|&v| DocVersion { id: "d1".into(), version: v, body: format!("body {v}") })
        .collect();
    for v in &versions {
        table.put(v).await.unwrap();
    }
    let latest = DocLatest { id: "d1".into(), version: u64::MAX, body: format!("body {}", u64::MAX) };
    table.put(&latest).await.unwrap();
    let never = NeverTouched { id: "d1".into() };
    table.put(&never).await.unwrap();
    let at = Timestamp::from_millis(1_700_000_000_123).unwrap();
    let touch = Touch { id: "d1".into(), at };
    table.put(&touch).await.unwrap();

    // The versions, in numeric order, and nothing else of the partition.
    let page = table.query(DocVersion::query("d1")).send().await.unwrap();
    assert_eq!(page.items, versions);
    assert!(page.skipped.is_empty());
    assert_eq!(
        table.query(DocVersion::query("d1")).descending().max_items(1).all().await.unwrap(),
        [versions[3].clone()]
    );
    assert_eq!(table.query(Touch::query("d1")).all().await.unwrap(), [touch]);
    // The latest copy, by its key.
    assert_eq!(table.get(DocLatest::key("d1")).await.unwrap(), Some(latest));
    assert_eq!(table.get(NeverTouched::key("d1")).await.unwrap(), Some(never));
    assert_eq!(table.query(DocLatest::query("d1")).all().await.unwrap().len(), 1);

    // The key condition: BETWEEN on the fixed form, with `$` (after `#`) closing the range.
    let request = table.query(DocVersion::query("d1")).render().unwrap();
    assert_eq!(request.key_condition_expression(), Some("#pk = :pk AND #sk BETWEEN :lo AND :hi"));
    let values = request.expression_attribute_values().unwrap();
    assert_eq!(values[":lo"], AttributeValue::S("V#00000000000000000000".into()));
    assert_eq!(values[":hi"], AttributeValue::S("V#99999999999999999999$".into()));
    let request = table.query(Touch::query("d1")).render().unwrap();
    let values = request.expression_attribute_values().unwrap();
    assert_eq!(values[":lo"], AttributeValue::S("T#0000-00-00T00:00:00.000Z".into()));
    assert_eq!(values[":hi"], AttributeValue::S("T#9999-99-99T99:99:99.999Z$".into()));

    // What `begins_with(SK, "V#")` reads instead: the latest copy too.
    let raw = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :p AND begins_with(SK, :s)")
        .expression_attribute_values(":p", AttributeValue::S("DOC#d1".into()))
        .expression_attribute_values(":s", AttributeValue::S("V#".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(raw.count, 5);
}

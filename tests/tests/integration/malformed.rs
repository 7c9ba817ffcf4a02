//! Items that this library did not write, or that were changed behind its back, read through
//! `get`, `query` and `collection`: each read fails with the documented typed error naming the
//! entity, the attribute and the item's key, and never panics or returns a wrong value.
//!
//! Every case is written raw (with the SDK alone) to DynamoDB Local, in a partition of its own,
//! and read back three ways.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::value::ValueError;
use dynamo_entity::{Entity, Error, Item, KeyPart, Table, Timestamp};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
enum Tier {
    Basic,
    Gold,
}

/// One field of every common kind.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCT#<id>", sk = "REC#<seq>", gsi1 = "OWNER#<owner>", gsi1_sk = "<seq>")]
struct Record {
    id: String,
    seq: u32,
    owner: String,
    small: u8,
    count: i64,
    ratio: f64,
    flag: bool,
    data: Vec<u8>,
    tags: BTreeSet<String>,
    scores: BTreeSet<u32>,
    at: Timestamp,
    tier: Tier,
    note: Option<String>,
}

fn record(id: &str) -> Record {
    Record {
        id: id.into(),
        seq: 7,
        owner: format!("o-{id}"),
        small: 200,
        count: -42,
        ratio: 0.25,
        flag: true,
        data: vec![0, 1, 2],
        tags: ["a".to_owned(), "b".to_owned()].into(),
        scores: [1, 2].into(),
        at: Timestamp::parse("2025-03-04T05:06:07.089Z").unwrap(),
        tier: Tier::Gold,
        note: Some("n".into()),
    }
}

fn n(text: &str) -> AttributeValue {
    AttributeValue::N(text.into())
}

fn s(text: &str) -> AttributeValue {
    AttributeValue::S(text.into())
}

/// The error as one line naming its variant and every field, for exact comparison.
fn shape(e: &Error) -> String {
    match e {
        Error::Decode { entity, attribute, key, source } => format!("Decode {entity}.{attribute} at {key}: {source:?}"),
        Error::WrongEntity { expected, found, key } => format!("WrongEntity {expected} at {key}: found {found:?}"),
        other => format!("unexpected error: {other:?}"),
    }
}

fn decode(entity: &str, attribute: &str, key: &str, source: ValueError) -> String {
    format!("Decode {entity}.{attribute} at {key}: {source:?}")
}

fn wrong_type(expected: &'static str, found: &'static str) -> ValueError {
    ValueError::WrongType { expected, found }
}

fn number(text: &str, ty: &'static str) -> ValueError {
    ValueError::Number { text: text.into(), ty }
}

fn not_integer(text: &str, ty: &'static str) -> ValueError {
    ValueError::NotInteger { text: text.into(), ty }
}

async fn put_raw(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// Writes the item of `id` changed by `change`, then reads it by `get`, by `query` on its
/// partition and by `collection`, and checks that each read gives `expected`.
async fn check(table: &Table, id: &str, change: impl FnOnce(&mut Item), expected: &str) {
    let mut item = record(id).to_item().unwrap();
    change(&mut item);
    put_raw(table, item).await;
    let got = table.get_consistent(Record::key(id, &7)).await;
    assert_eq!(got.as_ref().map_err(shape).err().as_deref(), Some(expected), "get of case {id}: {got:?}");
    let got = table.query(Record::query(id)).consistent_read().send().await;
    assert_eq!(got.as_ref().map_err(shape).err().as_deref(), Some(expected), "query of case {id}");
    let got = table.collection(Record::query(id)).consistent_read().send().await.unwrap().all::<Record>();
    assert_eq!(got.as_ref().map_err(shape).err().as_deref(), Some(expected), "collection of case {id}");
}

fn key(id: &str) -> String {
    format!("PK=ACCT#{id} SK=REC#0000000007")
}

#[tokio::test]
async fn the_unchanged_item_reads_back() {
    let table = common::table("malformed_ok", &[Record::schema()]).await;
    put_raw(&table, record("ok").to_item().unwrap()).await;
    assert_eq!(table.get_consistent(Record::key("ok", &7)).await.unwrap(), Some(record("ok")));
    assert_eq!(table.query(Record::query("ok")).consistent_read().send().await.unwrap().items, vec![record("ok")]);
}

#[tokio::test]
async fn wrong_attribute_types() {
    let table = common::table("malformed_types", &[Record::schema()]).await;
    let cases: Vec<(&str, &str, AttributeValue, ValueError)> = vec![
        ("t1", "count", s("12"), wrong_type("N", "S")),
        ("t2", "owner", n("12"), wrong_type("S", "N")),
        ("t3", "flag", s("true"), wrong_type("BOOL", "S")),
        ("t4", "data", s("AAEC"), wrong_type("B", "S")),
        ("t5", "ratio", AttributeValue::Bool(false), wrong_type("N", "BOOL")),
        ("t6", "at", n("1741064767089"), wrong_type("S", "N")),
        ("t7", "tier", AttributeValue::L(vec![s("gold")]), wrong_type("S", "L")),
        ("t8", "note", n("1"), wrong_type("S", "N")),
        ("t9", "small", AttributeValue::Null(true), wrong_type("N", "NULL")),
        ("t10", "owner", AttributeValue::M(Default::default()), wrong_type("S", "M")),
    ];
    for (id, attribute, value, source) in cases {
        let attr = attribute.to_owned();
        check(&table, id, move |i| _ = i.insert(attr, value), &decode("Record", attribute, &key(id), source)).await;
    }
}

#[tokio::test]
async fn wrong_set_element_types() {
    let table = common::table("malformed_sets", &[Record::schema()]).await;
    let cases: Vec<(&str, &str, AttributeValue, ValueError)> = vec![
        ("s1", "tags", AttributeValue::Ns(vec!["1".into()]), wrong_type("SS", "NS")),
        ("s2", "scores", AttributeValue::Ss(vec!["1".into()]), wrong_type("NS", "SS")),
        ("s3", "tags", AttributeValue::Bs(vec![Blob::new(vec![1])]), wrong_type("SS", "BS")),
        // A list reads as a set (as JavaScript and Python write arrays), if its elements are
        // of the set's element type.
        (
            "s4",
            "tags",
            AttributeValue::L(vec![s("a"), n("1")]),
            ValueError::Invalid("a list read as SS holds an element of type N, expected S".into()),
        ),
        ("s5", "scores", AttributeValue::Ns(vec!["1".into(), "4294967296".into()]), number("4294967296", "u32")),
        ("s6", "scores", AttributeValue::Ns(vec!["-3".into()]), number("-3", "u32")),
        ("s7", "scores", AttributeValue::Ns(vec!["2.5".into()]), not_integer("2.5", "u32")),
    ];
    for (id, attribute, value, source) in cases {
        let attr = attribute.to_owned();
        check(&table, id, move |i| _ = i.insert(attr, value), &decode("Record", attribute, &key(id), source)).await;
    }
}

#[tokio::test]
async fn numbers_that_do_not_fit_the_field() {
    let table = common::table("malformed_numbers", &[Record::schema()]).await;
    let cases: Vec<(&str, &str, &str, ValueError)> = vec![
        ("n1", "small", "256", number("256", "u8")),
        ("n2", "small", "-1", number("-1", "u8")),
        ("n3", "count", "9223372036854775808", number("9223372036854775808", "i64")),
        ("n4", "count", "-9223372036854775809", number("-9223372036854775809", "i64")),
        ("n5", "count", "1.5", not_integer("1.5", "i64")),
        ("n6", "count", "1E+30", number("1000000000000000000000000000000", "i64")),
        ("n7", "seq", "4294967296", number("4294967296", "u32")),
    ];
    for (id, attribute, text, source) in cases {
        let attr = attribute.to_owned();
        let value = n(text);
        check(&table, id, move |i| _ = i.insert(attr, value), &decode("Record", attribute, &key(id), source)).await;
    }
}

#[tokio::test]
async fn numbers_dynamodb_normalizes_read_exactly() {
    // DynamoDB stores numbers in canonical form: what it returns for these is what the field gets.
    let table = common::table("malformed_normalized", &[Record::schema()]).await;
    let mut item = record("z").to_item().unwrap();
    item.insert("count".into(), n("1.00E+3"));
    item.insert("small".into(), n("007"));
    item.insert("ratio".into(), n("-0.0"));
    put_raw(&table, item).await;
    let got = table.get_consistent(Record::key("z", &7)).await.unwrap().unwrap();
    assert_eq!((got.count, got.small, got.ratio), (1000, 7, 0.0));
}

#[tokio::test]
async fn missing_attributes() {
    let table = common::table("malformed_missing", &[Record::schema()]).await;
    for (id, attribute) in [("m2", "count"), ("m3", "at"), ("m4", "tier"), ("m5", "flag")] {
        let attr = attribute.to_owned();
        check(&table, id, move |i| _ = i.remove(&attr), &decode("Record", attribute, &key(id), ValueError::Missing))
            .await;
    }
    // A key field without its attribute is read from the key that holds it (`key_fields`); without
    // that key too, the error names the attribute and the keys that would hold it.
    for (id, attribute) in [("m1", "owner"), ("m6", "id")] {
        let mut item = record(id).to_item().unwrap();
        item.remove(attribute);
        put_raw(&table, item).await;
        assert_eq!(table.get_consistent(Record::key(id, &7)).await.unwrap(), Some(record(id)), "{attribute}");
    }
    let reason = "the attribute is missing, and no key that holds `owner` is on the item (GSI1PK (`OWNER#<owner>`))";
    check(
        &table,
        "m8",
        |i| {
            i.remove("owner");
            i.remove("GSI1PK");
        },
        &decode("Record", "owner", &key("m8"), ValueError::Invalid(reason.to_owned())),
    )
    .await;
    // Absent optional fields and sets read as None and empty.
    let mut item = record("m7").to_item().unwrap();
    for a in ["note", "tags", "scores"] {
        item.remove(a);
    }
    put_raw(&table, item).await;
    let got = table.get_consistent(Record::key("m7", &7)).await.unwrap().unwrap();
    assert_eq!(got, Record { note: None, tags: BTreeSet::new(), scores: BTreeSet::new(), ..record("m7") });
}

#[tokio::test]
async fn invalid_content() {
    let table = common::table("malformed_content", &[Record::schema()]).await;
    let cases: Vec<(&str, &str, AttributeValue, &str)> = vec![
        (
            "c1",
            "at",
            s("2025-13-01T00:00:00.000Z"),
            "`2025-13-01T00:00:00.000Z` is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SS, 0 to 9 fractional digits, then Z or +HH:MM)",
        ),
        (
            "c2",
            "at",
            s("yesterday"),
            "`yesterday` is not an RFC 3339 timestamp (YYYY-MM-DDTHH:MM:SS, 0 to 9 fractional digits, then Z or +HH:MM)",
        ),
        ("c3", "tier", s("platinum"), "unknown Tier variant `platinum`"),
        ("c4", "tier", s("Gold"), "unknown Tier variant `Gold`"),
    ];
    for (id, attribute, value, reason) in cases {
        let expected = decode("Record", attribute, &key(id), ValueError::Invalid(reason.to_owned()));
        check(&table, id, move |i| _ = i.insert(attribute.to_owned(), value), &expected).await;
    }
}

#[tokio::test]
async fn unknown_or_missing_entity_type() {
    // `get` names the item's type. The table holds no entity of these type values (nor of
    // none), and the items have `Record`'s key: `query` and a collection's `Items::all` report
    // them as a get does, rather than pass over them as another entity's.
    let table = common::table("malformed_type_attr", &[Record::schema()]).await;
    let cases: Vec<(&str, Option<AttributeValue>, Option<&str>)> = vec![
        ("e1", Some(s("Invoice")), Some("Invoice")),
        ("e2", None, None),
        ("e3", Some(AttributeValue::Bool(true)), Some("a value of type BOOL")),
        ("e4", Some(s("record")), Some("record")),
        ("e5", Some(s("")), Some("")),
    ];
    for (id, value, found) in cases {
        let mut item = record(id).to_item().unwrap();
        match value {
            Some(v) => _ = item.insert("_type".into(), v),
            None => _ = item.remove("_type"),
        }
        put_raw(&table, item).await;
        let err = table.get_consistent(Record::key(id, &7)).await.unwrap_err();
        assert_eq!(
            shape(&err),
            format!("WrongEntity Record at {}: found {:?}", key(id), found.map(str::to_owned)),
            "get of case {id}"
        );
        let wrong = format!("WrongEntity Record at {}: found {:?}", key(id), found.map(str::to_owned));
        let err = table.query(Record::query(id)).consistent_read().send().await.unwrap_err();
        assert_eq!(shape(&err), wrong, "query of case {id}");
        let page = table.query(Record::query(id)).consistent_read().lenient().send().await.unwrap();
        assert_eq!((page.items.len(), page.skipped.len()), (0, 1), "lenient query of case {id}");
        let c = table.collection(Record::query(id)).consistent_read().send().await.unwrap();
        assert_eq!(c.items().len(), 1);
        assert_eq!(shape(&c.all::<Record>().unwrap_err()), wrong, "collection of case {id}");
    }
}

#[tokio::test]
async fn keys_that_do_not_match_the_fields() {
    // The item's key says one thing and its fields another: reading it must not return a value
    // whose key is another item's (writing that value back would touch the other item).
    let table = common::table("malformed_keys", &[Record::schema()]).await;
    check(
        &table,
        "k1",
        |i| _ = i.insert("id".into(), s("someone-else")),
        &decode(
            "Record",
            "PK",
            &key("k1"),
            ValueError::Invalid(
                "the key does not match the item's fields, which give PK=ACCT#someone-else SK=REC#0000000007".into(),
            ),
        ),
    )
    .await;
    check(
        &table,
        "k2",
        |i| _ = i.insert("seq".into(), n("8")),
        &decode(
            "Record",
            "SK",
            &key("k2"),
            ValueError::Invalid(
                "the key does not match the item's fields, which give PK=ACCT#k2 SK=REC#0000000008".into(),
            ),
        ),
    )
    .await;

    // Keys written without the template's encoding: an integer part without its padding, a
    // `#` left unescaped. `get` cannot reach them (it asks for the encoded key); the partition
    // queries do, and refuse them.
    let cases: Vec<(&str, &str, &str, &str, &str)> = vec![
        ("k3", "ACCT#k3", "REC#7", "SK", "PK=ACCT#k3 SK=REC#0000000007"),
        ("k4#x", "ACCT#k4#x", "REC#0000000007", "PK", "PK=ACCT#k4%23x SK=REC#0000000007"),
    ];
    for (id, pk, sk, attribute, gives) in cases {
        let mut item = record(id).to_item().unwrap();
        item.insert("PK".into(), s(pk));
        item.insert("SK".into(), s(sk));
        put_raw(&table, item).await;
        let expected = decode(
            "Record",
            attribute,
            &format!("PK={pk} SK={sk}"),
            ValueError::Invalid(format!("the key does not match the item's fields, which give {gives}")),
        );
        assert_eq!(table.get_consistent(Record::key(id, &7)).await.unwrap(), None, "case {id}");
        // Through the raw partition key, as a query of another tool's partition would read it.
        let raw = table
            .client()
            .query()
            .table_name(table.name())
            .key_condition_expression("PK = :pk")
            .expression_attribute_values(":pk", s(pk))
            .send()
            .await
            .unwrap();
        let items = raw.items.unwrap();
        assert_eq!(items.len(), 1);
        assert_eq!(shape(&Record::from_item(&items[0]).unwrap_err()), expected, "case {id}");
    }
    // The unpadded one lies in the partition the typed query reads.
    let err = table.query(Record::query("k3")).consistent_read().send().await.unwrap_err();
    assert_eq!(
        shape(&err),
        decode(
            "Record",
            "SK",
            "PK=ACCT#k3 SK=REC#7",
            ValueError::Invalid(
                "the key does not match the item's fields, which give PK=ACCT#k3 SK=REC#0000000007".into()
            )
        )
    );
}

#[test]
fn number_text_dynamodb_would_refuse_is_an_error_not_a_panic() {
    // Such text cannot be stored in DynamoDB, but may come from a stream record or an export
    // of another tool; decoding reports it.
    for text in ["abc", "", "1e400", "--1", "0x10", "1 000", "NaN", "Infinity"] {
        let mut item = record("x").to_item().unwrap();
        item.insert("count".into(), n(text));
        let err = Record::from_item(&item).unwrap_err();
        assert_eq!(shape(&err), decode("Record", "count", &key("x"), number(text, "i64")), "text {text:?}");
        let mut item = record("x").to_item().unwrap();
        item.insert("scores".into(), AttributeValue::Ns(vec![text.into()]));
        let err = Record::from_item(&item).unwrap_err();
        assert_eq!(shape(&err), decode("Record", "scores", &key("x"), number(text, "u32")), "text {text:?}");
    }
}

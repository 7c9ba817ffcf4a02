//! Numbers with more digits than a field's type keeps: a stored number is never rounded into a
//! field. Another client stores a 38-digit number (valid in DynamoDB) with the SDK alone; a
//! `rust_decimal::Decimal` or `f64` field refuses it with `Error::Decode` naming the entity,
//! the attribute and the item's key, and a `dynamo_entity::value::Decimal` field reads every
//! digit, at the edges of DynamoDB's range too.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::value::{Decimal, ValueError};
use dynamo_entity::{Entity, Error, Item, Table};

/// 38 significant digits: the most a DynamoDB number has, more than `f64` (17) or
/// `rust_decimal` (28 or 29) keep.
const DIGITS38: &str = "1234567890.1234567890123456789012345678";

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "PRICE#<id>", sk = "NARROW")]
struct Narrow {
    id: String,
    amount: rust_decimal::Decimal,
    ratio: f64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "LEDGER#<id>", sk = "EXACT")]
struct Exact {
    id: String,
    amount: Decimal,
    limit: Option<Decimal>,
    marks: BTreeSet<Decimal>,
}

fn n(text: &str) -> AttributeValue {
    AttributeValue::N(text.into())
}

fn d(text: &str) -> Decimal {
    text.parse().unwrap()
}

async fn put_raw(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// The item of a `Narrow` as the library writes it, with the two numbers another client
/// stored.
fn narrow_item(id: &str, amount: &str, ratio: &str) -> Item {
    let mut item = Narrow { id: id.into(), amount: rust_decimal::Decimal::ONE, ratio: 1.0 }.to_item().unwrap();
    item.insert("amount".into(), n(amount));
    item.insert("ratio".into(), n(ratio));
    item
}

#[tokio::test]
async fn narrow_types_refuse_digits_they_would_round() {
    let table = common::table("decimals_narrow", &[Narrow::schema()]).await;

    // What the types hold reads as itself.
    put_raw(&table, narrow_item("ok", "12345678901234567890.12345678", "0.30000000000000004")).await;
    assert_eq!(
        table.get_consistent(Narrow::key("ok")).await.unwrap(),
        Some(Narrow { id: "ok".into(), amount: "12345678901234567890.12345678".parse().unwrap(), ratio: 0.1 + 0.2 })
    );

    // 38 digits into a rust_decimal::Decimal: refused, naming entity, attribute and key.
    put_raw(&table, narrow_item("d", DIGITS38, "0.5")).await;
    let err = table.get_consistent(Narrow::key("d")).await.unwrap_err();
    let Error::Decode { entity, attribute, key, source } = &err else { panic!("{err:?}") };
    assert_eq!(
        (*entity, *attribute, key.as_str(), source),
        (
            "Narrow",
            "amount",
            "PK=PRICE#d SK=NARROW",
            &ValueError::Number { text: DIGITS38.into(), ty: "rust_decimal::Decimal" }
        )
    );
    assert_eq!(
        err.to_string(),
        format!(
            "cannot decode Narrow PK=PRICE#d SK=NARROW: attribute `amount`: number {DIGITS38} does not fit in rust_decimal::Decimal"
        )
    );

    // 38 digits into an f64: refused the same way.
    put_raw(&table, narrow_item("f", "1.5", DIGITS38)).await;
    let err = table.get_consistent(Narrow::key("f")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot decode Narrow PK=PRICE#f SK=NARROW: attribute `ratio`: number {DIGITS38} does not fit in f64")
    );
    // A query of the partition refuses it too, never rounding.
    let err = table.query(Narrow::query("f")).consistent_read().send().await.unwrap_err();
    assert!(
        matches!(&err, Error::Decode { entity: "Narrow", attribute: "ratio", key, source: ValueError::Number { text, ty: "f64" } }
            if key == "PK=PRICE#f SK=NARROW" && text == DIGITS38),
        "{err:?}"
    );

    // 18 digits that the nearest f64 does not keep (it prints 0.30000000000000004).
    put_raw(&table, narrow_item("g", "1.5", "0.300000000000000044")).await;
    let err = table.get_consistent(Narrow::key("g")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Narrow PK=PRICE#g SK=NARROW: attribute `ratio`: number 0.300000000000000044 does not fit in f64"
    );
}

/// The item of an `Exact` as the library writes it, with the amount another client stored.
fn exact_item(id: &str, amount: &str) -> Item {
    let mut item =
        Exact { id: id.into(), amount: Decimal::ONE, limit: None, marks: BTreeSet::new() }.to_item().unwrap();
    item.insert("amount".into(), n(amount));
    item
}

#[tokio::test]
async fn decimal_reads_every_digit() {
    let table = common::table("decimals_exact", &[Exact::schema()]).await;
    let cases = [
        ("digits38", DIGITS38, DIGITS38.to_owned()),
        (
            "negative",
            "-0.00012345678901234567890123456789012345678",
            "-0.00012345678901234567890123456789012345678".into(),
        ),
        ("smallest", "1E-130", format!("0.{}1", "0".repeat(129))),
        ("largest", "9.9999999999999999999999999999999999999E+125", format!("{}{}", "9".repeat(38), "0".repeat(88))),
        ("lowest", "-9.9999999999999999999999999999999999999E+125", format!("-{}{}", "9".repeat(38), "0".repeat(88))),
        ("zero", "-0", "0".into()),
        ("integral", "12345678901234567890123456789012345678", "12345678901234567890123456789012345678".into()),
        ("scientific", "4.2E1", "42".into()),
    ];
    for (id, stored, canonical) in &cases {
        put_raw(&table, exact_item(id, stored)).await;
        let got = table.get_consistent(Exact::key(id)).await.unwrap().unwrap();
        assert_eq!(got.amount.to_string(), *canonical, "{id}");
        assert_eq!(got, Exact { id: (*id).into(), amount: d(canonical), limit: None, marks: BTreeSet::new() }, "{id}");
    }
    assert_eq!(table.get_consistent(Exact::key("largest")).await.unwrap().map(|e| e.amount), Some(Decimal::MAX));
    assert_eq!(
        table.get_consistent(Exact::key("smallest")).await.unwrap().map(|e| e.amount),
        Some(Decimal::MIN_POSITIVE)
    );

    // Written through the library, every value reads back exactly; the stored number is the
    // same number.
    let written = Exact {
        id: "written".into(),
        amount: d(DIGITS38),
        limit: Some(Decimal::MIN),
        marks: [d("0.1"), d("1E-130"), d("12345678901234567890123456789012345678")].into(),
    };
    table.put(&written).await.unwrap();
    assert_eq!(table.get_consistent(Exact::key("written")).await.unwrap(), Some(written.clone()));
    let raw = common::raw_item(&table, "LEDGER#written", "EXACT").await.unwrap();
    assert_eq!(raw["amount"].as_n().map(|t| d(t)), Ok(d(DIGITS38)));
    assert_eq!(raw["limit"].as_n().map(|t| d(t)), Ok(Decimal::MIN));
    let marks: BTreeSet<Decimal> = raw["marks"].as_ns().unwrap().iter().map(|t| d(t)).collect();
    assert_eq!(marks, written.marks);

    // DynamoDB adds exactly: 0.1 + 0.2 is 0.3, and 38 digits stay 38 digits.
    table.update(Exact::key("written")).add(Exact::AMOUNT, &d("0.0000000000000000000000000001")).send().await.unwrap();
    let got = table.get_consistent(Exact::key("written")).await.unwrap().unwrap();
    assert_eq!(got.amount.to_string(), "1234567890.1234567890123456789012345679");
    table.put(&Exact { amount: d("0.1"), ..written.clone() }).await.unwrap();
    table.update(Exact::key("written")).add(Exact::AMOUNT, &d("0.2")).send().await.unwrap();
    let got = table.get_consistent(Exact::key("written")).await.unwrap().unwrap();
    assert_eq!(got.amount, d("0.3"));
}

//! Properties of marshalling and key encoding, over the full range of every supported type:
//! `from_item(to_item(v)) == v`, values DynamoDB cannot hold are typed errors, and the string
//! order of encoded keys is the order of the values they encode.

use crate::common;

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::value::ValueError;
use dynamo_entity::{Entity, Error, Timestamp};
use proptest::prelude::*;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

/// A nested type stored through serde.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Address {
    street: String,
    number: Option<u32>,
    lines: Vec<String>,
    kind: Kind,
    extra: BTreeMap<String, i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
enum Kind {
    Home,
    Work { floor: i16 },
    Other(String),
}

/// Every supported value type in one entity.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ALL#<id>", sk = "V")]
struct Everything {
    id: String,
    i8: i8,
    i16: i16,
    i32: i32,
    i64: i64,
    i128: i128,
    isize: isize,
    u8: u8,
    u16: u16,
    u32: u32,
    u64: u64,
    u128: u128,
    usize: usize,
    f32: f32,
    f64: f64,
    text: String,
    bytes: Vec<u8>,
    flag: bool,
    at: Timestamp,
    maybe: Option<String>,
    maybe_number: Option<u64>,
    strings: BTreeSet<String>,
    numbers: HashSet<i64>,
    blobs: BTreeSet<Vec<u8>>,
    map: HashMap<String, String>,
    ordered: BTreeMap<String, u32>,
    list: Vec<String>,
    decimal: Decimal,
    #[entity(serde)]
    address: Address,
    #[entity(serde)]
    history: Vec<Address>,
}

/// An `i128` / `u128` with at most 38 significant digits, the most a DynamoDB number holds:
/// anything below 10^38 in magnitude, or a wider value with trailing zeros.
fn i128_38() -> impl Strategy<Value = i128> {
    let below = 10i128.pow(38);
    prop_oneof![
        (-below + 1..below),
        (-(10i128.pow(37) - 1)..10i128.pow(37)).prop_map(|v| v * 10),
        Just(i128::MAX / 10 * 10 / 10i128.pow(2) * 10i128.pow(2)),
        Just(i128::MIN / 10i128.pow(2) * 10i128.pow(2)),
        Just(0),
    ]
}

fn u128_38() -> impl Strategy<Value = u128> {
    prop_oneof![(0..10u128.pow(38)), (0..10u128.pow(37)).prop_map(|v| v * 10), Just(u128::MAX / 100 * 100)]
}

/// A finite `f64` inside DynamoDB's range (zero, or magnitude in [10^-130, 10^126)).
fn f64_in_range() -> impl Strategy<Value = f64> {
    any::<f64>().prop_filter("inside DynamoDB's number range", |v| {
        v.is_finite() && (*v == 0.0 || (v.abs() >= 1e-130 && v.abs() < 1e126))
    })
}

fn timestamp() -> impl Strategy<Value = Timestamp> {
    (Timestamp::MIN.as_millis()..=Timestamp::MAX.as_millis()).prop_map(|ms| Timestamp::from_millis(ms).unwrap())
}

fn decimal() -> impl Strategy<Value = Decimal> {
    (any::<i128>(), 0u32..=28).prop_map(|(m, scale)| {
        let m = m % (1i128 << 96); // rust_decimal's mantissa is 96 bits
        Decimal::from_i128_with_scale(m, scale)
    })
}

/// A map key: any non-empty text (DynamoDB refuses empty attribute names, map keys included).
fn map_key() -> impl Strategy<Value = String> {
    "(?s).{1,8}"
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        Just(Kind::Home),
        any::<i16>().prop_map(|floor| Kind::Work { floor }),
        any::<String>().prop_map(Kind::Other)
    ]
}

fn address() -> impl Strategy<Value = Address> {
    (
        any::<String>(),
        any::<Option<u32>>(),
        prop::collection::vec(any::<String>(), 0..3),
        kind(),
        prop::collection::btree_map(map_key(), any::<i64>(), 0..3),
    )
        .prop_map(|(street, number, lines, kind, extra)| Address { street, number, lines, kind, extra })
}

prop_compose! {
    fn everything()(
        ints in (any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>(), i128_38(), any::<isize>()),
        uints in (any::<u8>(), any::<u16>(), any::<u32>(), any::<u64>(), u128_38(), any::<usize>()),
        floats in (any::<f32>().prop_filter("finite", |v| v.is_finite()), f64_in_range()),
        text in any::<String>(),
        bytes in prop::collection::vec(any::<u8>(), 0..64),
        flag in any::<bool>(),
        at in timestamp(),
        maybe in any::<Option<String>>(),
        maybe_number in any::<Option<u64>>(),
        strings in prop::collection::btree_set(any::<String>(), 0..4),
        numbers in prop::collection::hash_set(any::<i64>(), 0..4),
        blobs in prop::collection::btree_set(prop::collection::vec(any::<u8>(), 1..8), 0..3),
        maps in (prop::collection::hash_map(map_key(), any::<String>(), 0..4), prop::collection::btree_map(map_key(), any::<u32>(), 0..4)),
        list in prop::collection::vec(any::<String>(), 0..4),
        decimal in decimal(),
        address in address(),
        history in prop::collection::vec(address(), 0..2),
    ) -> Everything {
        Everything {
            id: "p".into(),
            i8: ints.0, i16: ints.1, i32: ints.2, i64: ints.3, i128: ints.4, isize: ints.5,
            u8: uints.0, u16: uints.1, u32: uints.2, u64: uints.3, u128: uints.4, usize: uints.5,
            f32: floats.0, f64: floats.1,
            text, bytes, flag, at, maybe, maybe_number, strings, numbers, blobs,
            map: maps.0, ordered: maps.1, list, decimal, address, history,
        }
    }
}

/// Floats compare by bits so that `-0.0` must come back as `-0.0`... unless DynamoDB itself
/// folds it: in memory, the identity is exact.
fn same(a: &Everything, b: &Everything) -> bool {
    a.f32.to_bits() == b.f32.to_bits()
        && a.f64.to_bits() == b.f64.to_bits()
        && a.decimal.scale() == b.decimal.scale()
        && a == b
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn every_value_round_trips_through_an_item(v in everything()) {
        let item = v.to_item().unwrap();
        let back = Everything::from_item(&item).unwrap();
        prop_assert!(same(&v, &back), "{:?}\n!=\n{:?}", v, back);
    }

    #[test]
    fn integers_over_38_digits_are_refused(v in any::<i128>()) {
        let digits = v.unsigned_abs().to_string().trim_end_matches('0').len();
        let e = Everything { i128: v, ..base() };
        match e.to_item() {
            Ok(item) => {
                prop_assert!(digits <= 38);
                prop_assert_eq!(item.get("i128"), Some(&AttributeValue::N(v.to_string())));
            }
            Err(Error::Encode { entity: "Everything", field: "i128", attribute: "i128", source: ValueError::NotRepresentable { value, .. } }) => {
                prop_assert!(digits > 38);
                prop_assert_eq!(value, v.to_string());
            }
            Err(other) => prop_assert!(false, "unexpected {:?}", other),
        }
    }

    #[test]
    fn floats_outside_dynamodb_range_are_refused(v in any::<f64>()) {
        let inside = v.is_finite() && (v == 0.0 || (v.abs() >= 1e-130 && v.abs() < 1e126));
        let e = Everything { f64: v, ..base() };
        match e.to_item() {
            Ok(item) => {
                prop_assert!(inside, "{} was accepted", v);
                let text = item["f64"].as_n().unwrap().clone();
                prop_assert_eq!(text.parse::<f64>().unwrap().to_bits(), v.to_bits());
            }
            Err(Error::Encode { field: "f64", source: ValueError::NotRepresentable { .. }, .. }) => prop_assert!(!inside, "{} was refused", v),
            Err(other) => prop_assert!(false, "unexpected {:?}", other),
        }
    }
}

fn base() -> Everything {
    Everything {
        id: "b".into(),
        i8: 0,
        i16: 0,
        i32: 0,
        i64: 0,
        i128: 0,
        isize: 0,
        u8: 0,
        u16: 0,
        u32: 0,
        u64: 0,
        u128: 0,
        usize: 0,
        f32: 0.0,
        f64: 0.0,
        text: String::new(),
        bytes: vec![],
        flag: false,
        at: Timestamp::EPOCH,
        maybe: None,
        maybe_number: None,
        strings: BTreeSet::new(),
        numbers: HashSet::new(),
        blobs: BTreeSet::new(),
        map: HashMap::new(),
        ordered: BTreeMap::new(),
        list: vec![],
        decimal: Decimal::ZERO,
        address: Address {
            street: String::new(),
            number: None,
            lines: vec![],
            kind: Kind::Home,
            extra: BTreeMap::new(),
        },
        history: vec![],
    }
}

#[test]
fn maps_with_an_empty_key_are_refused_before_sending() {
    // DynamoDB refuses the whole request ("Empty attribute name"); the error names the field.
    let v = Everything { map: [(String::new(), "x".to_owned())].into(), ..base() };
    let err = v.to_item().unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot encode Everything.map (attribute `map`): DynamoDB cannot hold a map with the key \"\": a map key is an \
         attribute name, which DynamoDB requires to be non-empty"
    );
    let nested = Address { extra: [(String::new(), 1)].into(), ..base().address };
    let v = Everything { history: vec![base().address, nested], ..base() };
    match v.to_item().unwrap_err() {
        Error::Encode { field: "history", source: ValueError::NotRepresentable { .. }, .. } => {}
        other => panic!("expected Error::Encode on history, got {other:?}"),
    }
}

#[test]
fn the_extremes_of_every_type_round_trip() {
    let below = 10i128.pow(38) - 1;
    let v = Everything {
        i8: i8::MIN,
        i16: i16::MIN,
        i32: i32::MIN,
        i64: i64::MIN,
        i128: -below,
        isize: isize::MIN,
        u8: u8::MAX,
        u16: u16::MAX,
        u32: u32::MAX,
        u64: u64::MAX,
        u128: below as u128,
        usize: usize::MAX,
        f32: f32::MAX,
        f64: 9.999_999_999_999_99e125,
        text: "\u{0}#%23\u{10FFFF}".into(),
        bytes: vec![0, 255],
        flag: true,
        at: Timestamp::MAX,
        maybe: Some(String::new()),
        maybe_number: Some(u64::MAX),
        decimal: Decimal::MAX,
        ..base()
    };
    let back = Everything::from_item(&v.to_item().unwrap()).unwrap();
    assert!(same(&v, &back), "{v:?} != {back:?}");
    let w = Everything {
        i128: below,
        u128: 0,
        f32: f32::MIN_POSITIVE,
        f64: -1e-130,
        at: Timestamp::MIN,
        decimal: Decimal::MIN,
        ..base()
    };
    let back = Everything::from_item(&w.to_item().unwrap()).unwrap();
    assert!(same(&w, &back), "{w:?} != {back:?}");
}

// ---------------------------------------------------------------------------------------------
// Through DynamoDB: what it stores and returns is what was written (numbers included, which it
// normalizes).

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn every_value_round_trips_through_dynamodb(v in everything()) {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let back = rt.block_on(async {
            let table = shared_table().await;
            table.put(&v).await.unwrap();
            table.get_consistent(Everything::key("p")).await.unwrap().unwrap()
        });
        // DynamoDB keeps a number's value, not its spelling: `1.50` comes back as `1.5`, and
        // `-0` as `0`.
        prop_assert_eq!(back.decimal, v.decimal);
        let v = Everything { decimal: back.decimal, f32: if v.f32 == 0.0 { back.f32 } else { v.f32 }, f64: if v.f64 == 0.0 { back.f64 } else { v.f64 }, ..v };
        prop_assert!(same(&v, &back), "{:?}\n!=\n{:?}", v, back);
    }
}

async fn shared_table() -> dynamo_entity::Table {
    static NAME: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.unwrap();
    let name = NAME.get_or_init(|| dynamo_entity_local::unique_table_name("properties"));
    let table = dynamo_entity::Table::new(server.client(), name.clone());
    let _ = table.create_table(&[Everything::schema()]).await; // already there after the first case
    table
}

// ---------------------------------------------------------------------------------------------
// Key order: string order of encoded sort keys equals the order of the values.

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "K", sk = "S#<a>#<b>#<c>#<d>#<e>#<f>")]
struct Signed {
    a: i8,
    b: i16,
    c: i32,
    d: i64,
    e: i128,
    f: isize,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "K", sk = "U#<a>#<b>#<c>#<d>#<e>#<f>")]
struct Unsigned {
    a: u8,
    b: u16,
    c: u32,
    d: u64,
    e: u128,
    f: usize,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "K", sk = "T#<at>#<n>#<name>")]
struct Composite {
    at: Timestamp,
    n: i64,
    name: String,
}

fn sk<E: Entity>(e: &E) -> String {
    e.primary_key().unwrap().sk.as_s().unwrap().clone()
}

fn signed() -> impl Strategy<Value = Signed> {
    (any::<i8>(), any::<i16>(), any::<i32>(), any::<i64>(), any::<i128>(), any::<isize>())
        .prop_map(|(a, b, c, d, e, f)| Signed { a, b, c, d, e, f })
}

fn unsigned() -> impl Strategy<Value = Unsigned> {
    (any::<u8>(), any::<u16>(), any::<u32>(), any::<u64>(), any::<u128>(), any::<usize>())
        .prop_map(|(a, b, c, d, e, f)| Unsigned { a, b, c, d, e, f })
}

/// Names without the characters that sort below the delimiter `#` (control characters, space,
/// `!`, `"`): for those, tuple order of free-length strings is not kept (see `key` docs).
fn name() -> impl Strategy<Value = String> {
    "[$-~\u{80}-\u{10FFFF}]{1,8}"
}

fn composite() -> impl Strategy<Value = Composite> {
    (timestamp(), any::<i64>(), name()).prop_map(|(at, n, name)| Composite { at, n, name })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2048, ..ProptestConfig::default() })]

    #[test]
    fn signed_key_order_is_tuple_order(x in signed(), y in signed()) {
        let (tx, ty) = ((x.a, x.b, x.c, x.d, x.e, x.f), (y.a, y.b, y.c, y.d, y.e, y.f));
        prop_assert_eq!(sk(&x).cmp(&sk(&y)), tx.cmp(&ty), "{} vs {}", sk(&x), sk(&y));
    }

    #[test]
    fn unsigned_key_order_is_tuple_order(x in unsigned(), y in unsigned()) {
        let (tx, ty) = ((x.a, x.b, x.c, x.d, x.e, x.f), (y.a, y.b, y.c, y.d, y.e, y.f));
        prop_assert_eq!(sk(&x).cmp(&sk(&y)), tx.cmp(&ty), "{} vs {}", sk(&x), sk(&y));
    }

    #[test]
    fn composite_key_order_is_tuple_order(x in composite(), y in composite()) {
        let (tx, ty) = ((x.at, x.n, x.name.as_str()), (y.at, y.n, y.name.as_str()));
        prop_assert_eq!(sk(&x).cmp(&sk(&y)), tx.cmp(&ty), "{} vs {}", sk(&x), sk(&y));
    }

    #[test]
    fn timestamp_order_is_time_order(a in timestamp(), b in timestamp()) {
        let x = Composite { at: a, n: 0, name: "n".into() };
        let y = Composite { at: b, n: 0, name: "n".into() };
        prop_assert_eq!(sk(&x).cmp(&sk(&y)), a.cmp(&b));
        prop_assert_eq!(sk(&x).len(), sk(&y).len());
    }

    #[test]
    fn keys_decode_back_to_their_values(x in signed(), e in i128_38(), u in unsigned(), f in u128_38(), c in composite()) {
        // The key fields are stored as attributes too, where 128-bit values need at most 38
        // significant digits.
        let (x, u) = (Signed { e, ..x }, Unsigned { e: f, ..u });
        prop_assert_eq!(Signed::from_item(&x.to_item().unwrap()).unwrap(), x);
        prop_assert_eq!(Unsigned::from_item(&u.to_item().unwrap()).unwrap(), u);
        prop_assert_eq!(Composite::from_item(&c.to_item().unwrap()).unwrap(), c);
    }
}

#[test]
fn extreme_keys_sort_in_order() {
    let mins = Signed { a: i8::MIN, b: i16::MIN, c: i32::MIN, d: i64::MIN, e: i128::MIN, f: isize::MIN };
    let minus_one = Signed { a: -1, b: -1, c: -1, d: -1, e: -1, f: -1 };
    let zero = Signed { a: 0, b: 0, c: 0, d: 0, e: 0, f: 0 };
    let maxs = Signed { a: i8::MAX, b: i16::MAX, c: i32::MAX, d: i64::MAX, e: i128::MAX, f: isize::MAX };
    let keys: Vec<String> = [&mins, &minus_one, &zero, &maxs].map(sk).to_vec();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(keys, sorted);
    assert_eq!(
        sk(&zero),
        "S#000#00000#0000000000#0000000000000000000#000000000000000000000000000000000000000#0000000000000000000"
    );
}

/// DynamoDB stores a number's value, not its spelling: a decimal's trailing zeros do not
/// survive a write and a read (`1.50` is read back as `1.5`), though its value does.
#[tokio::test]
async fn dynamodb_keeps_a_decimal_s_value_not_its_scale() {
    let table = common::table("properties_decimal", &[Everything::schema()]).await;
    let written: Decimal = "1.50".parse().unwrap();
    table.put(&Everything { id: "d".into(), decimal: written, ..base() }).await.unwrap();
    let raw = common::raw_item(&table, "ALL#d", "V").await.unwrap();
    assert_eq!(raw["decimal"], AttributeValue::N("1.5".into()));
    let read = table.get_consistent(Everything::key("d")).await.unwrap().unwrap().decimal;
    assert_eq!((read, read.scale(), written.scale()), (written, 1, 2));
}

//! Shared pieces of the fuzz targets: DynamoDB attribute values built from fuzz input with
//! `arbitrary`, valid Skill Exchange items to mutate, and the decoders every target runs.
//!
//! The oracle is the same everywhere: decoding returns `Ok` or a typed `dynamo_entity::Error`
//! and never panics, and a value that decodes and encodes again decodes to the same value.

use std::sync::LazyLock;

use arbitrary::Arbitrary;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::collection::Items;
use dynamo_entity::{AttributeNames, Entity, Item, Timestamp};
use dynamo_entity_examples::skill_exchange::{
    self, AnyItem, Badge, Coupon, Dataset, Purchase, Redemption, Review, Sizes, Skill, SkillPage, User, UserId,
    UserPage,
};

/// Every attribute name the Skill Exchange entities read or write: keys, GSI keys, fields and
/// the entity type attribute.
pub static NAMES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut names = vec![dynamo_entity::schema::TYPE_ATTRIBUTE];
    for schema in skill_exchange::schemas() {
        for index in std::iter::once(&schema.primary).chain(schema.gsis) {
            names.push(AttributeNames::DEFAULT.pk_of(index.index));
            names.push(AttributeNames::DEFAULT.sk_of(index.index));
        }
        names.extend(schema.fields.iter().map(|f| f.attribute));
    }
    names.sort_unstable();
    names.dedup();
    names
});

/// The entity type names of the table, and the library's guard item type.
pub static TYPES: LazyLock<Vec<&'static str>> = LazyLock::new(|| {
    let mut types: Vec<&'static str> = skill_exchange::schemas().iter().map(|s| s.name).collect();
    types.push("_unique");
    types
});

/// One valid item of every entity (the small generated data set's first of each kind, and a
/// redemption), to mutate.
pub static SAMPLES: LazyLock<Vec<Item>> = LazyLock::new(|| {
    let data = Dataset::generate(7, Sizes { users: 4, skills: 6, reviews: 3, purchases: 4 });
    let redemption = Redemption {
        code: "LAUNCH10".into(),
        user_id: UserId("u0001".into()),
        redeemed_at: Timestamp::from_millis(1_800_000_000_000).unwrap_or(Timestamp::EPOCH),
    };
    let mut items = vec![
        data.users[0].to_item(),
        data.skills[0].to_item(),
        data.reviews[0].to_item(),
        data.purchases[0].to_item(),
        data.coupons[0].to_item(),
        redemption.to_item(),
    ];
    items.extend(data.badges.first().map(Badge::to_item));
    items.into_iter().map(|i| i.expect("the generated data set encodes")).collect()
});

/// An attribute name: one the entities use, or any text.
#[derive(Debug, Arbitrary)]
pub enum Name {
    /// `NAMES[n % NAMES.len()]`.
    Known(u8),
    /// Any other name.
    Other(String),
}

impl Name {
    /// The name as text.
    pub fn text(&self) -> String {
        match self {
            Name::Known(n) => NAMES[usize::from(*n) % NAMES.len()].to_owned(),
            Name::Other(s) => s.clone(),
        }
    }
}

/// Text for an `N` value: numbers at the edges of the integer types, decimal and exponent
/// forms, and arbitrary text (DynamoDB never returns a malformed number, but a hand-written
/// item or a stream record converted by other code might hold one).
#[derive(Debug, Arbitrary)]
pub enum Num {
    /// A 128-bit integer, beyond every field's type.
    Int(i128),
    /// An unsigned 64-bit integer.
    U64(u64),
    /// A float in Rust's shortest form (may be `NaN` or `inf`).
    Float(f64),
    /// `<mantissa>e<exponent>`.
    Exp(i64, i16),
    /// Any text.
    Text(String),
}

impl Num {
    /// The number's text.
    pub fn text(&self) -> String {
        match self {
            Num::Int(i) => i.to_string(),
            Num::U64(u) => u.to_string(),
            Num::Float(f) => f.to_string(),
            Num::Exp(m, e) => format!("{m}e{e}"),
            Num::Text(t) => t.clone(),
        }
    }
}

/// A scalar or a flat list / map of scalars.
#[derive(Debug, Arbitrary)]
pub enum Scalar {
    /// `S`.
    S(String),
    /// A timestamp-like `S`: `YYYY-MM-DDTHH:MM:SS.mmmZ` from the given millis (any `i64`).
    Time(i64),
    /// `N`.
    N(Num),
    /// `B`.
    B(Vec<u8>),
    /// `BOOL`.
    Bool(bool),
    /// `NULL`.
    Null,
}

/// Any DynamoDB attribute value, nested at most two levels.
#[derive(Debug, Arbitrary)]
pub enum Value {
    /// A scalar.
    Scalar(Scalar),
    /// `L` of scalars.
    L(Vec<Scalar>),
    /// `M` of scalars.
    M(Vec<(Name, Scalar)>),
    /// `SS`.
    Ss(Vec<String>),
    /// `NS`.
    Ns(Vec<Num>),
    /// `BS`.
    Bs(Vec<Vec<u8>>),
    /// `L` of lists.
    Nested(Vec<Vec<Scalar>>),
}

impl Scalar {
    /// The attribute value.
    pub fn attribute(&self) -> AttributeValue {
        match self {
            Scalar::S(s) => AttributeValue::S(s.clone()),
            Scalar::Time(ms) => AttributeValue::S(match Timestamp::from_millis(*ms) {
                Ok(t) => t.to_string(),
                Err(_) => ms.to_string(),
            }),
            Scalar::N(n) => AttributeValue::N(n.text()),
            Scalar::B(b) => AttributeValue::B(Blob::new(b.clone())),
            Scalar::Bool(b) => AttributeValue::Bool(*b),
            Scalar::Null => AttributeValue::Null(true),
        }
    }
}

impl Value {
    /// The attribute value.
    pub fn attribute(&self) -> AttributeValue {
        match self {
            Value::Scalar(s) => s.attribute(),
            Value::L(l) => AttributeValue::L(l.iter().map(Scalar::attribute).collect()),
            Value::M(m) => AttributeValue::M(m.iter().map(|(k, v)| (k.text(), v.attribute())).collect()),
            Value::Ss(s) => AttributeValue::Ss(s.clone()),
            Value::Ns(n) => AttributeValue::Ns(n.iter().map(Num::text).collect()),
            Value::Bs(b) => AttributeValue::Bs(b.iter().map(|b| Blob::new(b.clone())).collect()),
            Value::Nested(l) => AttributeValue::L(
                l.iter().map(|inner| AttributeValue::L(inner.iter().map(Scalar::attribute).collect())).collect(),
            ),
        }
    }
}

/// One change to an item.
#[derive(Debug, Arbitrary)]
pub enum Edit {
    /// Remove an attribute.
    Remove(Name),
    /// Set an attribute to a value.
    Set(Name, Value),
    /// Set the entity type attribute to one of the table's types.
    Type(u8),
}

/// How one item of the input is made.
#[derive(Debug, Arbitrary)]
pub enum ItemSpec {
    /// A valid sample item (`SAMPLES[n % len]`) with edits applied.
    Mutated(u8, Vec<Edit>),
    /// An item made from scratch, typed as `TYPES[t % len]`.
    Typed(u8, Vec<(Name, Value)>),
    /// An item made from scratch, type attribute included or not.
    Raw(Vec<(Name, Value)>),
}

impl ItemSpec {
    /// The item.
    pub fn item(&self) -> Item {
        let ty = |t: u8| AttributeValue::S(TYPES[usize::from(t) % TYPES.len()].to_owned());
        match self {
            ItemSpec::Mutated(n, edits) => {
                let mut item = SAMPLES[usize::from(*n) % SAMPLES.len()].clone();
                for edit in edits {
                    match edit {
                        Edit::Remove(name) => {
                            item.remove(&name.text());
                        }
                        Edit::Set(name, value) => {
                            item.insert(name.text(), value.attribute());
                        }
                        Edit::Type(t) => {
                            item.insert(dynamo_entity::schema::TYPE_ATTRIBUTE.to_owned(), ty(*t));
                        }
                    }
                }
                item
            }
            ItemSpec::Typed(t, attributes) => {
                let mut item: Item = attributes.iter().map(|(k, v)| (k.text(), v.attribute())).collect();
                item.insert(dynamo_entity::schema::TYPE_ATTRIBUTE.to_owned(), ty(*t));
                item
            }
            ItemSpec::Raw(attributes) => attributes.iter().map(|(k, v)| (k.text(), v.attribute())).collect(),
        }
    }
}

/// Decodes `item` as `E`; when it decodes and encodes again, the new item must decode to the
/// same value. Error messages are formatted (their `Display` must not panic either).
pub fn round_trip<E: Entity + PartialEq + std::fmt::Debug>(item: &Item) {
    match E::from_item(item) {
        Ok(value) => {
            if let Ok(again) = value.to_item() {
                match E::from_item(&again) {
                    Ok(back) => assert_eq!(back, value, "{} changed through encode/decode", E::TYPE),
                    Err(e) => panic!("{} encoded by this library does not decode: {e}\n{again:?}", E::TYPE),
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Runs every Skill Exchange decoder over `items`: each entity's `from_item` on each item, the
/// `AnyItem` enum, the `SkillPage` / `UserPage` collections (lenient and strict) and a
/// collection's typed views. Panics only on a broken round trip (the oracle) or a panic inside
/// the library.
pub fn decode_everything(items: &[Item]) {
    for item in items {
        round_trip::<User>(item);
        round_trip::<Badge>(item);
        round_trip::<Skill>(item);
        round_trip::<Review>(item);
        round_trip::<Purchase>(item);
        round_trip::<Coupon>(item);
        round_trip::<Redemption>(item);
        let _ = dynamo_entity::schema::describe_key(item);
    }
    let collection = Items::from(items.to_vec());
    let _ = collection.type_counts();
    if let Ok(all) = collection.decode_each::<AnyItem>() {
        // Each decoded variant re-encodes to an item of its own entity type.
        for any in all {
            let item = match &any {
                AnyItem::User(v) => v.to_item(),
                AnyItem::Badge(v) => v.to_item(),
                AnyItem::Skill(v) => v.to_item(),
                AnyItem::Review(v) => v.to_item(),
                AnyItem::Purchase(v) => v.to_item(),
                AnyItem::Coupon(v) => v.to_item(),
                AnyItem::Redemption(v) => v.to_item(),
            };
            if let Ok(item) = item {
                let back = Items::from(vec![item]).decode_each::<AnyItem>();
                assert_eq!(back.ok(), Some(vec![any]), "AnyItem changed through encode/decode");
            }
        }
    }
    let _ = collection.decode::<SkillPage>();
    let _ = collection.strict().decode::<SkillPage>();
    let _ = collection.decode::<UserPage>();
    let _ = collection.strict().decode::<UserPage>();
    let _ = collection.all::<Skill>();
    let _ = collection.one::<User>();
    let _ = collection.one::<Coupon>();
}

/// Items as DynamoDB JSON (`{"S": "..."}` and so on) into SDK items.
pub fn items_from_json(items: Vec<serde_dynamo::Item>) -> Vec<Item> {
    items.into_iter().map(Into::into).collect()
}

//! Native multi-attribute GSI keys: a GSI keyed on up to four of the item's own attributes as its
//! partition key and up to four as its sort key (DynamoDB's `KeySchema` with several `HASH` and
//! several `RANGE` elements), declared on an entity with
//! `#[entity(gsi6(pk(tenant, region), sk(status, created_at)))]`.
//!
//! Such an index has no synthetic key attribute: the item's fields are the key, so nothing is
//! concatenated, escaped or padded, and an update of a field moves the item inside the index
//! with no key to rewrite. An item that lacks any of the index's key attributes (an `Option`
//! field that is `None`) is not in the index (sparse). The table declares the index as any GSI
//! (`gsi6(projection = ...)`), and [`Table::create_table_from`](crate::Table::create_table_from)
//! sends its key schema. The query builder `E::gsi6(..)` is in
//! [`query::multi_key`](crate::query::multi_key), with an example.
//!
//! DynamoDB's rules, which the library checks:
//! * at most [`MAX_KEY_ATTRIBUTES`] partition key attributes and as many sort key attributes
//!   (checked by the derive);
//! * each key attribute is a scalar: a string (`S`), a number (`N`) or binary (`B`, a
//!   `Vec<u8>` field); the field type says which, through [`KeyAttribute`];
//! * a query names every partition key attribute with `=`, then an equality on a leading run of
//!   the sort key attributes and at most one range condition (`<`, `<=`, `>`, `>=`, `BETWEEN`,
//!   `begins_with` on a string or binary) on the next one: the generated query builder accepts exactly
//!   these shapes (see [`query::multi_key`](crate::query::multi_key));
//! * a key attribute value is never an empty string or empty binary, and a string or binary
//!   partition key attribute holds
//!   at most 2,048 bytes, a sort key attribute 1,024: a write breaking either is refused
//!   before sending ([`check_item`]);
//! * the key attributes of one side count **together**: the partition key attributes of one
//!   index at most 2,048 bytes in all, its sort key attributes at most 1,024 in all (a string
//!   counts its UTF-8 bytes, a binary value its bytes, a number its stored size). DynamoDB refuses a write that breaks
//!   this ("Aggregate size for RANGE key attributes b, c of index GSI6 has exceeded limit 1024
//!   bytes"); the library refuses it first, with [`KeyError::AggregateTooLong`] naming the
//!   entity, the index and each attribute with its size: a put, create, replace, transaction or
//!   batch write ([`check_item`]), and an update for the key attributes it sets
//!   ([`check_update`]). An update that sets only some of a side's attributes is checked on
//!   those alone: the ones it leaves add their stored size, which the library does not read.
//!   DynamoDB documents the aggregate limit for every write; DynamoDB Local 3.3.0 does not apply
//!   it to such a partial update (it stores the item with an over-long key, which a query of the
//!   library then refuses to ask for). Set every key attribute of a side together to have the
//!   library check the whole key. A query's values are checked the same way before sending (the
//!   partition key values together, the sort key equalities with the range condition's
//!   value).
//!
//! # Entities that do not declare the index
//!
//! DynamoDB indexes every item holding all of an index's key attributes, whichever entity wrote
//! it. It refuses every write of an item holding one of them with another type. So the table's
//! declaration refuses, at compile time, an entity that does not declare the index but stores
//! one of its key attribute names with another type (a `u64` `tenant`, a `bool`, a number
//! constant), or stores all of them ([`undeclared_multi_gsi`]).
//! [`TableLayout::new`](crate::schema::TableLayout::new) (and so `create_table`) runs the same
//! check.
//!
//! Storing some of them with the index's types is allowed: such items never enter the index.
//! DynamoDB still validates those attributes as key attributes on every write (a string must
//! not be empty, the sizes must fit). Only the declaring entities' writes are checked for that
//! before sending; the other entity's bad value comes back as DynamoDB's `ValidationException`.
//!
//! The type is known from the field's Rust type ([`Attribute::STORED`]). A `#[entity(serde)]`
//! field, a raw `AttributeValue` and a hand-written `Attribute` that does not set `STORED` are
//! not checked.
//!
//! # Stored values are compared as they are
//!
//! A native GSI keys the item on its attributes exactly as stored: DynamoDB compares and
//! orders them by the stored text (a string by its UTF-8 bytes) or number. Values this library
//! writes are in one canonical form per type (a [`Timestamp`] as
//! `2026-01-02T00:00:00.000Z`), and a query's values are encoded in the same form. A
//! value another client wrote in another form (a timestamp with no fraction, or with
//! `+02:00`) is read normalized, but the index matches and orders it by its stored text: an
//! `_eq` with the same instant does not find it, and ranges place it by its text. So queries on
//! such attributes only work for values in the canonical form. Rewrite the stored values in
//! canonical form (a backfill: read each item and put it back, which writes the canonical
//! form, for example with the migration runner's upgrade step,
//! [`migrate::upgrade`](crate::migrate::upgrade), or a [`migrate::backfill`](crate::migrate::backfill)),
//! and have the other writers use it.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::key::support::str_eq;
use crate::key::{KeyError, KeyType, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES};
use crate::schema::check::ConstText;
use crate::schema::{ConstantValue, EntitySchema, Index, Item};
use crate::value::size::value_size;
use crate::value::time::{Date, Timestamp};
use crate::value::{Attribute, StoredType, ValueError};

pub use crate::schema::entity::{MultiKeyAttr, MultiKeyIndex};

/// The most attributes one side (partition or sort) of a multi-attribute GSI key may name.
pub const MAX_KEY_ATTRIBUTES: usize = 4;

impl MultiKeyIndex {
    /// Whether `other` has the same key schema: the same attribute names and types on each side,
    /// in the same order (the field names may differ).
    pub const fn same_keys(&self, other: &MultiKeyIndex) -> bool {
        same_attrs(self.pk, other.pk) && same_attrs(self.sk, other.sk)
    }
}

const fn same_attrs(a: &[MultiKeyAttr], b: &[MultiKeyAttr]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if !str_eq(a[i].attribute, b[i].attribute)
            || !crate::schema::check::key_types_equal(a[i].key_type, b[i].key_type)
        {
            return false;
        }
        i += 1;
    }
    true
}

/// The kind of DynamoDB scalar a [`KeyAttribute`] is stored as: [`StringKey`], [`NumberKey`] or
/// [`BinaryKey`].
pub trait KeyKind {
    /// The attribute's type in `AttributeDefinitions`.
    const TYPE: KeyType;
}

/// A string key attribute (`S`): `begins_with` applies to it.
#[derive(Debug, Clone, Copy)]
pub enum StringKey {}

/// A number key attribute (`N`).
#[derive(Debug, Clone, Copy)]
pub enum NumberKey {}

/// A binary key attribute (`B`, a `Vec<u8>` field): compared bytewise; `begins_with` applies
/// to it with a byte prefix.
#[derive(Debug, Clone, Copy)]
pub enum BinaryKey {}

impl KeyKind for BinaryKey {
    const TYPE: KeyType = KeyType::B;
}

impl KeyKind for StringKey {
    const TYPE: KeyType = KeyType::S;
}

impl KeyKind for NumberKey {
    const TYPE: KeyType = KeyType::N;
}

/// A field type that can be a key attribute of a multi-attribute GSI: stored as one scalar (a
/// string, a number or binary), the same value its [`Attribute`] implementation writes.
/// Implemented for `String`, the integer types, [`Timestamp`], [`Date`], `Vec<u8>` (binary, `B`), the
/// `#[derive(KeyPart)]` newtypes and enums, and `Option<T>` of those (a `None` leaves the item
/// out of the index).
///
/// Not for `bool`, floats (a key needs exact, ordered values), collections, maps or
/// `#[entity(serde)]` fields.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a key attribute of a multi-attribute GSI",
    label = "not a string, number or binary key attribute",
    note = "a multi-attribute GSI key attribute is a string (`S`), a number (`N`) or binary (`B`): `String`, an integer, `Timestamp`, `Date`, `Vec<u8>`, a `#[derive(KeyPart)]` newtype or enum, or an `Option` of one of them"
)]
pub trait KeyAttribute: Attribute {
    /// Whether the attribute is a string, a number or binary.
    type Kind: KeyKind;
    /// What query functions take by reference for this attribute: `str` for `String`, the inner
    /// type's for `Option<T>`, `Self` otherwise.
    type Arg: ?Sized;

    /// The stored value of `arg`, exactly as [`Attribute::to_attribute`] writes it.
    ///
    /// # Errors
    /// [`ValueError::NotRepresentable`] for a value DynamoDB cannot hold.
    fn key_value(arg: &Self::Arg) -> Result<AttributeValue, ValueError>;
}

/// A type whose `to_attribute` is never absent, used for the blanket `Arg = Self` forms.
fn present<T: Attribute>(v: &T) -> Result<AttributeValue, ValueError> {
    v.to_attribute()?.ok_or(ValueError::Missing)
}

impl KeyAttribute for String {
    type Kind = StringKey;
    type Arg = str;
    fn key_value(arg: &str) -> Result<AttributeValue, ValueError> {
        Ok(AttributeValue::S(arg.to_owned()))
    }
}

impl KeyAttribute for Timestamp {
    type Kind = StringKey;
    type Arg = Timestamp;
    fn key_value(arg: &Timestamp) -> Result<AttributeValue, ValueError> {
        present(arg)
    }
}

/// A date, stored as `YYYY-MM-DD` text, whose byte order is the dates' order.
impl KeyAttribute for Date {
    type Kind = StringKey;
    type Arg = Date;
    fn key_value(arg: &Date) -> Result<AttributeValue, ValueError> {
        present(arg)
    }
}

macro_rules! number_key {
    ($($t:ty),*) => {$(
        impl KeyAttribute for $t {
            type Kind = NumberKey;
            type Arg = $t;
            fn key_value(arg: &$t) -> Result<AttributeValue, ValueError> {
                present(arg)
            }
        }
    )*};
}
number_key!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

impl KeyAttribute for Vec<u8> {
    type Kind = BinaryKey;
    type Arg = [u8];
    fn key_value(arg: &[u8]) -> Result<AttributeValue, ValueError> {
        Ok(AttributeValue::B(arg.to_vec().into()))
    }
}

impl<T: KeyAttribute> KeyAttribute for Option<T> {
    type Kind = T::Kind;
    type Arg = T::Arg;
    fn key_value(arg: &T::Arg) -> Result<AttributeValue, ValueError> {
        T::key_value(arg)
    }
}

/// The prefix of a `begins_with` sort condition on key attribute type `T`: implemented for
/// `&str` and `&String` when `T` is a string attribute and for `&[u8]` when it is binary, so
/// `begins_with` on a number does not compile.
#[diagnostic::on_unimplemented(
    message = "`begins_with` applies to string and binary key attributes only, and takes a `&str`, `&String` or `&[u8]` prefix",
    label = "`{T}` is not a string or binary key attribute, or the prefix is not a `&str`/`&String` (string) or `&[u8]` (binary)"
)]
pub trait BeginsWith<T: ?Sized> {
    /// The prefix as a string or binary value.
    fn prefix(&self) -> AttributeValue;
}

/// The key attribute kinds a text (`&str`, `&String`) `begins_with` prefix applies to: strings
/// only. Its message is what a `_begins_with` call on a number or binary attribute reports.
#[diagnostic::on_unimplemented(
    message = "`begins_with` with a text prefix applies to string (`S`) key attributes only; this key attribute is \
               a `{Self}` attribute",
    label = "a text prefix for a key attribute that is not a string",
    note = "DynamoDB's `begins_with` takes string and binary key attributes; a number's range is a `_between`, \
            `_ge` or `_lt` condition instead, and a binary attribute takes a `&[u8]` prefix"
)]
pub trait TextPrefix {}

impl TextPrefix for StringKey {}

/// The key attribute kinds a byte (`&[u8]`) `begins_with` prefix applies to: binary only.
#[diagnostic::on_unimplemented(
    message = "`begins_with` with a byte prefix (`&[u8]`) applies to binary (`B`, `Vec<u8>`) key attributes only; \
               this key attribute is a `{Self}` attribute",
    label = "a byte prefix for a key attribute that is not binary",
    note = "a string attribute takes a `&str` prefix; a number's range is a `_between`, `_ge` or `_lt` condition"
)]
pub trait BytePrefix {}

impl BytePrefix for BinaryKey {}

impl<T: KeyAttribute> BeginsWith<T> for &str
where
    T::Kind: TextPrefix,
{
    fn prefix(&self) -> AttributeValue {
        AttributeValue::S((*self).to_owned())
    }
}

/// A `&String` prefix, as `_eq` takes a `&String` for a `String` attribute.
impl<T: KeyAttribute> BeginsWith<T> for &String
where
    T::Kind: TextPrefix,
{
    fn prefix(&self) -> AttributeValue {
        AttributeValue::S((*self).clone())
    }
}

/// A `&[u8]` prefix for a binary (`Vec<u8>`) attribute.
impl<T: KeyAttribute> BeginsWith<T> for &[u8]
where
    T::Kind: BytePrefix,
{
    fn prefix(&self) -> AttributeValue {
        AttributeValue::B(self.to_vec().into())
    }
}

/// Implemented by nothing: the bound of the conditions a generated multi-attribute GSI query
/// builder offers after its range condition, so that calling one is a compile error that says
/// why. DynamoDB's key condition ends with its one range condition (`<`, `<=`, `>`, `>=`,
/// `BETWEEN`, `begins_with`); the equalities on the sort key attributes come before it.
#[diagnostic::on_unimplemented(
    message = "a range condition must be the last condition of a query of a multi-attribute GSI: no condition may \
               follow it",
    label = "a condition after the range condition",
    note = "DynamoDB's key condition is `=` on a leading run of the sort key attributes (`<field>_eq`), then at most \
            one range condition (`_lt`, `_le`, `_gt`, `_ge`, `_between`, `_begins_with`) on the next one: put the \
            equalities first (a filter cannot take this condition: DynamoDB refuses filters on the queried index's \
            key attributes)"
)]
pub trait RangeIsLast {}

/// The multi-attribute GSI number `n` of `s`, if it writes one (`None` too for a failed
/// derive's schema), in constant evaluation.
pub const fn find_multi_gsi(s: &EntitySchema, n: u8) -> Option<&MultiKeyIndex> {
    let mut i = 0;
    while i < s.multi_gsis.len() {
        if matches!(s.multi_gsis[i].index, Index::Gsi(m) if m == n) {
            return Some(&s.multi_gsis[i]);
        }
        i += 1;
    }
    None
}

/// Whether `s` writes GSI number `n` as a multi-attribute GSI.
pub const fn uses_multi_gsi(s: &EntitySchema, n: u8) -> bool {
    crate::schema::check::is_checked(s) && find_multi_gsi(s, n).is_some()
}

/// The position in `entities` of the first one writing multi-attribute GSI `n`, `usize::MAX`
/// when none does.
pub const fn first_multi_user(entities: &[&EntitySchema], n: u8) -> usize {
    let mut i = 0;
    while i < entities.len() {
        if uses_multi_gsi(entities[i], n) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// Whether `entities[later]` writes multi-attribute GSI `n` with another key schema (attribute
/// names or types) than `entities[first]`, the first entity writing it: one index has one key
/// schema, so entities sharing (overloading) it must agree.
pub const fn multi_keys_disagree(entities: &[&EntitySchema], first: usize, later: usize, n: u8) -> bool {
    if first_multi_user(entities, n) != first {
        return false;
    }
    match (find_multi_gsi(entities[first], n), find_multi_gsi(entities[later], n)) {
        (Some(a), Some(b)) => crate::schema::check::is_checked(entities[later]) && !a.same_keys(b),
        _ => false,
    }
}

/// Whether `a` writes GSI `n` with key templates and `b` as a multi-attribute GSI: one index
/// cannot be both.
pub const fn template_and_multi(a: &EntitySchema, b: &EntitySchema, n: u8) -> bool {
    crate::schema::check::uses_gsi(a, n) && uses_multi_gsi(b, n)
}

/// Whether stored type `stored` can stand in key attribute type `key`: `None` when it can, or
/// when the field's type does not tell ([`StoredType::Unknown`]); otherwise the stored type's
/// name.
const fn type_clash(stored: StoredType, key: KeyType) -> Option<&'static str> {
    match (stored, key) {
        (StoredType::Unknown, _)
        | (StoredType::S, KeyType::S)
        | (StoredType::N, KeyType::N)
        | (StoredType::B, KeyType::B) => None,
        (other, _) => Some(other.name()),
    }
}

/// What stores an attribute of an entity ([`stored_as`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum StoredBy {
    /// A field, in its attribute.
    Field,
    /// A constant (`#[entity(constant(...))]`), of its literal's type.
    Constant,
    /// A renamed field's writes, in its earlier attribute (`#[entity(alias = "...", write_alias)]`).
    Alias,
}

/// The type entity `s` stores attribute `attribute` as, and what stores it: `Some(Some(..))`
/// for a field, a constant or a written alias, `Some(None)` when the field is not stored,
/// `None` when nothing of the entity writes that attribute (a read-only alias names an
/// attribute only older programs write).
pub(crate) const fn stored_as(s: &EntitySchema, attribute: &str) -> Option<Option<(StoredType, StoredBy)>> {
    let mut i = 0;
    while i < s.fields.len() {
        if str_eq(s.fields[i].attribute, attribute) {
            return match s.fields[i].stored {
                Some(stored) => Some(Some((stored, StoredBy::Field))),
                None => Some(None),
            };
        }
        i += 1;
    }
    let mut i = 0;
    while i < s.fields.len() {
        let f = &s.fields[i];
        if let (Some(alias), true, Some(stored)) = (f.alias, f.write_alias, f.stored) {
            if str_eq(alias, attribute) {
                return Some(Some((stored, StoredBy::Alias)));
            }
        }
        i += 1;
    }
    let mut i = 0;
    while i < s.constants.len() {
        if str_eq(s.constants[i].attribute, attribute) {
            let stored = match s.constants[i].value {
                ConstantValue::S(_) => StoredType::S,
                ConstantValue::N(_) => StoredType::N,
                ConstantValue::Bool(_) => StoredType::Other("BOOL"),
            };
            return Some(Some((stored, StoredBy::Constant)));
        }
        i += 1;
    }
    None
}

/// Whether `s`, which stores `attribute` as `stored`, clashes with a multi-attribute GSI
/// numbered below `n` that it does not write: that index's check reports it, once.
const fn clashes_below(
    entities: &[&EntitySchema],
    s: &EntitySchema,
    attribute: &str,
    stored: StoredType,
    n: u8,
) -> bool {
    let mut m = 1;
    while m < n {
        let first = first_multi_user(entities, m);
        if first != usize::MAX && !uses_multi_gsi(s, m) && !crate::schema::check::uses_gsi(s, m) {
            if let Some(index) = find_multi_gsi(entities[first], m) {
                let mut k = 0;
                while k < index.key_count() {
                    let key = index.key(k);
                    if str_eq(key.attribute, attribute) && type_clash(stored, key.key_type).is_some() {
                        return true;
                    }
                    k += 1;
                }
            }
        }
        m += 1;
    }
    false
}

/// The message of the table check that no entity meets a multi-attribute GSI it does not write:
/// empty when `entities[later]` writes GSI `n` itself (in either form), when no entity writes it
/// as a multi-attribute GSI, or when `entities[later]` stores no attribute of its key schema
/// with another type and not all of them.
///
/// DynamoDB indexes every item that holds all of a GSI's key attributes, whatever the entity:
/// * an attribute named like one of the index's key attributes but of another type makes
///   DynamoDB refuse every write of the item ("Type mismatch for Index Key");
/// * an item holding every key attribute enters the index, where the queries of the entities
///   that declared it read it as another entity's item.
///
/// `names` are the entities' names as the table lists them, `table` the table's (empty for a
/// layout built at run time, whose messages then name no table).
pub const fn undeclared_multi_gsi(
    entities: &[&EntitySchema],
    names: &[&str],
    table: &str,
    later: usize,
    n: u8,
) -> ConstText {
    let mut text = ConstText::new();
    let s = entities[later];
    let first = first_multi_user(entities, n);
    if first == usize::MAX
        || !crate::schema::check::is_checked(s)
        || uses_multi_gsi(s, n)
        || crate::schema::check::uses_gsi(s, n)
    {
        return text;
    }
    let Some(index) = find_multi_gsi(entities[first], n) else { return text };
    let (entity, owner) = (names[later], names[first]);
    let gsi = GSI_NUMBERS[n as usize];
    // A key attribute stored with another type: every write of such an item fails.
    let mut all = true;
    let mut k = 0;
    while k < index.key_count() {
        let key = index.key(k);
        match stored_as(s, key.attribute) {
            Some(Some((stored, by))) => {
                if let Some(found) = type_clash(stored, key.key_type) {
                    if clashes_below(entities, s, key.attribute, stored, n) {
                        // Reported at the lower-numbered index already.
                        return text;
                    }
                    text.push("entity `");
                    text.push(entity);
                    text.push("` stores attribute `");
                    text.push(key.attribute);
                    text.push("` as ");
                    text.push(found);
                    text.push(", but `");
                    text.push(key.attribute);
                    text.push("` is a key attribute of GSI");
                    text.push(gsi);
                    push_table(&mut text, table);
                    text.push(", of type ");
                    text.push(key.key_type.name());
                    text.push(", as `");
                    text.push(owner);
                    text.push("` keys it (`gsi");
                    text.push(gsi);
                    text.push(
                        "(pk(...), sk(...))`): DynamoDB refuses every write of an item whose index key attribute has \
                         another type (\"Type mismatch for Index Key\"); ",
                    );
                    text.push(match by {
                        StoredBy::Constant => "give the constant another attribute name",
                        StoredBy::Alias => {
                            "give the field another alias, or drop `write_alias` once no program reads it"
                        }
                        StoredBy::Field => "store the field under another name with `#[entity(rename = \"...\")]`",
                    });
                    return text;
                }
            }
            _ => all = false,
        }
        k += 1;
    }
    if all {
        text.push("entity `");
        text.push(entity);
        text.push("` stores every key attribute of GSI");
        text.push(gsi);
        push_table(&mut text, table);
        text.push(" (");
        let mut k = 0;
        while k < index.key_count() {
            let key = index.key(k);
            if k > 0 {
                text.push(", ");
            }
            text.push("`");
            text.push(key.attribute);
            text.push("`");
            k += 1;
        }
        text.push("), which `");
        text.push(owner);
        text.push("` keys on them, but does not declare the index: its items would enter GSI");
        text.push(gsi);
        text.push(" and the index's queries would read them as another entity's; declare `gsi");
        text.push(gsi);
        text.push("(pk(...), sk(...))` on `");
        text.push(entity);
        text.push(
            "` with the same key attributes, or store one of these fields under another name with \
                   `#[entity(rename = \"...\")]`",
        );
    }
    text
}

/// ` of table `<table>``, or nothing for an unnamed table.
const fn push_table(text: &mut ConstText, table: &str) {
    if !table.is_empty() {
        text.push(" of table `");
        text.push(table);
        text.push("`");
    }
}

/// `"1"` to `"20"`, for messages composed in constant evaluation.
const GSI_NUMBERS: [&str; 21] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15", "16", "17", "18", "19", "20",
];

/// The type of key attribute type `T`, for the generated schema constants.
pub const fn key_type_of<T: KeyAttribute>() -> KeyType {
    <T::Kind as KeyKind>::TYPE
}

impl EntitySchema {
    /// The multi-attribute GSI `index`, if this entity writes it.
    pub fn multi_gsi(&self, index: Index) -> Option<&'static MultiKeyIndex> {
        self.multi_gsis.iter().find(|g| g.index == index)
    }
}

/// Checks the multi-attribute GSI key attributes of an item `schema`'s entity is about to
/// write, as DynamoDB would: no key attribute may be an empty string, a string partition key
/// attribute holds at most 2,048 bytes, a sort key attribute 1,024, and an item in the index
/// (holding all of its key attributes) has at most 2,048 bytes in its partition key attributes
/// together and 1,024 in its sort key attributes together. An absent attribute leaves the item
/// out of the index and is fine.
///
/// # Errors
/// [`Error::Key`] naming the entity, the index and the attribute(s)
/// ([`KeyError::EmptyKeyAttribute`], [`KeyError::KeyAttributeTooLong`],
/// [`KeyError::AggregateTooLong`]).
pub fn check_item(schema: &EntitySchema, item: &Item) -> Result<(), Error> {
    // Every `to_item` of an entity with a multi-attribute GSI runs this: each key attribute is
    // looked up once, and the sides' sizes are summed as they are checked; the index's name,
    // the messages and the list of a side's values are made only for an error.
    for g in schema.multi_gsis {
        let mut in_index = true;
        let mut bytes = [0usize; 2];
        for (side, (attrs, max)) in
            [(g.pk, MAX_PARTITION_KEY_BYTES), (g.sk, MAX_SORT_KEY_BYTES)].into_iter().enumerate()
        {
            for a in attrs {
                let value = item.get(a.attribute);
                if !value_fits(value, max) {
                    check_value(schema.name, schema.names.index_name(g.index).unwrap_or_default(), a, value, max)?;
                }
                match value {
                    Some(v) => bytes[side] += value_size(v),
                    None => in_index = false,
                }
            }
        }
        // Only an item in the index has an index key to measure.
        if in_index {
            for (side, (partition, attrs)) in [(true, g.pk), (false, g.sk)].into_iter().enumerate() {
                let limit = if partition { MAX_PARTITION_KEY_BYTES } else { MAX_SORT_KEY_BYTES };
                if bytes[side] > limit {
                    let index = schema.names.index_name(g.index).unwrap_or_default();
                    let values = attrs.iter().filter_map(|a| Some((a, item.get(a.attribute)?)));
                    check_aggregate(schema.name, index, partition, values)?;
                }
            }
        }
    }
    Ok(())
}

/// Whether [`check_value`] passes `value` (limit `max`) without building its error's context.
#[inline]
fn value_fits(value: Option<&AttributeValue>, max: usize) -> bool {
    match value {
        Some(AttributeValue::S(s)) => !s.is_empty() && s.len() <= max,
        Some(AttributeValue::B(b)) => !b.as_ref().is_empty() && b.as_ref().len() <= max,
        _ => true,
    }
}

/// Checks `value`, about to be stored in `attribute` of an item of `schema`'s entity by an
/// update (`SET`), against every multi-attribute GSI keyed on that attribute, by the rules of
/// [`check_item`] for one attribute. An attribute that keys no multi-attribute GSI passes.
///
/// # Errors
/// [`Error::Key`] naming the entity, the (first) index and the attribute.
pub fn check_attribute(schema: &EntitySchema, attribute: &str, value: &AttributeValue) -> Result<(), Error> {
    for g in schema.multi_gsis {
        let index = schema.names.index_name(g.index).unwrap_or_default();
        for (attrs, max) in [(g.pk, MAX_PARTITION_KEY_BYTES), (g.sk, MAX_SORT_KEY_BYTES)] {
            for a in attrs.iter().filter(|a| a.attribute == attribute) {
                check_value(schema.name, index, a, Some(value), max)?;
            }
        }
    }
    Ok(())
}

/// Checks the key attributes an update sets (`set(attribute)` gives the value it stores, `None`
/// for one it does not set) against the aggregate limits of [`check_item`]: for each side of
/// each multi-attribute GSI, the values the update sets must fit within the limit on their own.
///
/// An update that sets only some of a side's attributes cannot be checked whole without the
/// stored item (the attributes it leaves add their stored size): DynamoDB then refuses the
/// update itself when the stored and the new values together exceed the limit, reported as
/// [`Error::Sdk`] (a `ValidationException`), and nothing is written.
///
/// # Errors
/// [`Error::Key`] ([`KeyError::AggregateTooLong`]) naming the entity, the index and the
/// attributes set.
pub fn check_update<'a>(schema: &EntitySchema, set: impl Fn(&str) -> Option<&'a AttributeValue>) -> Result<(), Error> {
    for g in schema.multi_gsis {
        let index = schema.names.index_name(g.index).unwrap_or_default();
        for (partition, attrs) in [(true, g.pk), (false, g.sk)] {
            let values = attrs.iter().filter_map(|a| Some((a, set(a.attribute)?)));
            check_aggregate(schema.name, index, partition, values)?;
        }
    }
    Ok(())
}

/// Checks that the key attribute values of one side (`partition` or sort) of multi-attribute
/// GSI `index` fit DynamoDB's aggregate limit together: 2,048 bytes for the partition key
/// attributes, 1,024 for the sort key attributes, each value measured as DynamoDB measures
/// it ([`value_size`]). `values` is walked once to measure, and again only to name the
/// attributes of an error (no list of them is collected for a side that fits).
///
/// # Errors
/// [`Error::Key`] ([`KeyError::AggregateTooLong`]) naming the entity, the index and each
/// attribute with its size.
pub(crate) fn check_aggregate<'a>(
    entity: &'static str,
    index: &'static str,
    partition: bool,
    values: impl Iterator<Item = (&'a MultiKeyAttr, &'a AttributeValue)> + Clone,
) -> Result<(), Error> {
    let limit = if partition { MAX_PARTITION_KEY_BYTES } else { MAX_SORT_KEY_BYTES };
    let bytes: usize = values.clone().map(|(_, v)| value_size(v)).sum();
    if bytes <= limit {
        return Ok(());
    }
    let attributes =
        values.map(|(a, v)| format!("{} ({} bytes)", a.attribute, value_size(v))).collect::<Vec<_>>().join(", ");
    Err(Error::Key(KeyError::AggregateTooLong {
        entity,
        index,
        side: if partition { "partition" } else { "sort" },
        attributes,
        bytes,
        over: bytes - limit,
        limit,
    }))
}

/// Checks one key attribute value of multi-attribute GSI `index` (see [`check_item`]).
pub(crate) fn check_value(
    entity: &'static str,
    index: &'static str,
    attr: &MultiKeyAttr,
    value: Option<&AttributeValue>,
    max: usize,
) -> Result<(), Error> {
    let (attribute, field) = (attr.attribute, attr.field);
    let too_long = |bytes: usize| {
        Error::Key(KeyError::KeyAttributeTooLong {
            entity,
            index,
            attribute,
            field,
            bytes,
            over: bytes - max,
            limit: max,
        })
    };
    match value {
        Some(AttributeValue::S(s)) if s.is_empty() => {
            Err(Error::Key(KeyError::EmptyKeyAttribute { entity, index, attribute, field }))
        }
        Some(AttributeValue::B(b)) if b.as_ref().is_empty() => {
            Err(Error::Key(KeyError::EmptyBinaryKeyAttribute { entity, index, attribute, field }))
        }
        Some(AttributeValue::S(s)) if s.len() > max => Err(too_long(s.len())),
        Some(AttributeValue::B(b)) if b.as_ref().len() > max => Err(too_long(b.as_ref().len())),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PK: &[MultiKeyAttr] = &[MultiKeyAttr { field: "tenant", attribute: "tenant", key_type: KeyType::S }];
    const SK: &[MultiKeyAttr] = &[MultiKeyAttr { field: "rank", attribute: "rank", key_type: KeyType::N }];
    const G: MultiKeyIndex = MultiKeyIndex { index: Index::Gsi(6), pk: PK, sk: SK };

    /// A renamed field's writes store its earlier attribute (`write_alias`) with the field's
    /// type; an alias read only is not stored by the entity.
    #[test]
    fn a_written_alias_is_stored_as_its_field() {
        use crate::schema::check::fixtures::{entity, tpl, with_fields};
        const FIELDS: &[crate::schema::FieldSchema] = &[
            crate::schema::FieldSchema::new("points", "points").stored_as::<u64>().alias("tenant", true, false),
            crate::schema::FieldSchema::new("label", "label").stored_as::<String>().alias("old_label", false, false),
        ];
        let s = with_fields(entity("Score", tpl!("S", "<id>"), tpl!("META")), FIELDS);
        assert_eq!(stored_as(&s, "tenant"), Some(Some((StoredType::N, StoredBy::Alias))));
        assert_eq!(stored_as(&s, "points"), Some(Some((StoredType::N, StoredBy::Field))));
        assert_eq!(stored_as(&s, "label"), Some(Some((StoredType::S, StoredBy::Field))));
        assert_eq!(stored_as(&s, "old_label"), None);
    }

    #[test]
    fn empty_and_over_long_key_values_are_refused() {
        let a = &PK[0];
        let empty = check_value("T", "GSI6", a, Some(&AttributeValue::S(String::new())), 2048).unwrap_err();
        let Error::Key(key) = &empty else { panic!("not a key error: {empty:?}") };
        assert_eq!(
            *key,
            KeyError::EmptyKeyAttribute { entity: "T", index: "GSI6", attribute: "tenant", field: "tenant" }
        );
        assert_eq!(
            empty.to_string(),
            "T.tenant is an empty string, which tenant, a key attribute of GSI6, cannot hold: DynamoDB refuses an \
             empty key attribute value"
        );
        let long = check_value("T", "GSI6", a, Some(&AttributeValue::S("x".repeat(1025))), 1024).unwrap_err();
        assert_eq!(
            long.to_string(),
            "T.tenant (key attribute `tenant` of GSI6) is 1025 bytes, 1 over DynamoDB's limit of 1024 bytes"
        );
        assert!(check_value("T", "GSI6", a, Some(&AttributeValue::S("x".repeat(1024))), 1024).is_ok());
        assert!(check_value("T", "GSI6", a, None, 1024).is_ok());
    }

    #[test]
    fn key_schemas_compare_by_attribute_name_and_type() {
        const OTHER: &[MultiKeyAttr] = &[MultiKeyAttr { field: "t", attribute: "tenant", key_type: KeyType::S }];
        const NUM: &[MultiKeyAttr] = &[MultiKeyAttr { field: "tenant", attribute: "tenant", key_type: KeyType::N }];
        assert!(G.same_keys(&MultiKeyIndex { index: Index::Gsi(6), pk: OTHER, sk: SK }));
        assert!(!G.same_keys(&MultiKeyIndex { index: Index::Gsi(6), pk: NUM, sk: SK }));
        assert!(!G.same_keys(&MultiKeyIndex { index: Index::Gsi(6), pk: PK, sk: &[] }));
        assert_eq!(G.describe(), "tenant (S) | rank (N)");
    }
}

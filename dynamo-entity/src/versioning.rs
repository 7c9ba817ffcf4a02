//! Versioning, time and TTL: attributes that the library maintains on every write.
//!
//! Four field attributes, each on at most one field of an entity:
//!
//! ```no_run
//! use dynamo_entity::{Entity, Error, Table, Timestamp};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "DOC#<id>", sk = "META", gsi1 = "AUTHOR#<author>", gsi1_sk = "<created_at>")]
//! struct Doc {
//!     id: String,
//!     author: String,
//!     title: String,
//!     #[entity(version)]
//!     version: u64, // the version this value was read with; 0: never stored
//!     #[entity(created_at)]
//!     created_at: Timestamp,
//!     #[entity(updated_at)]
//!     updated_at: Timestamp,
//!     #[entity(ttl)]
//!     expires_at: Option<Timestamp>, // stored as epoch seconds; None: never expires
//! }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let mut doc = Doc {
//!     id: "d1".into(), author: "ann".into(), title: "Draft".into(), version: 0,
//!     created_at: Timestamp::EPOCH, updated_at: Timestamp::EPOCH, expires_at: None,
//! };
//! table.create(&mut doc).await?; // stores version 1 and both timestamps; `doc` gets them
//! assert_eq!(doc.version, 1);
//! doc.title = "Final".into();
//! table.put(&mut doc).await?; // only if the stored version is still 1; stores 2
//! let stale = Doc { title: "Lost".into(), version: 1, ..doc.clone() };
//! assert!(matches!(table.put(&stale).await, Err(Error::VersionConflict { expected: 1, found: Some(2), .. })));
//! let doc = table.update(Doc::key("d1")).set(Doc::TITLE, &"Again".into()).if_version(2).send().await?.unwrap();
//! assert_eq!(doc.version, 3);
//! # Ok(())
//! # }
//! ```
//!
//! # `#[entity(version)]`: optimistic locking
//!
//! An integer field (`u8` to `u128`, `i8` to `i128`, `usize`, `isize`; not an `Option`)
//! holding the version the value was **read with**. `0` means "never stored": a new value, or
//! an item stored before the entity had a version (an item without the attribute reads as
//! `0`). Every write is conditional on the stored version (a DynamoDB `ConditionExpression`, so
//! the check and the write are one atomic step) and stores the next one:
//!
//! | write | condition | stores |
//! |---|---|---|
//! | [`Table::create`] | no item has the key (`attribute_not_exists(PK)`) | version 1, whatever the struct says |
//! | [`Table::put`], version `v > 0` | `version = v` | `v + 1` |
//! | [`Table::put`], version 0 | `attribute_not_exists(version)`: no item, or one without a version | 1 |
//! | [`Table::replace`] | as `put`, and the item exists | `v + 1` |
//! | [`UpdateRequest`](crate::update::UpdateRequest) with [`if_version(v)`](crate::update::UpdateRequest::if_version) | `version = v` (for 0: no version attribute) | `SET version = if_not_exists(version, 0) + 1` |
//! | [`UpdateRequest::any_version`](crate::update::UpdateRequest::any_version) | none on the version | the same bump |
//! | [`TransactWrite`](crate::transact::TransactWrite) `create`, `put`, `replace`, `update` | the same conditions, in the action | the same versions |
//! | [`Table::delete_if_version`] | `version = v` | (deletes) |
//! | [`Table::delete`] | none | (deletes) |
//!
//! An update of a versioned entity must say which version it applies to: without
//! `if_version` or `any_version` it is refused before sending ([`Error::Invalid`]). A write
//! that loses the race (the stored version is not the struct's) is
//! [`Error::VersionConflict`] naming the expected and the stored version (DynamoDB returns the
//! stored item with the failed condition, `ReturnValuesOnConditionCheckFailure = ALL_OLD`, at no
//! extra cost); nothing was written. Read the item again, apply the change again, and write it
//! with the new version. In a transaction, a failed version condition cancels the transaction
//! with [`CancellationCode::ConditionalCheckFailed`](crate::transact::CancellationCode) on that action,
//! whose [`item`](crate::transact::CancellationReason::item) holds the stored version.
//!
//! A create stores version 1 even when the struct holds another number: a create makes the
//! first version of an item. After a delete, a create starts again at 1, so a writer that read
//! the deleted item at version 1 could overwrite the new one: where that matters, do not reuse
//! the keys of deleted items. In a transaction, [`delete_if`](crate::transact::TransactWrite::delete_if)
//! with a condition on the version handle (`Doc::VERSION.eq(&v)`) deletes at a version. Batch
//! writes (`BatchWriteItem`) cannot be conditional, so [`Table::batch_write`] refuses versioned
//! entities before sending; for entities with timestamps and no version it sets `updated_at`
//! as a put would.
//!
//! A version is stored as a DynamoDB number. A write whose new version would not fit the field's
//! type (a `u8` version at 255) is refused before sending. The field handle (`Doc::VERSION`) is a
//! `Field<E, T, Maintained>`: conditions can use it, no update can set it.
//!
//! # `#[entity(created_at)]` and `#[entity(updated_at)]`
//!
//! [`Timestamp`] fields that the library sets to the current time ([`Timestamp::now`], UTC,
//! millisecond precision):
//!
//! * [`Table::create`] and a transaction's `create` set both.
//! * [`Table::put`], [`Table::replace`] and a transaction's `put` / `replace` set `updated_at`
//!   and store `created_at` **as the struct holds it**: `PutItem` replaces the whole item and
//!   cannot read the stored value, so keeping the original creation time is up to the value
//!   written (read it, change it, put it back; or use an update).
//! * Every update (`UpdateItem`, alone or in a transaction) sets `updated_at` in the same
//!   request; no update changes `created_at` (its handle is `Field<E, Timestamp, Maintained>`).
//!
//! `created_at` may be part of a GSI key template (a seller's skills, newest first): a create
//! writes the GSI key from the time it sets. It cannot be part of the primary key (the library
//! would change the item's key), and `updated_at` and the version cannot be part of any key.
//!
//! # Seeing what was stored
//!
//! [`Table::create`], [`Table::put`] and [`Table::replace`] take `&E` or `&mut E` (see
//! [`Writable`]). With `&E` the caller's value is not modified: it keeps the version it was read
//! with and its old timestamps, so write it again only after reading it back. With `&mut E` it
//! is updated to what was stored (the new version and timestamps) once the write succeeded, so it
//! can be changed and written again. An update returns the item as stored, version and
//! `updated_at` included. A transaction returns nothing: read the items back when needed.
//!
//! # `#[entity(ttl)]`: time to live
//!
//! A [`Timestamp`] or `Option<Timestamp>` field stored the way DynamoDB's time to live expects:
//! a top-level **number of seconds since the Unix epoch** (`N`), not the timestamp text other
//! `Timestamp` fields use. TTL has second precision: the milliseconds of the value are dropped
//! when it is stored (rounded down), and the value read back is the whole second. `None` stores
//! no attribute: the item never expires. A stored value that is not a number of seconds within
//! the years 0000 to 9999 is [`Error::Decode`].
//!
//! [`Table::create_table`] enables time to live on the attribute (`UpdateTimeToLive`) when an
//! entity declares one. A table has one TTL attribute: entities that declare different attribute
//! names are [`Error::Invalid`] before anything is sent; entities that share one name (such as
//! `expires_at`) share the setting.
//!
//! DynamoDB's rules: items whose TTL time has passed are deleted by a background process,
//! typically within a few days and without consuming write capacity; until then they are still
//! returned by reads, queries and scans (filter them out, for instance with a condition on the
//! TTL field), and may still be updated. Items whose TTL is more than five years in the past are
//! never deleted. A deletion appears in DynamoDB Streams as a service deletion. Enabling or
//! disabling TTL on a table may take up to an hour to take effect, during which no other TTL
//! change is accepted. DynamoDB Local (3.3.0) accepts `UpdateTimeToLive` and reports `ENABLED`
//! through `DescribeTimeToLive` at once, but in our tests did not delete an item that had expired
//! a day earlier (watched for over three minutes): tests cannot rely on expiry.
//!
//! The field handle of a TTL field takes and compares [`EpochSeconds`] (`Option<EpochSeconds>`
//! for an optional field), so that updates and conditions write numbers too:
//! `table.update(key).set(Doc::EXPIRES_AT, &Some(EpochSeconds(t)))`.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::Placeholders;
use crate::schema::{Entity, EntitySchema, Item, PrimaryKey, VersionSchema};
use crate::value::time::Timestamp;
use crate::value::{Attribute, parse_integer};

#[cfg(doc)]
use crate::table::Table;

/// Marker of a field handle for a field that the library maintains (`#[entity(version)]`,
/// `#[entity(created_at)]`, `#[entity(updated_at)]`): `Field<E, T, Maintained>`. Conditions
/// can use it; the update methods take `Field<E, T, Mutable>` and do not accept it.
#[derive(Debug, Clone, Copy)]
pub enum Maintained {}

impl crate::expr::NotUnique for Maintained {}
impl crate::expr::NotKey for Maintained {}

// ---------------------------------------------------------------------------------------------
// TTL

pub use crate::value::time::EpochSeconds;

/// A type an `#[entity(ttl)]` field may have: [`Timestamp`] or `Option<Timestamp>`, stored as
/// its [`EpochSeconds`] form.
pub trait TtlValue: Sized {
    /// The stored form: [`EpochSeconds`] or `Option<EpochSeconds>`.
    type Stored: Attribute;
    /// The stored form of the value.
    fn to_stored(&self) -> Self::Stored;
    /// The value of the stored form.
    fn from_stored(stored: Self::Stored) -> Self;
}

impl TtlValue for Timestamp {
    type Stored = EpochSeconds;
    fn to_stored(&self) -> EpochSeconds {
        EpochSeconds(*self)
    }
    fn from_stored(stored: EpochSeconds) -> Timestamp {
        stored.0
    }
}

impl TtlValue for Option<Timestamp> {
    type Stored = Option<EpochSeconds>;
    fn to_stored(&self) -> Option<EpochSeconds> {
        self.map(EpochSeconds)
    }
    fn from_stored(stored: Option<EpochSeconds>) -> Option<Timestamp> {
        stored.map(|s| s.0)
    }
}

// ---------------------------------------------------------------------------------------------
// Versions

/// An integer type an `#[entity(version)]` field may have.
pub trait VersionNumber: Attribute {
    /// The highest version the type holds, as a `u64` (`u64::MAX` for wider types).
    const MAX_VERSION: u64;
}

macro_rules! version_number {
    ($($t:ty),*) => {$(
        impl VersionNumber for $t {
            #[allow(clippy::cast_possible_truncation, clippy::unnecessary_cast)]
            const MAX_VERSION: u64 = if (<$t>::MAX as u128) > (u64::MAX as u128) { u64::MAX } else { <$t>::MAX as u64 };
        }
    )*};
}
version_number!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// The version stored in `item`: `None` when the attribute is absent or not a non-negative
/// integer that fits a `u64`.
pub fn stored_version(item: &Item, version: &VersionSchema) -> Option<u64> {
    match item.get(version.attribute) {
        Some(AttributeValue::N(n)) => parse_integer::<u64>(n),
        _ => None,
    }
}

/// The version of the value written (the struct's), from its item.
fn written_version(entity: &'static str, item: &Item, version: &VersionSchema) -> Result<u64, Error> {
    let text = match item.get(version.attribute) {
        None => return Ok(0),
        Some(AttributeValue::N(n)) => n,
        Some(other) => {
            return Err(Error::Invalid {
                reason: format!(
                    "{entity}.{} is the version, but it is stored as {}, not a number",
                    version.field,
                    crate::value::type_name(other)
                ),
            });
        }
    };
    parse_integer::<u64>(text).ok_or_else(|| Error::Invalid {
        reason: format!("{entity}.{} is {text}, but a version is 0 (never stored) or more", version.field),
    })
}

/// [`Error::Invalid`] when the version after `current` does not fit the field's type.
pub(crate) fn check_bump(entity: &'static str, version: &VersionSchema, current: u64) -> Result<u64, Error> {
    if current >= version.max {
        return Err(Error::Invalid {
            reason: format!(
                "{entity}.{} is {current}, the highest version its type holds: the next write cannot store {}; \
                 use a wider integer type",
                version.field,
                u128::from(current) + 1
            ),
        });
    }
    Ok(current + 1)
}

/// The condition that the stored version is `expected`: `#v = :v`, or for 0
/// `attribute_not_exists(#v)` (no item, or an item stored without a version).
pub(crate) fn version_condition(version: &VersionSchema, expected: u64, ph: &mut Placeholders) -> String {
    let n = ph.name(version.attribute);
    if expected == 0 {
        format!("attribute_not_exists({n})")
    } else {
        let v = ph.value(AttributeValue::N(expected.to_string()));
        format!("{n} = {v}")
    }
}

/// [`Error::VersionConflict`] from the item as it is stored (`None`: no item).
pub(crate) fn conflict(schema: &EntitySchema, key: &PrimaryKey, expected: u64, stored: Option<&Item>) -> Option<Error> {
    let found = mismatch(schema.version.as_ref()?, expected, stored)?;
    Some(Error::VersionConflict { entity: schema.name, key: schema.names.show_key(key), expected, found })
}

/// `Some(found)` when the item as stored (`None`: no item) fails the condition that its
/// version is `expected` ([`version_condition`]), with the version it holds.
pub(crate) fn mismatch(version: &VersionSchema, expected: u64, stored: Option<&Item>) -> Option<Option<u64>> {
    let found = stored.and_then(|i| stored_version(i, version));
    let conflicting =
        if expected == 0 { stored.is_some_and(|i| i.contains_key(version.attribute)) } else { found != Some(expected) };
    conflicting.then_some(found)
}

/// [`Error::VersionConflict`] for a write whose version condition failed, from the item as it is
/// stored (`None`: no item).
pub(crate) fn lost(schema: &EntitySchema, key: &PrimaryKey, expected: u64, stored: Option<&Item>) -> Error {
    let found = stored.zip(schema.version.as_ref()).and_then(|(i, v)| stored_version(i, v));
    Error::VersionConflict { entity: schema.name, key: schema.names.show_key(key), expected, found }
}

// ---------------------------------------------------------------------------------------------
// Writes

/// The item of a write with the maintained attributes set, and the version it is conditional on.
#[derive(Debug)]
pub(crate) struct Stamped {
    pub key: PrimaryKey,
    pub item: Item,
    /// For a versioned entity, the version the write expects to find stored (the struct's); for a
    /// create, `None`.
    pub expected: Option<u64>,
    /// The item's size in bytes by DynamoDB's rules, or an upper bound of it; within 400 KB
    /// (see `schema::size::measure_item_in`).
    pub size: usize,
}

/// The item that `value` is written as by a create (`create == true`: version 1, both
/// timestamps now) or a put / replace (the struct's version + 1 and the condition on it,
/// `updated_at` now).
///
/// # Errors
/// As [`Entity::to_item`]; [`Error::Invalid`] for a version that is negative or cannot be
/// bumped.
pub(crate) fn stamp<E: Entity>(value: &E, create: bool) -> Result<Stamped, Error> {
    let Unkeyed { item, expected, size } = stamp_unkeyed(value, create)?;
    let key = key_of_item(value, &item)?;
    Ok(Stamped { key, item, expected, size })
}

/// A [`Stamped`] item without its key: what a write that is only rendered needs (the key's
/// copy serves the errors of a sent request).
pub(crate) struct Unkeyed {
    pub item: Item,
    pub expected: Option<u64>,
    pub size: usize,
}

/// The primary key of `value`, as `to_item` encoded it into `item` (a copy, without encoding
/// it again).
///
/// # Errors
/// The key's encoding error, when `item` lacks a key attribute.
pub(crate) fn key_of_item<E: Entity>(value: &E, item: &Item) -> Result<PrimaryKey, Error> {
    match (item.get(E::NAMES.pk), item.get(E::NAMES.sk)) {
        (Some(pk), Some(sk)) => Ok(PrimaryKey { pk: pk.clone(), sk: sk.clone() }),
        _ => value.primary_key(),
    }
}

/// [`stamp`] without the key ([`key_of_item`] gives it).
///
/// # Errors
/// As [`stamp`].
pub(crate) fn stamp_unkeyed<E: Entity>(value: &E, create: bool) -> Result<Unkeyed, Error> {
    let schema = E::schema();
    let mut item = value.to_item()?;
    if !schema.has_maintained() {
        let size = crate::schema::size::measure_item_in(E::NAMES, E::TYPE, &item)?;
        return Ok(Unkeyed { item, expected: None, size });
    }
    let mut expected = None;
    if let Some(version) = &schema.version {
        let next = if create {
            1
        } else {
            let current = written_version(E::TYPE, &item, version)?;
            expected = Some(current);
            check_bump(E::TYPE, version, current)?
        };
        item.insert(version.attribute.to_owned(), AttributeValue::N(next.to_string()));
    }
    let now = now_value();
    if let Some(updated) = &schema.updated_at {
        item.insert(updated.attribute.to_owned(), now.clone());
    }
    if let (Some(created), true) = (&schema.created_at, create) {
        item.insert(created.attribute.to_owned(), now);
        // A GSI or LSI key built from the creation time follows the time set here.
        if schema.secondary_indexes().any(|g| g.pk.fields().chain(g.sk.fields()).any(|f| f == created.field)) {
            item = E::from_item(&item)?.to_item()?;
        }
    }
    let size = crate::schema::size::measure_item_in(E::NAMES, E::TYPE, &item)?;
    Ok(Unkeyed { item, expected, size })
}

/// The current time as a stored `Timestamp` attribute.
pub(crate) fn now_value() -> AttributeValue {
    let mut s = String::with_capacity(crate::value::time::TIMESTAMP_LEN);
    Timestamp::now().write_to(&mut s);
    AttributeValue::S(s)
}

mod sealed {
    pub trait Sealed {}
    impl<E: crate::Entity> Sealed for &E {}
    impl<E: crate::Entity> Sealed for &mut E {}
}

/// What [`Table::create`], [`Table::put`] and [`Table::replace`] take: `&E`, which the write
/// leaves as it is, or `&mut E`, which it updates to the value stored (the new version and
/// timestamps; see [the module documentation](self)) once the write succeeded. The two are the
/// same for an entity without maintained attributes.
pub trait Writable: sealed::Sealed {
    /// The entity written.
    type Entity: Entity;

    /// The value to write.
    fn value(&self) -> &Self::Entity;

    /// The value as the write will store `item` (its new version and timestamps), decoded
    /// before the write is sent, so that the write, once applied, cannot fail; `None` when the
    /// value does not want it (`&E`, or no maintained attributes).
    ///
    /// # Errors
    /// As [`Entity::from_item`], before sending.
    #[doc(hidden)]
    fn decode_stored(&self, item: &Item) -> Result<Option<Self::Entity>, Error>;

    /// Takes the value [`decode_stored`](Self::decode_stored) gave, once the write succeeded.
    #[doc(hidden)]
    fn set_stored(&mut self, stored: Option<Self::Entity>);
}

impl<E: Entity> Writable for &E {
    type Entity = E;
    fn value(&self) -> &E {
        self
    }
    fn decode_stored(&self, _: &Item) -> Result<Option<E>, Error> {
        Ok(None)
    }
    fn set_stored(&mut self, _: Option<E>) {}
}

impl<E: Entity> Writable for &mut E {
    type Entity = E;
    fn value(&self) -> &E {
        self
    }
    fn decode_stored(&self, item: &Item) -> Result<Option<E>, Error> {
        if E::schema().has_maintained() { E::from_item(item).map(Some) } else { Ok(None) }
    }
    fn set_stored(&mut self, stored: Option<E>) {
        if let Some(stored) = stored {
            **self = stored;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::ValueError;

    fn n(s: &str) -> AttributeValue {
        AttributeValue::N(s.to_owned())
    }

    #[test]
    fn epoch_seconds_store_whole_seconds() {
        let t = Timestamp::from_millis(1_700_000_000_999).unwrap();
        assert_eq!(EpochSeconds(t).to_attribute(), Ok(Some(n("1700000000"))));
        let before = Timestamp::from_millis(-1).unwrap();
        assert_eq!(EpochSeconds(before).to_attribute(), Ok(Some(n("-1"))));
        assert_eq!(
            EpochSeconds::from_attribute(Some(&n("1.7E+9"))),
            Ok(EpochSeconds(Timestamp::from_secs(1_700_000_000).unwrap()))
        );
        assert!(matches!(EpochSeconds::from_attribute(Some(&n("1.5"))), Err(ValueError::NotInteger { .. })));
        assert!(matches!(EpochSeconds::from_attribute(Some(&n("1E+20"))), Err(ValueError::Number { .. })));
        assert_eq!(
            EpochSeconds::from_attribute(Some(&AttributeValue::S("2024-01-01T00:00:00.000Z".into()))),
            Err(ValueError::WrongType { expected: "N", found: "S" })
        );
        assert_eq!(EpochSeconds::from_attribute(None), Err(ValueError::Missing));
        assert_eq!(Option::<EpochSeconds>::from_attribute(None), Ok(None));
    }

    #[test]
    fn version_limits() {
        assert_eq!(<u8 as VersionNumber>::MAX_VERSION, 255);
        assert_eq!(<i8 as VersionNumber>::MAX_VERSION, 127);
        assert_eq!(<u64 as VersionNumber>::MAX_VERSION, u64::MAX);
        assert_eq!(<i128 as VersionNumber>::MAX_VERSION, u64::MAX);
        let v = VersionSchema { field: "version", attribute: "v", max: 255 };
        assert_eq!(check_bump("Doc", &v, 254).unwrap(), 255);
        let err = check_bump("Doc", &v, 255).unwrap_err().to_string();
        assert!(err.contains("Doc.version is 255, the highest version its type holds"), "{err}");
        let item: Item = [("v".to_owned(), n("-1"))].into();
        assert!(written_version("Doc", &item, &v).is_err());
        assert_eq!(written_version("Doc", &Item::new(), &v).unwrap(), 0);
        assert_eq!(stored_version(&Item::new(), &v), None);
        assert_eq!(stored_version(&[("v".to_owned(), n("7"))].into(), &v), Some(7));
    }

    #[test]
    fn version_conditions() {
        let v = VersionSchema { field: "version", attribute: "version", max: u64::MAX };
        let mut ph = Placeholders::default();
        assert_eq!(version_condition(&v, 0, &mut ph), "attribute_not_exists(#n0)");
        assert_eq!(version_condition(&v, 3, &mut ph), "#n0 = :v0");
        assert_eq!(ph.take_values().unwrap()[":v0"], n("3"));
    }
}

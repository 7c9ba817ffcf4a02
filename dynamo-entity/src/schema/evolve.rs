//! Versioned entity schemas: an entity declares which version of its schema it is, every item
//! it writes carries that version, and items of earlier versions are decoded by the structs of
//! those versions and upgraded in memory, one step at a time.
//!
//! ```no_run
//! use dynamo_entity::Entity;
//!
//! // Version 1: what the table held at launch (and what other clients still write).
//! #[derive(Entity)]
//! #[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 1))]
//! struct SkillV1 { id: String, title: String, price: u32 }
//!
//! // Version 2: the price is in cents.
//! #[derive(Entity)]
//! #[entity(pk = "SKILL#<id>", sk = "META", name = "Skill", schema(version = 2, from = SkillV1))]
//! struct SkillV2 { id: String, title: String, price_cents: u64 }
//!
//! impl From<SkillV1> for SkillV2 {
//!     fn from(v1: SkillV1) -> SkillV2 {
//!         SkillV2 { id: v1.id, title: v1.title, price_cents: u64::from(v1.price) * 100 }
//!     }
//! }
//!
//! // Version 3, the struct the program uses: the title is split.
//! #[derive(Entity)]
//! #[entity(pk = "SKILL#<id>", sk = "META", schema(version = 3, from = SkillV2))]
//! struct Skill { id: String, name: String, subtitle: Option<String>, price_cents: u64 }
//!
//! impl From<SkillV2> for Skill {
//!     fn from(v2: SkillV2) -> Skill {
//!         Skill { id: v2.id, name: v2.title, subtitle: None, price_cents: v2.price_cents }
//!     }
//! }
//! ```
//!
//! # The declaration
//!
//! `#[entity(schema(version = N))]` on the struct declares version `N` (1 or more); `from = Prev`
//! names the struct of version `N - 1`, itself a `#[derive(Entity)]` with the same type name
//! (`name = "..."`) and the same primary key templates, and `impl From<Prev> for Self` is the
//! upgrade step. The struct without `from` is the oldest version the program still reads (not
//! necessarily 1: once no item of version 1 is left, its struct can go and version 2 stands
//! alone). `attribute = "..."` names the attribute that holds the version on each item
//! ([`SCHEMA_ATTRIBUTE`], `_schema`, by default); every struct of one chain uses the same one.
//!
//! Mistakes in the chain are compile errors: version 0, `from` on version 1, a `from` struct
//! that is not version `N - 1` (a gap, the same version twice, or a version going backwards),
//! that declares no schema version, has another type name, another primary key template or
//! another version attribute.
//!
//! # Reads
//!
//! Every read decodes through [`Entity::from_item`], so get, query,
//! item collections, batch get, transactional get, scans, the table-level enum, stream records
//! and lenient reads all read every declared version the same way:
//!
//! * an item stamped with the struct's version decodes as the struct;
//! * an item stamped with an earlier declared version decodes as that version's struct and goes
//!   through each `From` step up to the struct asked for;
//! * an item **without** the attribute (written before the entity had versions, or by another
//!   client) reads as the oldest declared version;
//! * an item stamped with a version the chain does not declare (newer than the struct asked
//!   for, as a newer program writes it, or older than the oldest) is
//!   [`Error::SchemaVersion`] naming the entity, the item's key, the stored version and the
//!   declared range: never a panic, and a lenient read reports it among its skipped items.
//!   A version attribute that is not a non-negative integer is [`Error::Decode`] on it.
//!
//! The type attribute is checked first: an item of another entity type is
//! [`Error::WrongEntity`], whatever version it holds.
//!
//! Decoding and upgrading happen in this program, after DynamoDB answered; what DynamoDB
//! evaluates itself sees the items as stored. A filter (`.filter(...)` of a query or scan), a
//! key condition on a secondary index, a condition expression or a projection names the
//! **current** struct's attributes: an item of an earlier version that stores the field under
//! another name (a field renamed since) does not match a filter on it, and is not in an index
//! its keys have not been backfilled into. Upgrade the stored items
//! ([`Table::upgrade_all`](crate::Table::upgrade_all), or the runner's `upgrade` step) before
//! relying on such a filter; until then, filter in memory after the read.
//!
//! A plain rename needs no version: `#[entity(alias = "title")]` on the renamed field reads the
//! old attribute, and `write_alias` keeps writing it while old code runs (see
//! [`FieldSchema::alias`](crate::schema::FieldSchema::alias) and the phases in
//! [Renaming a field under a rolling deploy](crate::guide::rolling_deploys#renaming-a-field-under-a-rolling-deploy)).
//!
//! A migration ([`Table::backfill`](crate::Table::backfill), `upgrade_all`, `rekey`) checks, for
//! an item of an earlier version, every attribute any declared version writes
//! ([`written_attributes`]), so that a write of the older program made meanwhile is never
//! overwritten. A write of the older program made **after** the migration passed the item
//! (keys computed from a field it renamed, an item it writes at its own version) is not seen
//! by that migration: retire the writers of earlier versions before the backfill or upgrade,
//! or run it again after they are gone.
//!
//! # Writes
//!
//! Every write of a whole item ([`Entity::to_item`]: put, create,
//! replace, batch and transactional writes) stamps the struct's own version. An update
//! (`UpdateItem`) writes only the attributes it names and leaves the stored version as it is:
//! upgrade an item before an update that relies on the new shape. So an update or upsert through
//! the struct of version `N` requires the item at version `N`: one stored at an earlier or a
//! newer version is refused, nothing written, with [`Error::UpgradeRequired`] (`operation`
//! `"update"` or `"upsert"`; `stored` says which way).
//!
//! A whole-item write never replaces an item stored at a **newer** version, as a newer program
//! writes it during a rolling deploy: what only that version holds would be lost.
//! [`Table::put`](crate::Table::put), [`Table::replace`](crate::Table::replace) (the versioned
//! ones of `#[entity(version)]` too) and a transaction's `put` and `replace` add
//! `attribute_not_exists(<schema>) OR <schema> <= N` to their condition. An item without the
//! attribute is of the oldest version, and one of version `N` or earlier is replaced as before.
//!
//! | the stored item | a put or replace through the struct of version `N` |
//! |---|---|
//! | none, no version attribute, or a version up to `N` | written, stamped `N` |
//! | a version above `N` | not written: [`Error::UpgradeRequired`] with `operation` `"put"` or `"replace"` (a transaction: canceled, `ConditionalCheckFailed` for the action, with the item) |
//! | a version attribute that is not a non-negative integer | not written: [`Error::Decode`] on it |
//!
//! A batch put cannot check it: `BatchWriteItem` takes no condition. A `create` writes only
//! where no item is. An entity without a schema version sends the same request as before.
//!
//! Upgrading happens in memory; nothing is written back unless asked, with
//! [`Table::upgrade`](crate::Table::upgrade) (an item as read) or
//! [`Table::upgrade_key`](crate::Table::upgrade_key) (read by key, then upgraded): the upgraded
//! item replaces the stored one only if the stored item is still the one read (see
//! [`migrate::upgrade`](crate::migrate::upgrade)).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::Placeholders;
use crate::schema::{AttributeNames, Entity, EntitySchema, Item};
use crate::value::Attribute;

pub use crate::schema::entity::SchemaVersion;

/// The attribute that holds an item's schema version unless the entity names another
/// (`schema(version = N, attribute = "...")`): a DynamoDB number.
pub const SCHEMA_ATTRIBUTE: &str = "_schema";

/// Every attribute that `schema` or an earlier version of its chain (`from`, `from`'s `from`,
/// ...) writes, but the table's partition key, sort key and type attribute: each version's
/// fields, secondary index keys, lock version, timestamps, time to live, constants and schema
/// version attribute; sorted, each once.
///
/// These are the attributes an item's decoding can depend on: a migration that rewrites part
/// of an item stored at an earlier version checks them (an attribute no version writes, such as
/// one another service added, is neither checked nor changed).
pub fn written_attributes(schema: &'static EntitySchema) -> Vec<&'static str> {
    let names = schema.names;
    let mut out: Vec<&'static str> = Vec::new();
    let mut next = Some(schema);
    while let Some(s) = next {
        out.extend(s.fields.iter().map(|f| f.attribute));
        out.extend(s.key_attributes().map(|(a, _)| a));
        out.extend(s.version.iter().map(|v| v.attribute));
        out.extend(s.created_at.iter().chain(&s.updated_at).chain(&s.ttl).map(|f| f.attribute));
        out.extend(s.constants.iter().map(|c| c.attribute));
        out.extend(s.schema_version.iter().map(|v| v.attribute));
        next = s.schema_version.and_then(|v| v.previous);
    }
    out.retain(|a| *a != names.pk && *a != names.sk && (!names.has_entity_type() || *a != names.entity_type));
    out.sort_unstable();
    out.dedup();
    out
}

/// Where a stored item stands against a struct's declared version (see [`stored_version`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// The item is of the struct's own version (or, for the oldest version, has none): decode
    /// it as the struct.
    Current,
    /// The item is of an earlier declared version: decode it as the `from` struct and upgrade.
    Earlier,
}

/// The schema version stored on `item` under `attribute`: `Ok(None)` when absent.
///
/// # Errors
/// [`Error::Decode`] naming `entity`, the attribute and the item's key (under `names`) when
/// the value is not a non-negative integer (a DynamoDB number that fits a `u64`).
pub fn stored_schema_version(
    item: &Item,
    names: &AttributeNames,
    entity: &'static str,
    attribute: &'static str,
) -> Result<Option<u64>, Error> {
    match item.get(attribute) {
        None => Ok(None),
        Some(value) => <u64 as Attribute>::from_attribute(Some(value)).map(Some).map_err(|source| Error::Decode {
            entity,
            attribute,
            key: names.describe_key(item),
            source,
        }),
    }
}

/// Where `item` stands against `schema`'s declared version: the type attribute is checked
/// first, then the stored version against the declared range.
///
/// # Errors
/// [`Error::WrongEntity`] for an item of another type; [`Error::SchemaVersion`] for a version
/// the chain does not declare; [`Error::Decode`] for a malformed version attribute.
pub fn stored_version(item: &Item, schema: &EntitySchema) -> Result<Stored, Error> {
    let Some(sv) = &schema.schema_version else { return Ok(Stored::Current) };
    let names = schema.names;
    if names.has_entity_type() {
        match item.get(names.entity_type) {
            Some(AttributeValue::S(t)) if t == schema.name => {}
            _ => return Err(Error::wrong_entity(schema.name, item, names)),
        }
    }
    let stored = stored_schema_version(item, names, schema.name, sv.attribute)?;
    match stored {
        None if sv.oldest == sv.version => Ok(Stored::Current),
        None => Ok(Stored::Earlier),
        Some(v) if v == u64::from(sv.version) => Ok(Stored::Current),
        Some(v) if v >= u64::from(sv.oldest) && v < u64::from(sv.version) => Ok(Stored::Earlier),
        Some(v) => Err(Error::SchemaVersion {
            entity: schema.name,
            key: names.describe_key(item),
            stored: v,
            oldest: sv.oldest,
            newest: sv.version,
        }),
    }
}

/// The version an item of `E` as read holds: its stored number, or for an item without one the
/// oldest declared version; `None` for an entity without a schema version.
///
/// # Errors
/// As [`stored_schema_version`].
pub fn version_of<E: Entity>(item: &Item) -> Result<Option<u32>, Error> {
    let Some(sv) = &E::schema().schema_version else { return Ok(None) };
    Ok(Some(match stored_schema_version(item, E::NAMES, E::TYPE, sv.attribute)? {
        None => sv.oldest,
        Some(v) => u32::try_from(v).unwrap_or(u32::MAX),
    }))
}

/// The version `item` holds for `schema`: its stored number, or for an item without one the
/// oldest declared version; `None` for an entity without a schema version or a malformed
/// version attribute.
pub(crate) fn version_of_item(item: &Item, schema: &EntitySchema) -> Option<u64> {
    let sv = schema.schema_version.as_ref()?;
    match stored_schema_version(item, schema.names, schema.name, sv.attribute).ok()? {
        None => Some(u64::from(sv.oldest)),
        Some(v) => Some(v),
    }
}

/// Appends to a whole-item write's condition `out` (a put or a replace of `schema`) that the
/// stored item is not of a newer schema version: ` AND (attribute_not_exists(#sv) OR #sv <= :sv)`.
/// Nothing for an entity without a schema version. An item without the attribute is of the
/// chain's oldest version, so the write may replace it.
pub(crate) fn push_not_newer(schema: &EntitySchema, ph: &mut Placeholders, out: &mut String) {
    let Some(sv) = &schema.schema_version else { return };
    out.push_str(" AND (attribute_not_exists(");
    ph.push_name(sv.attribute, out);
    out.push_str(") OR ");
    ph.push_name(sv.attribute, out);
    out.push_str(" <= ");
    ph.push_value(AttributeValue::N(sv.version.to_string()), out);
    out.push(')');
}

/// Why a whole-item write (`operation`: `"put"` or `"replace"`) of `schema` at `key` was
/// refused by [`push_not_newer`], from the item stored (`ALL_OLD`): [`Error::UpgradeRequired`]
/// when it is of a newer schema version, [`Error::Decode`] when its version attribute is not a
/// non-negative integer; `None` when neither (another part of the condition failed).
pub(crate) fn newer_stored(
    schema: &EntitySchema,
    key: &crate::schema::PrimaryKey,
    operation: &'static str,
    stored: &Item,
) -> Option<Error> {
    let sv = schema.schema_version.as_ref()?;
    match stored_schema_version(stored, schema.names, schema.name, sv.attribute) {
        Ok(Some(v)) if v > u64::from(sv.version) => Some(Error::UpgradeRequired {
            operation,
            entity: schema.name,
            key: schema.names.show_key(key),
            stored: v,
            current: sv.version,
        }),
        Ok(_) => None,
        Err(e) => Some(e),
    }
}

/// Stamps `version` on `item` under `attribute` (every write of a versioned entity).
#[inline]
pub fn put_schema_version(item: &mut Item, attribute: &'static str, version: u32) {
    item.insert(attribute.to_owned(), AttributeValue::N(version.to_string()));
}

/// The oldest version of the chain ending at `schema` (its own declared version's `oldest`);
/// 0 for an entity without a schema version (which the derive's checks refuse as a `from`).
pub const fn oldest_version(schema: &EntitySchema) -> u32 {
    match &schema.schema_version {
        Some(v) => v.oldest,
        None => 0,
    }
}

/// The declared version of `schema`; 0 when it declares none.
pub const fn declared_version(schema: &EntitySchema) -> u32 {
    match &schema.schema_version {
        Some(v) => v.version,
        None => 0,
    }
}

/// Whether `schema` (a `from` struct) stores its version under `attribute`.
pub const fn same_version_attribute(schema: &EntitySchema, attribute: &str) -> bool {
    match &schema.schema_version {
        Some(v) => crate::key::support::str_eq(v.attribute, attribute),
        None => true,
    }
}

/// Whether two entities have the same primary key templates (a `from` struct must: a key
/// change is a re-keying, see [`migrate::rekey`](crate::migrate::rekey)).
pub const fn same_primary_templates(a: &EntitySchema, b: &EntitySchema) -> bool {
    crate::key::support::str_eq(a.primary.pk.source, b.primary.pk.source)
        && crate::key::support::str_eq(a.primary.sk.source, b.primary.sk.source)
}

/// The conversion that `from_item` applies to an item of the version before
/// (`#[entity(schema(version = N, from = Prev))]`): `From<Prev>`, through this trait so that a
/// missing impl is one error, at `from = Prev`, naming the impl to write. Implemented for every
/// `From`; generated code only.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` has `schema(from = {P})`, but there is no `impl From<{P}> for {Self}`: an item stored at \
               the earlier version is read as `{P}`, then converted to `{Self}` with it",
    label = "`schema(from = {P})` needs `impl From<{P}> for {Self}`",
    note = "write `impl From<{P}> for {Self} {{ fn from(old: {P}) -> {Self} {{ .. }} }}`, which fills what `{Self}` \
            added"
)]
pub trait UpgradeFrom<P>: Sized {
    /// `Self::from(prev)`.
    fn upgrade(prev: P) -> Self;
}

impl<T: From<P>, P> UpgradeFrom<P> for T {
    fn upgrade(prev: P) -> T {
        T::from(prev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{Cardinality, KeyType, Template};
    use crate::schema::{Index, IndexSchema, KeyFields};

    const T: Template = Template {
        source: "X",
        segments: &[],
        key_type: KeyType::S,
        cardinality: Cardinality::Low,
        style: crate::key::KeyStyle::DEFAULT,
    };

    const fn schema(version: u32, oldest: u32) -> EntitySchema {
        EntitySchema {
            name: "Skill",
            rust_name: "Skill",
            label: "Skill",
            names: &AttributeNames::DEFAULT,
            primary: IndexSchema { index: Index::Primary, pk: &T, sk: &T },
            gsis: &[],
            multi_gsis: &[],
            inverted: None,
            lsis: &[],
            fields: &[],
            version: None,
            created_at: None,
            updated_at: None,
            ttl: None,
            key_fields: KeyFields::Attributes,
            schema_version: Some(SchemaVersion {
                attribute: SCHEMA_ATTRIBUTE,
                version,
                oldest,
                from: None,
                previous: None,
            }),
            constants: &[],
            vectors: &[],
        }
    }

    fn item(version: Option<AttributeValue>) -> Item {
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S("SKILL#1".into()));
        item.insert("SK".into(), AttributeValue::S("META".into()));
        item.insert("_type".into(), AttributeValue::S("Skill".into()));
        if let Some(v) = version {
            item.insert(SCHEMA_ATTRIBUTE.into(), v);
        }
        item
    }

    fn n(s: &str) -> Option<AttributeValue> {
        Some(AttributeValue::N(s.into()))
    }

    #[test]
    fn stored_versions_against_the_declared_range() {
        let v3 = schema(3, 1);
        assert_eq!(stored_version(&item(n("3")), &v3).unwrap(), Stored::Current);
        assert_eq!(stored_version(&item(n("2")), &v3).unwrap(), Stored::Earlier);
        assert_eq!(stored_version(&item(n("1")), &v3).unwrap(), Stored::Earlier);
        // Absent: the oldest declared version.
        assert_eq!(stored_version(&item(None), &v3).unwrap(), Stored::Earlier);
        assert_eq!(stored_version(&item(None), &schema(2, 2)).unwrap(), Stored::Current);
        // Integral forms other clients write.
        assert_eq!(stored_version(&item(n("3.0")), &v3).unwrap(), Stored::Current);
        let newer = stored_version(&item(n("4")), &v3).unwrap_err();
        assert_eq!(
            newer.to_string(),
            "Skill PK=SKILL#1 SK=META has schema version 4, newer than this program knows: Skill declares versions 1 to 3"
        );
        assert!(matches!(newer, Error::SchemaVersion { stored: 4, oldest: 1, newest: 3, .. }));
        let older = stored_version(&item(n("1")), &schema(3, 2)).unwrap_err();
        assert_eq!(
            older.to_string(),
            "Skill PK=SKILL#1 SK=META has schema version 1, older than the oldest version declared: Skill declares versions 2 to 3"
        );
        let bad = stored_version(&item(Some(AttributeValue::S("3".into()))), &v3).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "cannot decode Skill PK=SKILL#1 SK=META: attribute `_schema`: expected type N, found S"
        );
        let mut other = item(n("9"));
        other.insert("_type".into(), AttributeValue::S("User".into()));
        assert!(matches!(stored_version(&other, &v3), Err(Error::WrongEntity { expected: "Skill", .. })));
    }

    #[test]
    fn whole_writes_refuse_a_newer_stored_version() {
        let v2 = schema(2, 1);
        let mut ph = Placeholders::default();
        let mut cond = String::from("x");
        push_not_newer(&v2, &mut ph, &mut cond);
        assert_eq!(cond, "x AND (attribute_not_exists(#n0) OR #n0 <= :v0)");
        assert_eq!(ph.take_names().unwrap()["#n0"], "_schema");
        assert_eq!(ph.take_values().unwrap()[":v0"], AttributeValue::N("2".into()));
        // No schema version: nothing.
        let plain = EntitySchema { schema_version: None, ..schema(1, 1) };
        let mut cond = String::from("x");
        push_not_newer(&plain, &mut Placeholders::default(), &mut cond);
        assert_eq!(cond, "x");

        let key =
            crate::schema::PrimaryKey { pk: AttributeValue::S("SKILL#1".into()), sk: AttributeValue::S("META".into()) };
        let newer = newer_stored(&v2, &key, "put", &item(n("3"))).unwrap();
        assert!(
            matches!(&newer, Error::UpgradeRequired { operation: "put", entity: "Skill", key, stored: 3, current: 2 } if key == "PK=SKILL#1 SK=META"),
            "{newer:?}"
        );
        assert!(newer_stored(&v2, &key, "put", &item(n("2"))).is_none());
        assert!(newer_stored(&v2, &key, "put", &item(n("1"))).is_none());
        assert!(newer_stored(&v2, &key, "put", &item(None)).is_none());
        assert!(newer_stored(&plain, &key, "put", &item(n("9"))).is_none());
        let bad = newer_stored(&v2, &key, "replace", &item(Some(AttributeValue::S("3".into())))).unwrap();
        assert!(matches!(bad, Error::Decode { attribute: "_schema", .. }), "{bad:?}");
    }

    #[test]
    fn const_helpers() {
        const S: EntitySchema = schema(3, 1);
        const _: () = assert!(oldest_version(&S) == 1 && declared_version(&S) == 3);
        const _: () = assert!(same_version_attribute(&S, "_schema") && !same_version_attribute(&S, "v"));
        const _: () = assert!(same_primary_templates(&S, &S));
    }
}

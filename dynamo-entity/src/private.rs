//! What generated code calls: `#[derive(Entity)]`, `#[derive(TableDef)]`, `#[derive(Collection)]`
//! and `#[derive(KeyPart)]` emit `::dynamo_entity::__private::...` paths into this module. Not a
//! public API: it may change in any release. The logic lives in the runtime's modules; these
//! are thin entry points with the shapes the expansions need.

pub use crate::collection::Unknown;
pub use crate::collection::type_of;
use crate::collection::warn_unknown;
pub use crate::error::Error;
pub use crate::expr::{Field, Immutable, Mutable};
pub use crate::key::support::{KeyContext, KeyMatcher, KeyText, KeyWriter};
pub use crate::key::{
    Cardinality, KeyCase, KeyPart, KeyPartError, KeyStyle, KeyType, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES,
    PartForm, PartShape, Segment, ShardBy, Template, single_key_type,
};
pub use crate::query::multi_key::{MultiKeyQuery, MultiKeySpec};
pub use crate::query::vector::VectorSearch;
pub use crate::query::{IntoQuery, QuerySpec, RefusedSortKey};
pub use crate::schema::check::*;
pub use crate::schema::evolve::{
    SCHEMA_ATTRIBUTE, SchemaVersion, Stored, UpgradeFrom, declared_version, oldest_version, put_schema_version,
    same_primary_templates, same_version_attribute, stored_version,
};
pub use crate::schema::multi_key::{
    BeginsWith, KeyAttribute, MultiKeyAttr, MultiKeyIndex, RangeIsLast, StringKey, check_item as check_multi_keys,
    first_multi_user, key_type_of, multi_keys_disagree, template_and_multi, undeclared_multi_gsi, uses_multi_gsi,
};
pub use crate::schema::vector::{Distance, SearchAttribute, VectorIndex, search_key_type};
pub use crate::schema::{
    AttributeNames, ConstantSchema, ConstantValue, Entity, EntitySchema, FieldSchema, Index, IndexSchema, Item, Key,
    KeyFields, PrimaryKey, TYPE_ATTRIBUTE, VersionSchema, describe_key,
};
pub use crate::schema::{EntityOf, GsiDecl, Projection, TableDef, TableItems};
pub use crate::table::Table;
pub use crate::unique::Unique;
// The reader of DynamoDB's JSON items, for the fuzz target that compares it with the SDK's and
// the page benchmark.
pub use crate::value::json::{
    ItemsReader, Malformed, RawItems, Taken, read_item, take_batch_responses, take_item, take_items, take_raw_items,
    take_transact_responses,
};
pub use crate::value::{Attribute, StoredType, ValueError, serde_from_attribute, serde_to_attribute};
pub use crate::versioning::{EpochSeconds, Maintained, TtlValue, VersionNumber};
pub use aws_sdk_dynamodb::types::AttributeValue;
pub use std::result::Result;
// Short paths for generated code: `__de::None` is 4 tokens, `::core::option::Option::None` 12,
// and a derived entity names them about 60 times. Every token the derive writes costs the
// compiler's macro bridge about 2,800 instructions (a debug build of the derive), so the paths
// generated code names often are short.
pub use std::marker::Sized;
pub use std::option::Option::{self, None, Some};

/// What a key writer of generated code returns: the key so far, or the boxed error of a part.
pub type KeyResult<T> = Result<T, Box<crate::key::KeyError>>;

/// Finishes a complete key of `ctx`, such as a query's partition key.
///
/// # Errors
/// [`Error::Key`] when a part could not be written, or the key is empty or over its limit.
#[inline]
pub fn finish_key(k: KeyResult<KeyText>, ctx: &KeyContext) -> Result<AttributeValue, Error> {
    Ok(k?.finish(ctx)?)
}

/// The partition keys of every shard of a sharded partition key of `ctx`, in shard order:
/// `write` writes the key of shard `i` (with [`ShardBy::Index`]).
pub fn shard_keys(
    count: u16,
    mut write: impl FnMut(u16) -> KeyResult<KeyText>,
    ctx: &KeyContext,
) -> Result<Vec<AttributeValue>, Error> {
    (0..count).map(|i| Ok(write(i)?.finish(ctx)?)).collect()
}

/// Stores one field, leaving the attribute out when the value is absent.
#[inline]
pub fn put_field<T: Attribute>(
    item: &mut Item,
    entity: &'static str,
    field: &'static str,
    attribute: &'static str,
    value: &T,
) -> Result<(), Error> {
    store(item, entity, field, attribute, value.to_attribute())
}

/// Copies the value just stored in `attribute` to `alias` (`#[entity(alias = "...",
/// write_alias)]`): the old attribute of a renamed field holds the same value, or is absent with
/// it.
#[inline]
pub fn put_alias(item: &mut Item, attribute: &'static str, alias: &'static str) {
    if let Some(v) = item.get(attribute).cloned() {
        item.insert(alias.to_owned(), v);
    }
}

/// What a vector index's field may be: `Vec<f32>` or `Option<Vec<f32>>`.
pub trait VectorField: Attribute {
    /// The vector, or `None` when absent.
    fn elements(&self) -> Option<&[f32]>;
}

impl VectorField for Vec<f32> {
    fn elements(&self) -> Option<&[f32]> {
        Some(self)
    }
}

impl VectorField for Option<Vec<f32>> {
    fn elements(&self) -> Option<&[f32]> {
        self.as_deref()
    }
}

/// Stores the field of vector index `index` after checking it (its length is the index's
/// dimensions, its elements finite), naming the item's key (already in `item`) on an error.
#[inline]
pub fn put_vector<T: VectorField>(
    item: &mut Item,
    names: &AttributeNames,
    entity: &'static str,
    index: &crate::schema::vector::VectorIndex,
    value: &T,
) -> Result<(), Error> {
    if let Some(elements) = value.elements() {
        let key = || names.describe_key(item);
        crate::schema::vector::check_vector(index, entity, &key, elements.iter().map(|x| Ok(*x)))?;
    }
    put_field(item, entity, index.field, index.attribute, value)
}

/// Stores one `#[entity(serde)]` field.
#[inline]
pub fn put_serde<T: serde::Serialize>(
    item: &mut Item,
    entity: &'static str,
    field: &'static str,
    attribute: &'static str,
    value: &T,
) -> Result<(), Error> {
    store(item, entity, field, attribute, serde_to_attribute(value))
}

#[inline(always)]
fn store(
    item: &mut Item,
    entity: &'static str,
    field: &'static str,
    attribute: &'static str,
    value: Result<Option<AttributeValue>, ValueError>,
) -> Result<(), Error> {
    match value {
        Ok(Some(av)) => {
            item.insert(attribute.to_owned(), av);
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(source) => Err(Error::Encode { entity, field, attribute, source }),
    }
}

/// Reads one field from `value`, the item's attribute `attribute` picked by
/// [`pick_attributes`] (`None`: absent).
#[inline(always)]
pub fn field_at<T: Attribute>(
    item: &Item,
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    match T::from_attribute(value) {
        Ok(v) => Ok(v),
        Err(source) => Err(decode_error(item, entity, attribute, source)),
    }
}

pub use crate::value::pick_attributes;

/// Reads a key field (one that fills a placeholder of a key template) from its picked
/// attribute `value` when the item has one, else from the key attribute that holds it (see
/// [`EntitySchema::key_part_of`]).
///
/// # Errors
/// [`Error::Decode`] naming the entity, the field's attribute and the item's key: the
/// attribute does not decode; or it is absent and the key that holds the field does not have
/// its template's shape; or neither the attribute nor a key holding the field is on the item
/// (for a field that is not an `Option`).
#[inline(always)]
pub fn key_field_at<T: Attribute + KeyPart>(
    item: &Item,
    value: Option<&AttributeValue>,
    schema: &'static EntitySchema,
    field: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    if value.is_some() {
        return field_at(item, value, schema.label, attribute);
    }
    key_field_from_keys(item, schema, field, attribute)
}

/// Reads a key field that the entity writes only inside its keys
/// ([`EntitySchema::key_only`]): from the key that holds it when that key is on the item and
/// reads back, else from the field's own attribute `value`. The key is the truth: an update of
/// the field rewrites the key (and the indexes follow it) but cannot know whether the item
/// carries an attribute of the same name, which another client may have written and which then
/// keeps the old value.
///
/// # Errors
/// As [`key_field_at`]: the key does not read back and the attribute is absent or does not
/// decode, or neither is on the item (for a field that is not an `Option`).
#[inline(always)]
pub fn key_only_field_at<T: Attribute + KeyPart>(
    item: &Item,
    value: Option<&AttributeValue>,
    schema: &'static EntitySchema,
    field: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    match crate::schema::part_from_keys::<T>(schema, item, field) {
        Ok(Some(v)) => Ok(v),
        _ if value.is_some() => field_at(item, value, schema.label, attribute),
        _ => key_field_from_keys(item, schema, field, attribute),
    }
}

/// [`key_field_at`] for an item without the field's attribute.
#[inline(never)]
fn key_field_from_keys<T: Attribute + KeyPart>(
    item: &Item,
    schema: &'static EntitySchema,
    field: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    match crate::schema::part_from_keys::<T>(schema, item, field) {
        Ok(Some(v)) => Ok(v),
        Ok(None) => T::from_attribute(None).map_err(|_| {
            let holders = schema.describe_holders(field);
            let why = format!("the attribute is missing, and no key that holds `{field}` is on the item ({holders})");
            decode_error(item, schema.label, attribute, ValueError::Invalid(why))
        }),
        Err(why) => Err(decode_error(item, schema.label, attribute, ValueError::Invalid(why))),
    }
}

/// A decode error of an entity stored under `names` (a `#[entity(table = ..)]` entity),
/// its key text rewritten under those names: the field readers name the key by the
/// default `PK` / `SK`, which such an item does not have. Off the hot path.
#[cold]
#[inline(never)]
pub fn with_key_names(error: Error, item: &Item, names: &'static AttributeNames) -> Error {
    match error {
        Error::Decode { entity, attribute, source, .. } => {
            Error::Decode { entity, attribute, key: names.describe_key(item), source }
        }
        Error::WrongEntity { expected, found, .. } => {
            Error::WrongEntity { expected, found, key: names.describe_key(item) }
        }
        other => other,
    }
}

/// Stores the entity's constant attributes (`#[entity(constant(...))]`) in `item`.
#[inline]
pub fn put_constants(item: &mut Item, constants: &'static [ConstantSchema]) {
    for c in constants {
        item.insert(c.attribute.to_owned(), c.value.to_attribute());
    }
}

/// Checks the entity's constant attributes of an item read from the table.
///
/// # Errors
/// [`Error::Decode`] naming the entity, the attribute and the item's key: the attribute is
/// missing ([`ValueError::Missing`]) or holds another value ([`ValueError::Invalid`]).
#[inline]
pub fn check_constants(item: &Item, schema: &'static EntitySchema) -> Result<(), Error> {
    for c in schema.constants {
        match item.get(c.attribute) {
            Some(v) if c.value.matches(v) => {}
            None => return Err(decode_error(item, schema.label, c.attribute, ValueError::Missing)),
            Some(v) => {
                let found = match v {
                    AttributeValue::S(s) => format!("{s:?}"),
                    AttributeValue::N(n) => n.clone(),
                    AttributeValue::Bool(b) => b.to_string(),
                    other => format!("a value of type {}", crate::value::type_name(other)),
                };
                let why = format!("the constant attribute holds {found}, expected {}", c.value);
                return Err(decode_error(item, schema.label, c.attribute, ValueError::Invalid(why)));
            }
        }
    }
    Ok(())
}

/// The error of a field that does not decode, built off the hot path.
#[cold]
#[inline(never)]
fn decode_error(item: &Item, entity: &'static str, attribute: &'static str, source: ValueError) -> Error {
    Error::Decode { entity, attribute, key: describe_key(item), source }
}

/// Reads one `#[entity(serde)]` field from its picked attribute (see [`field_at`]).
#[inline]
pub fn serde_at<T: serde::de::DeserializeOwned>(
    item: &Item,
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    serde_from_attribute(value).map_err(|source| decode_error(item, entity, attribute, source))
}

/// Stores an `#[entity(ttl)]` field as epoch seconds, leaving the attribute out for `None`.
#[inline]
pub fn put_ttl<T: TtlValue>(
    item: &mut Item,
    entity: &'static str,
    field: &'static str,
    attribute: &'static str,
    value: &T,
) -> Result<(), Error> {
    put_field(item, entity, field, attribute, &value.to_stored())
}

/// Reads an `#[entity(ttl)]` field from its picked attribute (see [`field_at`]).
#[inline]
pub fn ttl_at<T: TtlValue>(
    item: &Item,
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    field_at::<T::Stored>(item, value, entity, attribute).map(T::from_stored)
}

/// Reads an `#[entity(version)]` field from its picked attribute (see [`field_at`]); absent
/// reads as version 0.
#[inline]
pub fn version_at<T: VersionNumber>(
    item: &Item,
    value: Option<&AttributeValue>,
    entity: &'static str,
    attribute: &'static str,
) -> Result<T, Error> {
    let zero = AttributeValue::N("0".to_owned());
    T::from_attribute(Some(value.unwrap_or(&zero))).map_err(|source| decode_error(item, entity, attribute, source))
}

/// Checks the entity type attribute (see [`owner`](crate::owner)).
///
/// # Errors
/// [`Error::WrongEntity`] naming the type found and the item's key.
#[inline(always)]
pub fn check_type(item: &Item, entity: &'static str) -> Result<(), Error> {
    crate::owner::check_type(item, item.get(TYPE_ATTRIBUTE), &AttributeNames::DEFAULT, entity)
}

/// Checks the entity type attribute `found`, picked from the item by [`pick_attributes`]
/// with the fields (`None`: absent); [`check_type`] looks it up instead.
///
/// # Errors
/// [`Error::WrongEntity`] naming the type found and the item's key.
#[inline(always)]
pub fn check_type_at(item: &Item, found: Option<&AttributeValue>, entity: &'static str) -> Result<(), Error> {
    crate::owner::check_type(item, found, &AttributeNames::DEFAULT, entity)
}

/// Checks that the decoded value's primary key is the item's `PK` / `SK`: an item whose
/// key says one thing and whose key fields another (written by another tool, or changed by
/// hand) must not decode into a value whose writes would go to another item. Key
/// attributes absent from `item` (a map built by hand) are not compared. Generated code
/// compares first with [`KeyMatcher`], which writes no key, and calls this only
/// to build the error.
///
/// # Errors
/// [`Error::Decode`] naming the key attribute that differs, and the key the fields give;
/// the key's encoding error when the fields give no valid key.
#[cold]
pub fn check_key(item: &Item, entity: &'static str, key: Result<PrimaryKey, Error>) -> Result<(), Error> {
    let key = key?;
    let same = |attribute: &str, value: &AttributeValue| item.get(attribute).is_none_or(|v| v == value);
    if same(crate::schema::PK, &key.pk) && same(crate::schema::SK, &key.sk) {
        return Ok(());
    }
    Err(key_mismatch(item, entity, &key))
}

#[cold]
#[inline(never)]
fn key_mismatch(item: &Item, entity: &'static str, key: &PrimaryKey) -> Error {
    let attribute =
        if item.get(crate::schema::PK).is_none_or(|v| *v == key.pk) { crate::schema::SK } else { crate::schema::PK };
    Error::Decode {
        entity,
        attribute,
        key: describe_key(item),
        source: ValueError::Invalid(format!("the key does not match the item's fields, which give {key}")),
    }
}

/// Stores the entity type attribute.
#[inline]
pub fn put_type(item: &mut Item, entity: &'static str) {
    item.insert(TYPE_ATTRIBUTE.to_owned(), AttributeValue::S(entity.to_owned()));
}

/// Checks the entity type attribute `attribute` (the table's [`AttributeNames::entity_type`])
/// of an item of a table with its own names; [`check_type`] is this with the default name.
/// Nothing to check in a table without a type attribute.
///
/// # Errors
/// [`Error::WrongEntity`] naming the type found and the item's key under `names`.
#[inline(always)]
pub fn check_type_named(item: &Item, names: &'static AttributeNames, entity: &'static str) -> Result<(), Error> {
    if !names.has_entity_type() {
        return Ok(());
    }
    crate::owner::check_type(item, item.get(names.entity_type), names, entity)
}

/// [`check_key`] for a table with its own key attribute names.
///
/// # Errors
/// As [`check_key`], naming the attributes under `names`.
#[cold]
pub fn check_key_named(
    item: &Item,
    names: &'static AttributeNames,
    entity: &'static str,
    key: Result<PrimaryKey, Error>,
) -> Result<(), Error> {
    let key = key?;
    let same = |attribute: &str, value: &AttributeValue| item.get(attribute).is_none_or(|v| v == value);
    if same(names.pk, &key.pk) && same(names.sk, &key.sk) {
        return Ok(());
    }
    let attribute = if same(names.pk, &key.pk) { names.sk } else { names.pk };
    Err(Error::Decode {
        entity,
        attribute,
        key: names.describe_key(item),
        source: ValueError::Invalid(format!(
            "the key does not match the item's fields, which give {}",
            names.show_key(&key)
        )),
    })
}

/// Stores the entity type under the type attribute `attribute`; nothing for a table without
/// one (`attribute` empty, see [`AttributeNames::without_entity_type`]).
#[inline]
pub fn put_type_named(item: &mut Item, attribute: &'static str, entity: &'static str) {
    if !attribute.is_empty() {
        item.insert(attribute.to_owned(), AttributeValue::S(entity.to_owned()));
    }
}

pub use crate::owner::{dispatch, type_of_named};

/// Stores a GSI's two key attributes when both are present (sparse index).
#[inline]
pub fn put_gsi(
    item: &mut Item,
    pk_attribute: &'static str,
    pk: Option<AttributeValue>,
    sk_attribute: &'static str,
    sk: Option<AttributeValue>,
) {
    if let (Some(pk), Some(sk)) = (pk, sk) {
        item.insert(pk_attribute.to_owned(), pk);
        item.insert(sk_attribute.to_owned(), sk);
    }
}

/// Stores an LSI's sort key attribute when it is present (sparse index); its partition key
/// is the item's `PK`.
#[inline]
pub fn put_lsi(item: &mut Item, sk_attribute: &'static str, sk: Option<AttributeValue>) {
    if let Some(sk) = sk {
        item.insert(sk_attribute.to_owned(), sk);
    }
}

/// Appends a GSI's key attributes, `(pk_attribute, pk)` then `(sk_attribute, sk)`, to the list
/// [`Entity::gsi_keys`](crate::Entity::gsi_keys) returns, when both are present; an item
/// without one of them is not in the (sparse) index and adds nothing.
#[inline]
pub fn push_gsi_keys(
    keys: &mut Vec<(&'static str, AttributeValue)>,
    pk_attribute: &'static str,
    sk_attribute: &'static str,
    (pk, sk): (Option<AttributeValue>, Option<AttributeValue>),
) {
    if let (Some(pk), Some(sk)) = (pk, sk) {
        keys.push((pk_attribute, pk));
        keys.push((sk_attribute, sk));
    }
}

/// Appends an LSI's sort key attribute to the list
/// [`Entity::gsi_keys`](crate::Entity::gsi_keys) returns, when present (LSIs are sparse too).
#[inline]
pub fn push_lsi_key(
    keys: &mut Vec<(&'static str, AttributeValue)>,
    sk_attribute: &'static str,
    sk: Option<AttributeValue>,
) {
    if let Some(sk) = sk {
        keys.push((sk_attribute, sk));
    }
}

// --- item collections (`#[derive(Collection)]`) ---------------------------------------------

/// Fills a single-item field of a collection, failing on a second item.
pub fn collect_one<E: Entity>(
    slot: &mut Option<E>,
    item: &Item,
    collection: &'static str,
    field: &'static str,
) -> Result<(), Error> {
    if slot.is_some() {
        return Err(Error::DuplicateItem { collection, field, key: E::NAMES.describe_key(item) });
    }
    *slot = Some(E::from_item(item)?);
    Ok(())
}

/// A required single-item field of a collection: its value, or `Error::MissingItem`.
pub fn required<E>(
    slot: Option<E>,
    collection: &'static str,
    field: &'static str,
    entity: &'static str,
    items: &[Item],
) -> Result<E, Error> {
    slot.ok_or_else(|| Error::MissingItem {
        collection,
        field,
        entity,
        partition: items.first().map(describe_key).unwrap_or_else(|| "an empty partition".to_owned()),
    })
}

/// An item of a type the collection does not name: skipped (with a warning) or an error.
pub fn unknown_item(item: &Item, collection: &'static str, unknown: Unknown) -> Result<(), Error> {
    unknown_item_named(item, &AttributeNames::DEFAULT, collection, unknown)
}

/// [`unknown_item`] for a table with the attribute names `names`.
pub fn unknown_item_named(
    item: &Item,
    names: &AttributeNames,
    collection: &'static str,
    unknown: Unknown,
) -> Result<(), Error> {
    if crate::owner::is_library_item(item, names) {
        return Ok(());
    }
    match unknown {
        Unknown::Skip => {
            warn_unknown(item, names);
            Ok(())
        }
        Unknown::Error => Err(Error::unexpected_item(collection, item, names)),
    }
}

// --- uniqueness guards (for the fuzz targets) -------------------------------------------------

/// The primary key of the guard item of `value` of `entity`'s field stored in `attribute`
/// (the unique module's layout); `None` for an absent value.
///
/// # Errors
/// `Error::Invalid` for a value that cannot be unique (a set, list or map), `Error::Key` over
/// DynamoDB's 2,048-byte partition key limit.
pub fn guard_key(
    entity: &'static str,
    attribute: &str,
    value: Option<&AttributeValue>,
) -> Result<Option<PrimaryKey>, Error> {
    crate::unique::guard_key(entity, attribute, value)
}

/// The entity, attribute and value text of a guard item's partition key; `None` for a key
/// that is no guard key.
pub fn parse_guard_key(pk: &str) -> Option<(String, String, String)> {
    crate::unique::parse_guard_key(pk)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Option<AttributeValue> {
        Some(AttributeValue::S(v.to_owned()))
    }

    #[test]
    fn constants_are_written_and_checked() {
        static SCHEMA: EntitySchema = EntitySchema {
            constants: &[
                ConstantSchema { attribute: "_et", value: ConstantValue::S("User") },
                ConstantSchema { attribute: "_v", value: ConstantValue::N("2") },
                ConstantSchema { attribute: "legacy", value: ConstantValue::Bool(false) },
            ],
            ..crate::schema::check::failed_schema("User")
        };
        let mut item = Item::new();
        item.insert("PK".into(), AttributeValue::S("USER#1".into()));
        put_constants(&mut item, SCHEMA.constants);
        assert_eq!(item.get("_et"), Some(&AttributeValue::S("User".into())));
        assert_eq!(item.get("_v"), Some(&AttributeValue::N("2".into())));
        assert_eq!(item.get("legacy"), Some(&AttributeValue::Bool(false)));
        assert!(check_constants(&item, &SCHEMA).is_ok());
        // Numbers compare as numbers.
        item.insert("_v".into(), AttributeValue::N("2.0".into()));
        assert!(check_constants(&item, &SCHEMA).is_ok());
        item.insert("_v".into(), AttributeValue::S("2".into()));
        let err = check_constants(&item, &SCHEMA).unwrap_err();
        assert_eq!(
            err.to_string(),
            "cannot decode User PK=USER#1 SK=<absent>: attribute `_v`: the constant attribute holds \"2\", expected 2"
        );
        item.insert("_v".into(), AttributeValue::N("2".into()));
        item.remove("legacy");
        match check_constants(&item, &SCHEMA) {
            Err(Error::Decode { entity: "User", attribute: "legacy", source: ValueError::Missing, .. }) => {}
            other => panic!("expected the missing constant, got {other:?}"),
        }
    }

    #[test]
    fn only_complete_key_pairs_and_present_sort_keys_are_pushed() {
        let mut keys = Vec::new();
        push_gsi_keys(&mut keys, "GSI1PK", "GSI1SK", (s("CAT#ai"), None));
        push_gsi_keys(&mut keys, "GSI1PK", "GSI1SK", (None, s("7")));
        push_lsi_key(&mut keys, "LSI1SK", None);
        assert!(keys.is_empty());

        push_gsi_keys(&mut keys, "GSI2PK", "GSI2SK", (s("CAT#ai"), s("0007")));
        push_lsi_key(&mut keys, "LSI1SK", s("2026"));
        assert_eq!(
            keys,
            vec![
                ("GSI2PK", AttributeValue::S("CAT#ai".into())),
                ("GSI2SK", AttributeValue::S("0007".into())),
                ("LSI1SK", AttributeValue::S("2026".into())),
            ]
        );
    }
}

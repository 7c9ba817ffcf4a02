//! Guard items and their keys: the item that claims a unique value for its owner, the text of
//! a value in its key, and the conditions and actions that claim, release or check a guard.

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;

use crate::error::Error;
use crate::expr::Placeholders;
use crate::key::{MAX_PARTITION_KEY_BYTES, escape_into, unescape};
use crate::schema::{AttributeNames, EntitySchema, FieldSchema, Item, PK, PrimaryKey};
use crate::transact::{Action, ActionKind, Cond};
use crate::unique::{GUARD_ENTITY, GUARD_FIELD, GUARD_PREFIX, GUARD_SK, GUARD_TYPE, GUARD_VALUE, OWNER_PK, OWNER_SK};

/// The text of a unique value in its guard key, before escaping: a string as it is, a number in
/// plain canonical form, binary data as URL-safe base64, a bool as `true` / `false`. `None` for
/// an absent value (`NULL` included), which claims no guard.
///
/// # Errors
/// [`Error::Invalid`] for a set, list or map, which cannot be unique.
pub(crate) fn value_text(entity: &str, field: &str, value: Option<&AttributeValue>) -> Result<Option<String>, Error> {
    Ok(Some(match value {
        None | Some(AttributeValue::Null(_)) => return Ok(None),
        Some(AttributeValue::S(s)) => s.clone(),
        Some(AttributeValue::N(n)) => crate::value::canonical_number(n).unwrap_or_else(|| n.clone()),
        Some(AttributeValue::B(b)) => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b.as_ref()),
        Some(AttributeValue::Bool(b)) => b.to_string(),
        Some(other) => {
            return Err(Error::Invalid {
                reason: format!(
                    "{entity}.{field} is unique, but its value is stored as {}; a unique value is a string, number, \
                     binary or bool",
                    crate::value::type_name(other)
                ),
            });
        }
    }))
}

/// The primary key of the guard item of `value` of `entity`'s field stored in `attribute`;
/// `None` for an absent value. See the [module documentation](self) for the layout.
///
/// # Errors
/// As [`value_text`]; [`Error::Key`] when the key would exceed DynamoDB's 2,048-byte limit.
pub(crate) fn guard_key(
    entity: &'static str,
    attribute: &str,
    value: Option<&AttributeValue>,
) -> Result<Option<PrimaryKey>, Error> {
    let Some(text) = value_text(entity, attribute, value)? else {
        return Ok(None);
    };
    Ok(Some(guard_key_of(entity, PK, attribute, &text)?))
}

/// The guard key of value `text`; `pk_attribute` names the partition key in errors.
pub(super) fn guard_key_of(
    entity: &'static str,
    pk_attribute: &'static str,
    attribute: &str,
    text: &str,
) -> Result<PrimaryKey, Error> {
    let mut pk = String::with_capacity(GUARD_PREFIX.len() + entity.len() + attribute.len() + text.len() + 3);
    pk.push_str(GUARD_PREFIX);
    for part in [entity, attribute, text] {
        pk.push('#');
        escape_into(part, &mut pk);
    }
    if pk.len() > MAX_PARTITION_KEY_BYTES {
        return Err(Error::Key(crate::key::KeyError::TooLong {
            entity,
            attribute: pk_attribute,
            template: "UNIQUE#<entity>#<attribute>#<value> (unique guard)",
            bytes: pk.len(),
            over: pk.len() - MAX_PARTITION_KEY_BYTES,
            limit: MAX_PARTITION_KEY_BYTES,
        }));
    }
    Ok(PrimaryKey { pk: AttributeValue::S(pk), sk: AttributeValue::S(GUARD_SK.to_owned()) })
}

/// The value text of a guard key written by [`guard_key`] (the part after the attribute name,
/// unescaped); `None` for a key that is no guard key.
pub(crate) fn parse_guard_key(pk: &str) -> Option<(String, String, String)> {
    let mut parts = pk.split('#');
    if parts.next()? != GUARD_PREFIX {
        return None;
    }
    let mut next = || unescape(parts.next()?).map(|c| c.into_owned());
    let (entity, attribute, value) = (next()?, next()?, next()?);
    parts.next().is_none().then_some((entity, attribute, value))
}

/// One guard: for which field, its key, and the value text for errors.
pub(super) struct Guard {
    pub(super) field: &'static str,
    pub(super) key: PrimaryKey,
    pub(super) text: String,
    pub(super) value: AttributeValue,
}

pub(super) fn guard(
    schema: &'static EntitySchema,
    f: &FieldSchema,
    value: Option<&AttributeValue>,
) -> Result<Option<Guard>, Error> {
    let Some(text) = value_text(schema.name, f.field, value)? else {
        return Ok(None);
    };
    let key = guard_key_of(schema.name, schema.names.pk, f.attribute, &text)?;
    let value = value.cloned().unwrap_or(AttributeValue::Null(true));
    Ok(Some(Guard { field: f.field, key, text, value }))
}

/// `attribute_not_exists(PK) OR (ownerPK = :pk AND ownerSK = :sk)`: the guard is free or
/// already `owner`'s (`PK` is the table's partition key under `names`).
pub(super) fn free_or_owned(names: &AttributeNames, owner: &PrimaryKey) -> Cond {
    let mut ph = Placeholders::default();
    let (pk, opk, osk) = (ph.name(names.pk), ph.name(OWNER_PK), ph.name(OWNER_SK));
    let (vpk, vsk) = (ph.value(owner.pk.clone()), ph.value(owner.sk.clone()));
    Cond { expression: format!("attribute_not_exists({pk}) OR ({opk} = {vpk} AND {osk} = {vsk})"), placeholders: ph }
}

/// The guard item at guard key `key` claiming `value` of attribute `attribute` of entity
/// `entity` for the item keyed `owner`, keyed and typed under the table's attribute `names`:
/// the key, the type attribute [`GUARD_TYPE`] (not in a table without a type attribute,
/// `entity_type = none`, which tells guards apart by their key: see
/// [`is_internal_in`](crate::collection::is_internal_in)), [`GUARD_ENTITY`], [`GUARD_FIELD`],
/// [`GUARD_VALUE`], [`OWNER_PK`] and [`OWNER_SK`]. Every write of a guard (claims, re-keying
/// migrations) builds it here.
pub(crate) fn guard_item(
    names: &AttributeNames,
    key: &PrimaryKey,
    entity: &str,
    attribute: &str,
    value: AttributeValue,
    owner: &PrimaryKey,
) -> Item {
    let mut item = Item::with_capacity(8);
    item.insert(names.pk.to_owned(), key.pk.clone());
    item.insert(names.sk.to_owned(), key.sk.clone());
    if names.has_entity_type() {
        item.insert(names.entity_type.to_owned(), AttributeValue::S(GUARD_TYPE.to_owned()));
    }
    item.insert(GUARD_ENTITY.to_owned(), AttributeValue::S(entity.to_owned()));
    item.insert(GUARD_FIELD.to_owned(), AttributeValue::S(attribute.to_owned()));
    item.insert(GUARD_VALUE.to_owned(), value);
    item.insert(OWNER_PK.to_owned(), owner.pk.clone());
    item.insert(OWNER_SK.to_owned(), owner.sk.clone());
    item
}

pub(super) fn claim(
    schema: &'static EntitySchema,
    table: &str,
    owner: &PrimaryKey,
    g: &Guard,
) -> Result<Action, Error> {
    // The guard item is keyed and typed under the owning entity's attribute names.
    let names = schema.names;
    let attribute = schema.fields.iter().find(|f| f.field == g.field).map_or(g.field, |f| f.attribute);
    let item = guard_item(names, &g.key, schema.name, attribute, g.value.clone(), owner);
    Action::put(
        ActionKind::ClaimUnique { field: g.field },
        schema.name,
        names,
        table,
        &g.key,
        item,
        Some(free_or_owned(names, owner)),
    )
}

pub(super) fn release(
    schema: &'static EntitySchema,
    table: &str,
    owner: &PrimaryKey,
    g: &Guard,
) -> Result<Action, Error> {
    let (kind, names) = (ActionKind::ReleaseUnique { field: g.field }, schema.names);
    Action::delete(kind, schema.name, names, table, &g.key, Some(free_or_owned(names, owner)))
}

/// `attribute_not_exists(PK) OR NOT (ownerPK = :pk AND ownerSK = :sk)`: the guard is not
/// `owner`'s.
pub(super) fn not_owned(names: &AttributeNames, owner: &PrimaryKey) -> Cond {
    let mut ph = Placeholders::default();
    let (pk, opk, osk) = (ph.name(names.pk), ph.name(OWNER_PK), ph.name(OWNER_SK));
    let (vpk, vsk) = (ph.value(owner.pk.clone()), ph.value(owner.sk.clone()));
    Cond {
        expression: format!("attribute_not_exists({pk}) OR NOT ({opk} = {vpk} AND {osk} = {vsk})"),
        placeholders: ph,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_key_is_the_librarys_own_item_in_a_table_without_a_type_attribute() {
        let value = AttributeValue::S("a#b@example.com".to_owned());
        let key = guard_key("User", "email", Some(&value)).unwrap().unwrap();
        assert_eq!(key.pk, AttributeValue::S("UNIQUE#User#email#a%23b@example.com".to_owned()));
        let item: Item = [("PK".to_owned(), key.pk), ("SK".to_owned(), key.sk)].into_iter().collect();
        assert!(crate::owner::is_library_item(&item, &AttributeNames::DEFAULT.without_entity_type()));
    }

    #[test]
    fn numbers_are_canonical() {
        for (text, canonical) in [
            ("0", "0"),
            ("-0", "0"),
            ("0.000", "0"),
            ("42", "42"),
            ("0042", "42"),
            ("1.50", "1.5"),
            ("1.5E+2", "150"),
            ("1.5e-2", "0.015"),
            ("-12.340", "-12.34"),
            ("100", "100"),
            ("1E2", "100"),
            ("123456789012345678901234567890", "123456789012345678901234567890"),
            ("not a number", "not a number"),
        ] {
            assert_eq!(crate::value::canonical_number(text).unwrap_or_else(|| text.to_owned()), canonical, "{text}");
        }
    }

    #[test]
    fn guard_keys_escape_and_parse_back() {
        let key = guard_key("User", "email", Some(&AttributeValue::S("a#b%c@x".into()))).unwrap().unwrap();
        assert_eq!(key.to_string(), "PK=UNIQUE#User#email#a%23b%25c@x SK=UNIQUE");
        let AttributeValue::S(pk) = &key.pk else { panic!() };
        assert_eq!(parse_guard_key(pk), Some(("User".into(), "email".into(), "a#b%c@x".into())));
        assert_eq!(parse_guard_key("USER#x"), None);
        // Distinct values never share a guard; absent values have none.
        let other = guard_key("User", "email", Some(&AttributeValue::S("a".into()))).unwrap().unwrap();
        let other2 = guard_key("User", "email#a", None).unwrap();
        assert_ne!(key, other);
        assert_eq!(other2, None);
        assert_eq!(
            guard_key("User", "n", Some(&AttributeValue::N("1.50".into()))).unwrap().unwrap().to_string(),
            "PK=UNIQUE#User#n#1.5 SK=UNIQUE"
        );
        assert!(guard_key("User", "tags", Some(&AttributeValue::Ss(vec!["a".into()]))).is_err());
        assert!(matches!(
            guard_key("User", "email", Some(&AttributeValue::S("x".repeat(2100)))),
            Err(Error::Key(crate::key::KeyError::TooLong { .. }))
        ));
    }
}

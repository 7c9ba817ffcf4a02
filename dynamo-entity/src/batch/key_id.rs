//! The identity of a batch entry's key ([`KeyId`]) and the checks made on the keys of a batch
//! before it is sent: one table's attribute names, no item named twice.

use std::collections::HashMap;
use std::collections::hash_map::Entry;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::schema::{AttributeNames, PrimaryKey};

/// A primary key in a hashable form: the type letter and bytes of `PK` and of `SK` (a string's
/// UTF-8 bytes, a number's text, a binary value's bytes), borrowed from the key (nothing is
/// copied to compare or hash keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct KeyId<'a>(char, &'a [u8], char, &'a [u8]);

/// The type letter and bytes of a key attribute value; `None` for a type no key can have.
fn scalar(value: &AttributeValue) -> Option<(char, &[u8])> {
    match value {
        AttributeValue::S(s) => Some(('S', s.as_bytes())),
        AttributeValue::N(n) => Some(('N', n.as_bytes())),
        AttributeValue::B(b) => Some(('B', b.as_ref())),
        _ => None,
    }
}

pub(super) fn key_id<'a>(pk: Option<&'a AttributeValue>, sk: Option<&'a AttributeValue>) -> Option<KeyId<'a>> {
    let (pt, pv) = scalar(pk?)?;
    let (st, sv) = scalar(sk?)?;
    Some(KeyId(pt, pv, st, sv))
}

/// The key of an entry, checked when the entry is made ([`key_id_of`]).
pub(super) fn entry_id(key: &PrimaryKey) -> Option<KeyId<'_>> {
    key_id(Some(&key.pk), Some(&key.sk))
}

pub(super) fn key_id_of<'a>(key: &'a PrimaryKey, names: &AttributeNames) -> Result<KeyId<'a>, Error> {
    key_id(Some(&key.pk), Some(&key.sk)).ok_or_else(|| Error::Invalid {
        reason: format!("batch key {} is not a string, number or binary key", names.show_key(key)),
    })
}

/// Checks that no two keys are the same item; the positions of the keys by key, each with
/// its entity type.
pub(super) fn check_duplicates<'a>(
    entries: impl ExactSizeIterator<Item = (&'a PrimaryKey, &'static str, &'static AttributeNames)>,
) -> Result<HashMap<KeyId<'a>, (usize, &'static str)>, Error> {
    let mut seen: HashMap<KeyId<'a>, (usize, &'static str)> = HashMap::with_capacity(entries.len());
    let mut table_names: Option<(&'static AttributeNames, &'static str)> = None;
    for (position, (key, entity, names)) in entries.enumerate() {
        // One request writes one table, whose key attributes every entry must use.
        match table_names {
            // The names are the entities' `&'static` consts: the same one is the same address,
            // compared field by field only when the addresses differ.
            Some((first, first_entity)) if !std::ptr::eq(first, names) && first != names => {
                return Err(Error::Invalid {
                    reason: format!(
                        "one batch holds {first_entity} (key attributes {} / {}, type attribute {}) and {entity} \
                         (key attributes {} / {}, type attribute {}): entities of tables with different attribute \
                         names cannot share a table",
                        first.pk, first.sk, first.entity_type, names.pk, names.sk, names.entity_type
                    ),
                });
            }
            None => table_names = Some((names, entity)),
            Some(_) => {}
        }
        // Every entry's key was checked to be a string, number or binary key when it was made.
        let Some(id) = entry_id(key) else { continue };
        match seen.entry(id) {
            Entry::Occupied(e) => {
                let &(first, first_entity) = e.get();
                return Err(Error::DuplicateKey {
                    key: names.show_key(key),
                    first,
                    first_entity,
                    second: position,
                    second_entity: entity,
                });
            }
            Entry::Vacant(e) => {
                e.insert((position, entity));
            }
        }
    }
    Ok(seen)
}

// --- shared pieces ----------------------------------------------------------------------------

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn duplicates_name_both_positions() {
        let key =
            |pk: &str, sk: &str| PrimaryKey { pk: AttributeValue::S(pk.into()), sk: AttributeValue::S(sk.into()) };
        let keys = [key("A", "1"), key("A", "2"), key("A", "1")];
        let names = &AttributeNames::DEFAULT;
        let entities = ["One", "Two", "Three"];
        let entries = keys.iter().zip(entities).map(|(key, e)| (key, e, names));
        let err = check_duplicates(entries).unwrap_err();
        assert_eq!(
            err.to_string(),
            "duplicate key PK=A SK=1 in one batch: position 0 (One) and position 2 (Three); \
             DynamoDB rejects a batch that names one item twice"
        );
        // A number key and a string key with the same text are different items.
        let n = PrimaryKey { pk: AttributeValue::N("1".into()), sk: AttributeValue::S("x".into()) };
        let s = PrimaryKey { pk: AttributeValue::S("1".into()), sk: AttributeValue::S("x".into()) };
        assert_ne!(key_id_of(&n, names).unwrap(), key_id_of(&s, names).unwrap());
        // Entities of tables with different attribute names cannot share one batch.
        static OTHER: AttributeNames = AttributeNames::DEFAULT.with_keys("pk", "sk");
        let mixed = [(&keys[0], "One", names), (&keys[1], "Two", &OTHER)];
        assert_eq!(
            check_duplicates(mixed.into_iter()).unwrap_err().to_string(),
            "invalid request: one batch holds One (key attributes PK / SK, type attribute _type) and Two (key \
             attributes pk / sk, type attribute _type): entities of tables with different attribute names cannot \
             share a table"
        );
    }
}

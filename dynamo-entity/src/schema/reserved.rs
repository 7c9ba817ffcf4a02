//! The library's own items in a user's table: the guard items of unique fields
//! ([`unique`](crate::unique)) and the records of migrations ([`migrate`](crate::migrate)).
//! They belong to no entity, so every read that decodes items by entity type (collections,
//! entity enums, table scans, stream records) recognizes them here and leaves them out, and
//! only them: any other item whose type no entity names is reported.
//!
//! | item | partition key | sort key | entity type attribute |
//! |---|---|---|---|
//! | uniqueness guard | `UNIQUE#<entity>#<attribute>#<value>` | `UNIQUE` | `_unique` |
//! | migration checkpoint, runner record | `_MIGRATION#<id>` | `RUN`, `SEGMENT#…`, `STEP`, … | `_migration` |
//! | runner registry | `_MIGRATIONS` | `ID#<id>` | `_migration` |
//!
//! In a table without an entity type attribute (`#[table(entity_type = none)]`) the items
//! carry no type, and are told by their keys.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::key::names::AttributeNames;
use crate::value::Item;

/// The entity type attribute of a guard item.
pub const GUARD_TYPE: &str = "_unique";
/// The first segment of a guard item's partition key.
pub const GUARD_PREFIX: &str = "UNIQUE";
/// The sort key of every guard item.
pub const GUARD_SK: &str = "UNIQUE";
/// The entity type attribute of the library's migration records.
pub const MIGRATION_TYPE: &str = "_migration";
/// The start of the partition key of one migration's records (`_MIGRATION#<id>`).
pub const MIGRATION_PREFIX: &str = "_MIGRATION#";
/// The partition key of the runner's list of the migrations it started.
pub const MIGRATION_REGISTRY: &str = "_MIGRATIONS";

/// The value of `type_attribute` on `item`, if it is a string.
pub fn type_of_named<'a>(item: &'a Item, type_attribute: &str) -> Option<&'a str> {
    match item.get(type_attribute) {
        Some(AttributeValue::S(t)) => Some(t),
        _ => None,
    }
}

/// Whether `type_value` is the entity type of one of the library's own items.
pub fn is_reserved_type(type_value: &str) -> bool {
    type_value == GUARD_TYPE || type_value == MIGRATION_TYPE
}

/// Whether `pk` has the shape of a guard item's partition key: `UNIQUE` and three escaped
/// segments (entity, attribute, value).
pub fn is_guard_partition(pk: &str) -> bool {
    let mut parts = pk.split(crate::key::DELIMITER);
    parts.next() == Some(GUARD_PREFIX)
        && (0..3).all(|_| parts.next().is_some_and(|p| crate::key::unescape(p).is_some()))
        && parts.next().is_none()
}

/// Whether `item` is one of the library's own items in a table with the attribute names
/// `names`: by its entity type attribute, or in a table without one, by its keys (see the
/// [module](self) documentation).
pub fn is_library_item(item: &Item, names: &AttributeNames) -> bool {
    if names.has_entity_type() {
        return type_of_named(item, names.entity_type).is_some_and(is_reserved_type);
    }
    let Some(AttributeValue::S(pk)) = item.get(names.pk) else { return false };
    let guard = is_guard_partition(pk) && matches!(item.get(names.sk), Some(AttributeValue::S(sk)) if sk == GUARD_SK);
    guard || pk.starts_with(MIGRATION_PREFIX) || pk == MIGRATION_REGISTRY
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNTYPED_NAMES: AttributeNames = AttributeNames::DEFAULT.without_entity_type();
    const DEFAULT_NAMES: AttributeNames = AttributeNames::DEFAULT;

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned()))).collect()
    }

    #[test]
    fn items_are_the_librarys_by_type_where_the_table_has_a_type_attribute() {
        let guard = item(&[("PK", "UNIQUE#User#email#a"), ("SK", "UNIQUE"), ("_type", "_unique")]);
        let record = item(&[("PK", "_MIGRATION#m1"), ("SK", "RUN"), ("_type", "_migration")]);
        let user = item(&[("PK", "UNIQUE#User#email#a"), ("SK", "UNIQUE"), ("_type", "User")]);
        let untyped = item(&[("PK", "_MIGRATION#m1"), ("SK", "RUN")]);
        assert_eq!(
            [&guard, &record, &user, &untyped].map(|i| is_library_item(i, &DEFAULT_NAMES)),
            [true, true, false, false]
        );
    }

    #[test]
    fn items_are_the_librarys_by_key_where_the_table_has_no_type_attribute() {
        let cases = [
            (item(&[("PK", "UNIQUE#User#email#a%23b"), ("SK", "UNIQUE")]), true),
            (item(&[("PK", "UNIQUE#User#email#a"), ("SK", "META")]), false),
            (item(&[("PK", "UNIQUE#User#email"), ("SK", "UNIQUE")]), false),
            (item(&[("PK", "UNIQUE#User#email#a#b"), ("SK", "UNIQUE")]), false),
            (item(&[("PK", "UNIQUE#User#email#a%zz"), ("SK", "UNIQUE")]), false),
            (item(&[("PK", "_MIGRATION#m1"), ("SK", "SEGMENT#0000001")]), true),
            (item(&[("PK", "_MIGRATIONS"), ("SK", "ID#m1")]), true),
            (item(&[("PK", "USER#1"), ("SK", "META")]), false),
            (item(&[("SK", "UNIQUE")]), false),
        ];
        for (i, (item, want)) in cases.iter().enumerate() {
            assert_eq!(is_library_item(item, &UNTYPED_NAMES), *want, "case {i}: {item:?}");
        }
    }
}

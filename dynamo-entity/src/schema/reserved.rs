//! The library's own items in a user's table: the guard items of unique fields
//! ([`unique`](crate::unique)) and the records of migrations ([`migrate`](crate::migrate)).
//! They belong to no entity. This file says what they look like; whether an item read is one
//! of them is decided, with every other question of whose item an item is, in
//! [`owner`](crate::owner).
//!
//! | item | partition key | sort key | entity type attribute |
//! |---|---|---|---|
//! | uniqueness guard | `UNIQUE#<entity>#<attribute>#<value>` | `UNIQUE` | `_unique` |
//! | migration checkpoint, runner record | `_MIGRATION#<id>` | `RUN`, `SEGMENT#…`, `STEP`, … | `_migration` |
//! | runner registry | `_MIGRATIONS` | `ID#<id>` | `_migration` |
//!
//! In a table without an entity type attribute (`#[table(entity_type = none)]`) the items
//! carry no type, and are told by their keys.

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

/// Whether `pk` has the shape of a guard item's partition key: `UNIQUE` and three escaped
/// segments (entity, attribute, value).
pub fn is_guard_partition(pk: &str) -> bool {
    let mut parts = pk.split(crate::key::DELIMITER);
    parts.next() == Some(GUARD_PREFIX)
        && (0..3).all(|_| parts.next().is_some_and(|p| crate::key::unescape(p).is_some()))
        && parts.next().is_none()
}

//! Distinct type names and one TTL attribute a table: the entity type name tells items apart,
//! and a table has one time-to-live attribute.

use crate::schema::check::{is_checked, str_eq};
use crate::schema::{EntitySchema, FieldSchema};

/// Whether `a` and `b` carry the same entity type name (both real schemas).
pub const fn same_type_name(a: &EntitySchema, b: &EntitySchema) -> bool {
    is_checked(a) && is_checked(b) && str_eq(a.name, b.name)
}

/// Whether entity `j` of `entities` shares its entity type name with another of them (both
/// real schemas): reads then tell their items apart by key shape, and need the table's
/// entities to do so (`#[entity(table = ...)]` on each, see
/// [`Entity::TABLE_ENTITIES`](crate::Entity::TABLE_ENTITIES)).
pub const fn shares_type_name(entities: &[&EntitySchema], j: usize) -> bool {
    let mut i = 0;
    while i < entities.len() {
        if i != j && same_type_name(entities[i], entities[j]) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `a` and `b` keep their time to live in different attributes (a table has one TTL
/// attribute).
pub const fn ttl_differs(a: &EntitySchema, b: &EntitySchema) -> bool {
    match (a.ttl, b.ttl) {
        (Some(FieldSchema { attribute: x, .. }), Some(FieldSchema { attribute: y, .. })) => !str_eq(x, y),
        _ => false,
    }
}

/// The position in `entities` of the first one with an `#[entity(ttl)]` field,
/// `usize::MAX` when none has one.
pub const fn first_ttl(entities: &[&EntitySchema]) -> usize {
    let mut i = 0;
    while i < entities.len() {
        if entities[i].ttl.is_some() {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// The position of the first entity before `entities[later]` with the same type name
/// ([`same_type_name`]), `usize::MAX` when there is none.
pub const fn first_same_name(entities: &[&EntitySchema], later: usize) -> usize {
    let mut i = 0;
    while i < later {
        if same_type_name(entities[i], entities[later]) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::check::fixtures::*;
    use crate::schema::check::*;

    #[test]
    fn names() {
        assert!(same_type_name(&USER, &entity("User", tpl!("U"), tpl!("V"))));
        assert!(!same_type_name(&USER, &PROFILE));
        assert!(!same_type_name(&USER, &failed_schema("User")));
        assert!(str_eq("", ""));
        assert!(!str_eq("ab", "abc"));
    }
}

//! Checks across the entities of one table, written as `const fn`s so that `#[derive(TableDef)]`
//! runs them at compile time (through [`Entity::SCHEMA`](crate::Entity::SCHEMA)), and
//! [`TableLayout::declared`](crate::schema::TableLayout::declared) runs the same functions at
//! run time.
//!
//! # The rules
//!
//! * **No shared primary keys.** Two entities must not be able to produce the same primary key
//!   (`PK`, `SK`): one would overwrite or shadow the other's item. See [`keys_collide`].
//! * **No prefix collisions.** Where two entities can share a partition of an index, the
//!   `begins_with` condition that one entity's query adds by default (the literal prefix of its
//!   sort key template, such as `REVIEW#`) must not match the other's sort keys, or the query
//!   would read (and pay for) the other entity's items. See [`prefix_reads`]. Where the
//!   placeholder after the literal prefix has a fixed form of digits (an unsigned integer, a
//!   `Timestamp`, a `Date`: [`PartShape::is_fixed_form`]), the query reads
//!   `BETWEEN prefix 00…0 AND prefix 99…9$` instead ([`narrowed_segment`]): a sibling sort key
//!   whose next segment cannot start with a digit (`V#LATEST` beside `V#<version>`) is not read,
//!   and needs no `hierarchy(...)` opt-in.
//! * **One type per key attribute.** A table defines each key attribute once, as `S` or `N`
//!   (DynamoDB's `AttributeDefinitions`); a template that is exactly one numeric placeholder is
//!   `N`, any other `S`. See [`key_type`].
//! * **A collection is one partition.** Every entity a `#[derive(Collection)]` struct collects
//!   can have items in a partition of its first entity's, on the table or on an index both
//!   write (the collection is read by one query): see [`share_a_partition`].
//! * **Distinct type names** (the `_type` attribute tells items apart), **declared GSIs** and
//!   **one TTL attribute** a table.
//! * **Multi-attribute GSIs are met only by their declarers.** An entity that does not declare
//!   such an index stores none of its key attribute names with another type (DynamoDB would
//!   refuse every write) and not all of them (its items would enter the index). See
//!   [`undeclared_multi_gsi`](crate::schema::multi_key::undeclared_multi_gsi).
//!
//! # How two templates are compared
//!
//! Templates are compared segment by segment (segments are `#`-delimited). A placeholder's
//! value never contains a raw `#` (it is escaped as `%23`), so a key has exactly as many
//! segments as its template. A literal segment matches only the same literal; a placeholder
//! (alone in its segment, or with literal text around it, as in `v<version>`: then the text
//! between the affixes) matches the segments its type can write
//! ([`KeyPart::SHAPE`](crate::KeyPart::SHAPE), kept in [`FieldSchema::shape`]): a `u64` part
//! is always 20 digits, so it never equals `LATEST` nor a `u32`'s 10 digits, and `v<version>`
//! never equals `v0`; an enum of `#[derive(KeyPart)]` writes only its variant names, a
//! `Timestamp` only `YYYY-MM-DDTHH:MM:SS.mmmZ`; a `String` part can write any segment. The same
//! field used twice by one entity (in its partition and its sort key) must take the same value
//! at both places: the comparison unifies placeholders, so `X#<a>` / `Y#<a>` does not collide with `X#1` / `Y#2`.
//!
//! An entity whose `#[derive(Entity)]` failed has an empty placeholder schema
//! ([`failed_schema`]); every check skips it, so one mistake reports one error.

mod collide;
#[cfg(test)]
pub(crate) mod fixtures;
mod index;
mod names;
mod partition;
mod prefix;
mod text;
mod unify;

pub use collide::*;
pub use index::*;
pub use names::*;
pub use partition::*;
pub use prefix::*;
pub use text::*;
use unify::{Unifier, shape_of};

#[cfg(doc)]
use crate::key::PartShape;
use crate::key::{Cardinality, KeyStyle, KeyType, Template};
#[cfg(doc)]
use crate::schema::FieldSchema;
use crate::schema::{AttributeNames, EntitySchema, Index, IndexSchema, KeyFields};

/// The most distinct placeholders two entities' templates may hold together for the
/// comparison; beyond it (an unrealistic key) the pair is not checked.
const MAX_VARS: usize = 64;

const EMPTY: Template = Template {
    source: "",
    segments: &[],
    key_type: KeyType::S,
    cardinality: Cardinality::Low,
    style: KeyStyle::DEFAULT,
};

/// The schema that the stub impl of a failed `#[derive(Entity)]` carries: no segments, no
/// GSIs, no fields. The checks of this module skip it (see [`is_checked`]).
pub const fn failed_schema(name: &'static str) -> EntitySchema {
    EntitySchema {
        name,
        rust_name: name,
        label: name,
        names: &AttributeNames::DEFAULT,
        primary: IndexSchema { index: Index::Primary, pk: &EMPTY, sk: &EMPTY },
        gsis: &[],
        inverted: None,
        lsis: &[],
        multi_gsis: &[],
        fields: &[],
        version: None,
        created_at: None,
        updated_at: None,
        ttl: None,
        key_fields: KeyFields::Attributes,
        schema_version: None,
        constants: &[],
        vectors: &[],
    }
}

/// Whether `s` is a real schema: its partition key template has segments (a failed derive's
/// [`failed_schema`] has none).
pub const fn is_checked(s: &EntitySchema) -> bool {
    !s.primary.pk.segments.is_empty()
}

/// Whether `entities` (a table's [`TableDef::ENTITIES`](crate::TableDef::ENTITIES)) holds the
/// entity type `name`: `#[entity(table = T)]` requires T to list the entity, so that T's checks
/// (key collisions, prefixes, key types) cover its keys.
pub const fn lists_entity(entities: &[&EntitySchema], name: &str) -> bool {
    let mut i = 0;
    while i < entities.len() {
        if str_eq(entities[i].name, name) {
            return true;
        }
        i += 1;
    }
    false
}

pub use crate::key::support::str_eq;

//! One type per key attribute, and declared indexes: which index templates an entity writes
//! and queries, the type of each key attribute, and which entities store an attribute an
//! index projects.

use crate::key::{KeyType, Template};
use crate::schema::check::{is_checked, str_eq};
use crate::schema::{EntitySchema, Index, IndexSchema};

const fn same_index(a: Index, b: Index) -> bool {
    match (a, b) {
        (Index::Primary, Index::Primary) | (Index::Inverted, Index::Inverted) => true,
        (Index::Gsi(x), Index::Gsi(y)) | (Index::Lsi(x), Index::Lsi(y)) => x == y,
        _ => false,
    }
}

/// The templates (partition, sort) under which the items of `s` appear in `index`, if they
/// do. The inverted index holds every item, keyed on its sort key then its partition key; an
/// LSI the items of the entities that write its sort key, under their primary partition key.
pub const fn templates(s: &EntitySchema, index: Index) -> Option<(&'static Template, &'static Template)> {
    match index {
        Index::Primary => Some((s.primary.pk, s.primary.sk)),
        Index::Inverted => Some((s.primary.sk, s.primary.pk)),
        Index::Gsi(_) => match find_gsi(s, index) {
            Some(g) => Some((g.pk, g.sk)),
            None => None,
        },
        Index::Lsi(_) => match find_lsi(s, index) {
            Some(l) => Some((s.primary.pk, l.sk)),
            None => None,
        },
    }
}

/// The queries `s` offers on `index`: the templates of `index` when the entity has a query
/// function for it (the inverted index only with `#[entity(inverted)]`).
pub(super) const fn queried(s: &EntitySchema, index: Index) -> Option<(&'static Template, &'static Template)> {
    match index {
        Index::Inverted if s.inverted.is_none() => None,
        _ => templates(s, index),
    }
}

const fn find_gsi(s: &EntitySchema, index: Index) -> Option<&IndexSchema> {
    let mut i = 0;
    while i < s.gsis.len() {
        if same_index(s.gsis[i].index, index) {
            return Some(&s.gsis[i]);
        }
        i += 1;
    }
    None
}

/// Whether `s` writes the native multi-attribute GSI `index` (its key attributes are the
/// entity's own, see [`multi_key`](crate::schema::multi_key)).
pub(super) const fn writes_multi_gsi(s: &EntitySchema, index: Index) -> bool {
    let mut i = 0;
    while i < s.multi_gsis.len() {
        if same_index(s.multi_gsis[i].index, index) {
            return true;
        }
        i += 1;
    }
    false
}

const fn find_lsi(s: &EntitySchema, index: Index) -> Option<&IndexSchema> {
    let mut i = 0;
    while i < s.lsis.len() {
        if same_index(s.lsis[i].index, index) {
            return Some(&s.lsis[i]);
        }
        i += 1;
    }
    None
}

/// Whether `s` writes the sort key `LSI<n>SK` of LSI number `n`.
pub const fn uses_lsi(s: &EntitySchema, n: u8) -> bool {
    is_checked(s) && find_lsi(s, Index::Lsi(n)).is_some()
}

/// Whether `s` writes the keys of GSI number `n`.
pub const fn uses_gsi(s: &EntitySchema, n: u8) -> bool {
    is_checked(s) && find_gsi(s, Index::Gsi(n)).is_some()
}

/// Whether `s` queries the inverted index (`#[entity(inverted)]`).
pub const fn uses_inverted(s: &EntitySchema) -> bool {
    is_checked(s) && s.inverted.is_some()
}

/// The DynamoDB type `s` stores in the partition key (`partition = true`) or sort key
/// attribute of `index`: `None` when it does not write that index (or its derive failed).
pub const fn key_type(s: &EntitySchema, index: Index, partition: bool) -> Option<KeyType> {
    if !is_checked(s) {
        return None;
    }
    match templates(s, index) {
        Some((pk, sk)) => Some(if partition { pk.key_type } else { sk.key_type }),
        None => None,
    }
}

/// Whether `a` and `b` are different key types (`S`, `N`, `B`; `None` counts as unknown, so
/// never different).
pub const fn key_types_differ(a: Option<KeyType>, b: Option<KeyType>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => !key_types_equal(a, b),
        _ => false,
    }
}

/// Whether `a` and `b` are the same key type, in constant evaluation.
pub const fn key_types_equal(a: KeyType, b: KeyType) -> bool {
    matches!((a, b), (KeyType::S, KeyType::S) | (KeyType::N, KeyType::N) | (KeyType::B, KeyType::B))
}

/// The position in `entities` of the first one that writes the given key attribute of
/// `index` (see [`key_type`]), `usize::MAX` when none does. A type disagreement is reported
/// against this entity only, so three entities of which one disagrees give one error.
pub const fn first_user(entities: &[&EntitySchema], index: Index, partition: bool) -> usize {
    let mut i = 0;
    while i < entities.len() {
        if key_type(entities[i], index, partition).is_some() {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// Whether entity `entities[later]` stores the given key attribute of `index` with another
/// type than the first entity that writes it, `entities[first]` (see [`first_user`]).
pub const fn disagrees_with_first(
    entities: &[&EntitySchema],
    first: usize,
    later: usize,
    index: Index,
    partition: bool,
) -> bool {
    first_user(entities, index, partition) == first
        && key_types_differ(key_type(entities[first], index, partition), key_type(entities[later], index, partition))
}

/// Whether `s` stores a field, or a constant (`#[entity(constant(...))]`), in attribute
/// `attribute`.
pub const fn stores_attribute(s: &EntitySchema, attribute: &str) -> bool {
    let mut i = 0;
    while i < s.fields.len() {
        if str_eq(s.fields[i].attribute, attribute) {
            return true;
        }
        i += 1;
    }
    let mut i = 0;
    while i < s.constants.len() {
        if str_eq(s.constants[i].attribute, attribute) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether a field of `s` was stored in attribute `attribute` before a rename
/// (`#[entity(alias = "...")]`): its reads take that attribute, and under `write_alias` its
/// writes store it too.
pub const fn aliases_attribute(s: &EntitySchema, attribute: &str) -> bool {
    let mut i = 0;
    while i < s.fields.len() {
        if let Some(alias) = s.fields[i].alias {
            if str_eq(alias, attribute) {
                return true;
            }
        }
        i += 1;
    }
    false
}

/// Whether some entity that writes `index` (every entity, for the inverted index) stores
/// attribute `attribute` (a field's, a constant's, or a renamed field's earlier attribute,
/// which its writes or an older program's store), or any entity failed its derive (then
/// nothing is known). An `INCLUDE` projection of an attribute that none stores projects
/// nothing.
pub const fn some_writer_stores(entities: &[&EntitySchema], index: Index, attribute: &str) -> bool {
    let mut i = 0;
    while i < entities.len() {
        let s = entities[i];
        if !is_checked(s)
            || ((templates(s, index).is_some() || writes_multi_gsi(s, index))
                && (stores_attribute(s, attribute) || aliases_attribute(s, attribute)))
        {
            return true;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::check::fixtures::*;
    use crate::schema::check::*;

    /// A renamed field's earlier attribute is the entity's: its alias names it (read only or
    /// written), and an `INCLUDE` projection of it projects what the writes (or an older
    /// program's) store.
    #[test]
    fn aliases_name_attributes() {
        const FIELDS: &[crate::schema::FieldSchema] = &[
            crate::schema::FieldSchema::new("name", "name").alias("title", true, false),
            crate::schema::FieldSchema::new("note", "note").alias("memo", false, false),
        ];
        const GSI: IndexSchema = IndexSchema { index: Index::Gsi(1), pk: tpl!("ALL"), sk: tpl!("<id>") };
        let mut a = with_fields(entity("A", tpl!("A", "<id>"), tpl!("META")), FIELDS);
        a.gsis = &[GSI];
        assert!(aliases_attribute(&a, "title"));
        assert!(aliases_attribute(&a, "memo"));
        assert!(!aliases_attribute(&a, "name"));
        assert!(!stores_attribute(&a, "title"));
        assert!(some_writer_stores(&[&a], Index::Gsi(1), "title"));
        assert!(some_writer_stores(&[&a], Index::Gsi(1), "memo"));
        assert!(!some_writer_stores(&[&a], Index::Gsi(1), "other"));
        assert!(!some_writer_stores(&[&a], Index::Gsi(2), "title"));
    }

    #[test]
    fn gsis_and_types() {
        const GSI_N: IndexSchema = IndexSchema { index: Index::Gsi(2), pk: tpl!("ALL"), sk: tpl!(N; "<n>") };
        const GSI_S: IndexSchema = IndexSchema { index: Index::Gsi(2), pk: tpl!("ALL"), sk: tpl!("<s>") };
        let mut a = entity("A", tpl!("A", "<id>"), tpl!("META"));
        a.gsis = &[GSI_N];
        let mut b = entity("B", tpl!("B", "<id>"), tpl!("META"));
        b.gsis = &[GSI_S];
        let c = entity("C", tpl!("C", "<id>"), tpl!("META"));
        assert!(uses_gsi(&a, 2));
        assert!(!uses_gsi(&a, 1));
        assert_eq!(key_type(&a, Index::Gsi(2), false), Some(KeyType::N));
        assert_eq!(key_type(&c, Index::Gsi(2), false), None);
        let all = [&c, &a, &b];
        assert_eq!(first_user(&all, Index::Gsi(2), false), 1);
        assert!(disagrees_with_first(&all, 1, 2, Index::Gsi(2), false));
        assert!(!disagrees_with_first(&all, 0, 2, Index::Gsi(2), false));
        assert!(!disagrees_with_first(&all, 1, 2, Index::Gsi(2), true));
        assert_eq!(first_user(&all, Index::Gsi(3), true), usize::MAX);
    }

    #[test]
    fn lsis_are_keyed_on_the_primary_partition_key() {
        const PK: &Template = tpl!("USER", "<id>");
        const LSI_N: IndexSchema = IndexSchema { index: Index::Lsi(2), pk: PK, sk: tpl!(N; "<placed>") };
        const LSI_S: IndexSchema = IndexSchema { index: Index::Lsi(2), pk: PK, sk: tpl!("ORDER", "<n>") };
        let mut a = entity("Order", PK, tpl!("ORDER", "<n>"));
        a.lsis = &[LSI_N];
        let mut b = entity("Line", PK, tpl!("LINE", "<n>"));
        b.lsis = &[LSI_S];
        assert!(uses_lsi(&a, 2) && !uses_lsi(&a, 1) && !uses_gsi(&a, 2));
        assert!(!uses_lsi(&failed_schema("X"), 2));
        assert_eq!(key_type(&a, Index::Lsi(2), true), Some(KeyType::S));
        assert_eq!(key_type(&a, Index::Lsi(2), false), Some(KeyType::N));
        assert_eq!(key_type(&USER, Index::Lsi(2), false), None);
        let all = [&USER, &a, &b];
        assert_eq!(first_user(&all, Index::Lsi(2), false), 1);
        assert!(disagrees_with_first(&all, 1, 2, Index::Lsi(2), false));
        // `a`'s LSI2 query adds begins_with(LSI2SK, "ORDER#")? Its sort key is one number: no;
        // `b`'s does, and `a` writes no string LSI2SK.
        assert!(!prefix_reads(&a, &b, Index::Lsi(2)) && !prefix_reads(&b, &a, Index::Lsi(2)));
        // In one partition of the LSI, `b`'s `ORDER#` prefix matches `c`'s longer sort keys.
        const LSI_LONG: IndexSchema =
            IndexSchema { index: Index::Lsi(2), pk: PK, sk: tpl!("ORDER", "<n>", "LINE", "<m>") };
        let mut c = entity("Part", PK, tpl!("PART", "<n>"));
        c.lsis = &[LSI_LONG];
        assert!(prefix_reads(&b, &c, Index::Lsi(2)) && !prefix_reads(&b, &c, Index::Lsi(1)));
    }
}

//! Whether an index's projection holds every attribute an entity is decoded from.
//!
//! An `INCLUDE` projection copies the keys and the listed attributes into the index. An item
//! read through it decodes into the entity only when nothing the entity reads is left out: a
//! left-out `Option` field would read as `None`, and a `put` of that value would erase the
//! stored one. Queries read such items whole by their primary keys instead (see
//! [`QueryRequest::send`](crate::query::QueryRequest::send)).
//!
//! A handle that does not know the table's projections (neither
//! [`Table::with_layout`](crate::Table::with_layout) nor
//! [`Table::declared`](crate::Table::declared)) cannot tell an `INCLUDE` item from an `ALL`
//! one whose `Option` fields are `None`: it decodes an index item as it is only when the item
//! holds every attribute the entity reads ([`complete`]), and reads the others whole. Such a
//! handle therefore never returns a silently partial entity, at the price of a `BatchGetItem`
//! for items with absent optional fields; a handle that knows the layout reads whole only the
//! items of an index whose projection leaves attributes out.

use crate::schema::{EntitySchema, Index, Projection};

/// Whether `projection` of `index` holds everything an item of `schema` is decoded from: its
/// fields' attributes, except those a key always projected into the index holds in a form they
/// are read back from (the primary key, and the index's own keys), and its constant attributes.
pub(crate) fn covers(schema: &EntitySchema, index: Index, projection: Projection) -> bool {
    let listed = match projection {
        Projection::All => return true,
        Projection::KeysOnly => &[][..],
        Projection::Include(listed) => listed,
    };
    let in_keys = |field: &str| {
        let own = schema.index(index);
        [Some(schema.primary.pk), Some(schema.primary.sk), own.map(|i| i.pk), own.map(|i| i.sk)]
            .into_iter()
            .flatten()
            .any(|t| schema.readable(t, field).is_some())
    };
    schema.fields.iter().all(|f| schema.key_only(f.field) || in_keys(f.field) || listed.contains(&f.attribute))
        && schema.constants.iter().all(|c| listed.contains(&c.attribute))
}

/// Whether `item`, read from secondary index `index` of a table whose projections are not
/// known, holds every attribute an item of `schema` is decoded from (those the keys hold
/// aside): then it decodes to the whole entity whatever the projection is. An absent
/// attribute may be a `None` or an attribute the projection leaves out; such an item is read
/// whole.
pub(crate) fn complete(schema: &EntitySchema, index: Index, item: &crate::schema::Item) -> bool {
    let own = schema.index(index);
    let in_keys = |field: &str| {
        [Some(schema.primary.pk), Some(schema.primary.sk), own.map(|i| i.pk), own.map(|i| i.sk)]
            .into_iter()
            .flatten()
            .any(|t| t.fields().any(|f| f == field))
    };
    schema.fields.iter().all(|f| schema.key_only(f.field) || in_keys(f.field) || item.contains_key(f.attribute))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::{ConstantSchema, ConstantValue};

    #[test]
    fn constant_attributes_must_be_projected_too() {
        let mut s = crate::schema::check::failed_schema("E");
        assert!(covers(&s, Index::Gsi(1), Projection::KeysOnly), "nothing to read");
        s.constants = &[ConstantSchema { attribute: "__edb_v__", value: ConstantValue::S("1") }];
        assert!(!covers(&s, Index::Gsi(1), Projection::KeysOnly));
        assert!(!covers(&s, Index::Gsi(1), Projection::Include(&["name"])));
        assert!(covers(&s, Index::Gsi(1), Projection::Include(&["name", "__edb_v__"])));
        assert!(covers(&s, Index::Gsi(1), Projection::All));
    }
}

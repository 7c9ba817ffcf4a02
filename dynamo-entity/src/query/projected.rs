//! Whether an index's projection holds every attribute an entity is decoded from.
//!
//! An `INCLUDE` projection copies the keys and the listed attributes into the index. An item
//! read through it decodes into the entity only when nothing the entity reads is left out: a
//! left-out `Option` field would read as `None`, and a `put` of that value would erase the
//! stored one. Queries read such items whole by their primary keys instead (see
//! [`QueryRequest::send`](crate::query::QueryRequest::send)).

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

//! Whether an index's projection holds every attribute an entity is decoded from.
//!
//! An `INCLUDE` projection copies the keys and the listed attributes into the index. An item
//! read through it decodes into the entity only when nothing the entity reads is left out: a
//! left-out `Option` field would read as `None`, and a `put` of that value would erase the
//! stored one. Queries read such items whole by their primary keys instead (see
//! [`QueryRequest::send`](crate::query::QueryRequest::send)).

use crate::schema::{EntitySchema, Index, Projection};

/// Whether `projection` of `index` holds everything an item of `schema` is decoded from: its
/// fields' attributes, except those a key always projected into the index holds (the primary
/// key, and the index's own keys).
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
            .any(|t| t.fields().any(|f| f == field))
    };
    schema.fields.iter().all(|f| schema.key_only(f.field) || in_keys(f.field) || listed.contains(&f.attribute))
}

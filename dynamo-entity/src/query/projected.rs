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

/// Whether `projection` of `index` holds everything an item of `schema` is decoded from (see
/// [`required`]): its fields' attributes, except those a key always projected into the index
/// holds in a form they are read back from (the primary key, and the index's own keys), and
/// its constant attributes, which decoding checks.
pub(crate) fn covers(schema: &EntitySchema, index: Index, projection: Projection) -> bool {
    let listed = match projection {
        Projection::All => return true,
        Projection::KeysOnly => &[][..],
        Projection::Include(listed) => listed,
    };
    required(schema, index).all(|a| listed.contains(&a))
}

/// Whether `item`, read from secondary index `index` of a table whose projections are not
/// known, holds every attribute an item of `schema` is decoded from ([`required`]): then it
/// decodes to the whole entity whatever the projection is. An absent attribute may be a
/// `None` or an attribute the projection leaves out; such an item is read whole.
pub(crate) fn complete(schema: &EntitySchema, index: Index, item: &crate::schema::Item) -> bool {
    required(schema, index).all(|a| item.contains_key(a))
}

/// The attributes decoding an item of `schema` read from `index` needs, besides the keys:
/// each field's attribute, unless the entity's writes leave it out (a key-only field) or a
/// key in every index item (the primary key, `index`'s own keys) holds the field in a form it
/// is read back from; and each constant attribute (`#[entity(constant(...))]`), which the
/// decoder checks: an item without it fails to decode, so a projection that leaves a constant
/// out does not cover the entity, although its value is known from the declaration.
fn required(schema: &EntitySchema, index: Index) -> impl Iterator<Item = &'static str> + '_ {
    let own = schema.index(index);
    let keys = [Some(schema.primary.pk), Some(schema.primary.sk), own.map(|i| i.pk), own.map(|i| i.sk)];
    let in_keys = move |field: &str| keys.into_iter().flatten().any(|t| schema.readable(t, field).is_some());
    let fields = schema.fields.iter().filter(move |f| !schema.key_only(f.field) && !in_keys(f.field));
    fields.map(|f| f.attribute).chain(schema.constants.iter().map(|c| c.attribute))
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

    /// A handle without the layout decides from the item (`complete`) as one with it decides
    /// from the projection (`covers`): an `INCLUDE` projection that leaves the constant
    /// attribute out covers nothing, because decoding checks the constant and fails on an item
    /// without it; so the index item is read whole either way.
    #[test]
    fn complete_agrees_with_covers_on_constant_attributes() {
        static S: EntitySchema = EntitySchema {
            constants: &[ConstantSchema { attribute: "__edb_v__", value: ConstantValue::S("1") }],
            ..crate::schema::check::failed_schema("E")
        };
        let item = |attributes: &[&str]| -> crate::schema::Item {
            attributes
                .iter()
                .map(|a| ((*a).to_owned(), aws_sdk_dynamodb::types::AttributeValue::S("x".into())))
                .collect()
        };
        let keys = ["PK", "SK", "GSI1PK", "GSI1SK"];
        let without = item(&[&keys[..], &["name"]].concat());
        let with = item(&[&keys[..], &["name", "__edb_v__"]].concat());
        assert_eq!(required(&S, Index::Gsi(1)).collect::<Vec<_>>(), ["__edb_v__"]);
        assert_eq!(
            (covers(&S, Index::Gsi(1), Projection::Include(&["name"])), complete(&S, Index::Gsi(1), &without)),
            (false, false)
        );
        assert_eq!(
            (
                covers(&S, Index::Gsi(1), Projection::Include(&["name", "__edb_v__"])),
                complete(&S, Index::Gsi(1), &with)
            ),
            (true, true)
        );
        let decoded = crate::__private::check_constants(&without, &S);
        assert!(
            matches!(decoded, Err(crate::error::Error::Decode { attribute: "__edb_v__", .. })),
            "decoding needs the constant: {decoded:?}"
        );
    }
}

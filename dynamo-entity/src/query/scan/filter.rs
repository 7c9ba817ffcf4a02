//! The entity type filter of an entity scan: which items a scan leaves on the server
//! ([`TypeFilter`]) and the part of the `FilterExpression` that says so.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::expr::Placeholders;
use crate::schema::AttributeNames;

/// What the type filter of an entity scan leaves on the server when the table's entities are
/// known: the items typed as another entity of the table or as one of the library's own items
/// (guards, migration records), except those whose keys begin as the scanned entity's do (when
/// its partition key begins with a placeholder, only the library's own items).
/// Everything else comes back to be decoded or reported: the entity's items, and items without
/// a type, with a type that is not a string, or with one no entity of the table has, which
/// [`Table::misfit`](crate::table::Table::misfit) reports when their keys are the entity's.
#[derive(Debug)]
pub(super) struct TypeFilter {
    /// The type values of the table's other entities and of the library's own items.
    pub(super) others: Vec<&'static str>,
    /// The text the entity's partition key begins with (its first literal text), and its sort
    /// key's when it has one: an item of another type there may be at one of the entity's
    /// keys. `None` for a partition key that begins with a placeholder.
    pub(super) starts: Option<(String, Option<String>)>,
}

/// DynamoDB's limit on the operands of one `IN`: a table with more entity types than that is
/// scanned with the plain type filter.
const MAX_IN_OPERANDS: usize = 100;

/// Writes the entity type part of an entity scan's `FilterExpression` into `text`, in
/// parentheses, its placeholders into `ph`. `broad`: the scan decodes what it reads and lets
/// through everything it may have to report (see [`TypeFilter`]; without the table's entities,
/// `types` is `None`, also items whose type is not a string); otherwise (a backfill's raw pages)
/// only the entity's items and items without a type.
pub(super) fn push_type_filter(
    entity: &'static str,
    names: &AttributeNames,
    types: Option<&TypeFilter>,
    broad: bool,
    ph: &mut Placeholders,
    text: &mut String,
) {
    let t = names.entity_type;
    text.push('(');
    match types {
        Some(types) if broad && types.starts.is_none() => {
            // Any key may be the entity's: only the library's own items, by their type
            // and the beginning of their keys, stay on the server (an item another
            // writer typed `_unique` at one of the entity's keys comes back, to be
            // reported).
            use crate::schema::reserved::{GUARD_PREFIX, GUARD_TYPE, MIGRATION_PREFIX, MIGRATION_TYPE};
            let guard = format!("{GUARD_PREFIX}{}", crate::key::DELIMITER);
            text.push_str("NOT (");
            let migration = MIGRATION_PREFIX.trim_end_matches(crate::key::DELIMITER);
            for (i, (ty, start)) in [(GUARD_TYPE, guard.as_str()), (MIGRATION_TYPE, migration)].iter().enumerate() {
                if i > 0 {
                    text.push_str(" OR ");
                }
                text.push('(');
                ph.push_name(t, text);
                text.push_str(" = ");
                ph.push_value(AttributeValue::S((*ty).to_owned()), text);
                text.push_str(" AND begins_with(");
                ph.push_name(names.pk, text);
                text.push_str(", ");
                ph.push_value(AttributeValue::S((*start).to_owned()), text);
                text.push_str("))");
            }
            text.push(')');
        }
        Some(types) if broad && types.others.len() <= MAX_IN_OPERANDS => {
            text.push_str("NOT (");
            ph.push_name(t, text);
            text.push_str(" IN (");
            for (i, other) in types.others.iter().enumerate() {
                if i > 0 {
                    text.push_str(", ");
                }
                ph.push_value(AttributeValue::S((*other).to_owned()), text);
            }
            text.push_str("))");
            if let Some((pk, sk)) = &types.starts {
                text.push_str(" OR (begins_with(");
                ph.push_name(names.pk, text);
                text.push_str(", ");
                ph.push_value(AttributeValue::S(pk.clone()), text);
                if let Some(sk) = sk {
                    text.push_str(") AND begins_with(");
                    ph.push_name(names.sk, text);
                    text.push_str(", ");
                    ph.push_value(AttributeValue::S(sk.clone()), text);
                }
                text.push_str("))");
            }
        }
        _ => {
            ph.push_name(t, text);
            text.push_str(" = ");
            ph.push_value(AttributeValue::S(entity.to_owned()), text);
            // Items without a type attribute come back too: on an index whose
            // projection leaves it out, they are told by their primary key (see
            // `classify_entity`); on the table, one with the entity's key is reported
            // as a get reports it (`Table::misfit`). So are items whose type is not a
            // string (a JavaScript `null`), for the same reason.
            text.push_str(" OR attribute_not_exists(");
            ph.push_name(t, text);
            text.push(')');
            if broad {
                text.push_str(" OR NOT attribute_type(");
                ph.push_name(t, text);
                text.push_str(", ");
                ph.push_value(AttributeValue::S("S".to_owned()), text);
                text.push(')');
            }
        }
    }
    text.push(')');
}

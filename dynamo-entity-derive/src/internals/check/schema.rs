//! The rules of `#[entity(schema(...))]` within one struct (see `attr::schema`): the version
//! attribute is a valid name that no field's attribute uses.

use proc_macro2::Span;
use syn::LitStr;

use crate::internals::ast::entity::{Entity, attribute_span};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::reserved;

/// The rules of `schema(...)` within one struct: the version attribute is a valid name that
/// no field's attribute uses.
pub fn check(entity: &Entity, cx: &Ctxt) {
    let Some(schema) = &entity.attrs.schema else { return };
    let attribute = schema.attribute_name();
    let span: Span = schema.attribute.as_ref().map_or_else(|| schema.key.span(), LitStr::span);
    if attribute.is_empty() {
        cx.error_at(span, "the schema version attribute cannot be empty: `attribute = \"...\"` names it");
        return;
    }
    if let Some(why) = reserved(&attribute) {
        cx.error_at(span, format!("attribute `{attribute}` is reserved: it holds {why}; choose another name"));
        return;
    }
    for field in &entity.fields {
        if field.attribute == attribute {
            cx.error_at(
                attribute_span(field),
                format!(
                    "attribute `{attribute}` holds the schema version of every item of `{}` (`schema(version = N)`); \
                     store this field under another name with `#[entity(rename = \"...\")]`, or name the version's \
                     attribute with `schema(..., attribute = \"...\")`",
                    entity.name
                ),
            );
        }
    }
}

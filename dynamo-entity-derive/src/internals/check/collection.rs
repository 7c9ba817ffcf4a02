//! Validation of a `#[derive(Collection)]` model: one field or variant per entity type, since
//! items are told apart by their entity type only.

use crate::internals::ast::collection::{Collection, Shape, type_key};
use crate::internals::ctxt::Ctxt;

/// Checks a `Collection` type.
pub fn check(collection: &Collection, cx: &Ctxt) {
    let input = collection.input;
    if !input.generics.params.is_empty() {
        cx.error_spanned_by(&input.generics, "generic collections are not supported");
    }
    match &collection.shape {
        Shape::Struct(members) => {
            let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
            for m in members {
                let key = type_key(m.arity.entity());
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                    cx.error_spanned_by(
                        m.ty,
                        format!(
                            "`{key}` is already collected by `{first}`: each entity type fills one field, since items \
                             are told apart by their entity type only"
                        ),
                    );
                    continue;
                }
                seen.push((key, m.ident));
            }
        }
        Shape::Enum(variants) => {
            let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
            for v in variants {
                let ident = v.ident;
                let Some(ty) = v.ty else {
                    cx.error_spanned_by(
                        v.node,
                        format!("variant `{ident}` must hold exactly one entity: `{ident}({ident})`"),
                    );
                    continue;
                };
                let key = type_key(ty);
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                    cx.error_spanned_by(ty, format!("`{key}` is already the entity of variant `{first}`"));
                    continue;
                }
                seen.push((key, ident));
            }
        }
        Shape::Unsupported => {
            cx.error_spanned_by(&input.ident, "#[derive(Collection)] needs a struct with named fields or an enum")
        }
    }
}

//! The checks of `#[entity(vector(...))]`: DynamoDB's shape of a vector index (its name, 1 to
//! 4,096 dimensions, a search schema of the struct's own fields, at most one `HASH`), on a
//! field that is `Vec<f32>` or `Option<Vec<f32>>`.

use crate::internals::ast::entity::Entity;
use crate::internals::ctxt::Ctxt;
use crate::internals::model::INDEX_NAME_CHARS;
use crate::internals::suggest;
use crate::internals::types;

/// DynamoDB's most dimensions of a vector index.
const MAX_DIMENSIONS: u64 = 4096;

/// Checks every field's vector index.
pub fn check(entity: &Entity, cx: &Ctxt) {
    let mut names: Vec<String> = Vec::new();
    for f in &entity.fields {
        let Some(v) = &f.vector else { continue };
        if !types::is_vector(f.ty) {
            cx.error_spanned_by(
                f.ty,
                format!(
                    "a vector index's field must be `Vec<f32>` or `Option<Vec<f32>>`: DynamoDB stores a vector as a \
                     list of 32-bit numbers (field `{}`)",
                    f.name
                ),
            );
        }
        if f.serde || f.unique.is_some() || !f.maintained.is_empty() || entity.is_key_field(&f.name) {
            cx.error_at(
                v.span,
                format!(
                    "field `{}` holds a vector: it cannot also be a key part, `serde`, `unique` or maintained by the library",
                    f.name
                ),
            );
        }
        if let Some(lit) = &v.index {
            let name = lit.value();
            let valid = INDEX_NAME_CHARS.contains(&name.len())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
            if !valid {
                cx.error_spanned_by(
                    lit,
                    "a vector index name is 3 to 255 characters of `a-z A-Z 0-9 _ . -` (DynamoDB's index names)",
                );
            }
            if names.contains(&name) {
                cx.error_spanned_by(lit, format!("vector index `{name}` is declared on two fields"));
            }
            names.push(name);
        }
        if let Some((lit, value)) = &v.dimensions {
            if !value.is_some_and(|n| (1..=MAX_DIMENSIONS).contains(&n)) {
                cx.error_spanned_by(
                    lit,
                    format!("a vector index has 1 to {MAX_DIMENSIONS} dimensions (DynamoDB's limits), not {lit}"),
                );
            }
        }
        let mut seen: Vec<String> = Vec::new();
        for ident in v.hash.iter().chain(&v.filters) {
            let name = syn::ext::IdentExt::unraw(ident).to_string();
            if seen.contains(&name) {
                cx.error_spanned_by(ident, format!("`{name}` is in the search schema twice"));
                continue;
            }
            seen.push(name.clone());
            if name == f.name {
                cx.error_spanned_by(
                    ident,
                    format!("`{name}` is the vector itself; the search schema holds other fields"),
                );
                continue;
            }
            match entity.fields.iter().find(|o| o.name == name) {
                Some(o) if entity.key_only(&o.name) => cx.error_spanned_by(
                    ident,
                    format!("field `{name}` is stored only inside the keys; a search schema attribute is an attribute of its own"),
                ),
                Some(o) if o.serde => cx.error_spanned_by(
                    ident,
                    format!("field `{name}` is stored through serde; a search schema attribute is a string, number or binary"),
                ),
                Some(o) => {
                    if let Some(why) = types::scalar_rejection(o.ty) {
                        cx.error_spanned_by(
                            ident,
                            format!(
                                "field `{name}` is {why}; a search schema attribute is a string, number or binary \
                                 (`String`, an integer, a float, `Vec<u8>` or a key part type)"
                            ),
                        );
                    }
                }
                None => {
                    let all: Vec<&str> = entity.fields.iter().map(|o| o.name.as_str()).collect();
                    let hint = suggest::closest(&name, all.iter().copied())
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                    cx.error_spanned_by(ident, format!("no field `{name}` in `{}`{hint}", entity.ident));
                }
            }
        }
    }
}

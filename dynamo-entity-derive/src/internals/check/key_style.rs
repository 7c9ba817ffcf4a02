//! The key style rules of `#[derive(Entity)]` (`key_case`, `key_values`, `<field:raw>`,
//! `#[entity(folded)]`), checked against the whole model.

use crate::internals::ast::entity::Entity;
use crate::internals::attr::key_style::KeyCase;
use crate::internals::ctxt::Ctxt;
use crate::internals::template::{self, Segment};
use crate::internals::types;

/// The key style rules:
/// * `<field:raw>` names an integer field (or an `Option` of one): only integers have a padded
///   form to leave out.
/// * `#[entity(folded)]` goes on a key field of an entity whose `key_case` folds.
/// * Under `key_fields = "keys"` and a case-folding `key_case`, a field stored only in keys is
///   read back in the key's case: it must be `#[entity(folded)]` (or an integer, which folding
///   does not change).
/// * A field's own `key_fields = "keys"` needs a key that always holds the field, and no
///   multi-attribute GSI keyed on it.
pub fn check(entity: &Entity, cx: &Ctxt) {
    for t in entity.templates() {
        let Some(parsed) = &t.parsed else { continue };
        for segment in &parsed.segments {
            let Segment::Field { name, range, raw: true, .. } = segment else { continue };
            let Some(field) = entity.field(name) else { continue };
            let ty = types::option_inner(field.ty).unwrap_or(field.ty);
            if !types::is_integer(ty) {
                cx.error_at(
                    template::span_of(&t.attr.lit, range),
                    format!(
                        "`<{name}:raw>` writes an integer without zero padding, but `{name}` is not an integer type; \
                         write `<{name}>`"
                    ),
                );
            }
        }
    }
    let style = &entity.attrs.key_style;
    for field in &entity.fields {
        let Some(span) = field.folded else { continue };
        if !style.folds_case() {
            cx.error_at(
                span,
                format!(
                    "`folded` reads `{}` back from a case-folded key in the key's case, but this entity's keys keep \
                     their case: remove `folded`, or declare the keys' case with `key_case = \"lower\"` (or \
                     `\"upper\"`)",
                    field.name
                ),
            );
        } else if !entity.is_key_field(&field.name) {
            cx.error_at(
                span,
                format!("`folded` applies to a field in a key template, and no key template holds `{}`", field.name),
            );
        }
    }
    // A field's own `key_fields = "keys"` needs a key that always holds it: otherwise nothing
    // would store the field.
    for field in &entity.fields {
        let Some((true, span)) = field.key_fields else { continue };
        let name = &field.name;
        if entity.is_multi_key_field(name) {
            cx.error_at(
                span,
                format!(
                    "`key_fields = \"keys\"` on `{name}`: a multi-attribute GSI is keyed on `{name}`, so its \
                     attribute is that index's key and is always written; remove `key_fields = \"keys\"`"
                ),
            );
        } else if !entity.held_by_key_text(name) {
            cx.error_at(
                span,
                format!(
                    "`key_fields = \"keys\"` on `{name}`: no key always holds `{name}` (it is in no key template, \
                     or only in ones with another `Option` part), so the field would not be stored at all; remove `key_fields = \"keys\"`"
                ),
            );
        }
    }
    // Key fields written only inside keys whose case is folded come back in the key's case:
    // each such field must say that it takes the value so.
    if let Some((case, _)) = &style.case {
        if *case != KeyCase::AsIs {
            let case_name = if *case == KeyCase::Lower { "lower" } else { "upper" };
            for field in &entity.fields {
                if !entity.in_keys_only(&field.name)
                    || entity.reads_folded(field)
                    || !entity.held_by_key_text(&field.name)
                {
                    continue;
                }
                cx.error_spanned_by(
                    field.ident,
                    format!(
                        "`{name}` is written only inside keys that `key_case = \"{case_name}\"` folds, so it would \
                         be read back in {case_name}case (`alice` for `Alice`): mark it `#[entity(folded)]` to take \
                         the value in the key's case, or remove `key_fields = \"keys\"` so that key fields are \
                         also stored as attributes, with their case",
                        name = field.name
                    ),
                );
            }
        }
    }
}

//! Key styles of `#[derive(Entity)]`: `key_case = "lower" | "upper" | "as_is"` and
//! `key_values = "escaped" | "verbatim"` on the struct, how they are parsed and checked, and
//! the runtime `KeyStyle` they become (see the runtime's `key::style`).

use proc_macro2::TokenStream;
use quote::quote;
use syn::LitStr;

use crate::internals::ast::entity::Entity;
use crate::internals::ctxt::Ctxt;
use crate::internals::template::{self, Segment};
use crate::internals::types;

/// The case keys are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum KeyCase {
    #[default]
    AsIs,
    Lower,
    Upper,
}

/// The struct's key style choices, each with the literal it was given by.
#[derive(Default, Clone)]
pub struct KeyStyleAttrs {
    /// `key_case = "..."`.
    pub case: Option<(KeyCase, LitStr)>,
    /// `key_values = "verbatim"`: values are not escaped, and a value holding `#` is refused.
    pub verbatim: Option<(bool, LitStr)>,
}

impl KeyStyleAttrs {
    /// Parses the value of `key_case`.
    pub fn set_case(&mut self, lit: LitStr, cx: &Ctxt) {
        let case = match lit.value().as_str() {
            "as_is" => KeyCase::AsIs,
            "lower" => KeyCase::Lower,
            "upper" => KeyCase::Upper,
            other => {
                cx.error_spanned_by(
                    &lit,
                    format!(
                        "unknown `key_case` value `{other}`: expected `\"as_is\"` (the default), `\"lower\"` (the \
                         whole key lowercased, as ElectroDB writes it) or `\"upper\"`"
                    ),
                );
                return;
            }
        };
        self.case = Some((case, lit));
    }

    /// Parses the value of `key_values`.
    pub fn set_values(&mut self, lit: LitStr, cx: &Ctxt) {
        let verbatim = match lit.value().as_str() {
            "escaped" => false,
            "verbatim" => true,
            other => {
                cx.error_spanned_by(
                    &lit,
                    format!(
                        "unknown `key_values` value `{other}`: expected `\"escaped\"` (the default: `#` and `%` \
                         inside a value are written `%23` and `%25`) or `\"verbatim\"` (values are written as they \
                         are, and a value holding `#` is refused, as for keys written by clients that never escape)"
                    ),
                );
                return;
            }
        };
        self.verbatim = Some((verbatim, lit));
    }

    pub fn case(&self) -> KeyCase {
        self.case.as_ref().map_or(KeyCase::AsIs, |(c, _)| *c)
    }

    pub fn folds_case(&self) -> bool {
        self.case() != KeyCase::AsIs
    }

    /// Literal text of a template in this style's case (the runtime folds only values).
    pub fn fold(&self, text: &str) -> String {
        match self.case() {
            KeyCase::AsIs => text.to_owned(),
            KeyCase::Lower => text.to_lowercase(),
            KeyCase::Upper => text.to_uppercase(),
        }
    }

    /// The runtime `KeyStyle` expression.
    pub fn expr(&self) -> TokenStream {
        let case = match self.case() {
            KeyCase::AsIs => quote!(__de::KeyCase::AsIs),
            KeyCase::Lower => quote!(__de::KeyCase::Lower),
            KeyCase::Upper => quote!(__de::KeyCase::Upper),
        };
        let escape = !self.verbatim.as_ref().is_some_and(|(v, _)| *v);
        quote!(__de::KeyStyle { case: #case, escape: #escape })
    }
}

/// The runtime segment of one parsed segment, literal text in the entity's case.
pub fn segment_expr(segment: &Segment, style: &KeyStyleAttrs) -> TokenStream {
    match segment {
        Segment::Literal(l) => {
            let l = style.fold(l);
            quote!(__de::Segment::Literal(#l))
        }
        Segment::Field { name, prefix, suffix, raw, .. } if prefix.is_empty() && suffix.is_empty() && !raw => {
            quote!(__de::Segment::Field(#name))
        }
        Segment::Field { name, prefix, suffix, raw, .. } => {
            let (prefix, suffix) = (style.fold(prefix), style.fold(suffix));
            quote!(__de::Segment::Part { prefix: #prefix, field: #name, suffix: #suffix, raw: #raw })
        }
        Segment::Shard { field, count, .. } => quote!(__de::Segment::Shard { field: #field, count: #count }),
    }
}

/// The key style rules:
/// * `<field:raw>` names an integer field (or an `Option` of one): only integers have a padded
///   form to leave out.
/// * `key_fields = "keys"` cannot go with a case-folding `key_case`: a key field would be
///   stored only in a key that has lost its case.
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
    if let (true, Some((_, lit))) = (entity.attrs.key_fields_in_keys, &entity.attrs.key_style.case) {
        if entity.attrs.key_style.folds_case() {
            cx.error_spanned_by(
                lit,
                "`key_case` folds the case of the values in keys, so a key field cannot be read back from its key: \
                 remove `key_fields = \"keys\"`, so key fields are also stored as attributes",
            );
        }
    }
}

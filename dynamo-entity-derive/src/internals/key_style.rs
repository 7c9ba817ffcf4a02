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
    /// `delimiter = "|"`: the character between the segments of every key of the entity.
    pub delimiter: Option<(char, LitStr)>,
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
                        "unknown `key_values` value `{other}`: expected `\"escaped\"` (the default: the delimiter \
                         and `%` inside a value are escaped, `#` as `%23` and `%` as `%25`) or `\"verbatim\"` \
                         (values are written as they are, and a value holding the delimiter is refused, as for keys \
                         written by clients that never escape)"
                    ),
                );
                return;
            }
        };
        self.verbatim = Some((verbatim, lit));
    }

    /// Parses the value of `delimiter`: one ASCII punctuation character, not `%` (the escape
    /// character) nor one of the placeholder syntax's characters.
    pub fn set_delimiter(&mut self, lit: LitStr, cx: &Ctxt) {
        let text = lit.value();
        let mut chars = text.chars();
        let problem = match (chars.next(), chars.next()) {
            (None, _) => Some("it is empty".to_owned()),
            (Some(_), Some(_)) => Some("a delimiter is one character".to_owned()),
            (Some(c), None) if c.is_ascii_alphanumeric() || c.is_whitespace() => Some(format!(
                "`{}` can be part of a value or of literal text, so the segments of a key could not be told apart",
                c.escape_default()
            )),
            (Some(c), None) if template::RESERVED_DELIMITERS.contains(c) => Some(if c == '%' {
                "`%` is the escape character of key parts".to_owned()
            } else {
                format!(
                    "`{c}` belongs to the placeholder syntax (`<field>`, `<field:raw>`, `<shard(field, N)>`, field \
                     names with `_`); for keys such as `USER_123`, write the literal around the placeholder in one \
                     segment: `USER_<id>`"
                )
            }),
            (Some(c), None) if !c.is_ascii_punctuation() => Some(format!("`{c}` is not ASCII punctuation")),
            (Some(_), None) => None,
        };
        match problem {
            Some(why) => cx.error_spanned_by(
                &lit,
                format!(
                    "invalid `delimiter` {:?}: {why}; the delimiter is one ASCII punctuation character other than \
                     `{}`, such as `\"|\"` or `\"/\"` (the default is `\"#\"`)",
                    text,
                    template::RESERVED_DELIMITERS
                ),
            ),
            None => self.delimiter = Some((text.chars().next().unwrap_or('#'), lit)),
        }
    }

    /// The character between the segments of the entity's keys (`#` by default).
    pub fn delimiter(&self) -> char {
        self.delimiter.as_ref().map_or('#', |(c, _)| *c)
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
        let delimiter = self.delimiter();
        quote!(__de::KeyStyle { case: #case, escape: #escape, delimiter: #delimiter })
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
/// * `#[entity(folded)]` goes on a key field of an entity whose `key_case` folds.
/// * Under `key_fields = "keys"` and a case-folding `key_case`, a field stored only in keys is
///   read back in the key's case: it must be `#[entity(folded)]` (or an integer, which folding
///   does not change).
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
    // Key fields written only inside keys whose case is folded come back in the key's case:
    // each such field must say that it takes the value so.
    if let (true, Some((case, _))) = (entity.attrs.key_fields_in_keys, &style.case) {
        if *case != KeyCase::AsIs {
            let case_name = if *case == KeyCase::Lower { "lower" } else { "upper" };
            for field in &entity.fields {
                if entity.reads_folded(field) || !entity.held_by_key_text(&field.name) {
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

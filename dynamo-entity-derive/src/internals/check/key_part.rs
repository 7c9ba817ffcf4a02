//! Validation of a `#[derive(KeyPart)]` model.

use syn::{DataStruct, Fields};

use crate::internals::ast::key_part::{KeyPart, Shape, Variant};
use crate::internals::ctxt::Ctxt;
use crate::internals::types::{self, KeyPartType};

/// What `#[derive(KeyPart)]` supports, for messages.
const SHAPE: &str = "`#[derive(KeyPart)]` supports newtypes (a struct with exactly one field, such as \
                     `struct SkillId(String);`) and field-less enums";

/// Checks a `KeyPart` type.
pub fn check(key_part: &KeyPart, cx: &Ctxt) {
    match &key_part.shape {
        Shape::Newtype(data) => {
            if let Some((_, span)) = &key_part.attrs.rename_all {
                cx.error_at(*span, "`rename_all` applies to enums only: a newtype is written as its field");
            }
            newtype(key_part, data, cx);
        }
        Shape::Enum(variants) => {
            let input = key_part.input;
            if !input.generics.params.is_empty() {
                cx.error_spanned_by(&input.generics, "`#[derive(KeyPart)]` does not support generic enums");
            }
            variant_names(variants, cx);
        }
    }
}

/// A newtype has exactly one field, without `#[key_part]`, of a type that can be a key part.
fn newtype(key_part: &KeyPart, data: &DataStruct, cx: &Ctxt) {
    let fields: Vec<&syn::Field> = data.fields.iter().collect();
    let [field] = fields.as_slice() else {
        match &data.fields {
            Fields::Unit => cx.error_spanned_by(&key_part.input.ident, format!("{SHAPE}; this struct has no field")),
            other => cx.error_spanned_by(other, format!("{SHAPE}; this struct has {} fields", fields.len())),
        }
        return;
    };
    for f in &data.fields {
        if let Some(attr) = f.attrs.iter().find(|a| a.path().is_ident("key_part")) {
            cx.error_spanned_by(attr, "a newtype's field takes no `#[key_part]` attribute: it is written as it is");
        }
    }
    if let KeyPartType::Rejected(reason) = types::key_part(&field.ty) {
        cx.error_spanned_by(&field.ty, format!("this field cannot be a key part: {reason}"));
    }
}

/// Each variant, in order: its attribute errors, then no fields, then a name that is non-empty,
/// free of `#` and `%`, and distinct from the other variants' names.
fn variant_names(variants: &[Variant], cx: &Ctxt) {
    let mut names: Vec<(&str, &syn::Ident)> = Vec::new();
    for v in variants {
        if let Some(e) = &v.attr_errors {
            cx.syn_error(e.clone());
        }
        if !matches!(v.node.fields, Fields::Unit) {
            cx.error_spanned_by(&v.node.fields, format!("{SHAPE}; variant `{}` has fields", v.ident));
            continue;
        }
        let (name, span) = (v.name.as_str(), v.name_span);
        if name.is_empty() {
            cx.error_at(span, "a variant's name cannot be empty: an empty key part would make keys ambiguous");
        } else if let Some(c) = name.chars().find(|&c| c == '#' || c == '%') {
            cx.error_at(
                span,
                format!("`{c}` cannot appear in a variant's name: `#` separates key parts and `%` escapes them"),
            );
        } else if let Some((_, other)) = names.iter().find(|(n, _)| *n == name) {
            cx.error_at(span, format!("`{}` and `{other}` would both be written as `{name}`", v.ident));
        } else {
            names.push((name, v.ident));
        }
    }
}

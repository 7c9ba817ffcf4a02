//! `#[entity(schema(version = N, from = Prev, attribute = "..."))]`: the entity's schema
//! version, the struct of the version before it, and the attribute that holds the version on
//! each item. Parsed here, checked by `check::schema`, expanded by `expand::entity::versions`; the
//! rules across the chain (the `from` struct is version `N - 1`, has the same type name, key
//! templates and version attribute) are constant checks of the expansion, since only the
//! compiler knows the other struct.

use syn::meta::ParseNestedMeta;
use syn::{Ident, LitInt, LitStr, Token};

use super::skip_value;
use crate::internals::ctxt::Ctxt;

/// The attribute that holds the version unless `attribute = "..."` names another (the
/// runtime's `SCHEMA_ATTRIBUTE`).
pub const DEFAULT_ATTRIBUTE: &str = "_schema";

const KEYS: &str = "`version = N`, `from = PreviousVersionStruct` and `attribute = \"...\"`";

/// A parsed `schema(...)`.
pub struct SchemaAttr {
    /// The `schema` key, for spans.
    pub key: Ident,
    /// `version = N`, when given as a valid number (1 or more).
    pub version: Option<u32>,
    /// `from = Prev`: the struct of version `N - 1`.
    pub from: Option<syn::Path>,
    /// `attribute = "..."`.
    pub attribute: Option<LitStr>,
}

impl SchemaAttr {
    /// The attribute that holds the version on each item.
    pub fn attribute_name(&self) -> String {
        self.attribute.as_ref().map_or_else(|| DEFAULT_ATTRIBUTE.to_owned(), LitStr::value)
    }
}

/// Parses the parenthesized part of `schema(...)`; records every problem in `cx`.
pub fn parse(meta: &ParseNestedMeta, key: Ident, cx: &Ctxt) -> syn::Result<Option<SchemaAttr>> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &key,
            "expected `schema(version = N)`: the entity's schema version, with `from = PreviousVersionStruct` for \
             version 2 and later",
        );
        skip_value(meta)?;
        return Ok(None);
    }
    let mut out = SchemaAttr { key: key.clone(), version: None, from: None, attribute: None };
    let mut seen: Vec<String> = Vec::new();
    let mut version_given = false;
    meta.parse_nested_meta(|inner| {
        let Some(ident) = inner.path.get_ident().cloned() else {
            cx.error_spanned_by(&inner.path, format!("unknown key in `schema(...)`; expected {KEYS}"));
            return skip_value(&inner);
        };
        let name = ident.to_string();
        if !matches!(name.as_str(), "version" | "from" | "attribute") {
            cx.error_spanned_by(&ident, format!("unknown key `{name}` in `schema(...)`; expected {KEYS}"));
            return skip_value(&inner);
        }
        if seen.contains(&name) {
            cx.error_spanned_by(&ident, format!("duplicate `{name}` in `schema(...)`"));
            return skip_value(&inner);
        }
        seen.push(name.clone());
        if !inner.input.peek(Token![=]) {
            cx.error_spanned_by(&ident, format!("expected `{name} = ...` in `schema(...)`"));
            return skip_value(&inner);
        }
        let value = inner.value()?;
        match name.as_str() {
            "version" => {
                version_given = true;
                let expr: syn::Expr = value.parse()?;
                let lit = match &expr {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(lit), .. }) => Some(lit.clone()),
                    _ => None,
                };
                out.version = version_number(lit.as_ref(), &expr, cx);
            }
            "from" => out.from = Some(value.parse()?),
            _ => {
                let expr: syn::Expr = value.parse()?;
                match expr {
                    syn::Expr::Lit(syn::ExprLit { lit: syn::Lit::Str(s), .. }) => out.attribute = Some(s),
                    other => cx.error_spanned_by(other, "expected a string literal: `attribute = \"...\"`"),
                }
            }
        }
        Ok(())
    })?;
    if !version_given {
        cx.error_spanned_by(&key, "missing `version = N` in `schema(...)`: the version this struct is, 1 or more");
    }
    if let (Some(1), Some(from)) = (out.version, &out.from) {
        cx.error_spanned_by(
            from,
            "version 1 is the first schema version: there is no earlier version to upgrade `from`; remove `from`, \
             or give this struct the version after the `from` struct's",
        );
    }
    Ok(Some(out))
}

/// The number of `version = N`, or `None` after recording why it is not a valid version.
fn version_number(lit: Option<&LitInt>, expr: &syn::Expr, cx: &Ctxt) -> Option<u32> {
    let Some(lit) = lit else {
        cx.error_spanned_by(expr, "expected an integer literal: `version = N`, 1 or more");
        return None;
    };
    match lit.base10_parse::<u32>() {
        Ok(0) => {
            cx.error_spanned_by(
                lit,
                "schema versions start at 1: version 0 would read as no version at all; the first version is \
                 `version = 1`",
            );
            None
        }
        Ok(n) => Some(n),
        Err(_) => {
            cx.error_spanned_by(lit, format!("schema version `{lit}` is not a number from 1 to {}", u32::MAX));
            None
        }
    }
}

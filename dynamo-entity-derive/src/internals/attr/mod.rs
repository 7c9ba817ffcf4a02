//! Parsing the derives' attributes: `#[entity(...)]`, `#[key_part(...)]` and `#[table(...)]`.
//!
//! Every problem is recorded in the [`Ctxt`] and parsing goes on with the next key, so that one
//! derive reports all of its mistakes at once.

pub mod entity;
pub mod key_part;
pub mod key_style;
pub mod schema;
pub mod table;
pub mod vector;

use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, Lit, LitStr, Token};

use crate::internals::ctxt::Ctxt;

/// Reads `= "..."` after `key`; records an error and returns `None` when it is not a string.
fn string_value(meta: &ParseNestedMeta, key: &str, cx: &Ctxt) -> syn::Result<Option<LitStr>> {
    if !meta.input.peek(Token![=]) {
        cx.error_spanned_by(&meta.path, format!("expected `{key} = \"...\"`"));
        skip_value(meta)?;
        return Ok(None);
    }
    let expr: Expr = meta.value()?.parse()?;
    match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Ok(Some(s)),
        other => {
            cx.error_spanned_by(other, format!("expected a string literal: `{key} = \"...\"`"));
            Ok(None)
        }
    }
}

/// Skips whatever follows an unknown key: `= expr` or `(...)`.
fn skip_value(meta: &ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::TokenTree = meta.input.parse()?;
    }
    Ok(())
}

/// The naming convention a `rename_all = "..."` literal names (serde's names); records an error
/// spanned on the literal, with the closest name, for an unknown one.
fn case_value(lit: &LitStr, cx: &Ctxt) -> Option<crate::internals::case::Case> {
    use crate::internals::case::{CASES, Case};
    use crate::internals::suggest;
    let value = lit.value();
    let case = Case::from_name(&value);
    if case.is_none() {
        let names: Vec<&str> = CASES.iter().map(|(n, _)| *n).collect();
        let hint = suggest::closest(&value, names.iter().copied())
            .map(|s| format!("did you mean `{s}`? "))
            .unwrap_or_default();
        cx.error_spanned_by(
            lit,
            format!("unknown `rename_all` convention `{value}`; {hint}expected one of {}", suggest::list(&names)),
        );
    }
    case
}

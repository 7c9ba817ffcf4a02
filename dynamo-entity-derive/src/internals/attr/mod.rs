//! Parsing the derives' attributes: `#[entity(...)]`, `#[key_part(...)]` and `#[table(...)]`.
//!
//! Every problem is recorded in the [`Ctxt`] and parsing goes on with the next key, so that one
//! derive reports all of its mistakes at once.

pub mod entity;
pub mod key_part;
pub mod table;

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

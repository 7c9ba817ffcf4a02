//! Parsing a field's `#[entity(vector(index = "...", dimensions = N, distance = cosine,
//! hash = field, filters(field, ...)))]`: a vector index on the field, in DynamoDB's shape.

use proc_macro2::Span;
use syn::meta::ParseNestedMeta;
use syn::{Expr, ExprLit, Ident, Lit, LitInt, LitStr};

use super::{skip_value, string_value};
use crate::internals::ctxt::Ctxt;
use crate::internals::suggest;

/// The distance functions, by the name written (`cosine`) and DynamoDB's (`COSINE`).
pub const DISTANCES: [(&str, &str); 3] =
    [("cosine", "Cosine"), ("euclidean", "Euclidean"), ("dot_product", "DotProduct")];

const KEYS: [&str; 5] = ["index", "dimensions", "distance", "hash", "filters"];

/// A parsed `vector(...)`.
pub struct VectorAttr {
    /// The span of `vector`.
    pub span: Span,
    pub index: Option<LitStr>,
    /// The dimensions as written, and their value (`None` when not an integer literal).
    pub dimensions: Option<(LitInt, Option<u64>)>,
    /// The runtime `Distance` variant's name.
    pub distance: Option<&'static str>,
    pub hash: Option<Ident>,
    pub filters: Vec<Ident>,
}

/// Parses the inside of `vector(...)`.
pub fn parse(meta: &ParseNestedMeta, span: Span, cx: &Ctxt) -> syn::Result<VectorAttr> {
    let mut out = VectorAttr { span, index: None, dimensions: None, distance: None, hash: None, filters: Vec::new() };
    let mut seen: Vec<String> = Vec::new();
    meta.parse_nested_meta(|inner| {
        let Some(ident) = inner.path.get_ident().cloned() else {
            cx.error_spanned_by(&inner.path, format!("unknown key; expected {}", suggest::list(&KEYS)));
            return skip_value(&inner);
        };
        let key = ident.to_string();
        if !KEYS.contains(&key.as_str()) {
            let hint = suggest::closest(&key, KEYS.iter().copied())
                .map(|s| format!("did you mean `{s}`? "))
                .unwrap_or_default();
            cx.error_spanned_by(
                &ident,
                format!("unknown key `{key}` in `vector(...)`; {hint}expected {}", suggest::list(&KEYS)),
            );
            return skip_value(&inner);
        }
        if seen.contains(&key) {
            cx.error_spanned_by(&ident, format!("duplicate `{key}`"));
            return skip_value(&inner);
        }
        seen.push(key.clone());
        match key.as_str() {
            "index" => out.index = string_value(&inner, "index", cx)?,
            "dimensions" => {
                let expr: Expr = inner.value()?.parse()?;
                match expr {
                    Expr::Lit(ExprLit { lit: Lit::Int(n), .. }) => {
                        let value = n.base10_parse::<u64>().ok();
                        out.dimensions = Some((n, value));
                    }
                    other => cx.error_spanned_by(other, "expected an integer: `dimensions = 768`"),
                }
            }
            "distance" => {
                let expr: Expr = inner.value()?.parse()?;
                let name = match &expr {
                    Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
                    _ => None,
                };
                match name.as_deref().and_then(|n| DISTANCES.iter().find(|(w, _)| *w == n)) {
                    Some((_, variant)) => out.distance = Some(variant),
                    None => {
                        let names: Vec<&str> = DISTANCES.iter().map(|(w, _)| *w).collect();
                        let hint = name
                            .as_deref()
                            .and_then(|n| suggest::closest(&n.to_ascii_lowercase(), names.iter().copied()))
                            .map(|s| format!("did you mean `{s}`? "))
                            .unwrap_or_default();
                        cx.error_spanned_by(
                            &expr,
                            format!(
                                "unknown distance function; {hint}expected {} (DynamoDB's COSINE, EUCLIDEAN, DOT_PRODUCT)",
                                suggest::list(&names)
                            ),
                        );
                    }
                }
            }
            "hash" => {
                let expr: Expr = inner.value()?.parse()?;
                match &expr {
                    Expr::Path(p) if p.path.get_ident().is_some() => out.hash = p.path.get_ident().cloned(),
                    _ => cx.error_spanned_by(&expr, "expected a field name: `hash = tenant`"),
                }
            }
            _ => {
                inner.parse_nested_meta(|f| {
                    match f.path.get_ident() {
                        Some(i) => out.filters.push(i.clone()),
                        None => cx.error_spanned_by(&f.path, "expected a field name: `filters(lang, status)`"),
                    }
                    Ok(())
                })?;
            }
        }
        Ok(())
    })?;
    // A key written with a wrong value has its own error; only a key not written is missing.
    let missing = |key: &str| !seen.iter().any(|k| k == key);
    if missing("index") {
        cx.error_at(span, "`vector(...)` needs `index = \"...\"`: the vector index's name");
    }
    if missing("dimensions") {
        cx.error_at(span, "`vector(...)` needs `dimensions = N`: the number of elements of every vector (1 to 4096)");
    }
    if missing("distance") {
        cx.error_at(span, "`vector(...)` needs `distance = cosine`, `euclidean` or `dot_product`");
    }
    Ok(out)
}

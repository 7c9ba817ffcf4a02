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

/// The error for a `distance = ...` that names no distance function: the accepted names, and a
/// hint naming the right spelling when the value is one of them in another case, quoted
/// (`"cosine"`, `"COSINE"`), or a likely typo.
fn distance_error(expr: &Expr, ident: Option<&str>) -> String {
    let names: Vec<&str> = DISTANCES.iter().map(|(w, _)| *w).collect();
    let quoted = match expr {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Some(s.value()),
        _ => None,
    };
    let written = quoted.as_deref().or(ident);
    let exact = written.and_then(|w| names.iter().copied().find(|n| n.eq_ignore_ascii_case(w)));
    let hint = match (&quoted, exact) {
        (Some(q), Some(n)) => format!("write `distance = {n}`, a name, not the string \"{q}\"; "),
        (Some(_), None) => "the distance function is a name, not a string; ".to_owned(),
        (None, Some(n)) => format!("did you mean `{n}`? "),
        (None, None) => written
            .and_then(|w| suggest::closest(&w.to_ascii_lowercase(), names.iter().copied()))
            .map(|s| format!("did you mean `{s}`? "))
            .unwrap_or_default(),
    };
    format!(
        "unknown distance function; {hint}expected one of {} (DynamoDB's COSINE, EUCLIDEAN or DOT_PRODUCT)",
        suggest::list_or(&names)
    )
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
                    None => cx.error_spanned_by(&expr, distance_error(&expr, name.as_deref())),
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

#[cfg(test)]
mod tests {
    use super::*;

    fn error(value: &str) -> String {
        let expr: Expr = syn::parse_str(value).unwrap();
        let ident = match &expr {
            Expr::Path(p) => p.path.get_ident().map(ToString::to_string),
            _ => None,
        };
        distance_error(&expr, ident.as_deref())
    }

    #[test]
    fn distance_errors_name_the_right_spelling() {
        let tail =
            "expected one of `cosine`, `euclidean` or `dot_product` (DynamoDB's COSINE, EUCLIDEAN or DOT_PRODUCT)";
        assert_eq!(
            error("\"cosine\""),
            format!("unknown distance function; write `distance = cosine`, a name, not the string \"cosine\"; {tail}")
        );
        assert_eq!(
            error("\"DOT_PRODUCT\""),
            format!(
                "unknown distance function; write `distance = dot_product`, a name, not the string \"DOT_PRODUCT\"; \
                 {tail}"
            )
        );
        assert_eq!(
            error("\"manhattan\""),
            format!("unknown distance function; the distance function is a name, not a string; {tail}")
        );
        assert_eq!(error("COSINE"), format!("unknown distance function; did you mean `cosine`? {tail}"));
        assert_eq!(error("euclidian"), format!("unknown distance function; did you mean `euclidean`? {tail}"));
        assert_eq!(error("l1"), format!("unknown distance function; {tail}"));
        assert_eq!(error("3"), format!("unknown distance function; {tail}"));
    }
}

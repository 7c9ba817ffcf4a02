//! Parsing `#[key_part(...)]` on a `#[derive(KeyPart)]` enum and its variants.

use proc_macro2::Span;
use syn::{Attribute, LitStr};

use super::{skip_value, string_value};
use crate::internals::case::Case;
use crate::internals::ctxt::Ctxt;

/// The container's `#[key_part(...)]`.
pub struct ContainerAttrs {
    /// `rename_all = "..."`, with the span of `rename_all`.
    pub rename_all: Option<(Case, Span)>,
}

/// Parses the enum's (or newtype's) `#[key_part(...)]`: `rename_all = "..."`.
pub fn container_attrs(attrs: &[Attribute], cx: &Ctxt) -> ContainerAttrs {
    let mut out = ContainerAttrs { rename_all: None };
    let mut seen = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("key_part")) {
        let result = attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("rename_all") {
                let message = if meta.path.is_ident("rename") {
                    "`rename` belongs on a variant; on the enum, use `rename_all = \"...\"`".to_owned()
                } else {
                    "unknown key; expected `rename_all = \"...\"`".to_owned()
                };
                cx.error_spanned_by(&meta.path, message);
                return skip_value(&meta);
            }
            if seen {
                cx.error_spanned_by(&meta.path, "duplicate `rename_all`");
                return skip_value(&meta);
            }
            seen = true;
            let Some(lit) = string_value(&meta, "rename_all", cx)? else {
                return Ok(());
            };
            if let Some(case) = super::case_value(&lit, cx) {
                out.rename_all = Some((case, meta.path.get_ident().map_or(lit.span(), |i| i.span())));
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

/// Parses a variant's `#[key_part(...)]`: `rename = "..."`.
pub fn variant_rename(attrs: &[Attribute], cx: &Ctxt) -> Option<LitStr> {
    let mut out = None;
    let mut seen = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("key_part")) {
        let result = attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("rename") {
                cx.error_spanned_by(&meta.path, "unknown key; expected `rename = \"...\"`");
                return skip_value(&meta);
            }
            if seen {
                cx.error_spanned_by(&meta.path, "duplicate `rename`");
                return skip_value(&meta);
            }
            seen = true;
            out = string_value(&meta, "rename", cx)?;
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

//! The model of a `#[derive(KeyPart)]` type: a newtype or a field-less enum.

use proc_macro2::Span;
use syn::{Data, DataStruct, DeriveInput, Ident};

use crate::internals::attr::key_part::{self as attr, ContainerAttrs};
use crate::internals::case::Case;
use crate::internals::ctxt::Ctxt;

/// A type deriving `KeyPart`.
pub struct KeyPart<'a> {
    pub input: &'a DeriveInput,
    pub attrs: ContainerAttrs,
    pub shape: Shape<'a>,
}

/// What the type is; a union is refused while building the model.
pub enum Shape<'a> {
    /// A struct, which must have exactly one field (checked).
    Newtype(&'a DataStruct),
    /// An enum, whose variants must have no fields (checked).
    Enum(Vec<Variant<'a>>),
}

/// One enum variant and the name it is written as.
pub struct Variant<'a> {
    pub node: &'a syn::Variant,
    pub ident: &'a Ident,
    /// The errors of the variant's `#[key_part(...)]`, reported by the check together with the
    /// variant's other problems, so that every problem is reported in source order.
    pub attr_errors: Option<syn::Error>,
    /// The written name: the rename, or the variant name under `rename_all` (default
    /// `snake_case`).
    pub name: String,
    /// The span to report the name on: the rename literal, or the variant name.
    pub name_span: Span,
}

impl<'a> KeyPart<'a> {
    /// Builds the model; `None` for a union (an error is recorded).
    pub fn from_syn(input: &'a DeriveInput, cx: &Ctxt) -> Option<KeyPart<'a>> {
        let attrs = attr::container_attrs(&input.attrs, cx);
        let shape = match &input.data {
            Data::Struct(s) => Shape::Newtype(s),
            Data::Enum(e) => {
                let case = attrs.rename_all.map_or(Case::Snake, |(c, _)| c);
                let variants = e
                    .variants
                    .iter()
                    .map(|v| {
                        let vcx = Ctxt::new();
                        let rename = attr::variant_rename(&v.attrs, &vcx);
                        let (name, name_span) = match &rename {
                            Some(lit) => (lit.value(), lit.span()),
                            None => (case.apply(&syn::ext::IdentExt::unraw(&v.ident).to_string()), v.ident.span()),
                        };
                        Variant { node: v, ident: &v.ident, attr_errors: vcx.check().err(), name, name_span }
                    })
                    .collect();
                Shape::Enum(variants)
            }
            Data::Union(_) => {
                cx.error_spanned_by(
                    &input.ident,
                    "`#[derive(KeyPart)]` supports newtypes (a struct with one field) and field-less enums, not unions",
                );
                return None;
            }
        };
        Some(KeyPart { input, attrs, shape })
    }
}

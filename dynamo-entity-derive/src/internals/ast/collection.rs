//! The model of a `#[derive(Collection)]` type: a struct with one field per entity type, or an
//! enum with one variant per entity type.

use quote::quote;
use syn::{Data, DeriveInput, Fields, Ident, Type};

use crate::internals::types::option_inner;

/// A type deriving `Collection`.
pub struct Collection<'a> {
    pub input: &'a DeriveInput,
    pub shape: Shape<'a>,
}

/// What the type is.
pub enum Shape<'a> {
    /// A struct with named fields: `Collection`.
    Struct(Vec<Member<'a>>),
    /// An enum: `EntityEnum`.
    Enum(Vec<Variant<'a>>),
    /// A tuple or unit struct, or a union: an error of the check.
    Unsupported,
}

/// A struct field taking the collection's items of one entity type.
pub struct Member<'a> {
    pub ident: &'a Ident,
    /// The field's type as written.
    pub ty: &'a Type,
    pub arity: Arity<'a>,
}

/// How a struct field takes the collection's items of its entity type.
pub enum Arity<'a> {
    /// `E`: exactly one item, required.
    One(&'a Type),
    /// `Option<E>`: at most one.
    Maybe(&'a Type),
    /// `Vec<E>`: any number, in sort-key order.
    Many(&'a Type),
}

impl<'a> Arity<'a> {
    fn of(ty: &'a Type) -> Arity<'a> {
        if let Some(t) = vec_inner(ty) {
            Arity::Many(t)
        } else if let Some(t) = option_inner(ty) {
            Arity::Maybe(t)
        } else {
            Arity::One(ty)
        }
    }

    /// The entity type.
    pub fn entity(&self) -> &'a Type {
        match self {
            Arity::One(t) | Arity::Maybe(t) | Arity::Many(t) => t,
        }
    }
}

/// An enum variant holding one entity.
pub struct Variant<'a> {
    pub node: &'a syn::Variant,
    pub ident: &'a Ident,
    /// The entity type; `None` when the variant does not hold exactly one unnamed field (an
    /// error of the check).
    pub ty: Option<&'a Type>,
}

impl<'a> Collection<'a> {
    /// Builds the model; its errors are the check's.
    pub fn from_syn(input: &'a DeriveInput) -> Collection<'a> {
        let shape = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(fields) => Shape::Struct(
                    fields
                        .named
                        .iter()
                        .filter_map(|f| Some(Member { ident: f.ident.as_ref()?, ty: &f.ty, arity: Arity::of(&f.ty) }))
                        .collect(),
                ),
                _ => Shape::Unsupported,
            },
            Data::Enum(e) => Shape::Enum(
                e.variants
                    .iter()
                    .map(|v| Variant {
                        node: v,
                        ident: &v.ident,
                        ty: match &v.fields {
                            Fields::Unnamed(u) if u.unnamed.len() == 1 => Some(&u.unnamed[0].ty),
                            _ => None,
                        },
                    })
                    .collect(),
            ),
            Data::Union(_) => Shape::Unsupported,
        };
        Collection { input, shape }
    }
}

/// `T` for `Vec<T>` written as a path ending in `Vec`.
fn vec_inner(ty: &Type) -> Option<&Type> {
    let Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Vec" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match a.args.first() {
            Some(syn::GenericArgument::Type(t)) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// A type as written, to tell entity types apart.
pub fn type_key(ty: &Type) -> String {
    quote!(#ty).to_string()
}

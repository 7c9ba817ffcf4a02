//! `#[derive(Collection)]`: a struct filled from one item collection, or an enum over entity
//! types that decodes any item of those types by its entity type attribute.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, Type};

use crate::errors::Errors;
use crate::types::option_inner;

/// How a struct field takes the collection's items of its entity type.
enum Arity<'a> {
    /// `E`: exactly one item, required.
    One(&'a Type),
    /// `Option<E>`: at most one.
    Maybe(&'a Type),
    /// `Vec<E>`: any number, in sort-key order.
    Many(&'a Type),
}

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

fn arity(ty: &Type) -> Arity<'_> {
    if let Some(t) = vec_inner(ty) {
        Arity::Many(t)
    } else if let Some(t) = option_inner(ty) {
        Arity::Maybe(t)
    } else {
        Arity::One(ty)
    }
}

fn entity_of<'a>(a: &Arity<'a>) -> &'a Type {
    match a {
        Arity::One(t) | Arity::Maybe(t) | Arity::Many(t) => t,
    }
}

fn type_key(ty: &Type) -> String {
    quote!(#ty).to_string()
}

/// Expands `#[derive(Collection)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    if !input.generics.params.is_empty() {
        errors.spanned(&input.generics, "generic collections are not supported");
    }
    let name = &input.ident;
    let name_str = name.to_string();
    let body = match &input.data {
        Data::Struct(s) => match &s.fields {
            Fields::Named(fields) => {
                let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
                let mut decls = Vec::new();
                let mut arms = Vec::new();
                let mut finish = Vec::new();
                let mut types = Vec::new();
                // The entities of one collection share a table, so its first entity's attribute
                // names name the type attribute of all of them.
                let mut names = quote!(&::dynamo_entity::__private::AttributeNames::DEFAULT);
                for f in &fields.named {
                    let Some(ident) = &f.ident else { continue };
                    let field_str = ident.to_string();
                    let a = arity(&f.ty);
                    let entity = entity_of(&a);
                    let key = type_key(entity);
                    if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                        errors.spanned(
                            &f.ty,
                            format!(
                                "`{key}` is already collected by `{first}`: each entity type fills one field, since \
                                 items are told apart by their entity type only"
                            ),
                        );
                        continue;
                    }
                    if seen.is_empty() {
                        names = quote!(<#entity as ::dynamo_entity::__private::Entity>::NAMES);
                    }
                    seen.push((key, ident));
                    let span = f.ty.span();
                    types.push(quote_spanned!(span=> <#entity as ::dynamo_entity::__private::Entity>::TYPE));
                    let (decl, arm, done) = match a {
                        Arity::One(_) | Arity::Maybe(_) => (
                            quote!(let mut #ident: ::core::option::Option<#entity> = ::core::option::Option::None;),
                            quote!(::dynamo_entity::__private::collect_one(&mut #ident, item, #name_str, #field_str)?),
                            if matches!(a, Arity::One(_)) {
                                quote!(#ident: ::dynamo_entity::__private::required(#ident, #name_str, #field_str, <#entity as ::dynamo_entity::__private::Entity>::TYPE, items)?)
                            } else {
                                quote!(#ident)
                            },
                        ),
                        Arity::Many(_) => (
                            quote!(let mut #ident: ::std::vec::Vec<#entity> = ::std::vec::Vec::new();),
                            quote!(#ident.push(<#entity as ::dynamo_entity::__private::Entity>::from_item(item)?)),
                            quote!(#ident),
                        ),
                    };
                    decls.push(decl);
                    arms.push(quote_spanned! {span=>
                        if ty == ::core::option::Option::Some(<#entity as ::dynamo_entity::__private::Entity>::TYPE) { #arm; continue; }
                    });
                    finish.push(done);
                }
                quote! {
                    #[automatically_derived]
                    impl ::dynamo_entity::collection::FromCollection for #name {
                        const TYPES: &'static [&'static str] = &[#(#types),*];
                        fn from_items(
                            items: &[::dynamo_entity::__private::Item],
                            unknown: ::dynamo_entity::collection::Unknown,
                        ) -> ::core::result::Result<Self, ::dynamo_entity::__private::Error> {
                            #(#decls)*
                            for item in items {
                                let ty = ::dynamo_entity::__private::type_of_named(item, #names.entity_type);
                                #(#arms)*
                                ::dynamo_entity::__private::unknown_item_named(item, #names, #name_str, unknown)?;
                            }
                            ::core::result::Result::Ok(Self { #(#finish),* })
                        }
                    }
                }
            }
            _ => {
                errors.spanned(name, "#[derive(Collection)] needs a struct with named fields or an enum");
                TokenStream::new()
            }
        },
        Data::Enum(e) => {
            let mut seen: Vec<(String, &syn::Ident)> = Vec::new();
            let mut arms = Vec::new();
            let mut types = Vec::new();
            // The variants' entities share a table: the first one's names name its type attribute.
            let mut names = quote!(&::dynamo_entity::__private::AttributeNames::DEFAULT);
            for v in &e.variants {
                let ident = &v.ident;
                let ty = match &v.fields {
                    Fields::Unnamed(u) if u.unnamed.len() == 1 => &u.unnamed[0].ty,
                    _ => {
                        errors
                            .spanned(v, format!("variant `{ident}` must hold exactly one entity: `{ident}({ident})`"));
                        continue;
                    }
                };
                let key = type_key(ty);
                if let Some((_, first)) = seen.iter().find(|(k, _)| *k == key) {
                    errors.spanned(ty, format!("`{key}` is already the entity of variant `{first}`"));
                    continue;
                }
                if seen.is_empty() {
                    names = quote!(<#ty as ::dynamo_entity::__private::Entity>::NAMES);
                }
                seen.push((key, ident));
                let span = ty.span();
                types.push(quote_spanned!(span=> <#ty as ::dynamo_entity::__private::Entity>::TYPE));
                arms.push(quote_spanned! {span=>
                    if ty == ::core::option::Option::Some(<#ty as ::dynamo_entity::__private::Entity>::TYPE) {
                        return <#ty as ::dynamo_entity::__private::Entity>::from_item(item)
                            .map(|v| ::core::option::Option::Some(Self::#ident(v)));
                    }
                });
            }
            quote! {
                #[automatically_derived]
                impl ::dynamo_entity::collection::EntityEnum for #name {
                    const TYPES: &'static [&'static str] = &[#(#types),*];
                    const NAMES: &'static ::dynamo_entity::AttributeNames = #names;
                    fn decode(
                        item: &::dynamo_entity::__private::Item,
                    ) -> ::core::result::Result<::core::option::Option<Self>, ::dynamo_entity::__private::Error> {
                        let ty = ::dynamo_entity::__private::type_of_named(item, Self::NAMES.entity_type);
                        #(#arms)*
                        ::core::result::Result::Ok(::core::option::Option::None)
                    }
                }
            }
        }
        Data::Union(_) => {
            errors.spanned(name, "#[derive(Collection)] needs a struct with named fields or an enum");
            TokenStream::new()
        }
    };
    match errors.into_compile_errors() {
        // A stub impl keeps one mistake from turning into "trait not implemented" errors at
        // every use of the type.
        Some(e) if input.generics.params.is_empty() => {
            let stub = match &input.data {
                Data::Enum(_) => quote! {
                    impl ::dynamo_entity::collection::EntityEnum for #name {
                        const TYPES: &'static [&'static str] = &[];
                        fn decode(
                            _: &::dynamo_entity::__private::Item,
                        ) -> ::core::result::Result<::core::option::Option<Self>, ::dynamo_entity::__private::Error> {
                            ::core::unreachable!()
                        }
                    }
                },
                _ => quote! {
                    impl ::dynamo_entity::collection::FromCollection for #name {
                        const TYPES: &'static [&'static str] = &[];
                        fn from_items(
                            _: &[::dynamo_entity::__private::Item],
                            _: ::dynamo_entity::collection::Unknown,
                        ) -> ::core::result::Result<Self, ::dynamo_entity::__private::Error> {
                            ::core::unreachable!()
                        }
                    }
                },
            };
            quote!(#e #stub)
        }
        Some(e) => e,
        None => body,
    }
}

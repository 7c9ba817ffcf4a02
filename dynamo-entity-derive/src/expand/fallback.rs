//! What a failed derive emits next to its errors: the items it would have generated, with the
//! right shape, so that one mistake gives one error.
//!
//! Without them, every use of the type as an `Entity` (or a `KeyPart`, ...) elsewhere would add
//! an error of its own. The stubs are never run: code using them cannot compile.

use proc_macro2::TokenStream;
use quote::quote;
use syn::{Data, DeriveInput};

/// `impl Entity` with unreachable bodies; nothing for a generic type (it could not satisfy the
/// trait's `'static` bound without guessing).
pub fn entity(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let ident = &input.ident;
    let name = syn::ext::IdentExt::unraw(ident).to_string();
    quote! {
        const _: () = {
            use ::dynamo_entity::__private as __de;
            #[automatically_derived]
            impl __de::Entity for #ident {
                const TYPE: &'static str = #name;
                // Empty templates: the checks of `#[derive(TableDef)]` skip this entity.
                const SCHEMA: &'static __de::EntitySchema = &__de::failed_schema(#name);
                fn to_item(&self) -> __de::Result<__de::Item, __de::Error> {
                    ::core::unreachable!()
                }
                fn from_item(_: &__de::Item) -> __de::Result<Self, __de::Error> {
                    ::core::unreachable!()
                }
                fn primary_key(&self) -> __de::Result<__de::PrimaryKey, __de::Error> {
                    ::core::unreachable!()
                }
                fn gsi_keys(&self) -> __de::Result<::std::vec::Vec<(&'static str, __de::AttributeValue)>, __de::Error> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// `impl KeyPart` and `impl Attribute` with unreachable bodies.
pub fn key_part(input: &DeriveInput) -> TokenStream {
    let ident = &input.ident;
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    quote! {
        const _: () = {
            use ::dynamo_entity::__private as __de;
            #[automatically_derived]
            impl #impl_generics __de::KeyPart for #ident #ty_generics #where_clause {
                type Arg = Self;
                fn write_part(
                    &self,
                    _: &mut ::std::string::String,
                    _: __de::PartForm,
                ) -> __de::Result<bool, __de::KeyPartError> {
                    ::core::unreachable!()
                }
                fn parse_part(_: &str, _: __de::PartForm) -> __de::Result<Self, __de::KeyPartError> {
                    ::core::unreachable!()
                }
            }
            #[automatically_derived]
            impl #impl_generics __de::Attribute for #ident #ty_generics #where_clause {
                fn to_attribute(&self) -> __de::Result<::core::option::Option<__de::AttributeValue>, __de::ValueError> {
                    ::core::unreachable!()
                }
                fn from_attribute(
                    _: ::core::option::Option<&__de::AttributeValue>,
                ) -> __de::Result<Self, __de::ValueError> {
                    ::core::unreachable!()
                }
            }
        };
    }
}

/// `impl Collection` (or `impl EntityEnum` for an enum) with an unreachable body; nothing
/// for a generic type.
pub fn collection(input: &DeriveInput) -> TokenStream {
    if !input.generics.params.is_empty() {
        return TokenStream::new();
    }
    let name = &input.ident;
    match &input.data {
        Data::Enum(_) => quote! {
            impl ::dynamo_entity::EntityEnum for #name {
                const TYPES: &'static [&'static str] = &[];
                fn decode(
                    _: &::dynamo_entity::__private::Item,
                ) -> ::core::result::Result<::core::option::Option<Self>, ::dynamo_entity::__private::Error> {
                    ::core::unreachable!()
                }
            }
        },
        _ => quote! {
            impl ::dynamo_entity::Collection for #name {
                const TYPES: &'static [&'static str] = &[];
                fn from_items(
                    _: &[::dynamo_entity::__private::Item],
                    _: ::dynamo_entity::collection::Unknown,
                ) -> ::core::result::Result<Self, ::dynamo_entity::__private::Error> {
                    ::core::unreachable!()
                }
            }
        },
    }
}

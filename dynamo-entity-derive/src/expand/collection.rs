//! `#[derive(Collection)]`: a struct filled from one item collection, or an enum over entity
//! types that decodes any item of those types by its entity type attribute.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::DeriveInput;
use syn::spanned::Spanned;

use crate::expand::fallback;
use crate::internals::ast::collection::{Arity, Collection, Member, Shape, Variant};
use crate::internals::ctxt::Ctxt;
use crate::pipeline::Derive;

impl<'a> Derive<'a> for Collection<'a> {
    fn from_syn(input: &'a DeriveInput, _: &Ctxt) -> Option<Self> {
        Some(Collection::from_syn(input))
    }

    fn check(&self, cx: &Ctxt) {
        crate::internals::check::collection::check(self, cx);
    }

    fn expand(&self) -> TokenStream {
        let name = &self.input.ident;
        match &self.shape {
            Shape::Struct(members) => from_collection(name, members),
            Shape::Enum(variants) => entity_enum(name, variants),
            Shape::Unsupported => unreachable!("checked: a struct with named fields or an enum"),
        }
    }

    fn fallback(input: &'a DeriveInput, _: Option<&Self>) -> TokenStream {
        fallback::collection(input)
    }
}

/// `impl Collection`: one local per field, filled by entity type in one pass over the items.
fn from_collection(name: &syn::Ident, members: &[Member]) -> TokenStream {
    let name_str = name.to_string();
    let mut decls = Vec::new();
    let mut arms = Vec::new();
    let mut finish = Vec::new();
    let mut types = Vec::new();
    let mut schemas = Vec::new();
    // The entities of one collection share a table, so its first entity's attribute names name
    // the type attribute of all of them.
    let mut names = quote!(&::dynamo_entity::__private::AttributeNames::DEFAULT);
    for (i, m) in members.iter().enumerate() {
        let ident = m.ident;
        let field_str = ident.to_string();
        let entity = m.arity.entity();
        if i == 0 {
            names = quote!(<#entity as ::dynamo_entity::__private::Entity>::NAMES);
        }
        let span = m.ty.span();
        types.push(quote_spanned!(span=> <#entity as ::dynamo_entity::__private::Entity>::TYPE));
        schemas.push(quote_spanned!(span=> <#entity as ::dynamo_entity::__private::Entity>::SCHEMA));
        let (decl, arm, done) = match m.arity {
            Arity::One(_) | Arity::Maybe(_) => (
                quote!(let mut #ident: ::core::option::Option<#entity> = ::core::option::Option::None;),
                quote!(::dynamo_entity::__private::collect_one(&mut #ident, item, #name_str, #field_str)?),
                if matches!(m.arity, Arity::One(_)) {
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
        // Which listed entity an item is, the library's one rule decides (`owner::dispatch`).
        arms.push(quote_spanned! {span=>
            ::core::option::Option::Some(#i) => { #arm; }
        });
        finish.push(done);
    }
    quote! {
        #[automatically_derived]
        impl ::dynamo_entity::Collection for #name {
            const TYPES: &'static [&'static str] = &[#(#types),*];
            fn from_items(
                items: &[::dynamo_entity::__private::Item],
                unknown: ::dynamo_entity::collection::Unknown,
            ) -> ::core::result::Result<Self, ::dynamo_entity::__private::Error> {
                #(#decls)*
                let __schemas: &[&'static ::dynamo_entity::__private::EntitySchema] = &[#(#schemas),*];
                for item in items {
                    let ty = ::dynamo_entity::__private::type_of_named(item, #names.entity_type);
                    match ::dynamo_entity::__private::dispatch(item, ty, #names, __schemas)? {
                        #(#arms)*
                        _ => ::dynamo_entity::__private::unknown_item_named(item, #names, #name_str, unknown)?,
                    }
                }
                ::core::result::Result::Ok(Self { #(#finish),* })
            }
        }
    }
}

/// `impl EntityEnum`: the variant whose entity type the item has.
fn entity_enum(name: &syn::Ident, variants: &[Variant]) -> TokenStream {
    // The variant is the one `owner::dispatch` names.
    let mut arms = Vec::new();
    let mut types = Vec::new();
    let mut schemas = Vec::new();
    // The variants' entities share a table: the first one's names name its type attribute.
    let mut names = quote!(&::dynamo_entity::__private::AttributeNames::DEFAULT);
    for (i, v) in variants.iter().enumerate() {
        let ident = v.ident;
        let ty = v.ty.expect("checked: one entity per variant");
        if i == 0 {
            names = quote!(<#ty as ::dynamo_entity::__private::Entity>::NAMES);
        }
        let span = ty.span();
        types.push(quote_spanned!(span=> <#ty as ::dynamo_entity::__private::Entity>::TYPE));
        schemas.push(quote_spanned!(span=> <#ty as ::dynamo_entity::__private::Entity>::SCHEMA));
        let decode = quote_spanned! {span=>
            return <#ty as ::dynamo_entity::__private::Entity>::from_item(item)
                .map(|v| ::core::option::Option::Some(Self::#ident(v)));
        };
        arms.push(quote_spanned! {span=>
            ::core::option::Option::Some(#i) => { #decode }
        });
    }
    quote! {
        #[automatically_derived]
        impl ::dynamo_entity::EntityEnum for #name {
            const TYPES: &'static [&'static str] = &[#(#types),*];
            const NAMES: &'static ::dynamo_entity::AttributeNames = #names;
            fn decode(
                item: &::dynamo_entity::__private::Item,
            ) -> ::core::result::Result<::core::option::Option<Self>, ::dynamo_entity::__private::Error> {
                let __schemas: &[&'static ::dynamo_entity::__private::EntitySchema] = &[#(#schemas),*];
                let ty = ::dynamo_entity::__private::type_of_named(item, Self::NAMES.entity_type);
                match ::dynamo_entity::__private::dispatch(item, ty, Self::NAMES, __schemas)? {
                    #(#arms)*
                    _ => ::core::result::Result::Ok(::core::option::Option::None),
                }
            }
        }
    }
}

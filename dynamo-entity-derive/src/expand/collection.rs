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
    let partitions = same_partition(&name_str, members);
    quote! {
        #partitions

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

/// One constant check per field after the first: its entity can have items in a partition of
/// the first one's (the collection is read by one query of one partition), or its field would
/// always be empty. The message names both partition key templates, which only the schemas
/// know, so it is composed in constant evaluation; the error points at the field's type.
fn same_partition(name: &str, members: &[Member]) -> TokenStream {
    let Some(first) = members.first() else { return TokenStream::new() };
    let p = quote!(::dynamo_entity::__private);
    let a = first.arity.entity();
    let an = type_name(a);
    let mut out = TokenStream::new();
    for m in &members[1..] {
        let b = m.arity.entity();
        let bn = type_name(b);
        let field = m.ident.to_string();
        let opening = format!(
            "`{name}` is one item collection, read by one query of one partition, but its field `{field}` collects \
             `{bn}`, whose partition key `"
        );
        let middle = "` can never equal the partition key `";
        let closing = format!(
            "` of `{an}`, its first entity, on the table or on any index both write: `{field}` would always be \
             empty; key `{bn}` under the partition of `{an}` (the same template, its placeholders named as \
             `{bn}`'s fields), or read it with a collection of its own"
        );
        let span = m.ty.span();
        out.extend(quote_spanned! {span=>
            const _: () = {
                const A: &#p::EntitySchema = <#a as #p::Entity>::SCHEMA;
                const B: &#p::EntitySchema = <#b as #p::Entity>::SCHEMA;
                const TEXT: #p::ConstText = {
                    let mut text = #p::ConstText::new();
                    text.push(#opening);
                    text.push(B.primary.pk.source);
                    text.push(#middle);
                    text.push(A.primary.pk.source);
                    text.push(#closing);
                    text
                };
                if !#p::share_a_partition(A, B) {
                    ::core::panic!("{}", TEXT.as_str())
                }
            };
        });
    }
    out
}

/// A type as written, without the spaces `quote` puts in paths.
fn type_name(ty: &syn::Type) -> String {
    quote!(#ty).to_string().replace(' ', "")
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

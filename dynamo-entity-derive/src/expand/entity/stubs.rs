//! The inherent items of an entity whose derive failed: `key`, `query`, `gsiN` (of template and
//! multi-attribute GSIs, with the builder a multi-attribute GSI's query returns), `lsiN`,
//! `inverted`, the field handles and a vector field's `search_<field>`, with the arity and
//! types the real expansion would give, so that the code using them reports nothing more than
//! the mistake itself.
//!
//! A function takes one argument per distinct placeholder of its templates, each a type
//! parameter, so that any argument a caller passes is accepted; a placeholder naming no field
//! (the mistake) still counts. A query's sort-key part types are the fields' types, or, for a
//! placeholder naming no field, the type of the field its error suggests (the one the user
//! most likely meant), else `String`. A sort key with a field whose type cannot be a key part
//! (a float) is `RefusedSortKey`, which takes any argument: the query conditions written for
//! the intended type report nothing more than the field's error. The bodies are never run: the
//! crate cannot compile.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::Ident;

use crate::internals::ast::entity::{Entity, KeyTemplate};
use crate::internals::attr::entity::{Maintained, MultiGsiAttrs};
use crate::internals::case::screaming_snake;
use crate::internals::model::KeyRole;
use crate::internals::{suggest, types};

/// The stubs of entity `e`, as one inherent `impl`.
pub fn inherent(e: &Entity) -> TokenStream {
    let ident = e.ident;
    let vis = e.vis;
    let of =
        |role: &dyn Fn(KeyRole) -> bool| -> Vec<&KeyTemplate> { e.templates().filter(|t| role(t.attr.role)).collect() };
    let mut items = TokenStream::new();

    let pk = of(&|r| r == KeyRole::Pk);
    let sk = of(&|r| r == KeyRole::Sk);
    let primary: Vec<&KeyTemplate> = pk.iter().chain(&sk).copied().collect();
    items.extend(function(vis, "key", distinct(&primary).len(), quote!(__de::Key<Self>)));
    if !pk.is_empty() {
        let parts = sort_key(e, &sk);
        items.extend(function(vis, "query", distinct(&pk).len(), quote!(__de::QuerySpec<Self, #parts>)));
    }
    for n in 1..=crate::internals::model::MAX_GSI {
        let gpk = of(&|r| r == KeyRole::GsiPk(n));
        if gpk.is_empty() {
            continue;
        }
        let parts = sort_key(e, &of(&|r| r == KeyRole::GsiSk(n)));
        items.extend(function(vis, &format!("gsi{n}"), distinct(&gpk).len(), quote!(__de::QuerySpec<Self, #parts>)));
    }
    for n in 1..=crate::internals::model::MAX_LSI {
        let lsk = of(&|r| r == KeyRole::LsiSk(n));
        if lsk.is_empty() {
            continue;
        }
        let parts = sort_key(e, &lsk);
        items.extend(function(vis, &format!("lsi{n}"), distinct(&pk).len(), quote!(__de::QuerySpec<Self, #parts>)));
    }
    let mut builders = TokenStream::new();
    for (n, g) in &e.attrs.multi_gsis {
        // A template GSI of the same number is the mistake, and has its stub above.
        if !of(&|r| r == KeyRole::GsiPk(*n)).is_empty() {
            continue;
        }
        let (function_items, builder) = multi_gsi(e, *n, g);
        items.extend(function_items);
        builders.extend(builder);
    }
    if e.attrs.inverted.is_some() {
        let parts = sort_key(e, &pk);
        items.extend(function(vis, "inverted", distinct(&sk).len(), quote!(__de::QuerySpec<Self, #parts>)));
    }

    for f in &e.fields {
        let constant = Ident::new(&screaming_snake(&f.name), Span::call_site());
        let (field, attribute, fvis, ty) = (&f.name, &f.attribute, f.vis, f.ty);
        let marker = if e.is_primary_key_field(&f.name) {
            quote!(, __de::Immutable)
        } else if f.unique.is_some() {
            quote!(, __de::Unique)
        } else if matches!(f.role(), Some(Maintained::Version | Maintained::CreatedAt | Maintained::UpdatedAt)) {
            quote!(, __de::Maintained)
        } else {
            quote!()
        };
        let ty = match f.role() {
            Some(Maintained::Ttl) if types::option_inner(ty).is_some() => {
                quote!(::core::option::Option<__de::EpochSeconds>)
            }
            Some(Maintained::Ttl) => quote!(__de::EpochSeconds),
            _ => quote!(#ty),
        };
        items.extend(quote! {
            #fvis const #constant: __de::Field<Self, #ty #marker> =
                __de::Field::new(#field, #attribute, __de::None);
        });
    }

    for f in e.fields.iter().filter(|f| f.vector.is_some()) {
        items.extend(function(f.vis, &format!("search_{}", f.name), 1, quote!(__de::VectorSearch<Self>)));
    }

    quote! {
        #builders
        #[allow(dead_code, non_upper_case_globals, clippy::all, clippy::pedantic)]
        impl #ident {
            #items
        }
    }
}

/// The stub of multi-attribute GSI `n`'s query function `gsi<n>` (one type parameter per
/// partition key attribute), and of the builder it returns: a type of the real builder's name
/// whose conditions `<field>_eq`, `_lt`, `_le`, `_gt`, `_ge`, `_between` and `_begins_with`
/// take any arguments for every sort key field named (whether or not it is a field), at any
/// step, and which `Table::query` takes.
fn multi_gsi(e: &Entity, n: u8, g: &MultiGsiAttrs) -> (TokenStream, TokenStream) {
    let ident = e.ident;
    let vis = e.vis;
    let builder = format_ident!("{}Gsi{}Query", syn::ext::IdentExt::unraw(ident), n);
    let arity = g.pk.as_ref().map_or(0, |(_, fields)| fields.len());
    let function_items = function(vis, &format!("gsi{n}"), arity, quote!(#builder));
    let mut seen: Vec<String> = Vec::new();
    let mut methods = TokenStream::new();
    for f in g.sk.iter().flat_map(|(_, fields)| fields) {
        let name = syn::ext::IdentExt::unraw(f).to_string();
        if seen.contains(&name) {
            continue;
        }
        seen.push(name.clone());
        for suffix in ["eq", "lt", "le", "gt", "ge", "begins_with"] {
            let m = format_ident!("{}_{}", name, suffix);
            methods.extend(quote!(pub fn #m<__A>(self, _: __A) -> Self { self }));
        }
        let between = format_ident!("{}_between", name);
        methods.extend(quote!(pub fn #between<__A, __B>(self, _: __A, _: __B) -> Self { self }));
    }
    let builder_items = quote! {
        #[allow(dead_code, clippy::all, clippy::pedantic)]
        #vis struct #builder(__de::MultiKeySpec<#ident>);

        #[allow(dead_code, clippy::all, clippy::pedantic)]
        impl #builder {
            #methods
        }

        impl __de::IntoQuery for #builder {
            type Entity = #ident;
            type Request = __de::MultiKeyQuery<#ident>;
            fn into_request(self, _: __de::Table) -> __de::MultiKeyQuery<#ident> {
                ::core::unreachable!()
            }
        }
    };
    (function_items, builder_items)
}

/// `fn name<A0, ..>(_: A0, ..) -> ret`, never run.
fn function(vis: &syn::Visibility, name: &str, arity: usize, ret: TokenStream) -> TokenStream {
    let name = format_ident!("{name}");
    let params: Vec<Ident> = (0..arity).map(|i| format_ident!("__A{i}")).collect();
    quote! {
        #[allow(clippy::too_many_arguments)]
        #vis fn #name<#(#params),*>(#(_: #params),*) -> #ret {
            ::core::unreachable!()
        }
    }
}

/// The distinct placeholder names of `templates`, in order.
fn distinct<'t>(templates: &[&'t KeyTemplate]) -> Vec<&'t str> {
    let mut names: Vec<&str> = Vec::new();
    for n in templates.iter().flat_map(|t| t.field_names()) {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    names
}

/// The sort-key type of a query on the first of `templates` (a sort key): the tuple of each
/// placeholder's field type, or the suggested field's, or `String`; `RefusedSortKey` (which
/// takes any argument) when such a field's type cannot be a key part, whose error is the one
/// to report.
fn sort_key(e: &Entity, templates: &[&KeyTemplate]) -> TokenStream {
    let Some(template) = templates.first() else { return quote!(()) };
    let mut parts = Vec::new();
    for n in template.field_names() {
        let field = e
            .field(n)
            .or_else(|| suggest::closest(n, e.fields.iter().map(|f| f.name.as_str())).and_then(|m| e.field(m)));
        match field {
            Some(f) if matches!(types::key_part(f.ty), types::KeyPartType::Rejected(_)) => {
                return quote!(__de::RefusedSortKey);
            }
            Some(f) => {
                let ty = f.ty;
                parts.push(quote!(#ty));
            }
            None => parts.push(quote!(::std::string::String)),
        }
    }
    quote!((#(#parts,)*))
}

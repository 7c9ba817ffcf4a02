//! The multi-attribute GSIs of an entity (`#[entity(gsiN(pk(a, b), sk(c, d)))]`): their schema
//! constants, the query function `gsiN(a, b)` and the index-typed builder it returns.
//!
//! The builder is `<Entity>Gsi<N>Query<const STEP: usize>`, defined inside the derive's
//! `const _` block (returned, never named by users). `STEP` is the number of sort key
//! attributes already fixed with `=`; step `k` offers `<field k>_eq` (to step `k + 1`) and the
//! range conditions on field `k` (to step [`DONE`], whose same-named methods are bound by the
//! unimplemented `RangeIsLast`, so calling one is an error saying that the range condition is
//! the last). So only the key conditions DynamoDB accepts compile. Every step converts into the runtime's `MultiKeySpec`
//! (`IntoQuery`), so `table.query(...)` takes it at any step.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::Ident;

use super::Gen;
use crate::internals::ast::entity::Field;
use crate::internals::attr::entity::MultiGsiAttrs;
use crate::internals::types;

/// The step after a range condition: no further condition.
const DONE: usize = 9;

impl Gen<'_, '_> {
    /// The fields of one side of a multi-attribute GSI.
    fn multi_fields(&self, side: &Option<(Ident, Vec<Ident>)>) -> Vec<&Field<'_>> {
        side.iter()
            .flat_map(|(_, fields)| fields)
            .map(|f| self.field(&syn::ext::IdentExt::unraw(f).to_string()))
            .collect()
    }

    /// The `where` predicates `T: KeyAttribute` of the multi-attribute GSIs' fields, spanned on
    /// the field types.
    pub(super) fn multi_key_bounds(&self) -> Vec<TokenStream> {
        let mut out = Vec::new();
        for f in &self.e.fields {
            if self.e.is_multi_key_field(&f.name) {
                let ty = f.ty;
                let span = types::last_span(ty);
                out.push(quote_spanned!(span=> #ty: ::dynamo_entity::__private::KeyAttribute));
            }
        }
        out
    }

    /// The `__DeSchema` constants `GSI<n>_MULTI`, and the list for `EntitySchema::multi_gsis`.
    pub(super) fn multi_schema_items(&self) -> (TokenStream, Vec<Ident>) {
        let mut items = TokenStream::new();
        let mut consts = Vec::new();
        for (n, g) in &self.e.attrs.multi_gsis {
            let constant = format_ident!("GSI{}_MULTI", n);
            let attrs = |side| {
                self.multi_fields(side)
                    .into_iter()
                    .map(|f| {
                        let (field, attribute, ty) = (&f.name, &f.attribute, f.ty);
                        quote!(__de::MultiKeyAttr {
                            field: #field,
                            attribute: #attribute,
                            key_type: __de::key_type_of::<#ty>(),
                        })
                    })
                    .collect::<Vec<_>>()
            };
            let (pk, sk) = (attrs(&g.pk), attrs(&g.sk));
            items.extend(quote! {
                const #constant: &'static __de::MultiKeyIndex = &__de::MultiKeyIndex {
                    index: __de::Index::Gsi(#n),
                    pk: &[#(#pk),*],
                    sk: &[#(#sk),*],
                };
            });
            consts.push(constant);
        }
        (items, consts)
    }

    /// The query functions `gsi<n>(...)` of the multi-attribute GSIs (in the inherent impl).
    pub(super) fn multi_query_fns(&self) -> TokenStream {
        let e = self.e;
        let vis = e.vis;
        let name = self.name;
        let mut items = TokenStream::new();
        for (n, g) in &e.attrs.multi_gsis {
            let fn_name = format_ident!("gsi{}", n);
            let builder = builder_ident(e.ident, *n);
            let constant = format_ident!("GSI{}_MULTI", n);
            let pk = self.multi_fields(&g.pk);
            let params = pk.iter().map(|f| {
                let (ident, ty) = (f.ident, f.ty);
                quote!(#ident: &<#ty as __de::KeyAttribute>::Arg)
            });
            let values = pk.iter().map(|f| {
                let (ident, ty) = (f.ident, f.ty);
                quote!(<#ty as __de::KeyAttribute>::key_value(#ident))
            });
            let doc = self.multi_doc(*n, g);
            items.extend(quote! {
                #[doc = #doc]
                #[must_use]
                #[inline]
                #vis fn #fn_name(#(#params),*) -> #builder<0> {
                    #builder(__de::MultiKeySpec::new(
                        __DeSchema::#constant,
                        #name,
                        [#(#values),*],
                    ))
                }
            });
        }
        items
    }

    fn multi_doc(&self, n: u8, g: &MultiGsiAttrs) -> String {
        let names =
            |side| self.multi_fields(side).iter().map(|f| format!("`{}`", f.attribute)).collect::<Vec<_>>().join(", ");
        let mut doc = format!("Query GSI{n}, keyed on the item's own attributes: partition key {}", names(&g.pk));
        let sk = self.multi_fields(&g.sk);
        if sk.is_empty() {
            doc.push('.');
        } else {
            doc.push_str(&format!(", sort key {}.", names(&g.sk)));
            doc.push_str(
                "\n\nThe returned builder takes `=` on a leading run of the sort key attributes \
                 (`<field>_eq`), then at most one range condition on the next one (`_lt`, `_le`, `_gt`, \
                 `_ge`, `_between`, `_begins_with` on a string): the key conditions DynamoDB accepts.",
            );
        }
        let optional: Vec<String> = self
            .multi_fields(&g.pk)
            .into_iter()
            .chain(sk)
            .filter(|f| types::option_inner(f.ty).is_some())
            .map(|f| format!("`{}`", f.name))
            .collect();
        if !optional.is_empty() {
            doc.push_str(&format!("\n\nSparse index: an item whose {} is `None` is not in it.", optional.join(" or ")));
        }
        doc
    }

    /// The builder types of the multi-attribute GSIs and their steps (in the `const _` block).
    pub(super) fn multi_query_types(&self, where_clause: &TokenStream) -> TokenStream {
        let e = self.e;
        let ident = e.ident;
        // The entity's visibility: a private entity's query function returns a private builder.
        let vis = e.vis;
        let mut items = TokenStream::new();
        for (n, g) in &e.attrs.multi_gsis {
            let builder = builder_ident(ident, *n);
            let doc = format!("The key condition of a query of `{ident}`'s GSI{n}, typed by its sort key attributes.");
            items.extend(quote! {
                #[doc = #doc]
                #[must_use = "a key condition does nothing until queried with `Table::query`"]
                #vis struct #builder<const STEP: usize>(__de::MultiKeySpec<#ident>);

                impl<const STEP: usize> __de::IntoQuery for #builder<STEP> #where_clause {
                    type Entity = #ident;
                    type Request = __de::MultiKeyQuery<#ident>;
                    #[inline]
                    fn into_request(self, table: __de::Table) -> __de::MultiKeyQuery<#ident> {
                        __de::IntoQuery::into_request(self.0, table)
                    }
                }
            });
            // After the range condition: every condition method, each bound by `RangeIsLast`
            // (implemented by nothing), so calling one says why it does not compile.
            let mut after_range = TokenStream::new();
            for f in self.multi_fields(&g.sk) {
                for suffix in ["eq", "lt", "le", "gt", "ge", "begins_with"] {
                    let m = format_ident!("{}_{}", f.name, suffix);
                    after_range.extend(quote! {
                        #[doc(hidden)]
                        pub fn #m<V: __de::RangeIsLast>(self, _value: V) -> Self {
                            self
                        }
                    });
                }
                let between = format_ident!("{}_between", f.name);
                after_range.extend(quote! {
                    #[doc(hidden)]
                    pub fn #between<V: __de::RangeIsLast>(self, _low: V, _high: V) -> Self {
                        self
                    }
                });
            }
            items.extend(quote! {
                impl #builder<#DONE> #where_clause {
                    #after_range
                }
            });
            for (k, f) in self.multi_fields(&g.sk).into_iter().enumerate() {
                let (ty, fname) = (f.ty, &f.name);
                let next = k + 1;
                let m = |suffix: &str| format_ident!("{}_{}", fname, suffix);
                let (eq, lt, le, gt, ge, between, begins) =
                    (m("eq"), m("lt"), m("le"), m("gt"), m("ge"), m("between"), m("begins_with"));
                let arg = quote!(&<#ty as __de::KeyAttribute>::Arg);
                let value = |v: TokenStream| quote!(<#ty as __de::KeyAttribute>::key_value(#v));
                let (v, lo, hi) = (value(quote!(value)), value(quote!(low)), value(quote!(high)));
                let cmp = |method: &Ident, op: &str, doc: String| {
                    quote! {
                        #[doc = #doc]
                        #[inline]
                        pub fn #method(self, value: #arg) -> #builder<#DONE> {
                            #builder(self.0.cmp(#op, #v))
                        }
                    }
                };
                let (c_lt, c_le, c_gt, c_ge) = (
                    cmp(&lt, "<", format!("`{fname} < value`: the last condition.")),
                    cmp(&le, "<=", format!("`{fname} <= value`: the last condition.")),
                    cmp(&gt, ">", format!("`{fname} > value`: the last condition.")),
                    cmp(&ge, ">=", format!("`{fname} >= value`: the last condition.")),
                );
                let eq_doc = format!("`{fname} = value`; conditions on the next sort key attribute may follow.");
                let between_doc = format!("`{fname} BETWEEN low AND high` (both included): the last condition.");
                let begins_doc = format!(
                    "`begins_with({fname}, prefix)`, for a string or binary attribute: the last condition. An empty prefix \
                     is no condition."
                );
                items.extend(quote! {
                    impl #builder<#k> #where_clause {
                        #[doc = #eq_doc]
                        #[inline]
                        pub fn #eq(self, value: #arg) -> #builder<#next> {
                            #builder(self.0.eq(#v))
                        }
                        #c_lt
                        #c_le
                        #c_gt
                        #c_ge
                        #[doc = #between_doc]
                        #[inline]
                        pub fn #between(self, low: #arg, high: #arg) -> #builder<#DONE> {
                            #builder(self.0.between(#lo, #hi))
                        }
                        #[doc = #begins_doc]
                        #[inline]
                        pub fn #begins<P: __de::BeginsWith<#ty>>(self, prefix: P) -> #builder<#DONE> {
                            #builder(self.0.begins_with(__de::BeginsWith::<#ty>::prefix(&prefix)))
                        }
                    }
                });
            }
        }
        items
    }
}

/// `<Entity>Gsi<n>Query`.
fn builder_ident(entity: &Ident, n: u8) -> Ident {
    format_ident!("{}Gsi{}Query", syn::ext::IdentExt::unraw(entity), n)
}

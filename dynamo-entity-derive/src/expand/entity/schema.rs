//! The constants of `__DeSchema`: the table's names, the templates and the schema of each
//! index, and the entity's `EntitySchema`, each a `&'static` reference to its value (see
//! "Constants as references" in the [parent module](super)).

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use super::Gen;
use super::keys::IndexNames;
use crate::internals::ast::entity::Field;
use crate::internals::attr::entity::{ConstantLit, Maintained};
use crate::internals::model::IndexKind;
use crate::internals::types;

impl Gen<'_, '_> {
    /// The items of `__DeSchema`: the table's names, each index's templates and schema (with
    /// their key writers, in the same order), the entity's schema and the primary key functions.
    pub(super) fn schema_items(&self) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let rust_name = e.ident.to_string();
        let label = &self.label;
        let mut items = TokenStream::new();
        let names_const = match &e.attrs.table {
            Some(table) => quote_spanned!(syn::spanned::Spanned::span(table)=> <#table as __de::TableDef>::NAMES),
            None => quote!(&__de::AttributeNames::DEFAULT),
        };
        items.extend(quote! {
            // The attribute and index names of the entity's table.
            const NAMES: &'static __de::AttributeNames = #names_const;
        });
        let mut gsi_consts = Vec::new();
        for index in e.indexes() {
            let names = IndexNames::new(index.kind);
            let (pk_tpl, sk_tpl, schema) = (&names.pk_tpl, &names.sk_tpl, &names.schema);
            let pk_expr = self.template_expr(&index.pk);
            let sk_expr = self.template_expr(&index.sk);
            if let IndexKind::Gsi(_) = index.kind {
                gsi_consts.push(schema.clone());
            }
            let kind = index.kind.tokens(&quote!(__de));
            let (pk_fn, sk_fn) = self.index_writers(index, &names);
            items.extend(quote! {
                const #pk_tpl: &'static __de::Template = &#pk_expr;
                const #sk_tpl: &'static __de::Template = &#sk_expr;
                const #schema: &'static __de::IndexSchema =
                    &__de::IndexSchema { index: #kind, pk: Self::#pk_tpl, sk: Self::#sk_tpl };
                #pk_fn
                #sk_fn
            });
            if let IndexKind::Gsi(_) = index.kind {
                items.extend(self.gsi_fn(index, &names));
            }
        }

        // LSIs: the sort key template and its writer; the partition key is the primary one.
        let mut lsi_consts = Vec::new();
        for lsi in &e.lsis {
            let n = lsi.n;
            let names = IndexNames::new(IndexKind::Lsi(n));
            let (sk_tpl, schema) = (&names.sk_tpl, &names.schema);
            let sk_expr = self.template_expr(&lsi.sk);
            let key_fns = self.lsi_key_fns(lsi, &names);
            items.extend(quote! {
                const #sk_tpl: &'static __de::Template = &#sk_expr;
                const #schema: &'static __de::IndexSchema =
                    &__de::IndexSchema { index: __de::Index::Lsi(#n), pk: Self::PRIMARY_PK, sk: Self::#sk_tpl };
                #key_fns
            });
            lsi_consts.push(schema.clone());
        }

        // A field's schema: `FieldSchema::new` and a builder call for each property that is not
        // the default (few tokens: each costs the compiler's macro bridge).
        let field_schema = |f: &Field| {
            let (field, attribute) = (&f.name, &f.attribute);
            let ty = f.ty;
            let mut calls = TokenStream::new();
            // A key field's shape and whether its key text fixes the value (the library's own
            // part writers are one-to-one), for the table's collision checks; only a key
            // field's type is a `KeyPart`.
            if e.is_key_field(&f.name) {
                calls.extend(quote!(.key::<#ty>()));
            }
            // The type the field is stored as, for the table's checks of multi-attribute GSIs;
            // none for a field written only inside its keys (no attribute of its own).
            if e.key_only(&f.name) {
                // `stored` stays `None`.
            } else if f.serde {
                calls.extend(quote!(.stored(__de::StoredType::Unknown)));
            } else if f.role() == Some(Maintained::Ttl) {
                calls.extend(quote!(.stored(__de::StoredType::N)));
            } else {
                calls.extend(quote!(.stored_as::<#ty>()));
            }
            if types::option_inner(f.ty).is_some() {
                calls.extend(quote!(.optional()));
            }
            if f.unique.is_some() {
                calls.extend(quote!(.unique()));
            }
            if e.attrs.key_style.folds_case() && e.is_key_field(&f.name) && e.reads_folded(f) {
                calls.extend(quote!(.folded()));
            }
            match f.key_fields {
                Some((true, _)) => calls.extend(quote!(.key_fields(__de::KeyFields::Keys))),
                Some((false, _)) => calls.extend(quote!(.key_fields(__de::KeyFields::Attributes))),
                None => {}
            }
            if let Some(lit) = &f.alias {
                let alias = lit.value();
                let write_alias = f.write_alias.is_some();
                let read_alias = write_alias && f.read_alias.is_some();
                calls.extend(quote!(.alias(#alias, #write_alias, #read_alias)));
            }
            quote!(__de::FieldSchema::new(#field, #attribute) #calls)
        };
        let fields = e.fields.iter().map(field_schema);
        let role = |m: Maintained| match e.maintained(m) {
            Some(f) => {
                let schema = field_schema(f);
                quote!(__de::Some(#schema))
            }
            None => quote!(__de::None),
        };
        let version = match e.maintained(Maintained::Version) {
            Some(f) => {
                let (field, attribute, ty) = (&f.name, &f.attribute, f.ty);
                quote!(__de::Some(__de::VersionSchema {
                    field: #field,
                    attribute: #attribute,
                    max: <#ty as __de::VersionNumber>::MAX_VERSION,
                }))
            }
            None => quote!(__de::None),
        };
        let (created_at, updated_at, ttl) =
            (role(Maintained::CreatedAt), role(Maintained::UpdatedAt), role(Maintained::Ttl));
        let inverted = if e.attrs.inverted.is_some() {
            items.extend(quote! {
                // The inverted index: partition key `SK` (the primary sort key template), sort
                // key `PK` (the primary partition key template).
                const INVERTED: &'static __de::IndexSchema = &__de::IndexSchema {
                    index: __de::Index::Inverted,
                    pk: Self::PRIMARY_SK,
                    sk: Self::PRIMARY_PK,
                };
            });
            quote!(__de::Some(*Self::INVERTED))
        } else {
            quote!(__de::None)
        };
        let key_fields = if e.attrs.key_fields_in_keys {
            quote!(__de::KeyFields::Keys)
        } else {
            quote!(__de::KeyFields::Attributes)
        };
        let schema_version = self.schema_version_value();
        let constants = e.attrs.constants.iter().map(|c| {
            let attribute = &c.attribute;
            let value = match &c.value {
                ConstantLit::S(v) => quote!(__de::ConstantValue::S(#v)),
                ConstantLit::N(v) => quote!(__de::ConstantValue::N(#v)),
                ConstantLit::Bool(v) => quote!(__de::ConstantValue::Bool(#v)),
            };
            quote!(__de::ConstantSchema { attribute: #attribute, value: #value })
        });
        let (multi_items, multi_consts) = self.multi_schema_items();
        items.extend(multi_items);
        let (vector_items, vector_consts) = self.vector_items();
        items.extend(vector_items);
        items.extend(quote! {
            const SCHEMA: &'static __de::EntitySchema = &__de::EntitySchema {
                name: #name,
                rust_name: #rust_name,
                label: #label,
                names: Self::NAMES,
                primary: *Self::PRIMARY,
                gsis: &[#(*Self::#gsi_consts),*],
                inverted: #inverted,
                lsis: &[#(*Self::#lsi_consts),*],
                multi_gsis: &[#(*Self::#multi_consts),*],
                fields: &[#(#fields),*],
                version: #version,
                created_at: #created_at,
                updated_at: #updated_at,
                ttl: #ttl,
                key_fields: #key_fields,
                schema_version: #schema_version,
                constants: &[#(#constants),*],
                vectors: &[#(*Self::#vector_consts),*],
            };
        });
        items.extend(self.primary_key_fns());
        items
    }

    /// Each `#[entity(vector(...))]` field's `VectorIndex` constant (`VECTOR_<FIELD>`) and its
    /// search function (`search_<field>`), and the constants' names.
    fn vector_items(&self) -> (TokenStream, Vec<syn::Ident>) {
        let e = self.e;
        let mut items = TokenStream::new();
        let mut consts = Vec::new();
        for f in &e.fields {
            let Some(v) = &f.vector else { continue };
            let constant = quote::format_ident!("VECTOR_{}", f.name.to_uppercase());
            let (field, attribute) = (&f.name, &f.attribute);
            let name = v.index.as_ref().map(syn::LitStr::value).unwrap_or_default();
            let dimensions = v.dimensions.as_ref().and_then(|(_, n)| *n).unwrap_or(1) as u32;
            let distance = quote::format_ident!("{}", v.distance.unwrap_or("Cosine"));
            // A type that cannot be a search attribute fails `vector_type_checks`; `S` stands in.
            let search_attr = |ident: &syn::Ident| {
                let wanted = syn::ext::IdentExt::unraw(ident).to_string();
                let other = e.fields.iter().find(|o| o.name == wanted)?;
                let (ofield, oattr, ty) = (&other.name, &other.attribute, other.ty);
                let handle = crate::internals::case::screaming_snake(&other.name);
                Some(quote_spanned! {ident.span()=>
                    __de::SearchAttribute {
                        field: #ofield,
                        handle: #handle,
                        attribute: #oattr,
                        key_type: match __de::search_key_type(<#ty as __de::Attribute>::STORED) {
                            __de::Some(t) => t,
                            __de::None => __de::KeyType::S,
                        },
                    }
                })
            };
            let hash = match v.hash.as_ref().and_then(search_attr) {
                Some(h) => quote!(__de::Some(#h)),
                None => quote!(__de::None),
            };
            let filters: Vec<TokenStream> = v.filters.iter().filter_map(search_attr).collect();
            items.extend(quote! {
                // The vector index on this field.
                const #constant: &'static __de::VectorIndex = &__de::VectorIndex {
                    name: #name,
                    field: #field,
                    attribute: #attribute,
                    dimensions: #dimensions,
                    distance: __de::Distance::#distance,
                    hash: #hash,
                    filters: &[#(#filters),*],
                };
            });
            consts.push(constant);
        }
        (items, consts)
    }

    /// For each search schema attribute of a vector index, a constant that fails to evaluate,
    /// spanned on the name in `hash = ..` or `filters(..)`, when the field's type is stored as
    /// neither a string, a number nor binary (`Attribute::STORED`): a type the check pass
    /// cannot tell by its name (`bool`, `Vec`, maps and sets are refused there).
    pub(super) fn vector_type_checks(&self) -> TokenStream {
        let e = self.e;
        let mut out = TokenStream::new();
        for f in &e.fields {
            let Some(v) = &f.vector else { continue };
            let index = v.index.as_ref().map(syn::LitStr::value).unwrap_or_default();
            for ident in v.hash.iter().chain(&v.filters) {
                let wanted = syn::ext::IdentExt::unraw(ident).to_string();
                let Some(other) = e.fields.iter().find(|o| o.name == wanted) else { continue };
                let ty = other.ty;
                let message = format!(
                    "field `{wanted}` is in the search schema of vector index `{index}`, but its type `{}` is stored \
                     as neither a string, a number nor binary (its `Attribute::STORED`); a search schema attribute \
                     is S, N or B",
                    quote!(#ty).to_string().replace(' ', "")
                );
                out.extend(quote_spanned! {ident.span()=>
                    const _: () = if __de::search_key_type(<#ty as __de::Attribute>::STORED).is_none() {
                        ::core::panic!(#message)
                    };
                });
            }
        }
        out
    }

    /// Each `#[entity(vector(...))]` field's search function, `search_<field>(vector)`, in the
    /// entity's own `impl`.
    pub(super) fn vector_search_fns(&self) -> TokenStream {
        let mut out = TokenStream::new();
        for f in &self.e.fields {
            let Some(v) = &f.vector else { continue };
            let constant = quote::format_ident!("VECTOR_{}", f.name.to_uppercase());
            let search = quote::format_ident!("search_{}", f.name);
            let name = v.index.as_ref().map(syn::LitStr::value).unwrap_or_default();
            let doc = format!(
                "A search of vector index `{name}` (field `{}`) for the items nearest `vector`, which has the index's \
                 dimensions; send it with `Table::search`.",
                f.name
            );
            let vis = f.vis;
            out.extend(quote! {
                #[doc = #doc]
                #vis fn #search(vector: impl ::core::convert::Into<::std::vec::Vec<f32>>) -> __de::VectorSearch<Self> {
                    __de::VectorSearch::new(__DeSchema::#constant, vector.into())
                }
            });
        }
        out
    }
}

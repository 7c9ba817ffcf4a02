//! Code generation for `#[derive(Entity)]`.
//!
//! The generated code is thin: key templates become constant data, and every method calls the
//! runtime (`::dynamo_entity::__private`). Everything lives in one `const _: () = { ... };` block:
//!
//! * `__DeSchema`, a private unit struct whose impl holds the templates, the schema, one writer
//!   function per template (generic over the part types, so that `key()` arguments and struct
//!   fields share it), one function per GSI that builds both of its (sparse) keys and one per
//!   LSI that builds its (sparse) sort key;
//! * `impl Entity for X`, calling those functions;
//! * the inherent impl: `key`, `query`, `gsiN`, `lsiN` and one field handle per field.
//!
//! ## Nothing compiled until used
//! Every generated function is either generic or `#[inline]`. Neither kind is a root of code
//! generation in the crate that derives: like serde's generic impls, a function is translated to
//! machine code only in a crate that calls it (once per crate in a debug build), and never if
//! nothing calls it. A crate defining many entities thus pays for parsing, type and borrow
//! checking only (`scripts/bench-compile`); before, LLVM's work on the unused `to_item`,
//! `from_item`, `gsi_keys`, `key`, `query`, `gsiN` and the functions they call was half of its
//! build time. `to_item`, `from_item` and `gsi_keys` are `#[inline]` only with
//! `debug_assertions` (the dev profile): a release build compiles them where they are defined, as
//! before, so their machine code and the inlining decisions around them do not change.
//!
//! Where code is compiled, there is less of it: `gsi_keys` collects the keys with runtime
//! functions (`push_gsi_keys`, `push_lsi_key`), one copy instead of the pattern matches and
//! drops repeated in every entity. (The same for finishing a primary key or a GSI's key pair
//! cost `to_item` 1.5% in the marshalling benchmark, so those stay generated.)
//!
//! ## Trait bounds without cascades
//! A field type the derive cannot vouch for (a user type in a key template, or a non-serde field
//! of a type the runtime has no `Attribute` impl for) is listed in a `where` clause on each of
//! the three impls, with the span of the field type. If the type lacks the trait, each where
//! clause reports the same error at the same place, which the compiler prints once; the bodies
//! and signatures, which assume the bound, report nothing more.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::{DeriveInput, Ident, Type};

use crate::ast::{Entity, Field, IndexKeys, IndexKind, KeyTemplate, LsiKeys};
use crate::attr::Maintained;
use crate::case::screaming_snake;
use crate::check;
use crate::errors::Errors;
use crate::fallback;
use crate::template::Segment;
use crate::types::{self, KeyPartType};

/// `#[derive(Entity)]`: the impls, or the errors and stub impls.
pub fn derive_entity(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let entity = Entity::from_syn(input, &mut errors);
    if let Some(entity) = &entity {
        check::check(entity, &mut errors);
    }
    match (entity, errors.into_compile_errors()) {
        (Some(entity), None) => generate(&entity),
        (_, errors) => {
            let mut out = errors.unwrap_or_default();
            out.extend(fallback::entity(input));
            out
        }
    }
}

/// Names of the generated constants and functions of one index.
struct IndexNames {
    /// `PRIMARY`, `GSI1`: the `IndexSchema` constant.
    schema: Ident,
    /// `PRIMARY_PK`: the template constants.
    pk_tpl: Ident,
    sk_tpl: Ident,
    /// `primary_pk`: the writer functions.
    pk_fn: Ident,
    sk_fn: Ident,
}

impl IndexNames {
    fn new(kind: IndexKind) -> IndexNames {
        let base = match kind {
            IndexKind::Primary => "primary".to_owned(),
            IndexKind::Gsi(n) => format!("gsi{n}"),
            IndexKind::Lsi(n) => format!("lsi{n}"),
        };
        let upper = base.to_uppercase();
        IndexNames {
            schema: format_ident!("{upper}"),
            pk_tpl: format_ident!("{upper}_PK"),
            sk_tpl: format_ident!("{upper}_SK"),
            pk_fn: format_ident!("{base}_pk"),
            sk_fn: format_ident!("{base}_sk"),
        }
    }
}

struct Gen<'e, 'a> {
    e: &'e Entity<'a>,
    /// The entity type name as a string literal.
    name: &'e str,
}

fn generate(e: &Entity) -> TokenStream {
    let g = Gen { e, name: &e.name };
    let ident = e.ident;
    let bounds = g.bounds();
    let where_clause = if bounds.is_empty() { quote!() } else { quote!(where #(#bounds),*) };

    let schema_items = g.schema_items();
    let entity_impl = g.entity_impl();
    let inherent_items = g.inherent_items();
    // `#[entity(table = T)]`: T must list the entity, or its keys escape T's checks. A constant
    // that fails to evaluate, spanned on `T`.
    let listed = match &e.attrs.table {
        Some(table) => {
            let ident_name = g.name;
            let t = quote!(#table).to_string().replace(' ', "");
            let message = format!(
                "entity `{ident}` names table `{t}` (`#[entity(table = {t})]`), but `{t}` does not list it: add \
                 `{ident}` to `entities(...)` of `{t}`, so that the table's checks (key collisions, prefixes, key \
                 types) cover its keys"
            );
            let span = syn::spanned::Spanned::span(table);
            quote_spanned! {span=>
                const _: () = if !__de::lists_entity(<#table as __de::TableDef>::ENTITIES, #ident_name) {
                    ::core::panic!(#message)
                };
            }
        }
        None => quote!(),
    };

    quote! {
        #[allow(non_upper_case_globals, unused_qualifications, clippy::all, clippy::pedantic)]
        const _: () = {
            use ::dynamo_entity::__private as __de;

            #[doc(hidden)]
            struct __DeSchema;

            #listed

            #[allow(dead_code)]
            impl __DeSchema #where_clause {
                #schema_items
            }

            #[automatically_derived]
            impl __de::Entity for #ident #where_clause {
                #entity_impl
            }

            #[allow(dead_code)]
            impl #ident #where_clause {
                #inherent_items
            }
        };
    }
}

impl Gen<'_, '_> {
    /// The attribute named `default` by default (`PK`, `SK`, `GSI<n>PK`, `GSI<n>SK`, `LSI<n>SK`):
    /// that literal for an entity without `#[entity(table = ...)]`, else the same role's name
    /// in the table's `AttributeNames` (`__DeSchema::NAMES`), a constant too.
    fn attr(&self, default: &str) -> TokenStream {
        if self.e.attrs.table.is_none() {
            return quote!(#default);
        }
        let num = |r: &str| r.parse::<usize>().ok().map(|n| n - 1);
        if default == "PK" {
            quote!(__DeSchema::NAMES.pk)
        } else if default == "SK" {
            quote!(__DeSchema::NAMES.sk)
        } else if let Some(i) = default.strip_prefix("LSI").and_then(|r| r.strip_suffix("SK")).and_then(num) {
            quote!(__DeSchema::NAMES.lsi[#i].sk)
        } else if let Some(i) = default.strip_prefix("GSI").and_then(|r| r.strip_suffix("PK")).and_then(num) {
            quote!(__DeSchema::NAMES.gsi[#i].pk)
        } else {
            let i = default.strip_prefix("GSI").and_then(|r| r.strip_suffix("SK")).and_then(num);
            let i = i.expect("a default key attribute name");
            quote!(__DeSchema::NAMES.gsi[#i].sk)
        }
    }

    fn field(&self, name: &str) -> &Field<'_> {
        // The check pass guarantees every placeholder names a field.
        self.e.field(name).unwrap_or_else(|| panic!("placeholder `{name}` names no field"))
    }

    /// The `where` predicates, spanned on the field types (see the module docs).
    fn bounds(&self) -> Vec<TokenStream> {
        let mut bounds = Vec::new();
        for f in &self.e.fields {
            if self.e.is_key_field(&f.name) {
                if let KeyPartType::Custom(ty) = types::key_part(f.ty) {
                    let span = types::last_span(ty);
                    bounds.push(quote_spanned!(span=> #ty: ::dynamo_entity::__private::KeyPart));
                }
            }
            if !f.serde && !types::is_builtin_attribute(f.ty) {
                let ty = types::option_inner(f.ty).unwrap_or(f.ty);
                let span = types::last_span(ty);
                bounds.push(quote_spanned!(span=> #ty: ::dynamo_entity::__private::Attribute));
            }
        }
        bounds
    }

    // -----------------------------------------------------------------------------------------
    // __DeSchema

    fn template_expr(&self, t: &KeyTemplate) -> TokenStream {
        let source = t.source();
        let parsed = t.parsed.as_ref().expect("checked templates parse");
        let segments = parsed.segments.iter().map(|s| match s {
            Segment::Literal(l) => quote!(__de::Segment::Literal(#l)),
            Segment::Field { name, .. } => quote!(__de::Segment::Field(#name)),
            Segment::Shard { field, count, .. } => quote!(__de::Segment::Shard { field: #field, count: #count }),
        });
        // The partition's cardinality from its placeholders' types (a shard does not count).
        let cardinality = parsed.fields().map(|(name, _)| {
            let ty = self.field(name).ty;
            quote!(<#ty as __de::KeyPart>::CARDINALITY)
        });
        let key_type = match parsed.segments.as_slice() {
            [Segment::Field { name, .. }] => {
                let ty = self.field(name).ty;
                quote!(__de::single_key_type::<#ty>())
            }
            _ => quote!(__de::KeyType::S),
        };
        quote! {
            __de::Template {
                source: #source,
                segments: &[#(#segments),*],
                key_type: #key_type,
                cardinality: __de::Cardinality::of(&[#(#cardinality),*]),
            }
        }
    }

    /// A writer function for one template: generic over the part types, in template order.
    fn writer_fn(
        &self,
        fn_name: &Ident,
        tpl_const: &Ident,
        attribute: &str,
        t: &KeyTemplate,
        partition: bool,
    ) -> TokenStream {
        let name = self.name;
        let writer = if partition { quote!(__de::pk_writer) } else { quote!(__de::sk_writer) };
        let attribute_expr = self.attr(attribute);
        // One parameter per placeholder and shard suffix, in template order; a shard suffix
        // takes what picks the shard (`ShardBy`).
        let parts: Vec<bool> = t
            .parsed
            .iter()
            .flat_map(|p| &p.segments)
            .filter_map(|s| match s {
                Segment::Literal(_) => None,
                Segment::Field { .. } => Some(false),
                Segment::Shard { .. } => Some(true),
            })
            .collect();
        let n = parts.len();
        let params: Vec<Ident> = (0..n).map(|i| format_ident!("p{i}")).collect();
        let generics: Vec<Ident> = (0..n).map(|i| format_ident!("P{i}")).collect();
        let doc = format!("Starts `{attribute}` = `{}`, writing the parts in template order.", t.source());
        let writes = params
            .iter()
            .zip(&parts)
            .map(|(p, shard)| if *shard { quote!(w.shard(#p)?;) } else { quote!(w.part(#p)?;) });
        let param_types = generics
            .iter()
            .zip(&parts)
            .map(|(g, shard)| if *shard { quote!(__de::ShardBy<'_, #g>) } else { quote!(&#g) });
        let body = if n == 0 {
            quote!(__de::Result::Ok(#writer(#name, #attribute_expr, &Self::#tpl_const)))
        } else {
            quote! {
                let mut w = #writer(#name, #attribute_expr, &Self::#tpl_const);
                #( #writes )*
                __de::Result::Ok(w)
            }
        };
        quote! {
            #[doc = #doc]
            #[inline]
            fn #fn_name<#(#generics: __de::KeyPart + ?::core::marker::Sized),*>(
                #(#params: #param_types),*
            ) -> __de::Result<__de::KeyWriter, __de::Error> {
                #body
            }
        }
    }

    /// The fields of `key()`: the partition key's then the sort key's not already given.
    fn primary_key_fields(&self) -> Vec<&Field<'_>> {
        let primary = self.e.primary.as_ref().expect("checked entities have a primary key");
        let mut names: Vec<&str> = primary.pk.field_names();
        for n in primary.sk.field_names() {
            if !names.contains(&n) {
                names.push(n);
            }
        }
        names.into_iter().map(|n| self.field(n)).collect()
    }

    fn schema_items(&self) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let mut items = TokenStream::new();
        let names_const = match &e.attrs.table {
            Some(table) => quote_spanned!(syn::spanned::Spanned::span(table)=> <#table as __de::TableDef>::NAMES),
            None => quote!(&__de::AttributeNames::DEFAULT),
        };
        items.extend(quote! {
            /// The attribute and index names of the entity's table.
            const NAMES: &'static __de::AttributeNames = #names_const;
        });
        let mut gsi_consts = Vec::new();
        for index in e.indexes() {
            let names = IndexNames::new(index.kind);
            let (pk_tpl, sk_tpl, schema) = (&names.pk_tpl, &names.sk_tpl, &names.schema);
            let pk_expr = self.template_expr(&index.pk);
            let sk_expr = self.template_expr(&index.sk);
            let kind = match index.kind {
                IndexKind::Primary => quote!(__de::Index::Primary),
                IndexKind::Gsi(n) => {
                    gsi_consts.push(schema.clone());
                    quote!(__de::Index::Gsi(#n))
                }
                IndexKind::Lsi(_) => unreachable!("LSIs are not in `indexes()`"),
            };
            // With the inverted index, the table's `PK` is also that index's sort key, limited
            // to a sort key's 1,024 bytes.
            let partition_limit = !(index.kind == IndexKind::Primary && e.attrs.inverted.is_some());
            let pk_fn = self.writer_fn(&names.pk_fn, pk_tpl, &index.kind.pk_attribute(), &index.pk, partition_limit);
            let sk_fn = self.writer_fn(&names.sk_fn, sk_tpl, &index.kind.sk_attribute(), &index.sk, false);
            items.extend(quote! {
                const #pk_tpl: __de::Template = #pk_expr;
                const #sk_tpl: __de::Template = #sk_expr;
                const #schema: __de::IndexSchema =
                    __de::IndexSchema { index: #kind, pk: &Self::#pk_tpl, sk: &Self::#sk_tpl };
                #pk_fn
                #sk_fn
            });
            if let IndexKind::Gsi(_) = index.kind {
                items.extend(self.gsi_fn(index, &names));
            }
        }

        // LSIs: the sort key template and its writer; the partition key is the primary one.
        let mut lsi_consts = Vec::new();
        let ident = e.ident;
        for lsi in &e.lsis {
            let (n, kind) = (lsi.n, IndexKind::Lsi(lsi.n));
            let names = IndexNames::new(kind);
            let (sk_tpl, schema, sk_fn) = (&names.sk_tpl, &names.schema, &names.sk_fn);
            let sk_expr = self.template_expr(&lsi.sk);
            let writer = self.writer_fn(sk_fn, sk_tpl, &kind.sk_attribute(), &lsi.sk, false);
            let fn_name = format_ident!("lsi{n}");
            let sk_parts = self.self_parts(&lsi.sk, quote!(this));
            items.extend(quote! {
                const #sk_tpl: __de::Template = #sk_expr;
                const #schema: __de::IndexSchema =
                    __de::IndexSchema { index: __de::Index::Lsi(#n), pk: &Self::PRIMARY_PK, sk: &Self::#sk_tpl };
                #writer
                /// The LSI's sort key of `this`; `None` when a part is `None`.
                #[inline]
                fn #fn_name(this: &#ident) -> __de::Result<::core::option::Option<__de::AttributeValue>, __de::Error> {
                    __de::Result::Ok(Self::#sk_fn(#(#sk_parts),*)?.finish_sparse()?)
                }
            });
            lsi_consts.push(schema.clone());
        }

        let field_schema = |f: &Field| {
            let (field, attribute) = (&f.name, &f.attribute);
            let optional = types::option_inner(f.ty).is_some();
            let unique = f.unique.is_some();
            quote!(__de::FieldSchema { field: #field, attribute: #attribute, optional: #optional, unique: #unique })
        };
        let fields = e.fields.iter().map(field_schema);
        let role = |m: Maintained| match e.maintained(m) {
            Some(f) => {
                let schema = field_schema(f);
                quote!(::core::option::Option::Some(#schema))
            }
            None => quote!(::core::option::Option::None),
        };
        let version = match e.maintained(Maintained::Version) {
            Some(f) => {
                let (field, attribute, ty) = (&f.name, &f.attribute, f.ty);
                quote!(::core::option::Option::Some(__de::VersionSchema {
                    field: #field,
                    attribute: #attribute,
                    max: <#ty as __de::VersionNumber>::MAX_VERSION,
                }))
            }
            None => quote!(::core::option::Option::None),
        };
        let (created_at, updated_at, ttl) =
            (role(Maintained::CreatedAt), role(Maintained::UpdatedAt), role(Maintained::Ttl));
        let inverted = if e.attrs.inverted.is_some() {
            items.extend(quote! {
                /// The inverted index: partition key `SK` (the primary sort key template), sort
                /// key `PK` (the primary partition key template).
                const INVERTED: __de::IndexSchema = __de::IndexSchema {
                    index: __de::Index::Inverted,
                    pk: &Self::PRIMARY_SK,
                    sk: &Self::PRIMARY_PK,
                };
            });
            quote!(::core::option::Option::Some(Self::INVERTED))
        } else {
            quote!(::core::option::Option::None)
        };
        items.extend(quote! {
            const SCHEMA: __de::EntitySchema = __de::EntitySchema {
                name: #name,
                names: Self::NAMES,
                primary: Self::PRIMARY,
                gsis: &[#(Self::#gsi_consts),*],
                inverted: #inverted,
                lsis: &[#(Self::#lsi_consts),*],
                fields: &[#(#fields),*],
                version: #version,
                created_at: #created_at,
                updated_at: #updated_at,
                ttl: #ttl,
            };
        });

        // The primary key from its distinct fields, for `Entity::primary_key` and `key()`.
        let key_fields = self.primary_key_fields();
        let params: Vec<Ident> = (0..key_fields.len()).map(|i| format_ident!("p{i}")).collect();
        let generics: Vec<Ident> = (0..key_fields.len()).map(|i| format_ident!("P{i}")).collect();
        let primary = e.primary.as_ref().expect("checked entities have a primary key");
        let arg = |t: &KeyTemplate| -> Vec<Ident> {
            t.field_names()
                .into_iter()
                .map(|n| params[key_fields.iter().position(|f| f.name == n).expect("key field")].clone())
                .collect()
        };
        let (pk_args, sk_args) = (arg(&primary.pk), arg(&primary.sk));
        let (pk_name, sk_name) = (self.attr("PK"), self.attr("SK"));
        let check_key = if e.attrs.table.is_some() {
            quote!(__de::check_key_named(item, Self::NAMES, #name, Self::primary_key(#(#params),*)))
        } else {
            quote!(__de::check_key(item, #name, Self::primary_key(#(#params),*)))
        };
        items.extend(quote! {
            /// Encodes the primary key from its parts: the partition key's, then the sort key's
            /// that are not in the partition key.
            #[inline]
            fn primary_key<#(#generics: __de::KeyPart + ?::core::marker::Sized),*>(
                #(#params: &#generics),*
            ) -> __de::Result<__de::PrimaryKey, __de::Error> {
                __de::Result::Ok(__de::PrimaryKey {
                    pk: Self::primary_pk(#(#pk_args),*)?.finish()?,
                    sk: Self::primary_sk(#(#sk_args),*)?.finish()?,
                })
            }

            /// Whether an item read from the table has the primary key its fields give (an
            /// item without `PK`/`SK`, from a projection, passes); the error names the key.
            #[inline]
            fn check_primary_key<#(#generics: __de::KeyPart + ?::core::marker::Sized),*>(
                item: &__de::Item,
                #(#params: &#generics),*
            ) -> __de::Result<(), __de::Error> {
                let mut pk = __de::KeyMatcher::new(&Self::PRIMARY_PK, item.get(#pk_name));
                #( pk.part(#pk_args); )*
                let mut sk = __de::KeyMatcher::new(&Self::PRIMARY_SK, item.get(#sk_name));
                #( sk.part(#sk_args); )*
                if pk.finish() && sk.finish() {
                    return __de::Result::Ok(());
                }
                #check_key
            }

            /// Finishes a complete key, such as a query's partition key.
            #[inline]
            fn finish(
                w: __de::Result<__de::KeyWriter, __de::Error>,
            ) -> __de::Result<__de::AttributeValue, __de::Error> {
                __de::Result::Ok(w?.finish()?)
            }
        });
        items
    }

    /// Both keys of one GSI from an entity value, each `None` when a part is absent.
    fn gsi_fn(&self, index: &IndexKeys, names: &IndexNames) -> TokenStream {
        let ident = self.e.ident;
        let IndexKind::Gsi(n) = index.kind else { unreachable!() };
        let fn_name = format_ident!("gsi{n}");
        let (pk_fn, sk_fn) = (&names.pk_fn, &names.sk_fn);
        let pk_parts = self.self_parts(&index.pk, quote!(this));
        let sk_parts = self.self_parts(&index.sk, quote!(this));
        quote! {
            /// The GSI's partition and sort key of `this`; `None` when a part is `None`.
            #[inline]
            fn #fn_name(this: &#ident) -> __de::Result<
                (::core::option::Option<__de::AttributeValue>, ::core::option::Option<__de::AttributeValue>),
                __de::Error,
            > {
                __de::Result::Ok((
                    Self::#pk_fn(#(#pk_parts),*)?.finish_sparse()?,
                    Self::#sk_fn(#(#sk_parts),*)?.finish_sparse()?,
                ))
            }
        }
    }

    /// `&this.field` for each placeholder of `t`, `ShardBy::Source(&this.field)` for its shard
    /// suffix, in template order.
    fn self_parts(&self, t: &KeyTemplate, this: TokenStream) -> Vec<TokenStream> {
        t.parsed
            .iter()
            .flat_map(|p| &p.segments)
            .filter_map(|s| match s {
                Segment::Literal(_) => None,
                Segment::Field { name, .. } => {
                    let member = self.field(name).ident;
                    Some(quote!(&#this.#member))
                }
                Segment::Shard { field, .. } => {
                    let member = self.field(field).ident;
                    Some(quote!(__de::ShardBy::Source(&#this.#member)))
                }
            })
            .collect()
    }

    // -----------------------------------------------------------------------------------------
    // impl Entity

    fn entity_impl(&self) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let key_args: Vec<TokenStream> = self
            .primary_key_fields()
            .iter()
            .map(|f| {
                let member = f.ident;
                quote!(&self.#member)
            })
            .collect();
        let value_key_args: Vec<TokenStream> = self
            .primary_key_fields()
            .iter()
            .map(|f| {
                let member = f.ident;
                quote!(&value.#member)
            })
            .collect();
        let capacity = e.fields.len() + 2 + 2 * e.gsis.len() + e.lsis.len() + 1;

        let put_gsis = e.gsis.iter().map(|g| {
            let f = format_ident!(
                "gsi{}",
                match g.kind {
                    IndexKind::Gsi(n) => n,
                    IndexKind::Primary | IndexKind::Lsi(_) => unreachable!(),
                }
            );
            let (pk_attr, sk_attr) = (self.attr(&g.kind.pk_attribute()), self.attr(&g.kind.sk_attribute()));
            quote! {
                let (pk, sk) = __DeSchema::#f(self)?;
                __de::put_gsi(&mut item, #pk_attr, pk, #sk_attr, sk);
            }
        });
        let put_lsis = e.lsis.iter().map(|l| {
            let f = format_ident!("lsi{}", l.n);
            let sk_attr = self.attr(&IndexKind::Lsi(l.n).sk_attribute());
            quote!(__de::put_lsi(&mut item, #sk_attr, __DeSchema::#f(self)?);)
        });
        let put_fields = e.fields.iter().map(|f| {
            let (member, field, attribute) = (f.ident, &f.name, &f.attribute);
            if f.serde {
                // A type without serde's traits fails here: make the call span the field type.
                let (first, last) = (types::first_span(f.ty), types::last_span(f.ty));
                let mut member = member.clone();
                member.set_span(last);
                let amp = quote_spanned!(first=> &);
                let callee = quote_spanned!(first=> __de::put_serde);
                let args = quote_spanned!(last=> (&mut item, #name, #field, #attribute, #amp self.#member));
                quote!(#callee #args ?;)
            } else if f.role() == Some(Maintained::Ttl) {
                quote!(__de::put_ttl(&mut item, #name, #field, #attribute, &self.#member)?;)
            } else {
                quote!(__de::put_field(&mut item, #name, #field, #attribute, &self.#member)?;)
            }
        });
        // The fields' attributes are picked in one pass over the item (`pick_attributes`), then
        // each decoded from its slot.
        let field_attributes: Vec<&str> = e.fields.iter().map(|f| f.attribute.as_str()).collect();
        let field_slots = (0..field_attributes.len()).map(syn::Index::from);
        let n_fields = field_attributes.len();
        let pick = quote! {
            let __a = __de::pick_attributes::<#n_fields>(item, &[#(#field_attributes),*], |k| match k {
                #(#field_attributes => ::core::option::Option::Some(#field_slots),)*
                _ => ::core::option::Option::None,
            });
        };
        let get_fields = e.fields.iter().enumerate().map(|(i, f)| {
            let (member, attribute) = (f.ident, &f.attribute);
            let i = syn::Index::from(i);
            if f.serde {
                let (first, last) = (types::first_span(f.ty), types::last_span(f.ty));
                let callee = quote_spanned!(first=> __de::serde_at);
                let args = quote_spanned!(last=> (item, __a[#i], #name, #attribute));
                quote!(#member: #callee #args ?)
            } else {
                match f.role() {
                    Some(Maintained::Ttl) => quote!(#member: __de::ttl_at(item, __a[#i], #name, #attribute)?),
                    Some(Maintained::Version) => quote!(#member: __de::version_at(item, __a[#i], #name, #attribute)?),
                    _ => quote!(#member: __de::field_at(item, __a[#i], #name, #attribute)?),
                }
            }
        });
        let gsi_keys = if e.gsis.is_empty() && e.lsis.is_empty() {
            quote!(__de::Result::Ok(::std::vec::Vec::new()))
        } else {
            let count = 2 * e.gsis.len() + e.lsis.len();
            let pushes = e.gsis.iter().map(|g| {
                let IndexKind::Gsi(n) = g.kind else { unreachable!() };
                let f = format_ident!("gsi{n}");
                let (pk_attr, sk_attr) = (self.attr(&g.kind.pk_attribute()), self.attr(&g.kind.sk_attribute()));
                quote!(__de::push_gsi_keys(&mut keys, #pk_attr, #sk_attr, __DeSchema::#f(self)?);)
            });
            let lsi_pushes = e.lsis.iter().map(|l| {
                let f = format_ident!("lsi{}", l.n);
                let sk_attr = self.attr(&IndexKind::Lsi(l.n).sk_attribute());
                quote!(__de::push_lsi_key(&mut keys, #sk_attr, __DeSchema::#f(self)?);)
            });
            quote! {
                let mut keys = ::std::vec::Vec::with_capacity(#count);
                #(#pushes)*
                #(#lsi_pushes)*
                __de::Result::Ok(keys)
            }
        };

        let (pk_name, sk_name) = (self.attr("PK"), self.attr("SK"));
        let from_item_body = quote! {
            #pick
            let value = Self { #(#get_fields),* };
            __DeSchema::check_primary_key(item, #(#value_key_args),*)?;
            __de::Result::Ok(value)
        };
        let (put_type, check_type, names) = if e.attrs.table.is_some() {
            (
                quote!(__de::put_type_named(&mut item, __DeSchema::NAMES.entity_type, #name)),
                quote!(__de::check_type_named(item, __DeSchema::NAMES, #name)),
                quote! {
                    const NAMES: &'static __de::AttributeNames = __DeSchema::NAMES;
                },
            )
        } else {
            (quote!(__de::put_type(&mut item, #name)), quote!(__de::check_type(item, #name)), quote!())
        };
        // Under a table's own names, the errors of the field readers are given the item's key
        // under those names.
        let from_item_body = if e.attrs.table.is_some() {
            quote! {
                let decode = || -> __de::Result<Self, __de::Error> { #from_item_body };
                decode().map_err(|e| __de::with_key_names(e, item, __DeSchema::NAMES))
            }
        } else {
            from_item_body
        };
        quote! {
            const TYPE: &'static str = #name;
            #names

            const SCHEMA: &'static __de::EntitySchema = &__DeSchema::SCHEMA;

            #[cfg_attr(debug_assertions, inline)]
            fn to_item(&self) -> __de::Result<__de::Item, __de::Error> {
                let __de::PrimaryKey { pk, sk } = __DeSchema::primary_key(#(#key_args),*)?;
                let mut item = __de::Item::with_capacity(#capacity);
                item.insert(::std::string::String::from(#pk_name), pk);
                item.insert(::std::string::String::from(#sk_name), sk);
                #(#put_gsis)*
                #(#put_lsis)*
                #(#put_fields)*
                #put_type;
                __de::Result::Ok(item)
            }

            #[cfg_attr(debug_assertions, inline)]
            fn from_item(item: &__de::Item) -> __de::Result<Self, __de::Error> {
                #check_type?;
                #from_item_body
            }

            #[inline]
            fn primary_key(&self) -> __de::Result<__de::PrimaryKey, __de::Error> {
                __DeSchema::primary_key(#(#key_args),*)
            }

            #[cfg_attr(debug_assertions, inline)]
            fn gsi_keys(&self) -> __de::Result<::std::vec::Vec<(&'static str, __de::AttributeValue)>, __de::Error> {
                #gsi_keys
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // impl X

    /// `&<T as KeyPart>::Arg` for a field's type; spelled out for the runtime's own types so the
    /// docs read `category: &str`.
    fn arg_type(f: &Field) -> TokenStream {
        let ty = f.ty;
        let inner = types::option_inner(ty).unwrap_or(ty);
        match types::key_part(ty) {
            KeyPartType::Builtin if is_named(inner, "String") => quote!(&str),
            KeyPartType::Builtin => quote!(&#inner),
            _ => quote!(&<#ty as __de::KeyPart>::Arg),
        }
    }

    /// The parameters (`name: &Arg`) of a query or key function.
    fn params(fields: &[&Field]) -> Vec<TokenStream> {
        fields
            .iter()
            .map(|f| {
                let ident = f.ident;
                let ty = Self::arg_type(f);
                quote!(#ident: #ty)
            })
            .collect()
    }

    fn inherent_items(&self) -> TokenStream {
        let e = self.e;
        let vis = e.vis;
        let mut items = TokenStream::new();
        let primary = e.primary.as_ref().expect("checked entities have a primary key");

        // key()
        let key_fields = self.primary_key_fields();
        let params = Self::params(&key_fields);
        let args = key_fields.iter().map(|f| f.ident);
        let doc = format!(
            "The primary key of a `{}`: `PK = {}`, `SK = {}`.\n\nAn encoding error (such as an empty \
             part) is kept in the key and returned by the operation that uses it.",
            e.ident,
            primary.pk.source(),
            primary.sk.source()
        );
        items.extend(quote! {
            #[doc = #doc]
            #[must_use]
            #[inline]
            #vis fn key(#(#params),*) -> __de::Key<Self> {
                __de::Key::new(__DeSchema::primary_key(#(#args),*))
            }
        });

        // query() and gsiN()
        for index in e.indexes() {
            items.extend(self.query_fn(index));
        }
        if e.attrs.inverted.is_some() {
            items.extend(self.inverted_fn(primary));
        }
        for lsi in &e.lsis {
            items.extend(self.lsi_fn(primary, lsi));
        }

        // Field handles.
        for f in &e.fields {
            let constant = Ident::new(&screaming_snake(&f.name), Span::call_site());
            let ty = f.ty;
            let (field, attribute) = (&f.name, &f.attribute);
            let fvis = f.vis;
            let in_primary = e.is_primary_key_field(&f.name);
            let part = if e.is_key_field(&f.name) {
                quote!(::core::option::Option::Some(<#ty as __de::KeyPart>::write_part))
            } else {
                quote!(::core::option::Option::None)
            };
            let unique = f.unique.is_some();
            let role = f.role();
            let marker = if in_primary {
                quote!(, __de::Immutable)
            } else if unique {
                quote!(, __de::Unique)
            } else if matches!(role, Some(Maintained::Version | Maintained::CreatedAt | Maintained::UpdatedAt)) {
                quote!(, __de::Maintained)
            } else {
                quote!()
            };
            // A TTL field's handle takes its stored form, epoch seconds.
            let ty = match role {
                Some(Maintained::Ttl) if types::option_inner(ty).is_some() => {
                    quote!(::core::option::Option<__de::EpochSeconds>)
                }
                Some(Maintained::Ttl) => quote!(__de::EpochSeconds),
                _ => quote!(#ty),
            };
            let mut doc = format!("The `{field}` field of `{}`, stored in attribute `{attribute}`.", e.ident);
            doc.push_str(match role {
                Some(Maintained::Version) => {
                    "\n\nThe version (`#[entity(version)]`): every write checks it and stores the next one. \
                     Conditions can use it; no update can set it."
                }
                Some(Maintained::CreatedAt) => {
                    "\n\nThe creation time (`#[entity(created_at)]`), set by a create. Conditions can use it; no \
                     update can set it."
                }
                Some(Maintained::UpdatedAt) => {
                    "\n\nThe time of the last write (`#[entity(updated_at)]`), set by every write. Conditions can \
                     use it; no update can set it."
                }
                Some(Maintained::Ttl) => {
                    "\n\nThe time to live (`#[entity(ttl)]`), stored as a number of seconds since the Unix epoch: \
                     the handle takes `EpochSeconds`."
                }
                None => "",
            });
            if unique {
                doc.push_str(
                    "\n\nUnique: a guard item claims each value. Change it with `UpdateRequest::set_unique`, \
                     which moves the guard in the same transaction.",
                );
            }
            if in_primary {
                doc.push_str("\n\nPart of the primary key: no update can change it.");
            } else {
                let mut gsis: Vec<String> = e
                    .gsis
                    .iter()
                    .filter(|g| {
                        g.pk.field_names().contains(&field.as_str())
                            || g.sk.field_names().contains(&field.as_str())
                            || g.pk.parsed.as_ref().and_then(|p| p.shard()).is_some_and(|(f, ..)| f == field)
                    })
                    .map(|g| format!("`{}`", g.kind.pk_attribute().trim_end_matches("PK")))
                    .collect();
                gsis.extend(
                    e.lsis
                        .iter()
                        .filter(|l| l.sk.field_names().contains(&field.as_str()))
                        .map(|l| format!("`LSI{}`", l.n)),
                );
                if !gsis.is_empty() {
                    doc.push_str(&format!(
                        "\n\nPart of the key of {}: an update that sets it rewrites that key.",
                        gsis.join(", ")
                    ));
                }
            }
            items.extend(quote! {
                #[doc = #doc]
                #fvis const #constant: __de::Field<Self, #ty #marker> = __de::Field::new(#field, #attribute, #part);
            });
        }
        items
    }

    fn query_fn(&self, index: &IndexKeys) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let vis = e.vis;
        let names = IndexNames::new(index.kind);
        let (schema, pk_fn) = (&names.schema, &names.pk_fn);
        let pk_fields: Vec<&Field> = index.pk.field_names().into_iter().map(|n| self.field(n)).collect();
        let params = Self::params(&pk_fields);
        let args = pk_fields.iter().map(|f| f.ident);
        let sk_types: Vec<&Type> = index.sk.field_names().into_iter().map(|n| self.field(n).ty).collect();
        let (pk_attr, sk_attr) = (index.kind.pk_attribute(), index.kind.sk_attribute());
        let (fn_name, which) = match index.kind {
            IndexKind::Primary => (format_ident!("query"), "the table".to_owned()),
            IndexKind::Gsi(n) => (format_ident!("gsi{n}"), format!("`GSI{n}`")),
            IndexKind::Lsi(_) => unreachable!("LSI queries come from `lsi_fn`"),
        };
        let mut doc = format!(
            "Query {which}: `{pk_attr} = {}`, sorted by `{sk_attr}` (`{}`).",
            index.pk.source(),
            index.sk.source()
        );
        if sk_types.is_empty() {
            doc.push_str(
                "\n\nThe sort key is a constant: the query returns the items of this entity in the partition.",
            );
        } else {
            doc.push_str("\n\nSort-key conditions take the parts of the sort key in order: ");
            let parts: Vec<String> = index.sk.field_names().iter().map(|n| format!("`{n}`")).collect();
            doc.push_str(&parts.join(", "));
            doc.push('.');
        }
        let optional: Vec<String> = index
            .pk
            .field_names()
            .into_iter()
            .chain(index.sk.field_names())
            .filter(|n| types::option_inner(self.field(n).ty).is_some())
            .map(|n| format!("`{n}`"))
            .collect();
        if !optional.is_empty() {
            doc.push_str(&format!("\n\nSparse index: an item whose {} is `None` is not in it.", optional.join(" or ")));
        }
        let shard = index.pk.parsed.as_ref().and_then(|p| p.shard().map(|(f, n, ..)| (f.to_owned(), n)));
        let Some((source, count)) = shard else {
            return quote! {
                #[doc = #doc]
                #[must_use]
                #[inline]
                #vis fn #fn_name(#(#params),*) -> __de::QuerySpec<Self, (#(#sk_types,)*)> {
                    __de::QuerySpec::new(
                        &__DeSchema::#schema,
                        #name,
                        __DeSchema::finish(__DeSchema::#pk_fn(#(#args),*)),
                    )
                }
            };
        };
        doc.push_str(&format!(
            "\n\nSharded: the partition is spread over {count} shards by `{source}`; the query reads all of them \
             concurrently and merges them in sort-key order, with one cursor for all (see \
             `dynamo_entity::shard`)."
        ));
        // The writer's arguments in template order, with the shard number in place of the shard.
        let mut fields = pk_fields.iter().map(|f| f.ident);
        let shard_args: Vec<TokenStream> = index
            .pk
            .parsed
            .iter()
            .flat_map(|p| &p.segments)
            .filter_map(|s| match s {
                Segment::Literal(_) => None,
                Segment::Field { .. } => fields.next().map(|i| quote!(#i)),
                Segment::Shard { .. } => Some(quote!(__de::ShardBy::<str>::Index(shard))),
            })
            .collect();
        quote! {
            #[doc = #doc]
            #[must_use]
            #[inline]
            #vis fn #fn_name(#(#params),*) -> __de::QuerySpec<Self, (#(#sk_types,)*)> {
                __de::QuerySpec::sharded(
                    &__DeSchema::#schema,
                    #name,
                    __de::shard_keys(#count, |shard| __DeSchema::#pk_fn(#(#shard_args),*)),
                )
            }
        }
    }
}

impl Gen<'_, '_> {
    /// `lsi<n>(partition key parts)`: the partition `PK = <pk>` of LSI number n, sorted by
    /// `LSI<n>SK`, whose sort-key conditions take the parts of the LSI's sort key template.
    fn lsi_fn(&self, primary: &IndexKeys, lsi: &LsiKeys) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let vis = e.vis;
        let n = lsi.n;
        let fn_name = format_ident!("lsi{n}");
        let schema = format_ident!("LSI{n}");
        let pk_fields: Vec<&Field> = primary.pk.field_names().into_iter().map(|f| self.field(f)).collect();
        let params = Self::params(&pk_fields);
        let args = pk_fields.iter().map(|f| f.ident);
        let sk_types: Vec<&Type> = lsi.sk.field_names().into_iter().map(|f| self.field(f).ty).collect();
        let parts: Vec<String> = lsi.sk.field_names().iter().map(|f| format!("`{f}`")).collect();
        let mut doc = format!(
            "Query the local secondary index `LSI{n}`: `PK = {pk}` (the partition of `query`), sorted by \
             `LSI{n}SK` (`{sk}`).\n\nSort-key conditions take the parts of the LSI's sort key in order: {parts}. \
             Strongly consistent reads are available (`consistent_read`), as on the table.",
            pk = primary.pk.source(),
            sk = lsi.sk.source(),
            parts = parts.join(", "),
        );
        let optional: Vec<String> = lsi
            .sk
            .field_names()
            .into_iter()
            .filter(|f| types::option_inner(self.field(f).ty).is_some())
            .map(|f| format!("`{f}`"))
            .collect();
        if !optional.is_empty() {
            doc.push_str(&format!("\n\nSparse index: an item whose {} is `None` is not in it.", optional.join(" or ")));
        }
        quote! {
            #[doc = #doc]
            #[must_use]
            #[inline]
            #vis fn #fn_name(#(#params),*) -> __de::QuerySpec<Self, (#(#sk_types,)*)> {
                __de::QuerySpec::new(
                    &__DeSchema::#schema,
                    #name,
                    __DeSchema::finish(__DeSchema::primary_pk(#(#args),*)),
                )
            }
        }
    }

    /// `inverted(sort key parts)`: the partition `SK = <sort key>` of the inverted index, whose
    /// sort-key conditions take the primary partition key's parts.
    fn inverted_fn(&self, primary: &IndexKeys) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let vis = e.vis;
        // Parameters: the sort key's distinct fields; arguments: one per placeholder.
        let mut sk_fields: Vec<&Field> = Vec::new();
        for n in primary.sk.field_names() {
            if !sk_fields.iter().any(|f| f.name == n) {
                sk_fields.push(self.field(n));
            }
        }
        let params = Self::params(&sk_fields);
        let args: Vec<&Ident> = primary.sk.field_names().into_iter().map(|n| self.field(n).ident).collect();
        let pk_types: Vec<&Type> = primary.pk.field_names().into_iter().map(|n| self.field(n).ty).collect();
        let parts: Vec<String> = primary.pk.field_names().iter().map(|n| format!("`{n}`")).collect();
        let doc = format!(
            "Query the inverted index `{index}`: `SK = {sk}`, sorted by `PK` (`{pk}`): every `{ident}` whose sort \
             key is this one, across all partitions (the other end of an adjacency list).\n\n\
             Sort-key conditions take the parts of the partition key in order: {parts}.\n\n\
             The index is not sparse: it holds every item of the table, and each write costs one more \
             write in it.",
            index = "INVERTED",
            sk = primary.sk.source(),
            pk = primary.pk.source(),
            ident = e.ident,
            parts = parts.join(", "),
        );
        quote! {
            #[doc = #doc]
            #[must_use]
            #[inline]
            #vis fn inverted(#(#params),*) -> __de::QuerySpec<Self, (#(#pk_types,)*)> {
                __de::QuerySpec::new(
                    &__DeSchema::INVERTED,
                    #name,
                    __DeSchema::finish(__DeSchema::primary_sk(#(#args),*)),
                )
            }
        }
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == name))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands `#[derive(Entity)]` on `src`, checking the output is valid Rust; the output
    /// without spaces, for simple `contains` checks.
    fn expand(src: &str) -> String {
        let input: DeriveInput = syn::parse_str(src).unwrap();
        let out = derive_entity(&input);
        syn::parse2::<syn::File>(out.clone()).expect("the expansion is valid Rust");
        out.to_string().replace(' ', "")
    }

    const SKILL: &str = r#"
        #[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<downloads>",
                 gsi4 = "SKILL#<status>", gsi4_sk = "<submitted_at>")]
        pub struct Skill {
            pub id: SkillId,
            pub title: String,
            pub category: String,
            pub status: SkillStatus,
            pub downloads: u64,
            pub submitted_at: Option<Timestamp>,
            #[entity(rename = "verified")]
            pub seller_verified: bool,
        }
    "#;

    #[test]
    fn skill() {
        let out = expand(SKILL);
        // Only the user's types are spelled out as bounds.
        assert!(out.contains("whereSkillId:::dynamo_entity::__private::KeyPart,SkillId:::dynamo_entity::__private::Attribute,SkillStatus:::dynamo_entity::__private::KeyPart,SkillStatus:::dynamo_entity::__private::Attribute{"));
        assert!(!out.contains("String:::dynamo_entity"));
        // Templates: a single numeric-capable placeholder asks the runtime for its key type.
        assert!(out.contains(
            r#"segments:&[__de::Segment::Literal("SKILL"),__de::Segment::Field("id")],key_type:__de::KeyType::S"#
        ));
        assert!(out.contains("key_type:__de::single_key_type::<u64>()"));
        assert!(out.contains("gsis:&[Self::GSI1,Self::GSI4]"));
        assert!(out.contains(
            r#"__de::FieldSchema{field:"seller_verified",attribute:"verified",optional:false,unique:false}"#
        ));
        // to_item: exact capacity, keys, GSIs, fields, type.
        assert!(out.contains("__de::Item::with_capacity(14usize)"));
        assert!(out.contains(r#"__de::put_gsi(&mutitem,"GSI4PK",pk,"GSI4SK",sk);"#));
        // GSI keys: each `None` when a part is absent; `gsi_keys` collects them in the runtime.
        assert!(out.contains(r#"__de::push_gsi_keys(&mutkeys,"GSI4PK","GSI4SK",__DeSchema::gsi4(self)?);"#));
        assert!(
            out.contains(r#"__de::put_field(&mutitem,"Skill","seller_verified","verified",&self.seller_verified)?;"#)
        );
        assert!(out.contains(r#"__de::put_type(&mutitem,"Skill");"#));
        // No code generation in the deriving crate: every function is generic or `#[inline]`.
        for f in ["fnprimary_key(", "pubfnkey(", "pubfnquery(", "pubfngsi1("] {
            assert!(out.contains(&format!("#[inline]{f}")), "{f} is not #[inline]");
        }
        for f in ["fnto_item(", "fnfrom_item(", "fngsi_keys("] {
            assert!(out.contains(&format!("#[cfg_attr(debug_assertions,inline)]{f}")), "{f} is not #[inline] in debug");
        }
        assert!(out.contains(r#"seller_verified:__de::field_at(item,__a[6],"Skill","verified")?"#));
        // The fields' attributes are picked in one pass, by a match on their names.
        assert!(out.contains(
            r#""submitted_at"=>::core::option::Option::Some(5),"verified"=>::core::option::Option::Some(6),"#
        ));
        // The inherent functions, typed by the fields.
        assert!(out.contains("pubfnkey(id:&<SkillIdas__de::KeyPart>::Arg)->__de::Key<Self>"));
        assert!(out.contains("pubfnquery(id:&<SkillIdas__de::KeyPart>::Arg)->__de::QuerySpec<Self,()>"));
        assert!(out.contains("pubfngsi1(category:&str)->__de::QuerySpec<Self,(u64,)>"));
        assert!(out.contains(
            "pubfngsi4(status:&<SkillStatusas__de::KeyPart>::Arg)->__de::QuerySpec<Self,(Option<Timestamp>,)>"
        ));
        // Field handles: primary key fields are immutable, key fields carry their part writer.
        assert!(out.contains("pubconstID:__de::Field<Self,SkillId,__de::Immutable>"));
        assert!(out.contains("pubconstDOWNLOADS:__de::Field<Self,u64>=__de::Field::new(\"downloads\",\"downloads\",::core::option::Option::Some(<u64as__de::KeyPart>::write_part))"));
        assert!(out.contains(
            "pubconstTITLE:__de::Field<Self,String>=__de::Field::new(\"title\",\"title\",::core::option::Option::None)"
        ));
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn key_parameters_are_distinct_fields_in_template_order() {
        let out = expand(
            r#"
            #[entity(pk = "USER#<user>", sk = "ORDER#<created_at>#<user>#<line>")]
            struct OrderLine { line: u16, user: String, created_at: Timestamp, qty: u32 }
        "#,
        );
        assert!(out.contains("fnkey(user:&str,created_at:&Timestamp,line:&u16)"));
        assert!(out.contains("fnquery(user:&str)->__de::QuerySpec<Self,(Timestamp,String,u16,)>"));
        assert!(out.contains("pk:Self::primary_pk(p0)?.finish()?,sk:Self::primary_sk(p1,p0,p2)?.finish()?"));
        // Private struct: private functions; no GSIs: no GSI keys.
        assert!(out.contains("fnkey(") && !out.contains("pubfnkey("));
        assert!(out.contains("gsis:&[]"));
        assert!(out.contains("__de::Result::Ok(::std::vec::Vec::new())"));
    }

    #[test]
    fn constant_keys_and_serde_fields() {
        let out = expand(
            r#"
            #[entity(pk = "CONFIG", sk = "GLOBAL", name = "Cfg")]
            pub struct Config { #[entity(serde)] pub(crate) rules: Rules, pub r#type: String }
        "#,
        );
        assert!(out.contains("pubfnkey()->__de::Key<Self>"));
        assert!(out.contains(r#"constTYPE:&'staticstr="Cfg";"#));
        assert!(out.contains(r#"__de::put_serde(&mutitem,"Cfg","rules","rules",&self.rules)?;"#));
        assert!(out.contains(r#"rules:__de::serde_at(item,__a[0],"Cfg","rules")?"#));
        assert!(out.contains("pub(crate)constRULES:__de::Field<Self,Rules>"));
        assert!(out.contains(r#"pubconstTYPE:__de::Field<Self,String>=__de::Field::new("type","type""#));
        // A serde field needs no `Attribute` bound.
        assert!(!out.contains("Rules:::dynamo_entity"));
    }

    #[test]
    fn errors_come_with_a_stub_impl() {
        let out = expand(
            r#"
            #[entity(pk = "SKILL#<ids>", sk = "META", gsi2 = "X")]
            pub struct Skill { pub id: String, pub price: f64 }
        "#,
        );
        assert_eq!(out.matches("compile_error!").count(), 2, "{out}");
        assert!(out.contains("impl__de::Entityfor Skill".replace(' ', "").as_str()));
        assert!(out.contains("::core::unreachable!()"));
        assert!(!out.contains("fnkey"));
    }

    #[test]
    fn unique_fields_are_in_the_schema_with_their_own_handle_marker() {
        let out = expand(
            r#"
            #[entity(pk = "USER#<id>", sk = "PROFILE")]
            pub struct User { pub id: String, #[entity(unique, rename = "mail")] pub email: String,
                              #[entity(unique)] pub handle: Option<String>, #[entity(unique)] pub ssn: Vec<u8> }
        "#,
        );
        assert!(out.contains(r#"__de::FieldSchema{field:"email",attribute:"mail",optional:false,unique:true}"#));
        assert!(out.contains(r#"__de::FieldSchema{field:"handle",attribute:"handle",optional:true,unique:true}"#));
        assert!(out.contains(r#"__de::FieldSchema{field:"id",attribute:"id",optional:false,unique:false}"#));
        assert!(out.contains("pubconstEMAIL:__de::Field<Self,String,__de::Unique>"));
        assert!(out.contains("pubconstHANDLE:__de::Field<Self,Option<String>,__de::Unique>"));
        assert!(out.contains("pubconstID:__de::Field<Self,String,__de::Immutable>"));
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn maintained_fields_are_in_the_schema_with_their_handles() {
        let out = expand(
            r#"
            #[entity(pk = "DOC#<id>", sk = "META")]
            pub struct Doc { pub id: String, #[entity(version, rename = "v")] pub version: u32,
                             #[entity(created_at)] pub created_at: Timestamp,
                             #[entity(updated_at)] pub updated_at: Timestamp,
                             #[entity(ttl)] pub expires_at: Option<Timestamp>, pub title: String }
        "#,
        );
        assert!(out.contains(
            r#"version:::core::option::Option::Some(__de::VersionSchema{field:"version",attribute:"v",max:<u32as__de::VersionNumber>::MAX_VERSION,})"#
        ));
        assert!(out.contains(
            r#"created_at:::core::option::Option::Some(__de::FieldSchema{field:"created_at",attribute:"created_at",optional:false,unique:false})"#
        ));
        assert!(out.contains(r#"updated_at:::core::option::Option::Some(__de::FieldSchema{field:"updated_at""#));
        assert!(out.contains(
            r#"ttl:::core::option::Option::Some(__de::FieldSchema{field:"expires_at",attribute:"expires_at",optional:true,unique:false})"#
        ));
        // The version reads 0 when absent; the TTL is stored and read as epoch seconds.
        assert!(out.contains(r#"version:__de::version_at(item,__a[1],"Doc","v")?"#));
        assert!(out.contains(r#"__de::put_ttl(&mutitem,"Doc","expires_at","expires_at",&self.expires_at)?;"#));
        assert!(out.contains(r#"expires_at:__de::ttl_at(item,__a[4],"Doc","expires_at")?"#));
        assert!(out.contains(r#"__de::put_field(&mutitem,"Doc","version","v",&self.version)?;"#));
        // Handles: maintained fields cannot be set; the TTL handle takes epoch seconds.
        assert!(out.contains("pubconstVERSION:__de::Field<Self,u32,__de::Maintained>"));
        assert!(out.contains("pubconstCREATED_AT:__de::Field<Self,Timestamp,__de::Maintained>"));
        assert!(out.contains("pubconstUPDATED_AT:__de::Field<Self,Timestamp,__de::Maintained>"));
        assert!(out.contains("pubconstEXPIRES_AT:__de::Field<Self,::core::option::Option<__de::EpochSeconds>>"));
        assert!(out.contains("pubconstTITLE:__de::Field<Self,String>"));
        assert!(!out.contains("compile_error"));

        // Without them, the schema says so.
        let plain = expand(r#"#[entity(pk = "A#<id>", sk = "B")] struct A { id: String }"#);
        assert!(plain.contains(
            "version:::core::option::Option::None,created_at:::core::option::Option::None,updated_at:::core::option::Option::None,ttl:::core::option::Option::None"
        ));
    }

    #[test]
    fn inverted_entities_get_the_inverted_index_and_query() {
        let out = expand(
            r#"
            #[entity(pk = "USER#<user_id>", sk = "WISH#<product_id>#<at>", inverted)]
            pub struct Wish { pub user_id: String, pub product_id: ProductId, pub at: u32 }
        "#,
        );
        assert!(out.contains(
            "constINVERTED:__de::IndexSchema=__de::IndexSchema{index:__de::Index::Inverted,pk:&Self::PRIMARY_SK,sk:&Self::PRIMARY_PK,};"
        ));
        assert!(out.contains("inverted:::core::option::Option::Some(Self::INVERTED)"));
        // The query takes the sort key's parts; its conditions take the partition key's.
        assert!(out.contains(
            "pubfninverted(product_id:&<ProductIdas__de::KeyPart>::Arg,at:&u32)->__de::QuerySpec<Self,(String,)>"
        ));
        assert!(out.contains("__de::QuerySpec::new(&__DeSchema::INVERTED,\"Wish\",__DeSchema::finish(__DeSchema::primary_sk(product_id,at)),)"));
        // The partition key is also the index's sort key: a sort key's 1,024-byte limit.
        assert!(out.contains(r#"letmutw=__de::sk_writer("Wish","PK",&Self::PRIMARY_PK);"#));
        assert!(!out.contains("compile_error"));

        let plain = expand(r#"#[entity(pk = "A#<id>", sk = "B")] struct A { id: String }"#);
        assert!(plain.contains("inverted:::core::option::Option::None"));
        assert!(plain.contains(r#"__de::pk_writer("A","PK",&Self::PRIMARY_PK)"#));
        assert!(!plain.contains("fninverted"));
    }

    #[test]
    fn lsis_write_their_sort_key_and_query_the_table_partition() {
        let out = expand(
            r#"
            #[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<placed_at>", lsi3 = "ST#<status>#<total>")]
            pub struct Order { pub user_id: String, pub id: u32, pub placed_at: Timestamp,
                               pub status: Option<Status>, pub total: u64 }
        "#,
        );
        assert!(out.contains(
            "constLSI1:__de::IndexSchema=__de::IndexSchema{index:__de::Index::Lsi(1u8),pk:&Self::PRIMARY_PK,sk:&Self::LSI1_SK};"
        ));
        assert!(out.contains("lsis:&[Self::LSI1,Self::LSI3]"));
        assert!(out.contains(r#"letmutw=__de::sk_writer("Order","LSI3SK",&Self::LSI3_SK);w.part(p0)?;w.part(p1)?;"#));
        // to_item: one attribute per LSI, sparse; capacity counts it.
        assert!(out.contains("__de::Item::with_capacity(10usize)"));
        assert!(out.contains(r#"__de::put_lsi(&mutitem,"LSI1SK",__DeSchema::lsi1(self)?);"#));
        assert!(out.contains(r#"__de::put_lsi(&mutitem,"LSI3SK",__DeSchema::lsi3(self)?);"#));
        assert!(out.contains(r#"__de::push_lsi_key(&mutkeys,"LSI3SK",__DeSchema::lsi3(self)?);"#));
        // The query takes the partition key's parts; its conditions the LSI sort key's.
        assert!(out.contains("pubfnlsi1(user_id:&str)->__de::QuerySpec<Self,(Timestamp,)>"));
        assert!(out.contains("pubfnlsi3(user_id:&str)->__de::QuerySpec<Self,(Option<Status>,u64,)>"));
        assert!(out.contains(
            r#"__de::QuerySpec::new(&__DeSchema::LSI3,"Order",__DeSchema::finish(__DeSchema::primary_pk(user_id)),)"#
        ));
        // Fields of an LSI sort key carry their part writer, so updates can rebuild it.
        assert!(out.contains("pubconstTOTAL:__de::Field<Self,u64>=__de::Field::new(\"total\",\"total\",::core::option::Option::Some(<u64as__de::KeyPart>::write_part))"));
        assert!(!out.contains("compile_error"));

        let plain = expand(r#"#[entity(pk = "A#<id>", sk = "B")] struct A { id: String }"#);
        assert!(plain.contains("lsis:&[]"));
    }

    #[test]
    fn sharded_partition_keys() {
        let out = expand(
            r#"
            #[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(id, 8)>", gsi1_sk = "<at>")]
            pub struct Job { pub id: String, pub stage: Stage, pub at: u32 }
        "#,
        );
        assert!(out.contains(r#"__de::Segment::Shard{field:"id",count:8u16}"#), "{out}");
        assert!(out.contains("cardinality:__de::Cardinality::of(&[<Stageas__de::KeyPart>::CARDINALITY])"));
        // The writer takes the shard's source (or number) in template order.
        assert!(out.contains(
            "fngsi1_pk<P0:__de::KeyPart+?::core::marker::Sized,P1:__de::KeyPart+?::core::marker::Sized>(p0:&P0,p1:__de::ShardBy<'_,P1>)"
        ));
        assert!(out.contains("w.part(p0)?;w.shard(p1)?;"));
        assert!(out.contains("Self::gsi1_pk(&this.stage,__de::ShardBy::Source(&this.id))"));
        // The query takes the other parts and writes every shard's partition key.
        assert!(out.contains(
            r#"__de::QuerySpec::sharded(&__DeSchema::GSI1,"Job",__de::shard_keys(8u16,|shard|__DeSchema::gsi1_pk(stage,__de::ShardBy::<str>::Index(shard))),)"#
        ));
        assert!(out.contains("pubfngsi1(stage:&<Stageas__de::KeyPart>::Arg)"));
        // The source field's handle carries its part writer, so updates can rebuild the key.
        assert!(out.contains("pubconstID:__de::Field<Self,String,__de::Immutable>=__de::Field::new(\"id\",\"id\",::core::option::Option::Some(<Stringas__de::KeyPart>::write_part))"));
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn generic_structs_get_no_stub() {
        let out = expand("#[entity(pk = \"A\", sk = \"B\")] struct S<T> { t: T }");
        assert_eq!(out.matches("compile_error!").count(), 1);
        assert!(!out.contains("impl"));
    }
}

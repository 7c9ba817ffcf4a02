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
//! The generator is split by what it emits: [`schema`] the constants of `__DeSchema`, [`keys`]
//! the key writers, [`item`] `impl Entity` (encoding and decoding items), [`queries`] `key()`
//! and the query functions, [`fields`] the field handles (for conditions and updates).
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
//! ## Constants as references
//! Each constant of `__DeSchema` (a template, a key context, an index's schema, the entity's
//! schema) is a `&'static` reference to its value, and code uses the reference. A constant of
//! the value itself cost more to compile than all the functions: every `&Self::PRIMARY_PK_CTX`
//! in a body became a promoted constant of its own, evaluated and validated apart, and the
//! compiler's lint for known panics evaluated each again in every function that named it.
//! Fifty entities of `scripts/bench-compile` took 7,860 million compiler instructions, now
//! 7,302 (serde's derives: 6,403). They stay associated constants, under the impl's `where`
//! clause (below): statics or free constants save a little more and cannot have one.
//!
//! ## Trait bounds without cascades
//! A field type the derive cannot vouch for (a user type in a key template, or a non-serde field
//! of a type the runtime has no `Attribute` impl for) is listed in a `where` clause on each of
//! the three impls, with the span of the field type. If the type lacks the trait, each where
//! clause reports the same error at the same place, which the compiler prints once; the bodies
//! and signatures, which assume the bound, report nothing more.

mod fields;
mod item;
mod keys;
mod multi_key;
mod queries;
mod schema;
mod stubs;
mod versions;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::DeriveInput;

use crate::expand::fallback;
use crate::internals::ast::entity::{Entity, Field};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::KeyRole;
use crate::internals::types::{self, KeyPartType};
use crate::pipeline::Derive;

impl<'a> Derive<'a> for Entity<'a> {
    fn from_syn(input: &'a DeriveInput, cx: &Ctxt) -> Option<Self> {
        Entity::from_syn(input, cx)
    }

    fn check(&self, cx: &Ctxt) {
        crate::internals::check::entity::check(self, cx);
    }

    fn expand(&self) -> TokenStream {
        generate(self)
    }

    fn fallback(input: &'a DeriveInput, model: Option<&Self>) -> TokenStream {
        let mut out = fallback::entity(input);
        // The inherent items too (`key`, queries, field handles), so that their use sites report
        // nothing more: one error per mistake. Not for a generic type (no `impl Entity` either).
        if let Some(model) = model.filter(|_| input.generics.params.is_empty()) {
            let inherent = stubs::inherent(model);
            out.extend(quote! {
                const _: () = {
                    use ::dynamo_entity::__private as __de;
                    #inherent
                };
            });
        }
        out
    }
}

/// The generator of one checked entity.
struct Gen<'e, 'a> {
    e: &'e Entity<'a>,
    /// The entity type name as a string literal.
    name: &'e str,
    /// How decode errors name the entity: the type name, or `UserOrder (type ORDER)` when the
    /// Rust type's name differs from it (entities that share a type value are told apart).
    label: String,
}

/// The whole expansion of a checked entity.
fn generate(e: &Entity) -> TokenStream {
    let ident = e.ident.to_string();
    let label = if ident == e.name { e.name.clone() } else { format!("{ident} (type {})", e.name) };
    let g = Gen { e, name: &e.name, label };
    let ident = e.ident;
    let mut bounds = g.bounds();
    bounds.extend(g.multi_key_bounds());
    let where_clause = if bounds.is_empty() { quote!() } else { quote!(where #(#bounds),*) };
    let multi_query_types = g.multi_query_types(&where_clause);

    let schema_items = g.schema_items();
    let entity_impl = g.entity_impl();
    let query_items = g.query_items();
    let field_handles = g.field_handles();
    let vector_search_fns = g.vector_search_fns();
    let schema_chain = g.schema_chain_checks();
    let vector_type_checks = g.vector_type_checks();
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
            #schema_chain
            #vector_type_checks

            #[allow(dead_code)]
            impl __DeSchema #where_clause {
                #schema_items
            }

            #[automatically_derived]
            impl __de::Entity for #ident #where_clause {
                #entity_impl
            }

            #multi_query_types

            #[allow(dead_code)]
            impl #ident #where_clause {
                #query_items
                #field_handles
                #vector_search_fns
            }
        };
    }
}

impl Gen<'_, '_> {
    /// The name of key attribute `role`: its default name (`PK`, `GSI3SK`) for an entity
    /// without `#[entity(table = ...)]`, else the role's name in the table's `AttributeNames`
    /// (`__DeSchema::NAMES`), a constant too.
    fn attr(&self, role: KeyRole) -> TokenStream {
        if self.e.attrs.table.is_none() {
            let name = role.default_name();
            return quote!(#name);
        }
        role.in_names(&quote!(__DeSchema::NAMES))
    }

    /// The field a placeholder names.
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expands `#[derive(Entity)]` on `src`, checking the output is valid Rust; the output
    /// without spaces, for simple `contains` checks.
    fn expand(src: &str) -> String {
        let input: DeriveInput = syn::parse_str(src).unwrap();
        let out = crate::pipeline::derive::<Entity>(&input);
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
            r#"__de::Template::new("SKILL#<id>",&[__de::Segment::Literal("SKILL"),__de::Segment::Field("id")],__de::KeyType::S,"#
        ));
        assert!(out.contains(",__de::single_key_type::<u64>(),"));
        // The default key style is `Template::new`'s own: no style is written.
        assert!(!out.contains("with_style"));
        assert!(out.contains("gsis:&[*Self::GSI1,*Self::GSI4]"));
        assert!(out.contains(r#"__de::FieldSchema::new("seller_verified","verified").stored_as::<bool>()]"#));
        // to_item: exact capacity, keys, GSIs, fields, type.
        assert!(out.contains("__de::Item::with_capacity(14usize)"));
        assert!(out.contains("__DeSchema::put_primary_key(&mutitem,&self.id)?;"));
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
        assert!(out.contains(r#""submitted_at"=>__de::Some(5),"verified"=>__de::Some(6),"#));
        // The inherent functions, typed by the fields.
        assert!(out.contains("pubfnkey(id:&<SkillIdas__de::KeyPart>::Arg)->__de::Key<Self>"));
        assert!(out.contains("pubfnquery(id:&<SkillIdas__de::KeyPart>::Arg)->__de::QuerySpec<Self,()>"));
        assert!(out.contains("pubfngsi1(category:&str)->__de::QuerySpec<Self,(u64,)>"));
        assert!(out.contains(
            "pubfngsi4(status:&<SkillStatusas__de::KeyPart>::Arg)->__de::QuerySpec<Self,(Option<Timestamp>,)>"
        ));
        // Field handles: primary key fields are immutable, key fields carry their part writer.
        assert!(out.contains("pubconstID:__de::Field<Self,SkillId,__de::Immutable>"));
        assert!(out.contains("pubconstDOWNLOADS:__de::Field<Self,u64>=__de::Field::new(\"downloads\",\"downloads\",__de::Some(<u64as__de::KeyPart>::write_part))"));
        assert!(
            out.contains("pubconstTITLE:__de::Field<Self,String>=__de::Field::new(\"title\",\"title\",__de::None)")
        );
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn key_fields_are_read_from_the_keys_and_written_by_choice() {
        let src = |choice: &str| {
            format!(
                r#"#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", gsi1 = "ST#<status>", gsi1_sk = "<at>",
                            rename_all = "camelCase"{choice})]
                   struct Order {{ user_id: String, order_id: u32, status: String, at: Option<u64>, total_cents: u64 }}"#
            )
        };
        let out = expand(&src(""));
        assert!(out.contains(r#"user_id:__de::key_field_at(item,__a[0],__DeSchema::SCHEMA,"user_id","userId")?"#));
        assert!(out.contains(r#"at:__de::key_field_at(item,__a[3],__DeSchema::SCHEMA,"at","at")?"#));
        assert!(out.contains(r#"total_cents:__de::field_at(item,__a[4],"Order","totalCents")?"#));
        assert!(out.contains(r#"__de::put_field(&mutitem,"Order","user_id","userId",&self.user_id)?;"#));
        assert!(out.contains("key_fields:__de::KeyFields::Attributes"));
        // `key_fields = "keys"`: the primary key's fields and `at` (GSI1's other part is required)
        // are written only in their keys; `status` stays, GSI1 being absent when `at` is None.
        let out = expand(&src(r#", key_fields = "keys""#));
        assert!(!out.contains(r#"__de::put_field(&mutitem,"Order","user_id""#));
        assert!(!out.contains(r#"__de::put_field(&mutitem,"Order","order_id""#));
        assert!(!out.contains(r#"__de::put_field(&mutitem,"Order","at""#));
        assert!(out.contains(r#"__de::put_field(&mutitem,"Order","status","status",&self.status)?;"#));
        assert!(out.contains("key_fields:__de::KeyFields::Keys"));
        // Those fields are read from the key first (an attribute another client wrote may be
        // stale); `status`, which has its own attribute, from that attribute first.
        assert!(out.contains(r#"user_id:__de::key_only_field_at(item,__a[0],__DeSchema::SCHEMA,"user_id","userId")?"#));
        assert!(out.contains(r#"at:__de::key_only_field_at(item,__a[3],__DeSchema::SCHEMA,"at","at")?"#));
        assert!(out.contains(r#"status:__de::key_field_at(item,__a[2],__DeSchema::SCHEMA,"status","status")?"#));
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
        assert!(out.contains("pk:Self::primary_pk(p0)?.finish(Self::PRIMARY_PK_CTX)?,sk:Self::primary_sk(p1,p0,p2)?.finish(Self::PRIMARY_SK_CTX)?"));
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
        // Decode errors name the Rust type beside its type name.
        assert!(out.contains(r#"rules:__de::serde_at(item,__a[0],"Config(typeCfg)","rules")?"#));
        assert!(out.contains(r#"name:"Cfg",rust_name:"Config",label:"Config(typeCfg)","#));
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
        // The inherent items too, with their arity: one argument for `<ids>` (no field, the
        // mistake), none for `gsi2` (`X`), and the field handles.
        let compact = out.replace(' ', "");
        assert!(compact.contains("pubfnkey<__A0>(_:__A0)->__de::Key<Self>"), "{compact}");
        assert!(compact.contains("pubfnquery<__A0>(_:__A0)->__de::QuerySpec<Self,()>"), "{compact}");
        assert!(compact.contains("pubfngsi2<>()->__de::QuerySpec<Self,()>"), "{compact}");
        assert!(compact.contains("pubconstPRICE:__de::Field<Self,f64>"), "{compact}");
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
        assert!(out.contains(r#"__de::FieldSchema::new("email","mail").stored_as::<String>().unique(),"#));
        assert!(out.contains(
            r#"__de::FieldSchema::new("handle","handle").stored_as::<Option<String>>().optional().unique(),"#
        ));
        assert!(out.contains(r#"__de::FieldSchema::new("id","id").key::<String>().stored_as::<String>(),"#));
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
            r#"version:__de::Some(__de::VersionSchema{field:"version",attribute:"v",max:<u32as__de::VersionNumber>::MAX_VERSION,})"#
        ));
        assert!(out.contains(
            r#"created_at:__de::Some(__de::FieldSchema::new("created_at","created_at").stored_as::<Timestamp>()),"#
        ));
        assert!(out.contains(r#"updated_at:__de::Some(__de::FieldSchema::new("updated_at","#));
        assert!(out.contains(
            r#"ttl:__de::Some(__de::FieldSchema::new("expires_at","expires_at").stored(__de::StoredType::N).optional()),"#
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
        assert!(plain.contains("version:__de::None,created_at:__de::None,updated_at:__de::None,ttl:__de::None"));
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
            "constINVERTED:&'static__de::IndexSchema=&__de::IndexSchema{index:__de::Index::Inverted,pk:Self::PRIMARY_SK,sk:Self::PRIMARY_PK,};"
        ));
        assert!(out.contains("inverted:__de::Some(*Self::INVERTED)"));
        // The query takes the sort key's parts; its conditions take the partition key's.
        assert!(out.contains(
            "pubfninverted(product_id:&<ProductIdas__de::KeyPart>::Arg,at:&u32)->__de::QuerySpec<Self,(String,)>"
        ));
        assert!(out.contains("__de::QuerySpec::new(__DeSchema::INVERTED,\"Wish\",__de::finish_key(__DeSchema::primary_sk(product_id,at),__DeSchema::PRIMARY_SK_CTX),)"));
        // The partition key is also the index's sort key: a sort key's 1,024-byte limit.
        assert!(out.contains(
            r#"constPRIMARY_PK_CTX:&'static__de::KeyContext=&__de::KeyContext::sort("Wish","PK",Self::PRIMARY_PK);"#
        ));
        assert!(!out.contains("compile_error"));

        let plain = expand(r#"#[entity(pk = "A#<id>", sk = "B")] struct A { id: String }"#);
        assert!(plain.contains("inverted:__de::None"));
        assert!(plain.contains(
            r#"constPRIMARY_PK_CTX:&'static__de::KeyContext=&__de::KeyContext::partition("A","PK",Self::PRIMARY_PK);"#
        ));
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
            "constLSI1:&'static__de::IndexSchema=&__de::IndexSchema{index:__de::Index::Lsi(1u8),pk:Self::PRIMARY_PK,sk:Self::LSI1_SK};"
        ));
        assert!(out.contains("lsis:&[*Self::LSI1,*Self::LSI3]"));
        assert!(out.contains(r#"letmutk=__de::KeyText::start(Self::LSI3_SK);k.part(Self::LSI3_SK_CTX,1usize,p0)?;k.part(Self::LSI3_SK_CTX,2usize,p1)?;"#));
        assert!(out.contains(
            r#"constLSI3_SK_CTX:&'static__de::KeyContext=&__de::KeyContext::sort("Order","LSI3SK",Self::LSI3_SK);"#
        ));
        // to_item: one attribute per LSI, sparse; capacity counts it.
        assert!(out.contains("__de::Item::with_capacity(10usize)"));
        assert!(out.contains(r#"__de::put_lsi(&mutitem,"LSI1SK",__DeSchema::lsi1(self)?);"#));
        assert!(out.contains(r#"__de::put_lsi(&mutitem,"LSI3SK",__DeSchema::lsi3(self)?);"#));
        assert!(out.contains(r#"__de::push_lsi_key(&mutkeys,"LSI3SK",__DeSchema::lsi3(self)?);"#));
        // The query takes the partition key's parts; its conditions the LSI sort key's.
        assert!(out.contains("pubfnlsi1(user_id:&str)->__de::QuerySpec<Self,(Timestamp,)>"));
        assert!(out.contains("pubfnlsi3(user_id:&str)->__de::QuerySpec<Self,(Option<Status>,u64,)>"));
        assert!(out.contains(
            r#"__de::QuerySpec::new(__DeSchema::LSI3,"Order",__de::finish_key(__DeSchema::primary_pk(user_id),__DeSchema::PRIMARY_PK_CTX),)"#
        ));
        // Fields of an LSI sort key carry their part writer, so updates can rebuild it.
        assert!(out.contains("pubconstTOTAL:__de::Field<Self,u64>=__de::Field::new(\"total\",\"total\",__de::Some(<u64as__de::KeyPart>::write_part))"));
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
        assert!(out.contains(",&[<Stageas__de::KeyPart>::CARDINALITY])"));
        // The writer takes the shard's source (or number) in template order.
        assert!(out.contains(
            "fngsi1_pk<P0:__de::KeyPart+?__de::Sized,P1:__de::KeyPart+?__de::Sized>(p0:&P0,p1:__de::ShardBy<'_,P1>)"
        ));
        assert!(out.contains("k.part(Self::GSI1_PK_CTX,1usize,p0)?;k.shard(Self::GSI1_PK_CTX,2usize,p1)?;"));
        assert!(out.contains("Self::gsi1_pk(&this.stage,__de::ShardBy::Source(&this.id))"));
        // The query takes the other parts and writes every shard's partition key.
        assert!(out.contains(
            r#"__de::QuerySpec::sharded(__DeSchema::GSI1,"Job",__de::shard_keys(8u16,|shard|__DeSchema::gsi1_pk(stage,__de::ShardBy::<str>::Index(shard)),__DeSchema::GSI1_PK_CTX),)"#
        ));
        assert!(out.contains("pubfngsi1(stage:&<Stageas__de::KeyPart>::Arg)"));
        // The source field's handle carries its part writer, so updates can rebuild the key.
        assert!(out.contains("pubconstID:__de::Field<Self,String,__de::Immutable>=__de::Field::new(\"id\",\"id\",__de::Some(<Stringas__de::KeyPart>::write_part))"));
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn generic_structs_get_no_stub() {
        let out = expand("#[entity(pk = \"A\", sk = \"B\")] struct S<T> { t: T }");
        assert_eq!(out.matches("compile_error!").count(), 1);
        assert!(!out.contains("impl"));
    }

    #[test]
    fn a_refused_sort_key_part_makes_a_stub_query_that_takes_any_condition() {
        let out = expand(
            r#"
            #[entity(pk = "SKILL#<id>", sk = "<year>#<price>", gsi1 = "PRICED", gsi1_sk = "<price>",
                     gsi2 = "BY_YEAR", gsi2_sk = "<year>")]
            pub struct Skill { pub id: String, pub year: u64, pub price: f64 }
        "#,
        );
        let compact = out.replace(' ', "");
        assert_eq!(compact.matches("compile_error!").count(), 1, "{compact}");
        // The float's one error stands: conditions written for it, or for `year`, add none.
        assert!(compact.contains("pubfnquery<__A0>(_:__A0)->__de::QuerySpec<Self,__de::RefusedSortKey>"), "{compact}");
        assert!(compact.contains("pubfngsi1<>()->__de::QuerySpec<Self,__de::RefusedSortKey>"), "{compact}");
        // A sort key of accepted parts keeps its types.
        assert!(compact.contains("pubfngsi2<>()->__de::QuerySpec<Self,(u64,)>"), "{compact}");
    }

    #[test]
    fn another_key_style_is_set_on_every_template_and_fields_take_only_what_differs() {
        let out = expand(
            r#"
            #[entity(pk = "user|<id>", sk = "meta", key_case = "lower", delimiter = "|")]
            pub struct User { #[entity(folded)] pub id: String, #[entity(alias = "mail", write_alias)] pub email: String }
        "#,
        );
        let style = "__de::KeyStyle{case:__de::KeyCase::Lower,escape:true,delimiter:'|'}";
        assert!(out.contains(&format!(
            r#"__de::Template::new("user|<id>",&[__de::Segment::Literal("user"),__de::Segment::Field("id")],__de::KeyType::S,&[<Stringas__de::KeyPart>::CARDINALITY]).with_style({style})"#
        )));
        assert!(out.contains(&format!(
            r#"__de::Template::new("meta",&[__de::Segment::Literal("meta")],__de::KeyType::S,&[]).with_style({style})"#
        )));
        assert!(out.contains(r#"__de::FieldSchema::new("id","id").key::<String>().stored_as::<String>().folded(),"#));
        assert!(
            out.contains(r#"__de::FieldSchema::new("email","email").stored_as::<String>().alias("mail",true,false)]"#)
        );
        assert!(!out.contains("compile_error"));
    }
}

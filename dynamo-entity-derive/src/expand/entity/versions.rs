//! `#[entity(schema(version = N, from = Prev))]`: the schema version in `SCHEMA`, the stamp
//! in `to_item`, the dispatch in `from_item` (an item of an earlier version decodes as `Prev`
//! and goes through `From<Prev>`, whose absence is one error naming the impl to write), and the
//! constant checks of the chain, spanned on `from`.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::Gen;

impl Gen<'_, '_> {
    /// The `schema_version` field of `SCHEMA`.
    pub(super) fn schema_version_value(&self) -> TokenStream {
        let Some(s) = &self.e.attrs.schema else { return quote!(__de::None) };
        let version = s.version.unwrap_or(1);
        let attribute = s.attribute_name();
        let (oldest, from, previous) = match &s.from {
            Some(prev) => {
                let name = quote!(#prev).to_string().replace(' ', "");
                (
                    quote!(__de::oldest_version(<#prev as __de::Entity>::SCHEMA)),
                    quote!(__de::Some(#name)),
                    quote!(__de::Some(<#prev as __de::Entity>::SCHEMA)),
                )
            }
            None => (quote!(#version), quote!(__de::None), quote!(__de::None)),
        };
        quote! {
            __de::Some(__de::SchemaVersion {
                attribute: #attribute,
                version: #version,
                oldest: #oldest,
                from: #from,
                previous: #previous,
            })
        }
    }

    /// The statement of `to_item` that stamps the version; nothing for an unversioned entity.
    pub(super) fn stamp_schema_version(&self) -> TokenStream {
        let Some(s) = &self.e.attrs.schema else { return quote!() };
        let version = s.version.unwrap_or(1);
        let attribute = s.attribute_name();
        quote!(__de::put_schema_version(&mut item, #attribute, #version);)
    }

    /// Whether `to_item` writes one more attribute.
    pub(super) fn stamps_schema_version(&self) -> bool {
        self.e.attrs.schema.is_some()
    }

    /// `from_item`'s body around `body` (the decoding of this struct's own version).
    pub(super) fn dispatch_schema_version(&self, body: TokenStream) -> TokenStream {
        let Some(s) = &self.e.attrs.schema else { return body };
        match &s.from {
            // The oldest version: the check refuses versions the chain does not declare, and
            // every other item is of this version.
            None => quote! {
                __de::stored_version(item, __DeSchema::SCHEMA)?;
                #body
            },
            // The conversion goes through `UpgradeFrom`, implemented for every `From`, whose
            // message, on the `from = ..` path, names the missing impl: one error, not rustc's
            // bare trait bounds.
            Some(prev) => {
                let upgrade = quote_spanned!(prev.span()=> <Self as __de::UpgradeFrom<#prev>>::upgrade);
                quote! {
                    match __de::stored_version(item, __DeSchema::SCHEMA)? {
                        __de::Stored::Current => { #body }
                        __de::Stored::Earlier => ::core::result::Result::Ok(#upgrade(<#prev as __de::Entity>::from_item(item)?)),
                    }
                }
            }
        }
    }

    /// The constant checks of the chain: the `from` struct declares version `N - 1`, under the
    /// same type name, key templates and version attribute. Each failing one is one error on
    /// `from`; none when the `from` struct's own derive failed (it reported its error).
    pub(super) fn schema_chain_checks(&self) -> TokenStream {
        let Some(s) = &self.e.attrs.schema else { return quote!() };
        let (Some(prev), Some(version)) = (&s.from, s.version) else { return quote!() };
        let ident = self.e.ident;
        let name = self.name;
        let p = quote!(#prev).to_string().replace(' ', "");
        let attribute = s.attribute_name();
        let before = version - 1;
        let not_versioned = format!(
            "`{ident}` upgrades `from = {p}`, but `{p}` declares no schema version: give it \
             `#[entity(schema(version = {before}))]`, the version before {version}"
        );
        let same = format!(
            "`{ident}` and `from = {p}` both declare schema version {version}: each version is declared once; \
             `{p}`, the version before, is `schema(version = {before})`"
        );
        let gap = format!(
            "`{ident}` is schema version {version}, so `from = {p}` must be version {before}: versions go up by one, \
             with no gap and no step back"
        );
        let type_name = format!(
            "`from = {p}`: `{p}` does not have the entity type name `{name}` of `{ident}`; the versions of one \
             entity share their type name: give `{p}` `name = \"{name}\"`"
        );
        let templates = format!(
            "`from = {p}`: `{p}` has other primary key templates than `{ident}`; the versions of one entity share \
             their primary key (a new key template is a re-keying, `dynamo_entity::migrate::rekey`)"
        );
        let attribute_differs = format!(
            "`from = {p}`: `{p}` stores its schema version under another attribute than `{ident}` (`{attribute}`); \
             the versions of one entity share it: `schema(..., attribute = \"{attribute}\")` on both"
        );
        let span = prev.span();
        quote_spanned! {span=>
            const _: () = {
                let prev = <#prev as __de::Entity>::SCHEMA;
                if __de::is_checked(prev) {
                    let v = __de::declared_version(prev);
                    if v == 0 {
                        ::core::panic!(#not_versioned)
                    } else if v == #version {
                        ::core::panic!(#same)
                    } else if v != #before {
                        ::core::panic!(#gap)
                    }
                }
            };
            const _: () = if __de::is_checked(<#prev as __de::Entity>::SCHEMA)
                && !__de::str_eq(<#prev as __de::Entity>::TYPE, #name)
            {
                ::core::panic!(#type_name)
            };
            const _: () = if __de::is_checked(<#prev as __de::Entity>::SCHEMA)
                && !__de::same_primary_templates(<#prev as __de::Entity>::SCHEMA, <#ident as __de::Entity>::SCHEMA)
            {
                ::core::panic!(#templates)
            };
            const _: () = if __de::is_checked(<#prev as __de::Entity>::SCHEMA)
                && !__de::same_version_attribute(<#prev as __de::Entity>::SCHEMA, #attribute)
            {
                ::core::panic!(#attribute_differs)
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use syn::DeriveInput;

    use crate::internals::ast::entity::Entity;

    fn expand(src: &str) -> String {
        let input: DeriveInput = syn::parse_str(src).unwrap();
        let out = crate::pipeline::derive::<Entity>(&input);
        syn::parse2::<syn::File>(out.clone()).expect("the expansion is valid Rust");
        out.to_string().replace(' ', "")
    }

    #[test]
    fn versioned_entities_stamp_dispatch_and_check_their_chain() {
        let out = expand(
            r#"#[entity(pk = "S#<id>", sk = "M", schema(version = 3, from = v2::SkillV2, attribute = "sv"))]
               struct Skill { id: String, title: String }"#,
        );
        assert!(out.contains(
            r#"schema_version:__de::Some(__de::SchemaVersion{attribute:"sv",version:3u32,oldest:__de::oldest_version(<v2::SkillV2as__de::Entity>::SCHEMA),from:__de::Some("v2::SkillV2"),previous:__de::Some(<v2::SkillV2as__de::Entity>::SCHEMA),})"#
        ));
        assert!(out.contains(r#"__de::put_schema_version(&mutitem,"sv",3u32);"#));
        assert!(out.contains("__de::Item::with_capacity(6usize)"));
        assert!(out.contains("match__de::stored_version(item,__DeSchema::SCHEMA)?{__de::Stored::Current=>{"));
        assert!(out.contains(
            "__de::Stored::Earlier=>::core::result::Result::Ok(<Selfas__de::UpgradeFrom<v2::SkillV2>>::upgrade(<v2::SkillV2as__de::Entity>::from_item(item)?)),"
        ));
        // The chain's constant checks: the version before, the type name, the key, the attribute.
        assert!(out.contains("}elseifv==3u32{::core::panic!("));
        assert!(out.contains("}elseifv!=2u32{::core::panic!("));
        assert!(out.contains(r#"!__de::str_eq(<v2::SkillV2as__de::Entity>::TYPE,"Skill")"#));
        assert!(out.contains(
            "!__de::same_primary_templates(<v2::SkillV2as__de::Entity>::SCHEMA,<Skillas__de::Entity>::SCHEMA)"
        ));
        assert!(out.contains(r#"!__de::same_version_attribute(<v2::SkillV2as__de::Entity>::SCHEMA,"sv")"#));
        assert!(!out.contains("compile_error"));

        // The oldest version checks the stored version and decodes; no chain to check.
        let oldest = expand(r#"#[entity(pk = "S#<id>", sk = "M", schema(version = 2))] struct S { id: String }"#);
        assert!(oldest.contains(r#"attribute:"_schema",version:2u32,oldest:2u32,from:__de::None,previous:__de::None"#));
        assert!(oldest.contains("__de::stored_version(item,__DeSchema::SCHEMA)?;"));
        assert!(!oldest.contains("Stored::Earlier") && !oldest.contains("declared_version"));

        // Without `schema(...)`: nothing of it.
        let plain = expand(r#"#[entity(pk = "S#<id>", sk = "M")] struct S { id: String }"#);
        assert!(plain.contains("schema_version:__de::None"));
        assert!(!plain.contains("stored_version") && !plain.contains("put_schema_version"));
    }
}

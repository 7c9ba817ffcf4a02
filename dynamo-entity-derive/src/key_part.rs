//! `#[derive(KeyPart)]` for newtypes and field-less enums.
//!
//! * A newtype (`struct SkillId(String);`) is transparent: it is written, parsed and stored
//!   exactly as its one field.
//! * A field-less enum is written and stored as a string per variant: `snake_case` of the variant
//!   name by default, `#[key_part(rename_all = "...")]` on the enum for another convention,
//!   `#[key_part(rename = "...")]` on a variant for one name.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::{Attribute, Data, DataEnum, DataStruct, DeriveInput, Expr, ExprLit, Fields, Lit, LitStr, Token};

use crate::case::{CASES, Case};
use crate::errors::Errors;
use crate::fallback;
use crate::suggest;
use crate::types::{self, KeyPartType};

pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let container = container_attrs(&input.attrs, &mut errors);
    let generated = match &input.data {
        Data::Struct(s) => {
            if let Some((_, span)) = &container.rename_all {
                errors.at(*span, "`rename_all` applies to enums only: a newtype is written as its field");
            }
            newtype(input, s, &mut errors)
        }
        Data::Enum(e) => enumeration(input, e, container.rename_all.map(|(c, _)| c), &mut errors),
        Data::Union(_) => {
            errors.spanned(
                &input.ident,
                "`#[derive(KeyPart)]` supports newtypes (a struct with one field) and field-less enums, not unions",
            );
            None
        }
    };
    match (generated, errors.into_compile_errors()) {
        (Some(out), None) => out,
        (_, errors) => {
            let mut out = errors.unwrap_or_default();
            out.extend(fallback::key_part(input));
            out
        }
    }
}

struct ContainerAttrs {
    rename_all: Option<(Case, Span)>,
}

fn container_attrs(attrs: &[Attribute], errors: &mut Errors) -> ContainerAttrs {
    let mut out = ContainerAttrs { rename_all: None };
    let mut seen = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("key_part")) {
        let result = attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("rename_all") {
                let message = if meta.path.is_ident("rename") {
                    "`rename` belongs on a variant; on the enum, use `rename_all = \"...\"`".to_owned()
                } else {
                    "unknown key; expected `rename_all = \"...\"`".to_owned()
                };
                errors.spanned(&meta.path, message);
                return skip(&meta);
            }
            if seen {
                errors.spanned(&meta.path, "duplicate `rename_all`");
                return skip(&meta);
            }
            seen = true;
            let Some(lit) = string_value(&meta, "rename_all", errors)? else {
                return Ok(());
            };
            let value = lit.value();
            match Case::from_name(&value) {
                Some(case) => out.rename_all = Some((case, meta.path.get_ident().map_or(lit.span(), |i| i.span()))),
                None => {
                    let names: Vec<&str> = CASES.iter().map(|(n, _)| *n).collect();
                    let hint = suggest::closest(&value, names.iter().copied())
                        .map(|s| format!("did you mean `{s}`? "))
                        .unwrap_or_default();
                    errors.spanned(
                        &lit,
                        format!(
                            "unknown `rename_all` convention `{value}`; {hint}expected one of {}",
                            suggest::list(&names)
                        ),
                    );
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

fn variant_rename(attrs: &[Attribute], errors: &mut Errors) -> Option<LitStr> {
    let mut out = None;
    let mut seen = false;
    for attr in attrs.iter().filter(|a| a.path().is_ident("key_part")) {
        let result = attr.parse_nested_meta(|meta| {
            if !meta.path.is_ident("rename") {
                errors.spanned(&meta.path, "unknown key; expected `rename = \"...\"`");
                return skip(&meta);
            }
            if seen {
                errors.spanned(&meta.path, "duplicate `rename`");
                return skip(&meta);
            }
            seen = true;
            out = string_value(&meta, "rename", errors)?;
            Ok(())
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    out
}

fn string_value(meta: &syn::meta::ParseNestedMeta, key: &str, errors: &mut Errors) -> syn::Result<Option<LitStr>> {
    if !meta.input.peek(Token![=]) {
        errors.spanned(&meta.path, format!("expected `{key} = \"...\"`"));
        skip(meta)?;
        return Ok(None);
    }
    match meta.value()?.parse::<Expr>()? {
        Expr::Lit(ExprLit { lit: Lit::Str(s), .. }) => Ok(Some(s)),
        other => {
            errors.spanned(other, format!("expected a string literal: `{key} = \"...\"`"));
            Ok(None)
        }
    }
}

fn skip(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _: Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _: proc_macro2::TokenTree = meta.input.parse()?;
    }
    Ok(())
}

const SHAPE: &str = "`#[derive(KeyPart)]` supports newtypes (a struct with exactly one field, such as \
                     `struct SkillId(String);`) and field-less enums";

fn newtype(input: &DeriveInput, data: &DataStruct, errors: &mut Errors) -> Option<TokenStream> {
    let ident = &input.ident;
    let fields: Vec<&syn::Field> = data.fields.iter().collect();
    let [field] = fields.as_slice() else {
        match &data.fields {
            Fields::Unit => errors.spanned(ident, format!("{SHAPE}; this struct has no field")),
            other => errors.spanned(other, format!("{SHAPE}; this struct has {} fields", fields.len())),
        }
        return None;
    };
    for f in &data.fields {
        if let Some(attr) = f.attrs.iter().find(|a| a.path().is_ident("key_part")) {
            errors.spanned(attr, "a newtype's field takes no `#[key_part]` attribute: it is written as it is");
        }
    }
    let inner = &field.ty;
    let key_part_bound = match types::key_part(inner) {
        KeyPartType::Rejected(reason) => {
            errors.spanned(inner, format!("this field cannot be a key part: {reason}"));
            return None;
        }
        KeyPartType::Builtin => None,
        KeyPartType::Custom(_) => {
            let span = types::last_span(inner);
            Some(quote_spanned!(span=> #inner: ::dynamo_entity::__private::KeyPart))
        }
    };
    let attribute_bound = (!types::is_builtin_attribute(inner)).then(|| {
        let span = types::last_span(inner);
        quote_spanned!(span=> #inner: ::dynamo_entity::__private::Attribute)
    });
    let member = match &field.ident {
        Some(i) => quote!(#i),
        None => {
            let index = syn::Index::from(0);
            quote!(#index)
        }
    };
    let (impl_generics, ty_generics, where_clause) = input.generics.split_for_impl();
    let with = |bound: Option<TokenStream>| -> TokenStream {
        let existing = where_clause.map(|w| {
            let p = &w.predicates;
            quote!(#p,)
        });
        match (existing, bound) {
            (None, None) => quote!(),
            (e, b) => quote!(where #e #b),
        }
    };
    let key_where = with(key_part_bound);
    let attr_where = with(attribute_bound);
    Some(quote! {
        const _: () = {
            use ::dynamo_entity::__private as __de;

            #[automatically_derived]
            impl #impl_generics __de::KeyPart for #ident #ty_generics #key_where {
                type Arg = Self;
                const NUMERIC: bool = <#inner as __de::KeyPart>::NUMERIC;
                const CARDINALITY: __de::Cardinality = <#inner as __de::KeyPart>::CARDINALITY;
                #[inline]
                fn write_part(
                    &self,
                    out: &mut ::std::string::String,
                    form: __de::PartForm,
                ) -> __de::Result<bool, __de::KeyPartError> {
                    <#inner as __de::KeyPart>::write_part(&self.#member, out, form)
                }
                #[inline]
                fn parse_part(text: &str, form: __de::PartForm) -> __de::Result<Self, __de::KeyPartError> {
                    __de::Result::map(<#inner as __de::KeyPart>::parse_part(text, form), |v| Self { #member: v })
                }
                #[inline]
                fn part_eq(&self, encoded: &str, form: __de::PartForm) -> bool {
                    <#inner as __de::KeyPart>::part_eq(&self.#member, encoded, form)
                }
            }

            #[automatically_derived]
            impl #impl_generics __de::Attribute for #ident #ty_generics #attr_where {
                #[inline]
                fn to_attribute(&self) -> __de::Result<::core::option::Option<__de::AttributeValue>, __de::ValueError> {
                    <#inner as __de::Attribute>::to_attribute(&self.#member)
                }
                #[inline]
                fn from_attribute(
                    value: ::core::option::Option<&__de::AttributeValue>,
                ) -> __de::Result<Self, __de::ValueError> {
                    __de::Result::map(<#inner as __de::Attribute>::from_attribute(value), |v| Self { #member: v })
                }
            }
        };
    })
}

fn enumeration(
    input: &DeriveInput,
    data: &DataEnum,
    rename_all: Option<Case>,
    errors: &mut Errors,
) -> Option<TokenStream> {
    let ident = &input.ident;
    if !input.generics.params.is_empty() {
        errors.spanned(&input.generics, "`#[derive(KeyPart)]` does not support generic enums");
    }
    let case = rename_all.unwrap_or(Case::Snake);
    let mut names: Vec<(String, &syn::Ident)> = Vec::new();
    for v in &data.variants {
        let rename = variant_rename(&v.attrs, errors);
        if !matches!(v.fields, Fields::Unit) {
            errors.spanned(&v.fields, format!("{SHAPE}; variant `{}` has fields", v.ident));
            continue;
        }
        let (name, span) = match &rename {
            Some(lit) => (lit.value(), lit.span()),
            None => (case.apply(&syn::ext::IdentExt::unraw(&v.ident).to_string()), v.ident.span()),
        };
        if name.is_empty() {
            errors.at(span, "a variant's name cannot be empty: an empty key part would make keys ambiguous");
        } else if let Some(c) = name.chars().find(|&c| c == '#' || c == '%') {
            errors.at(
                span,
                format!("`{c}` cannot appear in a variant's name: `#` separates key parts and `%` escapes them"),
            );
        } else if let Some((_, other)) = names.iter().find(|(n, _)| *n == name) {
            errors.at(span, format!("`{}` and `{other}` would both be written as `{name}`", v.ident));
        } else {
            names.push((name, &v.ident));
        }
    }
    if !errors.is_empty() {
        return None;
    }
    let type_name = syn::ext::IdentExt::unraw(ident).to_string();
    let unknown = format!("unknown {type_name} variant `{{}}`");
    let to_name = names.iter().map(|(n, v)| quote!(#ident::#v => #n));
    let from_name = names.iter().map(|(n, v)| quote!(#n => ::core::option::Option::Some(#ident::#v)));
    Some(quote! {
        const _: () = {
            use ::dynamo_entity::__private as __de;

            #[inline]
            fn __name(value: &#ident) -> &'static str {
                match *value {
                    #(#to_name,)*
                }
            }

            #[inline]
            fn __parse(text: &str) -> ::core::option::Option<#ident> {
                match text {
                    #(#from_name,)*
                    _ => ::core::option::Option::None,
                }
            }

            #[automatically_derived]
            impl __de::KeyPart for #ident {
                type Arg = Self;
                // A field-less enum has as many values as variants: few.
                const CARDINALITY: __de::Cardinality = __de::Cardinality::Low;
                #[inline]
                fn write_part(
                    &self,
                    out: &mut ::std::string::String,
                    _: __de::PartForm,
                ) -> __de::Result<bool, __de::KeyPartError> {
                    out.push_str(__name(self));
                    __de::Result::Ok(true)
                }
                fn parse_part(text: &str, _: __de::PartForm) -> __de::Result<Self, __de::KeyPartError> {
                    __parse(text).ok_or_else(|| __de::KeyPartError::Invalid {
                        text: ::std::string::String::from(text),
                        ty: #type_name,
                    })
                }
                #[inline]
                fn part_eq(&self, encoded: &str, _: __de::PartForm) -> bool {
                    encoded == __name(self)
                }
            }

            #[automatically_derived]
            impl __de::Attribute for #ident {
                #[inline]
                fn to_attribute(&self) -> __de::Result<::core::option::Option<__de::AttributeValue>, __de::ValueError> {
                    __de::Result::Ok(::core::option::Option::Some(__de::AttributeValue::S(
                        ::std::string::String::from(__name(self)),
                    )))
                }
                fn from_attribute(
                    value: ::core::option::Option<&__de::AttributeValue>,
                ) -> __de::Result<Self, __de::ValueError> {
                    match value {
                        ::core::option::Option::Some(__de::AttributeValue::S(text)) => __parse(text)
                            .ok_or_else(|| __de::ValueError::Invalid(::std::format!(#unknown, text))),
                        ::core::option::Option::Some(other) => __de::Result::Err(__de::ValueError::WrongType {
                            expected: "S",
                            found: ::dynamo_entity::value::type_name(other),
                        }),
                        ::core::option::Option::None => __de::Result::Err(__de::ValueError::Missing),
                    }
                }
            }
        };
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> String {
        let input: DeriveInput = syn::parse_str(src).unwrap();
        let out = derive(&input);
        syn::parse2::<syn::File>(out.clone()).expect("the expansion is valid Rust");
        out.to_string().replace(' ', "")
    }

    #[test]
    fn enum_names() {
        let out = expand(
            r#"
            #[key_part(rename_all = "kebab-case")]
            enum Status { Draft, PendingReview, #[key_part(rename = "live")] Approved }
        "#,
        );
        assert!(
            out.contains(r#"Status::Draft=>"draft",Status::PendingReview=>"pending-review",Status::Approved=>"live","#)
        );
        assert!(out.contains(r#""pending-review"=>::core::option::Option::Some(Status::PendingReview)"#));
        assert!(out.contains(r#"ty:"Status""#));
        assert!(out.contains(r#"unknownStatusvariant`{}`"#));
        assert!(!out.contains("compile_error"));
    }

    #[test]
    fn default_is_snake_case() {
        let out = expand("enum S { PendingReview }");
        assert!(out.contains(r#"S::PendingReview=>"pending_review""#));
    }

    #[test]
    fn newtypes_are_transparent() {
        let out = expand("pub struct SkillId(String);");
        assert!(out.contains("typeArg=Self;constNUMERIC:bool=<Stringas__de::KeyPart>::NUMERIC;"));
        assert!(out.contains("<Stringas__de::KeyPart>::write_part(&self.0,out,form)"));
        assert!(out.contains("|v|Self{0:v}"));
        // A builtin inner type needs no bound.
        assert!(!out.contains("where"));

        let out = expand("pub struct Wrapper { inner: Inner }");
        assert!(out.contains("whereInner:::dynamo_entity::__private::KeyPart"));
        assert!(out.contains("whereInner:::dynamo_entity::__private::Attribute"));
        assert!(out.contains("&self.inner"));
    }

    #[test]
    fn generic_newtypes_keep_their_bounds() {
        let out = expand("pub struct Id<T: Clone>(T);");
        assert!(out.contains("impl<T:Clone>__de::KeyPartforId<T>whereT:::dynamo_entity::__private::KeyPart"));
    }

    #[test]
    fn duplicate_names_are_errors() {
        let out = expand(r#"#[key_part(rename_all = "lowercase")] enum S { Ab, AB }"#);
        assert!(out.contains("`AB`and`Ab`wouldbothbewrittenas`ab`"), "{out}");
        assert!(out.contains("unreachable!"));
    }
}

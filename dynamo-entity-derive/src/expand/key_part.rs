//! `#[derive(KeyPart)]` for newtypes and field-less enums.
//!
//! * A newtype (`struct SkillId(String);`) is transparent: it is written, parsed and stored
//!   exactly as its one field.
//! * A field-less enum is written and stored as a string per variant: `snake_case` of the variant
//!   name by default, `#[key_part(rename_all = "...")]` on the enum for another convention,
//!   `#[key_part(rename = "...")]` on a variant for one name.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::{DataStruct, DeriveInput};

use crate::expand::fallback;
use crate::internals::ast::key_part::{KeyPart, Shape, Variant};
use crate::internals::ctxt::Ctxt;
use crate::internals::types::{self, KeyPartType};
use crate::pipeline::Derive;

impl<'a> Derive<'a> for KeyPart<'a> {
    fn from_syn(input: &'a DeriveInput, cx: &Ctxt) -> Option<Self> {
        KeyPart::from_syn(input, cx)
    }

    fn check(&self, cx: &Ctxt) {
        crate::internals::check::key_part::check(self, cx);
    }

    fn expand(&self) -> TokenStream {
        match &self.shape {
            Shape::Newtype(data) => newtype(self.input, data),
            Shape::Enum(variants) => enumeration(self.input, variants),
        }
    }

    fn fallback(input: &'a DeriveInput, _: Option<&Self>) -> TokenStream {
        fallback::key_part(input)
    }
}

/// The transparent impls of a checked newtype.
fn newtype(input: &DeriveInput, data: &DataStruct) -> TokenStream {
    let ident = &input.ident;
    let field = data.fields.iter().next().expect("a checked newtype has one field");
    let inner = &field.ty;
    let key_part_bound = match types::key_part(inner) {
        KeyPartType::Rejected(_) | KeyPartType::Builtin | KeyPartType::Binary => None,
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
    let key_attr_where = with(Some(quote!(for<'__de> #inner: ::dynamo_entity::__private::KeyAttribute)));
    quote! {
        const _: () = {
            use ::dynamo_entity::__private as __de;

            #[automatically_derived]
            impl #impl_generics __de::KeyPart for #ident #ty_generics #key_where {
                type Arg = Self;
                const NUMERIC: bool = <#inner as __de::KeyPart>::NUMERIC;
                const BINARY: bool = <#inner as __de::KeyPart>::BINARY;
                const CARDINALITY: __de::Cardinality = <#inner as __de::KeyPart>::CARDINALITY;
                const SHAPE: __de::PartShape = <#inner as __de::KeyPart>::SHAPE;
                // Written as the field is: escaped when the field's type writes escaped.
                const WRITES_ESCAPED: bool = <#inner as __de::KeyPart>::WRITES_ESCAPED;
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
                const STORED: __de::StoredType = <#inner as __de::Attribute>::STORED;
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

            // A key attribute of a multi-attribute GSI when its field is one; the bound is
            // higher-ranked so that a newtype over another type (`bool`) still compiles.
            #[automatically_derived]
            impl #impl_generics __de::KeyAttribute for #ident #ty_generics #key_attr_where {
                type Kind = <#inner as __de::KeyAttribute>::Kind;
                type Arg = Self;
                #[inline]
                fn key_value(arg: &Self) -> __de::Result<__de::AttributeValue, __de::ValueError> {
                    __de::Result::and_then(<#inner as __de::Attribute>::to_attribute(&arg.#member), |v| {
                        ::core::option::Option::ok_or(v, __de::ValueError::Missing)
                    })
                }
            }
        };
    }
}

/// The impls of a checked field-less enum: each variant written as its name.
fn enumeration(input: &DeriveInput, variants: &[Variant]) -> TokenStream {
    let ident = &input.ident;
    let names: Vec<(&str, &syn::Ident)> = variants.iter().map(|v| (v.name.as_str(), v.ident)).collect();
    let type_name = syn::ext::IdentExt::unraw(ident).to_string();
    let unknown = format!("unknown {type_name} variant `{{}}`");
    let to_name = names.iter().map(|(n, v)| quote!(#ident::#v => #n));
    let texts = names.iter().map(|(n, _)| n);
    let from_name = names.iter().map(|(n, v)| quote!(#n => ::core::option::Option::Some(#ident::#v)));
    quote! {
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
                // The variant names: a literal segment that is none of them never collides.
                const SHAPE: __de::PartShape = __de::PartShape::OneOf(&[#(#texts),*]);
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
                const STORED: __de::StoredType = __de::StoredType::S;
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

            #[automatically_derived]
            impl __de::KeyAttribute for #ident {
                type Kind = __de::StringKey;
                type Arg = Self;
                #[inline]
                fn key_value(arg: &Self) -> __de::Result<__de::AttributeValue, __de::ValueError> {
                    __de::Result::Ok(__de::AttributeValue::S(::std::string::String::from(__name(arg))))
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(src: &str) -> String {
        let input: DeriveInput = syn::parse_str(src).unwrap();
        let out = crate::pipeline::derive::<KeyPart>(&input);
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
        // A builtin inner type needs no bound on the KeyPart and Attribute impls; the
        // KeyAttribute impl keeps its higher-ranked one (a newtype over `bool` compiles, and
        // is refused only where it is used as a multi-attribute key).
        assert!(out.contains("__de::KeyPartforSkillId{"));
        assert!(out.contains("__de::AttributeforSkillId{"));
        assert!(
            out.contains("__de::KeyAttributeforSkillIdwherefor<'__de>String:::dynamo_entity::__private::KeyAttribute{")
        );

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

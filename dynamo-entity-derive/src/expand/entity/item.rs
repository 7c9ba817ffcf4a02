//! `impl Entity`: encoding an item (`to_item`, with its keys, fields and type), decoding one
//! (`from_item`, with the checks of its type and key), and the keys of a value.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::LitStr;

use super::Gen;
use crate::internals::attr::entity::Maintained;
use crate::internals::model::KeyRole;
use crate::internals::types;

/// The entity type attribute under the default names (the runtime's `TYPE_ATTRIBUTE`).
const TYPE_ATTRIBUTE: &str = "_type";

impl Gen<'_, '_> {
    /// The body of `impl Entity`: `to_item`, `from_item`, `primary_key` and `gsi_keys`.
    pub(super) fn entity_impl(&self) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let label = &self.label;
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
        let capacity = e.fields.len()
            + 2
            + 2 * e.gsis.len()
            + e.lsis.len()
            + 1
            + usize::from(self.stamps_schema_version())
            + e.attrs.constants.len()
            + e.fields.iter().filter(|f| f.write_alias.is_some() && f.alias.is_some()).count();
        let stamp_schema_version = self.stamp_schema_version();

        let put_gsis = e.gsis.iter().map(|g| {
            let f = format_ident!("{}", g.kind.key());
            let (pk_attr, sk_attr) = (self.attr(g.kind.partition()), self.attr(g.kind.sort()));
            quote! {
                let (pk, sk) = __DeSchema::#f(self)?;
                __de::put_gsi(&mut item, #pk_attr, pk, #sk_attr, sk);
            }
        });
        let put_lsis = e.lsis.iter().map(|l| {
            let f = format_ident!("lsi{}", l.n);
            let sk_attr = self.attr(KeyRole::LsiSk(l.n));
            quote!(__de::put_lsi(&mut item, #sk_attr, __DeSchema::#f(self)?);)
        });
        // Under `key_fields = "keys"`, a field that a key always holds is written only there.
        let put_fields = e.fields.iter().filter(|f| !e.key_only(&f.name)).map(|f| {
            let (member, field, attribute) = (f.ident, &f.name, &f.attribute);
            let put = if f.serde {
                // A type without serde's traits fails here: make the call span the field type.
                let (first, last) = (types::first_span(f.ty), types::last_span(f.ty));
                let mut member = member.clone();
                member.set_span(last);
                let amp = quote_spanned!(first=> &);
                let callee = quote_spanned!(first=> __de::put_serde);
                let args = quote_spanned!(last=> (&mut item, #name, #field, #attribute, #amp self.#member));
                quote!(#callee #args ?;)
            } else if f.vector.is_some() {
                let constant = format_ident!("VECTOR_{}", f.name.to_uppercase());
                quote! {
                    __de::put_vector(&mut item, <Self as __de::Entity>::NAMES, #name, __DeSchema::#constant, &self.#member)?;
                }
            } else if f.role() == Some(Maintained::Ttl) {
                quote!(__de::put_ttl(&mut item, #name, #field, #attribute, &self.#member)?;)
            } else {
                quote!(__de::put_field(&mut item, #name, #field, #attribute, &self.#member)?;)
            };
            // `write_alias`: the old attribute holds the same value (an absent value is absent
            // from both).
            match (&f.alias, f.write_alias) {
                (Some(alias), Some(_)) => {
                    let alias = alias.value();
                    quote!(#put __de::put_alias(&mut item, #attribute, #alias);)
                }
                _ => put,
            }
        });
        // The fields' attributes are picked in one pass over the item (`pick_attributes`), then
        // each decoded from its slot.
        // Under the default attribute names, the same pass also picks the entity type and the
        // key attributes (three slots after the fields'), so that decoding looks nothing up by
        // hash: the type check and the key check read their slots.
        let mut field_attributes: Vec<&str> = e.fields.iter().map(|f| f.attribute.as_str()).collect();
        let n_fields = field_attributes.len();
        let reserved = [TYPE_ATTRIBUTE, "PK", "SK"];
        let picks_key = e.attrs.table.is_none() && !field_attributes.iter().any(|a| reserved.contains(a));
        if picks_key {
            field_attributes.extend(reserved);
        }
        // An aliased field's old attribute (`alias = "title"`) has a slot after those: read when
        // the item has no attribute of the field's own name.
        let mut alias_slots: Vec<Option<syn::Index>> = Vec::with_capacity(n_fields);
        let aliases: Vec<String> = e.fields.iter().filter_map(|f| f.alias.as_ref().map(LitStr::value)).collect();
        for f in &e.fields {
            let next = field_attributes.len() + alias_slots.iter().flatten().count();
            alias_slots.push(f.alias.as_ref().map(|_| syn::Index::from(next)));
        }
        field_attributes.extend(aliases.iter().map(String::as_str));
        let field_slots = (0..field_attributes.len()).map(syn::Index::from);
        let n_picked = field_attributes.len();
        let pick = quote! {
            let __a = __de::pick_attributes::<#n_picked>(item, &[#(#field_attributes),*], |k| match k {
                #(#field_attributes => __de::Some(#field_slots),)*
                _ => __de::None,
            });
        };
        let get_fields = e.fields.iter().enumerate().map(|(i, f)| {
            let (member, attribute) = (f.ident, &f.attribute);
            let alias_slot = &alias_slots[i];
            let i = syn::Index::from(i);
            // The picked attribute: the field's own, or else its alias's.
            // Under `read_alias` (the expand phase, while old code writes the alias), the alias
            // first; an `Option` field then reads the alias alone: old code removing it made the
            // value `None`, whatever the field's own attribute still holds.
            let picked = match alias_slot {
                Some(j) if f.read_alias.is_some() && types::option_inner(f.ty).is_some() => quote!(__a[#j]),
                Some(j) if f.read_alias.is_some() => quote!(__a[#j].or(__a[#i])),
                Some(j) => quote!(__a[#i].or(__a[#j])),
                None => quote!(__a[#i]),
            };
            if f.serde {
                let (first, last) = (types::first_span(f.ty), types::last_span(f.ty));
                let callee = quote_spanned!(first=> __de::serde_at);
                let args = quote_spanned!(last=> (item, #picked, #label, #attribute));
                quote!(#member: #callee #args ?)
            } else {
                match f.role() {
                    Some(Maintained::Ttl) => quote!(#member: __de::ttl_at(item, #picked, #label, #attribute)?),
                    Some(Maintained::Version) => quote!(#member: __de::version_at(item, #picked, #label, #attribute)?),
                    // A field written only inside its keys is read from the key first: the
                    // key is what an update rewrites, an attribute of the same name that
                    // another client wrote may be stale.
                    _ if e.key_only(&f.name) => {
                        let field = &f.name;
                        quote!(#member: __de::key_only_field_at(item, #picked, __DeSchema::SCHEMA, #field, #attribute)?)
                    }
                    // A key field without its own attribute is read from the key that holds it.
                    _ if e.is_key_field(&f.name) => {
                        let field = &f.name;
                        quote!(#member: __de::key_field_at(item, #picked, __DeSchema::SCHEMA, #field, #attribute)?)
                    }
                    _ => quote!(#member: __de::field_at(item, #picked, #label, #attribute)?),
                }
            }
        });
        let gsi_keys = if e.gsis.is_empty() && e.lsis.is_empty() {
            quote!(__de::Result::Ok(::std::vec::Vec::new()))
        } else {
            let count = 2 * e.gsis.len() + e.lsis.len();
            let pushes = e.gsis.iter().map(|g| {
                let f = format_ident!("{}", g.kind.key());
                let (pk_attr, sk_attr) = (self.attr(g.kind.partition()), self.attr(g.kind.sort()));
                quote!(__de::push_gsi_keys(&mut keys, #pk_attr, #sk_attr, __DeSchema::#f(self)?);)
            });
            let lsi_pushes = e.lsis.iter().map(|l| {
                let f = format_ident!("lsi{}", l.n);
                let sk_attr = self.attr(KeyRole::LsiSk(l.n));
                quote!(__de::push_lsi_key(&mut keys, #sk_attr, __DeSchema::#f(self)?);)
            });
            quote! {
                let mut keys = ::std::vec::Vec::with_capacity(#count);
                #(#pushes)*
                #(#lsi_pushes)*
                __de::Result::Ok(keys)
            }
        };

        let (pk_name, sk_name) = (self.attr(KeyRole::Pk), self.attr(KeyRole::Sk));
        // Multi-attribute GSI key attributes DynamoDB would refuse (an empty string, a value
        // over the key size limit) are refused before sending.
        let check_multi = if e.attrs.multi_gsis.is_empty() {
            quote!()
        } else {
            quote!(__de::check_multi_keys(__DeSchema::SCHEMA, &item)?;)
        };
        let (put_type, check_type, names) = if let Some(table) = &e.attrs.table {
            (
                quote!(__de::put_type_named(&mut item, __DeSchema::NAMES.entity_type, #name)),
                quote!(__de::check_type_named(item, __DeSchema::NAMES, #name)),
                quote! {
                    const NAMES: &'static __de::AttributeNames = __DeSchema::NAMES;
                    const TABLE_ENTITIES: ::core::option::Option<&'static [&'static __de::EntitySchema]> =
                        __de::Some(<#table as __de::TableDef>::ENTITIES);
                    const TABLE_INDEXES: ::core::option::Option<&'static [__de::GsiDecl]> =
                        __de::Some(<#table as __de::TableDef>::INDEXES);
                },
            )
        } else {
            (quote!(__de::put_type(&mut item, #name)), quote!(__de::check_type(item, #name)), quote!())
        };
        let (put_constants, check_constants) = if e.attrs.constants.is_empty() {
            (quote!(), quote!())
        } else {
            (
                quote!(__de::put_constants(&mut item, __DeSchema::SCHEMA.constants);),
                quote!(__de::check_constants(item, __DeSchema::SCHEMA)?;),
            )
        };
        let from_item_body = if picks_key {
            let (type_slot, pk_slot, sk_slot) =
                (syn::Index::from(n_fields), syn::Index::from(n_fields + 1), syn::Index::from(n_fields + 2));
            quote! {
                #pick
                __de::check_type_at(item, __a[#type_slot], #name)?;
                #check_constants
                let value = Self { #(#get_fields),* };
                __DeSchema::check_primary_key(item, __a[#pk_slot], __a[#sk_slot], #(#value_key_args),*)?;
                __de::Result::Ok(value)
            }
        } else {
            quote! {
                #check_type?;
                #check_constants
                #pick
                let value = Self { #(#get_fields),* };
                __DeSchema::check_primary_key(item, item.get(#pk_name), item.get(#sk_name), #(#value_key_args),*)?;
                __de::Result::Ok(value)
            }
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
        let from_item_body = self.dispatch_schema_version(from_item_body);
        quote! {
            const TYPE: &'static str = #name;
            #names

            const SCHEMA: &'static __de::EntitySchema = __DeSchema::SCHEMA;

            #[cfg_attr(debug_assertions, inline)]
            fn to_item(&self) -> __de::Result<__de::Item, __de::Error> {
                let mut item = __de::Item::with_capacity(#capacity);
                __DeSchema::put_primary_key(&mut item, #(#key_args),*)?;
                #(#put_gsis)*
                #(#put_lsis)*
                #(#put_fields)*
                #put_type;
                #put_constants
                #stamp_schema_version
                #check_multi
                __de::Result::Ok(item)
            }

            #[cfg_attr(debug_assertions, inline)]
            fn from_item(item: &__de::Item) -> __de::Result<Self, __de::Error> {
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
}

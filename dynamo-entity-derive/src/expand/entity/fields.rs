//! Field handles: one associated constant per field, for conditions and updates, marked by
//! what an update may do with the field (`Immutable`, `Unique`, `Maintained`).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use super::Gen;
use crate::internals::attr::entity::Maintained;
use crate::internals::case::screaming_snake;
use crate::internals::types;

impl Gen<'_, '_> {
    /// One field handle per field: an associated constant typed by the field.
    pub(super) fn field_handles(&self) -> TokenStream {
        let e = self.e;
        let mut items = TokenStream::new();
        for f in &e.fields {
            let constant = Ident::new(&screaming_snake(&f.name), Span::call_site());
            let ty = f.ty;
            let (field, attribute) = (&f.name, &f.attribute);
            let fvis = f.vis;
            let in_primary = e.is_primary_key_field(&f.name);
            let part = if e.is_key_field(&f.name) {
                quote!(__de::Some(<#ty as __de::KeyPart>::write_part))
            } else {
                quote!(__de::None)
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
                    .map(|g| format!("`{}`", g.kind.label()))
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
}

//! The inherent query functions: `key()`, and one per index (`query`, `gsiN`, `inverted`,
//! `lsiN`) taking the partition key's parts and typed by the sort key's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::{Ident, Type};

use super::Gen;
use super::keys::IndexNames;
use crate::internals::ast::entity::{Field, IndexKeys, LsiKeys};
use crate::internals::model::IndexKind;
use crate::internals::template::Segment;
use crate::internals::types::{self, KeyPartType};

impl Gen<'_, '_> {
    /// `&<T as KeyPart>::Arg` for a field's type; spelled out for the runtime's own types so the
    /// docs read `category: &str`.
    fn arg_type(f: &Field) -> TokenStream {
        let ty = f.ty;
        let inner = types::option_inner(ty).unwrap_or(ty);
        match types::key_part(ty) {
            KeyPartType::Builtin if is_named(inner, "String") => quote!(&str),
            KeyPartType::Builtin => quote!(&#inner),
            KeyPartType::Binary => quote!(&[u8]),
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

    /// `key()`, `query()`, `gsiN()`, `inverted()` and `lsiN()`.
    pub(super) fn query_items(&self) -> TokenStream {
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
        items.extend(self.multi_query_fns());
        items
    }

    /// `query()` or `gsiN()`: the partition of one index, sorted by its sort key.
    fn query_fn(&self, index: &IndexKeys) -> TokenStream {
        let e = self.e;
        let name = self.name;
        let vis = e.vis;
        let names = IndexNames::new(index.kind);
        let (schema, pk_fn) = (&names.schema, &names.pk_fn);
        let pk_ctx = super::keys::ctx_name(&names.pk_tpl);
        let pk_fields: Vec<&Field> = index.pk.field_names().into_iter().map(|n| self.field(n)).collect();
        let params = Self::params(&pk_fields);
        let args = pk_fields.iter().map(|f| f.ident);
        let sk_types: Vec<&Type> = index.sk.field_names().into_iter().map(|n| self.field(n).ty).collect();
        let (pk_attr, sk_attr) = (index.kind.partition().default_name(), index.kind.sort().default_name());
        let (fn_name, which) = match index.kind {
            IndexKind::Primary => (format_ident!("query"), "the table".to_owned()),
            IndexKind::Gsi(n) => (format_ident!("gsi{n}"), format!("`GSI{n}`")),
            IndexKind::Lsi(_) | IndexKind::Inverted => unreachable!("not in `indexes()`"),
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
                        __DeSchema::#schema,
                        #name,
                        __de::finish_key(__DeSchema::#pk_fn(#(#args),*), __DeSchema::#pk_ctx),
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
                    __DeSchema::#schema,
                    #name,
                    __de::shard_keys(#count, |shard| __DeSchema::#pk_fn(#(#shard_args),*), __DeSchema::#pk_ctx),
                )
            }
        }
    }

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
                    __DeSchema::#schema,
                    #name,
                    __de::finish_key(__DeSchema::primary_pk(#(#args),*), __DeSchema::PRIMARY_PK_CTX),
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
                    __DeSchema::INVERTED,
                    #name,
                    __de::finish_key(__DeSchema::primary_sk(#(#args),*), __DeSchema::PRIMARY_SK_CTX),
                )
            }
        }
    }
}

fn is_named(ty: &Type, name: &str) -> bool {
    matches!(ty, Type::Path(p) if p.qself.is_none() && p.path.segments.last().is_some_and(|s| s.ident == name))
}

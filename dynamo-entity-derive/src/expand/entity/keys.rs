//! Key writers: one function per template, generic over the part types (so that `key()`
//! arguments and struct fields share it), the functions that write an index's keys from an
//! entity value, and the primary key's.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::Ident;

use super::Gen;
use crate::internals::ast::entity::{IndexKeys, KeyTemplate, LsiKeys};
use crate::internals::attr::key_style::{KeyCase, KeyStyleAttrs};
use crate::internals::model::{IndexKind, KeyRole};
use crate::internals::template::Segment;

/// Names of the generated constants and functions of one index.
pub(super) struct IndexNames {
    /// `PRIMARY`, `GSI1`: the `IndexSchema` constant.
    pub(super) schema: Ident,
    /// `PRIMARY_PK`: the template constants.
    pub(super) pk_tpl: Ident,
    pub(super) sk_tpl: Ident,
    /// `primary_pk`: the writer functions.
    pub(super) pk_fn: Ident,
    pub(super) sk_fn: Ident,
}

impl IndexNames {
    pub(super) fn new(kind: IndexKind) -> IndexNames {
        let base = match kind {
            IndexKind::Primary => "primary".to_owned(),
            IndexKind::Gsi(n) => format!("gsi{n}"),
            IndexKind::Lsi(n) => format!("lsi{n}"),
            IndexKind::Inverted => unreachable!("the inverted index has no templates of its own"),
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

/// The name of a template constant's key context: `PRIMARY_PK` → `PRIMARY_PK_CTX`.
pub(super) fn ctx_name(tpl_const: &Ident) -> Ident {
    format_ident!("{tpl_const}_CTX")
}

/// The runtime `KeyStyle` expression of the entity's key style.
fn style_expr(style: &KeyStyleAttrs) -> TokenStream {
    let case = match style.case() {
        KeyCase::AsIs => quote!(__de::KeyCase::AsIs),
        KeyCase::Lower => quote!(__de::KeyCase::Lower),
        KeyCase::Upper => quote!(__de::KeyCase::Upper),
    };
    let escape = !style.verbatim.as_ref().is_some_and(|(v, _)| *v);
    let delimiter = style.delimiter();
    quote!(__de::KeyStyle { case: #case, escape: #escape, delimiter: #delimiter })
}

/// The runtime segment of one parsed segment, literal text in the entity's case.
fn segment_expr(segment: &Segment, style: &KeyStyleAttrs) -> TokenStream {
    match segment {
        Segment::Literal(l) => {
            let l = style.fold(l);
            quote!(__de::Segment::Literal(#l))
        }
        Segment::Field { name, prefix, suffix, raw, .. } if prefix.is_empty() && suffix.is_empty() && !raw => {
            quote!(__de::Segment::Field(#name))
        }
        Segment::Field { name, prefix, suffix, raw, .. } => {
            let (prefix, suffix) = (style.fold(prefix), style.fold(suffix));
            quote!(__de::Segment::Part { prefix: #prefix, field: #name, suffix: #suffix, raw: #raw })
        }
        Segment::Shard { field, count, .. } => quote!(__de::Segment::Shard { field: #field, count: #count }),
    }
}

impl Gen<'_, '_> {
    /// A template as the runtime's `Template` constant.
    pub(super) fn template_expr(&self, t: &KeyTemplate) -> TokenStream {
        let source = t.source();
        let parsed = t.parsed.as_ref().expect("checked templates parse");
        let style = &self.e.attrs.key_style;
        let segments = parsed.segments.iter().map(|s| segment_expr(s, style));
        let style_expr = style_expr(style);
        // The partition's cardinality from its placeholders' types (a shard does not count).
        let cardinality = parsed.fields().map(|(name, _)| {
            let ty = self.field(name).ty;
            quote!(<#ty as __de::KeyPart>::CARDINALITY)
        });
        let key_type = match parsed.segments.as_slice() {
            [Segment::Field { name, prefix, suffix, .. }] if prefix.is_empty() && suffix.is_empty() => {
                let ty = self.field(name).ty;
                quote!(__de::single_key_type::<#ty>())
            }
            _ => quote!(__de::KeyType::S),
        };
        // `Template::new` takes the default style; another is set after.
        let styled = if style.is_default() { quote!() } else { quote!(.with_style(#style_expr)) };
        quote! {
            __de::Template::new(#source, &[#(#segments),*], #key_type, &[#(#cardinality),*]) #styled
        }
    }

    /// A writer function for one template: generic over the part types, in template order;
    /// and the template's key context, `<TEMPLATE>_CTX`, which its finishing takes.
    fn writer_fn(
        &self,
        fn_name: &Ident,
        tpl_const: &Ident,
        role: KeyRole,
        t: &KeyTemplate,
        partition: bool,
    ) -> TokenStream {
        let name = self.name;
        let kind = if partition { quote!(partition) } else { quote!(sort) };
        let ctx_const = ctx_name(tpl_const);
        let attribute_expr = self.attr(role);
        // One parameter per placeholder and shard suffix, in template order; a shard suffix
        // takes what picks the shard (`ShardBy`). Each is written with its segment's index in
        // the template, a constant, so that the compiler walks the template at compile time.
        let parts: Vec<(bool, usize)> = t
            .parsed
            .iter()
            .flat_map(|p| p.segments.iter().enumerate())
            .filter_map(|(i, s)| match s {
                Segment::Literal(_) => None,
                Segment::Field { .. } => Some((false, i)),
                Segment::Shard { .. } => Some((true, i)),
            })
            .collect();
        let n = parts.len();
        let params: Vec<Ident> = (0..n).map(|i| format_ident!("p{i}")).collect();
        let generics: Vec<Ident> = (0..n).map(|i| format_ident!("P{i}")).collect();
        let writes = params.iter().zip(&parts).map(|(p, (shard, index))| {
            let write = if *shard { quote!(shard) } else { quote!(part) };
            quote!(k.#write(Self::#ctx_const, #index, #p)?;)
        });
        let param_types = generics
            .iter()
            .zip(&parts)
            .map(|(g, (shard, _))| if *shard { quote!(__de::ShardBy<'_, #g>) } else { quote!(&#g) });
        let body = if n == 0 {
            quote!(__de::Result::Ok(__de::KeyText::start(Self::#tpl_const)))
        } else {
            quote! {
                let mut k = __de::KeyText::start(Self::#tpl_const);
                #( #writes )*
                __de::Result::Ok(k)
            }
        };
        quote! {
            const #ctx_const: &'static __de::KeyContext =
                &__de::KeyContext::#kind(#name, #attribute_expr, Self::#tpl_const);

            #[inline]
            fn #fn_name<#(#generics: __de::KeyPart + ?__de::Sized),*>(
                #(#params: #param_types),*
            ) -> __de::KeyResult<__de::KeyText> {
                #body
            }
        }
    }

    /// The partition and sort key writers of one index of `indexes()`.
    pub(super) fn index_writers(&self, index: &IndexKeys, names: &IndexNames) -> (TokenStream, TokenStream) {
        // With the inverted index, the table's `PK` is also that index's sort key, limited
        // to a sort key's 1,024 bytes.
        let partition_limit = !(index.kind == IndexKind::Primary && self.e.attrs.inverted.is_some());
        let pk_fn = self.writer_fn(&names.pk_fn, &names.pk_tpl, index.kind.partition(), &index.pk, partition_limit);
        let sk_fn = self.writer_fn(&names.sk_fn, &names.sk_tpl, index.kind.sort(), &index.sk, false);
        (pk_fn, sk_fn)
    }

    /// An LSI's sort key writer, and the function that writes it from an entity value.
    pub(super) fn lsi_key_fns(&self, lsi: &LsiKeys, names: &IndexNames) -> TokenStream {
        let (n, ident) = (lsi.n, self.e.ident);
        let (sk_tpl, sk_fn) = (&names.sk_tpl, &names.sk_fn);
        let sk_ctx = ctx_name(sk_tpl);
        let writer = self.writer_fn(sk_fn, sk_tpl, KeyRole::LsiSk(n), &lsi.sk, false);
        let fn_name = format_ident!("lsi{n}");
        let sk_parts = self.self_parts(&lsi.sk, quote!(this));
        quote! {
            #writer
            // The LSI's sort key of `this`; `None` when a part is `None`.
            #[inline]
            fn #fn_name(this: &#ident) -> __de::Result<__de::Option<__de::AttributeValue>, __de::Error> {
                __de::Result::Ok(Self::#sk_fn(#(#sk_parts),*)?.finish_sparse(Self::#sk_ctx)?)
            }
        }
    }

    /// Both keys of one GSI from an entity value, each `None` when a part is absent.
    pub(super) fn gsi_fn(&self, index: &IndexKeys, names: &IndexNames) -> TokenStream {
        let ident = self.e.ident;
        let IndexKind::Gsi(n) = index.kind else { unreachable!() };
        let fn_name = format_ident!("gsi{n}");
        let (pk_fn, sk_fn) = (&names.pk_fn, &names.sk_fn);
        let (pk_ctx, sk_ctx) = (ctx_name(&names.pk_tpl), ctx_name(&names.sk_tpl));
        let pk_parts = self.self_parts(&index.pk, quote!(this));
        let sk_parts = self.self_parts(&index.sk, quote!(this));
        quote! {
            // The GSI's partition and sort key of `this`; `None` when a part is `None`.
            #[inline]
            fn #fn_name(this: &#ident) -> __de::Result<
                (__de::Option<__de::AttributeValue>, __de::Option<__de::AttributeValue>),
                __de::Error,
            > {
                __de::Result::Ok((
                    Self::#pk_fn(#(#pk_parts),*)?.finish_sparse(Self::#pk_ctx)?,
                    Self::#sk_fn(#(#sk_parts),*)?.finish_sparse(Self::#sk_ctx)?,
                ))
            }
        }
    }

    /// `&this.field` for each placeholder of `t`, `ShardBy::Source(&this.field)` for its shard
    /// suffix, in template order.
    pub(super) fn self_parts(&self, t: &KeyTemplate, this: TokenStream) -> Vec<TokenStream> {
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

    /// The primary key from its distinct fields, for `Entity::primary_key` and `key()`; the
    /// check of a read item's key.
    pub(super) fn primary_key_fns(&self) -> TokenStream {
        let e = self.e;
        let label = &self.label;
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
        let (pk_name, sk_name) = (self.attr(KeyRole::Pk), self.attr(KeyRole::Sk));
        let check_key = if e.attrs.table.is_some() {
            quote!(__de::check_key_named(item, Self::NAMES, #label, Self::primary_key(#(#params),*)))
        } else {
            quote!(__de::check_key(item, #label, Self::primary_key(#(#params),*)))
        };
        quote! {
            // Encodes the primary key from its parts: the partition key's, then the sort key's
            // that are not in the partition key.
            #[inline]
            fn primary_key<#(#generics: __de::KeyPart + ?__de::Sized),*>(
                #(#params: &#generics),*
            ) -> __de::Result<__de::PrimaryKey, __de::Error> {
                __de::Result::Ok(__de::PrimaryKey {
                    pk: Self::primary_pk(#(#pk_args),*)?.finish(Self::PRIMARY_PK_CTX)?,
                    sk: Self::primary_sk(#(#sk_args),*)?.finish(Self::PRIMARY_SK_CTX)?,
                })
            }

            // Encodes the primary key from its parts, as [`primary_key`](Self::primary_key),
            // into `item`: each key goes from its writer into the item, with no `PrimaryKey`
            // between them (an encode's hot path).
            #[inline]
            fn put_primary_key<#(#generics: __de::KeyPart + ?__de::Sized),*>(
                item: &mut __de::Item,
                #(#params: &#generics),*
            ) -> __de::Result<(), __de::Error> {
                let pk = Self::primary_pk(#(#pk_args),*)?.finish(Self::PRIMARY_PK_CTX)?;
                item.insert(::std::string::String::from(#pk_name), pk);
                let sk = Self::primary_sk(#(#sk_args),*)?.finish(Self::PRIMARY_SK_CTX)?;
                item.insert(::std::string::String::from(#sk_name), sk);
                __de::Result::Ok(())
            }

            // Whether an item read from the table has the primary key its fields give (an
            // item without `PK`/`SK`, from a projection, passes); the error names the key.
            #[inline]
            fn check_primary_key<#(#generics: __de::KeyPart + ?__de::Sized),*>(
                item: &__de::Item,
                stored_pk: __de::Option<&__de::AttributeValue>,
                stored_sk: __de::Option<&__de::AttributeValue>,
                #(#params: &#generics),*
            ) -> __de::Result<(), __de::Error> {
                let mut pk = __de::KeyMatcher::new(Self::PRIMARY_PK, stored_pk);
                #( pk.part(#pk_args); )*
                let mut sk = __de::KeyMatcher::new(Self::PRIMARY_SK, stored_sk);
                #( sk.part(#sk_args); )*
                if pk.finish() && sk.finish() {
                    return __de::Result::Ok(());
                }
                #check_key
            }

        }
    }
}

//! The checks of `#[derive(TableDef)]` across its entities.
//!
//! A derive sees only its own input, so the checks that need the other entities' templates are
//! `const _: () = if check(..) { panic!("..") };` items: the runtime's `layout_check` functions
//! read every entity's `Entity::SCHEMA` during constant evaluation, and the message, which a
//! constant panic takes only as a literal, is composed here, where the entity names are known.
//! Each item carries the span of the entity it is about, so the error points at that entity in
//! the declaration, and each problem is its own item, so all of them are reported at once.

use proc_macro2::TokenStream;
use quote::{format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Ident, Path};

use crate::internals::ast::table::{Names, compact};
use crate::internals::attr::table::Decl;
use crate::internals::model::{IndexKind, KeyRole, MAX_GSI, MAX_LSI, Projection};

/// The checks of one table declaration.
pub struct Checks<'a> {
    pub table: &'a Ident,
    pub table_str: &'a str,
    pub entities: &'a [Path],
    pub decl: &'a Decl,
    pub names: &'a Names,
}

impl Checks<'_> {
    /// Entity `i` as written.
    fn name(&self, i: usize) -> String {
        compact(&self.entities[i])
    }

    /// The schema of entity `i`, as a constant expression.
    fn schema(&self, i: usize) -> TokenStream {
        let table = self.table;
        quote!(<#table as ::dynamo_entity::__private::TableDef>::ENTITIES[#i])
    }

    /// `const _: () = if #cond { panic!(#message) };`, spanned on entity `at`.
    fn check(&self, at: usize, cond: TokenStream, message: String) -> TokenStream {
        let span = self.entities[at].span();
        quote_spanned! {span=>
            const _: () = if #cond { ::core::panic!(#message) };
        }
    }

    /// Every check, one `const` item each.
    pub fn all(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let n = self.entities.len();
        let entities = {
            let table = self.table;
            quote!(<#table as ::dynamo_entity::__private::TableDef>::ENTITIES)
        };
        let p = quote!(::dynamo_entity::__private);
        // Every secondary index whose key types are checked pair by pair: the declared ones
        // without a declared type (an undeclared one is its own error).
        let names = self.names;
        let mut attributes: Vec<(TokenStream, String, bool)> = vec![
            (quote!(#p::Index::Primary), names.pk.clone(), true),
            (quote!(#p::Index::Primary), names.sk.clone(), false),
        ];
        for d in &self.decl.indexes {
            if d.kind == IndexKind::Inverted {
                continue;
            }
            for (partition, declared) in [(true, d.pk), (false, d.sk)] {
                // An LSI's partition key is `PK`, checked as the table's.
                if partition && matches!(d.kind, IndexKind::Lsi(_)) {
                    continue;
                }
                if declared.is_none() {
                    attributes.push((d.kind.tokens(&p), names.attribute(d.kind, partition).to_owned(), partition));
                }
            }
        }
        let mut indexes: Vec<(TokenStream, String, String)> =
            vec![(quote!(#p::Index::Primary), "the table".to_owned(), names.sk.clone())];
        for d in &self.decl.indexes {
            indexes.push((d.kind.tokens(&p), d.kind.label(), names.attribute(d.kind, false).to_owned()));
        }
        // The key and type attributes, which no field may be stored in.
        let mut roles: Vec<(&str, String)> = vec![
            (&names.pk, KeyRole::Pk.describe()),
            (&names.sk, KeyRole::Sk.describe()),
            (&names.entity_type, "the entity type attribute".to_owned()),
        ];
        for d in &self.decl.indexes {
            match d.kind {
                IndexKind::Gsi(_) => {
                    roles.push((names.key(d.kind.partition()), d.kind.partition().describe()));
                    roles.push((names.key(d.kind.sort()), d.kind.sort().describe()));
                }
                IndexKind::Lsi(_) => roles.push((names.key(d.kind.sort()), d.kind.sort().describe())),
                IndexKind::Inverted | IndexKind::Primary => {}
            }
        }
        let table_names = {
            let table = self.table;
            quote!(<#table as #p::TableDef>::NAMES)
        };
        for j in 0..n {
            let (b, bn) = (self.schema(j), self.name(j));
            // The entity must write the table's names: `#[entity(table = ...)]`.
            let (table, table_str) = (self.table, self.table_str);
            out.extend(self.check(
                j,
                quote!(#p::is_checked(#b) && !#p::AttributeNames::same(#b.names, #table_names)),
                format!(
                    "entity `{bn}` does not use the attribute names of table `{table_str}`: add \
                     `#[entity(table = {table})]` to it, so that its items are keyed and typed as the table declares"
                ),
            ));
            // Entities that share a type value are told apart by key shape, which a read can do
            // only when it knows the table's entities, as `table = ...` tells it.
            let path = &self.entities[j];
            out.extend(self.check(
                j,
                quote!(#p::shares_type_name(#entities, #j) && <#path as #p::Entity>::TABLE_ENTITIES.is_none()),
                format!(
                    "entity `{bn}` shares its entity type value with another entity of table `{table_str}`: reads \
                     tell such items apart by their key templates, for which they need the table's entities; add \
                     `#[entity(table = {table})]` to `{bn}`"
                ),
            ));
            for (attribute, role) in &roles {
                out.extend(self.check(
                    j,
                    quote!(#p::stores_attribute(#b, #attribute)),
                    format!(
                        "entity `{bn}` stores a field in attribute `{attribute}`, which is {role} in table \
                         `{table_str}`: the field and {role} would overwrite each other; store the field under \
                         another name with `#[entity(rename = \"...\")]`"
                    ),
                ));
                out.extend(self.check(
                    j,
                    quote!(#p::aliases_attribute(#b, #attribute)),
                    format!(
                        "entity `{bn}` gives a field the alias `{attribute}`, which is {role} in table \
                         `{table_str}`: reads would take {role} as the field's value, and `write_alias` would \
                         overwrite it; an alias names the attribute the field was stored in before a rename, \
                         so give the field another alias"
                    ),
                ));
            }
            for i in 0..j {
                let (a, an) = (self.schema(i), self.name(i));
                if an == bn {
                    continue; // listed twice: reported by the derive
                }
                // One delimiter per table, reported against the first entity: one error each.
                if i == 0 {
                    out.extend(self.check(
                        j,
                        quote!(#p::delimiters_differ(#a, #b)),
                        format!(
                            "entities `{an}` and `{bn}` separate the segments of their keys with different delimiters \
                             (`#[entity(delimiter = \"...\")]`): the entities of one table use one delimiter, so that \
                             the table's checks can prove their keys never collide; give `{bn}` the delimiter of `{an}`"
                        ),
                    ));
                }
                // Entities may share a type name: the collision check below proves their key
                // templates disjoint, and the table's item enum tells them apart by key shape.
                out.extend(self.check(
                    j,
                    quote!(#p::first_collider(#entities, #j) == #i),
                    format!(
                        "entities `{an}` and `{bn}` can produce the same primary key: their `{}` templates and their \
                         `{}` templates have as many `#`-separated segments, and each segment of one can equal the \
                         other's (a literal equals only itself, a placeholder any text its type writes: any for a \
                         `String`, 20 digits for a `u64`), so one item would overwrite the other; give one of them a \
                         distinct literal segment, one the other's placeholder cannot write",
                        names.pk, names.sk
                    ),
                ));
                // `hierarchy(P(C, ...))`: P and its children share a sort-key prefix on purpose,
                // so their queries on the table may read each other's items.
                let grouped = self.decl.hierarchy.iter().any(|(p, cs)| {
                    let member = |x: &str| compact(p) == x || cs.iter().any(|c| compact(c) == x);
                    member(&an) && member(&bn)
                });
                let (a_reads_b, b_reads_a) = (grouped, grouped);
                for (index, label, sk) in &indexes {
                    let same = quote!(#p::keys_collide(#a, #b) && ::core::matches!(#index, #p::Index::Primary));
                    // A declared parent-child pair is exempt on the table (the primary index) only.
                    let primary = quote!(::core::matches!(#index, #p::Index::Primary));
                    let (allow_ab, allow_ba) = (
                        if a_reads_b { quote!(#primary) } else { quote!(false) },
                        if b_reads_a { quote!(#primary) } else { quote!(false) },
                    );
                    let message = |x: &str, y: &str| {
                        format!(
                            "in {label}, the query of `{x}` adds `begins_with({sk}, ...)` on its sort key's literal \
                             prefix, which also matches sort keys of `{y}` in a partition both can share: every such \
                             query would read `{y}` items too; start the two sort keys with different literal segments"
                        )
                    };
                    let (m1, m2) = (message(&an, &bn), message(&bn, &an));
                    let span = self.entities[j].span();
                    out.extend(quote_spanned! {span=>
                        const _: () = if !(#same) {
                            if #p::prefix_reads(#a, #b, #index) && !(#allow_ab) {
                                ::core::panic!(#m1)
                            } else if #p::prefix_reads(#b, #a, #index) && !(#allow_ba) {
                                ::core::panic!(#m2)
                            }
                        };
                    });
                }
                // Multi-attribute GSIs: one key schema per index.
                for d in &self.decl.indexes {
                    let IndexKind::Gsi(g) = d.kind else { continue };
                    out.extend(self.check(
                        j,
                        quote!(#p::multi_keys_disagree(#entities, #i, #j, #g)),
                        format!(
                            "entities `{an}` and `{bn}` key GSI{g} on different attributes: entities sharing a \
                             multi-attribute GSI give it the same key attribute names and types, in the same order"
                        ),
                    ));
                    out.extend(self.check(
                        j,
                        // Against the first entity of the other form only: one error per entity.
                        quote!(
                            (#p::template_and_multi(#a, #b, #g)
                                && #p::first_user(#entities, #p::Index::Gsi(#g), true) == #i)
                                || (#p::template_and_multi(#b, #a, #g) && #p::first_multi_user(#entities, #g) == #i)
                        ),
                        format!(
                            "entities `{an}` and `{bn}` key GSI{g} differently: one with key templates (`gsi{g} = \
                             \"...\"`), the other on its attributes (`gsi{g}(pk(...), sk(...))`); an index has one \
                             key schema"
                        ),
                    ));
                }
                out.extend(self.check(
                    j,
                    quote!(#p::ttl_differs(#a, #b) && #p::first_ttl(#entities) == #i),
                    format!(
                        "entities `{an}` and `{bn}` keep their time to live in different attributes; a table has one \
                         TTL attribute: give both `#[entity(ttl)]` fields the same attribute name"
                    ),
                ));
                for (index, attr, partition) in &attributes {
                    let cond = quote!(#p::disagrees_with_first(#entities, #i, #j, #index, #partition));
                    let message = |bt: &str, at: &str| {
                        format!(
                            "entity `{bn}` stores `{attr}` as {bt} but `{an}`, the first entity of the table that \
                             writes it, stores it as {at}; a table defines each key attribute with one type ({})",
                            key_type_rule(bt, at)
                        )
                    };
                    let (to_n, to_s) = (message("N", "S"), message("S", "N"));
                    // The pairs with binary (`B`) keys, each with its own message.
                    let mut binary = TokenStream::new();
                    for (bt, at) in [("B", "S"), ("B", "N"), ("S", "B"), ("N", "B")] {
                        let (bi, ai) = (format_ident!("{bt}"), format_ident!("{at}"));
                        let text = message(bt, at);
                        binary.extend(quote! {
                            if ::core::matches!(#p::key_type(#b, #index, #partition), ::core::option::Option::Some(#p::KeyType::#bi))
                                && ::core::matches!(#p::key_type(#a, #index, #partition), ::core::option::Option::Some(#p::KeyType::#ai)) {
                                ::core::panic!(#text)
                            } else
                        });
                    }
                    let span = self.entities[j].span();
                    out.extend(quote_spanned! {span=>
                        const _: () = if #cond {
                            #binary
                            if ::core::matches!(#p::key_type(#b, #index, #partition), ::core::option::Option::Some(#p::KeyType::N)) {
                                ::core::panic!(#to_n)
                            } else {
                                ::core::panic!(#to_s)
                            }
                        };
                    });
                }
            }
            // An attribute named like a key attribute of a multi-attribute GSI that entity j does
            // not declare: of another type, every write fails; all of them, its items enter the
            // index. The message names the attributes, which only the schemas know, so it is
            // composed during constant evaluation.
            let entity_names: Vec<String> = (0..n).map(|i| self.name(i)).collect();
            for d in &self.decl.indexes {
                let IndexKind::Gsi(g) = d.kind else { continue };
                let (span, table_str) = (self.entities[j].span(), self.table_str);
                out.extend(quote_spanned! {span=>
                    const _: () = {
                        const TEXT: #p::ConstText =
                            #p::undeclared_multi_gsi(#entities, &[#(#entity_names),*], #table_str, #j, #g);
                        if !TEXT.is_empty() {
                            ::core::panic!("{}", TEXT.as_str())
                        }
                    };
                });
            }
            // `hierarchy(P(C))` where C is entity j: P's query must really read C's items.
            for (parent, children) in &self.decl.hierarchy {
                let Some(i) = self.entities.iter().position(|e| compact(e) == compact(parent)) else { continue };
                if !children.iter().any(|c| compact(c) == bn) || i == j {
                    continue;
                }
                let (a, an) = (self.schema(i), self.name(i));
                let message = format!(
                    "`hierarchy({an}({bn}))` declares that the query of `{an}` reads `{bn}` items, but it cannot: \
                     `{bn}`'s sort key does not start with `{an}`'s literal sort-key prefix in a partition both \
                     share, or `{an}`'s query reads only the fixed-form digits of its placeholder (`BETWEEN`), \
                     which `{bn}`'s next segment cannot start with; remove `{bn}` from the hierarchy"
                );
                out.extend(self.check(j, quote!(!#p::prefix_reads(#a, #b, #p::Index::Primary)), message));
            }
            // Indexes the entity writes that the table does not declare.
            for g in 1..=MAX_GSI {
                if self.decl.indexes.iter().any(|d| d.kind == IndexKind::Gsi(g)) {
                    continue;
                }
                out.extend(self.check(
                    j,
                    quote!(#p::uses_gsi(#b, #g) || #p::uses_multi_gsi(#b, #g)),
                    format!(
                        "entity `{bn}` writes GSI{g}, which table `{}` does not declare: add `gsi{g}(projection = all)` \
                         to its `#[table(...)]`",
                        self.table_str
                    ),
                ));
            }
            for l in 1..=MAX_LSI {
                if self.decl.indexes.iter().any(|d| d.kind == IndexKind::Lsi(l)) {
                    continue;
                }
                out.extend(self.check(
                    j,
                    quote!(#p::uses_lsi(#b, #l)),
                    format!(
                        "entity `{bn}` writes LSI{l}, which table `{}` does not declare: add `lsi{l}(projection = all)` \
                         to its `#[table(...)]` (an LSI can only be created with its table)",
                        self.table_str
                    ),
                ));
            }
            if !self.decl.indexes.iter().any(|d| d.kind == IndexKind::Inverted) {
                out.extend(self.check(
                    j,
                    quote!(#p::uses_inverted(#b)),
                    format!(
                        "entity `{bn}` is `#[entity(inverted)]`, but table `{}` does not declare the inverted index: \
                         add `inverted(projection = all)` to its `#[table(...)]`",
                        self.table_str
                    ),
                ));
            }
            // Declared key types.
            for d in &self.decl.indexes {
                for (partition, declared) in [(true, d.pk), (false, d.sk)] {
                    let Some((want, _)) = declared else { continue };
                    let index = d.kind.tokens(&p);
                    for found in ["S", "N", "B"].into_iter().filter(|f| *f != want) {
                        let found_tokens = format_ident!("{found}");
                        out.extend(self.check(
                            j,
                            quote!(::core::matches!(#p::key_type(#b, #index, #partition), ::core::option::Option::Some(#p::KeyType::#found_tokens))),
                            format!(
                                "entity `{bn}` stores `{}` as {found} but table `{}` declares it {want} ({})",
                                names.attribute(d.kind, partition),
                                self.table_str,
                                key_type_rule(found, want)
                            ),
                        ));
                    }
                }
            }
        }
        // Projected attributes that no entity writing the index stores.
        for d in &self.decl.indexes {
            let Projection::Include(names) = &d.projection else { continue };
            let index = d.kind.tokens(&p);
            for (name, span) in names {
                if *name == self.names.entity_type {
                    continue;
                }
                let message = format!(
                    "{} projects attribute `{name}`, which no entity writing {} stores (attribute names are the \
                     stored ones, after `#[entity(rename = \"...\")]`)",
                    d.kind.label(),
                    d.kind.label()
                );
                out.extend(quote_spanned! {*span=>
                    const _: () = if !#p::some_writer_stores(#entities, #index, #name) { ::core::panic!(#message) };
                });
            }
        }
        out
    }
}

/// How a template's key type is chosen, for messages about types `a` and `b`: the rule as it
/// was before binary keys when neither is `B`.
fn key_type_rule(a: &str, b: &str) -> &'static str {
    if a == "B" || b == "B" {
        "a template that is one numeric placeholder is N, one binary (`Vec<u8>`) placeholder B, any other S"
    } else {
        "a template that is one numeric placeholder is N, any other S"
    }
}

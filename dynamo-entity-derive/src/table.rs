//! `#[derive(Table)]`: a table declaration naming its entities and secondary indexes.
//!
//! ```ignore
//! #[derive(Table)]
//! #[table(entities(User, Skill, Review), gsi1(projection = all), gsi2(projection = keys_only))]
//! pub struct SkillExchange;
//! ```
//!
//! Generates `impl TableDef for SkillExchange` (entities, declared indexes with projections),
//! the enum `SkillExchangeItem` with one variant per entity (`#[derive(Collection)]`), and the
//! checks across the entities. A derive sees only its own input, so the checks that need the
//! other entities' templates are `const _: () = if check(..) { panic!("..") };` items: the
//! runtime's `layout_check` functions read every entity's `Entity::SCHEMA` during constant
//! evaluation, and the message, which a constant panic takes only as a literal, is composed
//! here, where the entity names are known. Each item carries the span of the entity it is
//! about, so the error points at that entity in the declaration, and each problem is its own
//! item, so all of them are reported at once.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Ident, LitStr, Path, Token};

use crate::errors::Errors;
use crate::suggest;

/// DynamoDB's limit on the non-key attributes that the `INCLUDE` projections of one table's
/// secondary indexes may name, in total.
const MAX_PROJECTED: usize = 100;
/// The highest GSI number, as `#[derive(Entity)]` accepts it.
const MAX_GSI: u8 = 20;
/// The highest LSI number: DynamoDB allows 5 LSIs a table.
const MAX_LSI: u8 = 5;
const KEYS: [&str; 8] = ["entities", "gsi1", "inverted", "item", "pk", "sk", "type_attribute", "lsi1"];
const KEY_LIST: &str =
    "`entities(...)`, `gsi1(...)` to `gsi20(...)`, `lsi1(...)` to `lsi5(...)`, `inverted(...)`, `item(...)`";
/// The attribute names the runtime writes, which a declaration may only restate.
const DEFAULT_NAMES: [(&str, &str); 3] = [("pk", "PK"), ("sk", "SK"), ("type_attribute", "_type")];

#[derive(Clone, Copy, PartialEq, Eq)]
enum IndexKind {
    Gsi(u8),
    /// An LSI: partition key `PK`, sort key `LSI<n>SK`.
    Lsi(u8),
    Inverted,
}

impl IndexKind {
    fn label(self) -> String {
        match self {
            IndexKind::Gsi(n) => format!("GSI{n}"),
            IndexKind::Lsi(n) => format!("LSI{n}"),
            IndexKind::Inverted => "the inverted index".to_owned(),
        }
    }
    fn key(self) -> String {
        match self {
            IndexKind::Gsi(n) => format!("gsi{n}"),
            IndexKind::Lsi(n) => format!("lsi{n}"),
            IndexKind::Inverted => "inverted".to_owned(),
        }
    }
    fn attribute(self, partition: bool) -> String {
        match (self, partition) {
            (IndexKind::Gsi(n), true) => format!("GSI{n}PK"),
            (IndexKind::Gsi(n), false) => format!("GSI{n}SK"),
            (IndexKind::Lsi(_), true) => "PK".to_owned(),
            (IndexKind::Lsi(n), false) => format!("LSI{n}SK"),
            (IndexKind::Inverted, true) => "SK".to_owned(),
            (IndexKind::Inverted, false) => "PK".to_owned(),
        }
    }
    fn tokens(self) -> TokenStream {
        match self {
            IndexKind::Gsi(n) => quote!(::dynamo_entity::__private::Index::Gsi(#n)),
            IndexKind::Lsi(n) => quote!(::dynamo_entity::__private::Index::Lsi(#n)),
            IndexKind::Inverted => quote!(::dynamo_entity::__private::Index::Inverted),
        }
    }
}

enum Projection {
    All,
    KeysOnly,
    /// Attribute names with the span of each.
    Include(Vec<(String, Span)>),
}

struct IndexDecl {
    kind: IndexKind,
    /// The `gsiN` / `lsiN` / `inverted` key, for spans.
    key: Ident,
    projection: Projection,
    /// Declared key types: `true` for `N`.
    pk: Option<(bool, Span)>,
    sk: Option<(bool, Span)>,
}

#[derive(Default)]
struct Decl {
    entities: Option<Vec<Path>>,
    indexes: Vec<IndexDecl>,
    item: Option<Ident>,
    derives: Vec<Path>,
}

/// Expands `#[derive(Table)]`.
pub fn derive(input: &DeriveInput) -> TokenStream {
    let mut errors = Errors::default();
    let name = &input.ident;
    if !input.generics.params.is_empty() {
        errors.spanned(&input.generics, "a table declaration cannot be generic");
    }
    if !matches!(input.data, Data::Struct(_)) {
        errors.spanned(name, "#[derive(Table)] goes on a struct, usually a unit struct: `pub struct MyTable;`");
    }
    let decl = parse(input, &mut errors);
    let entities = decl.entities.clone().unwrap_or_default();
    check_decl(&decl, &entities, &mut errors);

    let name_str = syn::ext::IdentExt::unraw(name).to_string();
    let vis = &input.vis;
    let item = decl.item.clone().unwrap_or_else(|| format_ident!("{}Item", name));
    // Variants: one per distinct entity whose variant name is free.
    let mut variants: Vec<(&Ident, &Path)> = Vec::new();
    for p in &entities {
        let Some(last) = p.segments.last() else { continue };
        if !variants.iter().any(|(v, _)| **v == last.ident) {
            variants.push((&last.ident, p));
        }
    }
    let variant_docs = variants.iter().map(|(v, _)| format!("A `{v}` item."));
    let variant_idents = variants.iter().map(|(v, _)| v);
    let variant_paths = variants.iter().map(|(_, p)| p);
    let item_doc = format!(
        "Any item of the table `{name_str}`, decoded by its entity type attribute: one variant per entity of the \
         declaration. Generated by `#[derive(Table)]`."
    );
    let derives = &decl.derives;
    let enum_item = quote! {
        #[doc = #item_doc]
        #[derive(::dynamo_entity::Collection #(, #derives)*)]
        #vis enum #item {
            #( #[doc = #variant_docs] #variant_idents(#variant_paths), )*
        }
    };
    let schemas = entities.iter().map(|p| {
        let span = p.span();
        quote_spanned!(span=> <#p as ::dynamo_entity::__private::Entity>::SCHEMA)
    });
    let indexes = decl.indexes.iter().map(index_tokens);
    let impl_item = quote! {
        #[automatically_derived]
        impl ::dynamo_entity::__private::TableDef for #name {
            const NAME: &'static str = #name_str;
            const ENTITIES: &'static [&'static ::dynamo_entity::__private::EntitySchema] = &[#(#schemas),*];
            const INDEXES: &'static [::dynamo_entity::__private::GsiDecl] = &[#(#indexes),*];
            type Item = #item;
        }
    };
    match errors.into_compile_errors() {
        // The impl and the enum still exist, so uses of them add no errors; the cross-entity
        // checks are left out, since they would report what follows from the mistake.
        Some(e) => quote!(#e #impl_item #enum_item),
        None => {
            let checks = Checks { table: name, table_str: &name_str, entities: &entities, decl: &decl }.all();
            quote!(#impl_item #enum_item #checks)
        }
    }
}

fn index_tokens(d: &IndexDecl) -> TokenStream {
    let index = d.kind.tokens();
    let projection = match &d.projection {
        Projection::All => quote!(::dynamo_entity::__private::Projection::All),
        Projection::KeysOnly => quote!(::dynamo_entity::__private::Projection::KeysOnly),
        Projection::Include(names) => {
            let names = include_names(names);
            quote!(::dynamo_entity::__private::Projection::Include(&[#(#names),*]))
        }
    };
    let ty = |t: Option<(bool, Span)>| match t {
        Some((true, _)) => quote!(::core::option::Option::Some(::dynamo_entity::__private::KeyType::N)),
        Some((false, _)) => quote!(::core::option::Option::Some(::dynamo_entity::__private::KeyType::S)),
        None => quote!(::core::option::Option::None),
    };
    let (pk, sk) = (ty(d.pk), ty(d.sk));
    quote!(::dynamo_entity::__private::GsiDecl { index: #index, projection: #projection, pk: #pk, sk: #sk })
}

/// The `NonKeyAttributes` of an `INCLUDE` projection: the entity type attribute first (typed
/// queries through the index tell items apart by it), then the names given.
fn include_names(names: &[(String, Span)]) -> Vec<String> {
    let mut out = vec!["_type".to_owned()];
    out.extend(names.iter().map(|(n, _)| n.clone()).filter(|n| n != "_type"));
    out
}

// ---------------------------------------------------------------------------------------------
// Parsing

fn parse(input: &DeriveInput, errors: &mut Errors) -> Decl {
    let mut decl = Decl::default();
    let mut seen: Vec<String> = Vec::new();
    let mut any = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("table")) {
        any = true;
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident().cloned() else {
                errors.spanned(&meta.path, format!("unknown key; expected {KEY_LIST}"));
                return skip(&meta);
            };
            let key = ident.to_string();
            if seen.contains(&key) {
                errors.spanned(&ident, format!("`{key}` is given twice"));
                return skip(&meta);
            }
            seen.push(key.clone());
            if key == "entities" {
                let content;
                syn::parenthesized!(content in meta.input);
                let paths = Punctuated::<Path, Token![,]>::parse_terminated(&content)?;
                if paths.is_empty() {
                    errors.spanned(&ident, "`entities(...)` names no entity; list the table's entity types");
                }
                decl.entities = Some(paths.into_iter().collect());
                return Ok(());
            }
            if key == "item" {
                return parse_item(&meta, &mut decl, errors);
            }
            if let Some((_, default)) = DEFAULT_NAMES.iter().find(|(k, _)| *k == key) {
                let lit: LitStr = meta.value()?.parse()?;
                if lit.value() != *default {
                    errors.spanned(
                        &lit,
                        format!(
                            "custom key attribute names are not supported: the entities always write `{default}`; \
                             leave `{key}` out"
                        ),
                    );
                }
                return Ok(());
            }
            let kind = if key == "inverted" {
                Some(IndexKind::Inverted)
            } else if let Some(n) = key.strip_prefix("lsi") {
                n.parse::<u8>().ok().map(IndexKind::Lsi)
            } else {
                key.strip_prefix("gsi").and_then(|n| n.parse::<u8>().ok()).map(IndexKind::Gsi)
            };
            let Some(kind) = kind else {
                let lower = key.to_lowercase();
                let hint = match suggest::closest(&lower, KEYS) {
                    Some(s) if s != lower => format!(" (did you mean `{s}`?)"),
                    _ => String::new(),
                };
                errors.spanned(&ident, format!("unknown key `{key}`{hint}; expected {KEY_LIST}"));
                return skip(&meta);
            };
            if let IndexKind::Gsi(n) = kind {
                if !(1..=MAX_GSI).contains(&n) {
                    errors.spanned(&ident, format!("GSIs are numbered `gsi1` to `gsi{MAX_GSI}`"));
                    return skip(&meta);
                }
            }
            if let IndexKind::Lsi(n) = kind {
                if !(1..=MAX_LSI).contains(&n) {
                    errors.spanned(
                        &ident,
                        format!(
                            "LSIs are numbered `lsi1` to `lsi{MAX_LSI}`: DynamoDB allows {MAX_LSI} local secondary \
                             indexes a table"
                        ),
                    );
                    return skip(&meta);
                }
            }
            parse_index(&meta, kind, ident, &mut decl, errors)
        });
        if let Err(e) = result {
            errors.push(e);
        }
    }
    if !any {
        errors.at(Span::call_site(), "#[derive(Table)] needs `#[table(entities(...), gsi1(projection = all), ...)]`");
    } else if decl.entities.is_none() && errors.is_empty() {
        errors.spanned(&input.ident, "the table names no entities: add `entities(A, B, ...)` to `#[table(...)]`");
    }
    decl
}

/// Skips the value or parenthesized list of an unrecognized key.
fn skip(meta: &syn::meta::ParseNestedMeta) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        let _ = meta.value()?;
        let _: syn::Expr = meta.input.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _content;
        syn::parenthesized!(_content in meta.input);
        let _: TokenStream = _content.parse()?;
    }
    Ok(())
}

fn parse_item(meta: &syn::meta::ParseNestedMeta, decl: &mut Decl, errors: &mut Errors) -> syn::Result<()> {
    if meta.input.peek(Token![=]) {
        decl.item = Some(meta.value()?.parse()?);
        return Ok(());
    }
    meta.parse_nested_meta(|inner| {
        if inner.path.is_ident("name") {
            decl.item = Some(inner.value()?.parse()?);
        } else if inner.path.is_ident("derive") {
            let content;
            syn::parenthesized!(content in inner.input);
            decl.derives.extend(Punctuated::<Path, Token![,]>::parse_terminated(&content)?);
        } else {
            errors.spanned(&inner.path, "unknown key in `item(...)`; expected `name = Ident` and `derive(...)`");
            return skip(&inner);
        }
        Ok(())
    })
}

fn parse_index(
    meta: &syn::meta::ParseNestedMeta,
    kind: IndexKind,
    key: Ident,
    decl: &mut Decl,
    errors: &mut Errors,
) -> syn::Result<()> {
    let mut d = IndexDecl { kind, key, projection: Projection::All, pk: None, sk: None };
    // `gsi1()` is `gsi1`: every setting at its default.
    let empty = meta.input.peek(syn::token::Paren) && {
        let fork = meta.input.fork();
        let content;
        syn::parenthesized!(content in fork);
        content.is_empty()
    };
    if empty {
        let content;
        syn::parenthesized!(content in meta.input);
        let _ = content;
    } else if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            let Some(k) = inner.path.get_ident().map(Ident::to_string) else {
                errors.spanned(&inner.path, "expected `projection = ...`, `pk = S|N` or `sk = S|N`");
                return skip(&inner);
            };
            match k.as_str() {
                "projection" => d.projection = parse_projection(inner.value()?, errors)?,
                "pk" | "sk" => {
                    let ty: Ident = inner.value()?.parse()?;
                    let n = match ty.to_string().as_str() {
                        "S" => false,
                        "N" => true,
                        _ => {
                            errors.spanned(&ty, "a key attribute type is `S` (string) or `N` (number)");
                            return Ok(());
                        }
                    };
                    if k == "pk" {
                        d.pk = Some((n, ty.span()))
                    } else {
                        d.sk = Some((n, ty.span()))
                    }
                    if kind == IndexKind::Inverted {
                        errors.spanned(
                            &ty,
                            "the inverted index is keyed on `SK` / `PK`, whose types the entities' primary keys set",
                        );
                    } else if let (IndexKind::Lsi(n), "pk") = (kind, k.as_str()) {
                        errors.spanned(
                            &ty,
                            format!(
                                "LSI{n}'s partition key is the table's `PK`, whose type the entities' primary keys \
                                 set; only its sort key `LSI{n}SK` takes a type (`sk = S|N`)"
                            ),
                        );
                    }
                }
                other => {
                    let hint = match suggest::closest(other, ["projection", "pk", "sk"]) {
                        Some(s) => format!(" (did you mean `{s}`?)"),
                        None => String::new(),
                    };
                    errors.spanned(
                        &inner.path,
                        format!("unknown key `{other}`{hint}; expected `projection = ...`, `pk = S|N`, `sk = S|N`"),
                    );
                    return skip(&inner);
                }
            }
            Ok(())
        })?;
    }
    decl.indexes.push(d);
    Ok(())
}

fn parse_projection(input: ParseStream, errors: &mut Errors) -> syn::Result<Projection> {
    let ident: Ident = input.parse()?;
    match ident.to_string().as_str() {
        "all" => Ok(Projection::All),
        "keys_only" => Ok(Projection::KeysOnly),
        "include" => {
            let content;
            syn::parenthesized!(content in input);
            let mut names = Vec::new();
            while !content.is_empty() {
                if content.peek(LitStr) {
                    let lit: LitStr = content.parse()?;
                    names.push((lit.value(), lit.span()));
                } else {
                    let id: Ident = content.call(syn::ext::IdentExt::parse_any)?;
                    names.push((id.to_string(), id.span()));
                }
                if content.is_empty() {
                    break;
                }
                content.parse::<Token![,]>()?;
            }
            if names.is_empty() {
                errors.spanned(&ident, "`include()` names no attribute; use `keys_only` to project only the keys");
            }
            Ok(Projection::Include(names))
        }
        other => {
            errors.spanned(
                &ident,
                format!("unknown projection `{other}`; expected `all`, `keys_only` or `include(attribute, ...)`"),
            );
            Ok(Projection::All)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Checks within the declaration

fn check_decl(decl: &Decl, entities: &[Path], errors: &mut Errors) {
    let key = |p: &Path| p.to_token_stream().to_string();
    for (i, p) in entities.iter().enumerate() {
        if entities[..i].iter().any(|q| key(q) == key(p)) {
            errors.spanned(p, format!("`{}` is listed twice", compact(p)));
            continue;
        }
        if let Some(last) = p.segments.last() {
            if let Some(q) = entities[..i].iter().find(|q| q.segments.last().is_some_and(|s| s.ident == last.ident)) {
                errors.spanned(
                    p,
                    format!(
                        "`{}` and `{}` would both be the variant `{}` of the table's item enum; list one type per name",
                        compact(q),
                        compact(p),
                        last.ident
                    ),
                );
            }
        }
    }
    let mut projected = 0;
    for (i, d) in decl.indexes.iter().enumerate() {
        if decl.indexes[..i].iter().any(|o| o.kind == d.kind) {
            errors.spanned(&d.key, format!("`{}` is given twice", d.kind.key()));
        }
        if let Projection::Include(names) = &d.projection {
            for (j, (n, span)) in names.iter().enumerate() {
                if names[..j].iter().any(|(m, _)| m == n) {
                    errors.at(*span, format!("`{n}` is already included"));
                } else if is_key_attribute(n) {
                    errors.at(
                        *span,
                        format!("`{n}` is a key attribute: every projection holds the table's and the index's keys"),
                    );
                }
            }
            projected += include_names(names).len();
            if projected > MAX_PROJECTED {
                errors.spanned(
                    &d.key,
                    format!(
                        "the INCLUDE projections of this table name {projected} attributes (with `_type`, added to \
                         each); DynamoDB allows {MAX_PROJECTED} over all secondary indexes of a table"
                    ),
                );
            }
        }
    }
}

/// A path as written, without the spaces of its token stream: `other::Apple`.
fn compact(p: &Path) -> String {
    p.to_token_stream().to_string().replace(' ', "")
}

fn is_key_attribute(n: &str) -> bool {
    if n == "PK" || n == "SK" {
        return true;
    }
    let lsi = n.strip_prefix("LSI").and_then(|r| r.strip_suffix("SK")).and_then(|num| num.parse::<u8>().ok());
    if lsi.is_some_and(|n| (1..=MAX_LSI).contains(&n)) {
        return true;
    }
    n.strip_prefix("GSI")
        .and_then(|r| r.strip_suffix("PK").or_else(|| r.strip_suffix("SK")))
        .and_then(|num| num.parse::<u8>().ok())
        .is_some_and(|n| (1..=MAX_GSI).contains(&n))
}

// ---------------------------------------------------------------------------------------------
// Checks across the entities, run in constant evaluation

struct Checks<'a> {
    table: &'a Ident,
    table_str: &'a str,
    entities: &'a [Path],
    decl: &'a Decl,
}

impl Checks<'_> {
    fn name(&self, i: usize) -> String {
        compact(&self.entities[i])
    }

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

    fn all(&self) -> TokenStream {
        let mut out = TokenStream::new();
        let n = self.entities.len();
        let entities = {
            let table = self.table;
            quote!(<#table as ::dynamo_entity::__private::TableDef>::ENTITIES)
        };
        let p = quote!(::dynamo_entity::__private);
        // Every secondary index whose key types are checked pair by pair: the declared ones
        // without a declared type (an undeclared one is its own error).
        let mut attributes: Vec<(TokenStream, String, bool)> = vec![
            (quote!(#p::Index::Primary), "PK".to_owned(), true),
            (quote!(#p::Index::Primary), "SK".to_owned(), false),
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
                    attributes.push((d.kind.tokens(), d.kind.attribute(partition), partition));
                }
            }
        }
        let mut indexes: Vec<(TokenStream, String, String)> =
            vec![(quote!(#p::Index::Primary), "the table".to_owned(), "SK".to_owned())];
        for d in &self.decl.indexes {
            indexes.push((d.kind.tokens(), d.kind.label(), d.kind.attribute(false)));
        }
        for j in 0..n {
            let (b, bn) = (self.schema(j), self.name(j));
            for i in 0..j {
                let (a, an) = (self.schema(i), self.name(i));
                if an == bn {
                    continue; // listed twice: reported by the derive
                }
                out.extend(self.check(
                    j,
                    quote!(#p::first_same_name(#entities, #j) == #i),
                    format!(
                        "entities `{an}` and `{bn}` have the same entity type name: items are told apart by their \
                         `_type` attribute; rename one with `#[entity(name = \"...\")]`"
                    ),
                ));
                out.extend(self.check(
                    j,
                    quote!(#p::first_collider(#entities, #j) == #i),
                    format!(
                        "entities `{an}` and `{bn}` can produce the same primary key: their `PK` templates and their \
                         `SK` templates have as many `#`-separated segments, with equal literals where both have \
                         one (a placeholder can take any value), so one item would overwrite the other; give one \
                         of them a distinct literal segment"
                    ),
                ));
                for (index, label, sk) in &indexes {
                    let same = quote!(#p::keys_collide(#a, #b) && ::core::matches!(#index, #p::Index::Primary));
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
                            if #p::prefix_reads(#a, #b, #index) {
                                ::core::panic!(#m1)
                            } else if #p::prefix_reads(#b, #a, #index) {
                                ::core::panic!(#m2)
                            }
                        };
                    });
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
                             writes it, stores it as {at}; a table defines each key attribute with one type (a \
                             template that is one numeric placeholder is N, any other S)"
                        )
                    };
                    let (to_n, to_s) = (message("N", "S"), message("S", "N"));
                    let span = self.entities[j].span();
                    out.extend(quote_spanned! {span=>
                        const _: () = if #cond {
                            if ::core::matches!(#p::key_type(#b, #index, #partition), ::core::option::Option::Some(#p::KeyType::N)) {
                                ::core::panic!(#to_n)
                            } else {
                                ::core::panic!(#to_s)
                            }
                        };
                    });
                }
            }
            // Indexes the entity writes that the table does not declare.
            for g in 1..=MAX_GSI {
                if self.decl.indexes.iter().any(|d| d.kind == IndexKind::Gsi(g)) {
                    continue;
                }
                out.extend(self.check(
                    j,
                    quote!(#p::uses_gsi(#b, #g)),
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
                    let Some((is_n, _)) = declared else { continue };
                    let (want, found) = if is_n { ("N", "S") } else { ("S", "N") };
                    let want_tokens = if is_n { quote!(#p::KeyType::N) } else { quote!(#p::KeyType::S) };
                    let index = d.kind.tokens();
                    out.extend(self.check(
                        j,
                        quote!(#p::key_types_differ(#p::key_type(#b, #index, #partition), ::core::option::Option::Some(#want_tokens))),
                        format!(
                            "entity `{bn}` stores `{}` as {found} but table `{}` declares it {want} (a template \
                             that is one numeric placeholder is N, any other S)",
                            d.kind.attribute(partition),
                            self.table_str
                        ),
                    ));
                }
            }
        }
        // Projected attributes that no entity writing the index stores.
        for d in &self.decl.indexes {
            let Projection::Include(names) = &d.projection else { continue };
            let index = d.kind.tokens();
            for (name, span) in names {
                if name == "_type" {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_parentheses_are_the_defaults() {
        let with: DeriveInput = syn::parse_quote! {
            #[table(entities(User), gsi1(), lsi2())]
            pub struct Shop;
        };
        let without: DeriveInput = syn::parse_quote! {
            #[table(entities(User), gsi1, lsi2)]
            pub struct Shop;
        };
        let (with, without) = (derive(&with).to_string(), derive(&without).to_string());
        assert!(!with.contains("compile_error"), "{with}");
        assert_eq!(with, without);
    }

    #[test]
    fn key_attributes_are_recognized() {
        for k in ["PK", "SK", "GSI1PK", "GSI20SK", "LSI1SK", "LSI5SK"] {
            assert!(is_key_attribute(k), "{k}");
        }
        for k in ["pk", "GSI21PK", "GSI0SK", "GSIPK", "title", "GSI1XK", "LSI6SK", "LSI1PK"] {
            assert!(!is_key_attribute(k), "{k}");
        }
    }

    #[test]
    fn include_lists_start_with_the_type_attribute() {
        let names =
            |v: &[&str]| -> Vec<(String, Span)> { v.iter().map(|n| ((*n).to_owned(), Span::call_site())).collect() };
        assert_eq!(include_names(&names(&["title", "price"])), ["_type", "title", "price"]);
        assert_eq!(include_names(&names(&["title", "_type"])), ["_type", "title"]);
    }

    #[test]
    fn a_declaration_generates_the_impl_the_enum_and_the_checks() {
        let input: DeriveInput = syn::parse_quote! {
            #[table(entities(User, Badge), gsi1(projection = keys_only, sk = N))]
            pub struct Shop;
        };
        let out = derive(&input).to_string().replace(' ', "");
        assert!(out.contains("impl::dynamo_entity::__private::TableDefforShop"), "{out}");
        assert!(out.contains("pubenumShopItem{"), "{out}");
        assert!(out.contains("User(User)") && out.contains("Badge(Badge)"), "{out}");
        assert!(out.contains("first_collider(<Shopas::dynamo_entity::__private::TableDef>::ENTITIES,1usize)==0usize"));
        // GSI1SK is declared, so its type is checked against the declaration, not pairwise.
        assert!(out.contains("declaresitN"));
        assert!(!out.contains("stores`GSI1SK`asNbut`User`"));
        // GSI2 to GSI20 and LSI1 to LSI5 are not declared: one check each per entity.
        assert_eq!(out.matches("whichtable`Shop`doesnotdeclare").count(), 2 * (19 + 5));
        assert!(out.contains("uses_lsi(<Shopas::dynamo_entity::__private::TableDef>::ENTITIES[1usize],5u8)"), "{out}");
    }
}

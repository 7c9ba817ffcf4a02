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
const KEYS: [&str; 8] = ["entities", "gsi1", "inverted", "item", "pk", "sk", "entity_type", "lsi1"];
const KEY_LIST: &str = "`entities(...)`, `gsi1(...)` to `gsi20(...)`, `lsi1(...)` to `lsi5(...)`, `inverted(...)`, \
                        `item(...)`, `pk = \"...\"`, `sk = \"...\"`, `entity_type = \"...\"`";
/// DynamoDB's limit on the length of a key attribute's name, in bytes.
const MAX_KEY_NAME_BYTES: usize = 255;

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
    /// `name = "..."`: the index name.
    name: Option<Named>,
    /// `pk = "..."` / `sk = "..."`: the key attribute names.
    pk_name: Option<Named>,
    sk_name: Option<Named>,
}

/// A name given in the declaration, with the span of its literal.
#[derive(Clone)]
struct Named {
    value: String,
    span: Span,
}

impl Named {
    fn of(lit: &LitStr) -> Named {
        Named { value: lit.value(), span: lit.span() }
    }
}

/// The table's attribute and index names: the declared ones, the defaults elsewhere.
struct Names {
    pk: String,
    sk: String,
    entity_type: String,
    /// Per GSI number - 1: index name, partition key, sort key.
    gsi: Vec<(String, String, String)>,
    /// Per LSI number - 1: index name, sort key.
    lsi: Vec<(String, String)>,
    inverted: String,
}

impl Names {
    fn of(decl: &Decl) -> Names {
        let or = |n: &Option<Named>, d: String| n.as_ref().map_or(d, |n| n.value.clone());
        let mut names = Names {
            pk: or(&decl.pk, "PK".to_owned()),
            sk: or(&decl.sk, "SK".to_owned()),
            entity_type: or(&decl.entity_type, "_type".to_owned()),
            gsi: (1..=MAX_GSI).map(|n| (format!("GSI{n}"), format!("GSI{n}PK"), format!("GSI{n}SK"))).collect(),
            lsi: (1..=MAX_LSI).map(|n| (format!("LSI{n}"), format!("LSI{n}SK"))).collect(),
            inverted: "INVERTED".to_owned(),
        };
        for d in &decl.indexes {
            match d.kind {
                IndexKind::Gsi(n) => {
                    let g = &mut names.gsi[usize::from(n) - 1];
                    g.0 = or(&d.name, g.0.clone());
                    g.1 = or(&d.pk_name, g.1.clone());
                    g.2 = or(&d.sk_name, g.2.clone());
                }
                IndexKind::Lsi(n) => {
                    let l = &mut names.lsi[usize::from(n) - 1];
                    l.0 = or(&d.name, l.0.clone());
                    l.1 = or(&d.sk_name, l.1.clone());
                }
                IndexKind::Inverted => names.inverted = or(&d.name, names.inverted.clone()),
            }
        }
        names
    }

    /// The partition (`true`) or sort key attribute of `kind`.
    fn attribute(&self, kind: IndexKind, partition: bool) -> &str {
        match (kind, partition) {
            (IndexKind::Gsi(n), true) => &self.gsi[usize::from(n) - 1].1,
            (IndexKind::Gsi(n), false) => &self.gsi[usize::from(n) - 1].2,
            (IndexKind::Lsi(_), true) | (IndexKind::Inverted, false) => &self.pk,
            (IndexKind::Lsi(n), false) => &self.lsi[usize::from(n) - 1].1,
            (IndexKind::Inverted, true) => &self.sk,
        }
    }

    /// The index name of `kind`.
    fn index(&self, kind: IndexKind) -> &str {
        match kind {
            IndexKind::Gsi(n) => &self.gsi[usize::from(n) - 1].0,
            IndexKind::Lsi(n) => &self.lsi[usize::from(n) - 1].0,
            IndexKind::Inverted => &self.inverted,
        }
    }

    /// Whether every name is the default one.
    fn is_default(decl: &Decl) -> bool {
        decl.pk.is_none()
            && decl.sk.is_none()
            && decl.entity_type.is_none()
            && decl.indexes.iter().all(|d| d.name.is_none() && d.pk_name.is_none() && d.sk_name.is_none())
    }

    /// `&'static AttributeNames`: the default, or the default with the declared names set.
    fn tokens(&self, decl: &Decl) -> TokenStream {
        let p = quote!(::dynamo_entity::__private);
        if Names::is_default(decl) {
            return quote!(&#p::AttributeNames::DEFAULT);
        }
        let (pk, sk, ty) = (&self.pk, &self.sk, &self.entity_type);
        let mut out = quote!(#p::AttributeNames::DEFAULT.with_keys(#pk, #sk).with_entity_type(#ty));
        for d in &decl.indexes {
            let name = self.index(d.kind);
            match d.kind {
                IndexKind::Gsi(n) => {
                    let (gpk, gsk) = (self.attribute(d.kind, true), self.attribute(d.kind, false));
                    out = quote!(#out.with_gsi(#n, #name, #gpk, #gsk));
                }
                IndexKind::Lsi(n) => {
                    let lsk = self.attribute(d.kind, false);
                    out = quote!(#out.with_lsi(#n, #name, #lsk));
                }
                IndexKind::Inverted => out = quote!(#out.with_inverted(#name)),
            }
        }
        quote!(&#out)
    }
}

#[derive(Default)]
struct Decl {
    entities: Option<Vec<Path>>,
    /// `pk = "..."`, `sk = "..."`, `entity_type = "..."`.
    pk: Option<Named>,
    sk: Option<Named>,
    entity_type: Option<Named>,
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
    let names = Names::of(&decl);
    check_names(&decl, &names, &mut errors);
    check_decl(&decl, &entities, &names, &mut errors);

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
        // Generated for every table: a program that never matches on it (or never uses it)
        // gets no dead-code warning for code it did not write.
        #[allow(dead_code)]
        #vis enum #item {
            #( #[doc = #variant_docs] #variant_idents(#variant_paths), )*
        }
    };
    let schemas = entities.iter().map(|p| {
        let span = p.span();
        quote_spanned!(span=> <#p as ::dynamo_entity::__private::Entity>::SCHEMA)
    });
    let indexes = decl.indexes.iter().map(|d| index_tokens(d, &names));
    let names_tokens = names.tokens(&decl);
    let impl_item = quote! {
        #[automatically_derived]
        impl ::dynamo_entity::__private::TableDef for #name {
            const NAME: &'static str = #name_str;
            const NAMES: &'static ::dynamo_entity::__private::AttributeNames = #names_tokens;
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
            let checks =
                Checks { table: name, table_str: &name_str, entities: &entities, decl: &decl, names: &names }.all();
            quote!(#impl_item #enum_item #checks)
        }
    }
}

fn index_tokens(d: &IndexDecl, table: &Names) -> TokenStream {
    let index = d.kind.tokens();
    let projection = match &d.projection {
        Projection::All => quote!(::dynamo_entity::__private::Projection::All),
        Projection::KeysOnly => quote!(::dynamo_entity::__private::Projection::KeysOnly),
        Projection::Include(names) => {
            let names = include_names(names, &table.entity_type);
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
fn include_names(names: &[(String, Span)], type_attribute: &str) -> Vec<String> {
    let mut out = vec![type_attribute.to_owned()];
    out.extend(names.iter().map(|(n, _)| n.clone()).filter(|n| n != type_attribute));
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
            if matches!(key.as_str(), "pk" | "sk" | "entity_type" | "type_attribute") {
                let lit: LitStr = meta.value()?.parse()?;
                let slot = match key.as_str() {
                    "pk" => &mut decl.pk,
                    "sk" => &mut decl.sk,
                    _ => &mut decl.entity_type,
                };
                if slot.is_some() {
                    errors.spanned(&ident, "the entity type attribute is given twice (`entity_type`)");
                }
                *slot = Some(Named::of(&lit));
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
    let mut d = IndexDecl {
        kind,
        key,
        projection: Projection::All,
        pk: None,
        sk: None,
        name: None,
        pk_name: None,
        sk_name: None,
    };
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
                errors.spanned(&inner.path, "expected `name = \"...\"`, `projection = ...`, `pk = ...` or `sk = ...`");
                return skip(&inner);
            };
            match k.as_str() {
                "projection" => d.projection = parse_projection(inner.value()?, errors)?,
                "name" => d.name = Some(Named::of(&inner.value()?.parse::<LitStr>()?)),
                "pk" | "sk" => {
                    // `pk = "name"`, `pk = "name": N` or `pk = N`: a string names the attribute,
                    // an identifier gives its type.
                    let input = inner.value()?;
                    if input.peek(LitStr) {
                        let lit: LitStr = input.parse()?;
                        let named = Named::of(&lit);
                        let refused = match (kind, k.as_str()) {
                            (IndexKind::Inverted, _) => Some(
                                "the inverted index is keyed on the table's sort and partition key attributes; name \
                                 them with the table's `pk = \"...\"` / `sk = \"...\"`"
                                    .to_owned(),
                            ),
                            (IndexKind::Lsi(n), "pk") => Some(format!(
                                "LSI{n}'s partition key is the table's; name it with the table's `pk = \"...\"`"
                            )),
                            _ => None,
                        };
                        if let Some(message) = refused {
                            errors.at(named.span, message);
                        } else if k == "pk" {
                            d.pk_name = Some(named);
                        } else {
                            d.sk_name = Some(named);
                        }
                        if !input.peek(Token![:]) {
                            return Ok(());
                        }
                        input.parse::<Token![:]>()?;
                    }
                    let ty: Ident = input.parse()?;
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
                    let hint = match suggest::closest(other, ["projection", "pk", "sk", "name"]) {
                        Some(s) => format!(" (did you mean `{s}`?)"),
                        None => String::new(),
                    };
                    errors.spanned(
                        &inner.path,
                        format!(
                            "unknown key `{other}`{hint}; expected `name = \"...\"`, `projection = ...`, \
                             `pk = \"...\"` / `pk = S|N`, `sk = \"...\"` / `sk = S|N`"
                        ),
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

/// The declared names: each key attribute name 1 to 255 bytes, each index name 3 to 255
/// characters of `a-z A-Z 0-9 _ . -` (DynamoDB's rules), no two roles sharing an attribute
/// name, no two indexes sharing an index name.
fn check_names(decl: &Decl, names: &Names, errors: &mut Errors) {
    // (name, role, span of the declaration when declared)
    let mut roles: Vec<(&str, String, Option<Span>)> = vec![
        (&names.pk, "the table's partition key".to_owned(), decl.pk.as_ref().map(|n| n.span)),
        (&names.sk, "the table's sort key".to_owned(), decl.sk.as_ref().map(|n| n.span)),
        (&names.entity_type, "the entity type attribute".to_owned(), decl.entity_type.as_ref().map(|n| n.span)),
    ];
    for d in &decl.indexes {
        let span = |n: &Option<Named>| n.as_ref().map(|n| n.span);
        match d.kind {
            IndexKind::Gsi(g) => {
                roles.push((names.attribute(d.kind, true), format!("GSI{g}'s partition key"), span(&d.pk_name)));
                roles.push((names.attribute(d.kind, false), format!("GSI{g}'s sort key"), span(&d.sk_name)));
            }
            IndexKind::Lsi(l) => {
                roles.push((names.attribute(d.kind, false), format!("LSI{l}'s sort key"), span(&d.sk_name)));
            }
            IndexKind::Inverted => {}
        }
    }
    for (i, (name, role, span)) in roles.iter().enumerate() {
        let Some(span) = span else { continue };
        if name.is_empty() {
            errors.at(*span, format!("the name of {role} is empty; a key attribute name is 1 to 255 bytes"));
            continue;
        }
        if name.len() > MAX_KEY_NAME_BYTES {
            errors.at(
                *span,
                format!(
                    "the name of {role} is {} bytes; DynamoDB allows key attribute names of at most \
                     {MAX_KEY_NAME_BYTES} bytes",
                    name.len()
                ),
            );
            continue;
        }
        if let Some((_, other, _)) = roles[..i].iter().find(|(n, ..)| n == name) {
            errors.at(
                *span,
                format!(
                    "`{name}` already names {other}; {role} needs an attribute of its own, or writing one would \
                     overwrite the other"
                ),
            );
        }
    }
    // A default name that a later declared name takes: reported at the declared one above; a
    // declared name that a later default takes, here.
    for (i, (name, role, span)) in roles.iter().enumerate() {
        if span.is_some() || name.is_empty() {
            continue;
        }
        if let Some((_, other, Some(at))) = roles[..i].iter().find(|(n, _, s)| n == name && s.is_some()) {
            errors.at(*at, format!("`{name}` is also the attribute of {role}; {other} needs an attribute of its own"));
        }
    }
    let mut seen: Vec<(&str, IndexKind)> = Vec::new();
    for d in &decl.indexes {
        let name = names.index(d.kind);
        if let Some(n) = &d.name {
            let valid = (3..=255).contains(&name.len())
                && name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
            if !valid {
                errors.at(
                    n.span,
                    format!(
                        "`{name}` is not an index name DynamoDB accepts: 3 to 255 characters of a-z, A-Z, 0-9, \
                         `_`, `-` and `.`"
                    ),
                );
                continue;
            }
        }
        if let Some((_, other)) = seen.iter().find(|(n, _)| *n == name) {
            let at = d.name.as_ref().map_or_else(|| d.key.span(), |n| n.span);
            errors.at(
                at,
                format!("`{name}` is already the name of {}; a table's index names are distinct", other.label()),
            );
        }
        seen.push((name, d.kind));
    }
}

fn check_decl(decl: &Decl, entities: &[Path], table_names: &Names, errors: &mut Errors) {
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
                } else if is_key_attribute(n, table_names) {
                    errors.at(
                        *span,
                        format!("`{n}` is a key attribute: every projection holds the table's and the index's keys"),
                    );
                }
            }
            projected += include_names(names, &table_names.entity_type).len();
            if projected > MAX_PROJECTED {
                errors.spanned(
                    &d.key,
                    format!(
                        "the INCLUDE projections of this table name {projected} attributes (with `{}`, added to \
                         each); DynamoDB allows {MAX_PROJECTED} over all secondary indexes of a table",
                        table_names.entity_type
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

/// Whether `n` is a key attribute of the table under `names`: its own keys, or any GSI's or
/// LSI's (declared or not: an undeclared index's names are the defaults).
fn is_key_attribute(n: &str, names: &Names) -> bool {
    n == names.pk
        || n == names.sk
        || names.gsi.iter().any(|(_, pk, sk)| n == pk || n == sk)
        || names.lsi.iter().any(|(_, sk)| n == sk)
}

// ---------------------------------------------------------------------------------------------
// Checks across the entities, run in constant evaluation

struct Checks<'a> {
    table: &'a Ident,
    table_str: &'a str,
    entities: &'a [Path],
    decl: &'a Decl,
    names: &'a Names,
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
                    attributes.push((d.kind.tokens(), names.attribute(d.kind, partition).to_owned(), partition));
                }
            }
        }
        let mut indexes: Vec<(TokenStream, String, String)> =
            vec![(quote!(#p::Index::Primary), "the table".to_owned(), names.sk.clone())];
        for d in &self.decl.indexes {
            indexes.push((d.kind.tokens(), d.kind.label(), names.attribute(d.kind, false).to_owned()));
        }
        // The key and type attributes, which no field may be stored in.
        let mut roles: Vec<(&str, String)> = vec![
            (&names.pk, "the table's partition key".to_owned()),
            (&names.sk, "the table's sort key".to_owned()),
            (&names.entity_type, "the entity type attribute".to_owned()),
        ];
        for d in &self.decl.indexes {
            match d.kind {
                IndexKind::Gsi(g) => {
                    roles.push((names.attribute(d.kind, true), format!("GSI{g}'s partition key")));
                    roles.push((names.attribute(d.kind, false), format!("GSI{g}'s sort key")));
                }
                IndexKind::Lsi(l) => roles.push((names.attribute(d.kind, false), format!("LSI{l}'s sort key"))),
                IndexKind::Inverted => {}
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
            }
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
                         `{}` attribute; rename one with `#[entity(name = \"...\")]`",
                        names.entity_type
                    ),
                ));
                out.extend(self.check(
                    j,
                    quote!(#p::first_collider(#entities, #j) == #i),
                    format!(
                        "entities `{an}` and `{bn}` can produce the same primary key: their `{}` templates and their \
                         `{}` templates have as many `#`-separated segments, with equal literals where both have \
                         one (a placeholder can take any value), so one item would overwrite the other; give one \
                         of them a distinct literal segment",
                        names.pk, names.sk
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
                            names.attribute(d.kind, partition),
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
        let names = Names::of(&Decl::default());
        for k in ["PK", "SK", "GSI1PK", "GSI20SK", "LSI1SK", "LSI5SK"] {
            assert!(is_key_attribute(k, &names), "{k}");
        }
        for k in ["pk", "GSI21PK", "GSI0SK", "GSIPK", "title", "GSI1XK", "LSI6SK", "LSI1PK"] {
            assert!(!is_key_attribute(k, &names), "{k}");
        }
        let input: DeriveInput = syn::parse_quote! {
            #[table(entities(User), pk = "pk", sk = "sk", gsi1(pk = "gsi1pk", sk = "gsi1sk"))]
            pub struct Shop;
        };
        let mut errors = Errors::default();
        let decl = parse(&input, &mut errors);
        let custom = Names::of(&decl);
        for k in ["pk", "sk", "gsi1pk", "gsi1sk", "GSI2PK", "LSI1SK"] {
            assert!(is_key_attribute(k, &custom), "{k}");
        }
        for k in ["PK", "SK", "GSI1PK", "GSI1SK"] {
            assert!(!is_key_attribute(k, &custom), "{k}");
        }
    }

    #[test]
    fn declared_names_become_the_table_names() {
        let input: DeriveInput = syn::parse_quote! {
            #[table(
                entities(User),
                pk = "pk", sk = "sk", entity_type = "__type",
                gsi2(name = "ByEmail", pk = "gsi2pk": S, sk = "gsi2sk", projection = keys_only),
                lsi1(name = "ByDate", sk = "lsi1sk": N),
                inverted(name = "ByTarget"),
            )]
            pub struct Shop;
        };
        let out = derive(&input).to_string().replace(' ', "");
        assert!(!out.contains("compile_error"), "{out}");
        assert!(
            out.contains(
                "constNAMES:&'static::dynamo_entity::__private::AttributeNames=&::dynamo_entity::__private::\
                 AttributeNames::DEFAULT.with_keys(\"pk\",\"sk\").with_entity_type(\"__type\")\
                 .with_gsi(2u8,\"ByEmail\",\"gsi2pk\",\"gsi2sk\").with_lsi(1u8,\"ByDate\",\"lsi1sk\")\
                 .with_inverted(\"ByTarget\");"
            ),
            "{out}"
        );
        // The key types given after the names are kept.
        assert!(out.contains("index:::dynamo_entity::__private::Index::Lsi(1u8),projection:::dynamo_entity::__private::Projection::All,pk:::core::option::Option::None,sk:::core::option::Option::Some(::dynamo_entity::__private::KeyType::N)"), "{out}");
        // Every entity is checked to use the table's names.
        assert!(out.contains("AttributeNames::same("), "{out}");
    }

    #[test]
    fn default_names_stay_the_default_constant() {
        let input: DeriveInput = syn::parse_quote! {
            #[table(entities(User), gsi1)]
            pub struct Shop;
        };
        let out = derive(&input).to_string().replace(' ', "");
        assert!(out.contains("constNAMES:&'static::dynamo_entity::__private::AttributeNames=&::dynamo_entity::__private::AttributeNames::DEFAULT;"), "{out}");
    }

    #[test]
    fn include_lists_start_with_the_type_attribute() {
        let names =
            |v: &[&str]| -> Vec<(String, Span)> { v.iter().map(|n| ((*n).to_owned(), Span::call_site())).collect() };
        assert_eq!(include_names(&names(&["title", "price"]), "_type"), ["_type", "title", "price"]);
        assert_eq!(include_names(&names(&["title", "_type"]), "_type"), ["_type", "title"]);
        assert_eq!(include_names(&names(&["title", "_type"]), "kind"), ["kind", "title", "_type"]);
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

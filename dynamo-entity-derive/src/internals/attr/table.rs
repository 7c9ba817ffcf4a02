//! Parsing `#[table(...)]` on a `#[derive(TableDef)]` declaration.

use proc_macro2::Span;
use syn::parse::ParseStream;
use syn::punctuated::Punctuated;
use syn::{DeriveInput, Ident, LitStr, Path, Token};

use super::skip_value;
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{IndexKind, MAX_GSI, MAX_LSI, Projection};
use crate::internals::suggest;

/// The keys of `#[table(...)]`, for suggestions.
const KEYS: [&str; 10] =
    ["entities", "gsi1", "inverted", "item", "pk", "sk", "entity_type", "lsi1", "hierarchy", "stream"];
/// The keys of `#[table(...)]`, for messages.
const KEY_LIST: &str = "`entities(...)`, `gsi1(...)` to `gsi20(...)`, `lsi1(...)` to `lsi5(...)`, `inverted(...)`, \
                        `item(...)`, `pk = \"...\"`, `sk = \"...\"`, `entity_type = \"...\"`, `hierarchy(...)`, `stream = ...`";

/// One declared secondary index: `gsiN(...)`, `lsiN(...)` or `inverted(...)`.
pub struct IndexDecl {
    pub kind: IndexKind,
    /// The `gsiN` / `lsiN` / `inverted` key, for spans.
    pub key: Ident,
    pub projection: Projection,
    /// Declared key types: `S`, `N` or `B`.
    pub pk: Option<(&'static str, Span)>,
    pub sk: Option<(&'static str, Span)>,
    /// `name = "..."`: the index name.
    pub name: Option<Named>,
    /// `pk = "..."` / `sk = "..."`: the key attribute names.
    pub pk_name: Option<Named>,
    pub sk_name: Option<Named>,
}

/// A name given in the declaration, with the span of its literal.
#[derive(Clone)]
pub struct Named {
    pub value: String,
    pub span: Span,
}

impl Named {
    pub fn of(lit: &LitStr) -> Named {
        Named { value: lit.value(), span: lit.span() }
    }
}

/// The declaration as written: `#[table(...)]`.
#[derive(Default)]
pub struct Decl {
    pub entities: Option<Vec<Path>>,
    /// `pk = "..."`, `sk = "..."`, `entity_type = "..."`.
    pub pk: Option<Named>,
    pub sk: Option<Named>,
    pub entity_type: Option<Named>,
    /// `entity_type = none`: the table has no type attribute (`entity_type` then holds an
    /// empty name, which a written `entity_type = ""` does not mean).
    pub entity_type_none: bool,
    pub indexes: Vec<IndexDecl>,
    pub item: Option<Ident>,
    pub derives: Vec<Path>,
    /// `hierarchy(Parent(Child, ...), ...)`: the entities whose items the query of a parent is
    /// meant to read (its `begins_with` on the sort key reads its children's items too).
    pub hierarchy: Vec<(Path, Vec<Path>)>,
    /// `stream = new_and_old_images`: the stream's view type, as the variant of
    /// `StreamViewType` (`KeysOnly`, `NewImage`, `OldImage`, `NewAndOldImages`).
    pub stream: Option<Ident>,
}

/// The view types `stream = ...` takes, and the `StreamViewType` variant of each.
const STREAM_VIEWS: [(&str, &str); 4] = [
    ("keys_only", "KeysOnly"),
    ("new_image", "NewImage"),
    ("old_image", "OldImage"),
    ("new_and_old_images", "NewAndOldImages"),
];

/// Parses the `#[table(...)]` attributes of `input`.
pub fn table_attrs(input: &DeriveInput, cx: &Ctxt) -> Decl {
    let mut decl = Decl::default();
    let mut seen: Vec<String> = Vec::new();
    let mut any = false;
    for attr in input.attrs.iter().filter(|a| a.path().is_ident("table")) {
        any = true;
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident().cloned() else {
                cx.error_spanned_by(&meta.path, format!("unknown key; expected {KEY_LIST}"));
                return skip_value(&meta);
            };
            let key = ident.to_string();
            if seen.contains(&key) {
                cx.error_spanned_by(&ident, format!("`{key}` is given twice"));
                return skip_value(&meta);
            }
            seen.push(key.clone());
            if key == "entities" {
                let content;
                syn::parenthesized!(content in meta.input);
                let paths = Punctuated::<Path, Token![,]>::parse_terminated(&content)?;
                if paths.is_empty() {
                    cx.error_spanned_by(&ident, "`entities(...)` names no entity; list the table's entity types");
                }
                decl.entities = Some(paths.into_iter().collect());
                return Ok(());
            }
            if key == "item" {
                return parse_item(&meta, &mut decl, cx);
            }
            if key == "stream" {
                // `stream = new_and_old_images`
                let view: Ident = meta.value()?.parse()?;
                match STREAM_VIEWS.iter().find(|(k, _)| view == k) {
                    Some((_, variant)) => decl.stream = Some(Ident::new(variant, view.span())),
                    None => cx.error_spanned_by(
                        &view,
                        format!(
                            "unknown stream view type `{view}`; expected `keys_only`, `new_image`, `old_image` or \
                             `new_and_old_images`"
                        ),
                    ),
                }
                return Ok(());
            }
            if key == "hierarchy" {
                // `hierarchy(Version(Comment, Latest), Order(Line))`
                let content;
                syn::parenthesized!(content in meta.input);
                while !content.is_empty() {
                    let parent: Path = content.parse()?;
                    let inner;
                    syn::parenthesized!(inner in content);
                    let children = Punctuated::<Path, Token![,]>::parse_terminated(&inner)?;
                    if children.is_empty() {
                        cx.error_spanned_by(
                            &parent,
                            "`hierarchy(...)` names a parent without children: write `Parent(Child, ...)`",
                        );
                    }
                    decl.hierarchy.push((parent, children.into_iter().collect()));
                    if content.is_empty() {
                        break;
                    }
                    content.parse::<Token![,]>()?;
                }
                if decl.hierarchy.is_empty() {
                    cx.error_spanned_by(&ident, "`hierarchy(...)` is empty: write `hierarchy(Parent(Child, ...))`");
                }
                return Ok(());
            }
            if matches!(key.as_str(), "entity_type" | "type_attribute") && {
                let fork = meta.input.fork();
                fork.parse::<Token![=]>().is_ok() && fork.parse::<Ident>().is_ok_and(|i| i == "none")
            } {
                // `entity_type = none`: no type attribute; items told apart by key template.
                let none: Ident = meta.value()?.parse()?;
                if decl.entity_type.is_some() {
                    cx.error_spanned_by(&ident, "the entity type attribute is given twice (`entity_type`)");
                }
                decl.entity_type = Some(Named { value: String::new(), span: none.span() });
                decl.entity_type_none = true;
                return Ok(());
            }
            if matches!(key.as_str(), "entity_type" | "type_attribute") && {
                let fork = meta.input.fork();
                fork.parse::<Token![=]>().is_ok() && fork.parse::<Ident>().is_ok()
            } {
                let other: Ident = meta.value()?.parse()?;
                cx.error_spanned_by(
                    &other,
                    format!(
                        "`{key}` takes the attribute's name (`{key} = \"__type\"`) or `none` (no type attribute: \
                         items told apart by their key templates), not `{other}`"
                    ),
                );
                return Ok(());
            }
            if matches!(key.as_str(), "pk" | "sk" | "entity_type" | "type_attribute") {
                let lit: LitStr = meta.value()?.parse()?;
                let slot = match key.as_str() {
                    "pk" => &mut decl.pk,
                    "sk" => &mut decl.sk,
                    _ => &mut decl.entity_type,
                };
                if slot.is_some() {
                    cx.error_spanned_by(&ident, "the entity type attribute is given twice (`entity_type`)");
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
                cx.error_spanned_by(&ident, format!("unknown key `{key}`{hint}; expected {KEY_LIST}"));
                return skip_value(&meta);
            };
            if let IndexKind::Gsi(n) = kind {
                if !(1..=MAX_GSI).contains(&n) {
                    cx.error_spanned_by(&ident, format!("GSIs are numbered `gsi1` to `gsi{MAX_GSI}`"));
                    return skip_value(&meta);
                }
            }
            if let IndexKind::Lsi(n) = kind {
                if !(1..=MAX_LSI).contains(&n) {
                    cx.error_spanned_by(
                        &ident,
                        format!(
                            "LSIs are numbered `lsi1` to `lsi{MAX_LSI}`: DynamoDB allows {MAX_LSI} local secondary \
                             indexes a table"
                        ),
                    );
                    return skip_value(&meta);
                }
            }
            parse_index(&meta, kind, ident, &mut decl, cx)
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    if !any {
        cx.error_at(
            Span::call_site(),
            "#[derive(TableDef)] needs `#[table(entities(...), gsi1(projection = all), ...)]`",
        );
    } else if decl.entities.is_none() && !cx.has_errors() {
        cx.error_spanned_by(&input.ident, "the table names no entities: add `entities(A, B, ...)` to `#[table(...)]`");
    }
    decl
}

/// `item = Name` or `item(name = Name, derive(...))`: the table's item enum.
fn parse_item(meta: &syn::meta::ParseNestedMeta, decl: &mut Decl, cx: &Ctxt) -> syn::Result<()> {
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
            cx.error_spanned_by(&inner.path, "unknown key in `item(...)`; expected `name = Ident` and `derive(...)`");
            return skip_value(&inner);
        }
        Ok(())
    })
}

/// `gsiN(...)`, `lsiN(...)` or `inverted(...)`: one secondary index.
fn parse_index(
    meta: &syn::meta::ParseNestedMeta,
    kind: IndexKind,
    key: Ident,
    decl: &mut Decl,
    cx: &Ctxt,
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
                cx.error_spanned_by(
                    &inner.path,
                    "expected `name = \"...\"`, `projection = ...`, `pk = ...` or `sk = ...`",
                );
                return skip_value(&inner);
            };
            match k.as_str() {
                "projection" => d.projection = parse_projection(inner.value()?, cx)?,
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
                            cx.error_at(named.span, message);
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
                        "S" => "S",
                        "N" => "N",
                        "B" => "B",
                        _ => {
                            cx.error_spanned_by(
                                &ty,
                                "a key attribute type is `S` (string), `N` (number) or `B` (binary)",
                            );
                            return Ok(());
                        }
                    };
                    if k == "pk" {
                        d.pk = Some((n, ty.span()))
                    } else {
                        d.sk = Some((n, ty.span()))
                    }
                    if kind == IndexKind::Inverted {
                        cx.error_spanned_by(
                            &ty,
                            "the inverted index is keyed on `SK` / `PK`, whose types the entities' primary keys set",
                        );
                    } else if let (IndexKind::Lsi(n), "pk") = (kind, k.as_str()) {
                        cx.error_spanned_by(
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
                    cx.error_spanned_by(
                        &inner.path,
                        format!(
                            "unknown key `{other}`{hint}; expected `name = \"...\"`, `projection = ...`, \
                             `pk = \"...\"` / `pk = S|N`, `sk = \"...\"` / `sk = S|N`"
                        ),
                    );
                    return skip_value(&inner);
                }
            }
            Ok(())
        })?;
    }
    decl.indexes.push(d);
    Ok(())
}

/// `all`, `keys_only` or `include(attribute, ...)`.
fn parse_projection(input: ParseStream, cx: &Ctxt) -> syn::Result<Projection> {
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
                cx.error_spanned_by(&ident, "`include()` names no attribute; use `keys_only` to project only the keys");
            }
            Ok(Projection::Include(names))
        }
        other => {
            cx.error_spanned_by(
                &ident,
                format!("unknown projection `{other}`; expected `all`, `keys_only` or `include(attribute, ...)`"),
            );
            Ok(Projection::All)
        }
    }
}

//! Parsing `#[entity(...)]` on the struct and its fields.
//!
//! Every problem is recorded in the [`Ctxt`] and parsing goes on with the next key, so one derive
//! reports all of its mistakes at once.

use std::collections::BTreeMap;

use proc_macro2::Span;
use syn::{Attribute, Ident, LitStr, Token};

use super::{skip_value, string_value};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{KeyRole, MAX_GSI, MAX_LSI};
use crate::internals::suggest;

/// A `key = "template"` pair.
#[derive(Clone)]
pub struct KeyAttr {
    /// The key as written (`pk`, `gsi4_sk`), for spans.
    pub key: Ident,
    /// The key attribute the template writes.
    pub role: KeyRole,
    pub lit: LitStr,
}

/// The two templates of one GSI as given; either may be missing (reported by the check).
#[derive(Default)]
pub struct GsiAttrs {
    pub pk: Option<KeyAttr>,
    pub sk: Option<KeyAttr>,
}

/// A multi-attribute GSI, `gsiN(pk(a, b), sk(c, d))`: keyed on the entity's own fields.
pub struct MultiGsiAttrs {
    /// The key as written (`gsi6`), for spans.
    pub key: Ident,
    /// `pk(...)`: the partition key's fields, in order; `None` when missing (an error).
    pub pk: Option<(Ident, Vec<Ident>)>,
    /// `sk(...)`: the sort key's fields, in order.
    pub sk: Option<(Ident, Vec<Ident>)>,
}

/// One entry of `constant(attribute = value, ...)`: an attribute with one fixed value on every
/// item of the entity.
pub struct ConstantAttr {
    /// The attribute name as written, for spans.
    pub name: Ident,
    /// The attribute name (`r#` removed).
    pub attribute: String,
    pub value: ConstantLit,
}

/// The literal value of a constant attribute.
pub enum ConstantLit {
    S(String),
    /// A number, as written (suffix removed).
    N(String),
    Bool(bool),
}

/// Struct-level `#[entity(...)]`.
#[derive(Default)]
pub struct EntityAttrs {
    /// Whether any `#[entity]` attribute was present.
    pub present: bool,
    pub pk: Option<KeyAttr>,
    pub sk: Option<KeyAttr>,
    pub gsis: BTreeMap<u8, GsiAttrs>,
    /// `gsiN(pk(...), sk(...))`: the multi-attribute GSIs, by number.
    pub multi_gsis: BTreeMap<u8, MultiGsiAttrs>,
    /// `lsiN = "..."`: the sort key template of LSI number N (its partition key is `pk`).
    pub lsis: BTreeMap<u8, KeyAttr>,
    pub name: Option<LitStr>,
    /// `inverted`: the entity is queried through the inverted index (`SK` / `PK`).
    pub inverted: Option<Ident>,
    /// `table = AppTable`: the `#[derive(TableDef)]` type whose attribute and index names the
    /// entity uses.
    pub table: Option<syn::Path>,
    /// `rename_all = "camelCase"`: the attribute names of fields without `rename`.
    pub rename_all: Option<crate::internals::case::Case>,
    /// `key_fields = "keys"`: key fields held by a key are not written as attributes too
    /// (`"attributes"`, the default, writes them).
    pub key_fields_in_keys: bool,
    /// `schema(version = N, from = Prev, attribute = "...")`: the schema version (see
    /// [`super::schema`]).
    pub schema: Option<super::schema::SchemaAttr>,
    /// `key_case = "..."`, `key_values = "..."`: how values are written into keys.
    pub key_style: super::key_style::KeyStyleAttrs,
    /// `constant(__edb_v__ = "1")`: attributes with one fixed value, written by every write and
    /// checked by every read.
    pub constants: Vec<ConstantAttr>,
}

/// Field-level `#[entity(...)]`.
#[derive(Default)]
pub struct FieldAttrs {
    pub rename: Option<LitStr>,
    pub serde: Option<Span>,
    /// `#[entity(unique)]`: the value is claimed by a guard item.
    pub unique: Option<Span>,
    /// `#[entity(folded)]`: the field is read back from a case-folded key in the key's case.
    pub folded: Option<Span>,
    /// `#[entity(key_fields = "keys")]` (`true`) or `"attributes"` (`false`) on a field: the
    /// entity's `key_fields` choice for this field alone, with the span of `key_fields`.
    pub key_fields: Option<(bool, Span)>,
    /// The attributes the library maintains (`version`, `created_at`, `updated_at`, `ttl`),
    /// with the span of each key, in the order given.
    pub maintained: Vec<(Maintained, Span)>,
    /// `#[entity(vector(...))]`: a vector index on the field.
    pub vector: Option<super::vector::VectorAttr>,
    /// `#[entity(alias = "title")]`: the field's earlier attribute name, read when the item has
    /// no attribute of the field's own name.
    pub alias: Option<LitStr>,
    /// `#[entity(write_alias)]`: every write stores the alias attribute too, with the span of
    /// `write_alias` (an error of the check without `alias`).
    pub write_alias: Option<Span>,
    /// `#[entity(read_alias)]`: reads take the alias attribute first (the expand phase, while
    /// code of the old shape still writes it), with the span of `read_alias`.
    pub read_alias: Option<Span>,
}

/// A field that the library maintains.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Maintained {
    /// `#[entity(version)]`: the optimistic-locking version.
    Version,
    /// `#[entity(created_at)]`: set to now by a create.
    CreatedAt,
    /// `#[entity(updated_at)]`: set to now by every write.
    UpdatedAt,
    /// `#[entity(ttl)]`: DynamoDB's time to live, stored as epoch seconds.
    Ttl,
}

impl Maintained {
    pub const ALL: [Maintained; 4] =
        [Maintained::Version, Maintained::CreatedAt, Maintained::UpdatedAt, Maintained::Ttl];

    /// The key as written in `#[entity(...)]`.
    pub fn key(self) -> &'static str {
        match self {
            Maintained::Version => "version",
            Maintained::CreatedAt => "created_at",
            Maintained::UpdatedAt => "updated_at",
            Maintained::Ttl => "ttl",
        }
    }

    fn parse(key: &str) -> Option<Maintained> {
        Maintained::ALL.into_iter().find(|m| m.key() == key)
    }
}

const STRUCT_KEYS: &str = "`pk`, `sk`, `gsi1` to `gsi20`, `gsi1_sk` to `gsi20_sk`, `lsi1` to `lsi5`, `inverted`, \
                           `name`, `table`, `rename_all`, `key_fields`, `key_case`, `key_values`, `delimiter`, `constant` and \
                           `schema`";
const FIELD_KEYS: &str = "`rename`, `alias`, `write_alias`, `read_alias`, `serde`, `unique`, `version`, `created_at`, \
                          `updated_at`, `ttl`, `folded`, `key_fields` and `vector(...)`";
/// The field keys that take no value.
const FIELD_FLAGS: [&str; 9] =
    ["serde", "unique", "version", "created_at", "updated_at", "ttl", "folded", "write_alias", "read_alias"];
/// The field keys that take a string.
const FIELD_STRINGS: [&str; 2] = ["rename", "alias"];

/// What a struct-level key means.
enum StructKey {
    /// A key template: `pk`, `sk`, `gsiN`, `gsiN_sk`, `lsiN`.
    Template(KeyRole),
    Name,
    Inverted,
    Table,
    RenameAll,
    KeyFields,
    Schema,
    KeyCase,
    KeyValues,
    Delimiter,
    Constant,
}

/// Parses `gsi<n>` / `gsi<n>_sk`, or says why such a key is wrong.
fn gsi_key(key: &str) -> Option<Result<StructKey, String>> {
    let rest = key.strip_prefix("gsi")?;
    let digits_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let (digits, suffix) = rest.split_at(digits_end);
    let numbered = "GSIs are numbered `gsi1` to `gsi20`, with sort keys `gsi1_sk` to `gsi20_sk`";
    if digits.is_empty() {
        return Some(Err(format!("unknown key `{key}`: {numbered}")));
    }
    let n = digits.parse::<u8>().ok().filter(|n| (1..=MAX_GSI).contains(n) && !digits.starts_with('0'));
    match (n, suffix) {
        (Some(n), "") => Some(Ok(StructKey::Template(KeyRole::GsiPk(n)))),
        (Some(n), "_sk") => Some(Ok(StructKey::Template(KeyRole::GsiSk(n)))),
        (Some(n), "_pk") => {
            Some(Err(format!("unknown key `{key}`: the partition key template of GSI{n} is `gsi{n} = \"...\"`")))
        }
        (Some(n), _) => Some(Err(format!("unknown key `{key}`; did you mean `gsi{n}` or `gsi{n}_sk`?"))),
        (None, _) => Some(Err(format!("unknown key `{key}`: {numbered}"))),
    }
}

/// Parses `lsi<n>`, or says why such a key is wrong.
fn lsi_key(key: &str) -> Option<Result<StructKey, String>> {
    let rest = key.strip_prefix("lsi")?;
    let digits_end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    let (digits, suffix) = rest.split_at(digits_end);
    let numbered = format!(
        "LSIs are numbered `lsi1` to `lsi{MAX_LSI}` (DynamoDB allows {MAX_LSI} local secondary indexes a table)"
    );
    if digits.is_empty() {
        return Some(Err(format!("unknown key `{key}`: {numbered}")));
    }
    let n = digits.parse::<u8>().ok().filter(|n| (1..=MAX_LSI).contains(n) && !digits.starts_with('0'));
    match (n, suffix) {
        (Some(n), "") => Some(Ok(StructKey::Template(KeyRole::LsiSk(n)))),
        (Some(n), "_sk" | "_pk") => Some(Err(format!(
            "unknown key `{key}`: an LSI has one template, its sort key `lsi{n} = \"...\"`; its partition key is \
             the entity's `pk`"
        ))),
        (Some(n), _) => Some(Err(format!("unknown key `{key}`; did you mean `lsi{n}`?"))),
        (None, _) => Some(Err(format!("unknown key `{key}`: {numbered}, not `{key}`"))),
    }
}

/// Stores a parsed value; duplicates were rejected before the value was parsed.
fn set<T>(slot: &mut Option<T>, value: Option<T>) {
    if value.is_some() {
        *slot = value;
    }
}

/// Parses the struct's `#[entity(...)]` attributes.
pub fn entity_attrs(attrs: &[Attribute], cx: &Ctxt) -> EntityAttrs {
    let mut out = EntityAttrs::default();
    // Keys already given, to report duplicates even when the first value was invalid.
    let mut seen: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("entity")) {
        out.present = true;
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident().cloned() else {
                cx.error_spanned_by(&meta.path, format!("unknown key; expected {STRUCT_KEYS}"));
                return skip_value(&meta);
            };
            let key = ident.to_string();
            let parsed = match key.as_str() {
                "pk" => Ok(StructKey::Template(KeyRole::Pk)),
                "sk" => Ok(StructKey::Template(KeyRole::Sk)),
                "name" => Ok(StructKey::Name),
                "inverted" => Ok(StructKey::Inverted),
                "table" => Ok(StructKey::Table),
                "rename_all" => Ok(StructKey::RenameAll),
                "key_fields" => Ok(StructKey::KeyFields),
                "schema" => Ok(StructKey::Schema),
                "key_case" => Ok(StructKey::KeyCase),
                "key_values" => Ok(StructKey::KeyValues),
                "delimiter" => Ok(StructKey::Delimiter),
                "constant" => Ok(StructKey::Constant),
                "rename" | "alias" | "write_alias" | "read_alias" | "serde" | "unique" | "version" | "created_at"
                | "updated_at" | "ttl" | "folded" => Err(format!(
                    "`{key}` belongs on a field: `#[entity({key}{})]`",
                    if FIELD_STRINGS.contains(&key.as_str()) { " = \"...\"" } else { "" }
                )),
                other => gsi_key(other).or_else(|| lsi_key(other)).unwrap_or_else(|| {
                    let lower = other.to_lowercase();
                    let valid = ["pk", "sk", "name", "gsi1", "gsi1_sk", "lsi1", "inverted", "table"];
                    let suggestion = if matches!(lower.as_str(), "pk" | "sk" | "name" | "inverted" | "table")
                        || matches!(gsi_key(&lower), Some(Ok(_)))
                        || matches!(lsi_key(&lower), Some(Ok(_)))
                    {
                        Some(lower.as_str())
                    } else {
                        suggest::closest(&lower, valid)
                    };
                    Err(match suggestion {
                        Some(s) => format!("unknown key `{other}`; did you mean `{s}`? Expected {STRUCT_KEYS}"),
                        None => format!("unknown key `{other}`; expected {STRUCT_KEYS}"),
                    })
                }),
            };
            let parsed = match parsed {
                Ok(p) => p,
                Err(message) => {
                    cx.error_spanned_by(&ident, message);
                    return skip_value(&meta);
                }
            };
            if let StructKey::Constant = parsed {
                // Several `constant(...)` add up; a name given twice is an error of the check.
                return constants(&meta, &mut out.constants, cx);
            }
            if seen.contains(&key) {
                cx.error_spanned_by(&ident, format!("duplicate `{key}`"));
                return skip_value(&meta);
            }
            seen.push(key.clone());
            if let StructKey::Inverted = parsed {
                if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    cx.error_spanned_by(&ident, "`inverted` takes no value: write `#[entity(inverted)]`");
                    skip_value(&meta)?;
                }
                out.inverted = Some(ident);
                return Ok(());
            }
            if let StructKey::Schema = parsed {
                out.schema = super::schema::parse(&meta, ident, cx)?;
                return Ok(());
            }
            if let StructKey::Template(KeyRole::GsiPk(n)) = parsed {
                if meta.input.peek(syn::token::Paren) {
                    out.multi_gsis.insert(n, multi_gsi(&meta, ident, cx)?);
                    return Ok(());
                }
            }
            if let StructKey::Table = parsed {
                out.table = Some(meta.value()?.parse()?);
                return Ok(());
            }
            let value = string_value(&meta, &key, cx)?;
            match parsed {
                StructKey::Name => set(&mut out.name, value),
                StructKey::Inverted | StructKey::Table | StructKey::Schema | StructKey::Constant => {}
                StructKey::RenameAll => out.rename_all = value.and_then(|lit| super::case_value(&lit, cx)),
                StructKey::KeyCase => {
                    if let Some(lit) = value {
                        out.key_style.set_case(lit, cx);
                    }
                }
                StructKey::KeyValues => {
                    if let Some(lit) = value {
                        out.key_style.set_values(lit, cx);
                    }
                }
                StructKey::Delimiter => {
                    if let Some(lit) = value {
                        out.key_style.set_delimiter(lit, cx);
                    }
                }
                StructKey::KeyFields => match value {
                    Some(lit) if lit.value() == "keys" => out.key_fields_in_keys = true,
                    Some(lit) if lit.value() == "attributes" => out.key_fields_in_keys = false,
                    Some(lit) => cx.error_spanned_by(
                        &lit,
                        format!(
                            "unknown `key_fields` value `{}`: expected `\"attributes\"` (the default: key fields are \
                             also written as attributes) or `\"keys\"` (key fields are written only inside the keys \
                             that hold them)",
                            lit.value()
                        ),
                    ),
                    None => {}
                },
                StructKey::Template(role) => {
                    let key_attr = value.map(|lit| KeyAttr { key: ident.clone(), role, lit });
                    match role {
                        KeyRole::Pk => set(&mut out.pk, key_attr),
                        KeyRole::Sk => set(&mut out.sk, key_attr),
                        KeyRole::GsiPk(n) => set(&mut out.gsis.entry(n).or_default().pk, key_attr),
                        KeyRole::GsiSk(n) => set(&mut out.gsis.entry(n).or_default().sk, key_attr),
                        KeyRole::LsiSk(n) => {
                            if let Some(k) = key_attr {
                                out.lsis.insert(n, k);
                            }
                        }
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

/// Parses the `(attribute = value, ...)` of `constant`: a string, integer, float or boolean
/// literal per attribute.
fn constants(meta: &syn::meta::ParseNestedMeta, out: &mut Vec<ConstantAttr>, cx: &Ctxt) -> syn::Result<()> {
    if !meta.input.peek(syn::token::Paren) {
        cx.error_spanned_by(
            &meta.path,
            "`constant` lists attributes with their fixed values: write `constant(__edb_v__ = \"1\")`",
        );
        return skip_value(meta);
    }
    meta.parse_nested_meta(|inner| {
        let Some(name) = inner.path.get_ident().cloned() else {
            cx.error_spanned_by(&inner.path, "a constant attribute is named by one identifier, such as `__edb_v__`");
            return skip_value(&inner);
        };
        let lit: syn::Lit = inner.value()?.parse()?;
        let value = match &lit {
            syn::Lit::Str(s) => ConstantLit::S(s.value()),
            syn::Lit::Int(i) => ConstantLit::N(i.base10_digits().to_owned()),
            syn::Lit::Float(f) => ConstantLit::N(f.base10_digits().to_owned()),
            syn::Lit::Bool(b) => ConstantLit::Bool(b.value),
            other => {
                cx.error_spanned_by(
                    other,
                    "a constant attribute holds a string (S), a number (N) or a boolean (BOOL): write \"1\", 1 or true",
                );
                return Ok(());
            }
        };
        let attribute = syn::ext::IdentExt::unraw(&name).to_string();
        out.push(ConstantAttr { name, attribute, value });
        Ok(())
    })
}

/// Parses the `(pk(a, b), sk(c, d))` of a multi-attribute GSI `key`.
fn multi_gsi(meta: &syn::meta::ParseNestedMeta, key: Ident, cx: &Ctxt) -> syn::Result<MultiGsiAttrs> {
    let mut out = MultiGsiAttrs { key: key.clone(), pk: None, sk: None };
    meta.parse_nested_meta(|inner| {
        let side = inner.path.get_ident().cloned();
        let slot = match side.as_ref().map(Ident::to_string).as_deref() {
            Some("pk") => &mut out.pk,
            Some("sk") => &mut out.sk,
            _ => {
                cx.error_spanned_by(
                    &inner.path,
                    format!(
                        "unknown key in `{key}(...)`: a multi-attribute GSI takes `pk(field, ...)` and \
                         `sk(field, ...)`, such as `{key}(pk(tenant, region), sk(status, created_at))`"
                    ),
                );
                return skip_value(&inner);
            }
        };
        let side = side.expect("matched above");
        if slot.is_some() {
            cx.error_spanned_by(&side, format!("duplicate `{side}` in `{key}(...)`"));
            return skip_value(&inner);
        }
        if !inner.input.peek(syn::token::Paren) {
            cx.error_spanned_by(&side, format!("expected `{side}(field, ...)`: the fields of the key, in order"));
            return skip_value(&inner);
        }
        let content;
        syn::parenthesized!(content in inner.input);
        let fields = syn::punctuated::Punctuated::<Ident, Token![,]>::parse_terminated(&content)?;
        *slot = Some((side, fields.into_iter().collect()));
        Ok(())
    })?;
    Ok(out)
}

/// Parses a field's `#[entity(...)]` attributes.
pub fn field_attrs(attrs: &[Attribute], cx: &Ctxt) -> FieldAttrs {
    let mut out = FieldAttrs::default();
    let mut seen: Vec<String> = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("entity")) {
        let result = attr.parse_nested_meta(|meta| {
            let Some(ident) = meta.path.get_ident().cloned() else {
                cx.error_spanned_by(&meta.path, format!("unknown key; expected {FIELD_KEYS}"));
                return skip_value(&meta);
            };
            let key = ident.to_string();
            if key == "vector" {
                if out.vector.is_some() {
                    cx.error_spanned_by(
                        &ident,
                        "duplicate `vector`: a field holds one vector; declare one index a field",
                    );
                    return skip_value(&meta);
                }
                out.vector = Some(super::vector::parse(&meta, ident.span(), cx)?);
                return Ok(());
            }
            if key == "key_fields" {
                if out.key_fields.is_some() {
                    cx.error_spanned_by(&ident, "duplicate `key_fields`");
                    return skip_value(&meta);
                }
                match string_value(&meta, "key_fields", cx)? {
                    Some(lit) if lit.value() == "keys" => out.key_fields = Some((true, ident.span())),
                    Some(lit) if lit.value() == "attributes" => out.key_fields = Some((false, ident.span())),
                    Some(lit) => cx.error_spanned_by(
                        &lit,
                        format!(
                            "unknown `key_fields` value {:?}; expected \"keys\" (the field is stored only inside \
                             the keys that hold it) or \"attributes\" (also as an attribute of its own)",
                            lit.value()
                        ),
                    ),
                    None => {}
                }
                return Ok(());
            }
            if !FIELD_STRINGS.contains(&key.as_str()) && !FIELD_FLAGS.contains(&key.as_str()) {
                let message = if key == "inverted" {
                    "`inverted` belongs on the struct: `#[entity(inverted)]` above the `struct`".to_owned()
                } else if matches!(key.as_str(), "pk" | "sk" | "name")
                    || gsi_key(&key).is_some()
                    || lsi_key(&key).is_some()
                {
                    format!("`{key}` belongs on the struct: `#[entity({key} = \"...\")]` above the `struct`")
                } else {
                    match suggest::closest(&key, FIELD_STRINGS.into_iter().chain(FIELD_FLAGS)) {
                        Some(s) => format!("unknown key `{key}`; did you mean `{s}`? Expected {FIELD_KEYS}"),
                        None => format!("unknown key `{key}`; expected {FIELD_KEYS}"),
                    }
                };
                cx.error_spanned_by(&ident, message);
                return skip_value(&meta);
            }
            if seen.contains(&key) {
                cx.error_spanned_by(&ident, format!("duplicate `{key}`"));
                return skip_value(&meta);
            }
            seen.push(key.clone());
            if key == "rename" {
                out.rename = string_value(&meta, "rename", cx)?;
            } else if key == "alias" {
                out.alias = string_value(&meta, "alias", cx)?;
            } else {
                if !meta.input.is_empty() && !meta.input.peek(Token![,]) {
                    cx.error_spanned_by(&ident, format!("`{key}` takes no value: write `#[entity({key})]`"));
                    skip_value(&meta)?;
                }
                match key.as_str() {
                    "unique" => out.unique = Some(ident.span()),
                    "serde" => out.serde = Some(ident.span()),
                    "folded" => out.folded = Some(ident.span()),
                    "write_alias" => out.write_alias = Some(ident.span()),
                    "read_alias" => out.read_alias = Some(ident.span()),
                    other => {
                        if let Some(m) = Maintained::parse(other) {
                            out.maintained.push((m, ident.span()));
                        }
                    }
                }
            }
            Ok(())
        });
        if let Err(e) = result {
            cx.syn_error(e);
        }
    }
    out
}

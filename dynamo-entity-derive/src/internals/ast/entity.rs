//! The typed model of a `#[derive(Entity)]` struct, between syn and code generation.

use proc_macro2::Span;
use syn::{Data, DeriveInput, Fields, Ident, LitStr, Type, Visibility};

use crate::internals::attr::entity::{self as attr, KeyAttr, Maintained};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::IndexKind;
use crate::internals::template::{self, Template};

/// A struct deriving `Entity`.
pub struct Entity<'a> {
    pub ident: &'a Ident,
    pub vis: &'a Visibility,
    /// The entity type name stored in the type attribute.
    pub name: String,
    pub name_lit: Option<LitStr>,
    pub fields: Vec<Field<'a>>,
    /// The primary index; `None` when `pk` or `sk` is missing (an error).
    pub primary: Option<IndexKeys>,
    /// The GSIs with both templates, by number.
    pub gsis: Vec<IndexKeys>,
    /// The LSIs, by number: each one's sort key template (the partition key is `pk`).
    pub lsis: Vec<LsiKeys>,
    /// Templates of incomplete indexes (a `gsiN` without `gsiN_sk`, a `pk` without `sk`, ...):
    /// an error, but their placeholders are still checked.
    pub loose: Vec<KeyTemplate>,
    /// The raw attributes, for the checks of incomplete GSIs and missing keys.
    pub attrs: attr::EntityAttrs,
}

/// One struct field.
pub struct Field<'a> {
    pub ident: &'a Ident,
    /// The field name without `r#`: what placeholders and messages use.
    pub name: String,
    pub vis: &'a Visibility,
    pub ty: &'a Type,
    /// The attribute that stores the field.
    pub attribute: String,
    pub rename: Option<LitStr>,
    pub serde: bool,
    /// `#[entity(unique)]`, with the span of `unique`.
    pub unique: Option<Span>,
    /// `#[entity(folded)]`, with the span of `folded`.
    pub folded: Option<Span>,
    /// `#[entity(key_fields = "keys" | "attributes")]` on the field: `true` for `"keys"`, with
    /// the span of `key_fields`.
    pub key_fields: Option<(bool, Span)>,
    /// `#[entity(version)]`, `created_at`, `updated_at`, `ttl`, with the span of each key (more
    /// than one is an error of the check pass).
    pub maintained: Vec<(Maintained, Span)>,
    /// `#[entity(vector(...))]`: a vector index on the field.
    pub vector: Option<crate::internals::attr::vector::VectorAttr>,
    /// `#[entity(alias = "...")]`: the attribute the field was stored in before a rename, read
    /// when the item has no attribute of the field's own name.
    pub alias: Option<LitStr>,
    /// `#[entity(write_alias)]`, with its span: every write stores the alias attribute too.
    pub write_alias: Option<Span>,
    /// `#[entity(read_alias)]`, with its span: reads take the alias attribute first.
    pub read_alias: Option<Span>,
}

impl Field<'_> {
    /// What the library maintains in this field: the first of its maintained keys.
    pub fn role(&self) -> Option<Maintained> {
        self.maintained.first().map(|(m, _)| *m)
    }
}

/// The partition and sort key templates of one index.
pub struct IndexKeys {
    pub kind: IndexKind,
    pub pk: KeyTemplate,
    pub sk: KeyTemplate,
}

/// The sort key template of one LSI; its partition key is the entity's `pk`.
pub struct LsiKeys {
    /// The LSI's number, 1 to 5.
    pub n: u8,
    pub sk: KeyTemplate,
}

/// One template as written and parsed.
pub struct KeyTemplate {
    pub attr: KeyAttr,
    /// `None` when it has a syntax error (already reported).
    pub parsed: Option<Template>,
}

impl KeyTemplate {
    fn new(attr: &KeyAttr, delimiter: char, cx: &Ctxt) -> KeyTemplate {
        let parsed = match template::parse_with(&attr.lit.value(), delimiter) {
            Ok(t) => Some(t),
            Err(e) => {
                cx.error_at(template::span_of(&attr.lit, &e.range), e.message);
                None
            }
        };
        KeyTemplate { attr: attr.clone(), parsed }
    }

    /// Whether the template is one of the table's own keys (`pk` or `sk`).
    pub fn is_primary(&self) -> bool {
        self.attr.role.is_primary()
    }

    /// The template as written.
    pub fn source(&self) -> String {
        self.attr.lit.value()
    }

    /// The placeholders' field names, in order (none when the template did not parse).
    pub fn field_names(&self) -> Vec<&str> {
        self.parsed.iter().flat_map(|t| t.fields().map(|(n, _)| n)).collect()
    }
}

impl<'a> Entity<'a> {
    /// Builds the model, recording every attribute and template error. `None` when the input is
    /// not a non-generic struct with named fields (an error is recorded).
    pub fn from_syn(input: &'a DeriveInput, cx: &Ctxt) -> Option<Entity<'a>> {
        let ident = &input.ident;
        let named = match &input.data {
            Data::Struct(s) => match &s.fields {
                Fields::Named(named) => Some(named),
                Fields::Unnamed(_) => {
                    cx.error_spanned_by(
                        ident,
                        "`#[derive(Entity)]` needs a struct with named fields: a tuple struct has no field \
                         names for key templates and attribute names",
                    );
                    None
                }
                Fields::Unit => {
                    cx.error_spanned_by(
                        ident,
                        format!("`#[derive(Entity)]` needs a struct with named fields: write `struct {ident} {{}}`"),
                    );
                    None
                }
            },
            Data::Enum(_) => {
                cx.error_spanned_by(
                    ident,
                    "`#[derive(Entity)]` supports structs with named fields only, not enums: derive it for one \
                     struct per entity type",
                );
                None
            }
            Data::Union(_) => {
                cx.error_spanned_by(ident, "`#[derive(Entity)]` supports structs with named fields only, not unions");
                None
            }
        };
        if !input.generics.params.is_empty() {
            cx.error_spanned_by(
                &input.generics,
                "generic entities are not supported: an entity is stored under one type name with fixed key \
                 templates; use a concrete struct",
            );
            return None;
        }
        let named = named?;

        let attrs = attr::entity_attrs(&input.attrs, cx);
        let mut fields = Vec::with_capacity(named.named.len());
        for f in &named.named {
            let Some(field_ident) = &f.ident else {
                continue;
            };
            let fa = attr::field_attrs(&f.attrs, cx);
            let name = syn::ext::IdentExt::unraw(field_ident).to_string();
            fields.push(Field {
                ident: field_ident,
                attribute: fa.rename.as_ref().map_or_else(
                    || attrs.rename_all.map_or_else(|| name.clone(), |case| case.apply(&name)),
                    LitStr::value,
                ),
                name,
                vis: &f.vis,
                ty: &f.ty,
                rename: fa.rename,
                serde: fa.serde.is_some(),
                unique: fa.unique,
                folded: fa.folded,
                key_fields: fa.key_fields,
                maintained: fa.maintained,
                vector: fa.vector,
                alias: fa.alias,
                write_alias: fa.write_alias,
                read_alias: fa.read_alias,
            });
        }

        let mut loose = Vec::new();
        let d = attrs.key_style.delimiter();
        let primary = match (&attrs.pk, &attrs.sk) {
            (Some(pk), Some(sk)) => Some(IndexKeys {
                kind: IndexKind::Primary,
                pk: KeyTemplate::new(pk, d, cx),
                sk: KeyTemplate::new(sk, d, cx),
            }),
            (pk, sk) => {
                // Still check the one that was given.
                for given in [pk, sk].into_iter().flatten() {
                    loose.push(KeyTemplate::new(given, d, cx));
                }
                None
            }
        };
        let mut gsis = Vec::new();
        for (&n, g) in &attrs.gsis {
            match (&g.pk, &g.sk) {
                (Some(pk), Some(sk)) => gsis.push(IndexKeys {
                    kind: IndexKind::Gsi(n),
                    pk: KeyTemplate::new(pk, d, cx),
                    sk: KeyTemplate::new(sk, d, cx),
                }),
                (pk, sk) => {
                    for given in [pk, sk].into_iter().flatten() {
                        loose.push(KeyTemplate::new(given, d, cx));
                    }
                }
            }
        }

        let lsis = attrs.lsis.iter().map(|(&n, sk)| LsiKeys { n, sk: KeyTemplate::new(sk, d, cx) }).collect();

        let unraw = syn::ext::IdentExt::unraw(ident).to_string();
        Some(Entity {
            ident,
            vis: &input.vis,
            name: attrs.name.as_ref().map_or(unraw, LitStr::value),
            name_lit: attrs.name.clone(),
            fields,
            primary,
            gsis,
            lsis,
            loose,
            attrs,
        })
    }

    /// Every index: the primary index (when complete) and then the GSIs by number.
    pub fn indexes(&self) -> impl Iterator<Item = &IndexKeys> {
        self.primary.iter().chain(&self.gsis)
    }

    pub fn field(&self, name: &str) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The first field whose role is `role`.
    pub fn maintained(&self, role: Maintained) -> Option<&Field<'a>> {
        self.fields.iter().find(|f| f.role() == Some(role))
    }

    /// Every template, complete index or not.
    pub fn templates(&self) -> impl Iterator<Item = &KeyTemplate> {
        self.indexes().flat_map(|i| [&i.pk, &i.sk]).chain(self.lsis.iter().map(|l| &l.sk)).chain(&self.loose)
    }

    /// Whether the field fills a placeholder of any template or picks the shard of a shard
    /// suffix.
    pub fn is_key_field(&self, name: &str) -> bool {
        self.templates().any(|t| {
            t.field_names().contains(&name)
                || t.parsed.as_ref().and_then(|p| p.shard()).is_some_and(|(f, ..)| f == name)
        })
    }

    /// Whether a key is written whenever the field has a value and holds it (the runtime's
    /// `EntitySchema::held_by_key`): it fills a placeholder of the primary key, or of a GSI or
    /// LSI whose other parts are not `Option`s.
    pub fn held_by_key(&self, name: &str) -> bool {
        // A case-folded key holds only the fields that take their value in its case.
        if self.attrs.key_style.folds_case() && !self.field(name).is_some_and(|f| self.reads_folded(f)) {
            return false;
        }
        self.held_by_key_text(name)
    }

    /// Whether the field may be read back from a case-folded key (the runtime's
    /// `FieldSchema::folded`): `#[entity(folded)]`, or an integer, whose text folding keeps.
    pub fn reads_folded(&self, field: &Field) -> bool {
        let ty = crate::internals::types::option_inner(field.ty).unwrap_or(field.ty);
        field.folded.is_some() || crate::internals::types::is_integer(ty)
    }

    /// [`held_by_key`](Self::held_by_key) whatever the keys' case.
    pub fn held_by_key_text(&self, name: &str) -> bool {
        if self.is_primary_key_field(name) {
            return true;
        }
        let optional = |f: &str| self.field(f).is_none_or(|f| crate::internals::types::option_inner(f.ty).is_some());
        let primary_pk: Vec<&str> = self.primary.iter().flat_map(|p| p.pk.field_names()).collect();
        let gsis = self.gsis.iter().map(|g| [g.pk.field_names(), g.sk.field_names()].concat());
        let lsis = self.lsis.iter().map(|l| [primary_pk.clone(), l.sk.field_names()].concat());
        gsis.chain(lsis)
            .any(|fields| fields.contains(&name) && fields.iter().filter(|f| **f != name).all(|f| !optional(f)))
    }

    /// Whether writes leave the field's own attribute out: `key_fields = "keys"` (the field's
    /// own, or else the entity's) and [`held_by_key`](Self::held_by_key), unless a
    /// multi-attribute GSI is keyed on it (its attribute is that index's key).
    pub fn key_only(&self, name: &str) -> bool {
        self.in_keys_only(name) && self.held_by_key(name) && !self.is_multi_key_field(name)
    }

    /// Whether the field's `key_fields` choice (its own, or else the entity's) is `"keys"`.
    pub fn in_keys_only(&self, name: &str) -> bool {
        self.field(name).and_then(|f| f.key_fields).map_or(self.attrs.key_fields_in_keys, |(keys, _)| keys)
    }

    /// Whether a multi-attribute GSI (`gsiN(pk(..), sk(..))`) is keyed on the field.
    pub fn is_multi_key_field(&self, name: &str) -> bool {
        self.attrs
            .multi_gsis
            .values()
            .flat_map(|g| [&g.pk, &g.sk])
            .flatten()
            .any(|(_, fields)| fields.iter().any(|f| syn::ext::IdentExt::unraw(f) == name))
    }

    /// Whether the field fills a placeholder of the primary key.
    pub fn is_primary_key_field(&self, name: &str) -> bool {
        self.templates().any(|t| t.is_primary() && t.field_names().contains(&name))
    }
}

/// The span to report a field's attribute name on: the rename literal, or the field name.
pub fn attribute_span(field: &Field) -> Span {
    field.rename.as_ref().map_or_else(|| field.ident.span(), LitStr::span)
}

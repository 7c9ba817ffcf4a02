//! Validation of a `#[derive(Entity)]` model. Every rule records its errors and the pass goes
//! on, so the user sees all mistakes at once; code is generated only when there are none.

use std::collections::HashMap;

use crate::internals::ast::entity::{Entity, attribute_span};
use crate::internals::attr::entity::{GsiAttrs, Maintained};
use crate::internals::ctxt::Ctxt;
use crate::internals::model::{KeyRole, MAX_GSI, MAX_SORT_KEY_PARTS, reserved};
use crate::internals::suggest;
use crate::internals::template;
use crate::internals::types::{self, KeyPartType};

/// Checks an entity, rule by rule.
pub fn check(entity: &Entity, cx: &Ctxt) {
    // Roughly in source order: the struct's attribute, then its fields.
    required_keys(entity, cx);
    entity_name(entity, cx);
    placeholders(entity, cx);
    shards(entity, cx);
    gsi_pairs(entity, cx);
    inverted(entity, cx);
    lsis(entity, cx);
    key_part_types(entity, cx);
    binary_parts(entity, cx);
    attributes(entity, cx);
    aliases(entity, cx);
    unique_fields(entity, cx);
    maintained_fields(entity, cx);
    super::schema::check(entity, cx);
    handle_names(entity, cx);
    super::key_style::check(entity, cx);
    super::multi_key::check(entity, cx);
    super::vector::check(entity, cx);
}

/// Rule 1: `pk` and `sk` are required.
fn required_keys(entity: &Entity, cx: &Ctxt) {
    let a = &entity.attrs;
    let example = |key: &str| match key {
        "pk" => format!("`pk = \"{}#<id>\"`", entity.name.to_uppercase()),
        _ => "`sk = \"META\"`".to_owned(),
    };
    match (&a.pk, &a.sk) {
        (None, None) if !a.present => cx.error_spanned_by(
            entity.ident,
            format!(
                "missing `#[entity(pk = \"...\", sk = \"...\")]`: every entity needs a partition key and a sort key \
                 template, such as {} and {}",
                example("pk"),
                example("sk")
            ),
        ),
        (pk, sk) => {
            for (given, key, what) in [(pk, "pk", "partition"), (sk, "sk", "sort")] {
                if given.is_none() {
                    cx.error_spanned_by(
                        entity.ident,
                        format!(
                            "missing `{key} = \"...\"`: every entity needs a {what} key template, such as {}",
                            example(key)
                        ),
                    );
                }
            }
        }
    }
}

/// Rule 2: each `gsiN` needs `gsiN_sk` and the other way round.
fn gsi_pairs(entity: &Entity, cx: &Ctxt) {
    for (n, GsiAttrs { pk, sk }) in &entity.attrs.gsis {
        debug_assert!((1..=MAX_GSI).contains(n));
        match (pk, sk) {
            (Some(pk), None) => {
                let constant = template::parse_with(&pk.lit.value(), entity.attrs.key_style.delimiter())
                    .ok()
                    .and_then(|t| t.first_literal().map(str::to_owned))
                    .unwrap_or_else(|| entity.name.to_uppercase());
                cx.error_spanned_by(
                    &pk.key,
                    format!(
                        "`gsi{n}` needs a sort key template too: add `gsi{n}_sk = \"<field>\"`, or a constant such as \
                         `gsi{n}_sk = \"{constant}\"` when the index is only looked up by partition"
                    ),
                );
            }
            (None, Some(sk)) if entity.attrs.multi_gsis.contains_key(n) => cx.error_spanned_by(
                &sk.key,
                format!(
                    "`gsi{n}_sk` does not apply to a multi-attribute GSI: give `gsi{n}`'s sort key attributes in \
                     `gsi{n}(pk(...), sk(field, ...))`"
                ),
            ),
            (None, Some(sk)) => cx.error_spanned_by(
                &sk.key,
                format!("`gsi{n}_sk` has no partition key template: add `gsi{n} = \"...\"`, such as `gsi{n} = \"{}#<field>\"`", entity.name.to_uppercase()),
            ),
            _ => {}
        }
    }
}

/// Rule 2b: `inverted` queries the partition `SK = <sort key>` of the inverted index, so the
/// sort key needs a placeholder (a constant would put every item of the entity, and of every
/// entity with that constant, in one partition), and the partition key, which becomes that
/// index's sort key, at most [`MAX_SORT_KEY_PARTS`] placeholders.
fn inverted(entity: &Entity, cx: &Ctxt) {
    let (Some(flag), Some(primary)) = (&entity.attrs.inverted, &entity.primary) else {
        return;
    };
    if primary.sk.parsed.as_ref().is_some_and(|t| t.fields().next().is_none()) {
        cx.error_spanned_by(
            flag,
            format!(
                "`inverted` needs a sort key with a placeholder, such as `sk = \"{}#<other_id>\"`: the inverted index is \
                 queried by `SK`, and the constant sort key `{}` would put every `{}` (and every item of any entity \
                 with that sort key) in one partition",
                primary.sk.source().split(entity.attrs.key_style.delimiter()).next().unwrap_or("EDGE"),
                primary.sk.source(),
                entity.ident
            ),
        );
    }
    let parts = primary.pk.field_names().len();
    if parts > MAX_SORT_KEY_PARTS {
        cx.error_spanned_by(
            flag,
            format!(
                "`inverted` makes the partition key `{}` the sort key of the inverted index, and a sort key may have \
                 at most {MAX_SORT_KEY_PARTS} placeholders (it has {parts})",
                primary.pk.source()
            ),
        );
    }
}

/// Rule 2c: an LSI re-sorts the partitions of the table, so its sort key template needs a
/// placeholder: a constant would give every item of the entity in a partition the same LSI sort
/// key, an order no better than none.
fn lsis(entity: &Entity, cx: &Ctxt) {
    for lsi in &entity.lsis {
        let Some(parsed) = &lsi.sk.parsed else { continue };
        if parsed.fields().next().is_none() && parsed.shard().is_none() {
            let n = lsi.n;
            cx.error_spanned_by(
                &lsi.sk.attr.lit,
                format!(
                    "`lsi{n}` is the sort key of LSI{n}, which orders the items of one partition (`pk`) by another \
                     field; the constant `{}` gives them all the same sort key: use a placeholder, such as \
                     `lsi{n} = \"<created_at>\"`",
                    lsi.sk.source()
                ),
            );
        }
    }
}

fn entity_name(entity: &Entity, cx: &Ctxt) {
    if let Some(lit) = &entity.name_lit {
        if lit.value().is_empty() {
            cx.error_spanned_by(
                lit,
                "the entity name cannot be empty: it is stored in the `_type` attribute of every item",
            );
        }
    }
}

/// Rule 3: every placeholder names a field.
fn placeholders(entity: &Entity, cx: &Ctxt) {
    let names: Vec<&str> = entity.fields.iter().map(|f| f.name.as_str()).collect();
    for template in entity.templates() {
        let Some(parsed) = &template.parsed else {
            continue;
        };
        let shard_source = parsed.shard().map(|(f, _, _, field_range)| (f, field_range));
        for (name, range) in parsed.fields().chain(shard_source) {
            if entity.field(name).is_some() {
                continue;
            }
            let ident = entity.ident;
            let message = match suggest::closest(name, names.iter().copied()) {
                Some(s) => format!("no field `{name}` in `{ident}`; did you mean `{s}`?"),
                None if names.is_empty() => {
                    format!("no field `{name}` in `{ident}`, which has no fields")
                }
                None => format!("no field `{name}` in `{ident}`; its fields are {}", suggest::list(&names)),
            };
            cx.error_at(template::span_of(&template.attr.lit, range), message);
        }
        if template.attr.role.is_sort() && parsed.fields().count() > MAX_SORT_KEY_PARTS {
            cx.error_spanned_by(
                &template.attr.lit,
                format!("a sort key template may have at most {MAX_SORT_KEY_PARTS} placeholders"),
            );
        }
    }
}

/// Rule 3b: a shard suffix `<shard(field, N)>` belongs in a GSI partition key, and its source
/// field must always be present and keep its value from one write to the next (the item's
/// shard is a hash of it).
fn shards(entity: &Entity, cx: &Ctxt) {
    for template in entity.templates() {
        let Some((source, _, range, field_range)) = template.parsed.as_ref().and_then(|p| p.shard()) else {
            continue;
        };
        let key = template.attr.key.to_string();
        let role = template.attr.role;
        if role.is_primary() {
            cx.error_at(
                template::span_of(&template.attr.lit, range),
                "a shard suffix belongs in a GSI partition key (`gsiN = \"...\"`): the primary key names one item \
                 and is built from `key()`'s arguments, so it is never sharded",
            );
            continue;
        }
        if let KeyRole::LsiSk(_) = role {
            cx.error_at(
                template::span_of(&template.attr.lit, range),
                format!(
                    "a shard suffix belongs in a GSI partition key: `{key}` is the sort key of an LSI, whose \
                     partition key is the table's `PK`"
                ),
            );
            continue;
        }
        if let KeyRole::GsiSk(n) = role {
            cx.error_at(
                template::span_of(&template.attr.lit, range),
                format!(
                    "a shard suffix belongs in a GSI partition key: it spreads one partition over several, while \
                     `{key}` orders the items of one partition; move it to `gsi{n}`"
                ),
            );
            continue;
        }
        // An unknown source field is reported by `placeholders`.
        let Some(field) = entity.field(source) else {
            continue;
        };
        let at = template::span_of(&template.attr.lit, field_range);
        if types::option_inner(field.ty).is_some() {
            cx.error_at(
                at,
                format!(
                    "the shard source `{source}` is an Option: an item's shard is a hash of its source field, which \
                     must always be present; shard by a field such as the item's id"
                ),
            );
        } else if let Some(role @ (Maintained::Version | Maintained::UpdatedAt | Maintained::Ttl)) = field.role() {
            cx.error_at(
                at,
                format!(
                    "the shard source `{source}` is `#[entity({})]`, which the library changes on writes, so the \
                     item would change shards behind the user's back; shard by a field such as the item's id",
                    role.key()
                ),
            );
        }
    }
}

/// Rules 4 and 5: placeholder fields must have types that can be key parts, and primary key
/// fields cannot be `Option`s. Each field is reported once, at its type.
fn key_part_types(entity: &Entity, cx: &Ctxt) {
    for field in &entity.fields {
        let in_primary = entity.is_primary_key_field(&field.name);
        if !in_primary && !entity.is_key_field(&field.name) {
            continue;
        }
        if let KeyPartType::Rejected(reason) = types::key_part(field.ty) {
            cx.error_spanned_by(field.ty, format!("`{}` cannot be a key part: {reason}", field.name));
        } else if in_primary && types::option_inner(field.ty).is_some() {
            cx.error_spanned_by(
                field.ty,
                format!(
                    "`{}` is an Option, but primary key fields must always be present; Option fields may only \
                     appear in GSI and LSI keys (a None leaves the item out of that sparse index)",
                    field.name
                ),
            );
        }
    }
}

/// Rule 4b: a binary field (`Vec<u8>`) fills a key template only as the whole of it (`<digest>`),
/// which makes that key attribute binary (`B`): DynamoDB has no binary inside a string key. Each
/// placeholder elsewhere (inside a composite template, beside literal text, a shard source) is
/// one error, at the placeholder.
fn binary_parts(entity: &Entity, cx: &Ctxt) {
    let binary = |name: &str| entity.field(name).is_some_and(|f| matches!(types::key_part(f.ty), KeyPartType::Binary));
    for t in entity.templates() {
        let Some(parsed) = &t.parsed else { continue };
        let whole = matches!(parsed.segments.as_slice(),
            [template::Segment::Field { prefix, suffix, raw: false, .. }] if prefix.is_empty() && suffix.is_empty());
        for segment in &parsed.segments {
            let (name, range, shard) = match segment {
                template::Segment::Field { name, range, .. } if !whole => (name, range, false),
                template::Segment::Shard { field, field_range, .. } => (field, field_range, true),
                _ => continue,
            };
            if !binary(name) {
                continue;
            }
            let what = if shard { "the source of a shard segment" } else { "a part of this composite key" };
            cx.error_at(
                template::span_of(&t.attr.lit, range),
                format!(
                    "`{name}` is binary (`Vec<u8>`) and cannot be {what}: a binary value can only be a whole key \
                     attribute, of type B (a template that is exactly `<{name}>`); use such a template, a \
                     multi-attribute GSI key (`gsiN(pk({name}))`), or a newtype implementing `KeyPart` that writes the \
                     bytes as text (hexadecimal or base64)"
                ),
            );
        }
    }
}

/// Rule 7: attribute names must be non-empty, unique and not one of the reserved key or type
/// attributes. With `#[entity(table = ...)]` the key and type attributes are the table's, which
/// this derive cannot see: `#[derive(TableDef)]` checks them against the fields instead.
fn attributes(entity: &Entity, cx: &Ctxt) {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for field in &entity.fields {
        let attribute = field.attribute.as_str();
        let span = attribute_span(field);
        if attribute.is_empty() {
            cx.error_at(span, "an attribute name cannot be empty");
            continue;
        }
        if let Some(why) = reserved(attribute).filter(|_| entity.attrs.table.is_none()) {
            let how = if field.rename.is_some() {
                "choose another name"
            } else {
                "store it under another name with `#[entity(rename = \"...\")]`"
            };
            cx.error_at(span, format!("attribute `{attribute}` is reserved: it holds {why}; {how}"));
            continue;
        }
        if let Some(other) = seen.insert(attribute, &field.name) {
            cx.error_at(span, format!("`{}` and `{other}` are both stored in attribute `{attribute}`", field.name));
        }
    }
    // `constant(...)`: attributes of their own, beside the fields'.
    let mut constants: Vec<&str> = Vec::new();
    for c in &entity.attrs.constants {
        let attribute = c.attribute.as_str();
        if let Some(why) = reserved(attribute).filter(|_| entity.attrs.table.is_none()) {
            cx.error_spanned_by(
                &c.name,
                format!("attribute `{attribute}` is reserved: it holds {why}; a constant cannot be stored in it"),
            );
        } else if constants.contains(&attribute) {
            cx.error_spanned_by(&c.name, format!("constant attribute `{attribute}` is given twice"));
        } else if let Some(field) = seen.get(attribute) {
            cx.error_spanned_by(
                &c.name,
                format!(
                    "field `{field}` is stored in attribute `{attribute}`, which is also a constant: remove the \
                     constant, or store the field under another name with `#[entity(rename = \"...\")]`"
                ),
            );
        }
        constants.push(attribute);
    }
}

/// Rule 7b: `#[entity(alias = "...")]`, the attribute a renamed field was stored in. It names
/// an attribute no other field (or alias) uses and not the field's own; `write_alias` needs it,
/// and `read_alias` needs `write_alias`;
/// a field written only inside its keys has no attribute to alias, and the version a write
/// bumps has one attribute.
fn aliases(entity: &Entity, cx: &Ctxt) {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for field in &entity.fields {
        if let (Some(span), None) = (field.write_alias, &field.alias) {
            cx.error_at(
                span,
                format!(
                    "`write_alias` on `{}` needs `alias = \"...\"`: the old attribute that writes keep in step, \
                     `#[entity(alias = \"title\", write_alias)]`",
                    field.name
                ),
            );
        }
        if let (Some(span), None) = (field.read_alias, field.write_alias) {
            cx.error_at(
                span,
                format!(
                    "`read_alias` on `{}` needs `write_alias`: reads that prefer the alias attribute are right \
                     only while every write stores it, `#[entity(alias = \"title\", write_alias, read_alias)]`",
                    field.name
                ),
            );
        }
        let Some(lit) = &field.alias else { continue };
        let alias = lit.value();
        if alias.is_empty() {
            cx.error_spanned_by(lit, "an alias cannot be empty");
            continue;
        }
        if alias == field.attribute {
            cx.error_spanned_by(
                lit,
                format!("`{}` is stored in attribute `{alias}` already: an alias names the attribute it was stored in before a rename", field.name),
            );
            continue;
        }
        if let Some(why) = reserved(&alias).filter(|_| entity.attrs.table.is_none()) {
            cx.error_spanned_by(lit, format!("attribute `{alias}` is reserved: it holds {why}; it cannot be an alias"));
            continue;
        }
        if let Some(other) = entity.fields.iter().find(|f| f.attribute == alias) {
            cx.error_spanned_by(
                lit,
                format!(
                    "the alias `{alias}` of `{}` is the attribute of field `{}`: reads would take one field's \
                     value for the other",
                    field.name, other.name
                ),
            );
            continue;
        }
        if let Some(other) = seen.insert(alias.clone(), &field.name) {
            cx.error_spanned_by(lit, format!("`{}` and `{other}` both have the alias `{alias}`", field.name));
            continue;
        }
        if entity.key_only(&field.name) {
            cx.error_spanned_by(
                lit,
                format!(
                    "`{}` is written only inside its keys (`key_fields = \"keys\"`): it has no attribute to alias; \
                     a key's template is changed by a re-key, not by an alias",
                    field.name
                ),
            );
        } else if field.role() == Some(Maintained::Version) {
            cx.error_spanned_by(
                lit,
                format!("`{}` is the version every write bumps: it cannot have an alias", field.name),
            );
        }
    }
}

/// Rule 8: a `#[entity(unique)]` field stores one scalar value (its guard item is keyed on it),
/// so it cannot be `#[entity(serde)]` (any shape) and its type must hold one value.
fn unique_fields(entity: &Entity, cx: &Ctxt) {
    for field in &entity.fields {
        let Some(span) = field.unique else {
            continue;
        };
        if field.serde {
            cx.error_at(
                span,
                format!(
                    "`{}` cannot be both `unique` and `serde`: a guard item is keyed on one string, number, binary \
                     or bool value, and a serde field may store any shape",
                    field.name
                ),
            );
        } else if let Some(reason) = types::unique_rejection(field.ty) {
            cx.error_spanned_by(field.ty, format!("`{}` cannot be unique: {reason}", field.name));
        }
    }
}

/// Rule 9: the fields the library maintains (`version`, `created_at`, `updated_at`, `ttl`): one
/// role per field and one field per role, of the type the library writes, not `unique` or
/// `serde`, and out of the key templates whose values they would change behind the user's back.
fn maintained_fields(entity: &Entity, cx: &Ctxt) {
    let mut seen: HashMap<Maintained, &str> = HashMap::new();
    for field in &entity.fields {
        let Some(&(role, span)) = field.maintained.first() else {
            continue;
        };
        let name = &field.name;
        let key = role.key();
        for (other, other_span) in &field.maintained[1..] {
            cx.error_at(
                *other_span,
                format!(
                    "`{name}` cannot be both `#[entity({key})]` and `#[entity({})]`: each attribute the library \
                     maintains has a field of its own",
                    other.key()
                ),
            );
        }
        if let Some(first) = seen.get(&role) {
            cx.error_at(
                span,
                format!("`{name}` is a second `#[entity({key})]` field, after `{first}`; an entity has at most one"),
            );
        } else {
            seen.insert(role, name);
        }
        if field.unique.is_some() {
            let why = if role == Maintained::Ttl {
                "an expiry time does not identify an item, and a unique value is claimed by a guard item".to_owned()
            } else {
                format!(
                    "the library writes a `{key}` field itself, while a unique value is claimed by a guard item \
                     when the user sets it"
                )
            };
            cx.error_at(span, format!("`{name}` cannot be both `#[entity({key})]` and `#[entity(unique)]`: {why}"));
        }
        if field.serde {
            cx.error_at(
                span,
                format!(
                    "`{name}` cannot be both `#[entity({key})]` and `#[entity(serde)]`: the library reads and \
                     writes a `{key}` field in its own format"
                ),
            );
        }
        let ty = field.ty;
        let type_error = match role {
            Maintained::Version if types::option_inner(ty).is_some() => Some(
                "a version is always present (0 means never stored), so it is not an `Option`; use an integer \
                 such as `u64`"
                    .to_owned(),
            ),
            Maintained::Version if !types::is_integer(ty) => Some(
                "a version is an integer (`u64`, `u32`, `i64`, ...) that every write checks and increments".to_owned(),
            ),
            Maintained::CreatedAt | Maintained::UpdatedAt if !types::is_timestamp(ty) => Some(format!(
                "the library sets `{key}` to the current time, so it must be a `dynamo_entity::Timestamp`"
            )),
            Maintained::Ttl if !types::is_timestamp(types::option_inner(ty).unwrap_or(ty)) => Some(
                "DynamoDB's time to live is a number of seconds since the epoch, which the library writes from a \
                 `Timestamp` or an `Option<Timestamp>` (None: never expires)"
                    .to_owned(),
            ),
            _ => None,
        };
        if let Some(reason) = type_error {
            cx.error_spanned_by(ty, format!("`{name}` cannot be `#[entity({key})]`: {reason}"));
        }
    }
    // Key templates: a key built from a value the library changes would move under the user.
    for template in entity.templates() {
        let Some(parsed) = &template.parsed else {
            continue;
        };
        let primary = template.is_primary();
        for (name, range) in parsed.fields() {
            let Some(role) = entity.field(name).and_then(|f| f.role()) else {
                continue;
            };
            let reason = match role {
                Maintained::Version => "every write changes the version, and with it the key",
                Maintained::UpdatedAt => "every write changes it, and with it the key",
                Maintained::Ttl => {
                    "it is stored as a number of epoch seconds for DynamoDB's time to live, while keys hold text"
                }
                Maintained::CreatedAt if primary => {
                    "a create sets it to the current time, which would change the item's primary key (it may be \
                     part of a GSI key)"
                }
                Maintained::CreatedAt => continue,
            };
            let what = if primary && role == Maintained::CreatedAt { "the primary key" } else { "a key template" };
            cx.error_at(
                template::span_of(&template.attr.lit, range),
                format!("`{name}` is `#[entity({})]`, so it cannot be part of {what}: {reason}", role.key()),
            );
        }
    }
}

/// Field handles are associated constants named in SCREAMING_SNAKE_CASE; two fields must not
/// map to the same name.
fn handle_names(entity: &Entity, cx: &Ctxt) {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for field in &entity.fields {
        let constant = crate::internals::case::screaming_snake(&field.name);
        if let Some(other) = seen.insert(constant.clone(), &field.name) {
            cx.error_spanned_by(
                field.ident,
                format!(
                    "`{}` and `{other}` would both get the field handle `{}::{constant}`; rename one of them",
                    field.name, entity.ident
                ),
            );
        }
    }
}

//! Validation of the model. Every rule records its errors and the pass goes on, so the user sees
//! all mistakes at once; code is generated only when there are none.

use std::collections::HashMap;

use crate::ast::{Entity, attribute_span};
use crate::attr::{GsiAttrs, MAX_GSI, MAX_LSI, Maintained};
use crate::errors::Errors;
use crate::suggest;
use crate::template;
use crate::types::{self, KeyPartType};

/// The most placeholders a sort key may have: the runtime's typed sort-key arguments are
/// implemented for tuples of up to this many parts.
pub const MAX_SORT_KEY_PARTS: usize = 6;

pub fn check(entity: &Entity, errors: &mut Errors) {
    // Roughly in source order: the struct's attribute, then its fields.
    required_keys(entity, errors);
    entity_name(entity, errors);
    placeholders(entity, errors);
    shards(entity, errors);
    gsi_pairs(entity, errors);
    inverted(entity, errors);
    lsis(entity, errors);
    key_part_types(entity, errors);
    attributes(entity, errors);
    unique_fields(entity, errors);
    maintained_fields(entity, errors);
    handle_names(entity, errors);
}

/// Rule 1: `pk` and `sk` are required.
fn required_keys(entity: &Entity, errors: &mut Errors) {
    let a = &entity.attrs;
    let example = |key: &str| match key {
        "pk" => format!("`pk = \"{}#<id>\"`", entity.name.to_uppercase()),
        _ => "`sk = \"META\"`".to_owned(),
    };
    match (&a.pk, &a.sk) {
        (None, None) if !a.present => errors.spanned(
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
                    errors.spanned(
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
fn gsi_pairs(entity: &Entity, errors: &mut Errors) {
    for (n, GsiAttrs { pk, sk }) in &entity.attrs.gsis {
        debug_assert!((1..=MAX_GSI).contains(n));
        match (pk, sk) {
            (Some(pk), None) => {
                let constant = template::parse(&pk.lit.value())
                    .ok()
                    .and_then(|t| t.first_literal().map(str::to_owned))
                    .unwrap_or_else(|| entity.name.to_uppercase());
                errors.spanned(
                    &pk.key,
                    format!(
                        "`gsi{n}` needs a sort key template too: add `gsi{n}_sk = \"<field>\"`, or a constant such as \
                         `gsi{n}_sk = \"{constant}\"` when the index is only looked up by partition"
                    ),
                );
            }
            (None, Some(sk)) => errors.spanned(
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
fn inverted(entity: &Entity, errors: &mut Errors) {
    let (Some(flag), Some(primary)) = (&entity.attrs.inverted, &entity.primary) else {
        return;
    };
    if primary.sk.parsed.as_ref().is_some_and(|t| t.fields().next().is_none()) {
        errors.spanned(
            flag,
            format!(
                "`inverted` needs a sort key with a placeholder, such as `sk = \"{}#<other_id>\"`: the inverted index is \
                 queried by `SK`, and the constant sort key `{}` would put every `{}` (and every item of any entity \
                 with that sort key) in one partition",
                primary.sk.source().split('#').next().unwrap_or("EDGE"),
                primary.sk.source(),
                entity.ident
            ),
        );
    }
    let parts = primary.pk.field_names().len();
    if parts > MAX_SORT_KEY_PARTS {
        errors.spanned(
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
fn lsis(entity: &Entity, errors: &mut Errors) {
    for lsi in &entity.lsis {
        let Some(parsed) = &lsi.sk.parsed else { continue };
        if parsed.fields().next().is_none() && parsed.shard().is_none() {
            let n = lsi.n;
            errors.spanned(
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

fn entity_name(entity: &Entity, errors: &mut Errors) {
    if let Some(lit) = &entity.name_lit {
        if lit.value().is_empty() {
            errors.spanned(lit, "the entity name cannot be empty: it is stored in the `_type` attribute of every item");
        }
    }
}

/// Rule 3: every placeholder names a field.
fn placeholders(entity: &Entity, errors: &mut Errors) {
    let names: Vec<&str> = entity.fields.iter().map(|f| f.name.as_str()).collect();
    for (template, _) in entity.templates() {
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
            errors.at(template::span_of(&template.attr.lit, range), message);
        }
        let key = template.attr.key.to_string();
        let is_sort_key = key == "sk" || key.ends_with("_sk") || key.starts_with("lsi");
        if is_sort_key && parsed.fields().count() > MAX_SORT_KEY_PARTS {
            errors.spanned(
                &template.attr.lit,
                format!("a sort key template may have at most {MAX_SORT_KEY_PARTS} placeholders"),
            );
        }
    }
}

/// Rule 3b: a shard suffix `<shard(field, N)>` belongs in a GSI partition key, and its source
/// field must always be present and keep its value from one write to the next (the item's
/// shard is a hash of it).
fn shards(entity: &Entity, errors: &mut Errors) {
    for (template, primary) in entity.templates() {
        let Some((source, _, range, field_range)) = template.parsed.as_ref().and_then(|p| p.shard()) else {
            continue;
        };
        let key = template.attr.key.to_string();
        if primary {
            errors.at(
                template::span_of(&template.attr.lit, range),
                "a shard suffix belongs in a GSI partition key (`gsiN = \"...\"`): the primary key names one item \
                 and is built from `key()`'s arguments, so it is never sharded",
            );
            continue;
        }
        if key.starts_with("lsi") {
            errors.at(
                template::span_of(&template.attr.lit, range),
                format!(
                    "a shard suffix belongs in a GSI partition key: `{key}` is the sort key of an LSI, whose \
                     partition key is the table's `PK`"
                ),
            );
            continue;
        }
        if let Some(gsi) = key.strip_suffix("_sk") {
            errors.at(
                template::span_of(&template.attr.lit, range),
                format!(
                    "a shard suffix belongs in a GSI partition key: it spreads one partition over several, while \
                     `{key}` orders the items of one partition; move it to `{gsi}`"
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
            errors.at(
                at,
                format!(
                    "the shard source `{source}` is an Option: an item's shard is a hash of its source field, which \
                     must always be present; shard by a field such as the item's id"
                ),
            );
        } else if let Some(role @ (Maintained::Version | Maintained::UpdatedAt | Maintained::Ttl)) = field.role() {
            errors.at(
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
fn key_part_types(entity: &Entity, errors: &mut Errors) {
    for field in &entity.fields {
        let in_primary = entity.is_primary_key_field(&field.name);
        if !in_primary && !entity.is_key_field(&field.name) {
            continue;
        }
        if let KeyPartType::Rejected(reason) = types::key_part(field.ty) {
            errors.spanned(field.ty, format!("`{}` cannot be a key part: {reason}", field.name));
        } else if in_primary && types::option_inner(field.ty).is_some() {
            errors.spanned(
                field.ty,
                format!(
                    "`{}` is an Option, but primary key fields must always be present; Option fields may only \
                     appear in GSI keys (a None leaves the item out of that sparse index)",
                    field.name
                ),
            );
        }
    }
}

/// Rule 7: attribute names must be non-empty, unique and not one of the reserved key or type
/// attributes. With `#[entity(table = ...)]` the key and type attributes are the table's, which
/// this derive cannot see: `#[derive(Table)]` checks them against the fields instead.
fn attributes(entity: &Entity, errors: &mut Errors) {
    let mut seen: HashMap<&str, &str> = HashMap::new();
    for field in &entity.fields {
        let attribute = field.attribute.as_str();
        let span = attribute_span(field);
        if attribute.is_empty() {
            errors.at(span, "an attribute name cannot be empty");
            continue;
        }
        if let Some(why) = reserved(attribute).filter(|_| entity.attrs.table.is_none()) {
            let how = if field.rename.is_some() {
                "choose another name"
            } else {
                "store it under another name with `#[entity(rename = \"...\")]`"
            };
            errors.at(span, format!("attribute `{attribute}` is reserved: it holds {why}; {how}"));
            continue;
        }
        if let Some(other) = seen.insert(attribute, &field.name) {
            errors.at(span, format!("`{}` and `{other}` are both stored in attribute `{attribute}`", field.name));
        }
    }
}

/// Why an attribute name is reserved, if it is.
pub fn reserved(attribute: &str) -> Option<String> {
    match attribute {
        "PK" => return Some("the table's partition key".to_owned()),
        "SK" => return Some("the table's sort key".to_owned()),
        "_type" => return Some("the entity type name of every item".to_owned()),
        _ => {}
    }
    if let Some(n) = attribute.strip_prefix("LSI").and_then(|r| r.strip_suffix("SK")) {
        let number: u8 = n.parse().ok().filter(|v| (1..=MAX_LSI).contains(v) && !n.starts_with('0'))?;
        return Some(format!("the sort key of LSI{number}"));
    }
    let rest = attribute.strip_prefix("GSI")?;
    let (n, what) = match rest.strip_suffix("PK") {
        Some(n) => (n, "partition"),
        None => (rest.strip_suffix("SK")?, "sort"),
    };
    let number: u8 = n.parse().ok().filter(|v| (1..=MAX_GSI).contains(v) && !n.starts_with('0'))?;
    Some(format!("the {what} key of GSI{number}"))
}

/// Rule 8: a `#[entity(unique)]` field stores one scalar value (its guard item is keyed on it),
/// so it cannot be `#[entity(serde)]` (any shape) and its type must hold one value.
fn unique_fields(entity: &Entity, errors: &mut Errors) {
    for field in &entity.fields {
        let Some(span) = field.unique else {
            continue;
        };
        if field.serde {
            errors.at(
                span,
                format!(
                    "`{}` cannot be both `unique` and `serde`: a guard item is keyed on one string, number, binary \
                     or bool value, and a serde field may store any shape",
                    field.name
                ),
            );
        } else if let Some(reason) = types::unique_rejection(field.ty) {
            errors.spanned(field.ty, format!("`{}` cannot be unique: {reason}", field.name));
        }
    }
}

/// Rule 9: the fields the library maintains (`version`, `created_at`, `updated_at`, `ttl`): one
/// role per field and one field per role, of the type the library writes, not `unique` or
/// `serde`, and out of the key templates whose values they would change behind the user's back.
fn maintained_fields(entity: &Entity, errors: &mut Errors) {
    let mut seen: HashMap<Maintained, &str> = HashMap::new();
    for field in &entity.fields {
        let Some(&(role, span)) = field.maintained.first() else {
            continue;
        };
        let name = &field.name;
        let key = role.key();
        for (other, other_span) in &field.maintained[1..] {
            errors.at(
                *other_span,
                format!(
                    "`{name}` cannot be both `#[entity({key})]` and `#[entity({})]`: each attribute the library \
                     maintains has a field of its own",
                    other.key()
                ),
            );
        }
        if let Some(first) = seen.get(&role) {
            errors.at(
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
            errors.at(span, format!("`{name}` cannot be both `#[entity({key})]` and `#[entity(unique)]`: {why}"));
        }
        if field.serde {
            errors.at(
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
            errors.spanned(ty, format!("`{name}` cannot be `#[entity({key})]`: {reason}"));
        }
    }
    // Key templates: a key built from a value the library changes would move under the user.
    for (template, primary) in entity.templates() {
        let Some(parsed) = &template.parsed else {
            continue;
        };
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
            errors.at(
                template::span_of(&template.attr.lit, range),
                format!("`{name}` is `#[entity({})]`, so it cannot be part of {what}: {reason}", role.key()),
            );
        }
    }
}

/// Field handles are associated constants named in SCREAMING_SNAKE_CASE; two fields must not
/// map to the same name.
fn handle_names(entity: &Entity, errors: &mut Errors) {
    let mut seen: HashMap<String, &str> = HashMap::new();
    for field in &entity.fields {
        let constant = crate::case::screaming_snake(&field.name);
        if let Some(other) = seen.insert(constant.clone(), &field.name) {
            errors.spanned(
                field.ident,
                format!(
                    "`{}` and `{other}` would both get the field handle `{}::{constant}`; rename one of them",
                    field.name, entity.ident
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::reserved;

    #[test]
    fn reserved_attributes() {
        for a in ["PK", "SK", "_type", "GSI1PK", "GSI1SK", "GSI20PK", "GSI20SK", "GSI9SK", "LSI1SK", "LSI5SK"] {
            assert!(reserved(a).is_some(), "{a}");
        }
        for a in
            ["pk", "sk", "type", "GSI21PK", "GSI0PK", "GSI01PK", "GSIPK", "GSI1", "GSI1XK", "title", "LSI6SK", "LSI1PK"]
        {
            assert!(reserved(a).is_none(), "{a}");
        }
    }
}

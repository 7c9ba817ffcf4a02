//! Key parsing: `Template::parse` on every key template of the Skill Exchange entities (one to
//! three parts, string and number keys), `KeyPart::parse_part` of every key part type, `unescape`, guard
//! keys, timestamps, stream event names and DynamoDB number text. Nothing may panic, and:
//! - a key that parses is written back byte for byte by `KeyWriter` from its parts;
//! - parts written by `KeyWriter` parse back to the same parts (no two part tuples share a key);
//! - a part that parses as a type is written back as the same value, and in the composite form
//!   as the same (escaped) text (one encoding per value keeps string order equal to value order);
//! - a guard key gives back the entity, attribute and value it was made of.
#![no_main]

use std::sync::LazyLock;

use arbitrary::Arbitrary;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::__private::{KeyContext, KeyWriter};
use dynamo_entity::Timestamp;
use dynamo_entity::key::{self, KeyPart, KeyType, PartForm, Segment, Template};
use dynamo_entity::stream::ChangeKind;
use dynamo_entity::value::parse_integer;
use dynamo_entity_examples::skill_exchange::{self, BadgeType, SkillId, SkillStatus, UserId};
use libfuzzer_sys::fuzz_target;

static TEMPLATES: LazyLock<Vec<&'static Template>> = LazyLock::new(|| {
    let mut all: Vec<&'static Template> = Vec::new();
    for schema in skill_exchange::schemas() {
        for index in std::iter::once(&schema.primary).chain(schema.gsis) {
            all.extend([index.pk, index.sk]);
        }
    }
    all
});

#[derive(Debug, Arbitrary)]
struct Input {
    template: u8,
    key: String,
    parts: Vec<String>,
}

/// `text` parsed as `T` in `form`: when it parses, it is written back (the composite form to
/// the same text) and parses again to the same value.
fn part<T: KeyPart + PartialEq + std::fmt::Debug>(text: &str, form: PartForm) {
    // Only numeric parts fill a number key.
    if form == PartForm::Number && !T::NUMERIC {
        return;
    }
    let Ok(value) = T::parse_part(text, form) else { return };
    let mut out = String::new();
    match value.write_part(&mut out, form) {
        Ok(true) => {}
        // A number DynamoDB cannot hold (over 38 digits) parses as u128 / i128 text but is not
        // written: a typed error, not a panic.
        Err(_) if form == PartForm::Number => return,
        other => panic!("{} parsed from {text:?} but writes as {other:?}", std::any::type_name::<T>()),
    }
    if form == PartForm::Composite {
        let mut escaped = String::new();
        key::escape_into(text, &mut escaped);
        assert_eq!(out, escaped, "{} has two encodings", std::any::type_name::<T>());
    }
    // What was written is the escaped part; parsing takes it unescaped.
    let raw = key::unescape(&out).unwrap_or_else(|| panic!("{out:?} written with a malformed escape"));
    assert_eq!(
        T::parse_part(&raw, form).ok(),
        Some(value),
        "{} changed through write/parse",
        std::any::type_name::<T>()
    );
}

fn every_type(text: &str, form: PartForm) {
    part::<u8>(text, form);
    part::<u16>(text, form);
    part::<u32>(text, form);
    part::<u64>(text, form);
    part::<u128>(text, form);
    part::<i8>(text, form);
    part::<i16>(text, form);
    part::<i32>(text, form);
    part::<i64>(text, form);
    part::<i128>(text, form);
    part::<bool>(text, form);
    part::<String>(text, form);
    part::<Timestamp>(text, form);
    part::<UserId>(text, form);
    part::<SkillId>(text, form);
    part::<SkillStatus>(text, form);
    part::<BadgeType>(text, form);
}

fn writer(template: &'static Template) -> KeyWriter {
    KeyWriter::new(KeyContext { entity: "Fuzz", attribute: "PK", template, max_bytes: 1 << 20 })
}

fn write(template: &'static Template, parts: &[&str]) -> Result<AttributeValue, key::KeyError> {
    let mut w = writer(template);
    for p in parts {
        w.part(*p)?;
    }
    w.finish()
}

fuzz_target!(|input: Input| {
    let template = TEMPLATES[usize::from(input.template) % TEMPLATES.len()];
    let form = if template.key_type == KeyType::N { PartForm::Number } else { PartForm::Composite };

    // Templates of literals and plain placeholders round-trip through `KeyWriter::part`; a
    // sharded template (`<shard(id, 8)>`) is only parsed here (its shard segment is written from
    // a hash of the source field, not from the text).
    let plain = template.segments.iter().all(|s| matches!(s, Segment::Literal(_) | Segment::Field(_)));
    let parsed = template.parse(&input.key);
    if !plain {
        return;
    }

    // Parse, then write back.
    if let Ok(parts) = parsed {
        assert_eq!(parts.len(), template.field_count());
        for p in &parts {
            every_type(p, form);
        }
        if template.key_type == KeyType::S {
            let parts: Vec<&str> = parts.iter().map(|p| p.as_ref()).collect();
            match write(template, &parts) {
                Ok(AttributeValue::S(key)) => assert_eq!(key, input.key, "{} parse/write", template.source),
                other => panic!("{} parsed {:?} from {:?} but writes {other:?}", template.source, parts, input.key),
            }
        }
    }

    // Write, then parse back.
    if template.key_type == KeyType::S && input.parts.len() >= template.field_count() {
        let parts: Vec<&str> = input.parts[..template.field_count()].iter().map(String::as_str).collect();
        if let Ok(AttributeValue::S(key)) = write(template, &parts) {
            let back = template.parse(&key).unwrap_or_else(|e| panic!("written key does not parse: {e}"));
            assert_eq!(back, parts, "{} write/parse of {key:?}", template.source);
        }
    }

    // The pieces on their own.
    every_type(&input.key, PartForm::Composite);
    every_type(&input.key, PartForm::Number);
    if let Some(raw) = key::unescape(&input.key)
        && !input.key.contains(key::DELIMITER)
    {
        let mut again = String::new();
        key::escape_into(&raw, &mut again);
        assert_eq!(again, input.key, "escape(unescape(x)) != x");
    }
    let mut escaped = String::new();
    key::escape_into(&input.key, &mut escaped);
    assert!(!escaped.contains(key::DELIMITER));
    assert_eq!(key::unescape(&escaped).as_deref(), Some(input.key.as_str()), "unescape(escape(x)) != x");

    // Unique guard keys.
    let _ = dynamo_entity::__private::parse_guard_key(&input.key);
    if let Ok(Some(guard)) =
        dynamo_entity::__private::guard_key("User", "email", Some(&AttributeValue::S(input.key.clone())))
    {
        let AttributeValue::S(pk) = &guard.pk else { panic!("guard key {guard} is not a string") };
        assert_eq!(
            dynamo_entity::__private::parse_guard_key(pk),
            Some(("User".to_owned(), "email".to_owned(), input.key.clone())),
            "guard key {pk:?}"
        );
    }

    // Timestamps, event names and number text.
    if let Ok(t) = Timestamp::parse(&input.key) {
        assert_eq!(Timestamp::parse(&t.to_string()), Ok(t));
    }
    let _ = ChangeKind::parse(&input.key);
    if let Some(v) = parse_integer::<i128>(&input.key) {
        assert_eq!(parse_integer::<i128>(&v.to_string()), Some(v));
    }
    if let Some(v) = parse_integer::<u64>(&input.key) {
        assert_eq!(parse_integer::<u64>(&v.to_string()), Some(v));
    }
});

//! Entities and templates the unit tests of the table checks share: `tpl!` builds a template
//! from its segments (`"<id>"` a placeholder), [`entity`] a schema from its primary key.

use crate::key::{PartShape, Segment, Template};
use crate::schema::check::failed_schema;
use crate::schema::{EntitySchema, FieldSchema, Index, IndexSchema};

pub(crate) const fn seg(s: &'static str) -> Segment {
    let b = s.as_bytes();
    if b[0] == b'<' {
        // `<name>`: the placeholder's name, without the brackets.
        let (_, rest) = s.split_at(1);
        let (name, _) = rest.split_at(rest.len() - 1);
        Segment::Field(name)
    } else {
        Segment::Literal(s)
    }
}

macro_rules! tpl {
    ($ty:ident; $($s:literal),+) => {{
        const T: $crate::key::Template = $crate::key::Template {
            source: concat!($($s, "#"),+),
            segments: &[$($crate::schema::check::fixtures::seg($s)),+],
            key_type: $crate::key::KeyType::$ty,
            cardinality: $crate::key::Cardinality::High,
            style: $crate::key::KeyStyle::DEFAULT,
        };
        &T
    }};
    ($($s:literal),+) => { $crate::schema::check::fixtures::tpl!(S; $($s),+) };
}
pub(crate) use tpl;

pub(crate) const fn entity(name: &'static str, pk: &'static Template, sk: &'static Template) -> EntitySchema {
    let mut s = failed_schema(name);
    s.primary = IndexSchema { index: Index::Primary, pk, sk };
    s
}

pub(crate) const USER: EntitySchema = entity("User", tpl!("USER", "<id>"), tpl!("PROFILE"));

pub(crate) const PROFILE: EntitySchema = entity("Profile", tpl!("USER", "<user_id>"), tpl!("PROFILE"));

pub(crate) const BADGE: EntitySchema = entity("Badge", tpl!("USER", "<user_id>"), tpl!("BADGE", "<badge>"));

pub(crate) const ANY_SK: EntitySchema = entity("Note", tpl!("USER", "<user_id>"), tpl!("<note>"));

pub(crate) const ORDER: EntitySchema = entity("Order", tpl!("USER", "<id>"), tpl!("ORDER", "<n>"));

pub(crate) const ORDER_LINE: EntitySchema = entity("Line", tpl!("USER", "<id>"), tpl!("ORDER", "<n>", "LINE", "<m>"));

pub(crate) const ORDERS: EntitySchema = entity("Orders", tpl!("USER", "<id>"), tpl!("ORDERS", "<n>", "X"));

pub(crate) const SKILL: EntitySchema = entity("Skill", tpl!("SKILL", "<id>"), tpl!("PROFILE"));

/// A field of `shape`, for the shape-aware comparisons.
pub(crate) const fn shaped(field: &'static str, shape: PartShape) -> FieldSchema {
    FieldSchema { shape, ..FieldSchema::new(field, field) }
}

pub(crate) const U64: PartShape = PartShape::Digits { width: 20, signed: false };

pub(crate) const U32: PartShape = PartShape::Digits { width: 10, signed: false };

pub(crate) const fn with_fields(mut s: EntitySchema, fields: &'static [FieldSchema]) -> EntitySchema {
    s.fields = fields;
    s
}

pub(crate) const VERSION: EntitySchema =
    with_fields(entity("Version", tpl!("DOC", "<id>"), tpl!("V", "<version>")), &[shaped("version", U64)]);
pub(crate) const LATEST: EntitySchema = entity("Latest", tpl!("DOC", "<id>"), tpl!("V", "LATEST"));

pub(crate) const NAMED: EntitySchema = entity("Named", tpl!("DOC", "<id>"), tpl!("V", "<name>"));

pub(crate) const SMALL: EntitySchema =
    with_fields(entity("Small", tpl!("DOC", "<id>"), tpl!("V", "<n>")), &[shaped("n", U32)]);
pub(crate) const DIGITS: EntitySchema = entity("Digits", tpl!("DOC", "<id>"), tpl!("V", "00000000000000000007"));

pub(crate) const STATUS: EntitySchema = with_fields(
    entity("Status", tpl!("DOC", "<id>"), tpl!("V", "<status>")),
    &[shaped("status", PartShape::OneOf(&["draft", "live"]))],
);

pub(crate) const AT: EntitySchema =
    with_fields(entity("At", tpl!("DOC", "<id>"), tpl!("V", "<at>")), &[shaped("at", PartShape::UtcTime)]);

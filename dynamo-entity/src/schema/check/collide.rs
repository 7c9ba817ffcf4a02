//! No shared primary keys: whether two entities can produce the same primary key, compared
//! segment by segment with their placeholders unified ([`Unifier`]).

use crate::schema::EntitySchema;
use crate::schema::check::{Unifier, is_checked, key_types_differ};

/// The position of the first entity before `entities[later]` that can produce the same
/// primary key ([`keys_collide`]), `usize::MAX` when none can. A collision is reported against
/// this entity only, so each entity gives at most one error.
pub const fn first_collider(entities: &[&EntitySchema], later: usize) -> usize {
    let mut i = 0;
    while i < later {
        if keys_collide(entities[i], entities[later]) {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// Whether entities `a` and `b` can produce the same primary key: their partition key
/// templates and their sort key templates have the same number of segments and the same key
/// type, and some values of the placeholders make them equal at once (see the module docs).
///
/// ```
/// use dynamo_entity::__private::{failed_schema, keys_collide};
/// // A schema without templates is never reported.
/// assert!(!keys_collide(&failed_schema("A"), &failed_schema("B")));
/// ```
pub const fn keys_collide(a: &EntitySchema, b: &EntitySchema) -> bool {
    // Keys of other delimiters are not compared segment by segment: `delimiters_differ` is
    // the error then.
    if !is_checked(a) || !is_checked(b) || delimiters_differ(a, b) {
        return false;
    }
    let (apk, ask, bpk, bsk) = (a.primary.pk, a.primary.sk, b.primary.pk, b.primary.sk);
    if apk.segments.len() != bpk.segments.len() || ask.segments.len() != bsk.segments.len() {
        return false;
    }
    if key_types_differ(Some(apk.key_type), Some(bpk.key_type))
        || key_types_differ(Some(ask.key_type), Some(bsk.key_type))
    {
        return false;
    }
    let mut u = Unifier::new(a, b);
    u.templates(apk, bpk, apk.segments.len()) && u.templates(ask, bsk, ask.segments.len()) && !u.overflow
}

/// Whether entities `a` and `b` delimit the segments of their keys with different characters
/// (`#[entity(delimiter = "|")]`, [`KeyStyle::delimiter`](crate::key::KeyStyle::delimiter)).
/// The entities of one table share one delimiter: the collision checks compare keys segment by
/// segment, which keys split at different characters do not allow.
pub const fn delimiters_differ(a: &EntitySchema, b: &EntitySchema) -> bool {
    is_checked(a) && is_checked(b) && a.primary.pk.style.delimiter != b.primary.pk.style.delimiter
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::key::{PartShape, Segment, Template};
    use crate::schema::FieldSchema;
    use crate::schema::check::fixtures::*;
    use crate::schema::check::*;

    #[test]
    fn same_shape_and_literals_collide() {
        assert!(keys_collide(&USER, &PROFILE));
        assert!(keys_collide(&PROFILE, &USER));
        // A placeholder can equal any literal segment.
        assert!(keys_collide(&USER, &ANY_SK));
    }

    #[test]
    fn different_literals_or_segment_counts_do_not_collide() {
        assert!(!keys_collide(&USER, &SKILL));
        assert!(!keys_collide(&USER, &BADGE));
        assert!(!keys_collide(&ORDER, &ORDER_LINE));
        assert!(!keys_collide(&USER, &failed_schema("User")));
    }

    #[test]
    fn a_field_used_twice_must_take_one_value() {
        // X#<a> / Y#<a> against X#1 / Y#2: <a> cannot be both.
        const A: EntitySchema = entity("A", tpl!("X", "<a>"), tpl!("Y", "<a>"));
        const B: EntitySchema = entity("B", tpl!("X", "1"), tpl!("Y", "2"));
        const C: EntitySchema = entity("C", tpl!("X", "1"), tpl!("Y", "1"));
        const D: EntitySchema = entity("D", tpl!("<p>", "<q>"), tpl!("<q>", "<p>"));
        assert!(!keys_collide(&A, &B));
        assert!(keys_collide(&A, &C));
        // D: p = X and q = <a> for the partition, then q = Y and <a> = p = X: <a> cannot be
        // both X and Y.
        assert!(!keys_collide(&A, &D));
        const D2: EntitySchema = entity("D2", tpl!("<p>", "<q>"), tpl!("Y", "<q>"));
        assert!(keys_collide(&A, &D2));
        const E: EntitySchema = entity("E", tpl!("<p>", "Z"), tpl!("<p>", "<q>"));
        // E: p = X and Z = <a> for the partition, then p = Y for the sort key: impossible.
        assert!(!keys_collide(&A, &E));
    }

    #[test]
    fn key_types_must_match_to_collide() {
        const N: EntitySchema = entity("N", tpl!("USER", "<id>"), tpl!(N; "<n>"));
        const S: EntitySchema = entity("S", tpl!("USER", "<id>"), tpl!("<s>"));
        const M: EntitySchema = entity("M", tpl!("USER", "<uid>"), tpl!(N; "<m>"));
        assert!(!keys_collide(&N, &S));
        assert!(keys_collide(&N, &M));
    }

    #[test]
    fn each_entity_is_reported_against_its_first_collider() {
        let all = [&USER, &BADGE, &PROFILE, &ANY_SK];
        assert_eq!(first_collider(&all, 0), usize::MAX);
        assert_eq!(first_collider(&all, 1), usize::MAX);
        assert_eq!(first_collider(&all, 2), 0);
        assert_eq!(first_collider(&all, 3), 0);
        let named = [&USER, &PROFILE, &entity("User", tpl!("U"), tpl!("V"))];
        assert_eq!(first_same_name(&named, 1), usize::MAX);
        assert_eq!(first_same_name(&named, 2), 0);
    }

    #[test]
    fn a_part_collides_only_with_what_it_can_write() {
        // `V#<version>` (u64: 20 digits) never writes `V#LATEST`; a `String` part can.
        assert!(!keys_collide(&VERSION, &LATEST) && !keys_collide(&LATEST, &VERSION));
        assert!(keys_collide(&NAMED, &LATEST));
        // 20 digits are a version; a u32's 10 digits never are; any text may be.
        assert!(keys_collide(&VERSION, &DIGITS));
        assert!(!keys_collide(&VERSION, &SMALL));
        assert!(keys_collide(&VERSION, &NAMED) && keys_collide(&SMALL, &NAMED));
        // Enum variants and timestamps: only their own texts.
        assert!(!keys_collide(&STATUS, &LATEST) && !keys_collide(&STATUS, &VERSION));
        assert!(keys_collide(&STATUS, &entity("Live", tpl!("DOC", "<id>"), tpl!("V", "live"))));
        assert!(!keys_collide(&AT, &LATEST) && !keys_collide(&AT, &VERSION) && keys_collide(&AT, &NAMED));
        assert!(keys_collide(&AT, &entity("Epoch", tpl!("DOC", "<id>"), tpl!("V", "1970-01-01T00:00:00.000Z"))));
        // Two placeholders equal through the partition key keep the narrower shape.
        const VERSION_FIELD: &[FieldSchema] = &[shaped("version", U64)];
        let by_version = with_fields(entity("ByVersion", tpl!("DOC", "<version>"), tpl!("X")), VERSION_FIELD);
        let by_name = entity("ByName", tpl!("DOC", "<name>"), tpl!("X"));
        let literal = entity("Lit", tpl!("DOC", "LATEST"), tpl!("X"));
        assert!(keys_collide(&by_version, &by_name) && !keys_collide(&by_version, &literal));
    }

    /// A one-segment sort key of `segment`, for `DOC#<id>` entities.
    const fn sk(segment: &'static [Segment]) -> Template {
        Template { source: "", segments: segment, ..*tpl!("X") }
    }
    const V_PART: Template = sk(&[Segment::Part { prefix: "v", field: "version", suffix: "", raw: false }]);
    const V_RAW: Template = sk(&[Segment::Part { prefix: "v", field: "version", suffix: "", raw: true }]);
    const V_SUFFIXED: Template = sk(&[Segment::Part { prefix: "v", field: "version", suffix: "x", raw: false }]);

    /// An entity `DOC#<id>` / `sk` with `fields`.
    const fn doc(name: &'static str, sk: &'static Template, fields: &'static [FieldSchema]) -> EntitySchema {
        with_fields(entity(name, tpl!("DOC", "<id>"), sk), fields)
    }

    #[test]
    fn an_affixed_part_collides_only_with_literals_it_can_write() {
        // AWS's version layout: `v0` (the latest) beside `v<version>` (a u64: `v` and 20 digits).
        const U64_FIELD: &[FieldSchema] = &[shaped("version", U64)];
        const ENUM_FIELD: &[FieldSchema] = &[shaped("version", PartShape::OneOf(&["0", "draft"]))];
        const DATE_FIELD: &[FieldSchema] = &[shaped("version", PartShape::UtcDate)];
        const I8_FIELD: &[FieldSchema] = &[shaped("version", PartShape::Digits { width: 3, signed: true })];
        let version = doc("Version", &V_PART, U64_FIELD);
        let latest = doc("Latest", tpl!("v0"), &[]);
        assert!(!keys_collide(&version, &latest) && !keys_collide(&latest, &version));
        // A literal of the part's form is one of its keys.
        let seventh = doc("Seventh", tpl!("v00000000000000000007"), &[]);
        assert!(keys_collide(&version, &seventh) && keys_collide(&seventh, &version));
        // A `String` part writes `0`; an enum only its variants; a date only its form.
        assert!(keys_collide(&doc("Named", &V_PART, &[]), &latest));
        assert!(keys_collide(&doc("Status", &V_PART, ENUM_FIELD), &latest));
        assert!(!keys_collide(&doc("Day", &V_PART, DATE_FIELD), &latest));
        assert!(keys_collide(&doc("Day", &V_PART, DATE_FIELD), &doc("Epoch", tpl!("v1970-01-01"), &[])));
        // Both affixes must match, and leave a value between them.
        assert!(!keys_collide(&doc("Suffixed", &V_SUFFIXED, &[]), &latest));
        assert!(keys_collide(&doc("Suffixed", &V_SUFFIXED, &[]), &doc("Tail", tpl!("v0x"), &[])));
        assert!(!keys_collide(&doc("Named", &V_PART, &[]), &doc("Bare", tpl!("v"), &[])));
        // `v<version:raw>` writes 1 to 20 digits: `v0` is version 0; only a signed type writes `-`.
        assert!(keys_collide(&doc("Raw", &V_RAW, U64_FIELD), &latest));
        let minus = doc("Minus", tpl!("v-12"), &[]);
        assert!(keys_collide(&doc("Signed", &V_RAW, I8_FIELD), &minus));
        assert!(!keys_collide(&doc("Raw", &V_RAW, U64_FIELD), &minus));
        assert!(!keys_collide(&doc("Signed", &V_RAW, I8_FIELD), &doc("Long", tpl!("v1234"), &[])));
    }

    #[test]
    fn numbers_raw_parts_and_folded_texts_collide_as_they_are_stored() {
        // A number sort key holds its integer in plain decimal: a `u64` and a `u32` both write `5`.
        const SEQ: &[FieldSchema] = &[shaped("seq", U64)];
        const N: &[FieldSchema] = &[shaped("n", U32)];
        const ON: &[FieldSchema] = &[shaped("on", PartShape::OneOf(&["true", "false"]))];
        const AT_FIELD: &[FieldSchema] = &[shaped("at", PartShape::UtcTime)];
        let big = with_fields(entity("Big", tpl!("A", "<id>"), tpl!(N; "<seq>")), SEQ);
        let small = with_fields(entity("Small", tpl!("A", "<id>"), tpl!(N; "<n>")), N);
        assert!(keys_collide(&big, &small) && keys_collide(&small, &big));
        // `<n:raw>` is unpadded: no width tells a `u64` from a `u32`.
        const RAW_SEQ: Template = Template {
            source: "L#<seq:raw>",
            segments: &[Segment::Literal("L"), Segment::Part { prefix: "", field: "seq", suffix: "", raw: true }],
            ..*tpl!("L", "<seq>")
        };
        const RAW_N: Template = Template {
            source: "L#<n:raw>",
            segments: &[Segment::Literal("L"), Segment::Part { prefix: "", field: "n", suffix: "", raw: true }],
            ..*tpl!("L", "<n>")
        };
        let raw_big = with_fields(entity("RawBig", tpl!("A", "<id>"), &RAW_SEQ), SEQ);
        let raw_small = with_fields(entity("RawSmall", tpl!("A", "<id>"), &RAW_N), N);
        assert!(keys_collide(&raw_big, &raw_small));
        // In an uppercased key, a `bool` writes `TRUE`; a timestamp still never writes `META`.
        const UPPER: crate::key::KeyStyle =
            crate::key::KeyStyle { case: crate::key::KeyCase::Upper, ..crate::key::KeyStyle::DEFAULT };
        const FLAG_SK: Template = Template { style: UPPER, ..*tpl!("<on>") };
        const YES_SK: Template = Template { style: UPPER, ..*tpl!("TRUE") };
        const AT_SK: Template = Template { style: UPPER, ..*tpl!("<at>") };
        const META_SK: Template = Template { style: UPPER, ..*tpl!("META") };
        const PK: Template = Template { style: UPPER, ..*tpl!("F", "<id>") };
        let flag = with_fields(entity("Flag", &PK, &FLAG_SK), ON);
        let yes = entity("Yes", &PK, &YES_SK);
        assert!(keys_collide(&flag, &yes) && keys_collide(&yes, &flag));
        let at = with_fields(entity("At", &PK, &AT_SK), AT_FIELD);
        assert!(!keys_collide(&at, &entity("Meta", &PK, &META_SK)));
        // Kept case: `TRUE` is no `bool`.
        let kept = with_fields(entity("Kept", tpl!("F", "<id>"), tpl!("<on>")), ON);
        assert!(!keys_collide(&kept, &entity("Upper", tpl!("F", "<id>"), tpl!("TRUE"))));
    }

    // The checks run in constant evaluation.
    const _: () = assert!(!keys_collide(&VERSION, &LATEST));
    const _: () = assert!(keys_collide(&USER, &PROFILE));
    const _: () = assert!(!keys_collide(&USER, &BADGE));
}

//! No prefix collisions: whether the `begins_with` (or narrowed `BETWEEN`) condition of one
//! entity's query reads another entity's items in a shared partition.

use crate::key::{KeyType, PartShape, Segment, Template};
use crate::schema::check::{Unifier, delimiters_differ, is_checked, key_types_differ, queried, shape_of, templates};
use crate::schema::{EntitySchema, Index};

/// The number of literal segments before the first placeholder of `t`, when the query of an
/// entity with sort key `t` adds `begins_with` on them by default: `t` is a string key that
/// starts with literal text and has a placeholder (a constant sort key uses `=` instead, and a
/// sort key that starts with a placeholder reads the whole partition).
pub const fn begins_with_segments(t: &Template) -> Option<usize> {
    if !matches!(t.key_type, KeyType::S) {
        return None;
    }
    let mut k = 0;
    while k < t.segments.len() {
        if !matches!(t.segments[k], Segment::Literal(_)) {
            return if k == 0 { None } else { Some(k) };
        }
        k += 1;
    }
    None
}

/// The field after the literal prefix of `t` (at segment `k`, see
/// [`begins_with_segments`]) when its part has a fixed form of digits
/// ([`PartShape::is_fixed_form`]) in `s`: then the default query of `t` reads
/// `BETWEEN prefix + form with 0s AND prefix + form with 9s + the character after the
/// delimiter` (`$` after `#`, `}` after `|`, so children such as `V#<version>#COMMENT#<id>`
/// are still inside), not
/// `begins_with(prefix)`. A template whose key case is folded reads with `begins_with` (a
/// folded `T` of a timestamp would leave the form).
pub const fn narrowed_segment(s: &EntitySchema, t: &Template, k: usize) -> Option<&'static str> {
    if k >= t.segments.len() || !matches!(t.key_type, KeyType::S) {
        return None;
    }
    let Segment::Field(f) = t.segments[k] else { return None };
    let shape = shape_of(s, f);
    let case_kept = matches!(t.style.case, crate::key::KeyCase::AsIs);
    let digits_only = matches!(shape, PartShape::Digits { .. });
    if shape.is_fixed_form() && (case_kept || digits_only) { Some(f) } else { None }
}

/// Whether segment `seg` of a key of `s` may start with an ASCII digit (or `-`).
const fn segment_may_start_with_digit(s: &EntitySchema, seg: Segment) -> bool {
    match seg {
        Segment::Literal(l) => {
            let b = l.as_bytes();
            !b.is_empty() && (b[0].is_ascii_digit() || b[0] == b'-')
        }
        Segment::Field(f) => shape_of(s, f).may_start_with_digit(),
        Segment::Part { prefix, field, .. } => {
            let b = prefix.as_bytes();
            if b.is_empty() { shape_of(s, field).may_start_with_digit() } else { b[0].is_ascii_digit() || b[0] == b'-' }
        }
        Segment::Shard { .. } => true,
    }
}

/// Whether the query of entity `a` on `index`, with the `begins_with` condition it adds by
/// default (the literal prefix of its sort key template, such as `REVIEW#`), can return items
/// of entity `b`: both can share a partition of `index` and some sort key of `b` starts with
/// that prefix, delimiter included (so `REVIEW#` matches `REVIEW#<x>#…` but not `REVIEWS#…` or
/// a one-segment `REVIEW`).
pub const fn prefix_reads(a: &EntitySchema, b: &EntitySchema, index: Index) -> bool {
    if !is_checked(a) || !is_checked(b) || delimiters_differ(a, b) {
        return false;
    }
    let (Some((apk, ask)), Some((bpk, bsk))) = (queried(a, index), templates(b, index)) else {
        return false;
    };
    let Some(k) = begins_with_segments(ask) else { return false };
    // `b`'s sort key must have more segments than the prefix and be a string.
    if bsk.segments.len() <= k || !matches!(bsk.key_type, KeyType::S) {
        return false;
    }
    if apk.segments.len() != bpk.segments.len() || key_types_differ(Some(apk.key_type), Some(bpk.key_type)) {
        return false;
    }
    // A narrowed query (`BETWEEN`, see `narrowed_segment`) reads only sort keys whose segment
    // after the prefix starts with a digit.
    if narrowed_segment(a, ask, k).is_some() && !segment_may_start_with_digit(b, bsk.segments[k]) {
        return false;
    }
    let mut u = Unifier::new(a, b);
    // The sort keys of the primary index also bind fields that the partition key shares.
    u.templates(apk, bpk, apk.segments.len()) && u.templates(ask, bsk, k) && !u.overflow
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::FieldSchema;
    use crate::schema::check::fixtures::*;
    use crate::schema::check::*;

    #[test]
    fn begins_with_prefixes() {
        assert_eq!(begins_with_segments(ORDER.primary.sk), Some(1));
        assert_eq!(begins_with_segments(USER.primary.sk), None);
        assert_eq!(begins_with_segments(ANY_SK.primary.sk), None);
        assert_eq!(begins_with_segments(tpl!("A", "B", "<c>")), Some(2));
        assert_eq!(begins_with_segments(tpl!(N; "<c>")), None);
    }

    #[test]
    fn a_prefix_query_reads_longer_keys_with_the_same_prefix() {
        // Order::query adds begins_with(SK, "ORDER#"), which matches ORDER#<n>#LINE#<m>.
        assert!(prefix_reads(&ORDER, &ORDER_LINE, Index::Primary));
        // The line's query (ORDER#) reads orders? An order has two segments, the prefix one
        // literal segment: ORDER#<n> starts with ORDER#.
        assert!(prefix_reads(&ORDER_LINE, &ORDER, Index::Primary));
        // ORDERS# is another literal: never.
        assert!(!prefix_reads(&ORDER, &ORDERS, Index::Primary));
        assert!(!prefix_reads(&ORDERS, &ORDER, Index::Primary));
        // A one-segment PROFILE never starts with BADGE#, and a constant sort key uses `=`.
        assert!(!prefix_reads(&BADGE, &USER, Index::Primary));
        assert!(!prefix_reads(&USER, &BADGE, Index::Primary));
        // A sort key that starts with a placeholder can hold BADGE#…? It has one segment: no.
        assert!(!prefix_reads(&BADGE, &ANY_SK, Index::Primary));
        // Another partition: SKILL#… never shares one with USER#….
        const SKILL_ORDER: EntitySchema = entity("SO", tpl!("SKILL", "<id>"), tpl!("ORDER", "<n>", "<m>"));
        assert!(!prefix_reads(&ORDER, &SKILL_ORDER, Index::Primary));
    }

    #[test]
    fn a_parents_prefix_still_reads_its_children() {
        // `V#<version>#COMMENT#<id>` under `V#<version>`: the version's `begins_with(SK, "V#")`
        // reads the comments (a hierarchy the table declaration must opt into).
        const VERSION_FIELD: &[FieldSchema] = &[shaped("version", U64)];
        let comment = with_fields(
            entity("Comment", tpl!("DOC", "<id>"), tpl!("V", "<version>", "COMMENT", "<cid>")),
            VERSION_FIELD,
        );
        assert!(prefix_reads(&VERSION, &comment, Index::Primary));
        assert!(!keys_collide(&VERSION, &comment));
        // The version's query is narrowed to `BETWEEN "V#000…0" AND "V#999…9$"`: the constant
        // `V#LATEST` is outside it, and so are sort keys of parts that never start with a digit.
        assert_eq!(narrowed_segment(&VERSION, VERSION.primary.sk, 1), Some("version"));
        assert!(!prefix_reads(&VERSION, &LATEST, Index::Primary));
        assert!(!prefix_reads(&VERSION, &STATUS, Index::Primary));
        // A `String` part, or a literal starting with a digit, may fall inside the range.
        assert!(prefix_reads(&VERSION, &NAMED, Index::Primary) && prefix_reads(&VERSION, &DIGITS, Index::Primary));
        assert!(!prefix_reads(&AT, &LATEST, Index::Primary) && prefix_reads(&AT, &NAMED, Index::Primary));
        // A `String` placeholder is not narrowed: its `begins_with` reads `V#LATEST`.
        assert_eq!(narrowed_segment(&NAMED, NAMED.primary.sk, 1), None);
        assert!(prefix_reads(&NAMED, &LATEST, Index::Primary));
    }
}

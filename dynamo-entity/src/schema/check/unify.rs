//! Placeholders of two entities unified segment by segment ([`Unifier`]): the machinery of the
//! collision and prefix checks, with the constant-evaluation text helpers it needs.

use crate::key::{KeyType, PartShape, Segment, Template};
use crate::schema::EntitySchema;
use crate::schema::check::{MAX_VARS, str_eq};

/// Whether `s` starts with `p` (constant evaluation).
const fn starts_with(s: &str, p: &str) -> bool {
    let (s, p) = (s.as_bytes(), p.as_bytes());
    if p.len() > s.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if s[i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether `s` ends with `p` (constant evaluation).
const fn ends_with(s: &str, p: &str) -> bool {
    let (s, p) = (s.as_bytes(), p.as_bytes());
    if p.len() > s.len() {
        return false;
    }
    let mut i = 0;
    while i < p.len() {
        if s[s.len() - p.len() + i] != p[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether two literal prefixes can begin the same text: one is a prefix of the other.
const fn affixes_meet(a: &str, b: &str) -> bool {
    starts_with(a, b) || starts_with(b, a)
}

/// Whether two literal suffixes can end the same text: one is a suffix of the other.
const fn affixes_meet_at_end(a: &str, b: &str) -> bool {
    ends_with(a, b) || ends_with(b, a)
}

/// The non-empty text of `lit` between `prefix` and `suffix`, when `lit` starts with `prefix`
/// and ends with `suffix` (constant evaluation).
const fn between(lit: &'static str, prefix: &str, suffix: &str) -> Option<&'static str> {
    if lit.len() <= prefix.len() + suffix.len() || !starts_with(lit, prefix) || !ends_with(lit, suffix) {
        return None;
    }
    // The affixes are whole texts at both ends of `lit`, so both cuts fall on character
    // boundaries.
    let (_, rest) = lit.split_at(prefix.len());
    let (value, _) = rest.split_at(rest.len() - suffix.len());
    Some(value)
}

/// Whether a part of `shape` written without padding (`<n:raw>`, integers only) can be
/// `text`: one to `width` digits, after a `-` for a signed type; any text for a part whose
/// shape the checks do not know.
const fn raw_writes(shape: PartShape, text: &str) -> bool {
    match shape {
        PartShape::Digits { width, signed } => {
            let b = text.as_bytes();
            let digits = match b {
                [b'-', rest @ ..] if signed => rest,
                _ => b,
            };
            if digits.is_empty() || digits.len() > width as usize {
                return false;
            }
            let mut i = 0;
            while i < digits.len() {
                if !digits[i].is_ascii_digit() {
                    return false;
                }
                i += 1;
            }
            true
        }
        _ => shape.can_write(text),
    }
}

/// A placeholder with literal text around it in one segment ([`Segment::Part`]).
#[derive(Clone, Copy)]
struct Affixed {
    prefix: &'static str,
    field: &'static str,
    suffix: &'static str,
    raw: bool,
}

/// What field `name` of `s` writes as a key part ([`FieldSchema::shape`]); any text for a
/// field the schema does not list.
pub(super) const fn shape_of(s: &EntitySchema, name: &str) -> PartShape {
    let mut i = 0;
    while i < s.fields.len() {
        if str_eq(s.fields[i].field, name) {
            return s.fields[i].shape;
        }
        i += 1;
    }
    PartShape::Any
}

/// Placeholders of two entities (side 0 and side 1), unified segment by segment: each class
/// of placeholders that must be equal holds at most one literal value, and the texts its parts
/// can all write ([`PartShape`]): `u64` digits never equal `LATEST`, nor a `u32`'s digits.
pub(super) struct Unifier<'s> {
    schemas: [&'s EntitySchema; 2],
    side: [u8; MAX_VARS],
    name: [&'static str; MAX_VARS],
    parent: [usize; MAX_VARS],
    bound: [Option<&'static str>; MAX_VARS],
    shape: [PartShape; MAX_VARS],
    len: usize,
    pub(super) overflow: bool,
    /// Whether the templates compared now fold their case (`key_case`): texts are then
    /// compared without their letters' case (a `bool` writes `TRUE` in an uppercased key).
    folded: bool,
}

impl<'s> Unifier<'s> {
    pub(super) const fn new(a: &'s EntitySchema, b: &'s EntitySchema) -> Unifier<'s> {
        Unifier {
            schemas: [a, b],
            side: [0; MAX_VARS],
            name: [""; MAX_VARS],
            parent: [0; MAX_VARS],
            bound: [None; MAX_VARS],
            shape: [PartShape::Any; MAX_VARS],
            len: 0,
            overflow: false,
            folded: false,
        }
    }

    /// The variable of field `name` of side `side`, added on first use.
    const fn var(&mut self, side: u8, name: &'static str) -> usize {
        let mut i = 0;
        while i < self.len {
            if self.side[i] == side && str_eq(self.name[i], name) {
                return i;
            }
            i += 1;
        }
        if self.len == MAX_VARS {
            self.overflow = true;
            return 0;
        }
        let i = self.len;
        self.side[i] = side;
        self.name[i] = name;
        self.parent[i] = i;
        self.shape[i] = shape_of(self.schemas[side as usize], name);
        self.len += 1;
        i
    }

    const fn find(&self, mut i: usize) -> usize {
        while self.parent[i] != i {
            i = self.parent[i];
        }
        i
    }

    /// Whether `shape` can write `text`, in the case of the templates compared now.
    const fn writes(&self, shape: PartShape, text: &str) -> bool {
        if self.folded { shape.can_write_folded(text) } else { shape.can_write(text) }
    }

    /// Binds the class of `v` to literal `lit`; false when it is bound to another literal.
    const fn bind(&mut self, v: usize, lit: &'static str) -> bool {
        let r = self.find(v);
        match self.bound[r] {
            Some(other) => str_eq(other, lit),
            None if !self.writes(self.shape[r], lit) => false,
            None => {
                self.bound[r] = Some(lit);
                true
            }
        }
    }

    /// Merges the classes of `x` and `y`; false when they are bound to different literals.
    const fn union(&mut self, x: usize, y: usize) -> bool {
        let (rx, ry) = (self.find(x), self.find(y));
        if rx == ry {
            return true;
        }
        let (sx, sy) = (self.shape[rx], self.shape[ry]);
        if !(if self.folded { sx.overlaps_folded(sy) } else { sx.overlaps(sy) }) {
            return false;
        }
        let keep = match (self.bound[rx], self.bound[ry]) {
            (Some(p), Some(q)) => {
                if !str_eq(p, q) {
                    return false;
                }
                Some(p)
            }
            (Some(p), None) => {
                if !self.writes(sy, p) {
                    return false;
                }
                Some(p)
            }
            (None, Some(p)) => {
                if !self.writes(sx, p) {
                    return false;
                }
                Some(p)
            }
            (None, None) => None,
        };
        self.parent[ry] = rx;
        self.bound[rx] = keep;
        self.shape[rx] = sx.narrower(sy);
        true
    }

    /// Whether part `part` of side `side` can write the literal segment `lit`: `lit` has the
    /// part's affixes and, between them, a value that the field's type writes ([`PartShape`]):
    /// `v<version>` (a `u64`, 20 digits) writes `v00000000000000000000` but never `v0`. A padded
    /// value binds the field's class, as a whole-segment placeholder does; an unpadded integer
    /// (`<n:raw>`) is the type's digits without padding, another text than the field's padded
    /// form elsewhere, so it binds nothing.
    const fn part_writes(&mut self, side: u8, part: Affixed, lit: &'static str) -> bool {
        let Some(value) = between(lit, part.prefix, part.suffix) else { return false };
        let v = self.var(side, part.field);
        if part.raw {
            let r = self.find(v);
            return raw_writes(self.shape[r], value);
        }
        self.bind(v, value)
    }

    /// Whether the first `count` segments of `a` (side 0) and `b` (side 1) can be equal,
    /// together with everything unified so far.
    pub(super) const fn templates(&mut self, a: &Template, b: &Template, count: usize) -> bool {
        // A number key holds its integer in plain decimal, whatever the type's width: a `u64`
        // and a `u32` write the same `5`.
        if matches!(a.key_type, KeyType::N) && matches!(b.key_type, KeyType::N) {
            return true;
        }
        self.folded = a.style.folds_case() || b.style.folds_case();
        let mut i = 0;
        while i < count {
            let ok = match (a.segments[i], b.segments[i]) {
                // A write-sharding suffix is a number computed from a field: any value.
                (Segment::Shard { .. }, _) | (_, Segment::Shard { .. }) => true,
                (Segment::Literal(x), Segment::Literal(y)) => str_eq(x, y),
                (Segment::Field(f), Segment::Literal(l)) => {
                    let v = self.var(0, f);
                    self.bind(v, l)
                }
                (Segment::Literal(l), Segment::Field(f)) => {
                    let v = self.var(1, f);
                    self.bind(v, l)
                }
                (Segment::Field(f), Segment::Field(g)) => {
                    let (x, y) = (self.var(0, f), self.var(1, g));
                    self.union(x, y)
                }
                // Literal text around a placeholder: equal affixes make the values equal;
                // otherwise the segments can meet when neither affix excludes the other (the
                // value is then left unbound, which can only report more collisions).
                (
                    Segment::Part { prefix: p, field: f, suffix: s, raw: r0 },
                    Segment::Part { prefix: q, field: g, suffix: t, raw: r1 },
                ) => {
                    // An unpadded integer (`<n:raw>`) is any number of digits: no width tells
                    // two apart.
                    if r0 || r1 {
                        affixes_meet(p, q) && affixes_meet_at_end(s, t)
                    } else if str_eq(p, q) && str_eq(s, t) {
                        let (x, y) = (self.var(0, f), self.var(1, g));
                        self.union(x, y)
                    } else {
                        affixes_meet(p, q) && affixes_meet_at_end(s, t)
                    }
                }
                (Segment::Part { prefix, field, suffix, raw }, Segment::Literal(l)) => {
                    self.part_writes(0, Affixed { prefix, field, suffix, raw }, l)
                }
                (Segment::Literal(l), Segment::Part { prefix, field, suffix, raw }) => {
                    self.part_writes(1, Affixed { prefix, field, suffix, raw }, l)
                }
                (Segment::Part { .. }, Segment::Field(_)) | (Segment::Field(_), Segment::Part { .. }) => true,
            };
            if !ok {
                return false;
            }
            i += 1;
        }
        true
    }
}

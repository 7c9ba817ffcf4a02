//! Checks across the entities of one table, written as `const fn`s so that `#[derive(TableDef)]`
//! runs them at compile time (through [`Entity::SCHEMA`](crate::Entity::SCHEMA)), and
//! [`TableLayout::declared`](crate::schema::TableLayout::declared) runs the same functions at
//! run time.
//!
//! # The rules
//!
//! * **No shared primary keys.** Two entities must not be able to produce the same primary key
//!   (`PK`, `SK`): one would overwrite or shadow the other's item. See [`keys_collide`].
//! * **No prefix collisions.** Where two entities can share a partition of an index, the
//!   `begins_with` condition that one entity's query adds by default (the literal prefix of its
//!   sort key template, such as `REVIEW#`) must not match the other's sort keys, or the query
//!   would read (and pay for) the other entity's items. See [`prefix_reads`]. Where the
//!   placeholder after the literal prefix has a fixed form of digits (an unsigned integer, a
//!   `Timestamp`, a `Date`: [`PartShape::is_fixed_form`]), the query reads
//!   `BETWEEN prefix 00…0 AND prefix 99…9$` instead ([`narrowed_segment`]): a sibling sort key
//!   whose next segment cannot start with a digit (`V#LATEST` beside `V#<version>`) is not read,
//!   and needs no `hierarchy(...)` opt-in.
//! * **One type per key attribute.** A table defines each key attribute once, as `S` or `N`
//!   (DynamoDB's `AttributeDefinitions`); a template that is exactly one numeric placeholder is
//!   `N`, any other `S`. See [`key_type`].
//! * **Distinct type names** (the `_type` attribute tells items apart), **declared GSIs** and
//!   **one TTL attribute** a table.
//! * **Multi-attribute GSIs are met only by their declarers.** An entity that does not declare
//!   such an index stores none of its key attribute names with another type (DynamoDB would
//!   refuse every write) and not all of them (its items would enter the index). See
//!   [`undeclared_multi_gsi`](crate::schema::multi_key::undeclared_multi_gsi).
//!
//! # How two templates are compared
//!
//! Templates are compared segment by segment (segments are `#`-delimited). A placeholder's
//! value never contains a raw `#` (it is escaped as `%23`), so a key has exactly as many
//! segments as its template. A literal segment matches only the same literal; a placeholder
//! matches the segments its type can write ([`KeyPart::SHAPE`](crate::KeyPart::SHAPE), kept in
//! [`FieldSchema::shape`]): a `u64` part is always 20 digits, so it never equals `LATEST` nor a
//! `u32`'s 10 digits; an enum of `#[derive(KeyPart)]` writes only its variant names, a
//! `Timestamp` only `YYYY-MM-DDTHH:MM:SS.mmmZ`; a `String` part can write any segment. The same
//! field used twice by one entity (in its partition and its sort key) must take the same value
//! at both places: the comparison unifies placeholders, so `X#<a>` / `Y#<a>` does not collide with `X#1` / `Y#2`.
//!
//! An entity whose `#[derive(Entity)]` failed has an empty placeholder schema
//! ([`failed_schema`]); every check skips it, so one mistake reports one error.

use crate::key::{Cardinality, KeyStyle, KeyType, PartShape, Segment, Template};
use crate::schema::{AttributeNames, EntitySchema, FieldSchema, Index, IndexSchema, KeyFields};

/// Text composed during constant evaluation: the messages of the table's checks that name what
/// only the entities' schemas know, such as an attribute name, which the derive cannot write
/// into a literal. Shown with `panic!("{}", text.as_str())`; empty when there is nothing to say.
/// Holds up to [`ConstText::CAPACITY`] bytes: a piece that would not fit is left out whole, so
/// the text stays valid UTF-8.
#[derive(Debug, Clone, Copy)]
pub struct ConstText {
    buf: [u8; ConstText::CAPACITY],
    len: usize,
}

impl ConstText {
    /// The most bytes the text holds (eight 255-byte key attribute names and the prose around
    /// them fit).
    pub const CAPACITY: usize = 4096;

    /// The empty text.
    pub const fn new() -> ConstText {
        ConstText { buf: [0; ConstText::CAPACITY], len: 0 }
    }

    /// Appends `piece`, or nothing when it would not fit.
    pub const fn push(&mut self, piece: &str) {
        let bytes = piece.as_bytes();
        if self.len + bytes.len() > ConstText::CAPACITY {
            return;
        }
        let mut i = 0;
        while i < bytes.len() {
            self.buf[self.len + i] = bytes[i];
            i += 1;
        }
        self.len += bytes.len();
    }

    /// Whether nothing was pushed.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The text.
    pub const fn as_str(&self) -> &str {
        // Whole `str` pieces only, so always valid; the `Err` arm is never taken.
        match core::str::from_utf8(self.buf.split_at(self.len).0) {
            Ok(text) => text,
            Err(_) => "",
        }
    }
}

impl Default for ConstText {
    fn default() -> ConstText {
        ConstText::new()
    }
}

/// The most distinct placeholders two entities' templates may hold together for the
/// comparison; beyond it (an unrealistic key) the pair is not checked.
const MAX_VARS: usize = 64;

const EMPTY: Template = Template {
    source: "",
    segments: &[],
    key_type: KeyType::S,
    cardinality: Cardinality::Low,
    style: KeyStyle::DEFAULT,
};

/// The schema that the stub impl of a failed `#[derive(Entity)]` carries: no segments, no
/// GSIs, no fields. The checks of this module skip it (see [`is_checked`]).
pub const fn failed_schema(name: &'static str) -> EntitySchema {
    EntitySchema {
        name,
        rust_name: name,
        label: name,
        names: &AttributeNames::DEFAULT,
        primary: IndexSchema { index: Index::Primary, pk: &EMPTY, sk: &EMPTY },
        gsis: &[],
        inverted: None,
        lsis: &[],
        multi_gsis: &[],
        fields: &[],
        version: None,
        created_at: None,
        updated_at: None,
        ttl: None,
        key_fields: KeyFields::Attributes,
        schema_version: None,
        constants: &[],
    }
}

/// Whether `s` is a real schema: its partition key template has segments (a failed derive's
/// [`failed_schema`] has none).
pub const fn is_checked(s: &EntitySchema) -> bool {
    !s.primary.pk.segments.is_empty()
}

/// Whether `entities` (a table's [`TableDef::ENTITIES`](crate::TableDef::ENTITIES)) holds the
/// entity type `name`: `#[entity(table = T)]` requires T to list the entity, so that T's checks
/// (key collisions, prefixes, key types) cover its keys.
pub const fn lists_entity(entities: &[&EntitySchema], name: &str) -> bool {
    let mut i = 0;
    while i < entities.len() {
        if str_eq(entities[i].name, name) {
            return true;
        }
        i += 1;
    }
    false
}

pub use crate::key::support::str_eq;

const fn same_index(a: Index, b: Index) -> bool {
    match (a, b) {
        (Index::Primary, Index::Primary) | (Index::Inverted, Index::Inverted) => true,
        (Index::Gsi(x), Index::Gsi(y)) | (Index::Lsi(x), Index::Lsi(y)) => x == y,
        _ => false,
    }
}

/// The templates (partition, sort) under which the items of `s` appear in `index`, if they
/// do. The inverted index holds every item, keyed on its sort key then its partition key; an
/// LSI the items of the entities that write its sort key, under their primary partition key.
pub const fn templates(s: &EntitySchema, index: Index) -> Option<(&'static Template, &'static Template)> {
    match index {
        Index::Primary => Some((s.primary.pk, s.primary.sk)),
        Index::Inverted => Some((s.primary.sk, s.primary.pk)),
        Index::Gsi(_) => match find_gsi(s, index) {
            Some(g) => Some((g.pk, g.sk)),
            None => None,
        },
        Index::Lsi(_) => match find_lsi(s, index) {
            Some(l) => Some((s.primary.pk, l.sk)),
            None => None,
        },
    }
}

/// The queries `s` offers on `index`: the templates of `index` when the entity has a query
/// function for it (the inverted index only with `#[entity(inverted)]`).
const fn queried(s: &EntitySchema, index: Index) -> Option<(&'static Template, &'static Template)> {
    match index {
        Index::Inverted if s.inverted.is_none() => None,
        _ => templates(s, index),
    }
}

const fn find_gsi(s: &EntitySchema, index: Index) -> Option<&IndexSchema> {
    let mut i = 0;
    while i < s.gsis.len() {
        if same_index(s.gsis[i].index, index) {
            return Some(&s.gsis[i]);
        }
        i += 1;
    }
    None
}

/// Whether `s` writes the native multi-attribute GSI `index` (its key attributes are the
/// entity's own, see [`multi_key`](crate::schema::multi_key)).
const fn writes_multi_gsi(s: &EntitySchema, index: Index) -> bool {
    let mut i = 0;
    while i < s.multi_gsis.len() {
        if same_index(s.multi_gsis[i].index, index) {
            return true;
        }
        i += 1;
    }
    false
}

const fn find_lsi(s: &EntitySchema, index: Index) -> Option<&IndexSchema> {
    let mut i = 0;
    while i < s.lsis.len() {
        if same_index(s.lsis[i].index, index) {
            return Some(&s.lsis[i]);
        }
        i += 1;
    }
    None
}

/// Whether `s` writes the sort key `LSI<n>SK` of LSI number `n`.
pub const fn uses_lsi(s: &EntitySchema, n: u8) -> bool {
    is_checked(s) && find_lsi(s, Index::Lsi(n)).is_some()
}

/// Whether `s` writes the keys of GSI number `n`.
pub const fn uses_gsi(s: &EntitySchema, n: u8) -> bool {
    is_checked(s) && find_gsi(s, Index::Gsi(n)).is_some()
}

/// Whether `s` queries the inverted index (`#[entity(inverted)]`).
pub const fn uses_inverted(s: &EntitySchema) -> bool {
    is_checked(s) && s.inverted.is_some()
}

/// The DynamoDB type `s` stores in the partition key (`partition = true`) or sort key
/// attribute of `index`: `None` when it does not write that index (or its derive failed).
pub const fn key_type(s: &EntitySchema, index: Index, partition: bool) -> Option<KeyType> {
    if !is_checked(s) {
        return None;
    }
    match templates(s, index) {
        Some((pk, sk)) => Some(if partition { pk.key_type } else { sk.key_type }),
        None => None,
    }
}

/// Whether `a` and `b` are different key types (`S`, `N`, `B`; `None` counts as unknown, so
/// never different).
pub const fn key_types_differ(a: Option<KeyType>, b: Option<KeyType>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => !key_types_equal(a, b),
        _ => false,
    }
}

/// Whether `a` and `b` are the same key type, in constant evaluation.
pub const fn key_types_equal(a: KeyType, b: KeyType) -> bool {
    matches!((a, b), (KeyType::S, KeyType::S) | (KeyType::N, KeyType::N) | (KeyType::B, KeyType::B))
}

/// The position in `entities` of the first one that writes the given key attribute of
/// `index` (see [`key_type`]), `usize::MAX` when none does. A type disagreement is reported
/// against this entity only, so three entities of which one disagrees give one error.
pub const fn first_user(entities: &[&EntitySchema], index: Index, partition: bool) -> usize {
    let mut i = 0;
    while i < entities.len() {
        if key_type(entities[i], index, partition).is_some() {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// Whether entity `entities[later]` stores the given key attribute of `index` with another
/// type than the first entity that writes it, `entities[first]` (see [`first_user`]).
pub const fn disagrees_with_first(
    entities: &[&EntitySchema],
    first: usize,
    later: usize,
    index: Index,
    partition: bool,
) -> bool {
    first_user(entities, index, partition) == first
        && key_types_differ(key_type(entities[first], index, partition), key_type(entities[later], index, partition))
}

/// Whether `a` and `b` carry the same entity type name (both real schemas).
pub const fn same_type_name(a: &EntitySchema, b: &EntitySchema) -> bool {
    is_checked(a) && is_checked(b) && str_eq(a.name, b.name)
}

/// Whether entity `j` of `entities` shares its entity type name with another of them (both
/// real schemas): reads then tell their items apart by key shape, and need the table's
/// entities to do so (`#[entity(table = ...)]` on each, see
/// [`Entity::TABLE_ENTITIES`](crate::Entity::TABLE_ENTITIES)).
pub const fn shares_type_name(entities: &[&EntitySchema], j: usize) -> bool {
    let mut i = 0;
    while i < entities.len() {
        if i != j && same_type_name(entities[i], entities[j]) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether `a` and `b` keep their time to live in different attributes (a table has one TTL
/// attribute).
pub const fn ttl_differs(a: &EntitySchema, b: &EntitySchema) -> bool {
    match (a.ttl, b.ttl) {
        (Some(FieldSchema { attribute: x, .. }), Some(FieldSchema { attribute: y, .. })) => !str_eq(x, y),
        _ => false,
    }
}

/// The position in `entities` of the first one with an `#[entity(ttl)]` field,
/// `usize::MAX` when none has one.
pub const fn first_ttl(entities: &[&EntitySchema]) -> usize {
    let mut i = 0;
    while i < entities.len() {
        if entities[i].ttl.is_some() {
            return i;
        }
        i += 1;
    }
    usize::MAX
}

/// Whether `s` stores a field, or a constant (`#[entity(constant(...))]`), in attribute
/// `attribute`.
pub const fn stores_attribute(s: &EntitySchema, attribute: &str) -> bool {
    let mut i = 0;
    while i < s.fields.len() {
        if str_eq(s.fields[i].attribute, attribute) {
            return true;
        }
        i += 1;
    }
    let mut i = 0;
    while i < s.constants.len() {
        if str_eq(s.constants[i].attribute, attribute) {
            return true;
        }
        i += 1;
    }
    false
}

/// Whether some entity that writes `index` (every entity, for the inverted index) stores
/// attribute `attribute`, or any entity failed its derive (then nothing is known). An
/// `INCLUDE` projection of an attribute that none stores projects nothing.
pub const fn some_writer_stores(entities: &[&EntitySchema], index: Index, attribute: &str) -> bool {
    let mut i = 0;
    while i < entities.len() {
        let s = entities[i];
        if !is_checked(s)
            || ((templates(s, index).is_some() || writes_multi_gsi(s, index)) && stores_attribute(s, attribute))
        {
            return true;
        }
        i += 1;
    }
    false
}

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

/// The position of the first entity before `entities[later]` with the same type name
/// ([`same_type_name`]), `usize::MAX` when there is none.
pub const fn first_same_name(entities: &[&EntitySchema], later: usize) -> usize {
    let mut i = 0;
    while i < later {
        if same_type_name(entities[i], entities[later]) {
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

/// What field `name` of `s` writes as a key part ([`FieldSchema::shape`]); any text for a
/// field the schema does not list.
const fn shape_of(s: &EntitySchema, name: &str) -> PartShape {
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
struct Unifier<'s> {
    schemas: [&'s EntitySchema; 2],
    side: [u8; MAX_VARS],
    name: [&'static str; MAX_VARS],
    parent: [usize; MAX_VARS],
    bound: [Option<&'static str>; MAX_VARS],
    shape: [PartShape; MAX_VARS],
    len: usize,
    overflow: bool,
    /// Whether the templates compared now fold their case (`key_case`): texts are then
    /// compared without their letters' case (a `bool` writes `TRUE` in an uppercased key).
    folded: bool,
}

impl<'s> Unifier<'s> {
    const fn new(a: &'s EntitySchema, b: &'s EntitySchema) -> Unifier<'s> {
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

    /// Whether the first `count` segments of `a` (side 0) and `b` (side 1) can be equal,
    /// together with everything unified so far.
    const fn templates(&mut self, a: &Template, b: &Template, count: usize) -> bool {
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
                (Segment::Part { prefix, suffix, .. }, Segment::Literal(l))
                | (Segment::Literal(l), Segment::Part { prefix, suffix, .. }) => {
                    l.len() > prefix.len() + suffix.len() && starts_with(l, prefix) && ends_with(l, suffix)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn const_text_keeps_whole_pieces() {
        const TEXT: ConstText = {
            let mut t = ConstText::new();
            t.push("entity `");
            t.push("Gebühr");
            t.push("`");
            t
        };
        assert_eq!(TEXT.as_str(), "entity `Gebühr`");
        assert!(!TEXT.is_empty());
        let mut t = ConstText::new();
        assert!(t.is_empty());
        let long = "é".repeat(ConstText::CAPACITY / 2 - 1);
        t.push(&long);
        t.push("éé");
        t.push("!");
        assert_eq!(t.as_str().len(), ConstText::CAPACITY - 1);
        assert!(t.as_str().ends_with("é!"));
    }

    const fn seg(s: &'static str) -> Segment {
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
            const T: Template = Template {
                source: concat!($($s, "#"),+),
                segments: &[$(seg($s)),+],
                key_type: KeyType::$ty,
                cardinality: Cardinality::High,
                style: crate::key::KeyStyle::DEFAULT,
            };
            &T
        }};
        ($($s:literal),+) => { tpl!(S; $($s),+) };
    }

    const fn entity(name: &'static str, pk: &'static Template, sk: &'static Template) -> EntitySchema {
        let mut s = failed_schema(name);
        s.primary = IndexSchema { index: Index::Primary, pk, sk };
        s
    }

    const USER: EntitySchema = entity("User", tpl!("USER", "<id>"), tpl!("PROFILE"));
    const PROFILE: EntitySchema = entity("Profile", tpl!("USER", "<user_id>"), tpl!("PROFILE"));
    const BADGE: EntitySchema = entity("Badge", tpl!("USER", "<user_id>"), tpl!("BADGE", "<badge>"));
    const ANY_SK: EntitySchema = entity("Note", tpl!("USER", "<user_id>"), tpl!("<note>"));
    const ORDER: EntitySchema = entity("Order", tpl!("USER", "<id>"), tpl!("ORDER", "<n>"));
    const ORDER_LINE: EntitySchema = entity("Line", tpl!("USER", "<id>"), tpl!("ORDER", "<n>", "LINE", "<m>"));
    const ORDERS: EntitySchema = entity("Orders", tpl!("USER", "<id>"), tpl!("ORDERS", "<n>", "X"));
    const SKILL: EntitySchema = entity("Skill", tpl!("SKILL", "<id>"), tpl!("PROFILE"));

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
    fn gsis_and_types() {
        const GSI_N: IndexSchema = IndexSchema { index: Index::Gsi(2), pk: tpl!("ALL"), sk: tpl!(N; "<n>") };
        const GSI_S: IndexSchema = IndexSchema { index: Index::Gsi(2), pk: tpl!("ALL"), sk: tpl!("<s>") };
        let mut a = entity("A", tpl!("A", "<id>"), tpl!("META"));
        a.gsis = &[GSI_N];
        let mut b = entity("B", tpl!("B", "<id>"), tpl!("META"));
        b.gsis = &[GSI_S];
        let c = entity("C", tpl!("C", "<id>"), tpl!("META"));
        assert!(uses_gsi(&a, 2));
        assert!(!uses_gsi(&a, 1));
        assert_eq!(key_type(&a, Index::Gsi(2), false), Some(KeyType::N));
        assert_eq!(key_type(&c, Index::Gsi(2), false), None);
        let all = [&c, &a, &b];
        assert_eq!(first_user(&all, Index::Gsi(2), false), 1);
        assert!(disagrees_with_first(&all, 1, 2, Index::Gsi(2), false));
        assert!(!disagrees_with_first(&all, 0, 2, Index::Gsi(2), false));
        assert!(!disagrees_with_first(&all, 1, 2, Index::Gsi(2), true));
        assert_eq!(first_user(&all, Index::Gsi(3), true), usize::MAX);
    }

    #[test]
    fn lsis_are_keyed_on_the_primary_partition_key() {
        const PK: &Template = tpl!("USER", "<id>");
        const LSI_N: IndexSchema = IndexSchema { index: Index::Lsi(2), pk: PK, sk: tpl!(N; "<placed>") };
        const LSI_S: IndexSchema = IndexSchema { index: Index::Lsi(2), pk: PK, sk: tpl!("ORDER", "<n>") };
        let mut a = entity("Order", PK, tpl!("ORDER", "<n>"));
        a.lsis = &[LSI_N];
        let mut b = entity("Line", PK, tpl!("LINE", "<n>"));
        b.lsis = &[LSI_S];
        assert!(uses_lsi(&a, 2) && !uses_lsi(&a, 1) && !uses_gsi(&a, 2));
        assert!(!uses_lsi(&failed_schema("X"), 2));
        assert_eq!(key_type(&a, Index::Lsi(2), true), Some(KeyType::S));
        assert_eq!(key_type(&a, Index::Lsi(2), false), Some(KeyType::N));
        assert_eq!(key_type(&USER, Index::Lsi(2), false), None);
        let all = [&USER, &a, &b];
        assert_eq!(first_user(&all, Index::Lsi(2), false), 1);
        assert!(disagrees_with_first(&all, 1, 2, Index::Lsi(2), false));
        // `a`'s LSI2 query adds begins_with(LSI2SK, "ORDER#")? Its sort key is one number: no;
        // `b`'s does, and `a` writes no string LSI2SK.
        assert!(!prefix_reads(&a, &b, Index::Lsi(2)) && !prefix_reads(&b, &a, Index::Lsi(2)));
        // In one partition of the LSI, `b`'s `ORDER#` prefix matches `c`'s longer sort keys.
        const LSI_LONG: IndexSchema =
            IndexSchema { index: Index::Lsi(2), pk: PK, sk: tpl!("ORDER", "<n>", "LINE", "<m>") };
        let mut c = entity("Part", PK, tpl!("PART", "<n>"));
        c.lsis = &[LSI_LONG];
        assert!(prefix_reads(&b, &c, Index::Lsi(2)) && !prefix_reads(&b, &c, Index::Lsi(1)));
    }

    #[test]
    fn names() {
        assert!(same_type_name(&USER, &entity("User", tpl!("U"), tpl!("V"))));
        assert!(!same_type_name(&USER, &PROFILE));
        assert!(!same_type_name(&USER, &failed_schema("User")));
        assert!(str_eq("", ""));
        assert!(!str_eq("ab", "abc"));
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

    /// A field of `shape`, for the shape-aware comparisons.
    const fn shaped(field: &'static str, shape: PartShape) -> FieldSchema {
        FieldSchema {
            field,
            attribute: field,
            optional: false,
            unique: false,
            shape,
            folded: false,
            lossless: false,
            stored: None,
        }
    }

    const U64: PartShape = PartShape::Digits { width: 20, signed: false };
    const U32: PartShape = PartShape::Digits { width: 10, signed: false };

    const fn with_fields(mut s: EntitySchema, fields: &'static [FieldSchema]) -> EntitySchema {
        s.fields = fields;
        s
    }

    const VERSION: EntitySchema =
        with_fields(entity("Version", tpl!("DOC", "<id>"), tpl!("V", "<version>")), &[shaped("version", U64)]);
    const LATEST: EntitySchema = entity("Latest", tpl!("DOC", "<id>"), tpl!("V", "LATEST"));
    const NAMED: EntitySchema = entity("Named", tpl!("DOC", "<id>"), tpl!("V", "<name>"));
    const SMALL: EntitySchema =
        with_fields(entity("Small", tpl!("DOC", "<id>"), tpl!("V", "<n>")), &[shaped("n", U32)]);
    const DIGITS: EntitySchema = entity("Digits", tpl!("DOC", "<id>"), tpl!("V", "00000000000000000007"));
    const STATUS: EntitySchema = with_fields(
        entity("Status", tpl!("DOC", "<id>"), tpl!("V", "<status>")),
        &[shaped("status", PartShape::OneOf(&["draft", "live"]))],
    );
    const AT: EntitySchema =
        with_fields(entity("At", tpl!("DOC", "<id>"), tpl!("V", "<at>")), &[shaped("at", PartShape::UtcTime)]);

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

    // The checks run in constant evaluation.
    const _: () = assert!(!keys_collide(&VERSION, &LATEST));
    const _: () = assert!(keys_collide(&USER, &PROFILE));
    const _: () = assert!(!keys_collide(&USER, &BADGE));
}

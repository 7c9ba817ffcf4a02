//! Key templates and the key-encoding contract.
//!
//! A key template such as `SKILL#<id>` or `ORDER#<created_at>#<order_id>` is literal text and
//! `<field>` placeholders, split into *segments* by the delimiter `#`. Each segment is either
//! literal text or exactly one placeholder, with optional literal text around it inside the
//! segment ([`Segment::Part`]: `user_<id>`, `o<num>`, as other writers form keys). Encoding
//! follows these rules (an entity may declare another writer's conventions instead: see
//! [`style`] for another delimiter than `#`, case folding, verbatim values and unpadded
//! `<field:raw>` integers):
//!
//! * **Reversible escaping.** Inside a key part, `#` is written `%23` and `%` is written `%25`.
//!   An encoded part never contains the delimiter, so two different tuples of parts never give
//!   the same key, and [`Template::parse`] gives the parts back.
//! * **Order-preserving integers.** Unsigned integers are zero-padded to the width of their type
//!   (`u32` to 10 digits, `u64` to 20). Signed integers are written zero-padded when non-negative
//!   and as `-` followed by the zero-padded offset `value - MIN` when negative, so `-` (which sorts
//!   before every digit) puts negatives first, in order. String order of the key then equals
//!   numeric order of the part.
//! * **Fixed-width time.** [`Timestamp`] parts are `YYYY-MM-DDTHH:MM:SS.mmmZ`.
//! * **Single numeric keys are numbers.** A template that is exactly one placeholder of a numeric
//!   type (such as `<downloads>`) is stored as a DynamoDB number (type `N`), unpadded.
//! * **Single binary keys are binary.** A template that is exactly one placeholder of a binary
//!   type (`Vec<u8>`, such as `<digest>`) is stored as DynamoDB binary (type `B`): the bytes as
//!   they are, compared bytewise by DynamoDB. A binary value fills only such a whole-key
//!   template; inside a composite key it is refused ([`KeyPartError::Binary`]). While a key is
//!   built, its bytes are carried as lowercase hexadecimal text (two digits a byte, which keeps
//!   byte order and prefixes), turned into the bytes when the key is finished.
//! * **No empty or oversize keys.** An empty part (an empty string or byte buffer), a missing
//!   part, a partition key over 2,048 bytes or a sort key over 1,024 bytes (DynamoDB's limits,
//!   UTF-8 bytes for a string key, raw bytes for a binary key) is an error before any request is
//!   sent.
//!
//! * **Write sharding.** A segment `<shard(field, N)>` in a GSI partition key template is the
//!   shard number of the item: [`shard_of`] of `field`'s encoded key part, `N` shards, written
//!   zero-padded to the width of `N - 1` (see [`Segment::Shard`]).
//!
//! String parts compare by their encoded UTF-8 bytes. Because the delimiter `#` (0x23) sorts
//! after the control characters, space, `!` and `"`, tuple order of composite keys matches part
//! order only for parts that are fixed-width or free of those characters.

use std::borrow::Cow;
use std::fmt;

use aws_sdk_dynamodb::types::{AttributeValue, ScalarAttributeType};

use crate::value::time::{Date, Timestamp};

pub mod names;
mod shape;
pub mod style;
pub(crate) mod support;

pub use names::{AttributeNames, GsiNames, Index, LsiNames, PrimaryKey};
pub use shape::PartShape;
pub use style::{KeyCase, KeyStyle};
pub(crate) use support::{KeyContext, KeyWriter, str_eq};

/// The delimiter between the segments of a key.
pub const DELIMITER: char = '#';
/// The escape character inside key parts: `%23` stands for `#`, `%25` for `%`.
pub const ESCAPE: char = '%';
/// DynamoDB's limit on a partition key value, in bytes (UTF-8).
pub const MAX_PARTITION_KEY_BYTES: usize = 2048;
/// DynamoDB's limit on a sort key value, in bytes (UTF-8).
pub const MAX_SORT_KEY_BYTES: usize = 1024;

/// One `#`-separated segment of a key template.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Segment {
    /// Literal text, such as `SKILL` in `SKILL#<id>`.
    Literal(&'static str),
    /// A placeholder: the name of the struct field whose value fills it.
    Field(&'static str),
    /// A placeholder with literal text around it inside one segment (`user_<id>`, `o<num>`,
    /// `USER-<id>`), or an integer written without padding (`<count:raw>`), as other writers
    /// form their keys. The part is read back by stripping `prefix` and `suffix` from the
    /// segment.
    Part {
        /// Literal text before the value, inside the segment.
        prefix: &'static str,
        /// The struct field whose value fills the placeholder.
        field: &'static str,
        /// Literal text after the value, inside the segment.
        suffix: &'static str,
        /// `true` for `<field:raw>`: an integer in plain decimal ([`PartForm::Number`]), not
        /// zero-padded, so string order is not numeric order (see [`style`]).
        raw: bool,
    },
    /// A calculated shard suffix, `<shard(field, N)>` (write sharding): the shard number
    /// [`shard_of`]`(encoded field, count)` written as decimal zero-padded to the width of
    /// `count - 1` (`0` to `7` for 8 shards, `00` to `15` for 16). Only in GSI partition keys.
    Shard {
        /// The struct field whose encoded key part picks the shard.
        field: &'static str,
        /// The number of shards (2 to [`MAX_SHARDS`]).
        count: u16,
    },
}

/// The most shards a `<shard(field, N)>` segment may have: a query of a sharded index sends up
/// to one `Query` request per shard for every page.
pub const MAX_SHARDS: u16 = 100;

/// How many distinct values a key part takes, for the design lint (see
/// [`TableLayout::lint`](crate::schema::TableLayout::lint)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Cardinality {
    /// A handful of values (`bool`, a field-less enum from `#[derive(KeyPart)]`): a partition
    /// key made only of such parts puts many items in few partitions.
    Low,
    /// Many values (ids, names, numbers, times): the default.
    High,
}

impl Cardinality {
    /// The cardinality of a partition key made of `parts`: [`Cardinality::High`] when any part
    /// is, else (only low parts, or none at all) [`Cardinality::Low`].
    pub const fn of(parts: &[Cardinality]) -> Cardinality {
        let mut i = 0;
        while i < parts.len() {
            if let Cardinality::High = parts[i] {
                return Cardinality::High;
            }
            i += 1;
        }
        Cardinality::Low
    }
}

/// FNV-1a, 64 bits: offset basis `0xcbf29ce484222325`, prime `0x100000001b3`, one round per
/// byte (`h ^= byte; h *= prime`, wrapping).
pub const fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// The shard of an item whose shard source field has the encoded key part `encoded_part` (the
/// text the part has inside a key: escaped, integers zero-padded): FNV-1a 64 of its UTF-8 bytes
/// modulo `count`. Any language can recompute it.
///
/// ```
/// use dynamo_entity::key::shard_of;
/// // FNV-1a 64 of "foobar" is 0x85944171f73967e8.
/// assert_eq!(shard_of("foobar", 16), 8);
/// assert_eq!(shard_of("s00042", 8), 4);
/// ```
pub const fn shard_of(encoded_part: &str, count: u16) -> u16 {
    if count == 0 {
        return 0;
    }
    (fnv1a64(encoded_part.as_bytes()) % count as u64) as u16
}

/// The number of digits a shard number of `count` shards is written with: the width of
/// `count - 1` (1 for up to 10 shards, 2 for up to 100).
pub const fn shard_width(count: u16) -> usize {
    let mut max = if count > 0 { count - 1 } else { 0 };
    let mut width = 1;
    while max >= 10 {
        max /= 10;
        width += 1;
    }
    width
}

/// The DynamoDB type of a key attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyType {
    /// String (`S`): every template except a single numeric placeholder.
    S,
    /// Number (`N`): a template that is exactly one numeric placeholder.
    N,
    /// Binary (`B`): a template that is exactly one binary placeholder (`Vec<u8>`), compared
    /// bytewise by DynamoDB.
    B,
}

impl KeyType {
    /// The type's DynamoDB name: `S`, `N` or `B`.
    pub const fn name(self) -> &'static str {
        match self {
            KeyType::S => "S",
            KeyType::N => "N",
            KeyType::B => "B",
        }
    }

    /// The SDK's scalar type for attribute definitions.
    pub fn scalar(self) -> ScalarAttributeType {
        match self {
            KeyType::S => ScalarAttributeType::S,
            KeyType::N => ScalarAttributeType::N,
            KeyType::B => ScalarAttributeType::B,
        }
    }
}

/// A parsed key template, built at compile time by `#[derive(Entity)]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Template {
    /// The template as written, such as `SKILL#<id>`.
    pub source: &'static str,
    /// Its segments in order.
    pub segments: &'static [Segment],
    /// `N` when the template is one numeric placeholder, `B` when it is one binary placeholder,
    /// else `S`.
    pub key_type: KeyType,
    /// How many values the key takes: [`Cardinality::High`] when any placeholder's type has
    /// many values, [`Cardinality::Low`] for only literals or only low-cardinality parts
    /// (see [`KeyPart::CARDINALITY`]). A shard segment does not count here; see
    /// [`Template::shard`].
    pub cardinality: Cardinality,
    /// How values are written into the key (case, escaping): [`KeyStyle::DEFAULT`] unless the
    /// entity declares another writer's conventions.
    pub style: KeyStyle,
}

impl Template {
    /// The names of the fields this template is built from, in template order: each
    /// placeholder's field and the source field of a shard segment.
    pub fn fields(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.segments.iter().filter_map(|s| match s {
            Segment::Field(f) | Segment::Part { field: f, .. } | Segment::Shard { field: f, .. } => Some(*f),
            Segment::Literal(_) => None,
        })
    }

    /// The placeholders in template order (the parts [`Template::parse`] returns; a shard
    /// segment is none): each field's name and the form its part is written in, inside this
    /// template ([`PartForm::Number`] for a numeric key and for `<field:raw>`).
    pub fn placeholders(&self) -> impl Iterator<Item = (&'static str, PartForm)> + '_ {
        let whole = if self.key_type == KeyType::N { PartForm::Number } else { PartForm::Composite };
        self.segments.iter().filter_map(move |s| match s {
            Segment::Field(f) => Some((*f, whole)),
            Segment::Part { field, raw, .. } => Some((*field, if *raw { PartForm::Number } else { whole })),
            Segment::Literal(_) | Segment::Shard { .. } => None,
        })
    }

    /// Whether one of the first `count` placeholders is an unpadded integer (`<field:raw>`),
    /// whose string order is not numeric order: a range condition over it is refused.
    pub fn raw_among_first(&self, count: usize) -> Option<&'static str> {
        self.segments.iter().filter(|s| matches!(s, Segment::Field(_) | Segment::Part { .. })).take(count).find_map(
            |s| match s {
                Segment::Part { field, raw: true, .. } => Some(*field),
                _ => None,
            },
        )
    }

    /// The number of fields the template is built from ([`Template::fields`]).
    pub fn field_count(&self) -> usize {
        self.fields().count()
    }

    /// The shard segment's source field and shard count, for a sharded template.
    pub fn shard(&self) -> Option<(&'static str, u16)> {
        self.segments.iter().find_map(|s| match s {
            Segment::Shard { field, count } => Some((*field, *count)),
            _ => None,
        })
    }

    /// The literal segments before the first placeholder, each followed by the template's
    /// delimiter ([`KeyStyle::delimiter`]): `REVIEW#` for `REVIEW#<id>`, `USER|` for `USER|<id>`, empty for `<submitted_at>`. For a template without any
    /// placeholder (`META`) this is the whole key followed by `#`; see [`Template::constant`].
    pub fn literal_prefix(&self) -> String {
        let mut out = String::new();
        for seg in self.segments {
            match seg {
                Segment::Literal(l) => {
                    out.push_str(l);
                    out.push(self.style.delimiter);
                }
                Segment::Field(_) | Segment::Part { .. } | Segment::Shard { .. } => break,
            }
        }
        out
    }

    /// The key itself when the template has no placeholder (`META`, `PROFILE`).
    pub fn constant(&self) -> Option<String> {
        if !self.segments.iter().all(|s| matches!(s, Segment::Literal(_))) {
            return None;
        }
        let mut out = String::new();
        for (i, seg) in self.segments.iter().enumerate() {
            if i > 0 {
                out.push(self.style.delimiter);
            }
            if let Segment::Literal(l) = seg {
                out.push_str(l);
            }
        }
        Some(out)
    }

    /// Splits an encoded key back into its unescaped parts, one per placeholder, checking every
    /// literal segment and the shard number on the way (a shard number is not returned).
    ///
    /// # Errors
    /// [`KeyParseError`] when the key does not have the template's shape: another number of
    /// segments, a literal segment that differs, a malformed escape, or a shard segment that is
    /// not a shard number of the template's width and count.
    ///
    /// ```
    /// use dynamo_entity::key::{Segment, Template, KeyType};
    /// const T: Template = Template {
    ///     source: "ORDER#<created_at>#<order_id>",
    ///     segments: &[Segment::Literal("ORDER"), Segment::Field("created_at"), Segment::Field("order_id")],
    ///     key_type: KeyType::S,
    ///     cardinality: dynamo_entity::key::Cardinality::High,
    ///     style: dynamo_entity::key::KeyStyle::DEFAULT,
    /// };
    /// assert_eq!(T.parse("ORDER#2024%23x#y").unwrap(), vec!["2024#x", "y"]);
    /// assert_eq!(T.parse("ORDER#2024#x%23y").unwrap(), vec!["2024", "x#y"]);
    /// assert!(T.parse("ORDER#2024#x#y").is_err());
    /// ```
    pub fn parse<'k>(&self, key: &'k str) -> Result<Vec<Cow<'k, str>>, KeyParseError> {
        let err = |reason: &'static str| KeyParseError { template: self.source, key: key.to_owned(), reason };
        let mut parts = Vec::with_capacity(self.segments.len());
        let mut pieces = key.split(self.style.delimiter);
        for seg in self.segments {
            let piece = pieces.next().ok_or_else(|| err("it has fewer segments than the template"))?;
            match seg {
                Segment::Literal(l) => {
                    if piece != *l {
                        return Err(err("a literal segment differs from the template"));
                    }
                }
                Segment::Field(_) => {
                    if piece.is_empty() {
                        return Err(err("a key part is empty"));
                    }
                    parts.push(self.style.unstyle(piece).ok_or_else(|| err("a key part has a malformed % escape"))?);
                }
                Segment::Part { prefix, suffix, .. } => {
                    let value = affixed(piece, prefix, suffix).ok_or_else(|| {
                        err("a segment lacks the literal text around its placeholder, or its part is empty")
                    })?;
                    parts.push(self.style.unstyle(value).ok_or_else(|| err("a key part has a malformed % escape"))?);
                }
                Segment::Shard { count, .. } => {
                    let n = (piece.len() == shard_width(*count) && piece.bytes().all(|b| b.is_ascii_digit()))
                        .then(|| piece.parse::<u16>().ok())
                        .flatten()
                        .filter(|n| n < count);
                    if n.is_none() {
                        return Err(err("the shard segment is not a shard number of the template"));
                    }
                }
            }
        }
        if pieces.next().is_some() {
            return Err(err("it has more segments than the template"));
        }
        Ok(parts)
    }
}

impl Template {
    /// Whether `stored`, a key attribute read from the table, has this template's shape: the
    /// key type, as many segments, the same literal segments, non-empty parts and shard numbers
    /// of the template's width. Tells apart the items of entities that share a type value (or of
    /// a table without a type attribute) without parsing the parts; allocates nothing. Each
    /// part may be any text: [`fits_shaped`](Self::fits_shaped) also checks what each part's
    /// type can write.
    pub fn fits(&self, stored: &AttributeValue) -> bool {
        self.fits_shaped(stored, |_| PartShape::Any)
    }

    /// [`fits`](Self::fits), each placeholder's text also being one its field's part type can
    /// write: `shape` gives the [`PartShape`] of a field by name
    /// ([`FieldSchema::shape`](crate::schema::FieldSchema::shape)). So `V#LATEST` does not fit
    /// `V#<version>` for a `u64` version (always 20 digits), as the table's compile-time
    /// collision checks assume. An unpadded integer (`<n:raw>`) is any non-empty text here; in
    /// a case-folded key, letters are compared without their case
    /// ([`PartShape::can_write_folded`]).
    pub fn fits_shaped(&self, stored: &AttributeValue, shape: impl Fn(&str) -> PartShape) -> bool {
        let text = match (stored, self.key_type) {
            (AttributeValue::S(s), KeyType::S) => s,
            (AttributeValue::N(n), KeyType::N) => return self.segments.len() == 1 && !n.is_empty(),
            (AttributeValue::B(b), KeyType::B) => return self.segments.len() == 1 && !b.as_ref().is_empty(),
            _ => return false,
        };
        let folded = self.style.folds_case();
        let writes = |field: &str, value: &str| match shape(field) {
            // Variant names as stored: escaped, and in the key's case (Unicode case too).
            PartShape::OneOf(texts) => {
                let stored = if self.style.escape { self.style.unescape(value) } else { Some(Cow::Borrowed(value)) };
                stored.is_some_and(|v| texts.iter().any(|t| self.style.case.fold_eq(t, &v)))
            }
            s if folded => s.can_write_folded(value),
            s => s.can_write(value),
        };
        let mut pieces = text.split(self.style.delimiter);
        for seg in self.segments {
            let Some(piece) = pieces.next() else { return false };
            let ok = match seg {
                Segment::Literal(l) => piece == *l,
                Segment::Field(f) => !piece.is_empty() && writes(f, piece),
                Segment::Part { prefix, field, suffix, raw } => {
                    affixed(piece, prefix, suffix).is_some_and(|v| *raw || writes(field, v))
                }
                Segment::Shard { count, .. } => {
                    piece.len() == shard_width(*count) && piece.bytes().all(|b| b.is_ascii_digit())
                }
            };
            if !ok {
                return false;
            }
        }
        pieces.next().is_none()
    }
}

/// The non-empty text of `piece` between `prefix` and `suffix`, when it has both.
#[inline]
pub(crate) fn affixed<'k>(piece: &'k str, prefix: &str, suffix: &str) -> Option<&'k str> {
    piece.strip_prefix(prefix)?.strip_suffix(suffix).filter(|v| !v.is_empty())
}

/// A key that does not have the shape of its template (see [`Template::parse`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("key `{key}` does not match template `{template}`: {reason}")]
pub struct KeyParseError {
    /// The template, as written.
    pub template: &'static str,
    /// The key that was rejected.
    pub key: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

/// Appends `part` to `out`, escaping `#` as `%23` and `%` as `%25`.
pub fn escape_into(part: &str, out: &mut String) {
    escape_delimited(part, DELIMITER, *b"23", out);
}

/// Appends `part` to `out`, escaping `delimiter` (an ASCII character) as `%` and `code`, its
/// two uppercase hex digits (`%23` for `#`, `%7C` for `|`), and `%` as `%25`; every other
/// character as it is. The one escape of key parts: [`escape_into`] for `#`, and the keys of
/// a [`KeyStyle`] with another delimiter.
#[inline]
pub(crate) fn escape_delimited(part: &str, delimiter: char, code: [u8; 2], out: &mut String) {
    // An ASCII delimiter is one byte, which no other character's UTF-8 contains.
    let delimiter = u8::try_from(delimiter).ok().filter(u8::is_ascii);
    let bytes = part.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let code = match b {
            b'%' => *b"25",
            _ if Some(b) == delimiter => code,
            _ => continue,
        };
        // `b` is ASCII, so `i` and `i + 1` are character boundaries.
        out.push_str(&part[start..i]);
        out.push(ESCAPE);
        out.push(char::from(code[0]));
        out.push(char::from(code[1]));
        start = i + 1;
    }
    out.push_str(&part[start..]);
}

/// What a [`KeyPart::write_part`] wrote, checked: not empty, no `#`, and every `%` the start
/// of an escape (`%23`, `%25`).
/// Checks what a hand-written part wrote in `form`: a composite part is non-empty with `#` and
/// `%` escaped, a number part a number in DynamoDB's stored form ([`KeyPartError::NotANumber`]).
#[inline]
pub(crate) fn check_written_in(text: &str, form: PartForm) -> Result<(), KeyPartError> {
    match form {
        PartForm::Composite => check_written(text),
        PartForm::Number if is_stored_number(text) => Ok(()),
        PartForm::Number => Err(KeyPartError::NotANumber { text: text.to_owned() }),
    }
}

/// Whether `text` is a number as DynamoDB stores and returns it (its canonical form, see
/// [`canonical_number`](crate::value::canonical_number)).
fn is_stored_number(text: &str) -> bool {
    crate::value::canonical_number(text).is_some_and(|c| c == text)
}

#[inline]
pub(crate) fn check_written(text: &str) -> Result<(), KeyPartError> {
    if text.is_empty() {
        return Err(KeyPartError::Empty);
    }
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'#' => return Err(unescaped(text)),
            b'%' if !matches!(bytes.get(i + 1..i + 3), Some(b"23" | b"25")) => return Err(unescaped(text)),
            _ => {}
        }
    }
    Ok(())
}

#[cold]
#[inline(never)]
fn unescaped(text: &str) -> KeyPartError {
    KeyPartError::Unescaped { text: text.to_owned() }
}

/// Reverses [`escape_into`]. `None` when a `%` is not followed by `23` or `25`, which an
/// encoder of this crate never writes.
pub fn unescape(part: &str) -> Option<Cow<'_, str>> {
    unescape_delimited(part, DELIMITER, *b"23")
}

/// Reverses [`escape_delimited`] of `delimiter` and its hex digits `code`: `None` for a `%`
/// that starts neither `%25` nor the delimiter's escape.
pub(crate) fn unescape_delimited(part: &str, delimiter: char, code: [u8; 2]) -> Option<Cow<'_, str>> {
    if !part.contains(ESCAPE) {
        return Some(Cow::Borrowed(part));
    }
    let mut out = String::with_capacity(part.len());
    let mut rest = part;
    while let Some(i) = rest.find(ESCAPE) {
        out.push_str(&rest[..i]);
        match rest.as_bytes().get(i + 1..i + 3) {
            Some(b"25") => out.push(ESCAPE),
            Some(c) if c == code => out.push(delimiter),
            _ => return None,
        }
        rest = &rest[i + 3..];
    }
    out.push_str(rest);
    Some(Cow::Owned(out))
}

/// How a key part is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartForm {
    /// Inside a string key: escaped, integers zero-padded (order-preserving).
    Composite,
    /// As the whole value of a numeric (`N`) key: plain decimal digits.
    Number,
}

/// Why a value cannot be a key part.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyPartError {
    /// An empty string: it would make the key a prefix of other keys.
    #[error("the value is empty")]
    Empty,
    /// The text is not a valid encoding of the part's type.
    #[error("`{text}` is not a valid {ty} key part")]
    Invalid {
        /// The rejected text.
        text: String,
        /// The Rust type that was expected.
        ty: &'static str,
    },
    /// A [`KeyPart`] implementation wrote text that is not a key part: the delimiter `#`
    /// unescaped, or a `%` that is not the start of an escape (`%23`, `%25`); written so, two
    /// different values could give the same key. Use [`escape_into`] in `write_part`: a part is
    /// always written in this canonical form, whatever the entity's delimiter and
    /// `key_values`; the key writer turns it into the entity's style afterwards.
    #[error(
        "the part written, `{text}`, holds `#` or `%` unescaped: `write_part` writes the canonical form, with `#` as \
         `%23` and `%` as `%25` (`escape_into`), whatever the entity's key style, which is applied after"
    )]
    Unescaped {
        /// The text the implementation wrote.
        text: String,
    },
    /// A [`KeyPart`] implementation with `NUMERIC = true` wrote, for a number (`N`) key, text
    /// that is not a number in the form DynamoDB stores: an optional `-`, digits with no leading
    /// zero, and an optional fraction with no trailing zero (`42`, `-7`, `0.5`; not `042`,
    /// `+1`, `1.0`, `-0` or `abc`). DynamoDB refuses text that is no number and stores any
    /// other number in that form, so the key would not read back as written.
    #[error(
        "the part written, `{text}`, is not a number in DynamoDB's stored form (an optional `-`, digits without a \
         leading zero, an optional fraction without a trailing zero), as a number (N) key needs"
    )]
    NotANumber {
        /// The text the implementation wrote.
        text: String,
    },
    /// A binary value (`Vec<u8>`) in a key that is not binary: a binary value can only be a whole
    /// key attribute of type `B` (a template that is exactly its placeholder, such as
    /// `<digest>`). `#[derive(Entity)]` refuses such a template at compile time.
    #[error(
        "a binary value can only be a whole key attribute of type B (a template that is exactly its placeholder), \
         not a part of a string or number key"
    )]
    Binary,
    /// The value holds the key's delimiter (`#`, or the entity's `#[entity(delimiter = "|")]`),
    /// and the entity writes values verbatim (`#[entity(key_values = "verbatim")]`, see
    /// [`KeyStyle::escape`]): written so, the key would have another structure.
    #[error("`{text}` holds the delimiter `{delimiter}`, which this entity's keys do not escape")]
    Delimiter {
        /// The value, unescaped.
        text: String,
        /// The key's delimiter.
        delimiter: char,
    },
}

/// A type that can fill a placeholder of a key template.
///
/// Implemented for `String`, `str`, all integer types, `bool`, [`Timestamp`], [`Date`], `Option<T>`
/// (for sparse GSI keys only), and by `#[derive(KeyPart)]` for newtypes and field-less enums.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot fill a key template placeholder",
    label = "used in a key template, so it must implement `KeyPart`",
    note = "derive it with `#[derive(KeyPart)]` on a newtype (`struct SkillId(String);`) or a field-less enum, or implement `dynamo_entity::KeyPart`"
)]
pub trait KeyPart {
    /// The type generated key functions take by reference for this part: `str` for `String`,
    /// `T::Arg` for `Option<T>`, `Self` otherwise.
    type Arg: ?Sized + KeyPart;

    /// Whether a template made of this part alone is stored as a DynamoDB number (`N`).
    const NUMERIC: bool = false;

    /// Whether this part is binary (`Vec<u8>`, `[u8]`): a template made of it alone is stored as
    /// DynamoDB binary (`B`), and it can fill no other template ([`KeyPartError::Binary`]).
    /// [`KeyPart::write_part`] then writes the bytes as lowercase hexadecimal text (two digits a
    /// byte), which the key writer turns back into the bytes.
    const BINARY: bool = false;

    /// How many values the part takes: [`Cardinality::Low`] for `bool` and the field-less enums
    /// of `#[derive(KeyPart)]`, [`Cardinality::High`] otherwise. The design lint reports a
    /// partition key made only of low parts as a hot partition.
    const CARDINALITY: Cardinality = Cardinality::High;

    /// What texts [`KeyPart::write_part`] can write in a string key ([`PartForm::Composite`]):
    /// [`PartShape::Any`] unless the part says more (integers, `bool`, [`Timestamp`], [`Date`],
    /// the field-less enums of `#[derive(KeyPart)]`). The collision checks of
    /// `#[derive(TableDef)]` use it: a literal segment or another part that this part can never
    /// write does not collide with it. A narrower shape than the part really writes would hide a
    /// collision: leave the default unless sure.
    const SHAPE: PartShape = PartShape::Any;

    /// Whether [`KeyPart::write_part`] is known to write a non-empty, escaped part: `true` for
    /// the library's own part types, whose writers escape by construction. The key writer checks
    /// the text of every other implementation (non-empty, no unescaped `#` or `%`), so a
    /// hand-written part cannot break a key's structure; leave it `false`.
    #[doc(hidden)]
    const WRITES_ESCAPED: bool = false;

    /// Appends the encoded part to `out`. Returns `Ok(false)`, writing nothing, when the value
    /// is absent (`Option::None`), which leaves a sparse GSI key unwritten.
    ///
    /// # Errors
    /// [`KeyPartError::Empty`] for an empty string.
    fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError>;

    /// Parses an unescaped part written by [`KeyPart::write_part`].
    ///
    /// # Errors
    /// [`KeyPartError::Invalid`] when `text` is not such a part.
    fn parse_part(text: &str, form: PartForm) -> Result<Self, KeyPartError>
    where
        Self: Sized,
    {
        let _ = form;
        Err(KeyPartError::Invalid { text: text.to_owned(), ty: std::any::type_name::<Self>() })
    }

    /// Whether `encoded` is exactly the text [`KeyPart::write_part`] writes for this value in
    /// `form`: `false` for an absent value (`None`) and for a value that cannot be a key part.
    /// `encoded` is one segment of a stored key (no delimiter inside). The key check of every
    /// decode (generated `from_item`) asks this; the default writes the part into a reused buffer and
    /// compares, and the built-in types compare without writing. An override must agree with
    /// `write_part` exactly; a `false` where the texts are equal only costs time (the check
    /// then builds the whole key), a `true` where they differ would let a mismatched item
    /// decode.
    #[inline]
    fn part_eq(&self, encoded: &str, form: PartForm) -> bool {
        written_eq(self, encoded, form)
    }
}

thread_local! {
    /// One scratch buffer per thread for [`KeyPart::part_eq`]'s default.
    static PART_SCRATCH: std::cell::Cell<String> = const { std::cell::Cell::new(String::new()) };
}

/// [`KeyPart::part_eq`] by writing the part into a per-thread buffer and comparing.
fn written_eq<T: KeyPart + ?Sized>(value: &T, encoded: &str, form: PartForm) -> bool {
    let mut buf = PART_SCRATCH.with(std::cell::Cell::take);
    buf.clear();
    let same = matches!(value.write_part(&mut buf, form), Ok(true)) && buf == encoded;
    PART_SCRATCH.with(|scratch| scratch.set(buf));
    same
}

/// Whether `encoded` is `part` as [`escape_into`] writes it, compared without writing.
#[inline]
pub(crate) fn escaped_eq(part: &str, encoded: &str) -> bool {
    let p = part.as_bytes();
    if p.len() == encoded.len() {
        // Escaping only lengthens: equal lengths mean nothing was escaped.
        return p == encoded.as_bytes() && !p.iter().any(|&b| b == b'#' || b == b'%');
    }
    let mut e = encoded.as_bytes();
    let mut start = 0;
    for (i, &b) in p.iter().enumerate() {
        let rep: &[u8] = match b {
            b'#' => b"%23",
            b'%' => b"%25",
            _ => continue,
        };
        match e.strip_prefix(&p[start..i]).and_then(|r| r.strip_prefix(rep)) {
            Some(r) => e = r,
            None => return false,
        }
        start = i + 1;
    }
    e == &p[start..]
}

impl KeyPart for str {
    type Arg = str;
    const WRITES_ESCAPED: bool = true;
    fn write_part(&self, out: &mut String, _: PartForm) -> Result<bool, KeyPartError> {
        if self.is_empty() {
            return Err(KeyPartError::Empty);
        }
        escape_into(self, out);
        Ok(true)
    }
    #[inline]
    fn part_eq(&self, encoded: &str, _: PartForm) -> bool {
        !self.is_empty() && escaped_eq(self, encoded)
    }
}

impl KeyPart for String {
    type Arg = str;
    const WRITES_ESCAPED: bool = true;
    fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError> {
        self.as_str().write_part(out, form)
    }
    #[inline]
    fn part_eq(&self, encoded: &str, form: PartForm) -> bool {
        self.as_str().part_eq(encoded, form)
    }
    fn parse_part(text: &str, _: PartForm) -> Result<Self, KeyPartError> {
        if text.is_empty() {
            return Err(KeyPartError::Empty);
        }
        Ok(text.to_owned())
    }
}

impl<T: KeyPart + ?Sized> KeyPart for &T {
    type Arg = T::Arg;
    const WRITES_ESCAPED: bool = T::WRITES_ESCAPED;
    const NUMERIC: bool = T::NUMERIC;
    const BINARY: bool = T::BINARY;
    const CARDINALITY: Cardinality = T::CARDINALITY;
    const SHAPE: PartShape = T::SHAPE;
    fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError> {
        (**self).write_part(out, form)
    }
    #[inline]
    fn part_eq(&self, encoded: &str, form: PartForm) -> bool {
        (**self).part_eq(encoded, form)
    }
}

impl<T: KeyPart> KeyPart for Option<T> {
    type Arg = T::Arg;
    const WRITES_ESCAPED: bool = T::WRITES_ESCAPED;
    const NUMERIC: bool = T::NUMERIC;
    const BINARY: bool = T::BINARY;
    const CARDINALITY: Cardinality = T::CARDINALITY;
    const SHAPE: PartShape = T::SHAPE;
    fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError> {
        match self {
            Some(v) => v.write_part(out, form),
            None => Ok(false),
        }
    }
    fn parse_part(text: &str, form: PartForm) -> Result<Self, KeyPartError> {
        T::parse_part(text, form).map(Some)
    }
    #[inline]
    fn part_eq(&self, encoded: &str, form: PartForm) -> bool {
        self.as_ref().is_some_and(|v| v.part_eq(encoded, form))
    }
}

impl KeyPart for [u8] {
    type Arg = [u8];
    const BINARY: bool = true;
    const WRITES_ESCAPED: bool = true;
    /// Lowercase hexadecimal, two digits a byte (see [`KeyPart::BINARY`]).
    ///
    /// # Errors
    /// [`KeyPartError::Empty`] for no bytes: DynamoDB refuses an empty binary key.
    fn write_part(&self, out: &mut String, _: PartForm) -> Result<bool, KeyPartError> {
        if self.is_empty() {
            return Err(KeyPartError::Empty);
        }
        hex_into(self, out);
        Ok(true)
    }
}

impl KeyPart for Vec<u8> {
    type Arg = [u8];
    const BINARY: bool = true;
    const WRITES_ESCAPED: bool = true;
    fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError> {
        self.as_slice().write_part(out, form)
    }
    fn parse_part(text: &str, _: PartForm) -> Result<Self, KeyPartError> {
        if text.is_empty() {
            return Err(KeyPartError::Empty);
        }
        hex_decode(text).ok_or_else(|| KeyPartError::Invalid { text: text.to_owned(), ty: "Vec<u8>" })
    }
}

/// Appends `bytes` as lowercase hexadecimal, two digits a byte: the text form of a binary key
/// while it is built, whose string order and prefixes are the bytes'.
pub(crate) fn hex_into(bytes: &[u8], out: &mut String) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    out.reserve(bytes.len() * 2);
    for &b in bytes {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 15)]));
    }
}

/// The bytes of hexadecimal text (either case; a key style may have folded it), `None` for an
/// odd length or a character that is not a hexadecimal digit.
pub(crate) fn hex_decode(text: &str) -> Option<Vec<u8>> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let b = text.as_bytes();
    if !b.len().is_multiple_of(2) {
        return None;
    }
    b.chunks_exact(2).map(|p| Some(digit(p[0])? << 4 | digit(p[1])?)).collect()
}

impl KeyPart for bool {
    type Arg = bool;
    const WRITES_ESCAPED: bool = true;
    const SHAPE: PartShape = PartShape::OneOf(&["true", "false"]);
    const CARDINALITY: Cardinality = Cardinality::Low;
    fn write_part(&self, out: &mut String, _: PartForm) -> Result<bool, KeyPartError> {
        out.push_str(if *self { "true" } else { "false" });
        Ok(true)
    }
    fn parse_part(text: &str, _: PartForm) -> Result<Self, KeyPartError> {
        match text {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(KeyPartError::Invalid { text: text.to_owned(), ty: "bool" }),
        }
    }
    #[inline]
    fn part_eq(&self, encoded: &str, _: PartForm) -> bool {
        encoded == if *self { "true" } else { "false" }
    }
}

impl KeyPart for Timestamp {
    type Arg = Timestamp;
    const WRITES_ESCAPED: bool = true;
    const SHAPE: PartShape = PartShape::UtcTime;
    fn write_part(&self, out: &mut String, _: PartForm) -> Result<bool, KeyPartError> {
        self.write_to(out);
        Ok(true)
    }
    fn parse_part(text: &str, _: PartForm) -> Result<Self, KeyPartError> {
        Timestamp::parse(text).map_err(|_| KeyPartError::Invalid { text: text.to_owned(), ty: "Timestamp" })
    }
    /// Parses instead of writing: [`Timestamp::parse`] accepts exactly one text per value, the
    /// one [`KeyPart::write_part`] writes.
    #[inline]
    fn part_eq(&self, encoded: &str, _: PartForm) -> bool {
        encoded.len() == crate::value::time::TIMESTAMP_LEN && Timestamp::parse(encoded).is_ok_and(|t| t == *self)
    }
}

impl KeyPart for Date {
    type Arg = Date;
    const WRITES_ESCAPED: bool = true;
    const SHAPE: PartShape = PartShape::UtcDate;
    fn write_part(&self, out: &mut String, _: PartForm) -> Result<bool, KeyPartError> {
        self.write_to(out);
        Ok(true)
    }
    fn parse_part(text: &str, _: PartForm) -> Result<Self, KeyPartError> {
        Date::parse(text).map_err(|_| KeyPartError::Invalid { text: text.to_owned(), ty: "Date" })
    }
    /// Parses instead of writing: [`Date::parse`] accepts exactly one text per day, the one
    /// [`KeyPart::write_part`] writes.
    #[inline]
    fn part_eq(&self, encoded: &str, _: PartForm) -> bool {
        encoded.len() == crate::value::time::DATE_LEN && Date::parse(encoded).is_ok_and(|d| d == *self)
    }
}

/// Writes `v` as exactly `width` decimal digits (the caller guarantees it fits).
#[inline]
fn push_padded(out: &mut String, v: u128, width: usize) {
    let mut buf = [b'0'; 39];
    let start = buf.len() - width;
    let first = write_digits(&mut buf, v);
    debug_assert!(first >= start);
    out.push_str(std::str::from_utf8(&buf[start..]).unwrap_or_default());
}

/// Writes `v`'s decimal digits at the end of `buf`, returning where they start (`buf.len()`
/// for zero: no digits). 64-bit values, the common case, divide in 64 bits (a 128-bit
/// division is a library call).
#[inline]
fn write_digits(buf: &mut [u8; 39], v: u128) -> usize {
    let mut i = buf.len();
    if let Ok(mut v) = u64::try_from(v) {
        while v > 0 {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    } else {
        let mut v = v;
        while v > 0 {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
        }
    }
    i
}

/// Writes an integer (`-` when `negative`, then `magnitude`) as a DynamoDB number, which holds
/// at most 38 significant digits (only a 128-bit integer can have more).
#[inline]
fn write_number(out: &mut String, negative: bool, magnitude: u128) -> Result<(), KeyPartError> {
    let mut buf = [b'0'; 39];
    let first = write_digits(&mut buf, magnitude).min(buf.len() - 1);
    let digits = &buf[first..];
    let significant = digits.len() - digits.iter().rev().take_while(|&&d| d == b'0').count();
    let text = std::str::from_utf8(digits).unwrap_or_default();
    if significant > 38 {
        let sign = if negative { "-" } else { "" };
        return Err(KeyPartError::Invalid {
            text: format!("{sign}{text}"),
            ty: "a DynamoDB number (at most 38 significant digits)",
        });
    }
    if negative {
        out.push('-');
    }
    out.push_str(text);
    Ok(())
}

fn parse_padded(text: &str, width: usize) -> Option<u128> {
    if text.len() != width || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// Whether `text` is `v` written as exactly `width` decimal digits ([`push_padded`]).
#[inline]
fn padded_eq(text: &str, v: u128, width: usize) -> bool {
    let b = text.as_bytes();
    if b.len() != width {
        return false;
    }
    let mut v = v;
    for &c in b.iter().rev() {
        if c != b'0' + (v % 10) as u8 {
            return false;
        }
        v /= 10;
    }
    v == 0
}

/// Whether `text` is the integer `v` in plain decimal, as [`write_number`] writes it (`-` for
/// negatives, no leading zeros or `+`), with at most 38 significant digits.
#[inline]
fn number_eq(text: &str, negative: bool, magnitude: u128) -> bool {
    let digits = match text.strip_prefix('-') {
        Some(rest) if negative => rest,
        Some(_) => return false,
        None if negative => return false,
        None => text,
    };
    let n = digits.len();
    if n == 0 || (n > 1 && digits.starts_with('0')) || n > 39 {
        return false;
    }
    if !padded_eq(digits, magnitude, n) {
        return false;
    }
    digits.trim_end_matches('0').len() <= 38
}

macro_rules! unsigned_key_part {
    ($($t:ty => $w:expr),*) => {$(
        impl KeyPart for $t {
            type Arg = $t;
            const NUMERIC: bool = true;
            const WRITES_ESCAPED: bool = true;
            const SHAPE: PartShape = PartShape::Digits { width: $w, signed: false };
            #[inline]
            fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError> {
                match form {
                    PartForm::Composite => push_padded(out, *self as u128, $w),
                    PartForm::Number => write_number(out, false, *self as u128)?,
                }
                Ok(true)
            }
            fn parse_part(text: &str, form: PartForm) -> Result<Self, KeyPartError> {
                let invalid = || KeyPartError::Invalid { text: text.to_owned(), ty: stringify!($t) };
                match form {
                    PartForm::Composite => parse_padded(text, $w).and_then(|v| <$t>::try_from(v).ok()).ok_or_else(invalid),
                    PartForm::Number => crate::value::parse_integer::<$t>(text).ok_or_else(invalid),
                }
            }
            #[inline]
            fn part_eq(&self, encoded: &str, form: PartForm) -> bool {
                match form {
                    PartForm::Composite => padded_eq(encoded, *self as u128, $w),
                    PartForm::Number => number_eq(encoded, false, *self as u128),
                }
            }
        }
    )*};
}

macro_rules! signed_key_part {
    ($($t:ty : $u:ty => $w:expr),*) => {$(
        impl KeyPart for $t {
            type Arg = $t;
            const NUMERIC: bool = true;
            const WRITES_ESCAPED: bool = true;
            const SHAPE: PartShape = PartShape::Digits { width: $w, signed: true };
            #[inline]
            fn write_part(&self, out: &mut String, form: PartForm) -> Result<bool, KeyPartError> {
                match form {
                    PartForm::Composite => {
                        if *self >= 0 {
                            push_padded(out, *self as u128, $w);
                        } else {
                            out.push('-');
                            // value - MIN, computed in the unsigned type: always in 0..=MAX.
                            let offset = (*self as $u).wrapping_sub(<$t>::MIN as $u);
                            push_padded(out, offset as u128, $w);
                        }
                    }
                    PartForm::Number => write_number(out, *self < 0, self.unsigned_abs() as u128)?,
                }
                Ok(true)
            }
            fn parse_part(text: &str, form: PartForm) -> Result<Self, KeyPartError> {
                let invalid = || KeyPartError::Invalid { text: text.to_owned(), ty: stringify!($t) };
                match form {
                    PartForm::Composite => match text.strip_prefix('-') {
                        Some(rest) => {
                            let offset = parse_padded(rest, $w).ok_or_else(invalid)?;
                            if offset > <$t>::MAX as u128 {
                                return Err(invalid());
                            }
                            Ok((<$t>::MIN as $u).wrapping_add(offset as $u) as $t)
                        }
                        None => parse_padded(text, $w).and_then(|v| <$t>::try_from(v).ok()).ok_or_else(invalid),
                    },
                    PartForm::Number => crate::value::parse_integer::<$t>(text).ok_or_else(invalid),
                }
            }
            #[inline]
            fn part_eq(&self, encoded: &str, form: PartForm) -> bool {
                match (form, *self >= 0) {
                    (PartForm::Composite, true) => padded_eq(encoded, *self as u128, $w),
                    (PartForm::Composite, false) => encoded.strip_prefix('-').is_some_and(|rest| {
                        padded_eq(rest, (*self as $u).wrapping_sub(<$t>::MIN as $u) as u128, $w)
                    }),
                    (PartForm::Number, nonnegative) => {
                        number_eq(encoded, !nonnegative, (*self as i128).unsigned_abs())
                    }
                }
            }
        }
    )*};
}

unsigned_key_part!(u8 => 3, u16 => 5, u32 => 10, u64 => 20, usize => 20, u128 => 39);
signed_key_part!(i8: u8 => 3, i16: u16 => 5, i32: u32 => 10, i64: u64 => 19, isize: usize => 19, i128: u128 => 39);

/// The plain decimal form of an integer key part read back in composite form, whatever integer
/// type wrote it: the inverse of the order-preserving encoding above. A non-negative part is its
/// digits without the padding; a negative one (`-` and the offset from the type's minimum) is
/// decoded by the signed type its width belongs to (3, 5, 10, 19 or 39 digits: `i8`, `i16`,
/// `i32`, `i64`, `i128`). `None` for text that no integer type writes.
///
/// Used where a key is rebuilt from another key's parts without the field's Rust type (an
/// update that rewrites a numeric GSI key from the primary key).
pub(crate) fn integer_number_form(composite: &str) -> Option<String> {
    let Some(rest) = composite.strip_prefix('-') else {
        if composite.is_empty() || !composite.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let digits = composite.trim_start_matches('0');
        return Some(if digits.is_empty() { "0".to_owned() } else { digits.to_owned() });
    };
    let form = PartForm::Composite;
    match rest.len() {
        3 => i8::parse_part(composite, form).ok().map(|v| v.to_string()),
        5 => i16::parse_part(composite, form).ok().map(|v| v.to_string()),
        10 => i32::parse_part(composite, form).ok().map(|v| v.to_string()),
        19 => i64::parse_part(composite, form).ok().map(|v| v.to_string()),
        39 => i128::parse_part(composite, form).ok().map(|v| v.to_string()),
        _ => None,
    }
}

/// What picks the shard of a shard segment `<shard(field, N)>` when a key is written: the source
/// field's value (hashed with [`shard_of`]) or a given shard number.
#[derive(Debug)]
pub enum ShardBy<'a, T: ?Sized> {
    /// The value of the shard's source field (writing an item's key).
    Source(&'a T),
    /// A given shard number, below the shard count (querying one shard).
    Index(u16),
}

/// A key could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A part's value cannot be encoded.
    #[error("{entity}.{field} cannot be a part of {attribute} (`{template}`): {reason}")]
    Part {
        /// The entity type name.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The template.
        template: &'static str,
        /// The field filling the part.
        field: &'static str,
        /// Why it cannot be encoded.
        reason: KeyPartError,
    },
    /// A part is `None` in a key that must be present (the primary key).
    #[error("{entity}.{field} is None, but {attribute} (`{template}`) needs it")]
    Missing {
        /// The entity type name.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The template.
        template: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// The encoded key is longer than DynamoDB allows.
    #[error("{entity} {attribute} (`{template}`) is {bytes} bytes, {over} over DynamoDB's limit of {limit} bytes")]
    TooLong {
        /// The entity type name.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The template.
        template: &'static str,
        /// The encoded size in bytes.
        bytes: usize,
        /// By how many bytes it exceeds the limit.
        over: usize,
        /// The limit in bytes (2,048 for partition keys, 1,024 for sort keys).
        limit: usize,
    },
    /// A key attribute of a multi-attribute GSI would hold an empty string, which DynamoDB
    /// refuses as a key attribute value (the whole write fails). A `None` leaves the item out
    /// of the index instead (sparse index).
    #[error(
        "{entity}.{field} is an empty string, which {attribute}, a key attribute of {index}, cannot hold: DynamoDB \
         refuses an empty key attribute value"
    )]
    EmptyKeyAttribute {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The field stored in it.
        field: &'static str,
    },
    /// As [`KeyError::EmptyKeyAttribute`] for a binary key attribute (`Vec<u8>`) holding no
    /// bytes.
    #[error(
        "{entity}.{field} is empty binary (no bytes), which {attribute}, a key attribute of {index}, cannot hold: \
         DynamoDB refuses an empty key attribute value"
    )]
    EmptyBinaryKeyAttribute {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The field stored in it.
        field: &'static str,
    },
    /// A string or binary key attribute of a multi-attribute GSI holds more than DynamoDB allows
    /// for one key attribute: 2,048 bytes (a string's UTF-8 bytes, a binary value's bytes) on the
    /// partition key side, 1,024 on the sort key side.
    #[error(
        "{entity}.{field} (key attribute `{attribute}` of {index}) is {bytes} bytes, {over} over DynamoDB's limit \
         of {limit} bytes"
    )]
    KeyAttributeTooLong {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The field stored in it.
        field: &'static str,
        /// The value's size in bytes.
        bytes: usize,
        /// By how many bytes it exceeds the limit.
        over: usize,
        /// The limit in bytes (2,048 partition side, 1,024 sort side).
        limit: usize,
    },
    /// The key attributes of one side of a multi-attribute GSI key hold more together than
    /// DynamoDB allows: the partition key attributes of one index at most 2,048 bytes in all,
    /// the sort key attributes 1,024 (each value measured as DynamoDB measures it: a string's
    /// UTF-8 bytes, a number's stored size).
    #[error(
        "{entity}: the {side} key attributes of {index} ({attributes}) are {bytes} bytes together, {over} over \
         DynamoDB's aggregate limit of {limit} bytes"
    )]
    AggregateTooLong {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// `partition` or `sort`.
        side: &'static str,
        /// Each attribute measured, with its size: `b (600 bytes), c (600 bytes)`.
        attributes: String,
        /// The sum of the sizes in bytes.
        bytes: usize,
        /// By how many bytes it exceeds the limit.
        over: usize,
        /// The limit in bytes (2,048 partition side, 1,024 sort side).
        limit: usize,
    },
    /// A query's `BETWEEN low AND high` on a multi-attribute GSI key attribute whose lower bound
    /// is above its upper bound, which DynamoDB refuses ("BETWEEN operator requires upper bound
    /// to be greater than or equal to lower bound"); bounds compare as DynamoDB compares them:
    /// numbers numerically, strings by their UTF-8 bytes.
    #[error(
        "{entity}: a query of {index} asks for `{attribute}` BETWEEN {low} AND {high}, whose lower bound is above its \
         upper bound: DynamoDB requires low <= high"
    )]
    ReversedBetween {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The lower bound as given (its text).
        low: String,
        /// The upper bound as given (its text).
        high: String,
    },
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `N` when `T` is numeric, `B` when it is binary, else `S`: the key type of a template made of
/// one `T` placeholder.
pub const fn single_key_type<T: KeyPart + ?Sized>() -> KeyType {
    if T::BINARY {
        KeyType::B
    } else if T::NUMERIC {
        KeyType::N
    } else {
        KeyType::S
    }
}

#[cfg(test)]
mod tests {
    use super::support::KeyMatcher;
    use aws_sdk_dynamodb::types::AttributeValue;

    /// A hand-written part that writes its text as it is, unchecked.
    struct Raw(&'static str);
    impl KeyPart for Raw {
        type Arg = Raw;
        fn write_part(&self, out: &mut String, _: PartForm) -> Result<bool, KeyPartError> {
            out.push_str(self.0);
            Ok(true)
        }
    }

    #[test]
    fn the_writer_checks_what_any_key_part_writes() {
        let write = |a: &Raw, b: &Raw| {
            let mut w = KeyWriter::new(ctx(&TWO, MAX_SORT_KEY_BYTES));
            w.part(a)?;
            w.part(b)?;
            w.finish()
        };
        assert_eq!(write(&Raw("a"), &Raw("b%23c%25")).unwrap(), AttributeValue::S("ORDER#a#b%23c%25".into()));
        let part_error = |e: KeyError| match e {
            KeyError::Part { field, reason, .. } => (field, reason),
            other => panic!("{other:?}"),
        };
        assert_eq!(part_error(write(&Raw(""), &Raw("b")).unwrap_err()), ("created_at", KeyPartError::Empty));
        assert_eq!(
            part_error(write(&Raw("a"), &Raw("x#y")).unwrap_err()),
            ("order_id", KeyPartError::Unescaped { text: "x#y".into() })
        );
        assert_eq!(
            part_error(write(&Raw("50%"), &Raw("b")).unwrap_err()),
            ("created_at", KeyPartError::Unescaped { text: "50%".into() })
        );
        assert_eq!(
            part_error(write(&Raw("5%2"), &Raw("b")).unwrap_err()),
            ("created_at", KeyPartError::Unescaped { text: "5%2".into() })
        );
    }

    #[test]
    fn a_hand_written_number_part_is_a_stored_number() {
        for ok in ["0", "7", "42", "-7", "0.5", "-0.25", "10.01", "123456789012345678901234567890"] {
            assert_eq!(check_written_in(ok, PartForm::Number), Ok(()), "{ok}");
        }
        for bad in ["", "-", "007", "+1", "1.0", "1.", ".5", "-0", "abc", "1e3", "1 ", "0x1", "--1"] {
            assert_eq!(
                check_written_in(bad, PartForm::Number),
                Err(KeyPartError::NotANumber { text: bad.to_owned() }),
                "{bad}"
            );
        }
        // The composite form keeps its own rule.
        assert_eq!(check_written_in("007", PartForm::Composite), Ok(()));
    }

    #[test]
    fn integer_number_form_inverts_every_integer_encoding() {
        fn composite<T: KeyPart>(v: T) -> String {
            let mut out = String::new();
            v.write_part(&mut out, PartForm::Composite).unwrap();
            out
        }
        assert_eq!(integer_number_form(&composite(42u64)).as_deref(), Some("42"));
        assert_eq!(integer_number_form(&composite(0u8)).as_deref(), Some("0"));
        assert_eq!(integer_number_form(&composite(-1i8)).as_deref(), Some("-1"));
        assert_eq!(integer_number_form(&composite(i16::MIN)).as_deref(), Some("-32768"));
        assert_eq!(integer_number_form(&composite(-7i32)).as_deref(), Some("-7"));
        assert_eq!(integer_number_form(&composite(i64::MIN)).as_deref(), Some("-9223372036854775808"));
        assert_eq!(integer_number_form(&composite(-5i128)).as_deref(), Some("-5"));
        assert_eq!(integer_number_form(&composite(77i64)).as_deref(), Some("77"));
        assert_eq!(integer_number_form("abc"), None);
        assert_eq!(integer_number_form(""), None);
        assert_eq!(integer_number_form("-12"), None, "no signed type is 2 digits wide");
    }

    use super::*;
    use proptest::prelude::*;

    static TWO: Template = Template {
        source: "ORDER#<created_at>#<order_id>",
        segments: &[Segment::Literal("ORDER"), Segment::Field("created_at"), Segment::Field("order_id")],
        key_type: KeyType::S,
        cardinality: Cardinality::High,
        style: KeyStyle::DEFAULT,
    };
    static ONE_NUMBER: Template = Template {
        source: "<n>",
        segments: &[Segment::Field("n")],
        key_type: KeyType::N,
        cardinality: Cardinality::High,
        style: KeyStyle::DEFAULT,
    };
    static SHARDED: Template = Template {
        source: "SKILL#<status>#<shard(id, 16)>",
        segments: &[Segment::Literal("SKILL"), Segment::Field("status"), Segment::Shard { field: "id", count: 16 }],
        key_type: KeyType::S,
        cardinality: Cardinality::Low,
        style: KeyStyle::DEFAULT,
    };

    fn ctx(t: &'static Template, max: usize) -> KeyContext {
        KeyContext { entity: "Order", attribute: "SK", template: t, max_bytes: max }
    }

    fn encode2(a: &str, b: &str) -> Result<AttributeValue, KeyError> {
        let mut w = KeyWriter::new(ctx(&TWO, MAX_SORT_KEY_BYTES));
        w.part(a)?;
        w.part(b)?;
        w.finish()
    }

    fn composite<T: KeyPart>(v: T) -> String {
        let mut s = String::new();
        v.write_part(&mut s, PartForm::Composite).unwrap();
        s
    }

    #[test]
    fn delimiter_inside_a_part_is_escaped() {
        assert_eq!(encode2("2024", "x#y").unwrap(), AttributeValue::S("ORDER#2024#x%23y".into()));
        assert_eq!(encode2("2024#x", "y").unwrap(), AttributeValue::S("ORDER#2024%23x#y".into()));
        assert_eq!(encode2("100%", "a").unwrap(), AttributeValue::S("ORDER#100%25#a".into()));
        assert_eq!(TWO.parse("ORDER#100%25#a").unwrap(), vec!["100%", "a"]);
        assert!(TWO.parse("ORDER#100%2#a").is_err());
        assert!(TWO.parse("ORDERS#1#a").is_err());
        assert!(TWO.parse("ORDER##a").is_err());
    }

    #[test]
    fn empty_and_oversize_parts_are_errors() {
        assert_eq!(
            encode2("", "a"),
            Err(KeyError::Part {
                entity: "Order",
                attribute: "SK",
                template: "ORDER#<created_at>#<order_id>",
                field: "created_at",
                reason: KeyPartError::Empty
            })
        );
        let long = "x".repeat(1020);
        assert_eq!(
            encode2("a", &long),
            Err(KeyError::TooLong {
                entity: "Order",
                attribute: "SK",
                template: "ORDER#<created_at>#<order_id>",
                bytes: 1028,
                over: 4,
                limit: 1024
            })
        );
        // A None part of a key that must be complete.
        let mut w = KeyWriter::new(ctx(&TWO, MAX_SORT_KEY_BYTES));
        w.part("a").unwrap();
        w.part(&Option::<String>::None).unwrap();
        assert_eq!(
            w.finish(),
            Err(KeyError::Missing {
                entity: "Order",
                attribute: "SK",
                template: "ORDER#<created_at>#<order_id>",
                field: "order_id"
            })
        );
    }

    #[test]
    fn integers_are_padded_and_signed_ones_keep_order() {
        assert_eq!(composite(7u32), "0000000007");
        assert_eq!(composite(7u64), "00000000000000000007");
        assert_eq!(composite(0i8), "000");
        assert_eq!(composite(127i8), "127");
        assert_eq!(composite(-1i8), "-127");
        assert_eq!(composite(-128i8), "-000");
        assert_eq!(composite(i64::MIN), "-0000000000000000000");
        assert_eq!(composite(-1i64), "-9223372036854775807");
        assert_eq!(i8::parse_part("-127", PartForm::Composite), Ok(-1));
        assert!(i8::parse_part("-128", PartForm::Composite).is_err());
        assert!(u8::parse_part("256", PartForm::Composite).is_err());
        assert!(u8::parse_part("25", PartForm::Composite).is_err());
    }

    #[test]
    fn a_single_numeric_template_is_a_number() {
        let mut w = KeyWriter::new(ctx(&ONE_NUMBER, MAX_SORT_KEY_BYTES));
        w.part(&42u64).unwrap();
        assert_eq!(w.finish(), Ok(AttributeValue::N("42".into())));
        assert_eq!(single_key_type::<u64>(), KeyType::N);
        assert_eq!(single_key_type::<Option<i32>>(), KeyType::N);
        assert_eq!(single_key_type::<String>(), KeyType::S);
        assert_eq!(single_key_type::<Timestamp>(), KeyType::S);
        assert_eq!(single_key_type::<Vec<u8>>(), KeyType::B);
        assert_eq!(single_key_type::<Option<Vec<u8>>>(), KeyType::B);
        assert_eq!(single_key_type::<[u8]>(), KeyType::B);
    }

    #[test]
    fn prefixes_and_constants() {
        assert_eq!(TWO.literal_prefix(), "ORDER#");
        assert_eq!(TWO.constant(), None);
        static META: Template = Template {
            source: "META",
            segments: &[Segment::Literal("META")],
            key_type: KeyType::S,
            cardinality: Cardinality::Low,
            style: KeyStyle::DEFAULT,
        };
        assert_eq!(META.constant().as_deref(), Some("META"));
    }

    #[test]
    fn shards_hash_the_encoded_source_part() {
        // FNV-1a 64 test vectors (from the reference implementation's test suite).
        assert_eq!(fnv1a64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a64(b"foobar"), 0x8594_4171_f739_67e8);
        assert_eq!(shard_of("foobar", 16), (0x8594_4171_f739_67e8_u64 % 16) as u16);
        assert_eq!((shard_width(2), shard_width(10), shard_width(11), shard_width(100)), (1, 1, 2, 2));

        let mut w = KeyWriter::new(ctx(&SHARDED, MAX_PARTITION_KEY_BYTES));
        w.part("pending").unwrap();
        w.shard(ShardBy::Source("foobar")).unwrap();
        assert_eq!(w.finish(), Ok(AttributeValue::S("SKILL#pending#08".into())));
        // The hash is of the encoded part: `#` is hashed as `%23`.
        let mut w = KeyWriter::new(ctx(&SHARDED, MAX_PARTITION_KEY_BYTES));
        w.part("pending").unwrap();
        w.shard(ShardBy::Source("a#b")).unwrap();
        let expect = format!("SKILL#pending#{:02}", fnv1a64(b"a%23b") % 16);
        assert_eq!(w.finish(), Ok(AttributeValue::S(expect)));
        // A given shard number, and one out of range.
        let mut w = KeyWriter::new(ctx(&SHARDED, MAX_PARTITION_KEY_BYTES));
        w.part("approved").unwrap();
        w.shard(ShardBy::<str>::Index(3)).unwrap();
        assert_eq!(w.finish(), Ok(AttributeValue::S("SKILL#approved#03".into())));
        let mut w = KeyWriter::new(ctx(&SHARDED, MAX_PARTITION_KEY_BYTES));
        w.part("approved").unwrap();
        assert!(matches!(w.shard(ShardBy::<str>::Index(16)), Err(KeyError::Part { field: "id", .. })));

        assert_eq!(SHARDED.parse("SKILL#pending#15").unwrap(), vec!["pending"]);
        assert!(SHARDED.parse("SKILL#pending#16").is_err());
        assert!(SHARDED.parse("SKILL#pending#7").is_err());
        assert_eq!(SHARDED.fields().collect::<Vec<_>>(), ["status", "id"]);
        assert_eq!(SHARDED.shard(), Some(("id", 16)));
        assert_eq!(SHARDED.constant(), None);
        assert_eq!(Cardinality::of(&[]), Cardinality::Low);
        assert_eq!(Cardinality::of(&[Cardinality::Low, Cardinality::High]), Cardinality::High);
        assert_eq!(<Option<bool> as KeyPart>::CARDINALITY, Cardinality::Low);
        assert_eq!(<String as KeyPart>::CARDINALITY, Cardinality::High);
    }

    /// What `write_part` writes for `v` in `form`, or `"<none>"` (never a segment's text)
    /// when it writes nothing.
    fn written<T: KeyPart + ?Sized>(v: &T, form: PartForm) -> String {
        let mut s = String::new();
        match v.write_part(&mut s, form) {
            Ok(true) => s,
            _ => "<none>".to_owned(),
        }
    }

    /// `part_eq` says yes exactly for the text `write_part` writes (never when it writes none).
    fn part_eq_cases<T: KeyPart + ?Sized + std::fmt::Debug>(
        v: &T,
        texts: &[&str],
        form: PartForm,
    ) -> Result<(), TestCaseError> {
        let mut w = String::new();
        let writes = matches!(v.write_part(&mut w, form), Ok(true));
        for text in texts.iter().copied().chain([w.as_str()]) {
            prop_assert_eq!(v.part_eq(text, form), writes && w == text, "{:?} {:?} {:?}", v, text, form);
        }
        Ok(())
    }

    #[test]
    fn matcher_compares_segments() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        let check = |t: &'static Template, stored: Option<&AttributeValue>, parts: &[&str]| {
            let mut m = KeyMatcher::new(t, stored);
            for p in parts {
                m.part(*p);
            }
            m.finish()
        };
        assert!(check(&TWO, Some(&s("ORDER#2024#x%23y")), &["2024", "x#y"]));
        assert!(check(&TWO, Some(&s("ORDER#100%25#a")), &["100%", "a"]));
        assert!(check(&TWO, None, &["2024", "x"]), "an item without the attribute passes");
        assert!(!check(&TWO, Some(&s("ORDER#2024#x#y")), &["2024", "x#y"]));
        assert!(!check(&TWO, Some(&s("ORDER#2024#x")), &["2024", "xy"]));
        assert!(!check(&TWO, Some(&s("ORDER#2024#xy")), &["2024", "x"]));
        assert!(!check(&TWO, Some(&s("ORDERS#2024#x")), &["2024", "x"]));
        assert!(!check(&TWO, Some(&s("ORDER#2024")), &["2024", "x"]));
        assert!(!check(&TWO, Some(&s("ORDER#2024#x#")), &["2024", "x"]));
        assert!(!check(&TWO, Some(&s("ORDER##x")), &["", "x"]), "an empty part is no key");
        assert!(!check(&TWO, Some(&s("ORDER#2024#x")), &["2024"]), "a part not given");
        assert!(!check(&TWO, Some(&AttributeValue::N("1".into())), &["2024", "x"]), "another type");
        assert!(!check(&SHARDED, Some(&s("SKILL#a#03")), &["a", "b"]), "a shard segment is not compared");
        const META: Template = Template {
            source: "META",
            segments: &[Segment::Literal("META")],
            key_type: KeyType::S,
            cardinality: Cardinality::Low,
            style: KeyStyle::DEFAULT,
        };
        assert!(check(&META, Some(&s("META")), &[]));
        assert!(!check(&META, Some(&s("METAX")), &[]));
        assert!(!check(&META, Some(&s("MET")), &[]));
        let n = AttributeValue::N("42".into());
        let mut m = KeyMatcher::new(&ONE_NUMBER, Some(&n));
        m.part(&42u32);
        assert!(m.finish());
        let n = AttributeValue::N("042".into());
        let mut m = KeyMatcher::new(&ONE_NUMBER, Some(&n));
        m.part(&42u32);
        assert!(!m.finish(), "the stored text is compared, not the number");
        let n = AttributeValue::N("-7".into());
        let mut m = KeyMatcher::new(&ONE_NUMBER, Some(&n));
        m.part(&-7i64);
        assert!(m.finish());
    }

    fn ordered<T: KeyPart + Ord + Copy + std::fmt::Debug>(a: T, b: T) -> Result<(), TestCaseError> {
        let (ea, eb) = (composite(a), composite(b));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{:?} {:?} -> {} {}", a, b, ea, eb);
        Ok(())
    }

    proptest! {
        #[test]
        fn parse_inverts_encode(a in ".+", b in ".+") {
            let key = encode2(&a, &b).unwrap();
            let text = key.as_s().unwrap();
            let parts = TWO.parse(text).unwrap();
            prop_assert_eq!(parts, vec![a.clone(), b.clone()]);
        }

        #[test]
        fn distinct_tuples_never_collide(a in "[#%a]{1,4}", b in "[#%a]{1,4}", c in "[#%a]{1,4}", d in "[#%a]{1,4}") {
            let (k1, k2) = (encode2(&a, &b).unwrap(), encode2(&c, &d).unwrap());
            prop_assert_eq!(k1 == k2, a == c && b == d);
        }

        #[test]
        fn unsigned_order(a: u64, b: u64) { ordered(a, b)?; ordered(a as u32, b as u32)?; ordered(a as u8, b as u8)?; ordered(a as u16, b as u16)?; }

        #[test]
        fn signed_order(a: i64, b: i64) { ordered(a, b)?; ordered(a as i32, b as i32)?; ordered(a as i8, b as i8)?; ordered(a as i16, b as i16)?; }

        #[test]
        fn wide_order(a: i128, b: i128, c: u128, d: u128) { ordered(a, b)?; ordered(c, d)?; }

        #[test]
        fn part_eq_agrees_with_write_part(
            a in "[#%a\\-0-9]{0,5}", b in "[#%a\\-0-9]{0,5}", x: i64, y: i64, u: u128, v: u128, i: i128, t in any::<i64>()
        ) {
            for form in [PartForm::Composite, PartForm::Number] {
                part_eq_cases(a.as_str(), &[&b, &written(&b, form), &written(&a, form)], form)?;
                let texts = [written(&x, form), written(&y, form), written(&u, form), written(&i, form), a.clone()];
                for text in &texts {
                    part_eq_cases(&x, &[text], form)?;
                    part_eq_cases(&u, &[text, &written(&v, form)], form)?;
                    part_eq_cases(&i, &[text], form)?;
                    part_eq_cases(&(x as i8), &[text, &written(&(y as i8), form)], form)?;
                    part_eq_cases(&(u as u32), &[text, &written(&(v as u32), form)], form)?;
                    part_eq_cases(&(x as i32), &[text, &written(&(y as i32), form)], form)?;
                }
                part_eq_cases(&Some(x), &[&written(&x, form), &written(&y, form)], form)?;
                part_eq_cases(&None::<i64>, &[&written(&x, form), ""], form)?;
                part_eq_cases(&(x > y), &["true", "false", "True", ""], form)?;
                let ts = Timestamp::from_millis(t.rem_euclid(253_402_300_800_000)).unwrap();
                part_eq_cases(&ts, &[&written(&ts, form), &a, "2024-02-30T00:00:00.000Z"], form)?;
            }
        }

        /// A `Date` key part is its fixed-width text: it parses back, the writer and the matcher
        /// agree, and the order of the encoded parts is the order of the days.
        #[test]
        fn date_parts_round_trip_and_sort_by_day(a in -719_528i32..=2_932_896, b in -719_528i32..=2_932_896) {
            let (da, db) = (Date::from_days_since_epoch(a).unwrap(), Date::from_days_since_epoch(b).unwrap());
            let (sa, sb) = (written(&da, PartForm::Composite), written(&db, PartForm::Composite));
            prop_assert_eq!(Date::parse_part(&sa, PartForm::Composite), Ok(da));
            prop_assert_eq!(sa.cmp(&sb), a.cmp(&b));
            prop_assert_eq!(format!("ORDER#{sa}#o1").cmp(&format!("ORDER#{sb}#o1")), a.cmp(&b));
            part_eq_cases(&da, &[&sa, &sb, "2024-02-30", ""], PartForm::Composite)?;
        }

        #[test]
        fn matcher_agrees_with_writer(a in "[#%a]{0,4}", b in "[#%a]{0,4}", stored in "[#%ORDEa0-9]{0,12}", n: u64) {
            let stored = AttributeValue::S(stored);
            let candidates = [stored.clone(), encode2(&a, &b).unwrap_or(AttributeValue::Null(true))];
            for s in &candidates {
                let mut w = KeyWriter::new(ctx(&TWO, MAX_SORT_KEY_BYTES));
                let written = w.part(a.as_str()).and_then(|()| w.part(b.as_str())).is_ok();
                let mut m = KeyMatcher::new(&TWO, Some(s));
                m.part(a.as_str());
                m.part(b.as_str());
                prop_assert_eq!(m.finish(), written && w.matches(Some(s)), "{:?} {:?} {:?}", a, b, s);
            }
            let numbers = [AttributeValue::N(n.to_string()), AttributeValue::N(format!("{n}.0")), AttributeValue::S(n.to_string())];
            for s in &numbers {
                let mut w = KeyWriter::new(ctx(&ONE_NUMBER, MAX_SORT_KEY_BYTES));
                w.part(&n).unwrap();
                let mut m = KeyMatcher::new(&ONE_NUMBER, Some(s));
                m.part(&n);
                prop_assert_eq!(m.finish(), w.matches(Some(s)), "{:?}", s);
            }
        }

        #[test]
        fn integers_round_trip(a: i64, b: u64, c: i128) {
            prop_assert_eq!(i64::parse_part(&composite(a), PartForm::Composite), Ok(a));
            prop_assert_eq!(u64::parse_part(&composite(b), PartForm::Composite), Ok(b));
            prop_assert_eq!(i128::parse_part(&composite(c), PartForm::Composite), Ok(c));
            let mut n = String::new();
            a.write_part(&mut n, PartForm::Number).unwrap();
            prop_assert_eq!(i64::parse_part(&n, PartForm::Number), Ok(a));
        }
    }
}

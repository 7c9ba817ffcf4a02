//! Key templates: their segments, the DynamoDB type of the key they make, and reading a stored
//! key back into its parts ([`Template::parse`], [`Template::fits`]).

use std::borrow::Cow;
use std::fmt;

use aws_sdk_dynamodb::types::{AttributeValue, ScalarAttributeType};

use super::{Cardinality, KeyPart, KeyStyle, PartForm, PartShape, shard_width};
#[cfg(doc)]
use super::{MAX_SHARDS, shard_of, style};

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

    /// The key type of an SDK scalar type, as `DescribeTable` gives it (`S` for one the SDK
    /// does not know).
    pub(crate) fn from_scalar(t: &ScalarAttributeType) -> KeyType {
        match t {
            ScalarAttributeType::N => KeyType::N,
            ScalarAttributeType::B => KeyType::B,
            _ => KeyType::S,
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
    /// A template in the library's own style ([`KeyStyle::DEFAULT`]), its cardinality from
    /// the cardinalities of its placeholders' types ([`Cardinality::of`]). Usable in constant
    /// evaluation; [`Template::with_style`] sets another style.
    ///
    /// ```
    /// use dynamo_entity::key::{Cardinality, KeyType, Segment, Template};
    /// const T: Template =
    ///     Template::new("SKILL#<id>", &[Segment::Literal("SKILL"), Segment::Field("id")], KeyType::S, &[Cardinality::High]);
    /// assert_eq!((T.cardinality, T.literal_prefix()), (Cardinality::High, "SKILL#".to_owned()));
    /// ```
    pub const fn new(
        source: &'static str,
        segments: &'static [Segment],
        key_type: KeyType,
        parts: &[Cardinality],
    ) -> Template {
        Template { source, segments, key_type, cardinality: Cardinality::of(parts), style: KeyStyle::DEFAULT }
    }

    /// This template written in `style` (an entity's `key_case`, `key_values` or `delimiter`).
    pub const fn with_style(self, style: KeyStyle) -> Template {
        Template { style, ..self }
    }

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
        let mut parts = Vec::with_capacity(self.segments.len());
        self.walk(key, |_, piece| {
            parts.push(self.style.unstyle(piece).ok_or(MALFORMED_ESCAPE)?);
            Ok(())
        })
        .map_err(|reason| KeyParseError { template: self.source, key: key.to_owned(), reason })?;
        Ok(parts)
    }

    /// Walks `key` by this template's segments, the one statement of a key's shape: as many
    /// segments as the template, its literal segments, no empty part, each part between its
    /// segment's literal text, and shard numbers of the template's width below its count.
    /// Calls `each` with every placeholder segment (`Field` or `Part`) and its part as `key`
    /// holds it (in the key's style: escaped, in its case), in order.
    ///
    /// [`parse`](Self::parse) unstyles each part; an update's key rebuild
    /// ([`rebuild`](super::rebuild)) takes each part as it is. [`fits_shaped`](Self::fits_shaped)
    /// keeps its own, looser rules: it tells whose item a stored key is, and a shard number
    /// written under an earlier, larger count still names the entity.
    ///
    /// # Errors
    /// Why `key` does not have the template's shape (a [`KeyParseError`]'s reason), or the
    /// first error of `each`.
    #[inline]
    pub(crate) fn walk<'k>(
        &self,
        key: &'k str,
        mut each: impl FnMut(&'static Segment, &'k str) -> Result<(), &'static str>,
    ) -> Result<(), &'static str> {
        let delimiter = self.style.delimiter;
        // What follows the pieces taken so far, as `key.split(delimiter)` gives them.
        let mut rest = Some(key);
        for seg in self.segments {
            let (piece, after) = first_piece(rest.ok_or("it has fewer segments than the template")?, delimiter);
            rest = after;
            let part = match seg {
                Segment::Literal(l) if piece != *l => return Err("a literal segment differs from the template"),
                Segment::Literal(_) => continue,
                Segment::Field(_) if piece.is_empty() => return Err("a key part is empty"),
                Segment::Field(_) => piece,
                Segment::Part { prefix, suffix, .. } => affixed(piece, prefix, suffix)
                    .ok_or("a segment lacks the literal text around its placeholder, or its part is empty")?,
                Segment::Shard { count, .. } => {
                    let fits = piece.len() == shard_width(*count)
                        && piece.bytes().all(|b| b.is_ascii_digit())
                        && piece.parse::<u16>().is_ok_and(|n| n < *count);
                    if !fits {
                        return Err("the shard segment is not a shard number of the template");
                    }
                    continue;
                }
            };
            each(seg, part)?;
        }
        match rest {
            Some(_) => Err("it has more segments than the template"),
            None => Ok(()),
        }
    }
}

/// The text of `r` before its first `delimiter`, and what follows that delimiter (`None`
/// without one), as the first two pieces of `r.split(delimiter)`.
#[inline(always)]
fn first_piece(r: &str, delimiter: char) -> (&str, Option<&str>) {
    let i = find_delimiter(r, delimiter);
    if i < r.len() { (&r[..i], Some(&r[i + delimiter.len_utf8()..])) } else { (r, None) }
}

/// Where the first `delimiter` in `text` is (its length when there is none); a byte search for
/// an ASCII delimiter, which no other character's UTF-8 contains, and which is quicker than the
/// string searcher for keys this short.
#[inline(always)]
pub(crate) fn find_delimiter(text: &str, delimiter: char) -> usize {
    if delimiter.is_ascii() {
        let d = delimiter as u8;
        return text.bytes().position(|b| b == d).unwrap_or(text.len());
    }
    text.find(delimiter).unwrap_or(text.len())
}

/// Why a key part cannot be read: the reason of [`KeyParseError`] and of [`Template::walk`]'s
/// callers.
pub(crate) const MALFORMED_ESCAPE: &str = "a key part has a malformed % escape";

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

//! What generated code uses to write and compare keys, reached through `__private`:
//! [`KeyText`] writes a key of a constant template one part at a time, [`KeyWriter`] does the
//! same keeping the template and the position (keys written at run time), [`KeyMatcher`]
//! compares a stored key with the values a template gives without writing it, [`KeyContext`]
//! names where a key is being written for errors; [`str_eq`] (from `str_eq.rs`) compares names
//! in constant evaluation. Not a public API.

use aws_sdk_dynamodb::types::AttributeValue;

use super::{
    KeyError, KeyPart, KeyPartError, KeyType, PartForm, Segment, ShardBy, Template, affixed, find_delimiter, shard_of,
    shard_width,
};

pub use super::str_eq::str_eq;

/// Where a key is being written, for error messages.
#[derive(Debug, Clone, Copy)]
pub struct KeyContext {
    /// The entity type name.
    pub entity: &'static str,
    /// The key attribute, such as `PK` or `GSI4SK`.
    pub attribute: &'static str,
    /// The template.
    pub template: &'static Template,
    /// The size limit in bytes.
    pub max_bytes: usize,
}

impl KeyContext {
    /// A partition key's context: at most [`MAX_PARTITION_KEY_BYTES`](super::MAX_PARTITION_KEY_BYTES).
    pub const fn partition(entity: &'static str, attribute: &'static str, template: &'static Template) -> KeyContext {
        KeyContext { entity, attribute, template, max_bytes: super::MAX_PARTITION_KEY_BYTES }
    }

    /// A sort key's context: at most [`MAX_SORT_KEY_BYTES`](super::MAX_SORT_KEY_BYTES).
    pub const fn sort(entity: &'static str, attribute: &'static str, template: &'static Template) -> KeyContext {
        KeyContext { entity, attribute, template, max_bytes: super::MAX_SORT_KEY_BYTES }
    }
}

/// Compares the key a template gives for some values with the key attribute of an item read
/// from the table, one segment at a time, without writing the key: literal segments by byte
/// comparison, each placeholder by [`KeyPart::part_eq`] on the stored text up to the next
/// delimiter. The decode-time key check of generated code (an item whose `PK`/`SK` disagree
/// with its key fields must not decode). Allocates nothing for the built-in part types.
///
/// Call [`KeyMatcher::part`] once per placeholder in template order, then
/// [`KeyMatcher::finish`]. The answer is exact when `true`; `false` may also mean "not
/// comparable this way" (a shard segment, a part type whose text contains the delimiter), so a
/// caller builds the key to say what differs, as `__private::check_key` does.
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamo_entity::__private::KeyMatcher;
/// use dynamo_entity::key::{Cardinality, KeyType, Segment, Template};
/// const T: Template = Template {
///     source: "ORDER#<id>#<n>",
///     segments: &[Segment::Literal("ORDER"), Segment::Field("id"), Segment::Field("n")],
///     key_type: KeyType::S,
///     cardinality: Cardinality::High,
///     style: dynamo_entity::key::KeyStyle::DEFAULT,
/// };
/// let stored = AttributeValue::S("ORDER#a%23b#0000000007".to_owned());
/// let mut m = KeyMatcher::new(&T, Some(&stored));
/// m.part("a#b");
/// m.part(&7u32);
/// assert!(m.finish());
/// let mut m = KeyMatcher::new(&T, Some(&stored));
/// m.part("a#b");
/// m.part(&8u32);
/// assert!(!m.finish());
/// ```
#[derive(Debug)]
pub struct KeyMatcher<'a> {
    template: &'static Template,
    /// The stored text not yet compared.
    rest: &'a str,
    /// The next segment of the template.
    next: usize,
    /// `Some(answer)` once known: `Some(true)` for an item without the attribute, `Some(false)`
    /// at the first difference.
    decided: Option<bool>,
}

impl<'a> KeyMatcher<'a> {
    /// A comparison of `template` with `stored`, the key attribute of an item (`None` when the
    /// item has no such attribute, as after a projection: that matches). A stored value of
    /// another type than the template's key type matches nothing.
    ///
    /// The matcher's methods are inlined into generated code, where the template is a
    /// constant: its segments are then walked at compile time, leaving the comparisons.
    #[inline(always)]
    pub fn new(template: &'static Template, stored: Option<&'a AttributeValue>) -> KeyMatcher<'a> {
        let (rest, decided) = match (stored, template.key_type) {
            (None, _) => ("", Some(true)),
            (Some(AttributeValue::S(s)), KeyType::S) | (Some(AttributeValue::N(s)), KeyType::N) => (s.as_str(), None),
            // A binary key is compared by writing it (`false` here: "not comparable this way").
            (Some(_), _) => ("", Some(false)),
        };
        let mut m = KeyMatcher { template, rest, next: 0, decided };
        m.literals();
        m
    }

    /// Strips the delimiter before segment `next` (none before the first).
    #[inline(always)]
    fn delimiter(&mut self) -> bool {
        if self.next == 0 {
            return true;
        }
        match strip_delimiter(self.rest, self.template.style.delimiter) {
            Some(r) => {
                self.rest = r;
                true
            }
            None => false,
        }
    }

    #[inline(always)]
    fn literals(&mut self) {
        if self.decided.is_some() {
            return;
        }
        while let Some(Segment::Literal(l)) = self.template.segments.get(self.next) {
            if !self.delimiter() {
                self.decided = Some(false);
                return;
            }
            match self.rest.strip_prefix(l) {
                Some(r) => self.rest = r,
                None => {
                    self.decided = Some(false);
                    return;
                }
            }
            self.next += 1;
        }
    }

    /// Compares the next placeholder's value and the literal segments after it.
    #[inline(always)]
    pub fn part<T: KeyPart + ?Sized>(&mut self, value: &T) {
        if self.decided.is_some() {
            return;
        }
        let (affixes, raw) = match self.template.segments.get(self.next) {
            Some(Segment::Field(_)) => (None, false),
            Some(Segment::Part { prefix, suffix, raw, .. }) => (Some((*prefix, *suffix)), *raw),
            _ => (None, true),
        };
        if (affixes.is_none() && raw) || !self.delimiter() {
            self.decided = Some(false);
            return;
        }
        let (mut form, end) = match self.template.key_type {
            KeyType::N | KeyType::B => (PartForm::Number, self.rest.len()),
            KeyType::S => (PartForm::Composite, find_delimiter(self.rest, self.template.style.delimiter)),
        };
        if raw {
            form = PartForm::Number;
        }
        let (segment, rest) = self.rest.split_at(end);
        let style = self.template.style;
        let same = match affixes {
            None if style.is_default() => value.part_eq(segment, form),
            None => styled_eq(value, segment, form, style),
            Some((prefix, suffix)) => {
                affixed(segment, prefix, suffix).is_some_and(|text| styled_eq(value, text, form, style))
            }
        };
        if !same {
            self.decided = Some(false);
            return;
        }
        self.rest = rest;
        self.next += 1;
        self.literals();
    }

    /// Whether the stored key is the one the values give (or the item has no such attribute).
    #[inline(always)]
    pub fn finish(self) -> bool {
        self.decided.unwrap_or(self.rest.is_empty() && self.next == self.template.segments.len())
    }
}

/// `text` after its leading `delimiter`, if it starts with one; a byte comparison for an
/// ASCII delimiter (every delimiter the derive accepts).
#[inline(always)]
fn strip_delimiter(text: &str, delimiter: char) -> Option<&str> {
    if delimiter.is_ascii() {
        // The first byte is the delimiter, a whole character: index 1 is a boundary.
        return (text.as_bytes().first() == Some(&(delimiter as u8))).then(|| &text[1..]);
    }
    text.strip_prefix(delimiter)
}

/// Whether `encoded` is the text `value` has in a key of `style`, in `form` (the slow path of
/// [`KeyMatcher`] for styled keys and affixed placeholders: writes the part and compares).
fn styled_eq<T: KeyPart + ?Sized>(value: &T, encoded: &str, form: PartForm, style: super::KeyStyle) -> bool {
    if style.is_default() {
        return value.part_eq(encoded, form);
    }
    let mut text = String::with_capacity(encoded.len());
    matches!(value.write_part(&mut text, form), Ok(true)) && style.restyle(&mut text, 0).is_ok() && text == encoded
}

/// The field of segment `next` of `template` (`?` for a literal or past the end).
#[inline(always)]
fn field_at(template: &Template, next: usize) -> &'static str {
    match template.segments.get(next) {
        Some(Segment::Field(f) | Segment::Part { field: f, .. } | Segment::Shard { field: f, .. }) => f,
        _ => "?",
    }
}

/// Writes the literal segments of `template` from segment `next` on, each after the
/// delimiter (none before the first segment); the index of the first segment that is not a
/// literal. With a constant template and index, as in generated code, the loop unrolls into
/// the literal text.
#[inline(always)]
fn push_literals(out: &mut String, template: &Template, mut next: usize) -> usize {
    while let Some(Segment::Literal(l)) = template.segments.get(next) {
        if next > 0 {
            out.push(template.style.delimiter);
        }
        out.push_str(l);
        next += 1;
    }
    next
}

/// A key being written by generated code: its text so far and the first placeholder whose
/// value was absent. The template and the key's context are passed to every call as
/// constants, not kept, so that the compiler walks the template at compile time (the
/// delimiters, affixes and literal segments become the writes of their text) and the state
/// it carries from part to part is the text alone. Errors are boxed: the `Result`s a key
/// passes through stay the size of its text.
///
/// Generated code calls [`KeyText::start`], [`KeyText::part`] or [`KeyText::shard`] for each
/// placeholder with the index of its segment, then [`KeyText::finish`] or
/// [`KeyText::finish_sparse`]. [`KeyWriter`] is the same with the template and position kept
/// in the writer, for keys written at run time.
#[derive(Debug)]
pub struct KeyText {
    out: String,
    absent: Option<&'static str>,
}

impl KeyText {
    /// A key of `template`: its literal segments before the first placeholder.
    #[inline(always)]
    pub fn start(template: &'static Template) -> KeyText {
        Self::with_room(template, None).0
    }

    /// The key's text before its first placeholder, with room for its literals and `parts`
    /// bytes of placeholder text when known (else a guess, below); the index of the first
    /// segment that is not a literal.
    #[inline(always)]
    fn with_room(template: &'static Template, parts: Option<usize>) -> (KeyText, usize) {
        // A key of one literal (`META`, `PROFILE`) is its text, allocated to size. Otherwise
        // the template's length with its placeholders' names, plus a little, usually holds the
        // key with its values: one allocation the size of the key (no growth, and none of the
        // larger size classes a generous guess would take). At least a timestamp's 24 bytes,
        // so that a key of one `Timestamp` placeholder (`<created_at>`, 12 + 8) does not grow:
        // a smaller request takes the allocator's smallest block all the same.
        if let [Segment::Literal(l)] = template.segments {
            return (KeyText { out: (*l).to_owned(), absent: None }, 1);
        }
        let room = match parts {
            Some(parts) => template.source.len() + parts,
            None => (template.source.len() + 8).max(crate::value::time::TIMESTAMP_LEN),
        };
        let mut out = String::with_capacity(room);
        let next = push_literals(&mut out, template, 0);
        (KeyText { out, absent: None }, next)
    }

    /// Writes the value of placeholder segment `index` of the key of `ctx` and the literal
    /// segments after it; the index of the next placeholder.
    ///
    /// # Errors
    /// [`KeyError::Part`] when the value cannot be a key part.
    #[inline(always)]
    pub fn part<T: KeyPart + ?Sized>(
        &mut self,
        ctx: &KeyContext,
        index: usize,
        value: &T,
    ) -> Result<usize, Box<KeyError>> {
        let template = ctx.template;
        if index > 0 {
            self.out.push(template.style.delimiter);
        }
        if T::BINARY != (template.key_type == KeyType::B) {
            let reason = if T::BINARY {
                KeyPartError::Binary
            } else {
                KeyPartError::Invalid { text: "(a non-binary value)".to_owned(), ty: "a part of a binary (B) key" }
            };
            return Err(part_error(ctx, index, reason));
        }
        let mut form = if template.key_type == KeyType::N { PartForm::Number } else { PartForm::Composite };
        let mut suffix = "";
        if let Some(Segment::Part { prefix, suffix: after, raw, .. }) = template.segments.get(index) {
            self.out.push_str(prefix);
            suffix = after;
            if *raw {
                form = PartForm::Number;
            }
        }
        let start = self.out.len();
        match value.write_part(&mut self.out, form) {
            // A part is non-empty and escaped: the library's own part types write it so, any
            // other implementation is checked here, so that it cannot break the key's structure.
            Ok(true) => {
                if !T::WRITES_ESCAPED {
                    if let Err(reason) = super::check_written_in(&self.out[start..], form) {
                        return Err(part_error(ctx, index, reason));
                    }
                }
                if !template.style.is_default() {
                    self.restyle(ctx, index, start)?;
                }
            }
            Ok(false) => {
                if self.absent.is_none() {
                    self.absent = Some(field_at(template, index));
                }
            }
            Err(reason) => return Err(part_error(ctx, index, reason)),
        }
        self.out.push_str(suffix);
        Ok(push_literals(&mut self.out, template, index + 1))
    }

    /// Applies the template's style to the part written from `start`.
    #[inline(never)]
    fn restyle(&mut self, ctx: &KeyContext, index: usize, start: usize) -> Result<(), Box<KeyError>> {
        ctx.template.style.restyle(&mut self.out, start).map_err(|reason| part_error(ctx, index, reason))
    }

    /// Writes shard segment `index` (`<shard(field, N)>`) of the key of `ctx` and the literal
    /// segments after it: from the source field's value ([`ShardBy::Source`], hashed with
    /// [`shard_of`]) or a given shard number ([`ShardBy::Index`], as a query of every shard
    /// does); the index of the next placeholder.
    ///
    /// # Errors
    /// [`KeyError::Part`] when the source value cannot be a key part, the shard number is not
    /// below the count, or the segment is not a shard segment.
    #[inline(always)]
    pub fn shard<T: KeyPart + ?Sized>(
        &mut self,
        ctx: &KeyContext,
        index: usize,
        by: ShardBy<'_, T>,
    ) -> Result<usize, Box<KeyError>> {
        let template = ctx.template;
        let Some(Segment::Shard { count, .. }) = template.segments.get(index) else {
            let reason = KeyPartError::Invalid { text: "<shard>".to_owned(), ty: "a part of this template" };
            return Err(part_error(ctx, index, reason));
        };
        let count = *count;
        let shard = match by {
            ShardBy::Index(i) if i < count => i,
            ShardBy::Index(i) => {
                let reason = KeyPartError::Invalid { text: i.to_string(), ty: "a shard number" };
                return Err(part_error(ctx, index, reason));
            }
            ShardBy::Source(value) => {
                // The source's part text is written at the end of the key, hashed, and taken
                // back off: no buffer of its own.
                let start = self.out.len();
                let written = value.write_part(&mut self.out, PartForm::Composite);
                let shard = match written {
                    Ok(true) => shard_of(&self.out[start..], count),
                    _ => 0,
                };
                self.out.truncate(start);
                match written {
                    Ok(true) => shard,
                    Ok(false) => {
                        if self.absent.is_none() {
                            self.absent = Some(field_at(template, index));
                        }
                        0
                    }
                    Err(reason) => return Err(part_error(ctx, index, reason)),
                }
            }
        };
        Ok(self.push_shard(template, index, shard, count))
    }

    /// Writes shard number `shard` of `count` as segment `index` of `template`, zero-padded to
    /// the width of the highest shard number, and the literal segments after it; the index of
    /// the next placeholder.
    #[inline(always)]
    fn push_shard(&mut self, template: &Template, index: usize, shard: u16, count: u16) -> usize {
        if index > 0 {
            self.out.push(template.style.delimiter);
        }
        // Without `fmt`; up to 10 shards (the usual) take one digit.
        let width = shard_width(count);
        if width == 1 && shard < 10 {
            // `shard` is below 10, so the cast cannot truncate.
            self.out.push(char::from(b'0' + shard as u8));
        } else {
            let mut digits = [b'0'; 5];
            let mut rest = shard;
            let mut at = digits.len();
            while rest > 0 {
                at -= 1;
                // `rest % 10` is below 10, so the cast cannot truncate.
                digits[at] = b'0' + (rest % 10) as u8;
                rest /= 10;
            }
            let start = digits.len().saturating_sub(width.max(digits.len() - at));
            self.out.extend(digits[start..].iter().map(|&d| char::from(d)));
        }
        push_literals(&mut self.out, template, index + 1)
    }

    /// The key's size in bytes against the limit of `ctx`: UTF-8 bytes of a string or number
    /// key, the bytes of a binary key (half its hexadecimal text).
    #[inline(always)]
    fn check_len(&self, ctx: &KeyContext) -> Result<(), Box<KeyError>> {
        let bytes = if ctx.template.key_type == KeyType::B { self.out.len() / 2 } else { self.out.len() };
        if bytes > ctx.max_bytes {
            return Err(too_long(ctx, bytes));
        }
        Ok(())
    }

    /// The finished key of `ctx`, or `None` when a part was absent (a sparse index's key).
    ///
    /// # Errors
    /// [`KeyError::TooLong`] over the size limit.
    #[inline(always)]
    pub fn finish_sparse(self, ctx: &KeyContext) -> Result<Option<AttributeValue>, Box<KeyError>> {
        if self.absent.is_some() {
            return Ok(None);
        }
        self.check_len(ctx)?;
        self.into_value(ctx).map(Some)
    }

    /// The finished key of `ctx`, which must be complete.
    ///
    /// # Errors
    /// [`KeyError::Missing`] when a part was `None`, [`KeyError::TooLong`] over the size limit.
    #[inline(always)]
    pub fn finish(self, ctx: &KeyContext) -> Result<AttributeValue, Box<KeyError>> {
        if let Some(field) = self.absent {
            return Err(missing(ctx, field));
        }
        self.check_len(ctx)?;
        self.into_value(ctx)
    }

    /// The key written, as the attribute value of the template's key type: a binary key's
    /// hexadecimal text turned into its bytes.
    #[inline(always)]
    fn into_value(self, ctx: &KeyContext) -> Result<AttributeValue, Box<KeyError>> {
        Ok(match ctx.template.key_type {
            KeyType::S => AttributeValue::S(self.out),
            KeyType::N => AttributeValue::N(self.out),
            KeyType::B => return binary_value(ctx, &self.out),
        })
    }
}

/// The error of a part of the key of `ctx` at segment `index`; off the hot path.
#[cold]
#[inline(never)]
fn part_error(ctx: &KeyContext, index: usize, reason: KeyPartError) -> Box<KeyError> {
    Box::new(KeyError::Part {
        entity: ctx.entity,
        attribute: ctx.attribute,
        template: ctx.template.source,
        field: field_at(ctx.template, index),
        reason,
    })
}

/// The error of a key of `bytes` bytes, over the limit of `ctx`; off the hot path.
#[cold]
#[inline(never)]
fn too_long(ctx: &KeyContext, bytes: usize) -> Box<KeyError> {
    Box::new(KeyError::TooLong {
        entity: ctx.entity,
        attribute: ctx.attribute,
        template: ctx.template.source,
        bytes,
        over: bytes - ctx.max_bytes,
        limit: ctx.max_bytes,
    })
}

/// The error of a complete key of `ctx` whose part `field` is `None`; off the hot path.
#[cold]
#[inline(never)]
fn missing(ctx: &KeyContext, field: &'static str) -> Box<KeyError> {
    Box::new(KeyError::Missing { entity: ctx.entity, attribute: ctx.attribute, template: ctx.template.source, field })
}

/// A binary key's value from its hexadecimal text `hex`.
#[inline(never)]
fn binary_value(ctx: &KeyContext, hex: &str) -> Result<AttributeValue, Box<KeyError>> {
    match super::hex_decode(hex) {
        Some(bytes) if !bytes.is_empty() => Ok(AttributeValue::B(bytes.into())),
        _ => {
            let reason = if hex.is_empty() {
                KeyPartError::Empty
            } else {
                KeyPartError::Invalid { text: hex.to_owned(), ty: "binary key text (hexadecimal)" }
            };
            Err(Box::new(KeyError::Part {
                entity: ctx.entity,
                attribute: ctx.attribute,
                template: ctx.template.source,
                field: ctx.template.fields().next().unwrap_or("?"),
                reason,
            }))
        }
    }
}

/// Builds a key from its template, one part at a time, keeping the template and the position:
/// for keys written at run time (sort-key conditions, updates rebuilding GSI keys, tests).
/// Generated code uses [`KeyText`], the same writes with the template a constant.
///
/// Call [`KeyWriter::part`] once per placeholder in template order, then [`KeyWriter::finish`].
#[derive(Debug)]
pub struct KeyWriter {
    ctx: KeyContext,
    text: KeyText,
    next: usize,
}

impl KeyWriter {
    /// As [`new`](Self::new), with room for the template's literals and `parts` bytes of
    /// placeholder text known in advance (an update rebuilding a key from encoded parts).
    pub(crate) fn sized(ctx: KeyContext, parts: usize) -> KeyWriter {
        let (text, next) = KeyText::with_room(ctx.template, Some(parts));
        KeyWriter { ctx, text, next }
    }

    /// A writer for the key described by `ctx`.
    pub fn new(ctx: KeyContext) -> KeyWriter {
        let (text, next) = KeyText::with_room(ctx.template, None);
        KeyWriter { ctx, text, next }
    }

    /// Whether the key written equals `stored`, the key attribute of an item read from the
    /// table; `true` when the item has no such attribute (a projection without it). An absent
    /// part matches nothing. [`KeyMatcher`] answers the same without writing the key.
    pub fn matches(self, stored: Option<&AttributeValue>) -> bool {
        let (key_type, out) = (self.ctx.template.key_type, &self.text.out);
        match stored {
            None => true,
            Some(_) if self.text.absent.is_some() => false,
            Some(AttributeValue::S(s)) => key_type == KeyType::S && s == out,
            Some(AttributeValue::N(n)) => key_type == KeyType::N && n == out,
            Some(AttributeValue::B(b)) => {
                key_type == KeyType::B && super::hex_decode(out).as_deref() == Some(b.as_ref())
            }
            Some(_) => false,
        }
    }

    /// Writes the next placeholder's value and the literal segments after it.
    ///
    /// # Errors
    /// [`KeyError::Part`] when the value cannot be a key part.
    pub fn part<T: KeyPart + ?Sized>(&mut self, value: &T) -> Result<(), KeyError> {
        self.next = self.text.part(&self.ctx, self.next, value).map_err(|e| *e)?;
        Ok(())
    }

    /// Writes the next segment, a shard segment `<shard(field, N)>`, and the literal segments
    /// after it (see [`KeyText::shard`]).
    ///
    /// # Errors
    /// [`KeyError::Part`] when the source value cannot be a key part, the shard number is not
    /// below the count, or the next segment is not a shard segment.
    pub fn shard<T: KeyPart + ?Sized>(&mut self, by: ShardBy<'_, T>) -> Result<(), KeyError> {
        self.next = self.text.shard(&self.ctx, self.next, by).map_err(|e| *e)?;
        Ok(())
    }

    /// Writes the next segment, a shard segment, from its source field's part text already
    /// encoded in composite form (or `None` for an absent value). Used where the source's text
    /// was encoded earlier, such as an update rebuilding a sharded GSI key.
    pub(crate) fn encoded_shard(&mut self, text: Option<&str>) {
        let template = self.ctx.template;
        let count = match template.segments.get(self.next) {
            Some(Segment::Shard { count, .. }) => *count,
            _ => 1,
        };
        let shard = match text {
            Some(t) => shard_of(t, count),
            None => {
                self.text.absent.get_or_insert(field_at(template, self.next));
                0
            }
        };
        self.next = self.text.push_shard(template, self.next, shard, count);
    }

    /// Writes the next placeholder from text already encoded in the part's form (canonical:
    /// escaped, integers padded, or plain decimal for a numeric key and a `<field:raw>` part;
    /// `None` for an absent value), in the template's style, with the literal text around it
    /// and the literal segments after it. Used where a part's text was encoded earlier, such
    /// as an update rebuilding a GSI key from the fields it sets.
    ///
    /// # Errors
    /// [`KeyError::Part`] when the template's style refuses the value
    /// ([`KeyPartError::Delimiter`]).
    pub(crate) fn encoded_part(&mut self, text: Option<&str>) -> Result<(), KeyError> {
        let (template, index) = (self.ctx.template, self.next);
        if index > 0 {
            self.text.out.push(template.style.delimiter);
        }
        let (prefix, suffix) = match template.segments.get(index) {
            Some(Segment::Part { prefix, suffix, .. }) => (*prefix, *suffix),
            _ => ("", ""),
        };
        match text {
            Some(t) => {
                self.text.out.push_str(prefix);
                let start = self.text.out.len();
                self.text.out.push_str(t);
                if !template.style.is_default() {
                    self.text.restyle(&self.ctx, index, start).map_err(|e| *e)?;
                }
                self.text.out.push_str(suffix);
            }
            None => {
                self.text.absent.get_or_insert(field_at(template, index));
            }
        }
        self.next = push_literals(&mut self.text.out, template, index + 1);
        Ok(())
    }

    /// The finished key, or `None` when a part was absent (a sparse GSI key).
    ///
    /// # Errors
    /// [`KeyError::TooLong`] over the size limit.
    pub fn finish_sparse(self) -> Result<Option<AttributeValue>, KeyError> {
        self.text.finish_sparse(&self.ctx).map_err(|e| *e)
    }

    /// The finished key, which must be complete.
    ///
    /// # Errors
    /// [`KeyError::Missing`] when a part was `None`, [`KeyError::TooLong`] over the size limit.
    pub fn finish(self) -> Result<AttributeValue, KeyError> {
        self.text.finish(&self.ctx).map_err(|e| *e)
    }

    /// The text written so far: for a prefix, the parts given and the literal segments after
    /// them, without a trailing delimiter.
    pub(crate) fn into_prefix(self) -> Result<(String, usize), KeyError> {
        if let Some(field) = self.text.absent {
            return Err(*missing(&self.ctx, field));
        }
        self.text.check_len(&self.ctx).map_err(|e| *e)?;
        Ok((self.text.out, self.next))
    }
}

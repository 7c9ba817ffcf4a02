//! What generated code uses to write and compare keys, reached through `__private`:
//! [`KeyWriter`] writes a key from its template one part at a time, [`KeyMatcher`] compares
//! a stored key with the values a template gives without writing it, [`KeyContext`] names
//! where a key is being written for errors, [`str_eq`] compares names in constant evaluation.
//! Not a public API.

use aws_sdk_dynamodb::types::AttributeValue;

use super::{
    KeyError, KeyPart, KeyPartError, KeyType, PartForm, Segment, ShardBy, Template, affixed, shard_of, shard_width,
};

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

/// Where the first `delimiter` in `text` is (its length when there is none); a byte search for
/// an ASCII delimiter, which no other character's UTF-8 contains.
#[inline(always)]
fn find_delimiter(text: &str, delimiter: char) -> usize {
    if delimiter.is_ascii() {
        let d = delimiter as u8;
        return text.bytes().position(|b| b == d).unwrap_or(text.len());
    }
    text.find(delimiter).unwrap_or(text.len())
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

/// Builds a key from its template, one part at a time. Used by generated code.
///
/// Call [`KeyWriter::part`] once per placeholder in template order, then [`KeyWriter::finish`].
#[derive(Debug)]
pub struct KeyWriter {
    ctx: KeyContext,
    out: String,
    next: usize,
    absent: Option<&'static str>,
}

impl KeyWriter {
    /// As [`new`](Self::new), with room for the template's literals and `parts` bytes of
    /// placeholder text known in advance (an update rebuilding a key from encoded parts).
    pub(crate) fn sized(ctx: KeyContext, parts: usize) -> KeyWriter {
        if let [Segment::Literal(l)] = ctx.template.segments {
            return KeyWriter { ctx, out: (*l).to_owned(), next: 1, absent: None };
        }
        let out = String::with_capacity(ctx.template.source.len() + parts);
        let mut w = KeyWriter { ctx, out, next: 0, absent: None };
        w.literals();
        w
    }

    /// A writer for the key described by `ctx`.
    #[inline(always)]
    pub fn new(ctx: KeyContext) -> KeyWriter {
        // A key of one literal (`META`, `PROFILE`) is its text, allocated to size. Otherwise
        // the template's length with its placeholders' names, plus a little, usually holds the
        // key with its values: one allocation the size of the key (no growth, and none of the
        // larger size classes a generous guess would take). At least a timestamp's 24 bytes,
        // so that a key of one `Timestamp` placeholder (`<created_at>`, 12 + 8) does not grow:
        // a smaller request takes the allocator's smallest block all the same.
        if let [Segment::Literal(l)] = ctx.template.segments {
            return KeyWriter { ctx, out: (*l).to_owned(), next: 1, absent: None };
        }
        let out = String::with_capacity((ctx.template.source.len() + 8).max(crate::value::time::TIMESTAMP_LEN));
        let mut w = KeyWriter { ctx, out, next: 0, absent: None };
        w.literals();
        w
    }

    /// Whether the key written equals `stored`, the key attribute of an item read from the
    /// table; `true` when the item has no such attribute (a projection without it). An absent
    /// part matches nothing. [`KeyMatcher`] answers the same without writing the key.
    #[inline]
    pub fn matches(self, stored: Option<&AttributeValue>) -> bool {
        match stored {
            None => true,
            Some(_) if self.absent.is_some() => false,
            Some(AttributeValue::S(s)) => self.ctx.template.key_type == KeyType::S && *s == self.out,
            Some(AttributeValue::N(n)) => self.ctx.template.key_type == KeyType::N && *n == self.out,
            Some(AttributeValue::B(b)) => {
                self.ctx.template.key_type == KeyType::B && super::hex_decode(&self.out).as_deref() == Some(b.as_ref())
            }
            Some(_) => false,
        }
    }

    #[inline(always)]
    fn literals(&mut self) {
        while let Some(Segment::Literal(l)) = self.ctx.template.segments.get(self.next) {
            if self.next > 0 {
                self.out.push(self.ctx.template.style.delimiter);
            }
            self.out.push_str(l);
            self.next += 1;
        }
    }

    fn current_field(&self) -> &'static str {
        match self.ctx.template.segments.get(self.next) {
            Some(Segment::Field(f) | Segment::Part { field: f, .. } | Segment::Shard { field: f, .. }) => f,
            _ => "?",
        }
    }

    /// The shard count of the next segment, which must be a shard segment.
    fn current_shards(&self) -> Result<u16, KeyError> {
        match self.ctx.template.segments.get(self.next) {
            Some(Segment::Shard { count, .. }) => Ok(*count),
            _ => Err(KeyError::Part {
                entity: self.ctx.entity,
                attribute: self.ctx.attribute,
                template: self.ctx.template.source,
                field: self.current_field(),
                reason: KeyPartError::Invalid { text: "<shard>".to_owned(), ty: "a part of this template" },
            }),
        }
    }

    fn push_shard(&mut self, shard: u16, count: u16) {
        if self.next > 0 {
            self.out.push(self.ctx.template.style.delimiter);
        }
        // Zero-padded to the width of the highest shard number, without `fmt`.
        let width = shard_width(count);
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
        self.next += 1;
        self.literals();
    }

    /// Writes the next segment, a shard segment `<shard(field, N)>`, and the literal segments
    /// after it: from the source field's value ([`ShardBy::Source`], hashed with [`shard_of`])
    /// or a given shard number ([`ShardBy::Index`], as a query of every shard does).
    ///
    /// # Errors
    /// [`KeyError::Part`] when the source value cannot be a key part, the shard number is not
    /// below the count, or the next segment is not a shard segment.
    pub fn shard<T: KeyPart + ?Sized>(&mut self, by: ShardBy<'_, T>) -> Result<(), KeyError> {
        let count = self.current_shards()?;
        let field = self.current_field();
        let part_error = |reason| KeyError::Part {
            entity: self.ctx.entity,
            attribute: self.ctx.attribute,
            template: self.ctx.template.source,
            field,
            reason,
        };
        let shard = match by {
            ShardBy::Index(i) if i < count => i,
            ShardBy::Index(i) => {
                return Err(part_error(KeyPartError::Invalid { text: i.to_string(), ty: "a shard number" }));
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
                        self.absent.get_or_insert(field);
                        0
                    }
                    Err(reason) => return Err(part_error(reason)),
                }
            }
        };
        self.push_shard(shard, count);
        Ok(())
    }

    /// Writes the next segment, a shard segment, from its source field's part text already
    /// encoded in composite form (or `None` for an absent value). Used where the source's text
    /// was encoded earlier, such as an update rebuilding a sharded GSI key.
    pub(crate) fn encoded_shard(&mut self, text: Option<&str>) {
        let count = match self.ctx.template.segments.get(self.next) {
            Some(Segment::Shard { count, .. }) => *count,
            _ => 1,
        };
        match text {
            Some(t) => self.push_shard(shard_of(t, count), count),
            None => {
                self.absent.get_or_insert(self.current_field());
                self.push_shard(0, count);
            }
        }
    }

    /// Writes the next placeholder's value and the literal segments after it.
    ///
    /// # Errors
    /// [`KeyError::Part`] when the value cannot be a key part.
    #[inline(always)]
    pub fn part<T: KeyPart + ?Sized>(&mut self, value: &T) -> Result<(), KeyError> {
        if self.next > 0 {
            self.out.push(self.ctx.template.style.delimiter);
        }
        if T::BINARY != (self.ctx.template.key_type == KeyType::B) {
            return Err(self.part_error(if T::BINARY {
                KeyPartError::Binary
            } else {
                KeyPartError::Invalid { text: "(a non-binary value)".to_owned(), ty: "a part of a binary (B) key" }
            }));
        }
        let mut form = if self.ctx.template.key_type == KeyType::N { PartForm::Number } else { PartForm::Composite };
        let mut suffix = "";
        if let Some(Segment::Part { prefix, suffix: after, raw, .. }) = self.ctx.template.segments.get(self.next) {
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
                    super::check_written_in(&self.out[start..], form).map_err(|reason| self.part_error(reason))?
                }
                let style = self.ctx.template.style;
                if !style.is_default() {
                    let mut out = std::mem::take(&mut self.out);
                    let styled = style.restyle(&mut out, start);
                    self.out = out;
                    styled.map_err(|reason| self.part_error(reason))?;
                }
            }
            Ok(false) => {
                if self.absent.is_none() {
                    self.absent = Some(self.current_field());
                }
            }
            Err(reason) => return Err(self.part_error(reason)),
        }
        self.out.push_str(suffix);
        self.next += 1;
        self.literals();
        Ok(())
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
        let field = self.current_field();
        if self.next > 0 {
            self.out.push(self.ctx.template.style.delimiter);
        }
        let (prefix, suffix) = match self.ctx.template.segments.get(self.next) {
            Some(Segment::Part { prefix, suffix, .. }) => (*prefix, *suffix),
            _ => ("", ""),
        };
        match text {
            Some(t) => {
                self.out.push_str(prefix);
                let start = self.out.len();
                self.out.push_str(t);
                let mut out = std::mem::take(&mut self.out);
                let styled = self.ctx.template.style.restyle(&mut out, start);
                self.out = out;
                styled.map_err(|reason| self.part_error(reason))?;
                self.out.push_str(suffix);
            }
            None => {
                self.absent.get_or_insert(field);
            }
        }
        self.next += 1;
        self.literals();
        Ok(())
    }

    /// The error of a part that cannot be encoded, built off the hot path.
    #[cold]
    #[inline(never)]
    fn part_error(&self, reason: KeyPartError) -> KeyError {
        KeyError::Part {
            entity: self.ctx.entity,
            attribute: self.ctx.attribute,
            template: self.ctx.template.source,
            field: self.current_field(),
            reason,
        }
    }

    /// The key's size in bytes: UTF-8 bytes of a string or number key, the bytes of a binary
    /// key (half its hexadecimal text).
    #[inline(always)]
    fn check_len(&self) -> Result<(), KeyError> {
        let bytes = if self.ctx.template.key_type == KeyType::B { self.out.len() / 2 } else { self.out.len() };
        if bytes > self.ctx.max_bytes {
            return Err(KeyError::TooLong {
                entity: self.ctx.entity,
                attribute: self.ctx.attribute,
                template: self.ctx.template.source,
                bytes,
                over: bytes - self.ctx.max_bytes,
                limit: self.ctx.max_bytes,
            });
        }
        Ok(())
    }

    /// The finished key, or `None` when a part was absent (a sparse GSI key).
    ///
    /// # Errors
    /// [`KeyError::TooLong`] over the size limit.
    #[inline(always)]
    pub fn finish_sparse(self) -> Result<Option<AttributeValue>, KeyError> {
        if self.absent.is_some() {
            return Ok(None);
        }
        self.check_len()?;
        self.into_value().map(Some)
    }

    /// The finished key, which must be complete.
    ///
    /// # Errors
    /// [`KeyError::Missing`] when a part was `None`, [`KeyError::TooLong`] over the size limit.
    #[inline(always)]
    pub fn finish(self) -> Result<AttributeValue, KeyError> {
        if let Some(field) = self.absent {
            return Err(KeyError::Missing {
                entity: self.ctx.entity,
                attribute: self.ctx.attribute,
                template: self.ctx.template.source,
                field,
            });
        }
        self.check_len()?;
        self.into_value()
    }

    /// The key written, as the attribute value of the template's key type: a binary key's
    /// hexadecimal text turned into its bytes.
    #[inline(always)]
    fn into_value(self) -> Result<AttributeValue, KeyError> {
        Ok(match self.ctx.template.key_type {
            KeyType::S => AttributeValue::S(self.out),
            KeyType::N => AttributeValue::N(self.out),
            KeyType::B => match super::hex_decode(&self.out) {
                Some(bytes) if !bytes.is_empty() => AttributeValue::B(bytes.into()),
                _ => {
                    let reason = if self.out.is_empty() {
                        KeyPartError::Empty
                    } else {
                        KeyPartError::Invalid { text: self.out.clone(), ty: "binary key text (hexadecimal)" }
                    };
                    return Err(KeyError::Part {
                        entity: self.ctx.entity,
                        attribute: self.ctx.attribute,
                        template: self.ctx.template.source,
                        field: self.ctx.template.fields().next().unwrap_or("?"),
                        reason,
                    });
                }
            },
        })
    }

    /// The text written so far: for a prefix, the parts given and the literal segments after
    /// them, without a trailing delimiter.
    pub(crate) fn into_prefix(self) -> Result<(String, usize), KeyError> {
        if let Some(field) = self.absent {
            return Err(KeyError::Missing {
                entity: self.ctx.entity,
                attribute: self.ctx.attribute,
                template: self.ctx.template.source,
                field,
            });
        }
        self.check_len()?;
        Ok((self.out, self.next))
    }
}

/// Byte equality of two strings, usable in constant evaluation.
pub const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

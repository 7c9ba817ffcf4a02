//! [`KeyPart`], the types that can fill a placeholder of a key template: the trait, its
//! errors, the check of what a hand-written part writes, and the implementations for text,
//! bytes, `bool` and time (integers: [`integer`](super::integer)).

use crate::value::time::{Date, Timestamp};

#[cfg(doc)]
use super::KeyStyle;
use super::{PartShape, escape_into, escaped_eq, hex_decode, hex_into};

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
fn check_written(text: &str) -> Result<(), KeyPartError> {
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
///
/// `#[derive(KeyPart)]` makes a newtype (`struct SkillId(String)`) or a field-less enum usable
/// as a key part and an attribute ([`Attribute`](crate::Attribute)). Enum variants are stored
/// in `snake_case` unless `#[key_part(rename_all = "...")]` (on the enum) or
/// `#[key_part(rename = "...")]` (on a variant) say otherwise.
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

#[cfg(test)]
mod tests {
    use super::*;

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
}

//! Conversions between Rust values and DynamoDB attribute values.
//!
//! | Rust | DynamoDB |
//! |---|---|
//! | `String`, `&str`, [`Timestamp`] (24-byte UTC text), [`Date`] (`YYYY-MM-DD`), field-less enums | `S` |
//! | integers, `f32`, `f64`, [`Decimal`] (all 38 digits), [`EpochSeconds`], [`EpochMillis`] | `N` (exact decimal text) |
//! | `bool` | `BOOL` |
//! | `Vec<u8>` | `B` |
//! | `Vec<T>` (other `T`) | `L` |
//! | `HashMap<String, T>`, `BTreeMap<String, T>` | `M` |
//! | `BTreeSet<T>`, `HashSet<T>` of strings / numbers / `Vec<u8>` | `SS` / `NS` / `BS` |
//! | `Option<T>` | `T`'s type, or no attribute at all for `None` |
//!
//! DynamoDB's rules that apply before anything is sent: a number has at most 38 significant
//! digits and a magnitude below 10^126 (and, if not zero, at least 10^-130); NaN and infinities
//! have no representation; a set cannot be empty, so an empty set is stored as an absent
//! attribute and read back as an empty set.
//!
//! Reads accept what other clients write, and writes stay in the one form above: a
//! [`Timestamp`] reads any RFC 3339 text ([`Timestamp::parse_rfc3339`]: 0 to 9 fractional
//! digits, any offset); an integer reads the integral forms `42.0` and `4.2E1` and refuses a
//! fraction ([`ValueError::NotInteger`]); a set reads a list (`L`, a JavaScript array or Python
//! list) whose elements are of its element type.
//!
//! A stored number is never rounded into a field: a number with more digits than the field's
//! type keeps is refused with [`ValueError::Number`], which a read reports as
//! [`Error::Decode`](crate::Error::Decode) naming the entity, the attribute and the item's key.
//!
//! | Field type | Reads a stored number when | Refused, for example |
//! |---|---|---|
//! | integers | it is integral and within the type's range (`42.0` and `4.2E1` read as 42) | `4.5`, `256` for a `u8` |
//! | `f64`, `f32` | the float's shortest text (what this crate writes for it) has the same value (`0.1`, `4.2E1`, `1e-7`, any 15 digits for an `f64`, 6 for an `f32`), or the float holds the number exactly (2^60 as `1152921504606846976`) | `0.1234567890123456789` for an `f64`, `16777217` for an `f32` |
//! | `rust_decimal::Decimal` (feature `rust_decimal`) | it holds the number exactly: a 96-bit coefficient (28 or 29 digits), at most 28 digits after the point | `1234567890.1234567890123456789012345678` |
//! | [`Decimal`] | always: it holds every DynamoDB number | — |

mod decimal;
#[cfg(feature = "rust_decimal")]
mod decimal_interop;
mod float;
pub mod size;
pub mod time;
mod time_interop;

pub use decimal::{Decimal, DecimalError};

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::hash::Hash;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::time::{Date, EpochMillis, EpochSeconds, Timestamp};

/// A DynamoDB item: attribute name to value.
pub type Item = HashMap<String, AttributeValue>;

/// A value that could not be converted to or from an attribute value.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValueError {
    /// A required attribute is absent from the item.
    #[error("the attribute is missing")]
    Missing,
    /// The attribute has another DynamoDB type than the field needs.
    #[error("expected type {expected}, found {found}")]
    WrongType {
        /// The DynamoDB type the field needs (`S`, `N`, `B`, `BOOL`, `M`, `L`, `SS`, `NS`, `BS`).
        expected: &'static str,
        /// The type found in the item (`NULL` included).
        found: &'static str,
    },
    /// A number that does not fit the field's type (too large, negative, or fractional for an
    /// integer).
    #[error("number {text} does not fit in {ty}")]
    Number {
        /// The number as DynamoDB returned it.
        text: String,
        /// The Rust type of the field.
        ty: &'static str,
    },
    /// A number with a fractional part where an integer is expected (`4.5` for a `u32`). The
    /// integral forms other clients write (`42.0`, `4.2E1`) are read as integers.
    #[error("number {text} is not an integer, as {ty} needs")]
    NotInteger {
        /// The number as DynamoDB returned it.
        text: String,
        /// The Rust type of the field.
        ty: &'static str,
    },
    /// A value DynamoDB cannot hold (NaN, infinity, more than 38 significant digits, magnitude
    /// out of range).
    #[error("DynamoDB cannot hold {value}: {reason}")]
    NotRepresentable {
        /// The value, as text.
        value: String,
        /// The DynamoDB rule it breaks.
        reason: &'static str,
    },
    /// Any other invalid content (an unknown enum variant, malformed timestamp text, a nested
    /// value serde could not read).
    #[error("{0}")]
    Invalid(String),
}

/// The DynamoDB type name of an attribute value: `S`, `N`, `B`, `BOOL`, `NULL`, `M`, `L`, `SS`,
/// `NS`, `BS`, or `unknown` for types newer than this crate.
pub fn type_name(value: &AttributeValue) -> &'static str {
    match value {
        AttributeValue::S(_) => "S",
        AttributeValue::N(_) => "N",
        AttributeValue::B(_) => "B",
        AttributeValue::Bool(_) => "BOOL",
        AttributeValue::Null(_) => "NULL",
        AttributeValue::M(_) => "M",
        AttributeValue::L(_) => "L",
        AttributeValue::Ss(_) => "SS",
        AttributeValue::Ns(_) => "NS",
        AttributeValue::Bs(_) => "BS",
        _ => "unknown",
    }
}

#[inline]
fn wrong(expected: &'static str, found: &AttributeValue) -> ValueError {
    ValueError::WrongType { expected, found: type_name(found) }
}

/// The DynamoDB type that every value of a Rust type is stored as, as far as the type tells
/// ([`Attribute::STORED`]). The table's compile-time checks compare it with the key attributes
/// of the table's multi-attribute GSIs: an item whose attribute has another type than the
/// index's key schema says is refused by DynamoDB on every write ("Type mismatch for Index Key").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StoredType {
    /// A string (`S`).
    S,
    /// A number (`N`).
    N,
    /// A binary (`B`).
    B,
    /// A type no key attribute can have: `BOOL`, `L`, `M`, `SS`, `NS` or `BS`.
    Other(&'static str),
    /// Not known from the Rust type: the default of [`Attribute::STORED`], a raw
    /// `AttributeValue`, and fields stored through serde. Not checked.
    Unknown,
}

impl StoredType {
    /// The type's DynamoDB name (`S`, `N`, `B`, `BOOL`, `L`, ...; `unknown`).
    pub const fn name(self) -> &'static str {
        match self {
            StoredType::S => "S",
            StoredType::N => "N",
            StoredType::B => "B",
            StoredType::Other(name) => name,
            StoredType::Unknown => "unknown",
        }
    }
}

/// A Rust type stored as one DynamoDB attribute.
///
/// `#[derive(Entity)]` calls this for every non-key field; `#[derive(KeyPart)]` implements it
/// for newtypes and field-less enums. Implement it by hand for other types, or store them
/// through serde with `#[entity(serde)]` on the field.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be stored as a DynamoDB attribute",
    label = "this field's type must implement `Attribute`",
    note = "`#[derive(KeyPart)]` implements it for newtypes and field-less enums; store other types through serde with `#[entity(serde)]`, or implement `dynamo_entity::Attribute`"
)]
pub trait Attribute: Sized {
    /// The DynamoDB type every value is stored as, when the type tells
    /// ([`StoredType::Unknown`] by default, which no check relies on). Set it on a hand-written
    /// implementation that always writes one type, so that the table's compile-time checks can
    /// refuse a field stored under a multi-attribute GSI's key attribute name with another type.
    const STORED: StoredType = StoredType::Unknown;

    #[doc(hidden)]
    /// The type of a `Vec` of this type: a list (`L`), but binary (`B`) for `Vec<u8>`.
    const __LIST_STORED: StoredType = StoredType::Other("L");

    /// The attribute value, or `None` to leave the attribute out of the item (`Option::None`,
    /// an empty set).
    ///
    /// # Errors
    /// [`ValueError::NotRepresentable`] for values DynamoDB cannot hold.
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError>;

    /// Reads the value back; `value` is `None` when the item has no such attribute.
    ///
    /// # Errors
    /// [`ValueError::Missing`], [`ValueError::WrongType`], [`ValueError::Number`] or
    /// [`ValueError::Invalid`].
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError>;

    #[doc(hidden)]
    fn __list_to(items: &[Self]) -> Result<AttributeValue, ValueError> {
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            out.push(item.to_attribute()?.unwrap_or(AttributeValue::Null(true)));
        }
        Ok(AttributeValue::L(out))
    }

    #[doc(hidden)]
    fn __list_from(value: &AttributeValue) -> Result<Vec<Self>, ValueError> {
        match value {
            AttributeValue::L(items) => {
                items.iter().map(|v| Self::from_attribute(if v.is_null() { None } else { Some(v) })).collect()
            }
            other => Err(wrong("L", other)),
        }
    }
}

impl Attribute for String {
    const STORED: StoredType = StoredType::S;
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::S(self.clone())))
    }
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(AttributeValue::S(s)) => Ok(s.clone()),
            Some(other) => Err(wrong("S", other)),
            None => Err(ValueError::Missing),
        }
    }
}

impl Attribute for bool {
    const STORED: StoredType = StoredType::Other("BOOL");
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::Bool(*self)))
    }
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(AttributeValue::Bool(b)) => Ok(*b),
            Some(other) => Err(wrong("BOOL", other)),
            None => Err(ValueError::Missing),
        }
    }
}

impl Attribute for Timestamp {
    const STORED: StoredType = StoredType::S;
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        let mut s = String::with_capacity(crate::value::time::TIMESTAMP_LEN);
        self.write_to(&mut s);
        Ok(Some(AttributeValue::S(s)))
    }
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            // The canonical form first (the fast path), then any RFC 3339 form.
            Some(AttributeValue::S(s)) => Timestamp::parse(s)
                .or_else(|_| Timestamp::parse_rfc3339(s))
                .map_err(|e| ValueError::Invalid(e.to_string())),
            Some(other) => Err(wrong("S", other)),
            None => Err(ValueError::Missing),
        }
    }
}

impl Attribute for Date {
    const STORED: StoredType = StoredType::S;
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        let mut s = String::with_capacity(crate::value::time::DATE_LEN);
        self.write_to(&mut s);
        Ok(Some(AttributeValue::S(s)))
    }
    /// Reads `YYYY-MM-DD`.
    ///
    /// # Errors
    /// [`ValueError::Invalid`] for other text, [`ValueError::WrongType`] for another type.
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(AttributeValue::S(s)) => Date::parse(s).map_err(|e| ValueError::Invalid(e.to_string())),
            Some(other) => Err(wrong("S", other)),
            None => Err(ValueError::Missing),
        }
    }
}

/// An epoch number attribute read as `unit` (1 for seconds, 1000 for milliseconds).
fn epoch_from_attribute(value: Option<&AttributeValue>, unit: i64, ty: &'static str) -> Result<Timestamp, ValueError> {
    match value {
        Some(AttributeValue::N(n)) => {
            let count = integer_from_text::<i64>(n, ty)?;
            count
                .checked_mul(1000 / unit)
                .and_then(|ms| Timestamp::from_millis(ms).ok())
                .ok_or_else(|| ValueError::Number { text: n.clone(), ty })
        }
        Some(other) => Err(wrong("N", other)),
        None => Err(ValueError::Missing),
    }
}

impl Attribute for EpochSeconds {
    const STORED: StoredType = StoredType::N;
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::N(self.0.as_secs().to_string())))
    }

    /// # Errors
    /// [`ValueError::WrongType`] for anything but a number, [`ValueError::NotInteger`] for a
    /// fraction of a second, [`ValueError::Number`] for a number of seconds outside the years
    /// 0000 to 9999.
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        epoch_from_attribute(value, 1, "a Timestamp (epoch seconds)").map(EpochSeconds)
    }
}

impl Attribute for EpochMillis {
    const STORED: StoredType = StoredType::N;
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::N(self.0.as_millis().to_string())))
    }

    /// # Errors
    /// [`ValueError::WrongType`] for anything but a number, [`ValueError::NotInteger`] for a
    /// fraction of a millisecond, [`ValueError::Number`] for a number of milliseconds outside
    /// the years 0000 to 9999.
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        epoch_from_attribute(value, 1000, "a Timestamp (epoch milliseconds)").map(EpochMillis)
    }
}

impl Attribute for AttributeValue {
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(self.clone()))
    }
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        value.cloned().ok_or(ValueError::Missing)
    }
}

impl<T: Attribute> Attribute for Option<T> {
    const STORED: StoredType = T::STORED;
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        match self {
            Some(v) => v.to_attribute(),
            None => Ok(None),
        }
    }
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            None | Some(AttributeValue::Null(_)) => Ok(None),
            Some(v) => T::from_attribute(Some(v)).map(Some),
        }
    }
}

impl<T: Attribute> Attribute for Box<T> {
    const STORED: StoredType = T::STORED;
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        (**self).to_attribute()
    }
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        T::from_attribute(value).map(Box::new)
    }
}

impl<T: Attribute> Attribute for Vec<T> {
    const STORED: StoredType = T::__LIST_STORED;
    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        T::__list_to(self).map(Some)
    }
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(v) => T::__list_from(v),
            None => Err(ValueError::Missing),
        }
    }
}

/// DynamoDB refuses a map with an empty key ("Empty attribute name") as a whole request.
#[cold]
fn empty_map_key() -> ValueError {
    ValueError::NotRepresentable {
        value: "a map with the key \"\"".to_owned(),
        reason: "a map key is an attribute name, which DynamoDB requires to be non-empty",
    }
}

/// Checks that no map inside `value` has an empty key.
fn check_serde_value(value: &AttributeValue) -> Result<(), ValueError> {
    match value {
        AttributeValue::M(m) => {
            for (k, v) in m {
                if k.is_empty() {
                    return Err(empty_map_key());
                }
                check_serde_value(v)?;
            }
            Ok(())
        }
        AttributeValue::L(l) => l.iter().try_for_each(check_serde_value),
        AttributeValue::N(n) => check_number_text(n),
        AttributeValue::Ns(ns) => ns.iter().try_for_each(|n| check_number_text(n)),
        _ => Ok(()),
    }
}

/// Checks number text that serde produced (a float's `NaN`, `inf`, or a `1e300` written out in
/// full) against DynamoDB's number rules: decimal text, at most 38 significant digits, a
/// magnitude below 10^126 and, when not zero, at least 10^-130.
fn check_number_text(text: &str) -> Result<(), ValueError> {
    let refuse = |reason| Err(ValueError::NotRepresentable { value: text.to_owned(), reason });
    let body = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], &body[i + 1..]),
        None => (body, "0"),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let Ok(exponent) = exponent.parse::<i32>() else {
        return refuse("a DynamoDB number is finite decimal text");
    };
    if (int.is_empty() && frac.is_empty()) || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return refuse("a DynamoDB number is finite decimal text");
    }
    let digits = || int.bytes().chain(frac.bytes());
    let leading = digits().take_while(|&b| b == b'0').count();
    let total = int.len() + frac.len();
    if leading == total {
        return Ok(());
    }
    let trailing = digits().rev().take_while(|&b| b == b'0').count();
    if total - leading - trailing > 38 {
        return refuse("a number has at most 38 significant digits");
    }
    // 10^(magnitude - 1) <= |value| < 10^magnitude
    let magnitude = i64::from(exponent) + int.len() as i64 - leading as i64;
    if magnitude > 126 {
        return refuse("a number's magnitude must be below 10^126");
    }
    if magnitude - 1 < -130 {
        return refuse("a non-zero number's magnitude must be at least 10^-130");
    }
    Ok(())
}

macro_rules! map_attribute {
    ($($map:ident $(: $bound:path)?),*) => {$(
        impl<T: Attribute> Attribute for $map<String, T> {
            const STORED: StoredType = StoredType::Other("M");
            fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
                let mut out = HashMap::with_capacity(self.len());
                for (k, v) in self {
                    if k.is_empty() {
                        return Err(empty_map_key());
                    }
                    if let Some(av) = v.to_attribute()? {
                        out.insert(k.clone(), av);
                    }
                }
                Ok(Some(AttributeValue::M(out)))
            }
            fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
                match value {
                    Some(AttributeValue::M(m)) => m
                        .iter()
                        .map(|(k, v)| T::from_attribute(Some(v)).map(|v| (k.clone(), v)))
                        .collect(),
                    Some(other) => Err(wrong("M", other)),
                    None => Err(ValueError::Missing),
                }
            }
        }
    )*};
}
map_attribute!(HashMap, BTreeMap);

/// The attributes named `names` of `item`, in that order (`None` for an absent one): what a
/// decoder reads, found in one pass over the item. `slot` maps an attribute name to its index in
/// `names` (generated code passes a `match` over the names, which compares lengths and bytes and
/// hashes nothing), so the pass costs one comparison per attribute of the item instead of one
/// hash lookup (SipHash of the name, then the probe) per name. An item with many more
/// attributes than `names` (more than 4 per name) is read with lookups instead.
#[inline]
pub fn pick_attributes<'a, const N: usize>(
    item: &'a HashMap<String, AttributeValue>,
    names: &[&'static str; N],
    slot: impl Fn(&str) -> Option<usize>,
) -> [Option<&'a AttributeValue>; N] {
    if item.len() > 4 * N + 8 {
        return names.map(|n| item.get(n));
    }
    let mut out = [None; N];
    for (name, value) in item {
        if let Some(i) = slot(name) {
            if let Some(place) = out.get_mut(i) {
                *place = Some(value);
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// Numbers

/// Parses DynamoDB number text into an integer type, accepting the plain form (`-42`) and the
/// scientific or fractional forms DynamoDB may return for integral values (`4.2E+1`, `42.0`).
/// `None` when the text is not an integer or does not fit `T`.
pub fn parse_integer<T: std::str::FromStr>(text: &str) -> Option<T> {
    if let Ok(v) = text.parse::<T>() {
        return Some(v);
    }
    normalize_integer(text)?.parse::<T>().ok()
}

/// Reads DynamoDB number text as the integer type `T` (named `ty` in errors), accepting the
/// forms other clients write for integral values (`42`, `42.0`, `4.2E1`, `+42`).
///
/// # Errors
/// [`ValueError::NotInteger`] for a number with a fractional part (`4.5`);
/// [`ValueError::Number`] for text that is not a number or an integer outside `T`'s range.
pub fn integer_from_text<T: std::str::FromStr>(text: &str, ty: &'static str) -> Result<T, ValueError> {
    if let Some(v) = parse_integer::<T>(text) {
        return Ok(v);
    }
    match decimal_parts(text) {
        // 0.digits × 10^point has a fractional part when digits reach past the point.
        Some((_, digits, point)) if !digits.is_empty() && digits.len() as i64 > point => {
            Err(ValueError::NotInteger { text: text.to_owned(), ty })
        }
        _ => Err(ValueError::Number { text: text.to_owned(), ty }),
    }
}

/// Rewrites an integral decimal in any notation to plain digits (with a leading `-`).
fn normalize_integer(text: &str) -> Option<String> {
    let (neg, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i32>().ok()?),
        None => (rest, 0),
    };
    let (int_part, frac_part) = match mantissa.find('.') {
        Some(i) => (&mantissa[..i], &mantissa[i + 1..]),
        None => (mantissa, ""),
    };
    if int_part.is_empty() && frac_part.is_empty()
        || !int_part.bytes().chain(frac_part.bytes()).all(|b| b.is_ascii_digit())
        || exp.unsigned_abs() > 200
    {
        return None;
    }
    let mut digits: String = format!("{int_part}{frac_part}");
    let point = int_part.len() as i32 + exp; // digits before the decimal point
    if point < 0 {
        return digits.bytes().all(|b| b == b'0').then(|| "0".to_owned());
    }
    let point = point as usize;
    if point >= digits.len() {
        digits.extend(std::iter::repeat_n('0', point - digits.len()));
    } else if !digits[point..].bytes().all(|b| b == b'0') {
        return None;
    } else {
        digits.truncate(point);
    }
    let trimmed = digits.trim_start_matches('0');
    let body = if trimmed.is_empty() { "0" } else { trimmed };
    Some(if neg && body != "0" { format!("-{body}") } else { body.to_owned() })
}

/// A decimal's sign, significant digits (no leading or trailing zeros) and the position of the
/// decimal point relative to them: the value is `0.digits × 10^point`. `None` for text that is
/// not a number.
fn decimal_parts(text: &str) -> Option<(bool, String, i64)> {
    let (neg, rest) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let (mantissa, exp) = match rest.find(['e', 'E']) {
        Some(i) => (&rest[..i], rest[i + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (int_part, frac_part) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if !int_part.bytes().chain(frac_part.bytes()).all(|b| b.is_ascii_digit()) || int_part.len() + frac_part.len() == 0 {
        return None;
    }
    let all = format!("{int_part}{frac_part}");
    let lead = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0').to_owned();
    let point = int_part.len() as i64 - lead as i64 + exp;
    Some((neg && !digits.is_empty(), digits, point))
}

/// Compares two DynamoDB number texts exactly (any notation); text that is not a number sorts
/// first.
pub fn compare_numbers(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let (Some(x), Some(y)) = (decimal_parts(a), decimal_parts(b)) else {
        return decimal_parts(a).is_some().cmp(&decimal_parts(b).is_some());
    };
    let magnitude = |(_, d, p): &(bool, String, i64), (_, e, q): &(bool, String, i64)| -> Ordering {
        match (d.is_empty(), e.is_empty()) {
            (true, true) => Ordering::Equal,
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            (false, false) => p.cmp(q).then_with(|| d.as_str().cmp(e.as_str())),
        }
    };
    match (x.0, y.0) {
        (false, true) => Ordering::Greater,
        (true, false) => Ordering::Less,
        (false, false) => magnitude(&x, &y),
        (true, true) => magnitude(&y, &x),
    }
}

/// Checks DynamoDB's 38-significant-digit rule on plain integer text.
fn check_digits(text: &str) -> Result<(), ValueError> {
    let digits = text.trim_start_matches('-').trim_end_matches('0');
    if digits.len() > 38 {
        return Err(ValueError::NotRepresentable {
            value: text.to_owned(),
            reason: "a number has at most 38 significant digits",
        });
    }
    Ok(())
}

macro_rules! int_attribute {
    ($($t:ty),*) => {$(
        impl Attribute for $t {
            const STORED: StoredType = StoredType::N;

            #[inline]
            fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
                let text = self.to_string();
                if std::mem::size_of::<$t>() == 16 {
                    check_digits(&text)?;
                }
                Ok(Some(AttributeValue::N(text)))
            }
            #[inline]
            fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
                match value {
                    Some(AttributeValue::N(n)) => integer_from_text::<$t>(n, stringify!($t)),
                    Some(other) => Err(wrong("N", other)),
                    None => Err(ValueError::Missing),
                }
            }
        }
    )*};
}
int_attribute!(i8, i16, i32, i64, i128, isize, u16, u32, u64, u128, usize);

// `u8` is its own case: a `Vec<u8>` is binary (`B`), not a list of numbers.
impl Attribute for u8 {
    const STORED: StoredType = StoredType::N;
    const __LIST_STORED: StoredType = StoredType::B;

    #[inline]
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::N(self.to_string())))
    }
    #[inline]
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(AttributeValue::N(n)) => integer_from_text::<u8>(n, "u8"),
            Some(other) => Err(wrong("N", other)),
            None => Err(ValueError::Missing),
        }
    }
    fn __list_to(items: &[Self]) -> Result<AttributeValue, ValueError> {
        Ok(AttributeValue::B(Blob::new(items.to_vec())))
    }
    fn __list_from(value: &AttributeValue) -> Result<Vec<Self>, ValueError> {
        match value {
            AttributeValue::B(b) => Ok(b.as_ref().to_vec()),
            other => Err(wrong("B", other)),
        }
    }
}

/// A number type that updates can add to or subtract from (`UpdateRequest::add`). Knows its
/// range, so that an update that would leave it (a `u64` counter past `u64::MAX`, an unsigned
/// counter below zero) is refused by DynamoDB through a condition instead of storing a number
/// the field can no longer be read as.
pub trait Number: Attribute {
    /// For `stored <op> amount` to stay in range (`op` is `+` or `-`): the lowest and highest
    /// stored value allowed, as DynamoDB number text (`None`: unbounded), and whether an absent
    /// attribute (read as 0) is allowed.
    fn update_bounds(amount: &Self, op: char) -> (Option<String>, Option<String>, bool);
}

macro_rules! integer_number {
    ($($t:ty),*) => {$(
        impl Number for $t {
            #[allow(unused_comparisons)]
            fn update_bounds(amount: &Self, op: char) -> (Option<String>, Option<String>, bool) {
                let a = *amount;
                let non_negative = a >= 0;
                let (low, high) = match (op, non_negative) {
                    ('+', true) => (None, <$t>::MAX.checked_sub(a)),
                    ('+', false) => (<$t>::MIN.checked_sub(a), None),
                    (_, true) => (<$t>::MIN.checked_add(a), None),
                    (_, false) => (None, <$t>::MAX.checked_add(a)),
                };
                let from_zero = if op == '+' { true } else { (0 as $t).checked_sub(a).is_some() };
                (
                    low.filter(|l| *l != <$t>::MIN).map(|l| l.to_string()),
                    high.filter(|h| *h != <$t>::MAX).map(|h| h.to_string()),
                    from_zero,
                )
            }
        }
    )*};
}
integer_number!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

// ---------------------------------------------------------------------------------------------
// Sets

/// A type that can be an element of a DynamoDB set: strings (`SS`), numbers (`NS`) and byte
/// vectors (`BS`).
pub trait SetElement: Sized {
    /// `SS`, `NS` or `BS`.
    const SET_TYPE: &'static str;
    #[doc(hidden)]
    fn __to_set(items: Vec<&Self>) -> Result<AttributeValue, ValueError>;
    #[doc(hidden)]
    fn __from_set(value: &AttributeValue) -> Result<Vec<Self>, ValueError>;
}

impl SetElement for String {
    const SET_TYPE: &'static str = "SS";
    fn __to_set(items: Vec<&Self>) -> Result<AttributeValue, ValueError> {
        Ok(AttributeValue::Ss(items.into_iter().cloned().collect()))
    }
    fn __from_set(value: &AttributeValue) -> Result<Vec<Self>, ValueError> {
        match value {
            AttributeValue::Ss(v) => Ok(v.clone()),
            AttributeValue::L(items) => list_elements(items, "SS", |v| match v {
                AttributeValue::S(s) => Some(s.clone()),
                _ => None,
            }),
            other => Err(wrong("SS", other)),
        }
    }
}

impl SetElement for Vec<u8> {
    const SET_TYPE: &'static str = "BS";
    fn __to_set(items: Vec<&Self>) -> Result<AttributeValue, ValueError> {
        Ok(AttributeValue::Bs(items.into_iter().map(|b| Blob::new(b.clone())).collect()))
    }
    fn __from_set(value: &AttributeValue) -> Result<Vec<Self>, ValueError> {
        match value {
            AttributeValue::Bs(v) => Ok(v.iter().map(|b| b.as_ref().to_vec()).collect()),
            AttributeValue::L(items) => list_elements(items, "BS", |v| match v {
                AttributeValue::B(b) => Some(b.as_ref().to_vec()),
                _ => None,
            }),
            other => Err(wrong("BS", other)),
        }
    }
}

/// The elements of a list (`L`) read where a set is declared, as JavaScript arrays and Python
/// lists are written by default: each element must be of the set's element type (`S` for
/// `SS`, `N` for `NS`, `B` for `BS`).
fn list_elements<'a, T>(
    items: &'a [AttributeValue],
    set_type: &'static str,
    element: impl Fn(&'a AttributeValue) -> Option<T>,
) -> Result<Vec<T>, ValueError> {
    items
        .iter()
        .map(|v| {
            element(v).ok_or_else(|| {
                ValueError::Invalid(format!(
                    "a list read as {set_type} holds an element of type {}, expected {}",
                    type_name(v),
                    &set_type[..1]
                ))
            })
        })
        .collect()
}

macro_rules! number_set_element {
    ($($t:ty),*) => {$(
        impl SetElement for $t {
            const SET_TYPE: &'static str = "NS";
            fn __to_set(items: Vec<&Self>) -> Result<AttributeValue, ValueError> {
                let mut out = Vec::with_capacity(items.len());
                for v in items {
                    match v.to_attribute()? {
                        Some(AttributeValue::N(n)) => out.push(n),
                        _ => unreachable!("numbers encode as N"),
                    }
                }
                Ok(AttributeValue::Ns(out))
            }
            fn __from_set(value: &AttributeValue) -> Result<Vec<Self>, ValueError> {
                match value {
                    AttributeValue::Ns(v) => v.iter().map(|n| integer_from_text::<$t>(n, stringify!($t))).collect(),
                    AttributeValue::L(items) => {
                        let texts = list_elements(items, "NS", |v| match v {
                            AttributeValue::N(n) => Some(n),
                            _ => None,
                        })?;
                        texts.into_iter().map(|n| integer_from_text::<$t>(n, stringify!($t))).collect()
                    }
                    other => Err(wrong("NS", other)),
                }
            }
        }
    )*};
}
number_set_element!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

impl<T: SetElement + Ord> Attribute for BTreeSet<T> {
    const STORED: StoredType = StoredType::Other(T::SET_TYPE);

    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        if self.is_empty() {
            return Ok(None);
        }
        T::__to_set(self.iter().collect()).map(Some)
    }
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            None => Ok(BTreeSet::new()),
            Some(v) => Ok(T::__from_set(v)?.into_iter().collect()),
        }
    }
}

impl<T: SetElement + Eq + Hash, S: std::hash::BuildHasher + Default> Attribute for HashSet<T, S> {
    const STORED: StoredType = StoredType::Other(T::SET_TYPE);

    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        if self.is_empty() {
            return Ok(None);
        }
        T::__to_set(self.iter().collect()).map(Some)
    }
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            None => Ok(HashSet::default()),
            Some(v) => Ok(T::__from_set(v)?.into_iter().collect()),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// serde

/// Stores `value` through serde (as nested `M` / `L` / scalar attributes), for
/// `#[entity(serde)]` fields.
///
/// # Errors
/// [`ValueError::Invalid`] when serde cannot represent the value;
/// [`ValueError::NotRepresentable`] for a map with an empty key, or a number DynamoDB cannot
/// hold (a float's NaN or infinity, a magnitude of 10^126 or more or below 10^-130, more than 38
/// significant digits): DynamoDB would refuse the whole item.
pub fn serde_to_attribute<T: serde::Serialize>(value: &T) -> Result<Option<AttributeValue>, ValueError> {
    let av: AttributeValue = serde_dynamo::to_attribute_value(value).map_err(|e| ValueError::Invalid(e.to_string()))?;
    check_serde_value(&av)?;
    Ok(if av.is_null() { None } else { Some(av) })
}

/// Reads a `#[entity(serde)]` field back; an absent attribute reads as serde's `null`.
///
/// # Errors
/// [`ValueError::Invalid`] with serde's message.
pub fn serde_from_attribute<T: serde::de::DeserializeOwned>(value: Option<&AttributeValue>) -> Result<T, ValueError> {
    let av = value.cloned().unwrap_or(AttributeValue::Null(true));
    serde_dynamo::from_attribute_value(av).map_err(|e| ValueError::Invalid(e.to_string()))
}

/// A number's plain canonical text, as DynamoDB stores and returns it: no exponent, no leading
/// zeros, no trailing zeros after the point, no point when integral, `0` for any zero. `None`
/// for text that is not a number, or beyond DynamoDB's range.
pub(crate) fn canonical_number(text: &str) -> Option<String> {
    let t = text.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    let (mantissa, exponent) = match t.find(['e', 'E']) {
        Some(i) => match t[i + 1..].parse::<i64>() {
            Ok(e) => (&t[..i], e),
            Err(_) => return None,
        },
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // value = digits * 10^scale
    let mut digits: String = format!("{int}{frac}");
    let mut scale = exponent - frac.len() as i64;
    let trimmed = digits.trim_start_matches('0');
    if trimmed.is_empty() {
        return Some("0".to_owned());
    }
    digits = trimmed.to_owned();
    while digits.ends_with('0') {
        digits.pop();
        scale += 1;
    }
    if scale.unsigned_abs() > 200 {
        return None; // beyond DynamoDB's range
    }
    let mut out = String::new();
    if negative {
        out.push('-');
    }
    if scale >= 0 {
        out.push_str(&digits);
        out.extend(std::iter::repeat_n('0', scale as usize));
    } else {
        let point = digits.len() as i64 + scale;
        if point > 0 {
            let (a, b) = digits.split_at(point as usize);
            out.push_str(a);
            out.push('.');
            out.push_str(b);
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-point) as usize));
            out.push_str(&digits);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::time::TimestampError;

    #[test]
    fn serde_number_text_follows_dynamodb_rules() {
        for ok in ["0", "-0.000", "42", "-4.2e1", "1E+125", "9.99e125", "1e-130", "0.5", &"1".repeat(38)] {
            assert_eq!(check_number_text(ok), Ok(()), "{ok}");
        }
        let cases = [
            ("NaN", "a DynamoDB number is finite decimal text"),
            ("inf", "a DynamoDB number is finite decimal text"),
            ("1e", "a DynamoDB number is finite decimal text"),
            ("1e126", "a number's magnitude must be below 10^126"),
            ("1e-131", "a non-zero number's magnitude must be at least 10^-130"),
            ("1234567890123456789012345678901234567891", "a number has at most 38 significant digits"),
        ];
        for (text, reason) in cases {
            assert_eq!(
                check_number_text(text),
                Err(ValueError::NotRepresentable { value: text.to_owned(), reason }),
                "{text}"
            );
        }
        let huge = format!("{}", 1e300_f64);
        assert_eq!(
            serde_to_attribute(&vec![1e300_f64]),
            Err(ValueError::NotRepresentable { value: huge, reason: "a number's magnitude must be below 10^126" })
        );
        assert!(matches!(serde_to_attribute(&f64::NAN), Err(ValueError::NotRepresentable { .. })));
        assert_eq!(
            serde_to_attribute(&vec![1.5_f64]),
            Ok(Some(AttributeValue::L(vec![AttributeValue::N("1.5".into())])))
        );
    }

    #[test]
    fn integers_in_other_notations() {
        assert_eq!(parse_integer::<u64>("42"), Some(42));
        assert_eq!(parse_integer::<u64>("4.2E+1"), Some(42));
        assert_eq!(parse_integer::<i64>("-4.2e1"), Some(-42));
        assert_eq!(parse_integer::<u64>("42.000"), Some(42));
        assert_eq!(parse_integer::<u64>("4.25E+1"), None);
        assert_eq!(parse_integer::<u8>("256"), None);
        assert_eq!(parse_integer::<u64>("-1"), None);
        assert_eq!(parse_integer::<i32>("0E+5"), Some(0));
        assert_eq!(parse_integer::<u64>("1E+20"), None);
        assert_eq!(parse_integer::<u128>("1E+20"), Some(100_000_000_000_000_000_000));
    }

    #[test]
    fn numbers_compare_exactly() {
        use std::cmp::Ordering::*;
        assert_eq!(compare_numbers("18446744073709551615", "18446744073709551614"), Greater);
        assert_eq!(compare_numbers("1E+2", "100"), Equal);
        assert_eq!(compare_numbers("-5", "3"), Less);
        assert_eq!(compare_numbers("-5", "-30"), Greater);
        assert_eq!(compare_numbers("0.001", "0.01"), Less);
        assert_eq!(compare_numbers("0", "-0.0"), Equal);
        assert_eq!(compare_numbers("12.5", "12.50"), Equal);
    }

    #[test]
    fn update_bounds_keep_counters_in_range() {
        assert_eq!(u64::update_bounds(&1, '+'), (None, Some("18446744073709551614".into()), true));
        assert_eq!(u32::update_bounds(&3, '-'), (Some("3".into()), None, false));
        assert_eq!(i8::update_bounds(&-10, '+'), (Some("-118".into()), None, true));
        assert_eq!(i8::update_bounds(&-10, '-'), (None, Some("117".into()), true));
        assert_eq!(u8::update_bounds(&0, '-'), (None, None, true));
    }

    #[test]
    fn numbers_dynamodb_cannot_hold() {
        assert!(matches!(f64::NAN.to_attribute(), Err(ValueError::NotRepresentable { .. })));
        assert!(matches!(f64::INFINITY.to_attribute(), Err(ValueError::NotRepresentable { .. })));
        assert!(matches!(1e200f64.to_attribute(), Err(ValueError::NotRepresentable { .. })));
        assert!(matches!(u128::MAX.to_attribute(), Err(ValueError::NotRepresentable { .. })));
        assert_eq!(10u128.pow(38).to_attribute(), Ok(Some(AttributeValue::N("1".to_owned() + &"0".repeat(38)))));
        assert_eq!(0.1f64.to_attribute(), Ok(Some(AttributeValue::N("0.1".into()))));
    }

    #[test]
    fn bytes_are_binary_and_lists_are_lists() {
        assert_eq!(vec![1u8, 2].to_attribute(), Ok(Some(AttributeValue::B(Blob::new(vec![1, 2])))));
        assert_eq!(
            vec![1u16, 2].to_attribute(),
            Ok(Some(AttributeValue::L(vec![AttributeValue::N("1".into()), AttributeValue::N("2".into())])))
        );
        assert_eq!(BTreeSet::<String>::new().to_attribute(), Ok(None));
        assert_eq!(BTreeSet::<String>::from_attribute(None), Ok(BTreeSet::new()));
        assert_eq!(
            u32::from_attribute(Some(&AttributeValue::S("1".into()))),
            Err(ValueError::WrongType { expected: "N", found: "S" })
        );
        assert_eq!(Option::<u32>::from_attribute(Some(&AttributeValue::Null(true))), Ok(None));
    }

    #[cfg(feature = "rust_decimal")]
    #[test]
    fn decimals_round_trip_exactly() {
        use rust_decimal::Decimal;
        for text in ["0", "1.50", "-79228162514264337593543950335", "0.0000000000000000000000000001"] {
            let d: Decimal = text.parse().unwrap();
            let av = d.to_attribute().unwrap();
            assert_eq!(av, Some(AttributeValue::N(text.to_owned())));
            let back = Decimal::from_attribute(av.as_ref()).unwrap();
            assert_eq!((back, back.to_string()), (d, text.to_owned()));
        }
        assert_eq!(Decimal::from_attribute(Some(&AttributeValue::N("1.5E+2".into()))).unwrap(), Decimal::from(150));
        assert!(matches!(
            Decimal::from_attribute(Some(&AttributeValue::N("1E+40".into()))),
            Err(ValueError::Number { .. })
        ));
    }

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
    }

    #[test]
    fn integers_read_the_forms_other_clients_write() {
        for text in ["42", "42.0", "42.000", "4.2E1", "4.2e+1", "420E-1", "0.42E2", "+42"] {
            assert_eq!(u32::from_attribute(Some(&n(text))), Ok(42), "{text}");
            assert_eq!(i64::from_attribute(Some(&n(text))), Ok(42), "{text}");
            assert_eq!(u8::from_attribute(Some(&n(text))), Ok(42), "{text}");
        }
        assert_eq!(i32::from_attribute(Some(&n("-4.2E1"))), Ok(-42));
        assert_eq!(u64::from_attribute(Some(&n("0.0"))), Ok(0));
        for text in ["4.5", "42.01", "4.25E1", "1E-1", "-0.5"] {
            assert_eq!(
                u32::from_attribute(Some(&n(text))),
                Err(ValueError::NotInteger { text: text.to_owned(), ty: "u32" }),
                "{text}"
            );
        }
        assert_eq!(
            u8::from_attribute(Some(&n("2.56E2"))),
            Err(ValueError::Number { text: "2.56E2".into(), ty: "u8" }),
            "256 is integral, but over u8"
        );
        assert_eq!(u8::from_attribute(Some(&n("256"))), Err(ValueError::Number { text: "256".into(), ty: "u8" }));
        assert_eq!(u32::from_attribute(Some(&n("-1"))), Err(ValueError::Number { text: "-1".into(), ty: "u32" }));
        assert_eq!(
            i64::from_attribute(Some(&n("1E+300"))),
            Err(ValueError::Number { text: "1E+300".into(), ty: "i64" })
        );
        assert_eq!(
            ValueError::NotInteger { text: "4.5".into(), ty: "u32" }.to_string(),
            "number 4.5 is not an integer, as u32 needs"
        );
        // Writes stay in the one plain form.
        assert_eq!(42u32.to_attribute(), Ok(Some(n("42"))));
    }

    #[test]
    fn sets_read_lists_of_their_element_type() {
        let list = |items: Vec<AttributeValue>| AttributeValue::L(items);
        let strings =
            list(vec![AttributeValue::S("b".into()), AttributeValue::S("a".into()), AttributeValue::S("b".into())]);
        assert_eq!(BTreeSet::<String>::from_attribute(Some(&strings)), Ok(["a".to_owned(), "b".to_owned()].into()));
        assert_eq!(HashSet::<String>::from_attribute(Some(&strings)), Ok(["a".to_owned(), "b".to_owned()].into()));
        let numbers = list(vec![n("3"), n("1.0"), n("2E0")]);
        assert_eq!(BTreeSet::<u32>::from_attribute(Some(&numbers)), Ok([1, 2, 3].into()));
        assert_eq!(HashSet::<i64>::from_attribute(Some(&numbers)), Ok([1, 2, 3].into()));
        let bytes = list(vec![AttributeValue::B(Blob::new(vec![1u8]))]);
        assert_eq!(BTreeSet::<Vec<u8>>::from_attribute(Some(&bytes)), Ok([vec![1u8]].into()));
        assert_eq!(BTreeSet::<String>::from_attribute(Some(&list(vec![]))), Ok(BTreeSet::new()));
        // An element of another type is refused, naming both types.
        assert_eq!(
            BTreeSet::<String>::from_attribute(Some(&list(vec![AttributeValue::S("a".into()), n("1")]))),
            Err(ValueError::Invalid("a list read as SS holds an element of type N, expected S".into()))
        );
        assert_eq!(
            BTreeSet::<u32>::from_attribute(Some(&list(vec![AttributeValue::S("1".into())]))),
            Err(ValueError::Invalid("a list read as NS holds an element of type S, expected N".into()))
        );
        assert_eq!(
            BTreeSet::<u32>::from_attribute(Some(&list(vec![n("1.5")]))),
            Err(ValueError::NotInteger { text: "1.5".into(), ty: "u32" })
        );
        assert_eq!(
            BTreeSet::<u32>::from_attribute(Some(&AttributeValue::Ns(vec!["1.5".into()]))),
            Err(ValueError::NotInteger { text: "1.5".into(), ty: "u32" })
        );
        // Writes stay sets.
        let set: BTreeSet<String> = ["a".to_owned()].into();
        assert_eq!(set.to_attribute(), Ok(Some(AttributeValue::Ss(vec!["a".into()]))));
        assert_eq!(BTreeSet::from([5u32]).to_attribute(), Ok(Some(AttributeValue::Ns(vec!["5".into()]))));
    }

    #[test]
    fn time_attributes() {
        let s = |text: &str| AttributeValue::S(text.to_owned());
        let t = Timestamp::parse("2026-05-01T12:34:56.000Z").unwrap();
        for text in ["2026-05-01T12:34:56Z", "2026-05-01T14:34:56+02:00", "2026-05-01T12:34:56.000000Z"] {
            assert_eq!(Timestamp::from_attribute(Some(&s(text))), Ok(t), "{text}");
        }
        assert_eq!(t.to_attribute(), Ok(Some(s("2026-05-01T12:34:56.000Z"))));
        assert_eq!(
            Timestamp::from_attribute(Some(&s("soon"))),
            Err(ValueError::Invalid(TimestampError::Rfc3339 { text: "soon".into() }.to_string()))
        );
        let d = Date::from_ymd(2026, 5, 28).unwrap();
        assert_eq!(d.to_attribute(), Ok(Some(s("2026-05-28"))));
        assert_eq!(Date::from_attribute(Some(&s("2026-05-28"))), Ok(d));
        assert_eq!(
            Date::from_attribute(Some(&n("20260528"))),
            Err(ValueError::WrongType { expected: "S", found: "N" })
        );
        assert!(matches!(Date::from_attribute(Some(&s("2026-02-30"))), Err(ValueError::Invalid(_))));

        let at = Timestamp::from_millis(1_700_000_000_999).unwrap();
        assert_eq!(EpochMillis(at).to_attribute(), Ok(Some(n("1700000000999"))));
        assert_eq!(EpochMillis::from_attribute(Some(&n("1.700000000999E12"))), Ok(EpochMillis(at)));
        assert_eq!(EpochSeconds(at).to_attribute(), Ok(Some(n("1700000000"))));
        assert_eq!(EpochSeconds::from_attribute(Some(&n("1700000000.0"))), Ok(EpochSeconds(at.add_millis(-999))));
        assert_eq!(
            EpochMillis::from_attribute(Some(&n("1.5"))),
            Err(ValueError::NotInteger { text: "1.5".into(), ty: "a Timestamp (epoch milliseconds)" })
        );
        assert_eq!(
            EpochMillis::from_attribute(Some(&n("253402300800000"))),
            Err(ValueError::Number { text: "253402300800000".into(), ty: "a Timestamp (epoch milliseconds)" })
        );
        assert_eq!(
            EpochSeconds::from_attribute(Some(&n("9223372036854775807"))),
            Err(ValueError::Number { text: "9223372036854775807".into(), ty: "a Timestamp (epoch seconds)" })
        );
    }

    proptest::proptest! {
        /// An integer written as JavaScript or Python may write it (plain, `.0`, scientific)
        /// reads as itself; the same digits with a fractional part are refused as not integral.
        #[test]
        fn integers_in_every_form(v in proptest::num::i64::ANY, zeros in 1usize..4, half in proptest::bool::ANY) {
            let plain = v.to_string();
            let digits = plain.trim_start_matches('-');
            let sign = if v < 0 { "-" } else { "" };
            let scientific = format!("{sign}{}.{}E{}", &digits[..1], &digits[1..], digits.len() - 1);
            let scientific = scientific.replace(".E", "E");
            for text in [plain.clone(), format!("{plain}.{}", "0".repeat(zeros)), scientific] {
                proptest::prop_assert_eq!(i64::from_attribute(Some(&n(&text))), Ok(v), "{}", text);
                proptest::prop_assert_eq!(
                    BTreeSet::<i64>::from_attribute(Some(&AttributeValue::L(vec![n(&text)]))),
                    Ok(BTreeSet::from([v]))
                );
            }
            let fractional = format!("{plain}.{}", if half { "5" } else { "0001" });
            proptest::prop_assert_eq!(
                i64::from_attribute(Some(&n(&fractional))),
                Err(ValueError::NotInteger { text: fractional.clone(), ty: "i64" })
            );
        }

        /// A list of strings reads as the set of its elements, as the set type itself does.
        #[test]
        fn string_lists_read_as_sets(items in proptest::collection::vec("[a-z]{1,4}", 0..8)) {
            let list = AttributeValue::L(items.iter().map(|s| AttributeValue::S(s.clone())).collect());
            let want: BTreeSet<String> = items.iter().cloned().collect();
            proptest::prop_assert_eq!(BTreeSet::<String>::from_attribute(Some(&list)), Ok(want.clone()));
            if !want.is_empty() {
                let set = want.to_attribute().unwrap();
                proptest::prop_assert_eq!(BTreeSet::<String>::from_attribute(set.as_ref()), Ok(want));
            }
        }

        #[test]
        fn i64_round_trip(v: i64) {
            let av = v.to_attribute().unwrap();
            proptest::prop_assert_eq!(i64::from_attribute(av.as_ref()), Ok(v));
        }
        #[test]
        fn u128_round_trip_or_rejected(v: u128) {
            match v.to_attribute() {
                Ok(av) => proptest::prop_assert_eq!(u128::from_attribute(av.as_ref()), Ok(v)),
                Err(ValueError::NotRepresentable { .. }) => proptest::prop_assert!(v.to_string().trim_end_matches('0').len() > 38),
                Err(e) => proptest::prop_assert!(false, "{e}"),
            }
        }
        #[test]
        fn f64_round_trip(v in proptest::num::f64::NORMAL | proptest::num::f64::ZERO) {
            if let Ok(av) = v.to_attribute() {
                proptest::prop_assert_eq!(f64::from_attribute(av.as_ref()), Ok(v));
            } else {
                proptest::prop_assert!(v.abs() >= 1e126 || v.abs() < 1e-130);
            }
        }
        #[test]
        fn strings_round_trip(s: String) {
            let av = s.to_attribute().unwrap();
            proptest::prop_assert_eq!(String::from_attribute(av.as_ref()), Ok(s));
        }
    }
}

//! Integer key parts: zero-padded, order-preserving text inside a composite key (negatives as
//! `-` and their offset from the type's minimum), plain decimal in a number key.

use super::{KeyPart, KeyPartError, PartForm, PartShape};

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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn composite<T: KeyPart>(v: T) -> String {
        let mut s = String::new();
        v.write_part(&mut s, PartForm::Composite).unwrap();
        s
    }

    #[test]
    fn integer_number_form_inverts_every_integer_encoding() {
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

    fn ordered<T: KeyPart + Ord + Copy + std::fmt::Debug>(a: T, b: T) -> Result<(), TestCaseError> {
        let (ea, eb) = (composite(a), composite(b));
        prop_assert_eq!(ea.cmp(&eb), a.cmp(&b), "{:?} {:?} -> {} {}", a, b, ea, eb);
        Ok(())
    }

    proptest! {
        #[test]
        fn unsigned_order(a: u64, b: u64) { ordered(a, b)?; ordered(a as u32, b as u32)?; ordered(a as u8, b as u8)?; ordered(a as u16, b as u16)?; }

        #[test]
        fn signed_order(a: i64, b: i64) { ordered(a, b)?; ordered(a as i32, b as i32)?; ordered(a as i8, b as i8)?; ordered(a as i16, b as i16)?; }

        #[test]
        fn wide_order(a: i128, b: i128, c: u128, d: u128) { ordered(a, b)?; ordered(c, d)?; }

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

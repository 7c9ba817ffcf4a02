//! `f32` and `f64` attributes. Written as the shortest text that reads back as the same float;
//! read only when no digit of the stored number is lost.
//!
//! A float reads a stored number when the float's shortest text (what this library writes for
//! it) has the same value as the stored number (`0.1`, `42`, `4.2E1`, `1e-7`, any 15 digits for
//! an `f64`, any 6 for an `f32`), or when the float holds the stored number exactly (2^60 as
//! `1152921504606846976`). Anything else would be rounded (`0.1234567890123456789` for an `f64`,
//! `16777217` for an `f32`) and is refused with [`ValueError::Number`]; read such numbers as a
//! [`Decimal`].

use std::fmt::Display;
use std::str::FromStr;

use aws_sdk_dynamodb::types::AttributeValue;

use super::decimal::Decimal;
use super::{Attribute, Number, StoredType, ValueError, wrong};

/// What the reading rule needs of `f32` and `f64`.
trait Float: Copy + FromStr + Display {
    /// The significant digits every decimal of which survives a round trip through the float
    /// (`f64::DIGITS`, `f32::DIGITS`), for normal floats.
    const DIGITS: u32;
    fn is_finite(self) -> bool;
    fn is_normal(self) -> bool;
    fn wide(self) -> f64;
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            const DIGITS: u32 = <$t>::DIGITS;
            #[inline]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
            #[inline]
            fn is_normal(self) -> bool {
                <$t>::is_normal(self)
            }
            #[inline]
            fn wide(self) -> f64 {
                f64::from(self)
            }
        }
    )*};
}
float!(f32, f64);

/// The count of significant digits of number text (leading and trailing zeros aside), from
/// the digits before any exponent.
#[inline]
fn significant_digits(text: &str) -> u32 {
    let (mut first, mut last, mut at) = (None, 0, 0u32);
    for b in text.bytes() {
        match b {
            b'0' => at += 1,
            b'1'..=b'9' => {
                first.get_or_insert(at);
                last = at;
                at += 1;
            }
            b'e' | b'E' => break,
            _ => {}
        }
    }
    first.map_or(0, |first| last - first + 1)
}

/// Reads DynamoDB number text as the float `T` (named `ty` in errors) when no digit is lost:
/// the float's shortest text has the same value as `text`, or the float is exactly `text`.
///
/// # Errors
/// [`ValueError::Number`] for text that is not a number, beyond the float's range, or with
/// digits the float does not keep.
#[inline]
fn float_from_text<T: Float>(text: &str, ty: &'static str) -> Result<T, ValueError> {
    let refuse = || ValueError::Number { text: text.to_owned(), ty };
    let v = text.parse::<T>().ok().filter(|v| v.is_finite()).ok_or_else(refuse)?;
    // Up to DIGITS significant digits, a decimal is the shortest text of its nearest normal
    // float; zero is zero.
    let digits = significant_digits(text);
    if digits == 0 || (digits <= T::DIGITS && v.is_normal()) {
        return Ok(v);
    }
    let Ok(stored) = text.parse::<Decimal>() else {
        return Err(refuse());
    };
    let shortest = v.to_string();
    if shortest == text || shortest.parse::<Decimal>().is_ok_and(|s| s == stored) || stored.equals_float(v.wide()) {
        Ok(v)
    } else {
        Err(refuse())
    }
}

/// `items`, for `f32`'s [`Attribute::__f32_slice`].
fn f32_slice(items: &[f32]) -> Option<&[f32]> {
    Some(items)
}

/// No 32-bit floats, for `f64`'s [`Attribute::__f32_slice`].
fn no_f32_slice(_: &[f64]) -> Option<&[f32]> {
    None
}

macro_rules! float_attribute {
    ($($t:ty => $slice:path),*) => {$(
        impl Attribute for $t {
            const STORED: StoredType = StoredType::N;

            fn __f32_slice(items: &[Self]) -> Option<&[f32]> {
                $slice(items)
            }

            /// The shortest text that reads back as the same float.
            ///
            /// # Errors
            /// [`ValueError::NotRepresentable`] for NaN, infinities, and a magnitude DynamoDB
            /// does not hold (10^126 or more, or below 10^-130 and not zero).
            #[inline]
            fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
                float_text(f64::from(*self), *self).map(|t| Some(AttributeValue::N(t)))
            }

            /// # Errors
            /// [`ValueError::Number`] for a number that would be rounded (see the module's
            /// rule) or is beyond the float's range; [`ValueError::WrongType`] for anything but
            /// a number.
            #[inline]
            fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
                match value {
                    Some(AttributeValue::N(n)) => float_from_text::<$t>(n, stringify!($t)),
                    Some(other) => Err(wrong("N", other)),
                    None => Err(ValueError::Missing),
                }
            }
        }

        impl Number for $t {
            fn update_bounds(_: &Self, _: char) -> (Option<String>, Option<String>, bool) {
                (None, None, true)
            }
        }
    )*};
}
float_attribute!(f32 => f32_slice, f64 => no_f32_slice);

/// The shortest text that reads back as the same float, checked against DynamoDB's range.
fn float_text<T: Display>(wide: f64, v: T) -> Result<String, ValueError> {
    let reason = if wide.is_nan() {
        Some("NaN has no DynamoDB representation")
    } else if wide.is_infinite() {
        Some("infinity has no DynamoDB representation")
    } else if wide.abs() >= 1e126 {
        Some("a number's magnitude must be below 10^126")
    } else if wide != 0.0 && wide.abs() < 1e-130 {
        Some("a non-zero number's magnitude must be at least 10^-130")
    } else {
        None
    };
    match reason {
        Some(reason) => Err(ValueError::NotRepresentable { value: format!("{wide:e}"), reason }),
        None => Ok(v.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
    }

    #[test]
    fn counts_significant_digits() {
        for (text, digits) in
            [("0", 0), ("-0.000", 0), ("42", 2), ("4.2E1", 2), ("0.00120", 2), ("1002", 4), ("100", 1), ("1e-7", 1)]
        {
            assert_eq!(significant_digits(text), digits, "{text}");
        }
    }

    #[test]
    fn f64_reads_numbers_it_keeps() {
        let cases: [(&str, f64); 14] = [
            ("0", 0.0),
            ("-0", -0.0),
            ("0.1", 0.1),
            ("42", 42.0),
            ("42.0", 42.0),
            ("4.2E1", 42.0),
            ("1e-7", 1e-7),
            ("0.30000000000000004", 0.1 + 0.2),
            ("123456789012345", 123456789012345.0),
            ("9007199254740994E0", 9007199254740994.0), // 2^53 + 2: 16 digits, its float's shortest text
            ("1152921504606846976", 1152921504606846976.0), // 2^60, held exactly
            ("1152921504606847000", 1152921504606846976.0), // 2^60's shortest text
            ("1E-130", 1e-130),
            ("1E+125", 1e125),
        ];
        for (text, want) in cases {
            let got = f64::from_attribute(Some(&n(text)));
            assert_eq!(got.map(f64::to_bits), Ok(want.to_bits()), "{text}");
        }
    }

    #[test]
    fn f64_refuses_numbers_it_would_round() {
        for text in [
            "1234567890.1234567890123456789012345678",
            "0.1234567890123456789",
            "0.300000000000000044",
            "9007199254740993", // 2^53 + 1 reads as 2^53
            "9007199254740995", // 2^53 + 3 reads as 2^53 + 4
            "1.00000000000000001",
            "9.9999999999999999999999999999999999999E+125",
            "12345678901234567890123456789012345678",
        ] {
            assert_eq!(
                f64::from_attribute(Some(&n(text))),
                Err(ValueError::Number { text: text.to_owned(), ty: "f64" }),
                "{text}"
            );
        }
        assert_eq!(
            ValueError::Number { text: "0.1234567890123456789".into(), ty: "f64" }.to_string(),
            "number 0.1234567890123456789 does not fit in f64"
        );
        assert_eq!(f64::from_attribute(Some(&n("NaN"))), Err(ValueError::Number { text: "NaN".into(), ty: "f64" }));
        assert_eq!(f64::from_attribute(Some(&n("1e400"))), Err(ValueError::Number { text: "1e400".into(), ty: "f64" }));
    }

    #[test]
    fn f32_reads_numbers_it_keeps_only() {
        for (text, want) in
            [("0.1", 0.1f32), ("16777216", 16777216.0), ("3.4028235E38", f32::MAX), ("123456", 123456.0)]
        {
            assert_eq!(f32::from_attribute(Some(&n(text))), Ok(want), "{text}");
        }
        for text in ["16777217", "0.30000000000000004", "1E-50", "1E+39", "0.123456789"] {
            assert_eq!(
                f32::from_attribute(Some(&n(text))),
                Err(ValueError::Number { text: text.to_owned(), ty: "f32" }),
                "{text}"
            );
        }
    }

    proptest::proptest! {
        /// Every float the library writes reads back as itself (bit for bit, zero's sign aside),
        /// in the library's text and in the scientific form other clients write.
        #[test]
        fn written_f64_reads_back(v in proptest::num::f64::ANY) {
            if let Ok(Some(AttributeValue::N(text))) = v.to_attribute() {
                let back = f64::from_attribute(Some(&n(&text)));
                proptest::prop_assert_eq!(back, Ok(v), "{}", text);
                let scientific = format!("{v:E}");
                proptest::prop_assert_eq!(f64::from_attribute(Some(&n(&scientific))), Ok(v), "{}", scientific);
            } else {
                proptest::prop_assert!(!v.is_finite() || v.abs() >= 1e126 || (v != 0.0 && v.abs() < 1e-130));
            }
        }

        #[test]
        fn written_f32_reads_back(v in proptest::num::f32::ANY) {
            if let Ok(Some(AttributeValue::N(text))) = v.to_attribute() {
                proptest::prop_assert_eq!(f32::from_attribute(Some(&n(&text))), Ok(v), "{}", text);
                let scientific = format!("{v:e}");
                proptest::prop_assert_eq!(f32::from_attribute(Some(&n(&scientific))), Ok(v), "{}", scientific);
            } else {
                proptest::prop_assert!(!v.is_finite());
            }
        }

        /// A number of 15 significant digits at most always reads into an `f64`, as the float
        /// nearest to it.
        #[test]
        fn short_numbers_read_as_f64(m in 0u64..1_000_000_000_000_000, e in -140i32..110) {
            let text = format!("{m}E{e}");
            if text.parse::<Decimal>().is_ok() {
                proptest::prop_assert_eq!(f64::from_attribute(Some(&n(&text))), Ok(text.parse::<f64>().unwrap()), "{}", text);
            }
        }

        /// A float reads a number only when the float written back has the same value or holds
        /// it exactly; a number of 17 to 38 digits is either refused or kept.
        #[test]
        fn long_numbers_read_only_when_kept(m in 10_000_000_000_000_000u128..10u128.pow(38), e in -60i32..40) {
            let text = format!("{m}E{e}");
            let stored: Decimal = text.parse().unwrap();
            match f64::from_attribute(Some(&n(&text))) {
                Ok(v) => proptest::prop_assert!(
                    v.to_string().parse::<Decimal>().unwrap() == stored || stored.equals_float(v),
                    "{} read as {}", text, v
                ),
                Err(e) => proptest::prop_assert_eq!(e, ValueError::Number { text: text.clone(), ty: "f64" }),
            }
        }
    }
}

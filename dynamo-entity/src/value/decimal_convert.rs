//! The conversions of [`Decimal`]: from and to Rust's integers (exact, or an error), and to and
//! from a DynamoDB number (`N`, a number set `NS`), with what an update may add to it.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::decimal::{Decimal, DecimalError};
use crate::value::{Attribute, Number, SetElement, StoredType, ValueError, list_elements, wrong};

macro_rules! from_integer {
    ($($t:ty),*) => {$(
        /// Every value fits (at most 20 digits).
        impl From<$t> for Decimal {
            fn from(v: $t) -> Decimal {
                // At most 20 digits and below 10^20: always within DynamoDB's rules.
                Decimal::from_parts(v < 0, v.unsigned_abs() as u128, 0).unwrap_or(Decimal::ZERO)
            }
        }
    )*};
}
from_integer!(i8, i16, i32, i64, isize);

macro_rules! from_unsigned {
    ($($t:ty),*) => {$(
        /// Every value fits (at most 20 digits).
        impl From<$t> for Decimal {
            fn from(v: $t) -> Decimal {
                Decimal::from_parts(false, v as u128, 0).unwrap_or(Decimal::ZERO)
            }
        }
    )*};
}
from_unsigned!(u8, u16, u32, u64, usize);

/// # Errors
/// [`DecimalError::TooManyDigits`] for a value with 39 significant digits (magnitude from
/// 10^38, trailing zeros aside).
impl TryFrom<i128> for Decimal {
    type Error = DecimalError;
    fn try_from(v: i128) -> Result<Decimal, DecimalError> {
        Decimal::new(v, 0)
    }
}

/// # Errors
/// [`DecimalError::TooManyDigits`] for a value with 39 significant digits (from 10^38,
/// trailing zeros aside).
impl TryFrom<u128> for Decimal {
    type Error = DecimalError;
    fn try_from(v: u128) -> Result<Decimal, DecimalError> {
        Decimal::from_parts(false, v, 0).map_err(|_| DecimalError::TooManyDigits { text: v.to_string(), digits: 39 })
    }
}

macro_rules! into_integer {
    ($($t:ty),*) => {$(
        /// The integer of the same value.
        ///
        /// # Errors
        /// [`DecimalError::NotInteger`] for a number with a fractional part (`2.5`), never
        /// rounded; [`DecimalError::DoesNotFit`] outside the type's range.
        impl TryFrom<Decimal> for $t {
            type Error = DecimalError;
            fn try_from(d: Decimal) -> Result<$t, DecimalError> {
                let ty = stringify!($t);
                let magnitude = d.integral_magnitude(ty)?;
                let fits = if d.is_sign_negative() {
                    i128::try_from(magnitude).ok().and_then(|m| <$t>::try_from(-m).ok())
                } else {
                    <$t>::try_from(magnitude).ok()
                };
                fits.ok_or(DecimalError::DoesNotFit { value: d, ty })
            }
        }
    )*};
}
into_integer!(i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize);

/// Stored as a number (`N`) in canonical text; reads any DynamoDB number exactly.
impl Attribute for Decimal {
    const STORED: StoredType = StoredType::N;

    /// Never an error: every `Decimal` is a number DynamoDB holds.
    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        let mut s = String::with_capacity(24);
        self.write_to(&mut s);
        Ok(Some(AttributeValue::N(s)))
    }

    /// # Errors
    /// [`ValueError::WrongType`] for anything but a number; [`ValueError::Number`] for number
    /// text DynamoDB would not hold (more than 38 significant digits, out of range), which a
    /// table never returns.
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(AttributeValue::N(n)) => from_number_text(n),
            Some(other) => Err(wrong("N", other)),
            None => Err(ValueError::Missing),
        }
    }
}

fn from_number_text(n: &str) -> Result<Decimal, ValueError> {
    n.parse().map_err(|_| ValueError::Number { text: n.to_owned(), ty: "Decimal" })
}

/// A number set (`NS`) element; a list (`L`) of numbers reads too.
impl SetElement for Decimal {
    const SET_TYPE: &'static str = "NS";
    fn __to_set(items: Vec<&Self>) -> Result<AttributeValue, ValueError> {
        Ok(AttributeValue::Ns(items.into_iter().map(Decimal::to_string).collect()))
    }
    fn __from_set(value: &AttributeValue) -> Result<Vec<Self>, ValueError> {
        match value {
            AttributeValue::Ns(v) => v.iter().map(|n| from_number_text(n)).collect(),
            AttributeValue::L(items) => {
                list_elements(items, "NS", |v| v.as_n().ok())?.into_iter().map(|n| from_number_text(n)).collect()
            }
            other => Err(wrong("NS", other)),
        }
    }
}

/// An update may add to or subtract from a `Decimal` field; DynamoDB computes exactly and
/// refuses a result of more than 38 significant digits or out of range (a
/// `ValidationException`), so no bound is needed.
impl Number for Decimal {
    fn update_bounds(_: &Self, _: char) -> (Option<String>, Option<String>, bool) {
        (None, None, true)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::value::decimal::tests::{DIGITS38, d};

    #[test]
    fn integer_conversions() {
        assert_eq!(Decimal::from(0u8), Decimal::ZERO);
        assert_eq!(Decimal::from(-4200i32).to_string(), "-4200");
        assert_eq!(Decimal::from(i64::MIN).to_string(), i64::MIN.to_string());
        assert_eq!(Decimal::from(u64::MAX).to_string(), u64::MAX.to_string());
        assert_eq!(Decimal::from(usize::MAX).to_string(), usize::MAX.to_string());
        let wide = 10u128.pow(38) - 1;
        assert_eq!(Decimal::try_from(wide).map(|v| v.to_string()), Ok(wide.to_string()));
        assert_eq!(Decimal::try_from(u128::MAX / 1000 * 1000).map(|v| v.digits()), Ok(36));
        assert_eq!(
            Decimal::try_from(u128::MAX),
            Err(DecimalError::TooManyDigits { text: u128::MAX.to_string(), digits: 39 })
        );
        assert_eq!(Decimal::try_from(-(wide as i128)).map(|v| v.to_string()), Ok(format!("-{wide}")));

        assert_eq!(i64::try_from(d("4.2E1")), Ok(42));
        assert_eq!(i64::try_from(d("-9223372036854775808")), Ok(i64::MIN));
        assert_eq!(u64::try_from(d("18446744073709551615")), Ok(u64::MAX));
        assert_eq!(u64::try_from(d("-0")), Ok(0));
        assert_eq!(u128::try_from(d("1E+37")), Ok(10u128.pow(37)));
        assert_eq!(i64::try_from(d("2.5")), Err(DecimalError::NotInteger { value: d("2.5"), ty: "i64" }));
        assert_eq!(u64::try_from(d("1E-130")), Err(DecimalError::NotInteger { value: d("1E-130"), ty: "u64" }));
        assert_eq!(u64::try_from(d("-1")), Err(DecimalError::DoesNotFit { value: d("-1"), ty: "u64" }));
        assert_eq!(
            i64::try_from(d("9223372036854775808")),
            Err(DecimalError::DoesNotFit { value: d("9223372036854775808"), ty: "i64" })
        );
        assert_eq!(u8::try_from(d("256")), Err(DecimalError::DoesNotFit { value: d("256"), ty: "u8" }));
        assert_eq!(u128::try_from(Decimal::MAX), Err(DecimalError::DoesNotFit { value: Decimal::MAX, ty: "u128" }));
        assert_eq!(
            DecimalError::NotInteger { value: d("2.5"), ty: "i64" }.to_string(),
            "2.5 is not an integer, as i64 needs"
        );
    }

    #[test]
    fn stored_as_number() {
        let n = |t: &str| AttributeValue::N(t.to_owned());
        assert_eq!(d(DIGITS38).to_attribute(), Ok(Some(n(DIGITS38))));
        assert_eq!(d("-0").to_attribute(), Ok(Some(n("0"))));
        for text in ["42", "42.0", "4.2E1", "0042", "+42"] {
            assert_eq!(Decimal::from_attribute(Some(&n(text))), Ok(Decimal::from(42)), "{text}");
        }
        assert_eq!(Decimal::from_attribute(Some(&n(DIGITS38))), Ok(d(DIGITS38)));
        let many = "1234567890.12345678901234567890123456789";
        assert_eq!(
            Decimal::from_attribute(Some(&n(many))),
            Err(ValueError::Number { text: many.into(), ty: "Decimal" })
        );
        assert_eq!(
            Decimal::from_attribute(Some(&AttributeValue::S("1".into()))),
            Err(ValueError::WrongType { expected: "N", found: "S" })
        );
        assert_eq!(Decimal::from_attribute(None), Err(ValueError::Missing));
        assert_eq!(Option::<Decimal>::from_attribute(None), Ok(None));

        let set: BTreeSet<Decimal> = [d("1.5"), d("-2")].into();
        assert_eq!(set.to_attribute(), Ok(Some(AttributeValue::Ns(vec!["-2".into(), "1.5".into()]))));
        assert_eq!(
            BTreeSet::<Decimal>::from_attribute(Some(&AttributeValue::Ns(vec!["1.50".into(), "-2E0".into()]))),
            Ok(set.clone())
        );
        assert_eq!(BTreeSet::<Decimal>::from_attribute(Some(&AttributeValue::L(vec![n("1.5"), n("-2")]))), Ok(set));
    }
}

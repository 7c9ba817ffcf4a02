//! `rust_decimal::Decimal` (cargo feature `rust_decimal`): its [`Attribute`] implementation,
//! which reads a stored number only when it holds it exactly, and the conversions between it
//! and this crate's [`Decimal`].

use aws_sdk_dynamodb::types::AttributeValue;

use super::decimal::{Decimal, DecimalError};
use super::{Attribute, StoredType, ValueError, wrong};

/// The name of the type in errors.
const TY: &str = "rust_decimal::Decimal";

/// Every `rust_decimal::Decimal` fits: at most 29 significant digits (a 96-bit coefficient),
/// a magnitude from 10^-28 to below 8·10^28.
#[cfg_attr(docsrs, doc(cfg(feature = "rust_decimal")))]
impl From<rust_decimal::Decimal> for Decimal {
    fn from(d: rust_decimal::Decimal) -> Decimal {
        Decimal::new(d.mantissa(), -(d.scale() as i32)).unwrap_or(Decimal::ZERO)
    }
}

/// The `rust_decimal::Decimal` of the same value, never rounded.
///
/// # Errors
/// [`DecimalError::DoesNotFit`] when the number needs more than `rust_decimal`'s 96-bit
/// coefficient (about 28 digits) or more than 28 digits after the point.
#[cfg_attr(docsrs, doc(cfg(feature = "rust_decimal")))]
impl TryFrom<Decimal> for rust_decimal::Decimal {
    type Error = DecimalError;
    fn try_from(d: Decimal) -> Result<rust_decimal::Decimal, DecimalError> {
        let refuse = || DecimalError::DoesNotFit { value: d, ty: TY };
        let (c, e) = (d.coefficient(), d.exponent());
        let (mantissa, scale) = if e >= 0 {
            (10i128.checked_pow(e as u32).and_then(|p| c.checked_mul(p)).ok_or_else(refuse)?, 0)
        } else {
            (c, e.unsigned_abs())
        };
        rust_decimal::Decimal::try_from_i128_with_scale(mantissa, scale).map_err(|_| refuse())
    }
}

/// Stored as a number (`N`) in `rust_decimal`'s text, which keeps its scale (`1.50`); DynamoDB
/// keeps the value, not the spelling, so it reads back as `1.5` (equal as a
/// `rust_decimal::Decimal`, scale 1 instead of 2): rescale after reading where the scale
/// matters, such as for display. Every value fits DynamoDB's 38 digits.
///
/// A stored number reads only when `rust_decimal` holds it exactly; one with more digits than
/// that (another client may store 38) is refused, never rounded: read it as a [`Decimal`].
#[cfg_attr(docsrs, doc(cfg(feature = "rust_decimal")))]
impl Attribute for rust_decimal::Decimal {
    const STORED: StoredType = StoredType::N;

    fn to_attribute(&self) -> Result<Option<AttributeValue>, ValueError> {
        Ok(Some(AttributeValue::N(self.to_string())))
    }

    /// # Errors
    /// [`ValueError::Number`] for a number `rust_decimal` does not hold exactly (more than 28
    /// or 29 significant digits, more than 28 digits after the point, a magnitude of 8·10^28
    /// or more); [`ValueError::WrongType`] for anything but a number.
    fn from_attribute(value: Option<&AttributeValue>) -> Result<Self, ValueError> {
        match value {
            Some(AttributeValue::N(n)) => exactly(n),
            Some(other) => Err(wrong("N", other)),
            None => Err(ValueError::Missing),
        }
    }
}

/// `rust_decimal`'s own reading of `n` (which keeps the written scale) when it is exact, else
/// the exact conversion of the number, else the error.
fn exactly(n: &str) -> Result<rust_decimal::Decimal, ValueError> {
    let refuse = || ValueError::Number { text: n.to_owned(), ty: TY };
    let exact: Decimal = n.parse().map_err(|_| refuse())?;
    let own = if n.contains(['e', 'E']) { rust_decimal::Decimal::from_scientific(n) } else { n.parse() };
    match own {
        Ok(d) if Decimal::from(d) == exact => Ok(d),
        _ => rust_decimal::Decimal::try_from(exact).map_err(|_| refuse()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
    }

    #[test]
    fn reads_only_what_it_holds() {
        let read = |t: &str| rust_decimal::Decimal::from_attribute(Some(&n(t))).map(|d| d.to_string());
        for (text, want) in [
            ("1.50", "1.50"),
            ("4.2E1", "42"),
            ("1E+28", "10000000000000000000000000000"),
            ("79228162514264337593543950335", "79228162514264337593543950335"),
            ("-0.0000000000000000000000000001", "-0.0000000000000000000000000001"),
            ("100000000000000000000000000000E-2", "1000000000000000000000000000"),
        ] {
            assert_eq!(read(text).as_deref(), Ok(want), "{text}");
        }
        for text in [
            "1234567890.1234567890123456789012345678",
            "79228162514264337593543950336",
            "0.00000000000000000000000000001",
            "1E+29",
            "1E-29",
            "0.12345678901234567890123456789",
        ] {
            assert_eq!(read(text), Err(ValueError::Number { text: text.into(), ty: TY }), "{text}");
        }
    }

    #[test]
    fn conversions() {
        let d = |t: &str| t.parse::<Decimal>().unwrap();
        let r = |t: &str| t.parse::<rust_decimal::Decimal>().unwrap();
        assert_eq!(Decimal::from(r("-1.50")), d("-1.5"));
        assert_eq!(Decimal::from(rust_decimal::Decimal::MAX), d("79228162514264337593543950335"));
        assert_eq!(rust_decimal::Decimal::try_from(d("1.5E+3")), Ok(r("1500")));
        assert_eq!(rust_decimal::Decimal::try_from(d("-1E-28")), Ok(r("-0.0000000000000000000000000001")));
        let wide = d("1234567890.1234567890123456789012345678");
        assert_eq!(rust_decimal::Decimal::try_from(wide), Err(DecimalError::DoesNotFit { value: wide, ty: TY }));
        assert_eq!(
            rust_decimal::Decimal::try_from(Decimal::MAX),
            Err(DecimalError::DoesNotFit { value: Decimal::MAX, ty: TY })
        );
    }
}

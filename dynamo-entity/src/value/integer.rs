//! Integers as DynamoDB numbers: [`Attribute`] for every integer type (`Vec<u8>` is binary), and
//! [`Number`], the range an update's `add` / `subtract` must keep.

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::{Attribute, StoredType, ValueError, integer_from_text, wrong};

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

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
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
}

//! [`Attribute`] for the standard types: text, `bool`, time, raw attribute values, `Option`,
//! `Box`, lists (`Vec`) and maps (`HashMap`, `BTreeMap` with `String` keys).

use std::collections::{BTreeMap, HashMap};

use aws_sdk_dynamodb::types::AttributeValue;

use super::time::{Date, EpochMillis, EpochSeconds, Timestamp};
use super::{Attribute, StoredType, ValueError, integer_from_text, wrong};

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
    const __TEXT_IS_PART: bool = true;
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
    const __TEXT_IS_PART: bool = true;
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
    const __TEXT_IS_PART: bool = T::__TEXT_IS_PART;
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
    fn __f32_elements(&self) -> Option<&[f32]> {
        self.as_ref().and_then(T::__f32_elements)
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
    fn __f32_elements(&self) -> Option<&[f32]> {
        T::__f32_slice(self)
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
pub(super) fn empty_map_key() -> ValueError {
    ValueError::NotRepresentable {
        value: "a map with the key \"\"".to_owned(),
        reason: "a map key is an attribute name, which DynamoDB requires to be non-empty",
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value::time::TimestampError;

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
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
}

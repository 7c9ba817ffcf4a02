//! DynamoDB sets (`SS`, `NS`, `BS`): [`SetElement`], and [`Attribute`] for `BTreeSet` and
//! `HashSet`, which also read a list of their element type.

use std::collections::{BTreeSet, HashSet};
use std::hash::Hash;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;

use super::{Attribute, StoredType, ValueError, integer_from_text, type_name, wrong};

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
pub(crate) fn list_elements<'a, T>(
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

#[cfg(test)]
mod tests {
    use super::*;

    fn n(text: &str) -> AttributeValue {
        AttributeValue::N(text.to_owned())
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
}

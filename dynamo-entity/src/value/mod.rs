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

mod attribute;
mod decimal;
mod decimal_convert;
#[cfg(feature = "rust_decimal")]
mod decimal_interop;
mod float;
mod integer;
pub(crate) mod json;
mod number;
mod serde_value;
mod set;
pub mod size;
pub mod time;
mod time_interop;

pub use decimal::{Decimal, DecimalError};
pub use integer::Number;
pub(crate) use number::canonical_number;
pub use number::{compare_numbers, integer_from_text, parse_integer};
pub use serde_value::{serde_from_attribute, serde_to_attribute};
pub use set::SetElement;
pub(crate) use set::list_elements;

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

#[cfg(doc)]
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

    #[doc(hidden)]
    /// `true` when a value's attribute is `S(text)` with `text` exactly the key part its
    /// `KeyPart::write_part` writes, in either form (a timestamp, a date): an update takes the
    /// part from the attribute instead of writing the value twice.
    const __TEXT_IS_PART: bool = false;

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
    /// The value's elements when it is a vector of 32-bit floats (`Vec<f32>`, or
    /// `Option<Vec<f32>>` holding one), for the messages of a vector index's checks; `None`
    /// otherwise.
    fn __f32_elements(&self) -> Option<&[f32]> {
        None
    }

    #[doc(hidden)]
    /// `items` as 32-bit floats when `Self` is `f32` (for [`__f32_elements`](Self::__f32_elements)
    /// of a `Vec<Self>`); `None` otherwise.
    fn __f32_slice(items: &[Self]) -> Option<&[f32]> {
        let _ = items;
        None
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
// Sets

// ---------------------------------------------------------------------------------------------
// serde

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use aws_sdk_dynamodb::primitives::Blob;

    use super::*;

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

//! `#[entity(serde)]` fields: values stored through serde as nested attributes, checked against
//! DynamoDB's rules before they are sent.

use aws_sdk_dynamodb::types::AttributeValue;

use super::ValueError;
use super::attribute::empty_map_key;
use super::number::check_number_text;

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

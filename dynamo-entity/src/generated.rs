//! Runtime halves of the code `#[derive(Entity)]` generates (re-exported through `__private`).
//!
//! Each helper is one copy, compiled once in this crate's callers, in place of the same few
//! lines (a pattern match, pushes and drops) repeated in every entity's generated functions: a
//! crate with many entities compiles less code. They are `#[inline]`, so an optimized build
//! gets the same machine code as the lines they replace.

use aws_sdk_dynamodb::types::AttributeValue;

/// Appends a GSI's key attributes, `(pk_attribute, pk)` then `(sk_attribute, sk)`, to the list
/// [`Entity::gsi_keys`](crate::Entity::gsi_keys) returns, when both are present; an item
/// without one of them is not in the (sparse) index and adds nothing.
#[inline]
pub fn push_gsi_keys(
    keys: &mut Vec<(&'static str, AttributeValue)>,
    pk_attribute: &'static str,
    sk_attribute: &'static str,
    (pk, sk): (Option<AttributeValue>, Option<AttributeValue>),
) {
    if let (Some(pk), Some(sk)) = (pk, sk) {
        keys.push((pk_attribute, pk));
        keys.push((sk_attribute, sk));
    }
}

/// Appends an LSI's sort key attribute to the list
/// [`Entity::gsi_keys`](crate::Entity::gsi_keys) returns, when present (LSIs are sparse too).
#[inline]
pub fn push_lsi_key(
    keys: &mut Vec<(&'static str, AttributeValue)>,
    sk_attribute: &'static str,
    sk: Option<AttributeValue>,
) {
    if let Some(sk) = sk {
        keys.push((sk_attribute, sk));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(v: &str) -> Option<AttributeValue> {
        Some(AttributeValue::S(v.to_owned()))
    }

    #[test]
    fn only_complete_key_pairs_and_present_sort_keys_are_pushed() {
        let mut keys = Vec::new();
        push_gsi_keys(&mut keys, "GSI1PK", "GSI1SK", (s("CAT#ai"), None));
        push_gsi_keys(&mut keys, "GSI1PK", "GSI1SK", (None, s("7")));
        push_lsi_key(&mut keys, "LSI1SK", None);
        assert!(keys.is_empty());

        push_gsi_keys(&mut keys, "GSI2PK", "GSI2SK", (s("CAT#ai"), s("0007")));
        push_lsi_key(&mut keys, "LSI1SK", s("2026"));
        assert_eq!(
            keys,
            vec![
                ("GSI2PK", AttributeValue::S("CAT#ai".into())),
                ("GSI2SK", AttributeValue::S("0007".into())),
                ("LSI1SK", AttributeValue::S("2026".into())),
            ]
        );
    }
}

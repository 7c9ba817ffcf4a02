//! Item sizes by DynamoDB's rules, and the 400 KB item limit checked before sending.
//!
//! DynamoDB counts an item as the sum of its attribute names and values:
//!
//! | value | bytes |
//! |---|---|
//! | `S` | UTF-8 length |
//! | `N` | 1 byte per two significant digits (leading and trailing zeros trimmed), plus 1 |
//! | `B` | raw length (not the base64 text) |
//! | `BOOL`, `NULL` | 1 |
//! | `L`, `M` | 3, plus each element's size and 1 byte per element (a map element's name counts) |
//! | `SS`, `NS`, `BS` | the sum of the elements' sizes |
//!
//! The item limit is 400 KB (409,600 bytes). A write of a larger item is refused before
//! anything is sent, with [`Error::ItemTooLarge`] saying by how much.

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::{Item, describe_key};
use crate::error::Error;

/// DynamoDB's limit on an item's size: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The size of a number's text as DynamoDB counts it.
pub fn number_size(text: &str) -> usize {
    let digits: String = text
        .split(['e', 'E'])
        .next()
        .unwrap_or_default()
        .chars()
        .filter(char::is_ascii_digit)
        .collect();
    let significant = digits.trim_start_matches('0').trim_end_matches('0').len().max(1);
    significant.div_ceil(2) + 1
}

/// The size of one attribute value (without its name).
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::L(l) => 3 + l.iter().map(|v| value_size(v) + 1).sum::<usize>(),
        AttributeValue::M(m) => 3 + m.iter().map(|(k, v)| k.len() + value_size(v) + 1).sum::<usize>(),
        AttributeValue::Ss(v) => v.iter().map(String::len).sum(),
        AttributeValue::Ns(v) => v.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(v) => v.iter().map(|b| b.as_ref().len()).sum(),
        _ => 0,
    }
}

/// The size of an item: every attribute's name and value.
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(k, v)| k.len() + value_size(v)).sum()
}

/// Checks the 400 KB item limit.
///
/// # Errors
/// [`Error::ItemTooLarge`] naming the entity, the key, the size and the excess.
pub fn check_item_size(entity: &'static str, item: &Item) -> Result<(), Error> {
    let bytes = item_size(item);
    if bytes > MAX_ITEM_BYTES {
        return Err(Error::ItemTooLarge {
            entity,
            key: describe_key(item),
            bytes,
            over: bytes - MAX_ITEM_BYTES,
            limit: MAX_ITEM_BYTES,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_dynamodb_rules() {
        assert_eq!(number_size("0"), 2);
        assert_eq!(number_size("7"), 2);
        assert_eq!(number_size("12"), 2);
        assert_eq!(number_size("123"), 3);
        assert_eq!(number_size("-1000000"), 2);
        assert_eq!(number_size("0.00123"), 3);
        assert_eq!(number_size("1.5E+10"), 2);
        let item: Item = [
            ("PK".to_owned(), AttributeValue::S("USER#1".into())), // 2 + 6
            ("n".to_owned(), AttributeValue::N("12345".into())),   // 1 + 4
            ("ok".to_owned(), AttributeValue::Bool(true)),         // 2 + 1
            (
                "l".to_owned(),
                AttributeValue::L(vec![AttributeValue::S("ab".into()), AttributeValue::Null(true)]),
            ), // 1 + 3 + (2+1) + (1+1)
            ("m".to_owned(), AttributeValue::M([("k".to_owned(), AttributeValue::S("v".into()))].into())), // 1 + 3 + (1+1+1)
        ]
        .into();
        assert_eq!(item_size(&item), 8 + 5 + 3 + 9 + 7);
    }
}

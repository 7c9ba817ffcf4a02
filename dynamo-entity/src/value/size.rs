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
//! anything is sent, with [`Error::ItemTooLarge`](crate::error::Error::ItemTooLarge) saying by how much
//! ([`check_item_size`](crate::schema::size::check_item_size)).

use aws_sdk_dynamodb::types::AttributeValue;

use crate::value::Item;

/// DynamoDB's limit on an item's size: 400 KB.
pub const MAX_ITEM_BYTES: usize = 400 * 1024;

/// The size of an item as DynamoDB counts it against its 400 KB limit ([`MAX_ITEM_BYTES`]):
/// every attribute name in UTF-8 bytes plus its value: strings in UTF-8 bytes, binary in bytes,
/// numbers one byte per two significant digits plus one, booleans and nulls one byte, sets the
/// sum of their elements, lists and maps three bytes plus one byte and the size of each element
/// (and, in a map, of each key).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// let item = [("name".to_owned(), AttributeValue::S("abc".into())), ("n".to_owned(), AttributeValue::N("12345".into()))];
/// assert_eq!(dynamo_entity::value::size::item_size(&item.into_iter().collect()), 4 + 3 + 1 + 4);
/// ```
pub fn item_size(item: &Item) -> usize {
    item.iter().map(|(name, value)| name.len() + value_size(value)).sum()
}

/// The size of one attribute value as DynamoDB counts it (the rules of [`item_size`], without
/// the attribute's name): the measure of an expression attribute value against the 2 MB limit
/// on an expression's substitutions ([`limits`](crate::limits)).
pub fn value_size(value: &AttributeValue) -> usize {
    match value {
        AttributeValue::S(s) => s.len(),
        AttributeValue::N(n) => number_size(n),
        AttributeValue::B(b) => b.as_ref().len(),
        AttributeValue::Bool(_) | AttributeValue::Null(_) => 1,
        AttributeValue::Ss(set) => set.iter().map(String::len).sum(),
        AttributeValue::Ns(set) => set.iter().map(|n| number_size(n)).sum(),
        AttributeValue::Bs(set) => set.iter().map(|b| b.as_ref().len()).sum(),
        AttributeValue::L(list) => 3 + list.iter().map(|v| 1 + value_size(v)).sum::<usize>(),
        AttributeValue::M(map) => 3 + map.iter().map(|(k, v)| 1 + k.len() + value_size(v)).sum::<usize>(),
        _ => 0,
    }
}

/// One byte per two significant digits (leading and trailing zeros trimmed), plus one.
fn number_size(n: &str) -> usize {
    // The mantissa's digits (up to an exponent) from the first non-zero one to the last,
    // counted in one pass without copying them.
    let (mut first, mut last, mut i): (Option<usize>, usize, usize) = (None, 0, 0);
    for b in n.bytes() {
        match b {
            b'e' | b'E' => break,
            b'0'..=b'9' => {
                if b != b'0' {
                    first.get_or_insert(i);
                    last = i;
                }
                i += 1;
            }
            _ => {}
        }
    }
    let significant = first.map_or(0, |f| last - f + 1);
    significant.div_ceil(2) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_follow_dynamodb_rules() {
        assert_eq!(number_size("0"), 1);
        assert_eq!(number_size("1e5"), 2);
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
            ("l".to_owned(), AttributeValue::L(vec![AttributeValue::S("ab".into()), AttributeValue::Null(true)])), // 1 + 3 + (2+1) + (1+1)
            ("m".to_owned(), AttributeValue::M([("k".to_owned(), AttributeValue::S("v".into()))].into())), // 1 + 3 + (1+1+1)
        ]
        .into();
        assert_eq!(item_size(&item), 8 + 5 + 3 + 9 + 7);
    }
}

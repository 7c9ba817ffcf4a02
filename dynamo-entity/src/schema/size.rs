//! The 400 KB item limit, checked before sending (sizes counted by
//! [`value::size`](crate::value::size)), with the limits on an item's attributes (name lengths,
//! nesting; see [`limits`](crate::limits)).

use crate::error::Error;
use crate::key::AttributeNames;
use crate::value::Item;
pub use crate::value::size::{MAX_ITEM_BYTES, item_size};

/// Checks the 400 KB item limit, then the limits on attribute names and nesting.
///
/// # Errors
/// [`Error::ItemTooLarge`] naming the entity, the key, the size and the limit;
/// [`Error::LimitExceeded`] for an attribute name over 64 KB or a value nested over 32 levels.
pub fn check_item_size(entity: &'static str, item: &Item) -> Result<(), Error> {
    check_item_size_in(&AttributeNames::DEFAULT, entity, item)
}

/// [`check_item_size`] for an item stored under `names` (an entity's
/// [`Entity::NAMES`](crate::Entity::NAMES)), whose key the error names under them.
///
/// # Errors
/// [`Error::ItemTooLarge`] naming the entity, the key, the size and the limit;
/// [`Error::LimitExceeded`] for an attribute name over 64 KB or a value nested over 32 levels.
pub fn check_item_size_in(names: &AttributeNames, entity: &'static str, item: &Item) -> Result<(), Error> {
    measure_item_in(names, entity, item).map(drop)
}

/// [`check_item_size_in`], giving on success a measure of the item's size in bytes that is at
/// least its size by DynamoDB's rules and at most 400 KB: the one-pass upper bound when that
/// is within the limit, else the exact size. What a batch splits its requests by, so that a
/// stamped item is not measured twice.
///
/// # Errors
/// As [`check_item_size_in`].
pub(crate) fn measure_item_in(names: &AttributeNames, entity: &'static str, item: &Item) -> Result<usize, Error> {
    // One pass: an upper bound of the size and the attribute checks. Only an item whose bound
    // is over the limit is measured exactly (then checked as below, in the same order).
    let (bound, attributes) = crate::limits::item_bound_and_attributes(item);
    if bound <= MAX_ITEM_BYTES {
        return attributes.map(|()| bound).map_err(|e| e.request("write", entity, names.describe_key(item)));
    }
    let bytes = item_size(item);
    if bytes > MAX_ITEM_BYTES {
        return Err(Error::ItemTooLarge { entity, key: names.describe_key(item), size: bytes, limit: MAX_ITEM_BYTES });
    }
    crate::limits::check_item_attributes(item)
        .map(|()| bytes)
        .map_err(|e| e.request("write", entity, names.describe_key(item)))
}

/// Checks the 400 KB item limit for an update (`UpdateItem`, alone, as an upsert or in a
/// transaction) before it is sent: the updated item holds at least its key (`key`, the item
/// `{PK, SK}`) and the attributes the update writes outright (its entity type attribute and
/// what it sets), whose names and values measure `set` bytes (by the rules of [`item_size`]). Their sum is a lower bound of the updated
/// item's size; over the limit, DynamoDB would refuse the update ("Item size to update has
/// exceeded the maximum allowed size"). Attributes the item keeps, or that an `ADD`,
/// `list_append` or `if_not_exists` writes, are not counted, so an update under this bound may
/// still be refused by DynamoDB.
///
/// # Errors
/// [`Error::ItemTooLarge`] naming the entity and the key (under `names`), with the bound as
/// the size.
pub(crate) fn check_update_size(
    names: &AttributeNames,
    entity: &'static str,
    key: &Item,
    set: usize,
) -> Result<(), Error> {
    let bytes = item_size(key).saturating_add(set);
    if bytes > MAX_ITEM_BYTES {
        return Err(Error::ItemTooLarge { entity, key: names.describe_key(key), size: bytes, limit: MAX_ITEM_BYTES });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    #[test]
    fn an_update_is_measured_by_its_key_and_what_it_sets() {
        let key: Item =
            [("PK".to_owned(), AttributeValue::S("DOC#a".into())), ("SK".to_owned(), AttributeValue::S("s".into()))]
                .into();
        // The key: `PK` + `DOC#a` + `SK` + `s` = 10 bytes.
        assert_eq!(item_size(&key), 10);
        assert!(check_update_size(&AttributeNames::DEFAULT, "Doc", &key, MAX_ITEM_BYTES - 10).is_ok());
        let err = check_update_size(&AttributeNames::DEFAULT, "Doc", &key, MAX_ITEM_BYTES - 9).unwrap_err();
        assert_eq!(
            err.to_string(),
            "Doc PK=DOC#a SK=s is 409601 bytes, 1 over DynamoDB's item size limit of 409600 bytes"
        );
    }
}

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
    // One pass: an upper bound of the size and the attribute checks. Only an item whose bound
    // is over the limit is measured exactly (then checked as below, in the same order).
    let (bound, attributes) = crate::limits::item_bound_and_attributes(item);
    if bound <= MAX_ITEM_BYTES {
        return attributes.map_err(|e| e.request("write", entity, names.describe_key(item)));
    }
    let bytes = item_size(item);
    if bytes > MAX_ITEM_BYTES {
        return Err(Error::ItemTooLarge { entity, key: names.describe_key(item), size: bytes, limit: MAX_ITEM_BYTES });
    }
    crate::limits::check_item_attributes(item).map_err(|e| e.request("write", entity, names.describe_key(item)))
}

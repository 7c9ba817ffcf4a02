//! The 400 KB item limit, checked before sending (sizes counted by
//! [`value::size`](crate::value::size)).

use crate::error::Error;
use crate::key::AttributeNames;
use crate::value::Item;
pub use crate::value::size::{MAX_ITEM_BYTES, item_size};

/// Checks the 400 KB item limit.
///
/// # Errors
/// [`Error::ItemTooLarge`] naming the entity, the key, the size and the limit.
pub fn check_item_size(entity: &'static str, item: &Item) -> Result<(), Error> {
    check_item_size_in(&AttributeNames::DEFAULT, entity, item)
}

/// [`check_item_size`] for an item stored under `names` (an entity's
/// [`Entity::NAMES`](crate::Entity::NAMES)), whose key the error names under them.
///
/// # Errors
/// [`Error::ItemTooLarge`] naming the entity, the key, the size and the limit.
pub fn check_item_size_in(names: &AttributeNames, entity: &'static str, item: &Item) -> Result<(), Error> {
    let bytes = item_size(item);
    if bytes > MAX_ITEM_BYTES {
        return Err(Error::ItemTooLarge { entity, key: names.describe_key(item), size: bytes, limit: MAX_ITEM_BYTES });
    }
    Ok(())
}

//! An item that does not decode, reported beside the results instead of failing them: the item
//! a write returned after DynamoDB applied the write ([`Returned`]), and an item a lenient read
//! skipped ([`ItemError`], in [`Page::skipped`](crate::query::Page#structfield.skipped)).

use std::fmt;

use crate::error::Error;
use crate::key::AttributeNames;
use crate::value::Item;

/// An item read from the table, or returned by a write, that does not decode as the entity
/// asked for: its key, the item as DynamoDB returned it, and the decode error
/// ([`Error::Decode`] naming the entity and attribute, [`Error::WrongEntity`],
/// [`Error::KeyParse`], [`Error::SchemaVersion`], …).
///
/// Two item errors are equal when their keys, items and error texts are.
#[derive(Debug)]
pub struct ItemError {
    /// The item's primary key, as `PK=… SK=…` (`<absent>` for a key attribute the item lacks).
    pub key: String,
    /// The item as DynamoDB returned it.
    pub item: Item,
    /// Why it does not decode.
    pub error: Error,
}

impl ItemError {
    /// The error of `item` (its key attributes named by `names`).
    pub fn new(names: &AttributeNames, item: Item, error: Error) -> ItemError {
        ItemError { key: names.describe_key(&item), item, error }
    }

    /// Whether `error` is about one item read from the table that does not decode (and
    /// another item may): [`Error::Decode`], [`Error::WrongEntity`], [`Error::KeyParse`],
    /// [`Error::SchemaVersion`], [`Error::UnexpectedItem`] (an item of an entity type the
    /// decoded enum does not name, in a lenient read that reports such items), or
    /// [`Error::KeyFitsNoEntity`] (an item of an entity's type value that fits none of the
    /// key templates of that value's entities).
    pub fn is_item_error(error: &Error) -> bool {
        matches!(
            error,
            Error::Decode { .. }
                | Error::WrongEntity { .. }
                | Error::KeyParse(_)
                | Error::SchemaVersion { .. }
                | Error::UnexpectedItem { .. }
                | Error::KeyFitsNoEntity { .. }
        )
    }
}

impl ItemError {
    /// The item key (`PK=… SK=…`) that an [item error](Self::is_item_error) names, when it
    /// names one: every kind but [`Error::KeyParse`] (which names the key attribute's value).
    pub(crate) fn key_of(error: &Error) -> Option<&str> {
        match error {
            Error::Decode { key, .. }
            | Error::WrongEntity { key, .. }
            | Error::SchemaVersion { key, .. }
            | Error::UnexpectedItem { key, .. }
            | Error::KeyFitsNoEntity { key, .. } => Some(key.as_str()),
            _ => None,
        }
    }
}

impl Clone for ItemError {
    /// Copies the error (the kinds [`is_item_error`](Self::is_item_error) names as they are, any
    /// other kind as [`Error::Invalid`] with its text).
    fn clone(&self) -> ItemError {
        let error = match &self.error {
            Error::Decode { entity, attribute, key, source } => {
                Error::Decode { entity, attribute, key: key.clone(), source: source.clone() }
            }
            Error::WrongEntity { expected, found, key } => {
                Error::WrongEntity { expected, found: found.clone(), key: key.clone() }
            }
            Error::KeyParse(e) => Error::KeyParse(e.clone()),
            Error::SchemaVersion { entity, key, stored, oldest, newest } => {
                Error::SchemaVersion { entity, key: key.clone(), stored: *stored, oldest: *oldest, newest: *newest }
            }
            Error::UnexpectedItem { collection, found, key } => {
                Error::UnexpectedItem { collection, found: found.clone(), key: key.clone() }
            }
            Error::KeyFitsNoEntity { found, entities, key } => {
                Error::KeyFitsNoEntity { found: found.clone(), entities: entities.clone(), key: key.clone() }
            }
            other => Error::Invalid { reason: other.to_string() },
        };
        ItemError { key: self.key.clone(), item: self.item.clone(), error }
    }
}

impl PartialEq for ItemError {
    fn eq(&self, other: &ItemError) -> bool {
        self.key == other.key && self.item == other.item && self.error.to_string() == other.error.to_string()
    }
}

impl fmt::Display for ItemError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "item {} does not decode: {}", self.key, self.error)
    }
}

impl std::error::Error for ItemError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// What a write that DynamoDB applied returned: the item (as it was before, or after, the
/// write, as the operation says) decoded, or the decode problem.
///
/// A write never reports an item that does not decode as an `Err`: the write happened, and a
/// caller that retries on `Err` would apply it twice (an `add` counted twice). The operation
/// returns `Ok(Returned::Undecodable(..))` instead, with the item and the error naming the
/// entity, attribute and key.
///
/// ```
/// use dynamo_entity::error::Returned;
/// let r: Returned<u32> = Returned::Decoded(7);
/// assert_eq!(r.ok(), Some(7));
/// ```
#[derive(Debug)]
pub enum Returned<T> {
    /// The returned item, decoded.
    Decoded(T),
    /// The returned item does not decode; the write was applied all the same.
    Undecodable(ItemError),
    /// The write was applied, but the item it returns went with an answer DynamoDB sent and
    /// the client never received: a resend found the write applied by an earlier attempt,
    /// with other writes after it, or the item deleted (see
    /// [`write_token`](crate::write_token)). Read the item to see it now.
    Lost {
        /// The entity type written.
        entity: &'static str,
        /// The item's primary key, as `PK=… SK=…`.
        key: String,
    },
}

impl<T> Returned<T> {
    /// `Ok` with the decoded value, or `Err` with the decode problem (the write was applied
    /// either way: do not retry it on this error).
    ///
    /// # Errors
    /// The [`ItemError`] of an undecodable item.
    // The error holds the item as read; it is the rare path, and moving it out whole keeps it
    // matchable (`Err(ItemError { error: Error::Decode { .. }, .. })`).
    #[allow(clippy::result_large_err)]
    pub fn into_result(self) -> Result<T, ItemError> {
        match self {
            Returned::Decoded(v) => Ok(v),
            Returned::Undecodable(e) => Err(e),
            Returned::Lost { entity, key } => {
                Err(ItemError { key: key.clone(), item: Item::new(), error: Error::ReturnedLost { entity, key } })
            }
        }
    }

    /// The decoded value, `None` when the item does not decode.
    pub fn ok(self) -> Option<T> {
        match self {
            Returned::Decoded(v) => Some(v),
            Returned::Undecodable(_) | Returned::Lost { .. } => None,
        }
    }

    /// The decoded value, by reference.
    pub fn decoded(&self) -> Option<&T> {
        match self {
            Returned::Decoded(v) => Some(v),
            Returned::Undecodable(_) | Returned::Lost { .. } => None,
        }
    }

    /// The decode problem, `None` when the item decoded.
    pub fn problem(&self) -> Option<&ItemError> {
        match self {
            Returned::Decoded(_) | Returned::Lost { .. } => None,
            Returned::Undecodable(e) => Some(e),
        }
    }

    /// Whether the item decoded.
    pub fn is_decoded(&self) -> bool {
        matches!(self, Returned::Decoded(_))
    }

    /// The decoded value through `f`.
    pub fn map<U>(self, f: impl FnOnce(T) -> U) -> Returned<U> {
        match self {
            Returned::Decoded(v) => Returned::Decoded(f(v)),
            Returned::Undecodable(e) => Returned::Undecodable(e),
            Returned::Lost { entity, key } => Returned::Lost { entity, key },
        }
    }

    /// The decoded value; panics with the decode problem when the item does not decode (for
    /// tests and examples).
    ///
    /// # Panics
    /// When the item does not decode.
    #[track_caller]
    pub fn unwrap(self) -> T {
        match self {
            Returned::Decoded(v) => v,
            Returned::Undecodable(e) => panic!("the write was applied, but {e}"),
            Returned::Lost { entity, key } => {
                panic!("the write of {entity} {key} was applied, but the item it returns was lost with its answer")
            }
        }
    }
}

impl<T: PartialEq> PartialEq<T> for Returned<T> {
    fn eq(&self, other: &T) -> bool {
        self.decoded() == Some(other)
    }
}

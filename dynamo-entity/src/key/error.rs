//! [`KeyError`]: a key that cannot be encoded, naming the entity, the key attribute and the
//! field.

use super::KeyPartError;

/// A key could not be encoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum KeyError {
    /// A part's value cannot be encoded.
    #[error("{entity}.{field} cannot be a part of {attribute} (`{template}`): {reason}")]
    Part {
        /// The entity type name.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The template.
        template: &'static str,
        /// The field filling the part.
        field: &'static str,
        /// Why it cannot be encoded.
        reason: KeyPartError,
    },
    /// A part is `None` in a key that must be present (the primary key).
    #[error("{entity}.{field} is None, but {attribute} (`{template}`) needs it")]
    Missing {
        /// The entity type name.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The template.
        template: &'static str,
        /// The missing field.
        field: &'static str,
    },
    /// The encoded key is longer than DynamoDB allows.
    #[error("{entity} {attribute} (`{template}`) is {bytes} bytes, {over} over DynamoDB's limit of {limit} bytes")]
    TooLong {
        /// The entity type name.
        entity: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The template.
        template: &'static str,
        /// The encoded size in bytes.
        bytes: usize,
        /// By how many bytes it exceeds the limit.
        over: usize,
        /// The limit in bytes (2,048 for partition keys, 1,024 for sort keys).
        limit: usize,
    },
    /// A key attribute of a multi-attribute GSI would hold an empty string, which DynamoDB
    /// refuses as a key attribute value (the whole write fails). A `None` leaves the item out
    /// of the index instead (sparse index).
    #[error(
        "{entity}.{field} is an empty string, which {attribute}, a key attribute of {index}, cannot hold: DynamoDB \
         refuses an empty key attribute value"
    )]
    EmptyKeyAttribute {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The field stored in it.
        field: &'static str,
    },
    /// As [`KeyError::EmptyKeyAttribute`] for a binary key attribute (`Vec<u8>`) holding no
    /// bytes.
    #[error(
        "{entity}.{field} is empty binary (no bytes), which {attribute}, a key attribute of {index}, cannot hold: \
         DynamoDB refuses an empty key attribute value"
    )]
    EmptyBinaryKeyAttribute {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The field stored in it.
        field: &'static str,
    },
    /// A string or binary key attribute of a multi-attribute GSI holds more than DynamoDB allows
    /// for one key attribute: 2,048 bytes (a string's UTF-8 bytes, a binary value's bytes) on the
    /// partition key side, 1,024 on the sort key side.
    #[error(
        "{entity}.{field} (key attribute `{attribute}` of {index}) is {bytes} bytes, {over} over DynamoDB's limit \
         of {limit} bytes"
    )]
    KeyAttributeTooLong {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The field stored in it.
        field: &'static str,
        /// The value's size in bytes.
        bytes: usize,
        /// By how many bytes it exceeds the limit.
        over: usize,
        /// The limit in bytes (2,048 partition side, 1,024 sort side).
        limit: usize,
    },
    /// The key attributes of one side of a multi-attribute GSI key hold more together than
    /// DynamoDB allows: the partition key attributes of one index at most 2,048 bytes in all,
    /// the sort key attributes 1,024 (each value measured as DynamoDB measures it: a string's
    /// UTF-8 bytes, a number's stored size).
    #[error(
        "{entity}: the {side} key attributes of {index} ({attributes}) are {bytes} bytes together, {over} over \
         DynamoDB's aggregate limit of {limit} bytes"
    )]
    AggregateTooLong {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// `partition` or `sort`.
        side: &'static str,
        /// Each attribute measured, with its size: `b (600 bytes), c (600 bytes)`.
        attributes: String,
        /// The sum of the sizes in bytes.
        bytes: usize,
        /// By how many bytes it exceeds the limit.
        over: usize,
        /// The limit in bytes (2,048 partition side, 1,024 sort side).
        limit: usize,
    },
    /// A query's `BETWEEN low AND high` on a multi-attribute GSI key attribute whose lower bound
    /// is above its upper bound, which DynamoDB refuses ("BETWEEN operator requires upper bound
    /// to be greater than or equal to lower bound"); bounds compare as DynamoDB compares them:
    /// numbers numerically, strings by their UTF-8 bytes.
    #[error(
        "{entity}: a query of {index} asks for `{attribute}` BETWEEN {low} AND {high}, whose lower bound is above its \
         upper bound: DynamoDB requires low <= high"
    )]
    ReversedBetween {
        /// The entity type name.
        entity: &'static str,
        /// The index name (`GSI6`, or the name the table declares).
        index: &'static str,
        /// The key attribute.
        attribute: &'static str,
        /// The lower bound as given (its text).
        low: String,
        /// The upper bound as given (its text).
        high: String,
    },
}

#![doc = include_str!("../README.md")]
#![warn(missing_docs)]

pub mod batch;
pub mod collection;
pub mod design;
pub mod entity;
pub mod error;
pub mod expr;
#[cfg(feature = "fault-injection")]
pub mod fault;
pub mod key;
pub mod local;
pub mod query;
pub mod size;
pub mod stream;
pub mod table;
pub mod time;
pub mod transact;
pub mod unique;
pub mod update;
pub mod value;
pub mod versioning;

mod cursor;

pub use batch::{BatchGetOutcome, BatchWriteOutcome, RetryPolicy};
pub use collection::{Collection, EntityEnum, FromCollection};
pub use dynamo_entity_derive::{Collection, Entity, KeyPart};
pub use entity::{Entity, EntitySchema, Index, Item, Key, PrimaryKey};
pub use error::{Error, Result};
pub use expr::{Condition, Field};
pub use key::KeyPart;
pub use query::{Cursor, Page, QueryRequest, QuerySpec};
pub use table::Table;
pub use time::Timestamp;
pub use transact::{CancellationCode, CancellationReason, TransactGet, TransactWrite};
pub use unique::{Unique, UniqueUpdate};
pub use update::UpdateRequest;
pub use value::Attribute;
pub use versioning::{EpochSeconds, Maintained, Writable};

/// What generated code calls. Not a public API: it may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use crate::collection::{collect_one, required, type_of, unknown_item};
    pub use crate::entity::{
        Entity, EntitySchema, FieldSchema, Index, IndexSchema, Item, Key, PrimaryKey, TYPE_ATTRIBUTE, VersionSchema,
        describe_key,
    };
    pub use crate::error::Error;
    pub use crate::expr::{Field, Immutable, Mutable};
    pub use crate::key::{
        KeyContext, KeyPart, KeyPartError, KeyType, KeyWriter, MAX_PARTITION_KEY_BYTES, MAX_SORT_KEY_BYTES, PartForm,
        Segment, Template, single_key_type,
    };
    pub use crate::query::QuerySpec;
    pub use crate::unique::Unique;
    pub use crate::value::{Attribute, ValueError, serde_from_attribute, serde_to_attribute};
    pub use crate::versioning::{EpochSeconds, Maintained, TtlValue, VersionNumber};
    pub use aws_sdk_dynamodb::types::AttributeValue;
    pub use std::result::Result;

    /// A writer for a partition key (2,048-byte limit).
    #[inline]
    pub fn pk_writer(entity: &'static str, attribute: &'static str, template: &'static Template) -> KeyWriter {
        KeyWriter::new(KeyContext { entity, attribute, template, max_bytes: MAX_PARTITION_KEY_BYTES })
    }

    /// A writer for a sort key (1,024-byte limit).
    #[inline]
    pub fn sk_writer(entity: &'static str, attribute: &'static str, template: &'static Template) -> KeyWriter {
        KeyWriter::new(KeyContext { entity, attribute, template, max_bytes: MAX_SORT_KEY_BYTES })
    }

    /// Stores one field, leaving the attribute out when the value is absent.
    #[inline]
    pub fn put_field<T: Attribute>(
        item: &mut Item,
        entity: &'static str,
        field: &'static str,
        attribute: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        store(item, entity, field, attribute, value.to_attribute())
    }

    /// Stores one `#[entity(serde)]` field.
    #[inline]
    pub fn put_serde<T: serde::Serialize>(
        item: &mut Item,
        entity: &'static str,
        field: &'static str,
        attribute: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        store(item, entity, field, attribute, serde_to_attribute(value))
    }

    #[inline(always)]
    fn store(
        item: &mut Item,
        entity: &'static str,
        field: &'static str,
        attribute: &'static str,
        value: Result<Option<AttributeValue>, ValueError>,
    ) -> Result<(), Error> {
        match value {
            Ok(Some(av)) => {
                item.insert(attribute.to_owned(), av);
                Ok(())
            }
            Ok(None) => Ok(()),
            Err(source) => Err(Error::Encode { entity, field, attribute, source }),
        }
    }

    /// Reads one field.
    #[inline(always)]
    pub fn get_field<T: Attribute>(item: &Item, entity: &'static str, attribute: &'static str) -> Result<T, Error> {
        match T::from_attribute(item.get(attribute)) {
            Ok(v) => Ok(v),
            Err(source) => Err(decode_error(item, entity, attribute, source)),
        }
    }

    /// The error of a field that does not decode, built off the hot path.
    #[cold]
    #[inline(never)]
    fn decode_error(item: &Item, entity: &'static str, attribute: &'static str, source: ValueError) -> Error {
        Error::Decode { entity, attribute, key: describe_key(item), source }
    }

    /// Reads one `#[entity(serde)]` field.
    #[inline]
    pub fn get_serde<T: serde::de::DeserializeOwned>(
        item: &Item,
        entity: &'static str,
        attribute: &'static str,
    ) -> Result<T, Error> {
        serde_from_attribute(item.get(attribute)).map_err(|source| decode_error(item, entity, attribute, source))
    }

    /// Stores an `#[entity(ttl)]` field as epoch seconds, leaving the attribute out for `None`.
    #[inline]
    pub fn put_ttl<T: TtlValue>(
        item: &mut Item,
        entity: &'static str,
        field: &'static str,
        attribute: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        put_field(item, entity, field, attribute, &value.to_stored())
    }

    /// Reads an `#[entity(ttl)]` field from epoch seconds.
    #[inline]
    pub fn get_ttl<T: TtlValue>(item: &Item, entity: &'static str, attribute: &'static str) -> Result<T, Error> {
        get_field::<T::Stored>(item, entity, attribute).map(T::from_stored)
    }

    /// Reads an `#[entity(version)]` field; an absent attribute (an item stored before the
    /// entity had a version) reads as version 0.
    #[inline]
    pub fn get_version<T: VersionNumber>(
        item: &Item,
        entity: &'static str,
        attribute: &'static str,
    ) -> Result<T, Error> {
        let zero = AttributeValue::N("0".to_owned());
        T::from_attribute(Some(item.get(attribute).unwrap_or(&zero))).map_err(|source| Error::Decode {
            entity,
            attribute,
            key: describe_key(item),
            source,
        })
    }

    /// Checks the entity type attribute.
    #[inline(always)]
    pub fn check_type(item: &Item, entity: &'static str) -> Result<(), Error> {
        match item.get(TYPE_ATTRIBUTE) {
            Some(AttributeValue::S(t)) if t == entity => Ok(()),
            other => Err(wrong_entity(item, entity, other)),
        }
    }

    #[cold]
    #[inline(never)]
    fn wrong_entity(item: &Item, entity: &'static str, found: Option<&AttributeValue>) -> Error {
        Error::WrongEntity {
            expected: entity,
            found: found.map(crate::entity::describe_value),
            key: describe_key(item),
        }
    }

    /// Stores the entity type attribute.
    #[inline]
    pub fn put_type(item: &mut Item, entity: &'static str) {
        item.insert(TYPE_ATTRIBUTE.to_owned(), AttributeValue::S(entity.to_owned()));
    }

    /// Stores a GSI's two key attributes when both are present (sparse index).
    #[inline]
    pub fn put_gsi(
        item: &mut Item,
        pk_attribute: &'static str,
        pk: Option<AttributeValue>,
        sk_attribute: &'static str,
        sk: Option<AttributeValue>,
    ) {
        if let (Some(pk), Some(sk)) = (pk, sk) {
            item.insert(pk_attribute.to_owned(), pk);
            item.insert(sk_attribute.to_owned(), sk);
        }
    }
}

//! DynamoDB Streams records decoded into a table-level entity enum
//! (`#[derive(EntityEnum)] enum AnyItem { … }`).
//!
//! A stream record carries the event type and, depending on the stream's view type, the item's
//! keys, its new image and its old image. [`Change`] holds them decoded:
//!
//! ```no_run
//! use dynamo_entity::stream::{Change, ChangeKind};
//! use dynamo_entity::{Entity, EntityEnum};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "ORDER#<id>", sk = "META")]
//! struct Order { id: String, total: u64 }
//!
//! #[derive(EntityEnum, Debug, Clone, PartialEq)]
//! enum AnyItem { Order(Order) }
//!
//! # async fn ship(_order: Order) -> dynamo_entity::Result<()> { Ok(()) }
//! # #[cfg(feature = "aws-lambda-events")]
//! # async fn handle(event: aws_lambda_events::event::dynamodb::Event) -> dynamo_entity::Result<()> {
//! for record in &event.records {                          // aws_lambda_events (feature `aws-lambda-events`)
//!     match Change::<AnyItem>::from_lambda(record)? {
//!         Some(Change { kind: ChangeKind::Insert, new: Some(AnyItem::Order(order)), .. }) => ship(order).await?,
//!         _ => {}
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! Records of entity types the enum does not name decode to `Ok(None)`, so a handler can
//! subscribe to a table holding entities it does not care about.
//!
//! The stream itself is declared with the table (`#[table(stream = new_and_old_images)]`, or
//! [`TableLayout::stream`](crate::schema::TableLayout::stream) with a [`StreamViewType`]), so
//! that `create_table_from`, the CloudFormation export, `Table::diff` and `Table::apply` carry
//! it. Two consumers decode into the table's enum: `StreamReader` (feature
//! `aws-sdk-dynamodbstreams`) reads the stream itself, shard by shard, parents before children;
//! `lambda::handle` (feature `aws-lambda-events`) handles a Lambda batch and answers
//! `batchItemFailures` as Lambda reads them for a stream source.

use std::marker::PhantomData;

#[cfg(feature = "aws-lambda-events")]
#[cfg_attr(docsrs, doc(cfg(feature = "aws-lambda-events")))]
pub mod lambda;
#[cfg(feature = "aws-sdk-dynamodbstreams")]
mod reader;

#[cfg(feature = "aws-sdk-dynamodbstreams")]
#[cfg_attr(docsrs, doc(cfg(feature = "aws-sdk-dynamodbstreams")))]
pub use reader::{ReadError, StartAt, StreamReader, StreamRecord};
// Declared with the table (`schema`), which the stream module reads from.
pub use crate::schema::StreamViewType;

use crate::collection::EntityEnum;
use crate::error::{Error, ItemError};
use crate::query::Decoded;
use crate::schema::Item;

/// What happened to the item.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChangeKind {
    /// A new item (`INSERT`): only a new image.
    Insert,
    /// An item was changed (`MODIFY`): old and new images.
    Modify,
    /// An item was deleted (`REMOVE`), by a request or by TTL expiry: only an old image.
    Remove,
}

impl ChangeKind {
    /// Parses the event name of a stream record: `INSERT`, `MODIFY` or `REMOVE`.
    ///
    /// # Errors
    /// [`Error::Invalid`] for any other name.
    pub fn parse(name: &str) -> Result<ChangeKind, Error> {
        match name {
            "INSERT" => Ok(ChangeKind::Insert),
            "MODIFY" => Ok(ChangeKind::Modify),
            "REMOVE" => Ok(ChangeKind::Remove),
            other => Err(Error::Invalid { reason: format!("unknown stream event name `{other}`") }),
        }
    }
}

/// One stream record, decoded.
#[derive(Debug, Clone, PartialEq)]
pub struct Change<A> {
    /// Insert, modify or remove.
    pub kind: ChangeKind,
    /// The item's key as `PK=… SK=…`, under the table's key attribute names (`A::NAMES`).
    pub key: String,
    /// The item before the change (view types `OLD_IMAGE` and `NEW_AND_OLD_IMAGES`).
    pub old: Option<A>,
    /// The item after the change (view types `NEW_IMAGE` and `NEW_AND_OLD_IMAGES`).
    pub new: Option<A>,
}

impl<A: EntityEnum> Change<A> {
    /// Decodes a record from its parts; an empty image counts as absent. `Ok(None)` when every
    /// image present is of an entity type `A` does not name; when only one side is of a named
    /// type (an item overwritten by another entity), that side is kept and the other is `None`.
    ///
    /// # Errors
    /// The decode error of an image of a named type, and [`Error::WrongEntity`] for an image
    /// without a type value `A` names (none, not a string, or one no entity has) at the key of
    /// an entity it names, as a get of that key says
    /// ([`Change::lenient`]`().from_images(..)` reports both beside the change);
    /// [`Error::Invalid`] for a record without keys or images.
    pub fn from_images(
        kind: ChangeKind,
        keys: &Item,
        old: Option<&Item>,
        new: Option<&Item>,
    ) -> Result<Option<Self>, Error> {
        Self::images(kind, keys, old, new, None)
    }

    /// The decodes of a record that report an image of a named type that does not decode (with
    /// its key) instead of failing on the record; see [`LenientChange`].
    ///
    /// ```
    /// use dynamo_entity::stream::{Change, ChangeKind};
    /// # use dynamo_entity::{Entity, EntityEnum};
    /// # #[derive(Entity, Debug, Clone, PartialEq)]
    /// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// # struct Profile { id: String, name: String }
    /// # #[derive(EntityEnum, Debug, PartialEq)]
    /// # enum AnyItem { Profile(Profile) }
    /// let mut image = Profile { id: "u1".into(), name: "Ann".into() }.to_item()?;
    /// image.remove("name");
    /// let keys = [("PK", "USER#u1"), ("SK", "PROFILE")]
    ///     .map(|(k, v)| (k.to_owned(), aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned())))
    ///     .into();
    /// let decoded = Change::<AnyItem>::lenient().from_images(ChangeKind::Insert, &keys, None, Some(&image))?;
    /// assert_eq!((decoded.value, decoded.skipped[0].key.as_str()), (None, "PK=USER#u1 SK=PROFILE"));
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    pub fn lenient() -> LenientChange<A> {
        LenientChange(PhantomData)
    }

    /// As [`Change::lenient`]`().from_images(..)`, as a pair.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a record without keys or images.
    #[deprecated(
        since = "0.1.0",
        note = "use `Change::lenient().from_images(..)`, which returns a `Decoded` (its `value` and `skipped`)"
    )]
    pub fn from_images_lenient(
        kind: ChangeKind,
        keys: &Item,
        old: Option<&Item>,
        new: Option<&Item>,
    ) -> Result<(Option<Self>, Vec<ItemError>), Error> {
        Self::lenient().from_images(kind, keys, old, new).map(Decoded::into_pair)
    }

    /// Decodes the images; with `skipped`, an image that does not decode is pushed there and
    /// counts as of a named type that decoded to nothing.
    fn images(
        kind: ChangeKind,
        keys: &Item,
        old: Option<&Item>,
        new: Option<&Item>,
        mut skipped: Option<&mut Vec<ItemError>>,
    ) -> Result<Option<Self>, Error> {
        let mut decode = |image: Option<&Item>| -> Result<(bool, Option<A>), Error> {
            match image.filter(|i| !i.is_empty()) {
                None => Ok((false, None)),
                Some(item) => match (A::decode(item), skipped.as_deref_mut()) {
                    (Ok(value), _) => Ok((true, value)),
                    (Err(e), Some(out)) if ItemError::is_item_error(&e) => {
                        out.push(ItemError::new(A::NAMES, item.clone(), e));
                        Ok((true, None))
                    }
                    (Err(e), _) => Err(e),
                },
            }
        };
        if keys.is_empty() && old.is_none_or(|i| i.is_empty()) && new.is_none_or(|i| i.is_empty()) {
            return Err(Error::Invalid { reason: "a stream record without keys or images".into() });
        }
        let (had_old, old) = decode(old)?;
        let (had_new, new) = decode(new)?;
        // Nothing of interest: every image present is of a type `A` does not name. An item whose
        // type changed to or from a named one keeps the named side.
        if (had_old || had_new) && old.is_none() && new.is_none() {
            return Ok(None);
        }
        Ok(Some(Change { kind, key: A::NAMES.describe_key(keys), old, new }))
    }

    /// Decodes an `aws_lambda_events` DynamoDB stream record (feature `aws-lambda-events`).
    ///
    /// # Errors
    /// As [`Change::from_images`]; [`Error::Invalid`] for an unknown event name.
    #[cfg(feature = "aws-lambda-events")]
    #[cfg_attr(docsrs, doc(cfg(feature = "aws-lambda-events")))]
    pub fn from_lambda(record: &aws_lambda_events::event::dynamodb::EventRecord) -> Result<Option<Self>, Error> {
        let kind = ChangeKind::parse(&record.event_name)?;
        let convert = |image: &serde_dynamo::Item| -> Item { image.clone().into() };
        let keys = convert(&record.change.keys);
        let old = convert(&record.change.old_image);
        let new = convert(&record.change.new_image);
        Change::from_images(kind, &keys, Some(&old), Some(&new))
    }

    /// Decodes an `aws-sdk-dynamodbstreams` record (feature `aws-sdk-dynamodbstreams`), as
    /// `GetRecords` returns it.
    ///
    /// # Errors
    /// As [`Change::from_images`]; [`Error::Invalid`] for a record without an event name or
    /// stream data.
    #[cfg(feature = "aws-sdk-dynamodbstreams")]
    #[cfg_attr(docsrs, doc(cfg(feature = "aws-sdk-dynamodbstreams")))]
    pub fn from_sdk(record: &aws_sdk_dynamodbstreams::types::Record) -> Result<Option<Self>, Error> {
        let (kind, keys, old, new) = sdk_parts(record)?;
        Change::from_images(kind, &keys, old.as_ref(), new.as_ref())
    }
}

/// The event type, keys and images of an `aws-sdk-dynamodbstreams` record.
///
/// # Errors
/// [`Error::Invalid`] for a record without an event name or stream data, or an unknown event
/// name.
#[cfg(feature = "aws-sdk-dynamodbstreams")]
pub(crate) fn sdk_parts(
    record: &aws_sdk_dynamodbstreams::types::Record,
) -> Result<(ChangeKind, Item, Option<Item>, Option<Item>), Error> {
    use std::collections::HashMap;
    type StreamItem = HashMap<String, aws_sdk_dynamodbstreams::types::AttributeValue>;
    let kind = ChangeKind::parse(
        record
            .event_name()
            .ok_or_else(|| Error::Invalid { reason: "a stream record without an event name".into() })?
            .as_str(),
    )?;
    let data =
        record.dynamodb().ok_or_else(|| Error::Invalid { reason: "a stream record without stream data".into() })?;
    let convert = |image: Option<&StreamItem>| -> Option<Item> {
        image
            .map(|i| i.iter().map(|(k, v)| (k.clone(), serde_dynamo::AttributeValue::from(v.clone()).into())).collect())
    };
    let keys = convert(data.keys.as_ref()).unwrap_or_default();
    Ok((kind, keys, convert(data.old_image.as_ref()), convert(data.new_image.as_ref())))
}

/// The decodes of a stream record that report an image of a named type that does not decode,
/// as an [`ItemError`] with its key, beside the change instead of failing on the record: the
/// choice a [lenient query](crate::query::QueryRequest::lenient) makes, so that one item another
/// writer left undecodable does not stop a stream handler. From [`Change::lenient`].
///
/// ```
/// use dynamo_entity::stream::{Change, ChangeKind};
/// # use dynamo_entity::{Entity, EntityEnum};
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
/// # struct Profile { id: String }
/// # #[derive(EntityEnum, Debug, PartialEq)]
/// # enum AnyItem { Profile(Profile) }
/// let image = Profile { id: "u1".into() }.to_item()?;
/// let keys = Profile { id: "u1".into() }.primary_key()?.to_item();
/// let decoded = Change::<AnyItem>::lenient().from_images(ChangeKind::Insert, &keys, None, Some(&image))?;
/// assert_eq!(decoded.value.and_then(|c| c.new), Some(AnyItem::Profile(Profile { id: "u1".into() })));
/// assert!(decoded.skipped.is_empty());
/// # Ok::<(), dynamo_entity::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LenientChange<A>(PhantomData<fn() -> A>);

impl<A: EntityEnum> LenientChange<A> {
    /// As [`Change::from_images`]: the change in `value`, each image that does not decode in
    /// `skipped`. That side of the change is `None`, and `value` is `None` when no side
    /// decodes.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a record without keys or images.
    pub fn from_images(
        &self,
        kind: ChangeKind,
        keys: &Item,
        old: Option<&Item>,
        new: Option<&Item>,
    ) -> Result<Decoded<Option<Change<A>>>, Error> {
        let mut skipped = Vec::new();
        let value = Change::images(kind, keys, old, new, Some(&mut skipped))?;
        Ok(Decoded { value, skipped })
    }
}

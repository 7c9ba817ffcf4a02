//! The traits of item collections decoded as a whole: [`Collection`] (a struct filled from
//! one partition's items) and [`EntityEnum`] (an enum over entity types), both implemented by
//! `#[derive(Collection)]`; reading them is in [`collection`](crate::collection).

use crate::error::Error;
use crate::key::AttributeNames;
use crate::value::Item;

/// What to do with an item whose entity type the collection does not name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Unknown {
    /// Skip it with a `tracing` warning (the default: a new entity type added to a partition
    /// does not break older readers).
    #[default]
    Skip,
    /// Fail with [`Error::UnexpectedItem`].
    Error,
}

/// A struct filled from the items of one item collection; implemented by
/// `#[derive(Collection)]`.
pub trait Collection: Sized {
    /// The entity types the collection holds.
    const TYPES: &'static [&'static str];

    /// Decodes `items` (in sort-key order) by their entity type attribute.
    ///
    /// # Errors
    /// [`Error::MissingItem`] when a required entity is absent, [`Error::DuplicateItem`] when a
    /// single-item field finds two, [`Error::UnexpectedItem`] for an unnamed type under
    /// [`Unknown::Error`], and the decode errors of the items.
    fn from_items(items: &[Item], unknown: Unknown) -> Result<Self, Error>;
}

/// An enum over entity types that decodes any item of those types; implemented by
/// `#[derive(EntityEnum)]`.
pub trait EntityEnum: Sized {
    /// The entity types of the variants.
    const TYPES: &'static [&'static str];

    /// The attribute names of the table the variants are stored in (the first variant's
    /// [`Entity::NAMES`](crate::Entity::NAMES)): the type attribute that [`decode`](Self::decode) dispatches on, and
    /// the key attributes that errors and stream records name.
    const NAMES: &'static AttributeNames = &AttributeNames::DEFAULT;

    /// The item decoded as the variant of its entity type; `Ok(None)` for another type.
    ///
    /// # Errors
    /// The decode error of an item of a named type.
    fn decode(item: &Item) -> Result<Option<Self>, Error>;
}

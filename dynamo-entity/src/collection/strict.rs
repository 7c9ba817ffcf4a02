//! [`StrictItems`]: the decodes of [`Items`] that leave no item out unreported by failing on
//! the items of types a collection or an enum does not name.

use crate::collection::{Items, unexpected};
use crate::error::Error;
use crate::schema::{Collection, EntityEnum, Unknown};

/// The decodes of a collection and of an entity enum that fail on an item of a type they do not
/// name, where [`Items::decode`] and [`Items::decode_each`] pass it over with a warning; from
/// [`Items::strict`]. For a table's own item enum (`#[derive(TableDef)]`'s, which names every
/// entity), such an item is one the declaration does not describe. The library's own guard and
/// migration items are still left out.
///
/// ```
/// use dynamo_entity::collection::Items;
/// use dynamo_entity::{Entity, EntityEnum, Error};
/// #[derive(Entity, Debug, Clone)]
/// #[entity(pk = "USER#<id>", sk = "PROFILE")]
/// struct Profile { id: String }
/// #[derive(EntityEnum, Debug)]
/// enum AnyItem { Profile(Profile) }
///
/// // An item of a type AnyItem does not name, at a key of no entity it names.
/// let wishlist = [("PK", "USER#u1"), ("SK", "WISHLIST#1"), ("_type", "Wishlist")]
///     .map(|(k, v)| (k.to_owned(), aws_sdk_dynamodb::types::AttributeValue::S(v.to_owned())));
/// let items = Items::from(vec![wishlist.into()]);
/// assert!(items.decode_each::<AnyItem>()?.is_empty(), "passed over with a warning");
/// assert!(matches!(items.strict().decode_each::<AnyItem>(), Err(Error::UnexpectedItem { .. })));
/// # Ok::<(), dynamo_entity::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct StrictItems<'a> {
    pub(super) items: &'a Items,
}

impl Items {
    /// The same four decodes, failing on the items of types a collection or an enum does not
    /// name as well (see the [table](Items)).
    ///
    /// ```
    /// # use dynamo_entity::collection::Items;
    /// let items = Items::from(vec![]);
    /// # #[derive(dynamo_entity::Entity, Debug, Clone)]
    /// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// # struct Profile { id: String }
    /// # #[derive(dynamo_entity::EntityEnum, Debug)]
    /// # enum AnyItem { Profile(Profile) }
    /// let every: Vec<AnyItem> = items.strict().decode_each()?;
    /// assert!(every.is_empty());
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    pub fn strict(&self) -> StrictItems<'_> {
        StrictItems { items: self }
    }
}

impl StrictItems<'_> {
    /// As [`Items::decode`], failing on items of entity types `C` does not name.
    ///
    /// # Errors
    /// As [`Collection::from_items`]: [`Error::UnexpectedItem`] for an item of a type `C` does
    /// not name, the decode error of an item of a named type.
    pub fn decode<C: Collection>(&self) -> Result<C, Error> {
        C::from_items(&self.items.items, Unknown::Error)
    }

    /// As [`Items::decode_each`], failing on an item that `A` has no variant for (another
    /// entity type, or in a table without a type attribute an item whose key matches no
    /// entity's templates) instead of skipping it; the library's own guard items are still
    /// left out.
    ///
    /// # Errors
    /// [`Error::UnexpectedItem`] naming the item's type (if any) and key; the decode error of
    /// an item of a named type.
    pub fn decode_each<A: EntityEnum>(&self) -> Result<Vec<A>, Error> {
        self.items.decode_each_with::<A>(|item| Err(unexpected::<A>(item, self.items.names)))
    }
}

//! [`LenientItems`]: the decodes of [`Items`] that report the items they cannot return, in the
//! shapes of a lenient read ([`Page`], [`Decoded`]).

use crate::collection::items::several;
use crate::collection::{Items, unexpected};
use crate::error::{Error, ItemError};
use crate::query::{Decoded, Page};
use crate::schema::{Collection, Entity, EntityEnum, Item, Unknown};

/// The decodes of [`Items`] that report each item they cannot return, with its key, the item
/// as read and the error, in the answer's `skipped`, instead of failing on it; from
/// [`Items::lenient`]. For tables that other clients also write, where one malformed item
/// must not hide the rest. See the [table](Items) of what each decode does with each item.
///
/// ```
/// use dynamo_entity::collection::Items;
/// use dynamo_entity::{Entity, EntityEnum};
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(pk = "USER#<id>", sk = "PROFILE")]
/// struct Profile { id: String, name: String }
/// #[derive(EntityEnum, Debug, PartialEq)]
/// enum AnyItem { Profile(Profile) }
///
/// let mut broken = Profile { id: "u2".into(), name: "Bo".into() }.to_item()?;
/// broken.remove("name");
/// let items = Items::from(vec![Profile { id: "u1".into(), name: "Ann".into() }.to_item()?, broken]);
/// let page = items.lenient().decode_each::<AnyItem>();
/// assert_eq!(page.items, [AnyItem::Profile(Profile { id: "u1".into(), name: "Ann".into() })]);
/// assert_eq!(page.skipped[0].key, "PK=USER#u2 SK=PROFILE");
/// # Ok::<(), dynamo_entity::Error>(())
/// ```
#[derive(Debug, Clone, Copy)]
pub struct LenientItems<'a> {
    pub(super) items: &'a Items,
}

impl Items {
    /// The same four decodes, reporting each item they cannot return (with its key, the item
    /// and why) in the answer's `skipped` instead of failing on it: a [`Page`](crate::Page) for
    /// `all` and `decode_each`, a [`Decoded`](crate::query::Decoded) for `one` and `decode`,
    /// the shapes of a lenient query or scan (see the [table](Items)).
    ///
    /// ```
    /// # use dynamo_entity::collection::Items;
    /// # #[derive(dynamo_entity::Entity, Debug, Clone)]
    /// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
    /// # struct Profile { id: String }
    /// let page = Items::from(vec![]).lenient().all::<Profile>();
    /// assert!(page.items.is_empty() && page.skipped.is_empty());
    /// ```
    pub fn lenient(&self) -> LenientItems<'_> {
        LenientItems { items: self }
    }
}

impl LenientItems<'_> {
    /// Every item of entity type `E` that decodes, in sort-key order, in the page's `items`;
    /// in its `skipped`, each item of type `E` that does not (see [`Items::all`], which fails on
    /// the first) and each item of `E`'s type value that fits no entity's key templates, or
    /// without a type value at a key of `E`'s shape. The other items (of other entities, the
    /// library's own) are counted in `passed_over`.
    pub fn all<E: Entity>(&self) -> Page<E> {
        let mut page = Page::default();
        let mut taken = 0usize;
        for found in self.items.of::<E>() {
            taken += 1;
            match found.and_then(|item| E::from_item(item).map_err(|e| (item, e))) {
                Ok(value) => page.items.push(value),
                Err((item, e)) => page.skipped.push(ItemError::new(E::NAMES, item.clone(), e)),
            }
        }
        page.passed_over = count(self.items.items.len() - taken);
        page
    }

    /// The one item of entity type `E` in `value` (`None` when there is none, or when it does
    /// not decode), and in `skipped` the item of `E` that does not decode and each item of
    /// `E`'s type value that fits no entity's key templates, as [`all`](Self::all) reports
    /// them.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there are several items of type `E` (whether they decode or not).
    pub fn one<E: Entity>(&self) -> Result<Decoded<Option<E>>, Error> {
        let mut skipped = Vec::new();
        let mut found = Vec::new();
        for item in self.items.of::<E>() {
            match item {
                Ok(item) => found.push(item),
                Err((item, e)) => skipped.push(ItemError::new(E::NAMES, item.clone(), e)),
            }
        }
        several::<E>(&found)?;
        let value = match found.first().map(|item| (item, E::from_item(item))) {
            None => None,
            Some((_, Ok(value))) => Some(value),
            Some((item, Err(e))) => {
                skipped.push(ItemError::new(E::NAMES, (*item).clone(), e));
                None
            }
        };
        Ok(Decoded { value, skipped })
    }

    /// The collection `C` decoded from the items that decode, in `value`; each item left out
    /// because it does not decode, in `skipped`. Items of types `C` does not name are passed
    /// over with a warning, as [`Items::decode`] does: a collection names the types it holds.
    ///
    /// # Errors
    /// As [`Collection::from_items`] on the items that decode: [`Error::MissingItem`] when the
    /// item a required field needs is among those that do not decode (the error names the
    /// field; the skipped items are not returned then).
    pub fn decode<C: Collection>(&self) -> Result<Decoded<C>, Error> {
        let names = self.items.names;
        let mut items: Vec<Item> = self.items.items.clone();
        let mut skipped = Vec::new();
        loop {
            match C::from_items(&items, Unknown::Skip) {
                Ok(value) => return Ok(Decoded { value, skipped }),
                Err(e) if ItemError::is_item_error(&e) => {
                    // The item the error names leaves the collection; at most once per item.
                    let at = ItemError::key_of(&e).and_then(|k| items.iter().position(|i| names.describe_key(i) == k));
                    let Some(at) = at else { return Err(e) };
                    skipped.push(ItemError::new(names, items.remove(at), e));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Every item decoded as the enum `A`, in sort-key order, in the page's `items`; in its
    /// `skipped`, each item that is not among them: an item of a named type that does not
    /// decode, and an item `A` has no variant for ([`Error::UnexpectedItem`]). Nothing is
    /// left out unreported but the library's own guard and migration items, counted in
    /// `passed_over`.
    pub fn decode_each<A: EntityEnum>(&self) -> Page<A> {
        let (items, names) = (self.items, self.items.names);
        let mut page = Page { items: Vec::with_capacity(items.items.len()), ..Page::default() };
        for item in &items.items {
            match A::decode(item) {
                Ok(Some(v)) => page.items.push(v),
                Ok(None) if items.internal(item) => page.passed_over += 1,
                Ok(None) => page.skipped.push(ItemError::new(names, item.clone(), unexpected::<A>(item, names))),
                Err(e) => page.skipped.push(ItemError::new(names, item.clone(), e)),
            }
        }
        page
    }
}

/// `n` items, as a page counts them.
fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

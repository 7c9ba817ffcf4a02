//! [`Items`]: the items of one partition, not yet decoded, and the four ways to decode them
//! (every item of one entity, the one item of an entity, a [`Collection`], an [`EntityEnum`]).
//! [`Items::strict`] and [`Items::lenient`] give the same four with another answer for the
//! items they cannot return.

use std::collections::HashMap;

use crate::collection::warn_unknown;
#[cfg(doc)]
use crate::collection::{LenientItems, StrictItems};
use crate::error::{Error, ItemError};
use crate::schema::{AttributeNames, Collection, Entity, EntityEnum, EntitySchema, Item, TYPE_ATTRIBUTE, Unknown};
use crate::table::LayoutEntities;

/// The items of one partition, in sort-key order, not yet decoded; from
/// [`CollectionRequest::send`](crate::collection::CollectionRequest::send), or from items read
/// some other way (`Items::from(vec)`).
///
/// | decode | strict about decoding (the default) | [`strict()`](Items::strict) | [`lenient()`](Items::lenient) |
/// |---|---|---|---|
/// | `all::<E>()`: every item of entity `E` | `Vec<E>` | – | [`Page<E>`](crate::Page) |
/// | `one::<E>()`: the one item of `E` | `Option<E>` | – | [`Decoded<Option<E>>`](crate::query::Decoded) |
/// | `decode::<C>()`: a [`Collection`] | `C` | `C` | [`Decoded<C>`](crate::query::Decoded) |
/// | `decode_each::<A>()`: an [`EntityEnum`] | `Vec<A>` | `Vec<A>` | [`Page<A>`](crate::Page) |
///
/// What becomes of an item that is not among the answer:
///
/// | the item | default | `strict()` | `lenient()` |
/// |---|---|---|---|
/// | of the type asked for, and it does not decode | fails | fails | reported in `skipped` |
/// | at the asked entity's key, owned by no entity ([`owner`](crate::owner)) | fails | fails | reported in `skipped` |
/// | of a type a collection or an enum does not name | passed over, with a `tracing` warning | fails ([`Error::UnexpectedItem`]) | collection: passed over; enum: reported |
/// | of another entity (`all`, `one`), the library's own items | passed over | passed over | passed over (counted in a `Page`'s `passed_over`) |
///
/// ```
/// use dynamo_entity::collection::Items;
/// use dynamo_entity::Entity;
/// #[derive(Entity, Debug, Clone, PartialEq)]
/// #[entity(pk = "USER#<user>", sk = "ORDER#<id>")]
/// struct Order { user: String, id: String }
///
/// let mut broken = Order { user: "u1".into(), id: "o2".into() }.to_item()?;
/// broken.remove("_type");
/// let items = Items::from(vec![Order { user: "u1".into(), id: "o1".into() }.to_item()?, broken]);
/// assert!(items.all::<Order>().is_err(), "the item without a type value sits at an Order's key");
/// let page = items.lenient().all::<Order>();
/// assert_eq!(page.items, [Order { user: "u1".into(), id: "o1".into() }]);
/// assert_eq!(page.skipped[0].key, "PK=USER#u1 SK=ORDER#o2");
/// # Ok::<(), dynamo_entity::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Items {
    pub(super) items: Vec<Item>,
    /// The entity type attribute of the table the items come from.
    pub(super) type_attribute: &'static str,
    /// The attribute names of that table, which log lines name keys under.
    pub(super) names: &'static AttributeNames,
    /// The reading handle's slot for the table's entities (`None` for items not read through
    /// a handle). When the handle knows its layout, an item of an entity's type value that none
    /// of them owns is reported (see [`Items::all`]).
    pub(super) entities: Option<LayoutEntities>,
}

impl PartialEq for Items {
    /// The same items read from a table of the same names (whatever the handle knew of its
    /// layout).
    fn eq(&self, other: &Items) -> bool {
        self.items == other.items && self.type_attribute == other.type_attribute && self.names == other.names
    }
}

impl Default for Items {
    fn default() -> Items {
        Items::from(Vec::new())
    }
}

impl From<Vec<Item>> for Items {
    /// Items read some other way (a `Scan`, an export), to decode with [`Items::decode`]
    /// or [`Items::decode_each`].
    fn from(items: Vec<Item>) -> Items {
        Items::with_type_attribute(items, TYPE_ATTRIBUTE)
    }
}

impl Items {
    /// The raw items.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// Items read some other way from a table whose entity type attribute is `type_attribute`
    /// (its [`AttributeNames::entity_type`]).
    pub fn with_type_attribute(items: Vec<Item>, type_attribute: &'static str) -> Items {
        Items { items, type_attribute, names: &AttributeNames::DEFAULT, entities: None }
    }

    /// How many items of each entity type (items without a type attribute count as `""`).
    pub fn type_counts(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for item in &self.items {
            let t = item.get(self.type_attribute).and_then(|v| v.as_s().ok()).cloned().unwrap_or_default();
            *counts.entry(t).or_insert(0) += 1;
        }
        counts
    }

    /// The table's entities, when the handle that read the items knows its layout.
    pub(super) fn entities(&self) -> Option<&[&'static EntitySchema]> {
        self.entities.as_ref()?.get().map(Vec::as_slice)
    }

    /// Whether `item` is one of the library's own items
    /// ([`is_library_item`](crate::owner::is_library_item)), under this table's key attributes
    /// and type attribute.
    pub(super) fn internal(&self, item: &Item) -> bool {
        let type_attribute = self.names.has_entity_type().then_some(self.type_attribute);
        crate::owner::is_library_item_under(item, self.names.pk, self.names.sk, type_attribute)
    }

    /// Every item of entity type `E`, decoded, in sort-key order: the items whose type
    /// attribute names `E` and whose primary key has `E`'s key templates' shape (entities that
    /// share a type value, and tables without a type attribute, are told apart by key shape).
    /// [`lenient().all()`](LenientItems::all) reports the items this fails on.
    ///
    /// # Errors
    /// [`Error::Decode`] for an item of type `E` that does not decode;
    /// [`Error::KeyFitsNoEntity`] for an item of `E`'s type value whose key fits the templates
    /// of no entity of the table (as the handle that read the items knows it, else as `E`
    /// names it with `#[entity(table = AppTable)]`, see [`Entity::TABLE_ENTITIES`]; else `E`
    /// is taken as the only entity of its type value), or for one without an entity's type value
    /// whose keys begin as `E`'s templates do ([`Error::WrongEntity`] when they fit them).
    pub fn all<E: Entity>(&self) -> Result<Vec<E>, Error> {
        self.of::<E>().map(|found| found.map_err(|(_, e)| e).and_then(E::from_item)).collect()
    }

    /// The one item of entity type `E`, `None` when there is none.
    /// [`lenient().one()`](LenientItems::one) reports the item this fails on.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there are several; [`Error::Decode`];
    /// [`Error::KeyFitsNoEntity`] as for [`all`](Self::all).
    pub fn one<E: Entity>(&self) -> Result<Option<E>, Error> {
        let found: Vec<&Item> = self.of::<E>().map(|found| found.map_err(|(_, e)| e)).collect::<Result<_, _>>()?;
        several::<E>(&found)?;
        found.first().map(|item| E::from_item(item)).transpose()
    }

    /// Decodes the whole collection into `C`, skipping (with a warning) items of entity types
    /// `C` does not name. [`strict().decode()`](StrictItems::decode) refuses those,
    /// [`lenient().decode()`](LenientItems::decode) reports the items that do not decode.
    ///
    /// # Errors
    /// As [`Collection::from_items`].
    pub fn decode<C: Collection>(&self) -> Result<C, Error> {
        C::from_items(&self.items, Unknown::Skip)
    }

    /// Every item decoded as the enum `A`, in sort-key order; items of types `A` does not name
    /// are skipped with a warning ([`strict().decode_each()`](StrictItems::decode_each)
    /// refuses them, [`lenient().decode_each()`](LenientItems::decode_each) reports them),
    /// unless they sit at the key of an entity `A` names.
    ///
    /// # Errors
    /// The decode error of an item of a named type; [`Error::WrongEntity`] for an item without
    /// a type value `A` names (none, not a string, or one no entity has) whose key fits the
    /// templates of an entity `A` names, as a get of that key says.
    pub fn decode_each<A: EntityEnum>(&self) -> Result<Vec<A>, Error> {
        self.decode_each_with(|item| {
            warn_unknown(item, self.names);
            Ok(())
        })
    }

    /// The items of `E` among the items, in order, and as `Err` each item a read of `E` must
    /// report rather than pass over (see [`items_of`]).
    pub(super) fn of<E: Entity>(&self) -> impl Iterator<Item = Result<&Item, (&Item, Error)>> {
        items_of::<E>(&self.items, self.entities())
    }

    /// Every item decoded as `A`, in order; `unknown` says what becomes of an item `A` has no
    /// variant for (the library's guard items are left out first).
    pub(super) fn decode_each_with<A: EntityEnum>(
        &self,
        unknown: impl Fn(&Item) -> Result<(), Error>,
    ) -> Result<Vec<A>, Error> {
        let mut out = Vec::with_capacity(self.items.len());
        for item in &self.items {
            match A::decode(item)? {
                Some(v) => out.push(v),
                None if self.internal(item) => {}
                None => unknown(item)?,
            }
        }
        Ok(out)
    }
}

/// The decodes that came before [`Items::strict`] and [`Items::lenient`], each now one of theirs.
impl Items {
    /// As [`strict().decode()`](StrictItems::decode).
    ///
    /// # Errors
    /// As [`Collection::from_items`].
    #[deprecated(since = "0.1.0", note = "use `items.strict().decode()`")]
    pub fn decode_strict<C: Collection>(&self) -> Result<C, Error> {
        self.strict().decode()
    }

    /// As [`strict().decode_each()`](StrictItems::decode_each).
    ///
    /// # Errors
    /// As [`StrictItems::decode_each`].
    #[deprecated(since = "0.1.0", note = "use `items.strict().decode_each()`")]
    pub fn decode_each_strict<A: EntityEnum>(&self) -> Result<Vec<A>, Error> {
        self.strict().decode_each()
    }

    /// As [`lenient().all()`](LenientItems::all), as a pair.
    #[deprecated(
        since = "0.1.0",
        note = "use `items.lenient().all()`, which returns a `Page` (its `items` and `skipped`)"
    )]
    pub fn all_lenient<E: Entity>(&self) -> (Vec<E>, Vec<ItemError>) {
        let page = self.lenient().all();
        (page.items, page.skipped)
    }

    /// As [`lenient().one()`](LenientItems::one), as a pair.
    ///
    /// # Errors
    /// As [`LenientItems::one`].
    #[deprecated(
        since = "0.1.0",
        note = "use `items.lenient().one()`, which returns a `Decoded` (its `value` and `skipped`)"
    )]
    pub fn one_lenient<E: Entity>(&self) -> Result<(Option<E>, Vec<ItemError>), Error> {
        self.lenient().one().map(crate::query::Decoded::into_pair)
    }

    /// As [`lenient().decode_each()`](LenientItems::decode_each), as a pair.
    #[deprecated(
        since = "0.1.0",
        note = "use `items.lenient().decode_each()`, which returns a `Page` (its `items` and `skipped`)"
    )]
    pub fn decode_each_lenient<A: EntityEnum>(&self) -> (Vec<A>, Vec<ItemError>) {
        let page = self.lenient().decode_each();
        (page.items, page.skipped)
    }

    /// As [`lenient().decode()`](LenientItems::decode), as a pair.
    ///
    /// # Errors
    /// As [`LenientItems::decode`].
    #[deprecated(
        since = "0.1.0",
        note = "use `items.lenient().decode()`, which returns a `Decoded` (its `value` and `skipped`)"
    )]
    pub fn decode_lenient<C: Collection>(&self) -> Result<(C, Vec<ItemError>), Error> {
        self.lenient().decode().map(crate::query::Decoded::into_pair)
    }
}

/// [`Error::Invalid`] when `found`, the items of `E` in a collection, are more than one.
pub(super) fn several<E: Entity>(found: &[&Item]) -> Result<(), Error> {
    match found.get(1) {
        Some(second) => Err(Error::Invalid {
            reason: format!(
                "expected one {} in the collection, found several (another is {})",
                E::TYPE,
                E::NAMES.describe_key(second)
            ),
        }),
        None => Ok(()),
    }
}

/// The items of `E` among `items`, in order (the [`owner`](crate::owner) rule), and as `Err`
/// each item that a read of `E` must report rather than pass over (see `owner::misfit`): one
/// of `E`'s type value whose key fits the templates of no entity of the table, or one without
/// an entity's type value whose keys begin as `E`'s templates do. The table's entities are
/// `known` (the reading handle's layout), else those of the table `E` names
/// ([`Entity::TABLE_ENTITIES`]); when neither is known, `E` is taken as the only entity of its
/// type value.
fn items_of<'a, E: Entity>(
    items: &'a [Item],
    known: Option<&'a [&'static EntitySchema]>,
) -> impl Iterator<Item = Result<&'a Item, (&'a Item, Error)>> + 'a {
    let known = known.or(E::TABLE_ENTITIES).unwrap_or(&[]);
    items.iter().filter_map(move |item| {
        if crate::owner::owns(E::SCHEMA, item) {
            return Some(Ok(item));
        }
        crate::owner::misfit(E::SCHEMA, Some(known), crate::key::names::Index::Primary, item).map(|e| Err((item, e)))
    })
}

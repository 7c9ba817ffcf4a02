//! Item collections: every item that shares one partition key, read in one query and decoded
//! by the entity type attribute.
//!
//! A query of a partition returns its [`Items`], not yet decoded. `#[derive(Collection)]` on a
//! struct names the entity types of a collection and how many of each it holds (`E`: exactly
//! one, `Option<E>`: at most one, `Vec<E>`: any number); `#[derive(EntityEnum)]` on an enum
//! whose variants each hold one entity decodes any item of those types (a table-level enum of
//! every entity serves scans, stream records and exports).
//!
//! ```ignore
//! #[derive(Collection)]
//! struct SkillPage { skill: Skill, reviews: Vec<Review> }
//!
//! // PK = SKILL#<id>: the skill (SK = META) and its reviews (SK = REVIEW#…) in one query.
//! let page: SkillPage = table.collection(Skill::query(&id)).send().await?.decode()?;
//!
//! #[derive(EntityEnum)]
//! enum AnyItem { User(User), Skill(Skill), Review(Review) }
//! let items: Vec<AnyItem> = collection.decode_each()?;
//! ```

use std::collections::HashMap;

use aws_sdk_dynamodb::operation::query::QueryInput;
use aws_sdk_dynamodb::operation::query::builders::QueryInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::{Error, ItemError};
use crate::owner::{is_library_item, type_of_named};
use crate::query::QuerySpec;
use crate::query::pages::{Answer, Paging, read_page};
use crate::schema::{AttributeNames, Entity, Index, Item, PrimaryKey, TYPE_ATTRIBUTE};
pub use crate::schema::{Collection, EntityEnum, Unknown};
use crate::table::{Call, Table};

/// A query of a whole partition of an index, every entity type included; from
/// [`Table::collection`].
#[must_use = "a query does nothing until it is sent"]
pub struct CollectionRequest {
    table: Table,
    /// The attribute and index names of the entity whose query selected the partition.
    names: &'static AttributeNames,
    /// That entity's type name (named by the errors of a second read).
    entity: &'static str,
    index: Index,
    pk: Result<AttributeValue, Error>,
    consistent: bool,
}

impl CollectionRequest {
    pub(crate) fn new<E: Entity, S>(table: Table, spec: QuerySpec<E, S>) -> Self {
        let (index, pk) = spec.into_parts();
        CollectionRequest { table, names: E::NAMES, entity: E::TYPE, index, pk, consistent: false }
    }

    /// Strongly consistent reads (primary index only).
    pub fn consistent_read(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Reads every page of the partition (one `Query` per 1 MB).
    ///
    /// Through a secondary index whose projection leaves the type attribute out (`KEYS_ONLY`),
    /// the index items say nothing of their entity: their whole items are read by primary key
    /// (`BatchGetItem`, 100 keys a request, unprocessed keys retried), in the index's order, so
    /// that the collection holds every item of the partition; an item deleted between the two
    /// reads is left out.
    ///
    /// # Errors
    /// The partition key's encoding error before sending; [`Error::Sdk`]; [`Error::BatchGet`]
    /// when the whole items could not all be read.
    pub async fn send(self) -> Result<Items, Error> {
        let pk = self.pk.as_ref().map_err(Error::copy_of_build_error)?;
        let paging = Paging { limit: None, page_size: None, to_the_end: true, lenient: false };
        let call = Call::new("Query", "").index(self.names.index_name(self.index).unwrap_or(""));
        let this = &self;
        // A collection has no cursor: it reads on to the end.
        let loaded = read_page(
            paging,
            self.names,
            None,
            |_, start| {
                let request = this.request(pk, start).send_with(this.table.client());
                async move {
                    let out = this.table.execute(call, request).await.map_err(|e| {
                        let partition =
                            format!("{}={}", this.names.pk_of(this.index), crate::key::names::describe_value(pk));
                        Error::sdk("Query", e).on_partition("", &partition, &partition)
                    })?;
                    Ok(Answer::of_query(out))
                }
            },
            |item: &mut Item| Ok(Some(std::mem::take(item))),
            None,
        )
        .await?;
        let items = loaded.items;
        let items = self.hydrate(items).await?;
        let entities = Some(self.table.layout_entities_shared());
        Ok(Items { items, type_attribute: self.names.entity_type, names: self.names, entities })
    }

    /// Replaces the index items of `items` that a projection left partial by the whole items:
    /// in a typed table, those without the type attribute; in a table without one, every item
    /// of an index whose projection is `KEYS_ONLY` or `INCLUDE` (when the handle knows the
    /// layout), else those that hold key attributes only.
    async fn hydrate(&self, items: Vec<Item>) -> Result<Vec<Item>, Error> {
        let names = self.names;
        let index = self.index;
        let projection = if index == Index::Primary { None } else { self.table.projection(index) };
        let keys = [names.pk, names.sk, names.pk_of(index), names.sk_of(index)];
        let projected = |i: &Item| {
            index != Index::Primary
                && if names.has_entity_type() {
                    !i.contains_key(names.entity_type)
                } else {
                    match projection {
                        Some(crate::schema::Projection::All) => false,
                        Some(_) => true,
                        None => i.keys().all(|k| keys.contains(&k.as_str())),
                    }
                }
        };
        if !items.iter().any(projected) {
            return Ok(items);
        }
        let mut batch = self.table.batch_get_mixed();
        for item in items.iter().filter(|i| projected(i)) {
            let part = |a: &str| item.get(a).cloned().unwrap_or(AttributeValue::Null(true));
            batch = batch.primary_key(self.entity, names, PrimaryKey { pk: part(names.pk), sk: part(names.sk) });
        }
        let mut whole = batch.send().await?.into_result()?.into_iter();
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            if projected(&item) {
                // `None`: deleted since the index was read.
                out.extend(whole.next().flatten());
            } else {
                out.push(item);
            }
        }
        Ok(out)
    }

    /// One `Query` request of the partition, from `start`.
    fn request(&self, pk: &AttributeValue, start: Option<Item>) -> QueryInputBuilder {
        aws_sdk_dynamodb::operation::query::QueryInput::builder()
            .table_name(self.table.name())
            .set_index_name(self.names.index_name(self.index).map(str::to_owned))
            .key_condition_expression("#pk = :pk")
            .expression_attribute_names("#pk", self.names.pk_of(self.index))
            .expression_attribute_values(":pk", pk.clone())
            .set_exclusive_start_key(start)
            .consistent_read(self.consistent)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// The first `Query` request [`send`](Self::send) sends, built by the same code, without
    /// sending it (the next pages only add `ExclusiveStartKey`).
    ///
    /// # Errors
    /// The partition key's encoding error.
    pub fn render(&self) -> Result<QueryInput, Error> {
        let pk = self.pk.as_ref().map_err(Error::copy_of_build_error)?;
        crate::table::render::built(self.request(pk, None).build())
    }
}

/// The items of one partition, in sort-key order, not yet decoded.
#[derive(Debug, Clone)]
pub struct Items {
    items: Vec<Item>,
    /// The entity type attribute of the table the items come from.
    type_attribute: &'static str,
    /// The attribute names of that table, which log lines name keys under.
    names: &'static AttributeNames,
    /// The reading handle's slot for the table's entities (`None` for items not read through
    /// a handle). When the handle knows its layout, an item of an entity's type value that none
    /// of them owns is reported (see [`Items::all`]).
    entities: Option<crate::table::LayoutEntities>,
}

impl Items {
    /// The table's entities, when the handle that read the items knows its layout.
    fn entities(&self) -> Option<&[&'static crate::schema::EntitySchema]> {
        self.entities.as_ref()?.get().map(Vec::as_slice)
    }
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
        Items { items: Vec::new(), type_attribute: TYPE_ATTRIBUTE, names: &AttributeNames::DEFAULT, entities: None }
    }
}

impl From<Vec<Item>> for Items {
    /// Items read some other way (a `Scan`, an export), to decode with [`Items::decode`]
    /// or [`Items::decode_each`].
    fn from(items: Vec<Item>) -> Items {
        Items { items, type_attribute: TYPE_ATTRIBUTE, names: &AttributeNames::DEFAULT, entities: None }
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

    /// Every item of entity type `E`, decoded, in sort-key order: the items whose type
    /// attribute names `E` and whose primary key has `E`'s key templates' shape (entities that
    /// share a type value, and tables without a type attribute, are told apart by key shape).
    ///
    /// # Errors
    /// [`Error::Decode`] for an item of type `E` that does not decode;
    /// [`Error::KeyFitsNoEntity`] for an item of `E`'s type value whose key fits the templates
    /// of no entity of the table (as the handle that read the items knows it, else as `E`
    /// names it with `#[entity(table = AppTable)]`, see [`Entity::TABLE_ENTITIES`]; else `E`
    /// is taken as the only entity of its type value), or for one without an entity's type value
    /// whose keys begin as `E`'s templates do ([`Error::WrongEntity`] when they fit them).
    pub fn all<E: Entity>(&self) -> Result<Vec<E>, Error> {
        items_of::<E>(&self.items, self.entities())
            .map(|found| found.map_err(|(_, e)| e).and_then(E::from_item))
            .collect()
    }

    /// The one item of entity type `E`, `None` when there is none.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there are several; [`Error::Decode`];
    /// [`Error::KeyFitsNoEntity`] as for [`all`](Self::all).
    pub fn one<E: Entity>(&self) -> Result<Option<E>, Error> {
        let found: Vec<&Item> = items_of::<E>(&self.items, self.entities())
            .map(|found| found.map_err(|(_, e)| e))
            .collect::<Result<_, _>>()?;
        several::<E>(&found)?;
        found.first().map(|item| E::from_item(item)).transpose()
    }

    /// As [`one`](Self::one), reporting an item of type `E` that does not decode as an
    /// [`ItemError`] (with its key) beside the answer instead of failing on it: `(None, [error])`
    /// when the one item of `E` does not decode (the choice [`QueryRequest::lenient`] makes for
    /// queries). An item of `E`'s type value that fits no entity's key templates is reported
    /// the same way.
    ///
    /// [`QueryRequest::lenient`]: crate::query::QueryRequest::lenient
    ///
    /// # Errors
    /// [`Error::Invalid`] when there are several items of type `E`.
    pub fn one_lenient<E: Entity>(&self) -> Result<(Option<E>, Vec<ItemError>), Error> {
        let mut skipped = Vec::new();
        let mut found = Vec::new();
        for item in items_of::<E>(&self.items, self.entities()) {
            match item {
                Ok(item) => found.push(item),
                Err((item, e)) => skipped.push(ItemError::new(E::NAMES, item.clone(), e)),
            }
        }
        several::<E>(&found)?;
        let one = match found.first().map(|item| (item, E::from_item(item))) {
            None => None,
            Some((_, Ok(value))) => Some(value),
            Some((item, Err(e))) => {
                skipped.push(ItemError::new(E::NAMES, (*item).clone(), e));
                None
            }
        };
        Ok((one, skipped))
    }

    /// Every item of entity type `E` that decodes, in sort-key order, and beside them each item
    /// of type `E` that does not, as an [`ItemError`] with its key (see [`Items::all`], which
    /// fails on the first), and each item of `E`'s type value that fits no entity's key
    /// templates.
    pub fn all_lenient<E: Entity>(&self) -> (Vec<E>, Vec<ItemError>) {
        let mut decoded = Vec::new();
        let mut skipped = Vec::new();
        for found in items_of::<E>(&self.items, self.entities()) {
            match found.and_then(|item| E::from_item(item).map_err(|e| (item, e))) {
                Ok(value) => decoded.push(value),
                Err((item, e)) => skipped.push(ItemError::new(E::NAMES, item.clone(), e)),
            }
        }
        (decoded, skipped)
    }
}

/// [`Error::Invalid`] when `found`, the items of `E` in a collection, are more than one.
fn several<E: Entity>(found: &[&Item]) -> Result<(), Error> {
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

/// The items of `E` among `items`, in order (see [`is_type_of`]), and as `Err` each item that
/// a read of `E` must report rather than pass over (see `EntitySchema::misfit`): one of `E`'s
/// type value whose key fits the templates of no entity of the table, or one without an
/// entity's type value whose keys begin as `E`'s templates do. The table's entities are
/// `known` (the reading handle's layout), else those of the table `E` names
/// ([`Entity::TABLE_ENTITIES`]); when neither is known, `E` is taken as the only entity of its
/// type value.
fn items_of<'a, E: Entity>(
    items: &'a [Item],
    known: Option<&'a [&'static crate::schema::EntitySchema]>,
) -> impl Iterator<Item = Result<&'a Item, (&'a Item, Error)>> + 'a {
    let known = known.or(E::TABLE_ENTITIES).unwrap_or(&[]);
    items.iter().filter_map(move |item| {
        if crate::owner::owns(E::SCHEMA, item) {
            return Some(Ok(item));
        }
        crate::owner::misfit(E::SCHEMA, Some(known), crate::key::names::Index::Primary, item).map(|e| Err((item, e)))
    })
}

impl Items {
    /// Whether `item` is one of the library's own items ([`is_library_item`]), under this
    /// table's key attributes and type attribute.
    fn internal(&self, item: &Item) -> bool {
        let type_attribute = self.names.has_entity_type().then_some(self.type_attribute);
        crate::owner::is_library_item_under(item, self.names.pk, self.names.sk, type_attribute)
    }

    /// Decodes the whole collection into `C`, skipping (with a warning) items of entity types
    /// `C` does not name.
    ///
    /// # Errors
    /// As [`Collection::from_items`].
    pub fn decode<C: Collection>(&self) -> Result<C, Error> {
        C::from_items(&self.items, Unknown::Skip)
    }

    /// As [`decode`](Self::decode), failing on items of entity types `C` does not name.
    ///
    /// # Errors
    /// As [`Collection::from_items`].
    pub fn decode_strict<C: Collection>(&self) -> Result<C, Error> {
        C::from_items(&self.items, Unknown::Error)
    }

    /// Every item decoded as the enum `A`, in sort-key order; items of types `A` does not name
    /// are skipped with a warning (see [`decode_each_strict`](Self::decode_each_strict) to
    /// refuse them), unless they sit at the key of an entity `A` names.
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

    /// As [`decode_each`](Self::decode_each), failing on an item that `A` has no variant for
    /// (another entity type, or in a table without a type attribute an item whose key matches
    /// no entity's templates) instead of skipping it; the library's own guard items are still
    /// left out. For a table enum (`#[derive(TableDef)]`'s item enum names every entity), such
    /// an item is one the declaration does not describe.
    ///
    /// # Errors
    /// [`Error::UnexpectedItem`] naming the item's type (if any) and key; the decode error of
    /// an item of a named type.
    pub fn decode_each_strict<A: EntityEnum>(&self) -> Result<Vec<A>, Error> {
        self.decode_each_with::<A>(|item| Err(unexpected::<A>(item, self.names)))
    }

    /// Every item decoded as `A`, in order; `unknown` says what becomes of an item `A` has no
    /// variant for (the library's guard items are left out first).
    fn decode_each_with<A: EntityEnum>(&self, unknown: impl Fn(&Item) -> Result<(), Error>) -> Result<Vec<A>, Error> {
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

    /// Every item decoded as the enum `A`, in sort-key order, beside an [`ItemError`] (with its
    /// key) for each item that is not among them: an item of a named type that does not
    /// decode, and an item `A` has no variant for ([`Error::UnexpectedItem`]). Nothing is left
    /// out unreported but the library's own guard and migration items.
    pub fn decode_each_lenient<A: EntityEnum>(&self) -> (Vec<A>, Vec<ItemError>) {
        let mut out = Vec::with_capacity(self.items.len());
        let mut skipped = Vec::new();
        for item in &self.items {
            match A::decode(item) {
                Ok(Some(v)) => out.push(v),
                Ok(None) if self.internal(item) => {}
                Ok(None) => skipped.push(ItemError::new(self.names, item.clone(), unexpected::<A>(item, self.names))),
                Err(e) => skipped.push(ItemError::new(self.names, item.clone(), e)),
            }
        }
        (out, skipped)
    }

    /// As [`decode`](Self::decode), leaving out the items that do not decode and reporting each
    /// as an [`ItemError`] (with its key) beside the collection: the collection is decoded from
    /// the other items.
    ///
    /// # Errors
    /// As [`Collection::from_items`] on the items that decode: [`Error::MissingItem`] when the
    /// item a required field needs is among those that do not decode (the error names the
    /// field; the skipped items are not returned then).
    pub fn decode_lenient<C: Collection>(&self) -> Result<(C, Vec<ItemError>), Error> {
        let mut items = self.items.clone();
        let mut skipped = Vec::new();
        loop {
            match C::from_items(&items, Unknown::Skip) {
                Ok(c) => return Ok((c, skipped)),
                Err(e) if ItemError::is_item_error(&e) => {
                    // The item the error names leaves the collection; at most once per item.
                    let at =
                        ItemError::key_of(&e).and_then(|k| items.iter().position(|i| self.names.describe_key(i) == k));
                    let Some(at) = at else { return Err(e) };
                    skipped.push(ItemError::new(self.names, items.remove(at), e));
                }
                Err(e) => return Err(e),
            }
        }
    }
}

/// The error of an item that the entity enum `A` has no variant for.
pub(crate) fn unexpected<A: EntityEnum>(item: &Item, names: &AttributeNames) -> Error {
    Error::unexpected_item(std::any::type_name::<A>().rsplit("::").next().unwrap_or_default(), item, names)
}

/// Logs an item a collection or enum leaves out because it names no entity of theirs (the
/// library's own items are left out without a word).
pub(crate) fn warn_unknown(item: &Item, names: &AttributeNames) {
    if is_library_item(item, names) {
        return;
    }
    tracing::warn!(
        entity = type_of_named(item, names.entity_type).unwrap_or("<none>"),
        key = %names.describe_key(item),
        "skipped an item of an entity type the collection does not name"
    );
}

/// The entity type attribute (`_type`) of an item, if it is a string.
pub fn type_of(item: &Item) -> Option<&str> {
    type_of_named(item, TYPE_ATTRIBUTE)
}

impl<D> Table<D> {
    /// A query of a whole partition (an item collection), every entity type included, from the
    /// same `E::query(...)` / `E::gsiN(...)` that selects the partition; it returns the
    /// partition's [`Items`], to decode as a [`Collection`] or item by item. On a declared
    /// handle (`Table<D>`), of a partition that an entity of `D` keys.
    pub fn collection<E: Entity, S>(&self, spec: QuerySpec<E, S>) -> CollectionRequest
    where
        D: crate::schema::Admits<E>,
    {
        CollectionRequest::new(self.untyped(), spec)
    }
}

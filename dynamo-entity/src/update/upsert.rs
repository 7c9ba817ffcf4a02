//! Upserts: an `UpdateItem` that creates the item when it is absent, and counters in one call.
//!
//! [`Table::upsert`] is an update ([`UpdateRequest`]) whose request holds, besides the changes it
//! asks for, everything the item it would create needs:
//!
//! * The item it would create is the key, the entity type attribute and the values the update
//!   gives: `set` and `set_if_absent` values, `add` / `subtract` amounts counted from 0, appended
//!   lists, added set elements, the version (`1`) and the `created_at` / `updated_at` times.
//!   When it decodes as the entity, the upsert creates it if absent. When it does not (a field
//!   that is not an `Option`, nor a set, has no value), the upsert changes an existing item
//!   only, with just the fields it writes (`attribute_exists(PK)`), and an absent item is
//!   [`Error::CannotCreate`], naming the field; nothing is created half-written. Use
//!   [`set_if_absent`](UpsertRequest::set_if_absent) for a value that only a new item takes.
//! * Every attribute of that item that the update does not write itself (the key fields'
//!   attributes, the type attribute, GSI and LSI keys built from unchanged fields, `created_at`)
//!   is written `SET a = if_not_exists(a, value)`: an existing item keeps what it has.
//! * The condition is `attribute_not_exists(PK) OR <type> = entity` (not `attribute_exists`):
//!   an item of another entity under the same key is still refused ([`Error::ConditionFailed`]).
//! * Concurrent upserts of one absent key are serialized by DynamoDB like any `UpdateItem`: N
//!   increments from N tasks leave N, whoever created the item.
//!
//! What an upsert refuses, before sending:
//! * Creating an item of an entity with an `#[entity(unique)]` field that is not an `Option`:
//!   the item would hold a value that no guard item claims (see [`unique`](crate::unique)).
//!   No upsert method takes a unique field's handle (`Field<E, T, Unique>`), so such an upsert
//!   cannot create its item and changes an existing one only ([`Error::CannotCreate`] when
//!   absent); one whose item would decode all the same (a defaulted field) is
//!   [`Error::Invalid`]. Create such items with `create`. An optional unique field is left as
//!   it is.
//! * A versioned entity (`#[entity(version)]`) needs `if_version(v)` or `any_version()`, as an
//!   update does; `if_version(0)` creates the item or changes one stored without a version, a
//!   higher version requires the item. Both store the next version (`1` for a new item).
//! * An entity with a schema version (`#[entity(schema(version = N, from = ...))]`, see
//!   [`evolve`](crate::schema::evolve)): a new item is stamped with version `N` (written
//!   `if_not_exists`, as the other attributes of the created item), and an existing item must
//!   already be of version `N` (or, when `N` is the oldest declared version, have no version
//!   attribute). An item stored at an earlier declared version is refused by the condition
//!   (`attribute_not_exists(PK) OR <schema> = N`), nothing is written, and the error is
//!   [`Error::UpgradeRequired`]: the upsert's fields are those of version `N`, and the item, still
//!   stamped with its old version, would be read as the old struct and lose them. Upgrade it
//!   first ([`Table::upgrade_key`](crate::Table::upgrade_key)). An item of a version newer than
//!   `N` is refused too ([`Error::UpgradeRequired`] with `stored > current`: write it from a
//!   program that knows that version). A plain [`update`](crate::Table::update) refuses both the
//!   same way (nothing written).
//! * `set_if_absent` on a field of a GSI or LSI key is allowed only when no field of that
//!   index's keys is an `Option` (the key of an existing item is then kept whole with
//!   `if_not_exists`, and the new item's is built from the values given).

use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnValue};

use super::{Action, UpdateRequest, next, push_all};
use crate::error::{Error, Returned};
use crate::expr::{Condition, Field, Mutable, Placeholders};
use crate::schema::{Entity, EntitySchema, Item, Key, PrimaryKey};
use crate::table::Table;
use crate::value::{Attribute, Number};

/// An `UpdateItem` that creates the item when it is absent; from [`Table::upsert`] or
/// [`Table::increment`]. See the [module documentation](self) for what it writes and refuses.
///
/// It takes the changes of an [`UpdateRequest`] that make sense on an item that may not exist
/// yet; its `send` returns the item as it is afterwards (`ReturnValues = ALL_NEW`).
#[must_use = "an upsert does nothing until it is sent"]
pub struct UpsertRequest<E> {
    update: UpdateRequest<E>,
}

impl<E: Entity> UpsertRequest<E> {
    /// `SET field = value` on the item, new or existing; see [`UpdateRequest::set`].
    pub fn set<T: Attribute>(self, field: Field<E, T, Mutable>, value: &T) -> Self {
        UpsertRequest { update: self.update.set(field, value) }
    }

    /// `SET field = if_not_exists(field, 0) + amount`: a new item starts from 0; see
    /// [`UpdateRequest::add`] (range guard included).
    pub fn add<T: Number>(self, field: Field<E, T, Mutable>, amount: &T) -> Self {
        UpsertRequest { update: self.update.add(field, amount) }
    }

    /// `SET field = if_not_exists(field, 0) - amount`; see [`UpdateRequest::subtract`]. An
    /// unsigned field of a new item cannot go below zero: the request is refused by its range
    /// guard, reported as [`Error::OutOfRange`] with the stored value `0`.
    pub fn subtract<T: Number>(self, field: Field<E, T, Mutable>, amount: &T) -> Self {
        UpsertRequest { update: self.update.subtract(field, amount) }
    }

    /// `REMOVE field` of an optional field; see [`UpdateRequest::remove`].
    pub fn remove<T: Attribute>(self, field: Field<E, Option<T>, Mutable>) -> Self {
        UpsertRequest { update: self.update.remove(field) }
    }

    /// `SET field = if_not_exists(field, value)`: the value of a new item, an existing item
    /// keeps its own. Allowed on a GSI or LSI key field when no field of that index's keys is
    /// an `Option` (the index key of an existing item is kept the same way).
    pub fn set_if_absent<T: Attribute>(self, field: Field<E, T, Mutable>, value: &T) -> Self {
        UpsertRequest { update: self.update.set_if_absent(field, value) }
    }

    /// Appends `items` to a list field (a new item's list is `items`); see
    /// [`UpdateRequest::append`].
    pub fn append<T: Attribute>(self, field: Field<E, Vec<T>, Mutable>, items: &[T]) -> Self {
        UpsertRequest { update: self.update.append(field, items) }
    }

    /// Puts `items` in front of a list field; see [`UpdateRequest::prepend`].
    pub fn prepend<T: Attribute>(self, field: Field<E, Vec<T>, Mutable>, items: &[T]) -> Self {
        UpsertRequest { update: self.update.prepend(field, items) }
    }

    /// Adds elements to a set field (`ADD`; a new item's set is `items`); see
    /// [`UpdateRequest::insert_into`].
    pub fn insert_into<S: super::elements::SetField>(self, field: Field<E, S, Mutable>, items: &S) -> Self {
        UpsertRequest { update: self.update.insert_into(field, items) }
    }

    /// Removes elements from a set field (`DELETE`); see [`UpdateRequest::delete_from`].
    pub fn delete_from<S: super::elements::SetField>(self, field: Field<E, S, Mutable>, items: &S) -> Self {
        UpsertRequest { update: self.update.delete_from(field, items) }
    }

    /// Only write when `condition` holds, on the stored item or, when there is none, on the
    /// absent one (a comparison with an absent attribute is false; `not_exists` holds).
    /// Otherwise [`Error::ConditionFailed`].
    pub fn condition(self, condition: Condition) -> Self {
        UpsertRequest { update: self.update.condition(condition) }
    }

    /// Only write when the stored version is `version` (`0`: no item, or an item stored without
    /// a version); see [`UpdateRequest::if_version`]. A failed check is
    /// [`Error::VersionConflict`].
    pub fn if_version(self, version: u64) -> Self {
        UpsertRequest { update: self.update.if_version(version) }
    }

    /// Write whatever the stored version, storing the next one (`1` for a new item); see
    /// [`UpdateRequest::any_version`].
    pub fn any_version(self) -> Self {
        UpsertRequest { update: self.update.any_version() }
    }

    /// Sends the upsert and returns the item as it is afterwards (`ReturnValues = ALL_NEW`).
    /// An item that does not decode is `Ok(Returned::Undecodable(..))`: the write was applied.
    ///
    /// # Errors
    /// [`Error::Invalid`] / [`Error::Key`] / [`Error::Encode`] / [`Error::ItemTooLarge`] (the
    /// key and the values set over 400 KB, see [`UpdateRequest`]) before
    /// sending (see the [module documentation](self)); [`Error::ConditionFailed`] when the condition, a range
    /// guard or the entity type check does not hold; [`Error::VersionConflict`];
    /// [`Error::OutOfRange`]; [`Error::Sdk`]. Never [`Error::NotFound`].
    pub async fn send(self) -> Result<Returned<E>, Error> {
        self.update.send().await
    }

    /// As [`send`](Self::send), returning the item as it was before (`ReturnValues = ALL_OLD`):
    /// `None` when the upsert created it.
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn send_returning_old(self) -> Result<Returned<Option<E>>, Error> {
        self.update.send_returning_option(ReturnValue::AllOld).await
    }

    /// The `UpdateItem` request [`send`](Self::send) would send, without sending it.
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending.
    pub fn render(self) -> Result<UpdateItemInput, Error> {
        self.update.render()
    }

    /// The update this upsert is (for a transaction's action).
    pub(crate) fn into_update(self) -> UpdateRequest<E> {
        self.update
    }
}

/// The upsert of [`Table::increment`] on `table`: `add`, and `any_version` for a versioned entity.
pub(crate) fn increment<E: Entity, T: Number>(
    table: Table,
    key: Key<E>,
    field: Field<E, T, Mutable>,
    amount: &T,
) -> UpsertRequest<E> {
    let upsert = UpsertRequest { update: UpdateRequest::new(table, key).upserting() }.add(field, amount);
    if E::schema().version.is_some() { upsert.any_version() } else { upsert }
}

impl<D> Table<D> {
    /// An update of the item with this key that creates it when it is absent (`UpdateItem`
    /// without `attribute_exists`); see [`UpsertRequest`] and the [module documentation](self).
    pub fn upsert<E: Entity>(&self, key: Key<E>) -> UpsertRequest<E>
    where
        D: crate::schema::Admits<E>,
    {
        UpsertRequest { update: UpdateRequest::new(self.untyped(), key).upserting() }
    }

    /// A counter in one call: adds `amount` to a number field of the item with this key,
    /// creating the item (the field counting from 0) when it is absent:
    /// `table.increment(PageViews::key("home"), PageViews::COUNT, 1).send().await?`.
    ///
    /// The same as `upsert(key).add(field, &amount)`, and for a versioned entity
    /// `.any_version()` too (a counter does not depend on what was read). Other changes can be
    /// chained before sending. A new item holds only the key, the counter and what the chained
    /// changes give: when the entity has other fields that are not `Option`s, the increment
    /// changes an existing item only, and an absent one is [`Error::CannotCreate`] (give those
    /// fields with [`UpsertRequest::set_if_absent`] to create it). In a transaction:
    /// [`TransactWrite::increment`](crate::transact::TransactWrite::increment).
    pub fn increment<E: Entity, T: Number>(
        &self,
        key: Key<E>,
        field: Field<E, T, Mutable>,
        amount: T,
    ) -> UpsertRequest<E>
    where
        D: crate::schema::Admits<E>,
    {
        increment(self.untyped(), key, field, &amount)
    }
}

/// Appends the schema-version guard of an upsert of a versioned entity: ` AND
/// (attribute_not_exists(PK) OR <schema> = N)`, and `OR attribute_not_exists(<schema>)` when
/// `N` is the oldest declared version (an item without the attribute reads as it). A stored
/// item of another version is refused by DynamoDB, and the failure explained from the old
/// item ([`Error::UpgradeRequired`]).
pub(super) fn push_schema_guard(
    names: &crate::schema::AttributeNames,
    sv: &crate::schema::evolve::SchemaVersion,
    ph: &mut Placeholders,
    cond: &mut String,
) {
    cond.push_str(" AND (attribute_not_exists(");
    ph.push_name(names.pk, cond);
    cond.push_str(") OR ");
    ph.push_name(sv.attribute, cond);
    cond.push_str(" = ");
    ph.push_value(AttributeValue::N(sv.version.to_string()), cond);
    if sv.oldest == sv.version {
        cond.push_str(" OR attribute_not_exists(");
        ph.push_name(sv.attribute, cond);
        cond.push(')');
    }
    cond.push(')');
}

/// Whether `set_if_absent` on `field` keeps the keys of the indexes built from it right: no
/// field of those indexes' keys is an `Option` (an existing item then has its index keys, kept
/// by `if_not_exists`; a new one gets the keys of the values given).
pub(super) fn if_absent_keeps_keys(schema: &EntitySchema, field: &str) -> bool {
    schema
        .secondary_indexes()
        .filter(|i| i.pk.fields().chain(i.sk.fields()).any(|f| f == field))
        .all(|i| i.pk.fields().chain(i.sk.fields()).all(|f| !schema.is_optional(f)))
}

/// Refuses an upsert of an entity with a unique field that is not an `Option` (see the
/// [module documentation](self)).
pub(super) fn refuse_unique(schema: &EntitySchema) -> Result<(), Error> {
    let required: Vec<&str> = schema.unique_fields().filter(|f| !f.optional).map(|f| f.field).collect();
    if required.is_empty() {
        return Ok(());
    }
    Err(Error::Invalid {
        reason: format!(
            "{} cannot be upserted: its unique field `{}` would be created without the guard item that claims its \
             value; create the item with `create` and change it with `update`",
            schema.name,
            required.join("`, `")
        ),
    })
}

/// The attributes of the item an upsert creates, from its actions (the key and the type
/// attribute are added by [`create_missing`]). Taken before the actions' values move into the
/// request.
pub(super) fn created_item(actions: &[(&'static str, &'static str, Action)]) -> Item {
    let mut item = Item::with_capacity(actions.len() + 4);
    for (_, attribute, action) in actions {
        let value = match action {
            Action::Set(v) | Action::SetIfNotExists(v) | Action::Append(v, _) | Action::SetAdd(v) => v.clone(),
            // The update writes the field itself (`if_not_exists(f, 0) ± amount`); the value here
            // only has to decode, and an index key made of the field alone is written by the
            // update too. A subtraction that would take a new unsigned field below zero is
            // refused by its range guard, so `0` stands in for it.
            Action::Arith('+', v @ AttributeValue::N(_)) => v.clone(),
            Action::Arith(_, AttributeValue::N(_)) => AttributeValue::N("0".to_owned()),
            Action::Arith(..) | Action::Remove | Action::SetDelete(_) | Action::SetAt(..) | Action::RemoveAt(_) => {
                continue;
            }
        };
        item.insert((*attribute).to_owned(), value);
    }
    item
}

/// Writes `SET a = if_not_exists(a, v)` for every attribute of the item the upsert would create
/// (`created`, completed with the key, the type attribute and `created_at`, decoded as `E` and
/// encoded again, so that key fields and index keys are there) that the update does not write
/// itself (`written`). When that item does not decode as `E` (a field that is not an `Option`
/// has no value), writes nothing and returns why: the upsert then changes an existing item only.
pub(super) fn create_missing<E: Entity>(
    key: Option<&PrimaryKey>,
    created: Option<Item>,
    written: &[&'static str],
    ph: &mut Placeholders,
    sets: &mut String,
) -> Result<Option<String>, Error> {
    // Without a key, the request fails on the key's own error.
    let (Some(key), Some(mut created)) = (key, created) else { return Ok(None) };
    let schema = E::schema();
    created.insert(E::NAMES.pk.to_owned(), key.pk.clone());
    created.insert(E::NAMES.sk.to_owned(), key.sk.clone());
    if E::NAMES.has_entity_type() {
        created.insert(E::NAMES.entity_type.to_owned(), AttributeValue::S(E::TYPE.to_owned()));
    }
    if let Some(sv) = &schema.schema_version {
        // The item is created at the struct's own version (without it, it would decode as the
        // oldest declared one).
        crate::schema::evolve::put_schema_version(&mut created, sv.attribute, sv.version);
    }
    if let Some(at) = &schema.created_at {
        created.entry(at.attribute.to_owned()).or_insert_with(crate::versioning::now_value);
    }
    for c in schema.constants {
        created.insert(c.attribute.to_owned(), c.value.to_attribute());
    }
    let value = match E::from_item(&created) {
        Ok(value) => value,
        Err(e) => {
            return Ok(Some(format!(
                "the item it would create is not a valid {}: {e}; give every field that is not an Option a value \
                 (set, set_if_absent, add)",
                E::TYPE
            )));
        }
    };
    let item = value.to_item()?;
    // In attribute order, so that the request is the same from one build to the next.
    let mut missing: Vec<(&String, &AttributeValue)> = item
        .iter()
        .filter(|(a, _)| {
            let a = a.as_str();
            a != E::NAMES.pk && a != E::NAMES.sk && !written.contains(&a)
        })
        .collect();
    missing.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for (attribute, v) in missing {
        let n = ph.name(attribute);
        let v = ph.value(v.clone());
        push_all(next(sets), &[&n, " = if_not_exists(", &n, ", ", &v, ")"]);
    }
    Ok(None)
}

//! Typed updates (`UpdateItem`) that keep GSI keys in step with the fields they are built from.
//!
//! [`Table::update`] changes an item that exists; [`Table::upsert`] ([`upsert`]) creates it when
//! it is absent, and [`Table::increment`] is a counter in one call.
//!
//! # Rebuilding a key from the stored item
//! An update that sets one part of a secondary index key (`STATUS#<status>#<submitted_at>`)
//! rebuilds the whole key. The parts it does not set come from the stored item:
//!
//! | the update sets | the key's other parts | what is sent |
//! |---|---|---|
//! | every part, or the others are primary key fields | known | one `UpdateItem` |
//! | some parts | on the item, in a key or an attribute | one consistent `GetItem` (1 read unit per 4 KB of item), then one `UpdateItem` that requires the attributes holding those parts unchanged |
//! | some parts | a part is `None` once the update is applied | the item stays out of (or leaves) the sparse index |
//!
//! Another writer that changes one of those attributes between the read and the write makes
//! the update's condition fail: nothing is written, and the update reads the item again, up to
//! 3 times, then answers [`Error::Contended`] (retryable). A rendered
//! update, an upsert and a transaction's update do not read: they are refused with
//! [`Error::Invalid`] naming the fields to set.

mod build;
pub mod elements;
mod stored;
pub mod upsert;

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValue};

use crate::error::{Error, Returned};
use crate::expr::{Condition, Field, Mutable, NotKey, NotMaintained, NotUnique};
use crate::key::rebuild::PartText;
use crate::key::{KeyPartError, KeyType, PartForm, Segment};
use crate::limits;
use crate::schema::{Entity, EntitySchema, Key, PrimaryKey, VersionSchema};
use crate::table::resend::{Parts, Sent, Write};
use crate::table::{Call, RETURN_OLD_ON_FAILURE, Table};
use crate::value::{Attribute, Number};
use crate::versioning;
use crate::write_token::{Seen, WriteToken};
use build::Built;

#[derive(Debug, Clone)]
enum Action {
    Set(AttributeValue),
    SetIfNotExists(AttributeValue),
    Remove,
    /// `+` or `-` a number.
    Arith(char, AttributeValue),
    /// `list_append` at the end (`true`) or the front (`false`).
    Append(AttributeValue, bool),
    /// `ADD` elements to a set.
    SetAdd(AttributeValue),
    /// `DELETE` elements from a set.
    SetDelete(AttributeValue),
    /// `SET f.#key = v` / `SET f[i] = v`: one map entry or list element.
    SetAt(elements::Step, AttributeValue),
    /// `REMOVE f.#key` / `REMOVE f[i]`.
    RemoveAt(elements::Step),
}

impl Action {
    /// The map entry or list element the action changes; `None`: the whole attribute.
    fn step(&self) -> Option<&elements::Step> {
        match self {
            Action::SetAt(step, _) | Action::RemoveAt(step) => Some(step),
            _ => None,
        }
    }
}

/// An `UpdateItem` on one item of entity `E`; from [`Table::update`].
///
/// * The item must exist: every update is conditional on `attribute_exists(PK)`, so an update
///   never creates a half-written item; a missing item is [`Error::NotFound`].
/// * Setting a field that a GSI key template uses rewrites that key attribute in the same
///   request; when either template of the GSI has an `Option` part, both key attributes are
///   rewritten (a `None` may have removed both earlier). A field of a rewritten template that
///   the update neither sets nor has in its primary key is read from the stored item first (a
///   consistent `GetItem`), and the update requires what it read unchanged: approving a skill
///   with `set(STATUS)` alone rebuilds `STATUS#<status>#<submitted_at>` from the stored
///   `submitted_at`. Set every part in the same update to save that read. See
///   [the module's rules](crate::update#rebuilding-a-key-from-the-stored-item); a rendered update
///   ([`render`](Self::render)), an upsert and a transaction's update do not read, and are
///   refused with [`Error::Invalid`] naming the fields to set. When a part becomes `None`, both
///   key attributes of that GSI are removed (the item leaves the sparse index).
/// * An LSI ([`Index::Lsi`](crate::Index::Lsi)) is keyed on the item's own `PK`, which no
///   update changes: setting a field of its sort key template rewrites `LSI<n>SK` alone (the
///   item moves within its partition of the index), and a part that becomes `None` removes it
///   (the item leaves the index).
/// * [`UpdateRequest::add`] on a field that is exactly a numeric GSI key (`<downloads>`) moves
///   that key by the same amount in the same request.
/// * Primary key fields have no setter: their handles are `Field<E, T, Immutable>`.
/// * A versioned entity (`#[entity(version)]`) is updated only at the version given by
///   [`if_version`](Self::if_version) (or at any version after
///   [`any_version`](Self::any_version); one of the two is required), and every update stores
///   the next version in the same request. An `#[entity(updated_at)]` field is set to now by
///   every update. See [`versioning`].
/// * Returns the item as it is after the update (`ReturnValues = ALL_NEW`).
/// * An update whose key, entity type attribute and the attributes it sets outright (`SET a =
///   :v`: the fields given to [`set`](Self::set), the GSI keys rebuilt from them,
///   `updated_at`), names and values, are over DynamoDB's 400 KB item limit is refused before
///   sending with [`Error::ItemTooLarge`] naming the entity and key, as [`Table::put`] refuses
///   such an item: the updated item holds at least those. Upserts and a transaction's updates
///   are checked the same way. The attributes the item keeps are not known, so an update under
///   this bound may still make the item too large (DynamoDB's `ValidationException`).
#[must_use = "an update does nothing until it is sent"]
pub struct UpdateRequest<E> {
    table: Table,
    key: Result<PrimaryKey, Error>,
    actions: Vec<(&'static str, &'static str, Action)>,
    /// The key-part text of each key field set, in the order first set (a later `set` of the
    /// same field replaces its text).
    parts: Vec<(&'static str, Result<PartText, KeyPartError>)>,
    /// Range guards of `add` / `subtract`: lowest, highest, and whether an absent attribute is
    /// allowed.
    bounds: HashMap<&'static str, (Option<String>, Option<String>, bool)>,
    condition: Option<Condition>,
    version: VersionCheck,
    /// An upsert ([`Table::upsert`]): the item is created when absent (see [`upsert`]).
    upsert: bool,
    /// What the update read from the stored item to rebuild index keys (see [`stored`]).
    stored: Option<stored::Stored>,
    error: Option<Error>,
    _entity: std::marker::PhantomData<fn() -> E>,
}

/// Whether a secondary index key of `schema` takes `field`'s part in its number form
/// ([`PartForm::Number`], which [`key_value`](crate::key::rebuild::key_value) reads): a numeric
/// key (`N`), or an unpadded `<field:raw>`. An update writes that form only then.
fn number_form_used(schema: &EntitySchema, field: &str) -> bool {
    // Plain loops over the index slices: this runs for every key field an update sets.
    for indexes in [schema.gsis, schema.lsis] {
        for index in indexes {
            for t in [index.pk, index.sk] {
                let numeric = t.key_type == KeyType::N;
                for segment in t.segments {
                    let used = match segment {
                        Segment::Field(f) => numeric && *f == field,
                        Segment::Part { field: f, raw, .. } => (numeric || *raw) && *f == field,
                        Segment::Literal(_) | Segment::Shard { .. } => false,
                    };
                    if used {
                        return true;
                    }
                }
            }
        }
    }
    false
}

/// Which stored version an update of a versioned entity applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VersionCheck {
    /// Not said (refused for a versioned entity).
    Unset,
    /// `if_version(v)`.
    Is(u64),
    /// `any_version()`.
    Any,
}

impl<E: Entity> UpdateRequest<E> {
    pub(crate) fn new(table: Table, key: Key<E>) -> Self {
        UpdateRequest {
            table,
            key: key.into_encoded(),
            // Room for a few actions: every update has one (an empty one is refused).
            actions: Vec::with_capacity(4),
            parts: Vec::new(),
            bounds: HashMap::new(),
            condition: None,
            version: VersionCheck::Unset,
            upsert: false,
            stored: None,
            error: None,
            _entity: std::marker::PhantomData,
        }
    }

    /// The same update as an upsert (see [`upsert`]).
    pub(crate) fn upserting(mut self) -> Self {
        self.upsert = true;
        self
    }

    fn fail(&mut self, e: Error) {
        self.error.get_or_insert(e);
    }

    fn record_part<T>(&mut self, field: &Field<E, T, Mutable>, value: &T) {
        if let Some(write) = field.part {
            // Room for a typical part (a timestamp is 24 bytes): one allocation each.
            let mut composite = String::with_capacity(32);
            // The number form only for a key that takes it (most keys take the composite).
            let numbered = number_form_used(E::schema(), field.name);
            let text = write(value, &mut composite, PartForm::Composite).and_then(|present| {
                let number = if numbered {
                    let mut number = String::with_capacity(32);
                    write(value, &mut number, PartForm::Number)?;
                    Some(number)
                } else {
                    None
                };
                Ok(PartText { present, composite: Some(composite), number })
            });
            self.put_part(field.name, text);
        }
    }

    /// Records `text` as the key-part text of `field`, replacing what an earlier `set` recorded.
    fn put_part(&mut self, field: &'static str, text: Result<PartText, KeyPartError>) {
        match self.parts.iter_mut().find(|(f, _)| *f == field) {
            Some((_, old)) => *old = text,
            None => self.parts.push((field, text)),
        }
    }

    /// The key-part text recorded for `field`, if it was set.
    fn part(&self, field: &str) -> Option<&Result<PartText, KeyPartError>> {
        self.parts.iter().find(|(f, _)| *f == field).map(|(_, t)| t)
    }

    /// `SET field = value`; for `Option` fields, `None` removes the attribute.
    ///
    /// A field that an entity with `#[entity(key_fields = "keys")]` writes only inside its keys
    /// (see [`KeyFields`](crate::schema::KeyFields)) has no attribute to set: only the keys that
    /// hold it are rewritten, and reads take the field from them. An attribute of the same
    /// name that another client wrote keeps its old value (see
    /// [`KeyFields::Keys`](crate::schema::KeyFields::Keys)). Under the default
    /// (`key_fields = "attributes"`) the attribute and every key that holds the field are
    /// rewritten in the one request.
    ///
    /// A field renamed with `#[entity(alias = "title", write_alias)]` (the expand phase of a
    /// rename) sets its alias attribute to the same value in the same request, and `None`
    /// removes both: old code, which reads `title`, sees the write. Other actions
    /// ([`add`](Self::add), list and set actions, [`set_if_absent`](Self::set_if_absent)) change
    /// the field's own attribute only. See
    /// [Renaming a field](crate::guide::rolling_deploys#renaming-a-field-under-a-rolling-deploy).
    pub fn set<T: Attribute, M: NotUnique + NotKey + NotMaintained>(
        mut self,
        field: Field<E, T, M>,
        value: &T,
    ) -> Self {
        let field = field.settable();
        if E::SCHEMA.key_only(field.name) {
            self.record_part(&field, value);
            return self;
        }
        match value.to_attribute() {
            Ok(Some(v)) => {
                self.check_value(field.attribute, &v);
                // A value whose attribute text is its key part is written once, for both.
                if let (true, Some(_), AttributeValue::S(text)) = (T::__TEXT_IS_PART, field.part, &v) {
                    let numbered = number_form_used(E::schema(), field.name);
                    let text = PartText {
                        present: true,
                        composite: Some(text.clone()),
                        number: numbered.then(|| text.clone()),
                    };
                    self.actions.push((field.name, field.attribute, Action::Set(v)));
                    self.put_part(field.name, Ok(text));
                    return self;
                }
                self.actions.push((field.name, field.attribute, Action::Set(v)))
            }
            Ok(None) => self.actions.push((field.name, field.attribute, Action::Remove)),
            Err(source) => self.encode_failed(field.name, field.attribute, value, source),
        }
        self.record_part(&field, value);
        self
    }

    fn number(
        &mut self,
        field: &'static str,
        attribute: &'static str,
        op: char,
        amount: Result<Option<AttributeValue>, crate::value::ValueError>,
    ) {
        if E::SCHEMA.key_only(field) {
            self.fail(Error::Invalid {
                reason: format!(
                    "{}.{field} is stored only inside its keys (`key_fields = \"keys\"`): there is no attribute to \
                     add to; set it instead",
                    E::TYPE
                ),
            });
            return;
        }
        match amount {
            Ok(Some(v @ AttributeValue::N(_))) => self.actions.push((field, attribute, Action::Arith(op, v))),
            Ok(_) => self.fail(Error::Invalid { reason: format!("{}.{field} is not a number", E::TYPE) }),
            Err(source) => self.fail(Error::Encode { entity: E::TYPE, field, attribute, source }),
        }
    }

    /// Adds `amount` to a number field atomically (`SET f = if_not_exists(f, 0) + amount`;
    /// a negative amount subtracts). A GSI sort key that is exactly this field (such as
    /// `<downloads>`) is moved by the same amount in the same request.
    ///
    /// Adding to a field that is one part of a composite key template is rejected before
    /// sending: the new key text would depend on the stored value.
    ///
    /// The result must stay within `T`'s range: the request carries a condition that makes
    /// DynamoDB refuse it otherwise, reported as [`Error::OutOfRange`].
    pub fn add<T: Number, M: NotUnique + NotKey + NotMaintained>(mut self, field: Field<E, T, M>, amount: &T) -> Self {
        self.number(field.name, field.attribute, '+', amount.to_attribute());
        self.bounds.insert(field.name, T::update_bounds(amount, '+'));
        self
    }

    /// Subtracts `amount` from a number field atomically (`SET f = if_not_exists(f, 0) - amount`),
    /// with the same key handling and range guard as [`add`](Self::add): an unsigned counter
    /// never goes below zero.
    pub fn subtract<T: Number, M: NotUnique + NotKey + NotMaintained>(
        mut self,
        field: Field<E, T, M>,
        amount: &T,
    ) -> Self {
        self.number(field.name, field.attribute, '-', amount.to_attribute());
        self.bounds.insert(field.name, T::update_bounds(amount, '-'));
        self
    }

    /// Removes an optional field's attribute (`REMOVE f`); the same as `set(field, &None)`.
    pub fn remove<T: Attribute, M: NotUnique + NotKey + NotMaintained>(self, field: Field<E, Option<T>, M>) -> Self {
        self.set(field, &None)
    }

    /// Sets the field only if the item does not have it yet (`SET f = if_not_exists(f, value)`).
    /// Not available for fields used in a GSI or LSI key (the new key would depend on the stored
    /// value): an error before sending.
    pub fn set_if_absent<T: Attribute, M: NotUnique + NotKey + NotMaintained>(
        mut self,
        field: Field<E, T, M>,
        value: &T,
    ) -> Self {
        let field = field.settable();
        if field.part.is_some() && !(self.upsert && upsert::if_absent_keeps_keys(E::schema(), field.name)) {
            self.fail(Error::Invalid {
                reason: format!("{}.{} is part of a GSI key; set it instead of set_if_absent", E::TYPE, field.name),
            });
            return self;
        }
        match value.to_attribute() {
            Ok(Some(v)) => {
                self.check_value(field.attribute, &v);
                self.actions.push((field.name, field.attribute, Action::SetIfNotExists(v)))
            }
            Ok(None) => {}
            Err(source) => self.encode_failed(field.name, field.attribute, value, source),
        }
        self
    }

    /// Checks a value set on `attribute` before it is sent: a multi-attribute key part's type,
    /// a vector's dimensions and elements. Each failure is recorded ([`fail`](Self::fail)).
    fn check_value(&mut self, attribute: &'static str, v: &AttributeValue) {
        if let Err(e) = crate::schema::multi_key::check_attribute(E::schema(), attribute, v) {
            self.fail(e);
        }
        let key = || match &self.key {
            Ok(key) => E::NAMES.show_key(key),
            Err(_) => "<key not encoded>".to_owned(),
        };
        if let Err(e) = crate::schema::vector::check_vector_attribute(E::SCHEMA.vectors, E::TYPE, attribute, v, &key) {
            self.fail(e);
        }
    }

    /// Records [`Error::Encode`] for a value of `field` that could not be encoded. A vector
    /// (`Vec<f32>` or `Option<Vec<f32>>` of a vector index's attribute) with an element that is
    /// no finite number gets the message a put gets
    /// ([`check_vector`](crate::schema::vector::check_vector)): the item's key, the element's
    /// index and value.
    fn encode_failed<T: Attribute>(
        &mut self,
        field: &'static str,
        attribute: &'static str,
        value: &T,
        mut source: crate::value::ValueError,
    ) {
        let index = E::SCHEMA.vectors.iter().find(|v| v.attribute == attribute);
        if let (Some(index), Ok(key)) = (index, &self.key) {
            let key = || E::NAMES.show_key(key);
            if let Some(elements) = value.__f32_elements() {
                if let Err(e) =
                    crate::schema::vector::check_vector(index, E::TYPE, &key, elements.iter().map(|x| Ok(*x)))
                {
                    return self.fail(e);
                }
            }
            source = crate::value::ValueError::Invalid(format!("item {}: {source}", key()));
        }
        self.fail(Error::Encode { entity: E::TYPE, field, attribute, source })
    }

    fn list(
        mut self,
        field: &'static str,
        attribute: &'static str,
        items: Result<Option<AttributeValue>, crate::value::ValueError>,
        at_end: bool,
    ) -> Self {
        match items {
            Ok(Some(v @ AttributeValue::L(_))) => self.actions.push((field, attribute, Action::Append(v, at_end))),
            Ok(_) => self.fail(Error::Invalid { reason: format!("{}.{field} is not a list", E::TYPE) }),
            Err(source) => self.fail(Error::Encode { entity: E::TYPE, field, attribute, source }),
        }
        self
    }

    /// Appends `items` to a list field (`SET f = list_append(if_not_exists(f, []), items)`).
    pub fn append<T: Attribute, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, Vec<T>, M>,
        items: &[T],
    ) -> Self {
        let v = T::__list_to(items).map(Some);
        self.list(field.name, field.attribute, v, true)
    }

    /// Puts `items` in front of a list field (`SET f = list_append(items, if_not_exists(f, []))`).
    pub fn prepend<T: Attribute, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, Vec<T>, M>,
        items: &[T],
    ) -> Self {
        let v = T::__list_to(items).map(Some);
        self.list(field.name, field.attribute, v, false)
    }

    fn set_op<S: Attribute>(mut self, field: Field<E, S, Mutable>, items: &S, add: bool) -> Self {
        match items.to_attribute() {
            // An empty set changes nothing (DynamoDB cannot even hold one).
            Ok(None) => {}
            Ok(Some(v)) => {
                let action = if add { Action::SetAdd(v) } else { Action::SetDelete(v) };
                self.actions.push((field.name, field.attribute, action));
            }
            Err(source) => {
                self.fail(Error::Encode { entity: E::TYPE, field: field.name, attribute: field.attribute, source })
            }
        }
        self
    }

    /// Adds elements to a set field (`ADD f items`); the set is created when absent. The field
    /// is a `BTreeSet` or a `HashSet` ([`SetField`](elements::SetField)) of strings, numbers or
    /// byte strings (`SS` / `NS` / `BS`); an empty `items` changes nothing.
    pub fn insert_into<S: elements::SetField, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, S, M>,
        items: &S,
    ) -> Self {
        self.set_op(field.settable(), items, true)
    }

    /// Removes elements from a set field (`DELETE f items`); removing the last element removes
    /// the attribute, which reads back as an empty set. A `BTreeSet` or a `HashSet` field.
    pub fn delete_from<S: elements::SetField, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, S, M>,
        items: &S,
    ) -> Self {
        self.set_op(field.settable(), items, false)
    }

    /// Only update when `condition` holds (on top of the item existing); otherwise
    /// [`Error::ConditionFailed`]. Several calls are combined with AND.
    pub fn condition(mut self, condition: Condition) -> Self {
        self.condition = Some(match self.condition.take() {
            Some(c) => c.and(condition),
            None => condition,
        });
        self
    }

    /// Only update when the stored version (`#[entity(version)]`) is `version`, the version the
    /// item was read with: the request's condition gets `version = :v` (for 0:
    /// `attribute_not_exists(version)`, an item stored without a version). Like every update of a
    /// versioned entity, it stores the next version in the same request
    /// (`SET version = if_not_exists(version, 0) + 1`), and returns it with the item.
    ///
    /// A stored version that differs is [`Error::VersionConflict`] (nothing changed); an entity
    /// without a version field is [`Error::Invalid`] before sending. See
    /// [`versioning`].
    pub fn if_version(mut self, version: u64) -> Self {
        self.version = VersionCheck::Is(version);
        self
    }

    /// Updates a versioned entity whatever its stored version (its `#[entity(version)]` field,
    /// for optimistic locking; not the schema version of `#[entity(schema(version = N))]`), still
    /// storing the next version,
    /// so that writers holding an older version lose their race. For changes that do not depend
    /// on what was read, such as an atomic counter (`add`). An entity without a version field is
    /// [`Error::Invalid`] before sending.
    pub fn any_version(mut self) -> Self {
        self.version = VersionCheck::Any;
        self
    }

    /// The actions the library adds to every update of `E`: the version bump and `updated_at`.
    /// Returns the version the update expects, if it checks one.
    fn maintain(&mut self) -> Result<Option<(VersionSchema, u64)>, Error> {
        let schema = E::schema();
        let mut expected = None;
        match (&schema.version, self.version) {
            (None, VersionCheck::Unset) => {}
            (None, _) => {
                return Err(Error::Invalid {
                    reason: format!(
                        "{} has no `#[entity(version)]` field, so an update of it cannot check a version",
                        E::TYPE
                    ),
                });
            }
            (Some(v), VersionCheck::Unset) => {
                return Err(Error::Invalid {
                    reason: format!(
                        "{} is versioned for optimistic locking (field `{}`): every update must say which version \
                         it applies to, with `.if_version(v)` (the version the item was read with) or \
                         `.any_version()` (any; for a change that does not depend on what was read, such as a counter)",
                        E::TYPE,
                        v.field
                    ),
                });
            }
            (Some(v), check) => {
                if let VersionCheck::Is(current) = check {
                    // The next version is known to fit: no range guard needed.
                    versioning::check_bump(E::TYPE, v, current)?;
                    expected = Some((*v, current));
                } else {
                    // DynamoDB refuses a bump past the type's range (Error::OutOfRange).
                    self.bounds.insert(v.field, (None, Some(v.max.saturating_sub(1).to_string()), true));
                }
                self.actions.push((v.field, v.attribute, Action::Arith('+', AttributeValue::N("1".to_owned()))));
            }
        }
        if let Some(updated) = &schema.updated_at {
            self.actions.push((updated.field, updated.attribute, Action::Set(versioning::now_value())));
        }
        Ok(expected)
    }

    /// Builds the request without sending it: the key, expressions, names and values.
    ///
    /// # Errors
    /// [`Error::Invalid`] / [`Error::Key`] / [`Error::Encode`]: nothing can be sent.
    pub(crate) fn prepare(self) -> Result<(PreparedUpdate, Table), Error> {
        self.prepare_with(None)
    }

    /// As [`prepare`](Self::prepare); with `token`, the update also shifts the item's write
    /// history ([`write_token`](crate::write_token)), counted against the limits.
    fn prepare_with(mut self, token: Option<&WriteToken>) -> Result<(PreparedUpdate, Table), Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.actions.is_empty() && self.parts.is_empty() {
            return Err(Error::Invalid { reason: format!("an update of {} must change at least one field", E::TYPE) });
        }
        // The multi-attribute GSI key attributes this update sets, against the aggregate limits.
        crate::schema::multi_key::check_update(E::schema(), |attribute| {
            self.actions.iter().find_map(|(_, a, action)| match action {
                Action::Set(v) if *a == attribute => Some(v),
                _ => None,
            })
        })?;
        let version = self.maintain()?;
        let Built { mut update, condition, placeholders: mut ph, library: added, mut set_bytes, cannot_create } =
            self.build()?;
        if self.upsert && cannot_create.is_none() {
            // An upsert that can create its item: not of an entity with a required unique field.
            upsert::refuse_unique(E::schema())?;
        }
        let (mut names, mut values) = (ph.take_names(), ph.take_values());
        if let Some(token) = token {
            let shift = crate::write_token::shift_history(
                names.get_or_insert_with(HashMap::new),
                values.get_or_insert_with(HashMap::new),
                token,
            );
            update = crate::write_token::with_shift(&update, shift);
            set_bytes += crate::write_token::HISTORY_BYTES;
        }
        let key = self.key?;
        let arith = self
            .actions
            .iter()
            .filter_map(|(field, attribute, action)| match action {
                Action::Arith(op, AttributeValue::N(amount)) => {
                    Some((*field, *attribute, *op, amount.clone(), self.bounds.get(field).cloned()?))
                }
                _ => None,
            })
            .collect();
        let prepared = PreparedUpdate {
            creates: self.upsert && cannot_create.is_none(),
            cannot_create,
            schema: E::schema().schema_version.map(|_| E::schema()),
            arith,
            version,
            entity: E::TYPE,
            type_attribute: E::NAMES.entity_type,
            attribute_names: E::NAMES,
            key_text: None,
            partition_end: 0,
            key: {
                // The key's values move into the request's key (no copies).
                let mut item = HashMap::with_capacity(2);
                item.insert(E::NAMES.pk.to_owned(), key.pk);
                item.insert(E::NAMES.sk.to_owned(), key.sk);
                item
            },
            update,
            condition,
            names,
            values,
        };
        // The updated item holds the key, the type attribute (which the condition requires, or
        // an upsert writes) and what the update sets: when they alone are over 400 KB,
        // DynamoDB would refuse the update ("Item size to update has exceeded the maximum
        // allowed size").
        let type_bytes = if E::NAMES.has_entity_type() { E::NAMES.entity_type.len() + E::TYPE.len() } else { 0 };
        crate::schema::size::check_update_size(E::NAMES, E::TYPE, &prepared.key, set_bytes + type_bytes)?;
        prepared.check_limits(added, token)?;
        Ok((prepared, self.table))
    }

    /// Sends the update and returns the item as it is afterwards (`ReturnValues = ALL_NEW`).
    /// An updated item that does not decode as `E` (written by another client, say) is
    /// `Ok(Returned::Undecodable(..))` with the item and the decode error: the update was
    /// applied, and must not be sent again (see [`Returned`]).
    ///
    /// # Errors
    /// [`Error::Invalid`] / [`Error::Key`] / [`Error::Encode`] / [`Error::ItemTooLarge`] (the
    /// key and the values set over 400 KB) / [`Error::LimitExceeded`] before sending;
    /// [`Error::NotFound`] when there is no item with this key; [`Error::ConditionFailed`] when
    /// the condition does not hold; [`Error::UpgradeRequired`] (nothing written) when the item
    /// is stored at another schema version of a versioned entity (earlier or newer);
    /// [`Error::OutcomeUnknown`] when an attempt lost its answer and the library cannot tell
    /// whether it was applied (see [`write_token`](crate::write_token)); [`Error::Sdk`].
    pub async fn send(self) -> Result<Returned<E>, Error> {
        self.send_returning(ReturnValue::AllNew).await
    }

    /// As [`send`](Self::send), returning the item as it was before the update
    /// (`ReturnValues = ALL_OLD`; no extra capacity).
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn send_returning_old(self) -> Result<Returned<E>, Error> {
        self.send_returning(ReturnValue::AllOld).await
    }

    /// The `UpdateItem` request [`send`](Self::send) would send (`ReturnValues = ALL_NEW`),
    /// built by the same code, without sending it: the key, the update and condition
    /// expressions with their names and values (GSI key rewrites, version bump and
    /// `updated_at` included). An `updated_at` field makes it differ from one call to the next
    /// (the time is now). [`Request::to_json`](crate::table::render::Request::to_json) gives a
    /// deterministic text for snapshot tests.
    ///
    /// It leaves out the write history that `send` adds on a handle with write tokens
    /// ([`write_token`](crate::write_token)): four `SET` actions (about 130 bytes of update
    /// expression, 76 bytes of item), which `send` counts against DynamoDB's limits.
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending.
    pub fn render(self) -> Result<UpdateItemInput, Error> {
        let (mut p, table) = self.prepare()?;
        // Nothing is sent, so no error will need the key's text (see `keep_key_text`).
        crate::table::render::built(p.request(&table, ReturnValue::AllNew).build())
    }

    async fn send_returning(self, returning: ReturnValue) -> Result<Returned<E>, Error> {
        Ok(match self.send_item(returning).await? {
            Ok(item) => crate::schema::entity::returned::<E>(item),
            Err(key) => Returned::Lost { entity: E::TYPE, key },
        })
    }

    /// As [`send_returning`](Self::send_returning), for `ALL_OLD` of a write that may have
    /// created the item (an upsert): `None` when there was none.
    pub(crate) async fn send_returning_option(self, returning: ReturnValue) -> Result<Returned<Option<E>>, Error> {
        Ok(match self.send_item(returning).await? {
            Ok(item) => crate::schema::entity::returned_option::<E>(Some(item)),
            Err(key) => Returned::Lost { entity: E::TYPE, key },
        })
    }

    /// Sends the update; the item it returns (empty when none), or `Err(key text)` when a
    /// resend found it applied by an earlier attempt whose answer, and so the item it
    /// returns, was lost (see [`write_token`](crate::write_token)).
    async fn send_item(self, returning: ReturnValue) -> Result<Result<crate::schema::Item, String>, Error> {
        // An index key rebuilt from what the item holds: its other parts are read first, and
        // read again when another writer changed them in between (see `stored`).
        let missing = if self.upsert || self.error.is_some() { Vec::new() } else { self.missing_key_fields() };
        let contended = |key, rounds| Error::Contended { operation: "UpdateItem", entity: E::TYPE, key, rounds };
        if missing.is_empty() {
            return match self.send_once(returning).await? {
                Once::Done(sent) => Ok(sent),
                Once::StoredChanged(key) => Err(contended(key, 1)),
            };
        }
        let (mut next, mut last) = (self.copy(), String::new());
        for _ in 0..stored::READS {
            let Some(mut this) = next.take() else { break };
            next = this.copy();
            this.read_missing(&missing).await?;
            match this.send_once(returning.clone()).await? {
                Once::Done(sent) => return Ok(sent),
                Once::StoredChanged(key) => last = key,
            }
        }
        Err(contended(last, stored::READS))
    }

    /// A copy of the update before it is built (an update's build moves its values out), when
    /// it holds no error.
    fn copy(&self) -> Option<Self> {
        if self.error.is_some() {
            return None;
        }
        Some(UpdateRequest {
            table: self.table.clone(),
            key: Ok(self.key.as_ref().ok()?.clone()),
            actions: self.actions.clone(),
            parts: self.parts.clone(),
            bounds: self.bounds.clone(),
            condition: self.condition.clone(),
            version: self.version,
            upsert: self.upsert,
            stored: None,
            error: None,
            _entity: std::marker::PhantomData,
        })
    }

    /// Sends the update once: what DynamoDB did, or [`Once::StoredChanged`] when the
    /// attributes it read to rebuild index keys changed before it was applied (nothing
    /// written).
    async fn send_once(self, returning: ReturnValue) -> Result<Once, Error> {
        let read = self.stored.as_ref().map(|s| s.read.clone());
        let token = WriteToken::new();
        let history = self.table.writes().tokens.then_some(&token);
        let (mut p, table) = self.prepare_with(history)?;
        p.keep_key_text();
        let key = p.key.clone();
        let new_item = returning == ReturnValue::AllNew;
        let (request, parts) = p.write(&table, returning);
        let request = Write::of_parts(request, parts);
        let item = p.key_text();
        let answered = table.writes().answered.before(&item);
        let unknown = |p: &PreparedUpdate, token, e| {
            table.outcome_unknown("UpdateItem", E::TYPE, p.key_text(), key.clone(), token, answered, false, e)
        };
        let mut token = token;
        let (e, lost) = match table
            .send_write_request(
                Call::new("UpdateItem", E::TYPE),
                request,
                &mut token,
                E::NAMES.pk,
                &item,
                answered,
                true,
            )
            .await
        {
            Sent::Contended => {
                let rounds = crate::table::resend::ORDER_ROUNDS;
                return Err(Error::Contended { operation: "UpdateItem", entity: E::TYPE, key: item, rounds });
            }
            Sent::Answered { result: Ok(resp), .. } => return Ok(Once::Done(Ok(resp.attributes.unwrap_or_default()))),
            Sent::Answered { result: Err(e), lost } => (e, lost),
            Sent::Unknown(e) => return Err(unknown(&p, token, e)),
        };
        match e {
            SdkError::ServiceError(e) if e.err().is_conditional_check_failed_exception() => {
                let old = match e.err() {
                    aws_sdk_dynamodb::operation::update_item::UpdateItemError::ConditionalCheckFailedException(c) => {
                        c.item().filter(|i| !i.is_empty()).cloned()
                    }
                    _ => None,
                };
                if let Some(lost) = lost {
                    // No item: the earlier attempt may have updated one deleted since.
                    match crate::write_token::seen(old.as_ref(), &token, answered.as_ref()) {
                        // The item as the earlier attempt left it: what `ALL_NEW` returns.
                        Seen::Applied { latest: true } if new_item => {
                            return Ok(Once::Done(Ok(old.unwrap_or_default())));
                        }
                        Seen::Applied { .. } => return Ok(Once::Done(Err(p.key_text()))),
                        Seen::CannotTell => return Err(unknown(&p, token, *lost)),
                        Seen::NotApplied => {}
                    }
                }
                if read.is_some_and(|read| stored::changed_since(&read, old.as_ref())) {
                    return Ok(Once::StoredChanged(p.key_text()));
                }
                Err(p.failure(old))
            }
            SdkError::ServiceError(e) if crate::error::service::operand_type_refused(e.err()) => {
                Err(Error::StoredTypeMismatch {
                    operation: "UpdateItem",
                    entity: E::TYPE,
                    key: p.key_text(),
                    attributes: p.arith.iter().map(|a| a.1).collect(),
                    source: Box::new(e.into_err().into()),
                })
            }
            e => Err(Error::sdk("UpdateItem", e).on_partition(E::TYPE, &p.key_text(), p.partition_text())),
        }
    }
}

/// How one send of an update ended ([`UpdateRequest::send_once`]).
enum Once {
    /// DynamoDB's answer: the item, or the key text of an update applied by an earlier attempt.
    Done(Result<crate::schema::Item, String>),
    /// The attributes read to rebuild index keys changed before the update was applied: the
    /// item's key as `PK=… SK=…`.
    StoredChanged(String),
}

impl PreparedUpdate {
    /// Checks DynamoDB's limits on the update's expressions and substitutions (see
    /// [`limits`](crate::limits)); the condition's first `library` bytes are the library's own.
    /// With `token`, the condition is checked as the write's largest attempt sends it: a
    /// resend, with the history's guard ([`write_token::guard`](crate::write_token::guard)),
    /// counted as the library's own.
    pub(crate) fn check_limits(&self, library: usize, token: Option<&WriteToken>) -> Result<(), Error> {
        let error = |e: limits::Exceeded| e.request("UpdateItem", self.entity, self.key_text());
        let Some(token) = token else {
            let expressions = [
                ("UpdateExpression", self.update.as_str(), true, 0),
                ("ConditionExpression", self.condition.as_str(), false, library),
            ];
            return limits::check_request(&expressions, self.names.as_ref(), self.values.as_ref()).map_err(error);
        };
        // Every update's guard is the same text: when the request surely fits with it, it fits;
        // near a limit, the request is checked as its resend sends it.
        let guard = crate::write_token::resend_guard(self.attribute_names.pk.len());
        if limits::surely_fits(&self.update, &self.condition, self.names.as_ref(), self.values.as_ref(), &guard) {
            return Ok(());
        }
        let (mut names, mut values) = (self.names.clone().unwrap_or_default(), self.values.clone().unwrap_or_default());
        let own = crate::write_token::guard_own(
            &mut names,
            &mut values,
            token,
            self.attribute_names.pk,
            Some(token),
            crate::write_token::Attempt::Resend,
        );
        // The guard first, so that the library's share is one prefix.
        let condition =
            if self.condition.is_empty() { own.to_string() } else { format!("{own} AND ({})", self.condition) };
        let share = if self.condition.is_empty() { own.len() } else { own.len() + 6 + library };
        let expressions = [
            ("UpdateExpression", self.update.as_str(), true, 0),
            ("ConditionExpression", condition.as_str(), false, share),
        ];
        limits::check_request(&expressions, Some(&names), Some(&values)).map_err(error)
    }

    /// The key as `PK=… SK=…`, for errors: built from the key when asked, unless
    /// [`keep_key_text`](Self::keep_key_text) kept it before the key moved into a request.
    pub(crate) fn key_text(&self) -> String {
        if let Some(text) = &self.key_text {
            return text.clone();
        }
        let part = |attribute: &str| self.key.get(attribute).cloned().unwrap_or(AttributeValue::Null(true));
        let names = self.attribute_names;
        names.show_key(&PrimaryKey { pk: part(names.pk), sk: part(names.sk) })
    }

    /// Keeps the key's text for the errors of a request about to be sent ([`request`](Self::request)
    /// moves the key into it). Only a request that is sent needs it, so a rendered one does
    /// not pay for it.
    pub(crate) fn keep_key_text(&mut self) {
        let names = self.attribute_names;
        let text = self.key_text();
        // `PK=<value>` is the text's start (see `AttributeNames::show_key`).
        self.partition_end = self.key.get(names.pk).map_or(0, |pk| names.show_partition_len(pk));
        self.key_text = Some(text);
    }

    /// The partition key as `PK=…`, for errors; empty before [`keep_key_text`](Self::keep_key_text).
    pub(crate) fn partition_text(&self) -> &str {
        self.key_text.as_deref().and_then(|t| t.get(..self.partition_end)).unwrap_or_default()
    }

    /// The `UpdateItem` request on `table`. Moves the key, expressions, names and values out of
    /// `self` (what errors need stays).
    fn request(&mut self, table: &Table, returning: ReturnValue) -> UpdateItemInputBuilder {
        let (request, parts) = self.write(table, returning);
        crate::table::resend::WriteRequest::with(request, parts, false)
    }

    /// [`request`](Self::request) without its condition, names and values, and those, as the
    /// resend loop keeps a write ([`Write`]): moved, not copied.
    fn write(&mut self, table: &Table, returning: ReturnValue) -> (UpdateItemInputBuilder, Parts) {
        let request = aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
            .table_name(table.name())
            .set_key(Some(std::mem::take(&mut self.key)))
            .update_expression(std::mem::take(&mut self.update))
            .return_values(returning)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        let parts = Parts {
            condition: Some(std::mem::take(&mut self.condition)),
            names: self.names.take(),
            values: self.values.take(),
        };
        (request, parts)
    }

    /// What a failed condition means, from the item as it was (`None`: no item).
    pub(crate) fn failure(&self, old: Option<crate::schema::Item>) -> Error {
        let (entity, key) = (self.entity, self.key_text());
        let Some(old) = old else {
            if let Some(reason) = &self.cannot_create {
                return Error::CannotCreate { entity, key, reason: reason.clone() };
            }
            if !self.creates {
                return Error::NotFound { entity, key };
            }
            // An upsert found no item: its version check, a range guard (its counters count
            // from 0) or its own condition failed.
            if let Some((version, expected)) = &self.version {
                if let Some(found) = versioning::mismatch(version, *expected, None) {
                    return Error::VersionConflict { entity, key, expected: *expected, found };
                }
            }
            if let Some(e) = self.out_of_range(None) {
                return e;
            }
            return Error::ConditionFailed { entity, key };
        };
        match old.get(self.type_attribute) {
            _ if self.type_attribute.is_empty() => {}
            Some(AttributeValue::S(t)) if t == entity => {}
            other => {
                return Error::WrongEntity { expected: entity, found: other.map(crate::schema::describe_value), key };
            }
        }
        if let Some(schema) = self.schema {
            let operation = if self.creates || self.cannot_create.is_some() { "upsert" } else { "update" };
            let current = schema.schema_version.map_or(0, |v| v.version);
            match crate::schema::evolve::stored_version(&old, schema) {
                Ok(crate::schema::evolve::Stored::Current) => {}
                Ok(crate::schema::evolve::Stored::Earlier) => {
                    let stored = crate::schema::evolve::version_of_item(&old, schema).unwrap_or_default();
                    return Error::UpgradeRequired { operation, entity, key, stored, current };
                }
                // Stored by a newer program: refused and not written, as a put would be.
                Err(Error::SchemaVersion { stored, .. }) if stored > u64::from(current) => {
                    return Error::UpgradeRequired { operation, entity, key, stored, current };
                }
                Err(e) => return e,
            }
        }
        if let Some((version, expected)) = &self.version {
            if let Some(found) = versioning::mismatch(version, *expected, Some(&old)) {
                return Error::VersionConflict { entity, key, expected: *expected, found };
            }
        }
        if let Some(e) = self.out_of_range(Some(&old)) {
            return e;
        }
        Error::ConditionFailed { entity, key }
    }

    /// [`Error::OutOfRange`] for the first `add`/`subtract` whose range guard the stored value
    /// fails: the value in `old`, `0` where it has none (`None`: an upsert's new item), as the
    /// update's `if_not_exists(field, 0)` counts.
    fn out_of_range(&self, old: Option<&crate::schema::Item>) -> Option<Error> {
        self.arith.iter().find_map(|(field, attribute, op, amount, bounds)| {
            let stored = match old.and_then(|o| o.get(*attribute)) {
                Some(AttributeValue::N(stored)) => stored.as_str(),
                _ => "0",
            };
            out_of_range(stored, *op, amount, bounds).then(|| Error::OutOfRange {
                entity: self.entity,
                key: self.key_text(),
                field,
                stored: stored.to_owned(),
                op: *op,
                amount: amount.clone(),
            })
        })
    }
}

/// Whether `stored op amount` breaks the bounds (compared as exact decimals).
fn out_of_range(stored: &str, _op: char, _amount: &str, bounds: &(Option<String>, Option<String>, bool)) -> bool {
    let cmp = |a: &str, b: &str| crate::value::compare_numbers(a, b);
    let below = bounds.0.as_deref().is_some_and(|low| cmp(stored, low) == std::cmp::Ordering::Less);
    let above = bounds.1.as_deref().is_some_and(|high| cmp(stored, high) == std::cmp::Ordering::Greater);
    below || above
}

/// An `UpdateItem` built and checked, ready to send alone or as a transaction action.
#[derive(Debug, Clone)]
pub(crate) struct PreparedUpdate {
    /// An upsert: a failed condition with no item is not [`Error::NotFound`].
    pub creates: bool,
    /// An upsert that cannot create its item (see [`Error::CannotCreate`]): why.
    pub cannot_create: Option<String>,
    /// The schema of an updated or upserted entity with a schema version, whose condition
    /// requires a stored item of that version: to explain a failed condition
    /// ([`Error::UpgradeRequired`]).
    pub schema: Option<&'static EntitySchema>,
    /// The entity type name.
    pub entity: &'static str,
    /// The entity type attribute ([`AttributeNames::entity_type`](crate::AttributeNames)).
    pub type_attribute: &'static str,
    /// The table's attribute names (the key's, for its text).
    pub attribute_names: &'static crate::schema::AttributeNames,
    /// The key as `PK=… SK=…`, once kept by [`keep_key_text`](Self::keep_key_text); read it
    /// with [`key_text`](Self::key_text).
    pub key_text: Option<String>,
    /// The length of the partition key's text (`PK=…`) at the start of `key_text`.
    pub partition_end: usize,
    /// `{PK, SK}`.
    pub key: crate::schema::Item,
    /// `UpdateExpression`.
    pub update: String,
    /// `ConditionExpression`: always includes `attribute_exists(PK)`.
    pub condition: String,
    /// `ExpressionAttributeNames`.
    pub names: Option<HashMap<String, String>>,
    /// `ExpressionAttributeValues`.
    pub values: Option<HashMap<String, AttributeValue>>,
    /// For an update of a versioned entity with `if_version`: the version field and the version
    /// expected, to explain a failed condition.
    pub version: Option<(VersionSchema, u64)>,
    /// The `add` / `subtract` actions and their range guards, to explain a failed condition:
    /// field, attribute, operator, amount, bounds.
    #[allow(clippy::type_complexity)]
    pub arith: Vec<(&'static str, &'static str, char, String, (Option<String>, Option<String>, bool))>,
}

/// `list` ready for one more item: `, ` after the items it has.
fn next(list: &mut String) -> &mut String {
    if !list.is_empty() {
        list.push_str(", ");
    }
    list
}

/// Appends each piece to `out`.
fn push_all(out: &mut String, pieces: &[&str]) {
    for piece in pieces {
        out.push_str(piece);
    }
}

impl<D> Table<D> {
    /// An update of the item with this key (`UpdateItem`); see [`UpdateRequest`].
    pub fn update<E: Entity>(&self, key: Key<E>) -> UpdateRequest<E>
    where
        D: crate::schema::Admits<E>,
    {
        UpdateRequest::new(self.untyped(), key)
    }
}

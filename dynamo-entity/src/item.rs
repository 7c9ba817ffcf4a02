//! Operations on one item by its primary key: `GetItem`, `PutItem` (put, create, replace) and
//! `DeleteItem`, added to [`Table`] from here. An entity with unique fields writes through
//! transactions with its guard items ([`unique`](crate::unique)); a versioned entity writes on
//! the condition that the stored version is the one read ([`versioning`]).

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::delete_item::DeleteItemError;
use aws_sdk_dynamodb::operation::delete_item::builders::DeleteItemInputBuilder;
use aws_sdk_dynamodb::operation::get_item::GetItemInput;
use aws_sdk_dynamodb::operation::put_item::PutItemError;
use aws_sdk_dynamodb::operation::put_item::builders::PutItemInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValue};

use crate::error::{Error, Returned};
use crate::expr::Placeholders;
use crate::schema::entity::{returned, returned_option};
use crate::schema::evolve;
use crate::schema::{Admits, AttributeNames, Entity, Item, Key, PrimaryKey, VersionSchema};
use crate::table::render::{Request, built};
use crate::table::resend::{Sent, Write};
use crate::table::{Call, Op, RETURN_OLD_ON_FAILURE, Table, Untyped};
use crate::versioning::{self, Stamped, Writable};
use crate::write_token::{Seen, WriteToken};

/// What the `PutItem` of a put, create or replace came to ([`Table::send_put`]).
enum PutAnswer {
    /// Applied by this attempt, with the item it returned (`ReturnValues = ALL_OLD`), if any.
    Applied(Option<Item>),
    /// Applied by an earlier attempt whose answer was lost; what it returned went with it.
    AppliedEarlier,
    /// Not applied: the condition failed on the stored item (`None`: no item).
    ConditionFailed(Option<Item>),
}

/// Which of the three `PutItem` writes an operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PutKind {
    /// [`Table::put`]: create or overwrite an item of this entity type.
    Put,
    /// [`Table::create`]: only if no item has the key.
    Create,
    /// [`Table::replace`]: only if an item of this entity type has the key.
    Replace,
}

/// How one `PutItem` write is carried out, decided once for both `send` and `render`.
// The plan lives on the stack for one call; boxing the request would add an allocation to
// every write.
#[allow(clippy::large_enum_variant)]
enum PutPlan {
    /// One `PutItem` with its condition. The key is not copied out of the item here: a
    /// rendered request does not need it, a sent one takes it with `Table::planned_key`.
    Single { request: PutItemInputBuilder },
    /// An entity with unique fields: a strongly consistent read, then one transaction with the
    /// guard items of its unique values ([`unique`](crate::unique)).
    Unique(Stamped),
}

/// How one `DeleteItem` is carried out, decided once for both `send` and `render`.
#[allow(clippy::large_enum_variant)]
enum DeletePlan {
    /// One `DeleteItem` with its condition.
    Single { request: DeleteItemInputBuilder },
    /// An entity with unique fields: read, then delete the item and its guards in one
    /// transaction.
    Unique(PrimaryKey),
}

/// The item a planned `PutItem` writes (for [`Writable::decode_stored`]).
fn planned_item(request: &PutItemInputBuilder) -> &Item {
    static EMPTY: std::sync::OnceLock<Item> = std::sync::OnceLock::new();
    request.get_item().as_ref().unwrap_or_else(|| EMPTY.get_or_init(Item::new))
}

impl Table {
    /// The plan of a put, create or replace of `value`: stamped (version, timestamps) and
    /// encoded once.
    /// `token`: the write's, added to the item's write history ([`write_token`](crate::write_token));
    /// `None` for a rendered request or a handle without write tokens.
    fn put_plan<E: Entity>(&self, value: &E, kind: PutKind, token: Option<&WriteToken>) -> Result<PutPlan, Error> {
        if crate::unique::has_unique::<E>() {
            return Ok(PutPlan::Unique(versioning::stamp(value, kind == PutKind::Create)?));
        }
        let (_, request) = self.single_put(value, kind, token)?;
        Ok(PutPlan::Single { request })
    }

    /// The `PutItem` of a put, create or replace of `value` (an entity without unique fields),
    /// stamped and encoded once, and the version it expects stored.
    fn single_put<E: Entity>(
        &self,
        value: &E,
        kind: PutKind,
        token: Option<&WriteToken>,
    ) -> Result<(Option<u64>, PutItemInputBuilder), Error> {
        let versioning::Unkeyed { mut item, expected, size } =
            versioning::stamp_unkeyed(value, kind == PutKind::Create)?;
        if let Some(token) = token {
            crate::write_token::put_history(&mut item, token);
            // The 400 KB limit counts the history too.
            if size + crate::write_token::PUT_HISTORY_BYTES > crate::schema::size::MAX_ITEM_BYTES {
                crate::schema::size::check_item_size_in(E::NAMES, E::TYPE, &item)?;
            }
        }
        let request = match kind {
            PutKind::Put => self.put_request::<E>(item, expected),
            PutKind::Create => self.create_request(E::NAMES, item),
            PutKind::Replace => self.replace_request::<E>(item, expected),
        };
        Ok((expected, request))
    }

    /// The primary key of the item a planned `PutItem` of `value` writes, for the errors and
    /// write history of the request sent.
    fn planned_key<E: Entity>(value: &E, request: &PutItemInputBuilder) -> Result<PrimaryKey, Error> {
        versioning::key_of_item(value, planned_item(request))
    }

    /// The requests of a put plan, in the order `send` sends them.
    fn render_put<E: Entity>(&self, plan: PutPlan, kind: PutKind) -> Result<Vec<Request>, Error> {
        match plan {
            PutPlan::Single { request } => Ok(vec![Request::PutItem(built(request.build())?)]),
            PutPlan::Unique(w) => {
                crate::unique::render_write::<E>(self, &w, kind == PutKind::Create, kind == PutKind::Replace)
            }
        }
    }

    /// The plan of a delete of `key`; with `version`, only at that stored version.
    fn delete_plan<E: Entity>(&self, key: Key<E>, version: Option<u64>) -> Result<DeletePlan, Error> {
        let key = key.into_encoded()?;
        let checked = Self::checked_version::<E>(version)?;
        if crate::unique::has_unique::<E>() {
            return Ok(DeletePlan::Unique(key));
        }
        let request = match checked {
            None => self.delete_request::<E>(&key),
            Some((v, version)) => self.delete_version_request(E::NAMES, &key, v, version),
        };
        Ok(DeletePlan::Single { request })
    }

    /// The version field of `E` and the `version` a delete checks; `None` without `version`.
    ///
    /// # Errors
    /// [`Error::Invalid`] for a `version` of an entity without a version field.
    fn checked_version<E: Entity>(version: Option<u64>) -> Result<Option<(&'static VersionSchema, u64)>, Error> {
        match (version, &E::SCHEMA.version) {
            (None, _) => Ok(None),
            (Some(version), Some(v)) => Ok(Some((v, version))),
            (Some(_), None) => Err(Error::Invalid {
                reason: format!(
                    "{} has no `#[entity(version)]` field, so a delete of it cannot check a version",
                    E::TYPE
                ),
            }),
        }
    }

    /// The requests of a delete plan, in the order `send` sends them: for an entity with
    /// unique fields, the read (the transaction depends on what it returns).
    fn render_delete<E: Entity>(&self, plan: DeletePlan) -> Result<Vec<Request>, Error> {
        match plan {
            DeletePlan::Single { request } => Ok(vec![Request::DeleteItem(built(request.build())?)]),
            DeletePlan::Unique(key) => {
                Ok(vec![Request::GetItem(built(self.get_request(E::NAMES, &key, true).build())?)])
            }
        }
    }
}

impl Table {
    /// The body of [`Table::get`] and [`Table::get_consistent`].
    pub(crate) async fn get_with<E: Entity>(&self, key: Key<E>, consistent: bool) -> Result<Option<E>, Error> {
        let key = key.into_encoded()?;
        let request = crate::table::body::get_item(self.client(), self.get_request(E::NAMES, &key, consistent));
        let resp = self
            .execute(Call::new("GetItem", E::TYPE), request)
            .await
            .map_err(|e| Error::sdk("GetItem", e).on_item(E::TYPE, E::NAMES, &key))?;
        resp.item.map(|item| E::from_item(&item)).transpose()
    }

    /// The body of [`Table::put`], [`Table::create`] and [`Table::replace`] of an entity with
    /// unique fields ([`unique`](crate::unique)): the item replaced, for a replace.
    async fn put_guarded<V: Writable>(&self, mut value: V, kind: PutKind) -> Result<Option<Item>, Error> {
        let w = versioning::stamp(value.value(), kind == PutKind::Create)?;
        let stored = value.decode_stored(&w.item)?;
        let old = match kind {
            PutKind::Create => crate::unique::create::<V::Entity>(self, &w).await.map(|()| None)?,
            PutKind::Put => crate::unique::put::<V::Entity>(self, &w, false).await?,
            PutKind::Replace => crate::unique::put::<V::Entity>(self, &w, true).await?,
        };
        value.set_stored(stored);
        Ok(old)
    }

    /// The body of [`Table::put`] of an entity without unique fields.
    pub(crate) async fn put_value<V: Writable>(&self, mut value: V) -> Result<(), Error> {
        let token = WriteToken::new();
        let (expected, request) = self.single_put(value.value(), PutKind::Put, self.tokens(&token))?;
        let key = Self::planned_key(value.value(), &request)?;
        let stored = value.decode_stored(planned_item(&request))?;
        match self.send_put::<V::Entity>(&key, request, token).await? {
            PutAnswer::Applied(_) | PutAnswer::AppliedEarlier => {
                value.set_stored(stored);
                Ok(())
            }
            PutAnswer::ConditionFailed(old) => {
                if let Some(other) =
                    old.as_ref().and_then(|o| crate::owner::other_entity(V::Entity::NAMES, o, V::Entity::TYPE))
                {
                    return Err(Error::WrongEntity {
                        expected: V::Entity::TYPE,
                        found: other,
                        key: V::Entity::NAMES.show_key(&key),
                    });
                }
                // Stored at a newer schema version: not written, whatever else holds.
                if let Some(e) = old.as_ref().and_then(|o| evolve::newer_stored(V::Entity::schema(), &key, "put", o)) {
                    return Err(e);
                }
                // Otherwise the stored version is not the value's.
                Err(versioning::lost(V::Entity::schema(), &key, expected.unwrap_or_default(), old.as_ref()))
            }
        }
    }

    /// Sends the `PutItem` of a put, create or replace of `E` at `key` with `token` (see
    /// [`write_token`](crate::write_token)): what it came to, judged once for the three.
    ///
    /// # Errors
    /// [`Error::OutcomeUnknown`] when the answer was lost or the history cannot tell; an SDK
    /// error other than a failed condition.
    async fn send_put<E: Entity>(
        &self,
        key: &PrimaryKey,
        request: PutItemInputBuilder,
        token: WriteToken,
    ) -> Result<PutAnswer, Error> {
        let call = Call::new("PutItem", E::TYPE);
        let item = E::NAMES.show_key(key);
        let answered = self.writes().answered.before(&item);
        let mut token = token;
        let (e, lost) = match self
            .send_write_request(call, Write::new(request), &mut token, E::NAMES.pk, &item, answered, true)
            .await
        {
            Sent::Contended => return Err(contended("PutItem", E::TYPE, item)),
            Sent::Answered { result: Ok(resp), .. } => return Ok(PutAnswer::Applied(resp.attributes)),
            Sent::Answered { result: Err(e), lost } => (e, lost),
            Sent::Unknown(e) => return Err(self.put_unknown::<E, _>(key, token, answered, e)),
        };
        match e {
            SdkError::ServiceError(e) if e.err().is_conditional_check_failed_exception() => {
                let old = failed_put_item(e.err());
                if let Some(lost) = lost {
                    // No item: one the earlier attempt wrote may have been deleted since.
                    match crate::write_token::seen(old, &token, answered.as_ref()) {
                        Seen::Applied { .. } => return Ok(PutAnswer::AppliedEarlier),
                        Seen::CannotTell => return Err(self.put_unknown::<E, _>(key, token, answered, *lost)),
                        Seen::NotApplied => {}
                    }
                }
                Ok(PutAnswer::ConditionFailed(old.cloned()))
            }
            e => Err(Error::sdk("PutItem", e).on_item(E::TYPE, E::NAMES, key)),
        }
    }

    /// The write token to add to a write, `None` on a handle without write tokens.
    fn tokens<'t>(&self, token: &'t WriteToken) -> Option<&'t WriteToken> {
        self.writes().tokens.then_some(token)
    }

    /// [`Error::OutcomeUnknown`] of a `PutItem` of `E` at `key`.
    fn put_unknown<E: Entity, S>(
        &self,
        key: &PrimaryKey,
        token: WriteToken,
        answered: Option<WriteToken>,
        e: S,
    ) -> Error
    where
        aws_sdk_dynamodb::Error: From<S>,
    {
        let (text, item) = (E::NAMES.show_key(key), E::NAMES.key_item(key));
        self.outcome_unknown("PutItem", E::TYPE, text, item, token, answered, false, e)
    }

    /// [`Error::OutcomeUnknown`] of a `DeleteItem` of `E` at `key`.
    fn delete_unknown<E: Entity, S>(
        &self,
        key: &PrimaryKey,
        token: WriteToken,
        answered: Option<WriteToken>,
        e: S,
    ) -> Error
    where
        aws_sdk_dynamodb::Error: From<S>,
    {
        let (text, item) = (E::NAMES.show_key(key), E::NAMES.key_item(key));
        self.outcome_unknown("DeleteItem", E::TYPE, text, item, token, answered, true, e)
    }

    /// The `PutItem` of [`Table::put`] of a stamped item of `E` (no unique fields): it never
    /// overwrites an item of another entity type that happens to have this key.
    pub(crate) fn put_request<E: Entity>(&self, item: Item, expected: Option<u64>) -> PutItemInputBuilder {
        // The guard's two names and one value (a version check adds one of each): sized once,
        // so the first placeholder does not grow an empty map.
        let mut ph = Placeholders::with_capacity(3, 2);
        let mut condition = String::with_capacity(48);
        crate::owner::push_guard(crate::owner::Guard::AbsentOrIs, &mut ph, E::NAMES, E::TYPE, &mut condition);
        // Never an item a newer program stored at a newer schema version.
        evolve::push_not_newer(E::schema(), &mut ph, &mut condition);
        if let (Some(version), Some(expected)) = (&E::schema().version, expected) {
            let v = versioning::version_condition(version, expected, &mut ph);
            condition = format!("{condition} AND ({v})");
        }
        self.conditional_put(item, condition, ph)
    }

    /// A `PutItem` of `item` on `condition` (its placeholders in `ph`) that returns the stored
    /// item when the condition fails, and the consumed capacity.
    fn conditional_put(&self, item: Item, condition: String, mut ph: Placeholders) -> PutItemInputBuilder {
        aws_sdk_dynamodb::operation::put_item::PutItemInput::builder()
            .table_name(self.name())
            .set_item(Some(item))
            .condition_expression(condition)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// The body of [`Table::create`] of an entity without unique fields.
    pub(crate) async fn create_value<V: Writable>(&self, mut value: V) -> Result<(), Error> {
        let token = WriteToken::new();
        let (_, request) = self.single_put(value.value(), PutKind::Create, self.tokens(&token))?;
        let key = Self::planned_key(value.value(), &request)?;
        let stored = value.decode_stored(planned_item(&request))?;
        match self.send_put::<V::Entity>(&key, request, token).await? {
            PutAnswer::Applied(_) | PutAnswer::AppliedEarlier => {
                value.set_stored(stored);
                Ok(())
            }
            PutAnswer::ConditionFailed(_) => {
                Err(Error::AlreadyExists { entity: V::Entity::TYPE, key: V::Entity::NAMES.show_key(&key) })
            }
        }
    }

    /// The `PutItem` of [`Table::create`] of a stamped item (no unique fields).
    pub(crate) fn create_request(&self, names: &AttributeNames, item: Item) -> PutItemInputBuilder {
        aws_sdk_dynamodb::operation::put_item::PutItemInput::builder()
            .table_name(self.name())
            .set_item(Some(item))
            .condition_expression("attribute_not_exists(#pk)")
            .expression_attribute_names("#pk", names.pk)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// The body of [`Table::delete`] of an entity without unique fields.
    pub(crate) async fn delete_key<E: Entity>(&self, key: Key<E>) -> Result<Returned<Option<E>>, Error> {
        let key = key.into_encoded()?;
        let request = self.delete_request::<E>(&key);
        let DeleteAnswer { result, lost, token, answered } = self.send_delete::<E>(&key, request).await?;
        let e = match result {
            // A resend that found no item: the earlier attempt deleted it, or it was gone.
            Ok(resp) if lost.is_some() && resp.attributes.is_none() => {
                return Ok(Returned::Lost { entity: E::TYPE, key: E::NAMES.show_key(&key) });
            }
            Ok(resp) => return Ok(returned_option::<E>(resp.attributes)),
            Err(e) => e,
        };
        match e {
            SdkError::ServiceError(e) if e.err().is_conditional_check_failed_exception() => {
                let old = match e.err() {
                    DeleteItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
                    _ => None,
                };
                if let Some(lost) = lost.filter(|_| deleted_since(old, &token, answered.as_ref())) {
                    return Err(self.delete_unknown::<E, _>(&key, token, answered, *lost));
                }
                let found = old.and_then(|o| crate::owner::other_entity(E::NAMES, o, E::TYPE)).flatten();
                Err(Error::WrongEntity { expected: E::TYPE, found, key: E::NAMES.show_key(&key) })
            }
            e => Err(Error::sdk("DeleteItem", e).on_item(E::TYPE, E::NAMES, &key)),
        }
    }

    /// Sends the `DeleteItem` of a delete of `E` at `key` (see
    /// [`write_token`](crate::write_token)): DynamoDB's answer, or the error of a delete whose
    /// outcome is unknown or that newer writes kept refusing.
    async fn send_delete<E: Entity>(
        &self,
        key: &PrimaryKey,
        request: DeleteItemInputBuilder,
    ) -> Result<DeleteAnswer, Error> {
        let mut token = WriteToken::new();
        let item = E::NAMES.show_key(key);
        let answered = self.writes().answered.before(&item);
        let call = Call::new("DeleteItem", E::TYPE);
        match self.send_write_request(call, Write::new(request), &mut token, E::NAMES.pk, &item, answered, false).await
        {
            Sent::Contended => Err(contended("DeleteItem", E::TYPE, item)),
            Sent::Answered { result, lost } => Ok(DeleteAnswer { result, lost, token, answered }),
            Sent::Unknown(e) => Err(self.delete_unknown::<E, _>(key, token, answered, e)),
        }
    }

    /// The `DeleteItem` of [`Table::delete`] (no unique fields).
    pub(crate) fn delete_request<E: Entity>(&self, key: &PrimaryKey) -> DeleteItemInputBuilder {
        // Never delete an item of another entity type that happens to have this key.
        let request = aws_sdk_dynamodb::operation::delete_item::DeleteItemInput::builder()
            .table_name(self.name())
            .set_key(Some(E::NAMES.key_item(key)));
        // A table without a type attribute tells entities apart by key alone: no condition.
        let request = if E::NAMES.has_entity_type() {
            request
                .condition_expression("attribute_not_exists(#pk) OR #ty = :ty")
                .expression_attribute_names("#pk", E::NAMES.pk)
                .expression_attribute_names("#ty", E::NAMES.entity_type)
                .expression_attribute_values(":ty", AttributeValue::S(E::TYPE.to_owned()))
        } else {
            request
        };
        request
            .return_values(ReturnValue::AllOld)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// The body of [`Table::delete_if_version`] of an entity with unique fields: the item and
    /// its guards, in one transaction ([`unique`](crate::unique)).
    async fn delete_guarded_if_version<E: Entity>(&self, key: Key<E>, version: u64) -> Result<Returned<E>, Error> {
        let key = key.into_encoded()?;
        Self::checked_version::<E>(Some(version))?;
        match crate::unique::delete(self, key.clone(), Some(version)).await? {
            Returned::Decoded(None) => Err(Error::NotFound { entity: E::TYPE, key: E::NAMES.show_key(&key) }),
            other => Ok(other.map(|old| old.expect("a deleted item"))),
        }
    }

    /// The body of [`Table::delete_if_version`] of an entity without unique fields.
    pub(crate) async fn delete_key_if_version<E: Entity>(
        &self,
        key: Key<E>,
        version: u64,
    ) -> Result<Returned<E>, Error> {
        let not_found = |key: &PrimaryKey| Error::NotFound { entity: E::TYPE, key: E::NAMES.show_key(key) };
        let key = key.into_encoded()?;
        let request = match Self::checked_version::<E>(Some(version))? {
            Some((v, version)) => self.delete_version_request(E::NAMES, &key, v, version),
            None => self.delete_request::<E>(&key),
        };
        let DeleteAnswer { result, lost, token, answered } = self.send_delete::<E>(&key, request).await?;
        let e = match result {
            Ok(resp) => return Ok(returned::<E>(resp.attributes.unwrap_or_default())),
            Err(e) => e,
        };
        let resent = lost.is_some();
        match e {
            SdkError::ServiceError(e) if e.err().is_conditional_check_failed_exception() => {
                let stored = match e.err() {
                    DeleteItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
                    _ => None,
                };
                match stored {
                    // A resend that found no item: the earlier attempt deleted it (or another
                    // writer did, after it was sent).
                    None if resent => Ok(Returned::Lost { entity: E::TYPE, key: E::NAMES.show_key(&key) }),
                    None => Err(not_found(&key)),
                    Some(_) if resent && deleted_since(stored, &token, answered.as_ref()) => match lost {
                        Some(lost) => Err(self.delete_unknown::<E, _>(&key, token, answered, *lost)),
                        None => Err(self.delete_unknown::<E, _>(&key, token, answered, SdkError::ServiceError(e))),
                    },
                    Some(old) => Err(versioning::lost(E::schema(), &key, version, Some(old))),
                }
            }
            e => Err(Error::sdk("DeleteItem", e).on_item(E::TYPE, E::NAMES, &key)),
        }
    }

    /// The `DeleteItem` of [`Table::delete_if_version`] (no unique fields).
    pub(crate) fn delete_version_request(
        &self,
        names: &AttributeNames,
        key: &PrimaryKey,
        v: &VersionSchema,
        version: u64,
    ) -> DeleteItemInputBuilder {
        let mut ph = Placeholders::default();
        let condition = format!(
            "attribute_exists({}) AND {}",
            ph.name(names.pk),
            versioning::version_condition(v, version, &mut ph)
        );
        aws_sdk_dynamodb::operation::delete_item::DeleteItemInput::builder()
            .table_name(self.name())
            .set_key(Some(names.key_item(key)))
            .condition_expression(condition)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_values(ReturnValue::AllOld)
            .return_values_on_condition_check_failure(RETURN_OLD_ON_FAILURE)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    /// The body of [`Table::replace`] of an entity without unique fields.
    pub(crate) async fn replace_value<V: Writable>(&self, mut value: V) -> Result<Returned<V::Entity>, Error> {
        let token = WriteToken::new();
        let (expected, request) = self.single_put(value.value(), PutKind::Replace, self.tokens(&token))?;
        let key = Self::planned_key(value.value(), &request)?;
        let stored = value.decode_stored(planned_item(&request))?;
        match self.send_put::<V::Entity>(&key, request, token).await? {
            PutAnswer::Applied(old) => {
                value.set_stored(stored);
                Ok(returned::<V::Entity>(old.unwrap_or_default()))
            }
            // The item it replaced went with the lost answer.
            PutAnswer::AppliedEarlier => {
                value.set_stored(stored);
                Ok(Returned::Lost { entity: V::Entity::TYPE, key: V::Entity::NAMES.show_key(&key) })
            }
            PutAnswer::ConditionFailed(old) => {
                if let Some(other) =
                    old.as_ref().and_then(|o| crate::owner::other_entity(V::Entity::NAMES, o, V::Entity::TYPE))
                {
                    return Err(Error::WrongEntity {
                        expected: V::Entity::TYPE,
                        found: other,
                        key: V::Entity::NAMES.show_key(&key),
                    });
                }
                if let Some(e) =
                    old.as_ref().and_then(|o| evolve::newer_stored(V::Entity::schema(), &key, "replace", o))
                {
                    return Err(e);
                }
                match (old, expected) {
                    (Some(old), Some(expected)) => {
                        Err(versioning::lost(V::Entity::schema(), &key, expected, Some(&old)))
                    }
                    _ => Err(Error::NotFound { entity: V::Entity::TYPE, key: V::Entity::NAMES.show_key(&key) }),
                }
            }
        }
    }

    /// The `PutItem` of [`Table::replace`] of a stamped item of `E` (no unique fields): the item
    /// must exist and be of this entity type, and the replaced item comes back.
    pub(crate) fn replace_request<E: Entity>(&self, item: Item, expected: Option<u64>) -> PutItemInputBuilder {
        let mut ph = Placeholders::default();
        let mut condition = String::with_capacity(64);
        crate::owner::push_guard(crate::owner::Guard::PresentAndIs, &mut ph, E::NAMES, E::TYPE, &mut condition);
        evolve::push_not_newer(E::schema(), &mut ph, &mut condition);
        if let (Some(version), Some(expected)) = (&E::schema().version, expected) {
            condition.push_str(" AND ");
            condition.push_str(&versioning::version_condition(version, expected, &mut ph));
        }
        self.conditional_put(item, condition, ph).return_values(ReturnValue::AllOld)
    }
}

/// Whether the item a delete's resend found (`ReturnValuesOnConditionCheckFailure = ALL_OLD`)
/// may have been written since the delete's first attempt: its write history is too recent to
/// say it was there before, so the first attempt may have deleted it and another writer
/// written it again.
/// DynamoDB's answer to a delete ([`Table::send_delete`]): `lost` the error of an earlier attempt
/// that lost its answer; the write's token, and the handle's answered write it was sent after.
struct DeleteAnswer {
    result: Result<
        aws_sdk_dynamodb::operation::delete_item::DeleteItemOutput,
        SdkError<DeleteItemError, aws_sdk_dynamodb::config::http::HttpResponse>,
    >,
    lost: Option<Box<SdkError<DeleteItemError, aws_sdk_dynamodb::config::http::HttpResponse>>>,
    token: WriteToken,
    answered: Option<WriteToken>,
}

/// [`Error::Contended`] for a write of `entity` at `key` (as `PK=… SK=…`).
fn contended(operation: &'static str, entity: &'static str, key: String) -> Error {
    Error::Contended { operation, entity, key, rounds: crate::table::resend::ORDER_ROUNDS }
}

fn deleted_since(item: Option<&Item>, token: &WriteToken, answered: Option<&WriteToken>) -> bool {
    item.is_none_or(|item| crate::write_token::seen_by_delete(item, token, answered) != Seen::NotApplied)
}

/// The stored item that a `PutItem` with `ReturnValuesOnConditionCheckFailure = ALL_OLD` got
/// back with its failed condition; `None` when there is no item.
fn failed_put_item(e: &PutItemError) -> Option<&Item> {
    match e {
        PutItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
        _ => None,
    }
}

// Single-item operations

impl<D> Table<D> {
    /// Reads one item by primary key (`GetItem`, eventually consistent; see
    /// [`Table::get_consistent`]). `Ok(None)` when there is no such item.
    ///
    /// # Errors
    /// The key's encoding error before sending; [`Error::Sdk`]; [`Error::WrongEntity`] when the
    /// item under that key is of another entity type; [`Error::Decode`].
    pub fn get<E: Entity>(&self, key: Key<E>) -> Op<'static, Option<E>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.get_with(key, false).await })
    }

    /// As [`Table::get`], strongly consistent (twice the read capacity).
    ///
    /// # Errors
    /// As [`Table::get`].
    pub fn get_consistent<E: Entity>(&self, key: Key<E>) -> Op<'static, Option<E>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.get_with(key, true).await })
    }

    /// Writes `value` (`&E`, or `&mut E`: see [`Writable`]), creating the item or replacing the
    /// item of `E` with the same primary key (`PutItem`, on the condition that no item has the
    /// key or that it is of `E`'s type).
    ///
    /// # Errors
    /// [`Error::Key`] / [`Error::Encode`] / [`Error::ItemTooLarge`] (over DynamoDB's 400 KB)
    /// before sending; [`Error::WrongEntity`] when the item under that key is of another entity
    /// type (nothing is written); [`Error::OutcomeUnknown`] when an attempt lost its answer and
    /// the library cannot tell whether it was applied (see [`write_token`](crate::write_token));
    /// [`Error::Sdk`].
    ///
    /// An entity with unique fields is read first and written in a transaction that moves the
    /// guards of changed values ([`unique`](crate::unique)); a value that belongs to another
    /// item is [`Error::UniqueViolation`].
    ///
    /// A versioned entity (`#[entity(version)]`) is written only if the stored version is the
    /// value's (for version 0: no item, or one without a version), and stored with the next
    /// version; otherwise [`Error::VersionConflict`] and nothing is written. `updated_at` is set
    /// to now, `created_at` is stored as the value holds it. See
    /// [`versioning`].
    ///
    /// An entity with a schema version (`#[entity(schema(version = N))]`) never replaces an item
    /// stored at a newer version, which a newer program wrote: [`Error::UpgradeRequired`] with
    /// `operation` `"put"`, and nothing is written (see
    /// [`evolve`](crate::schema::evolve#writes)).
    pub fn put<'a, V: Writable + Send + 'a>(&self, value: V) -> Op<'a, ()>
    where
        D: Admits<V::Entity>,
    {
        let table = self.untyped();
        // Chosen here, not in an `async fn`: the path an entity does not take is then left out
        // of the program (a branch inside one stays reachable from its state machine).
        if crate::unique::has_unique::<V::Entity>() {
            return Box::pin(async move { table.put_guarded(value, PutKind::Put).await.map(|_| ()) });
        }
        Box::pin(async move { table.put_value(value).await })
    }

    /// Writes `value` only if no item has its primary key (`PutItem` with
    /// `attribute_not_exists(PK)`): the idempotent-write pattern. A retry of the same write
    /// gets [`Error::AlreadyExists`] and changes nothing.
    ///
    /// # Errors
    /// [`Error::AlreadyExists`]; otherwise as [`Table::put`].
    ///
    /// An entity with unique fields is written in one transaction with a guard item per unique
    /// value ([`unique`](crate::unique)); a value that belongs to another item is
    /// [`Error::UniqueViolation`].
    ///
    /// A versioned entity is stored with version 1, whatever `value` holds; `created_at` and
    /// `updated_at` are set to now. With `&mut E`, `value` gets them (see [`Writable`] and
    /// [`versioning`]).
    pub fn create<'a, V: Writable + Send + 'a>(&self, value: V) -> Op<'a, ()>
    where
        D: Admits<V::Entity>,
    {
        let table = self.untyped();
        if crate::unique::has_unique::<V::Entity>() {
            return Box::pin(async move { table.put_guarded(value, PutKind::Create).await.map(|_| ()) });
        }
        Box::pin(async move { table.create_value(value).await })
    }

    /// Deletes the item with this key (`DeleteItem`) and returns it as it was, `None` when there
    /// was none. Returning the old item costs no extra capacity. A deleted item that does not
    /// decode as `E` is `Ok(Returned::Undecodable(..))`: it is deleted all the same, and the
    /// call succeeded (see [`Returned`]).
    ///
    /// # Errors
    /// The key's encoding error before sending; [`Error::Sdk`]; [`Error::WrongEntity`] when the
    /// item under that key is of another entity type (nothing is deleted);
    /// [`Error::OutcomeUnknown`] when an attempt lost its answer and the library cannot tell
    /// whether it was applied (see [`write_token`](crate::write_token)). A resend that finds no
    /// item answers `Ok(Returned::Lost { .. })`: the item is gone, and which write removed it is
    /// not known.
    ///
    /// An entity with unique fields is read first and deleted in one transaction with its
    /// guard items ([`unique`](crate::unique)).
    pub fn delete<E: Entity>(&self, key: Key<E>) -> Op<'static, Returned<Option<E>>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        if crate::unique::has_unique::<E>() {
            return Box::pin(async move { crate::unique::delete(&table, key.into_encoded()?, None).await });
        }
        Box::pin(async move { table.delete_key(key).await })
    }

    /// Deletes the item with this key only if its stored version (`#[entity(version)]`) is
    /// `version`, the version it was read with (`DeleteItem` conditional on `version = :v`; for
    /// 0, on an item without a version), and returns it as it was (a deleted item that does not
    /// decode: `Ok(Returned::Undecodable(..))`, see [`Returned`]). [`Table::delete`] deletes
    /// whatever the version. See [`versioning`].
    ///
    /// # Errors
    /// [`Error::Invalid`] before sending for an entity without a version field;
    /// [`Error::NotFound`] when there is no item; [`Error::VersionConflict`] when the stored
    /// version differs (nothing is deleted); otherwise as [`Table::delete`].
    pub fn delete_if_version<E: Entity>(&self, key: Key<E>, version: u64) -> Op<'static, Returned<E>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        if crate::unique::has_unique::<E>() {
            return Box::pin(async move { table.delete_guarded_if_version(key, version).await });
        }
        Box::pin(async move { table.delete_key_if_version(key, version).await })
    }

    /// Writes `value` only if an item with its primary key exists (`PutItem` with
    /// `attribute_exists(PK)`), and returns that item as it was (`ReturnValues = ALL_OLD`, no
    /// extra capacity).
    ///
    /// # Errors
    /// [`Error::NotFound`] when there is no such item; [`Error::WrongEntity`] when the item
    /// under that key is of another entity type (nothing is written: the condition also
    /// requires the stored type attribute to be `E`'s); otherwise as [`Table::put`]. A replaced
    /// item that was not a valid `E` is `Ok(Returned::Undecodable(..))`: the write was applied
    /// (see [`Returned`]).
    ///
    /// An entity with unique fields is read first and written in a transaction that moves the
    /// guards of changed values ([`unique`](crate::unique)).
    ///
    /// A versioned entity is written only if the stored version is the value's, with the next
    /// version, as by [`Table::put`]; otherwise [`Error::VersionConflict`] (an item that does
    /// not exist is [`Error::NotFound`]).
    ///
    /// An entity with a schema version never replaces an item stored at a newer version:
    /// [`Error::UpgradeRequired`] with `operation` `"replace"`, as by [`Table::put`].
    pub fn replace<'a, V: Writable + Send + 'a>(&self, value: V) -> Op<'a, Returned<V::Entity>>
    where
        D: Admits<V::Entity>,
    {
        let table = self.untyped();
        if crate::unique::has_unique::<V::Entity>() {
            return Box::pin(async move {
                let old = table.put_guarded(value, PutKind::Replace).await?;
                Ok(returned::<V::Entity>(old.unwrap_or_default()))
            });
        }
        Box::pin(async move { table.replace_value(value).await })
    }

    /// The requests of this table's single-item operations, rendered without sending; see
    /// [`Render`] and the [`render`](crate::table::render) module. On a declared handle
    /// (`Table<D>`), of `D`'s entities only.
    pub fn render(&self) -> Render<'_, D> {
        Render { table: self }
    }
}

/// The requests of [`Table`]'s single-item operations, built by the code that sends them,
/// without sending; from [`Table::render`].
///
/// Each method returns the requests in the order the operation sends them: one request for
/// most entities. For an entity with unique fields ([`unique`](crate::unique)) a put or replace
/// is a strongly consistent `GetItem` and then a `TransactWriteItems` whose actions depend on
/// what the read returns: rendered as when nothing is stored (put) or when the stored item
/// holds the value's own unique values (replace). A delete of such an entity renders its read
/// only. A value with an `#[entity(updated_at)]` or `#[entity(created_at)]` field gets the
/// current time, as when sent.
///
/// From a declared handle ([`Table<D>`](Table)) it is a `Render<'_, D>`, which accepts only the
/// entities `D` lists ([`Admits`]): another entity is a compile error.
///
/// The requests leave out the write history that sending adds on a handle with write tokens
/// ([`write_token`](crate::write_token)): a put's `_w1` (19 bytes of item), counted against the
/// 400 KB limit when sent.
pub struct Render<'a, D = Untyped> {
    table: &'a Table<D>,
}

impl<D> Clone for Render<'_, D> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<D> Copy for Render<'_, D> {}

impl<D> std::fmt::Debug for Render<'_, D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Render").field("table", &self.table).finish()
    }
}

impl<D> Render<'_, D> {
    /// The `GetItem` of [`Table::get`].
    ///
    /// # Errors
    /// The key's encoding error.
    pub fn get<E: Entity>(&self, key: Key<E>) -> Result<GetItemInput, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        let key = key.into_encoded()?;
        built(table.get_request(E::NAMES, &key, false).build())
    }

    /// The `GetItem` of [`Table::get_consistent`].
    ///
    /// # Errors
    /// The key's encoding error.
    pub fn get_consistent<E: Entity>(&self, key: Key<E>) -> Result<GetItemInput, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        let key = key.into_encoded()?;
        built(table.get_request(E::NAMES, &key, true).build())
    }

    /// The requests of [`Table::put`].
    ///
    /// # Errors
    /// The errors [`Table::put`] reports before sending.
    pub fn put<E: Entity>(&self, value: &E) -> Result<Vec<Request>, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        table.render_put::<E>(table.put_plan(value, PutKind::Put, None)?, PutKind::Put)
    }

    /// The requests of [`Table::create`].
    ///
    /// # Errors
    /// The errors [`Table::create`] reports before sending.
    pub fn create<E: Entity>(&self, value: &E) -> Result<Vec<Request>, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        table.render_put::<E>(table.put_plan(value, PutKind::Create, None)?, PutKind::Create)
    }

    /// The requests of [`Table::replace`].
    ///
    /// # Errors
    /// The errors [`Table::replace`] reports before sending.
    pub fn replace<E: Entity>(&self, value: &E) -> Result<Vec<Request>, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        table.render_put::<E>(table.put_plan(value, PutKind::Replace, None)?, PutKind::Replace)
    }

    /// The requests of [`Table::delete`].
    ///
    /// # Errors
    /// The key's encoding error.
    pub fn delete<E: Entity>(&self, key: Key<E>) -> Result<Vec<Request>, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        table.render_delete::<E>(table.delete_plan(key, None)?)
    }

    /// The requests of [`Table::delete_if_version`].
    ///
    /// # Errors
    /// The errors [`Table::delete_if_version`] reports before sending.
    pub fn delete_if_version<E: Entity>(&self, key: Key<E>, version: u64) -> Result<Vec<Request>, Error>
    where
        D: Admits<E>,
    {
        let table = &self.table.untyped();
        table.render_delete::<E>(table.delete_plan(key, Some(version))?)
    }
}

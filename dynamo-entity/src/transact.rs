//! Transactions: typed `TransactWriteItems` ([`TransactWrite`]) and `TransactGetItems`
//! ([`TransactGet`], [`Table::transact_get_many`]).
//!
//! ```no_run
//! # use dynamo_entity::{Entity, Table};
//! # #[derive(Entity)] #[entity(pk = "PURCHASE#<skill>#<buyer>", sk = "META")]
//! # struct Purchase { skill: String, buyer: String }
//! # #[derive(Entity)] #[entity(pk = "SKILL#<id>", sk = "META")]
//! # struct Skill { id: String, downloads: u64 }
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let purchase = Purchase { skill: "s1".into(), buyer: "u2".into() };
//! table
//!     .transact()
//!     .create(&purchase) // fails the whole transaction if already recorded
//!     .update(table.update(Skill::key("s1")).add(Skill::DOWNLOADS, &1))
//!     .client_request_token("purchase-s1-u2")
//!     .send()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! # DynamoDB's rules, and what this module checks before sending
//!
//! * **All or nothing.** Either every action is applied or none is. When DynamoDB cancels a
//!   transaction (`TransactionCanceledException`: a condition failed, a conflicting write, a
//!   throttled item, ...), the error is [`Error::TransactionCanceled`], listing each action that
//!   failed with the index it had in the request, its kind, entity type and key, and the reason
//!   ([`CancellationReason`]).
//! * **At most 100 actions** ([`MAX_ACTIONS`]), for writes and for reads alike; more is
//!   [`Error::Invalid`] before sending.
//! * **One action per item.** Two actions on the same item (same table, `PK` and `SK`) are
//!   [`Error::Invalid`] before sending, naming both action indexes and the key. (DynamoDB rejects
//!   such a request with a `ValidationException`; DynamoDB Local 3.3.0 does not check it for
//!   writes.) A condition on an item that is also written belongs in that write's condition, not
//!   in a separate [`condition_check`](TransactWrite::condition_check).
//! * **4 MB at most** in total over the items of one transaction (and 400 KB per item, as
//!   always). DynamoDB checks this; a request over it fails with [`Error::Sdk`]
//!   (`ValidationException`).
//! * **Cost.** A transactional write consumes 2 WCU per 1 KB of each item written (twice a plain
//!   write), a transactional read 2 RCU per 4 KB (twice a strongly consistent read). A
//!   condition check costs a transactional read of the checked item. Each GSI entry written
//!   costs twice too. See [`capacity`](crate::capacity) for estimates and
//!   [`TransactWrite::send_with_capacity`] for the figure DynamoDB reports.
//! * **Idempotent retries.** With a [client request
//!   token](TransactWrite::client_request_token), resending the same request within 10 minutes
//!   does not apply it twice: DynamoDB answers success without writing again. The same token
//!   with a different request is an `IdempotentParameterMismatchException` ([`Error::Sdk`]).
//! * **Conflicts.** A transaction that meets another transaction or write on one of its items
//!   may be canceled with [`CancellationCode::TransactionConflict`]. Nothing was written, so
//!   sending it again is safe; [`TransactWrite::retry_conflicts`] does so with backoff.
//!
//! # Versioned entities and maintained timestamps
//!
//! The actions of an entity with an `#[entity(version)]` field carry the same conditions and
//! bumps as the single writes (see [`versioning`]): [`create`](TransactWrite::create)
//! stores version 1; [`put`](TransactWrite::put) and [`replace`](TransactWrite::replace) are
//! conditional on the stored version being the value's and store the next one; an
//! [`update`](TransactWrite::update) needs [`UpdateRequest::if_version`] (or
//! [`any_version`](UpdateRequest::any_version)) and bumps the version. A stored version that
//! differs cancels the transaction with [`CancellationCode::ConditionalCheckFailed`] on that
//! action; its [`item`](CancellationReason::item) shows the stored version. `created_at` and
//! `updated_at` are set as by the single writes. The values passed in are not modified.
//!
//! # Entities with unique fields
//!
//! An entity with `#[entity(unique)]` fields owns a guard item for each unique value (see
//! [`unique`](crate::unique)). [`TransactWrite::create`] of such an entity adds one action per
//! present unique value that claims its guard (counted in the 100). Putting, replacing or
//! deleting such an entity inside a transaction is rejected before sending: it would have to know
//! the stored values to move or release their guards; [`Table::put`], [`Table::replace`] and
//! [`Table::delete`] read them first and run their own transaction. Updates are allowed: an
//! [`UpdateRequest`] cannot set a unique field (see
//! [`UpdateRequest::set_unique`](crate::update::UpdateRequest::set_unique)).

use std::collections::HashMap;
use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_get_items::builders::TransactGetItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_get_items::{TransactGetItemsError, TransactGetItemsInput};
use aws_sdk_dynamodb::operation::transact_write_items::builders::TransactWriteItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_write_items::{TransactWriteItemsError, TransactWriteItemsInput};
use aws_sdk_dynamodb::types::{
    self as sdk, ConditionCheck, Delete, Get, Put, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure,
    TransactGetItem, TransactWriteItem, Update,
};

use crate::capacity::Capacity;
use crate::error::Error;
pub use crate::error::{ActionKind, CancellationCode, CancellationReason};
use crate::expr::{Condition, Placeholders};
use crate::limits;
use crate::retry::RetryPolicy;
use crate::schema::{Admits, AttributeNames, Entity, Item, Key, PrimaryKey};
use crate::table::{Call, Next, Op, Retrying, Table, Untyped};
use crate::update::{PreparedUpdate, UpdateRequest};
use crate::value::size::{item_size, value_size};
use crate::versioning;

/// The most actions one transaction may hold: DynamoDB's limit for `TransactWriteItems` and
/// `TransactGetItems`.
pub const MAX_ACTIONS: usize = 100;

/// The longest client request token DynamoDB accepts, in characters.
pub const MAX_TOKEN_CHARS: usize = 36;

// ---------------------------------------------------------------------------------------------
// Actions, shared with the uniqueness module.

/// One action, ready to send, with what errors need to name it.
#[derive(Debug, Clone)]
pub(crate) struct Action {
    pub(crate) kind: ActionKind,
    pub(crate) entity: &'static str,
    pub(crate) table: String,
    /// The attribute names of the entity's table.
    pub(crate) names: &'static AttributeNames,
    /// `PK=… SK=…`.
    pub(crate) key: String,
    pub(crate) request: TransactWriteItem,
}

/// A condition expression with its placeholders.
pub(crate) struct Cond {
    pub(crate) expression: String,
    pub(crate) placeholders: Placeholders,
}

impl Cond {
    /// `attribute_not_exists(PK)` (the table's partition key under `names`): no item has this
    /// key.
    pub(crate) fn absent(names: &AttributeNames) -> Cond {
        let mut placeholders = Placeholders::default();
        let pk = placeholders.name(names.pk);
        Cond { expression: format!("attribute_not_exists({pk})"), placeholders }
    }

    /// `(attribute_not_exists(PK) OR <type> = entity)`: no item has this key, or the item is of
    /// `entity`'s type. The guard every write shares: a put or delete never touches another
    /// entity's item under the same key.
    pub(crate) fn absent_or_type(names: &AttributeNames, entity: &'static str) -> Cond {
        let mut placeholders = Placeholders::default();
        let mut expression = String::with_capacity(48);
        crate::owner::push_guard(crate::owner::Guard::AbsentOrIs, &mut placeholders, names, entity, &mut expression);
        Cond { expression, placeholders }
    }

    /// `attribute_exists(PK) AND <type> = entity`: an item of `entity`'s type has this key.
    pub(crate) fn present_and_type(names: &AttributeNames, entity: &'static str) -> Cond {
        let mut placeholders = Placeholders::default();
        let mut expression = String::with_capacity(48);
        crate::owner::push_guard(crate::owner::Guard::PresentAndIs, &mut placeholders, names, entity, &mut expression);
        Cond { expression, placeholders }
    }

    /// This condition and `condition` (an item of `entity`), both required.
    pub(crate) fn and_condition(mut self, entity: &'static str, condition: &Condition) -> Result<Cond, Error> {
        let other = condition.render(&mut self.placeholders).map_err(|(field, source)| Error::Encode {
            entity,
            field,
            attribute: field,
            source,
        })?;
        self.expression = format!("{} AND ({other})", self.expression);
        Ok(self)
    }

    /// Checks DynamoDB's limits on the condition and its placeholders (see
    /// [`limits`](crate::limits)), for the `action` of a transaction on the item `key` of
    /// `entity`.
    fn check(
        &self,
        action: &'static str,
        entity: &'static str,
        names: &AttributeNames,
        key: &PrimaryKey,
    ) -> Result<(), Error> {
        let (names_map, values) = (self.placeholders.names(), self.placeholders.values());
        limits::check_request(&[("ConditionExpression", self.expression.as_str(), false, 0)], names_map, values)
            .map_err(|e| e.request(action, entity, names.show_key(key)))
    }

    /// A rendered [`Condition`] on an item of `entity`.
    pub(crate) fn from_condition(entity: &'static str, condition: &Condition) -> Result<Cond, Error> {
        let mut placeholders = Placeholders::default();
        let expression = condition.render(&mut placeholders).map_err(|(field, source)| Error::Encode {
            entity,
            field,
            attribute: field,
            source,
        })?;
        Ok(Cond { expression, placeholders })
    }
}

fn invalid(e: impl fmt::Display) -> Error {
    Error::Invalid { reason: e.to_string() }
}

impl Action {
    /// A `Put` of `item` under `key` (key attributes named by `names`).
    pub(crate) fn put(
        kind: ActionKind,
        entity: &'static str,
        names: &'static AttributeNames,
        table: &str,
        key: &PrimaryKey,
        item: Item,
        condition: Option<Cond>,
    ) -> Result<Action, Error> {
        let mut put = Put::builder().table_name(table).set_item(Some(item));
        if let Some(mut c) = condition {
            c.check("Put", entity, names, key)?;
            put = put
                .condition_expression(c.expression)
                .set_expression_attribute_names(c.placeholders.take_names())
                .set_expression_attribute_values(c.placeholders.take_values())
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        }
        let request = TransactWriteItem::builder().put(put.build().map_err(invalid)?).build();
        Ok(Action { kind, entity, table: table.to_owned(), names, key: names.show_key(key), request })
    }

    /// A `Delete` of the item under `key` (key attributes named by `names`).
    pub(crate) fn delete(
        kind: ActionKind,
        entity: &'static str,
        names: &'static AttributeNames,
        table: &str,
        key: &PrimaryKey,
        condition: Option<Cond>,
    ) -> Result<Action, Error> {
        let mut delete = Delete::builder().table_name(table).set_key(Some(names.key_item(key)));
        if let Some(mut c) = condition {
            c.check("Delete", entity, names, key)?;
            delete = delete
                .condition_expression(c.expression)
                .set_expression_attribute_names(c.placeholders.take_names())
                .set_expression_attribute_values(c.placeholders.take_values())
                .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
        }
        let request = TransactWriteItem::builder().delete(delete.build().map_err(invalid)?).build();
        Ok(Action { kind, entity, table: table.to_owned(), names, key: names.show_key(key), request })
    }

    /// A `ConditionCheck` on the item under `key`.
    pub(crate) fn condition_check(
        entity: &'static str,
        names: &'static AttributeNames,
        table: &str,
        key: &PrimaryKey,
        mut c: Cond,
    ) -> Result<Action, Error> {
        c.check("ConditionCheck", entity, names, key)?;
        let check = ConditionCheck::builder()
            .table_name(table)
            .set_key(Some(names.key_item(key)))
            .condition_expression(c.expression)
            .set_expression_attribute_names(c.placeholders.take_names())
            .set_expression_attribute_values(c.placeholders.take_values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(invalid)?;
        let request = TransactWriteItem::builder().condition_check(check).build();
        let key = names.show_key(key);
        Ok(Action { kind: ActionKind::ConditionCheck, entity, table: table.to_owned(), names, key, request })
    }

    /// An `Update` built by [`UpdateRequest`].
    pub(crate) fn update(table: &str, p: PreparedUpdate) -> Result<Action, Error> {
        let (key, names) = (p.key_text(), p.attribute_names);
        let update = Update::builder()
            .table_name(table)
            .set_key(Some(p.key))
            .update_expression(p.update)
            .condition_expression(p.condition)
            .set_expression_attribute_names(p.names)
            .set_expression_attribute_values(p.values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(invalid)?;
        let request = TransactWriteItem::builder().update(update).build();
        Ok(Action { kind: ActionKind::Update, entity: p.entity, table: table.to_owned(), names, key, request })
    }
}

/// What errors need to name one action: its kind, entity type, table and key.
trait Named {
    fn kind(&self) -> ActionKind;
    fn entity(&self) -> &'static str;
    fn table(&self) -> &str;
    fn key(&self) -> &str;
    /// The attribute names of the action's entity.
    fn names(&self) -> &'static AttributeNames;
}

impl Named for Action {
    fn kind(&self) -> ActionKind {
        self.kind
    }
    fn entity(&self) -> &'static str {
        self.entity
    }
    fn table(&self) -> &str {
        &self.table
    }
    fn key(&self) -> &str {
        &self.key
    }
    fn names(&self) -> &'static AttributeNames {
        self.names
    }
}

/// The checks DynamoDB would make on the whole request, made before sending: 1 to 100 actions,
/// no two on one item.
fn check_actions<A: Named>(actions: &[A], what: &str) -> Result<(), Error> {
    if actions.is_empty() {
        return Err(invalid(format!("a {what} needs at least one action")));
    }
    if actions.len() > MAX_ACTIONS {
        let operation = if what == "transaction" { "TransactWriteItems" } else { "TransactGetItems" };
        let entity = actions.first().map_or("", Named::entity);
        let e = limits::check_transaction(actions.len(), 0).err();
        return Err(e.map_or_else(|| invalid(what), |e| e.request(operation, entity, String::new())));
    }
    let mut seen: HashMap<(&str, &str), usize> = HashMap::with_capacity(actions.len());
    // The entities of one table must agree on its attribute names (a transaction may span
    // tables, each with its own).
    let mut tables: HashMap<&str, usize> = HashMap::new();
    for (i, a) in actions.iter().enumerate() {
        let first = *tables.entry(a.table()).or_insert(i);
        let (f, n) = (actions[first].names(), a.names());
        if f != n {
            return Err(invalid(format!(
                "actions {first} ({} {}) and {i} ({} {}) of this {what} are on table {} but use different \
                 attribute names (key attributes {} / {} and {} / {}, type attribute {} and {}): entities of \
                 tables with different attribute names cannot share a table",
                actions[first].kind(),
                actions[first].entity(),
                a.kind(),
                a.entity(),
                a.table(),
                f.pk,
                f.sk,
                n.pk,
                n.sk,
                f.entity_type,
                n.entity_type
            )));
        }
    }
    for (i, a) in actions.iter().enumerate() {
        if let Some(first) = seen.insert((a.table(), a.key()), i) {
            let f = &actions[first];
            return Err(invalid(format!(
                "actions {first} ({} {}) and {i} ({} {}) of this {what} are on the same item {} of table {}; \
                 DynamoDB allows one action per item in a transaction",
                f.kind(),
                f.entity(),
                a.kind(),
                a.entity(),
                a.key(),
                a.table()
            )));
        }
    }
    Ok(())
}

/// Maps DynamoDB's cancellation reasons onto the actions, keeping the failed ones.
fn cancellation<A: Named>(actions: &[A], reasons: &[sdk::CancellationReason]) -> Error {
    let reasons = reasons
        .iter()
        .enumerate()
        .filter_map(|(index, r)| {
            let code = CancellationCode::parse(r.code()?)?;
            let action = actions.get(index);
            Some(CancellationReason {
                index,
                action: action.map_or(ActionKind::Get, Named::kind),
                entity: action.map_or("<unknown>", Named::entity),
                key: action.map_or_else(String::new, |a| a.key().to_owned()),
                code,
                message: r.message().map(str::to_owned),
                item: r.item().filter(|i| !i.is_empty()).cloned(),
            })
        })
        .collect();
    Error::TransactionCanceled { reasons }
}

/// The `TransactWriteItems` request of `actions`, checked as [`send_once`] checks it.
pub(crate) fn write_request(actions: &[Action], token: Option<&str>) -> Result<TransactWriteItemsInputBuilder, Error> {
    check_actions(actions, "transaction")?;
    // The items a transaction writes, as far as they are known before sending: whole items of
    // puts, the keys and values of the other actions.
    let bytes = actions.iter().map(|a| action_size(&a.request)).sum();
    limits::check_transaction(actions.len(), bytes)
        .map_err(|e| e.request("TransactWriteItems", common_entity(actions), String::new()))?;
    Ok(aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput::builder()
        .set_transact_items(Some(actions.iter().map(|a| a.request.clone()).collect()))
        .set_client_request_token(token.map(str::to_owned))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes))
}

/// The size of what one action sends of an item: the whole item of a put, the key and the
/// expression values of the others (by DynamoDB's item-size rules).
fn action_size(request: &TransactWriteItem) -> usize {
    let values = |v: Option<&HashMap<String, aws_sdk_dynamodb::types::AttributeValue>>| {
        v.map_or(0, |v| v.values().map(value_size).sum::<usize>())
    };
    if let Some(p) = request.put() {
        return item_size(p.item());
    }
    if let Some(u) = request.update() {
        return item_size(u.key()) + values(u.expression_attribute_values());
    }
    if let Some(d) = request.delete() {
        return item_size(d.key()) + values(d.expression_attribute_values());
    }
    request.condition_check().map_or(0, |c| item_size(c.key()) + values(c.expression_attribute_values()))
}

/// The entity type every action of `actions` writes (its guard actions included); empty when
/// they write several.
fn common_entity(actions: &[Action]) -> &'static str {
    match actions {
        [first, rest @ ..] if rest.iter().all(|a| a.entity == first.entity) => first.entity,
        _ => "",
    }
}

/// Sends `actions` as one `TransactWriteItems`, once (`call` names the request's span, with
/// its attempt number), and returns the capacity it consumed (also recorded on `table`'s
/// meter).
pub(crate) async fn send_once(
    table: &Table,
    actions: &[Action],
    token: Option<&str>,
    call: Call,
) -> Result<Capacity, Error> {
    let request = write_request(actions, token)?.send_with(table.client());
    let result = table.execute(call, request).await;
    match result {
        Ok(out) => Ok(Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), true)),
        Err(SdkError::ServiceError(e)) => match e.into_err() {
            TransactWriteItemsError::TransactionCanceledException(c) => {
                Err(cancellation(actions, c.cancellation_reasons()))
            }
            other => Err(Error::sdk("TransactWriteItems", other)),
        },
        Err(e) => Err(Error::sdk("TransactWriteItems", e)),
    }
}

/// Whether a cancellation was only due to conflicts or throttling, so that the same request may
/// succeed when sent again.
pub(crate) fn only_transient(reasons: &[CancellationReason]) -> bool {
    !reasons.is_empty() && reasons.iter().all(|r| r.code.is_transient())
}

/// Sends `actions`, resending up to `retries` times (with [`RetryPolicy::CONFLICTS`]'s backoff)
/// while the transaction is canceled by conflicts or throttling only.
pub(crate) async fn send(
    table: &Table,
    actions: &[Action],
    token: Option<&str>,
    retries: u32,
) -> Result<Capacity, Error> {
    let call = Call::new("TransactWriteItems", common_entity(actions));
    let policy = RetryPolicy::CONFLICTS.max_attempts(retries.saturating_add(1));
    Retrying::new(call, policy)
        .run(&mut (), |(), attempt| {
            Box::pin(async move {
                match send_once(table, actions, token, attempt.call()).await {
                    Err(Error::TransactionCanceled { reasons }) if only_transient(&reasons) => {
                        Ok(Next::Retry(Error::TransactionCanceled { reasons }))
                    }
                    other => other.map(Next::Done),
                }
            })
        })
        .await?
}

// ---------------------------------------------------------------------------------------------
// TransactWrite

/// The refusal of a write of an entity with unique fields that would have to know its stored
/// values (to move or release their guards); `None` for other entities.
fn unique_refusal<E: Entity>(what: &str, instead: &str) -> Option<Error> {
    let schema = E::schema();
    if !schema.has_unique() {
        return None;
    }
    let fields: Vec<&str> = schema.unique_fields().map(|f| f.field).collect();
    Some(invalid(format!(
        "{} has unique fields (`{}`): a transaction cannot {what} it, because the guard items of the values it \
         replaces are not known; use {instead}",
        E::TYPE,
        fields.join("`, `")
    )))
}

/// `base` AND, for a versioned entity whose write expects a version, the condition that the
/// stored version is `expected`.
fn version_cond<E: Entity>(base: Option<Cond>, expected: Option<u64>) -> Option<Cond> {
    let (Some(version), Some(expected)) = (&E::schema().version, expected) else {
        return base;
    };
    let mut c = base.unwrap_or(Cond { expression: String::new(), placeholders: Placeholders::default() });
    let check = versioning::version_condition(version, expected, &mut c.placeholders);
    c.expression = if c.expression.is_empty() { check } else { format!("{} AND {check}", c.expression) };
    Some(c)
}

/// A `TransactWriteItems` request: up to 100 typed actions applied all together or not at all.
/// From [`Table::transact`]; see the [module documentation](self) for DynamoDB's rules.
///
/// Mistakes found while building (a key that cannot be encoded, an update that is rejected, a
/// unique entity put in a transaction) are kept and returned by [`send`](Self::send), before
/// anything is sent. Actions are numbered from 0 in the order they are added; guard actions
/// that [`create`](Self::create) adds for unique fields follow their entity's action.
///
/// From a declared handle ([`Table<D>`](Table)) it is a `TransactWrite<D>`, whose actions
/// accept only the entities `D` lists ([`Admits`]): another entity is a compile error.
#[must_use = "a transaction does nothing until it is sent"]
pub struct TransactWrite<D = Untyped> {
    pub(crate) table: Table,
    pub(crate) actions: Vec<Action>,
    token: Option<String>,
    retries: u32,
    error: Option<Error>,
    decl: PhantomData<fn() -> D>,
}

impl<D> fmt::Debug for TransactWrite<D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TransactWrite")
            .field("table", &self.table)
            .field("actions", &self.actions)
            .field("token", &self.token)
            .field("retries", &self.retries)
            .field("error", &self.error)
            .finish()
    }
}

impl<D> TransactWrite<D> {
    fn push(mut self, action: Result<Action, Error>) -> Self {
        match action {
            Ok(a) => self.actions.push(a),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        self
    }

    pub(crate) fn fail(mut self, e: Error) -> Self {
        self.error.get_or_insert(e);
        self
    }

    /// Writes `value`, replacing any item with its key (a `Put` without condition).
    ///
    /// Not for entities with unique fields (an error at [`send`](Self::send)): use
    /// [`Table::put`], or [`create`](Self::create) in a transaction.
    ///
    /// A versioned entity is written on the condition that the stored version is `value`'s (for
    /// 0: no item, or one without a version), with the next version; a stored version that
    /// differs cancels the transaction with `ConditionalCheckFailed` for this action.
    /// `updated_at` is set to now. See [`versioning`].
    pub fn put<E: Entity>(self, value: &E) -> Self
    where
        D: Admits<E>,
    {
        if let Some(e) = unique_refusal::<E>("put", "Table::put, or create in a transaction") {
            return self.fail(e);
        }
        let action = versioning::stamp(value, false).and_then(|w| {
            let cond = version_cond::<E>(Some(Cond::absent_or_type(E::NAMES, E::TYPE)), w.expected);
            Action::put(ActionKind::Put, E::TYPE, E::NAMES, self.table.name(), &w.key, w.item, cond)
        });
        self.push(action)
    }

    /// Writes `value` only if an item has its key (`attribute_exists(PK)`).
    ///
    /// Not for entities with unique fields (an error at [`send`](Self::send)): use
    /// [`Table::replace`].
    ///
    /// A versioned entity is also conditional on its stored version, as with
    /// [`put`](Self::put).
    pub fn replace<E: Entity>(self, value: &E) -> Self
    where
        D: Admits<E>,
    {
        if let Some(e) = unique_refusal::<E>("replace", "Table::replace") {
            return self.fail(e);
        }
        let action = versioning::stamp(value, false).and_then(|w| {
            let cond = version_cond::<E>(Some(Cond::present_and_type(E::NAMES, E::TYPE)), w.expected);
            Action::put(ActionKind::Replace, E::TYPE, E::NAMES, self.table.name(), &w.key, w.item, cond)
        });
        self.push(action)
    }

    /// An update, built as for a single `UpdateItem` with [`Table::update`]: the same GSI key
    /// rewriting, the same condition that the item exists (a missing item cancels the
    /// transaction with `ConditionalCheckFailed` and no [`item`](CancellationReason::item)), and
    /// the update's own [`condition`](UpdateRequest::condition), and the same checks before
    /// sending (an update whose key and values set are over 400 KB is
    /// [`Error::ItemTooLarge`]). The update's table is used.
    pub fn update<E: Entity>(self, update: UpdateRequest<E>) -> Self
    where
        D: Admits<E>,
    {
        let action = update.prepare().and_then(|(p, table)| Action::update(table.name(), p));
        self.push(action)
    }

    /// Deletes the item with this key (no condition: deleting a missing item succeeds).
    ///
    /// Not for entities with unique fields (an error at [`send`](Self::send)): use
    /// [`Table::delete`], which releases the guard items.
    pub fn delete<E: Entity>(self, key: Key<E>) -> Self
    where
        D: Admits<E>,
    {
        self.delete_with(key, None)
    }

    /// Deletes the item with this key if `condition` holds; otherwise the transaction is
    /// canceled with `ConditionalCheckFailed` for this action. Not for entities with unique
    /// fields.
    pub fn delete_if<E: Entity>(self, key: Key<E>, condition: Condition) -> Self
    where
        D: Admits<E>,
    {
        self.delete_with(key, Some(condition))
    }

    fn delete_with<E: Entity>(self, key: Key<E>, condition: Option<Condition>) -> Self {
        if let Some(e) = unique_refusal::<E>("delete", "Table::delete") {
            return self.fail(e);
        }
        let action = (|| {
            let key = key.into_encoded()?;
            let guard = Cond::absent_or_type(E::NAMES, E::TYPE);
            let cond = match condition {
                Some(c) => guard.and_condition(E::TYPE, &c)?,
                None => guard,
            };
            Action::delete(ActionKind::Delete, E::TYPE, E::NAMES, self.table.name(), &key, Some(cond))
        })();
        self.push(action)
    }

    /// Checks `condition` on the item with this key without writing it (`ConditionCheck`); if
    /// it does not hold, the transaction is canceled with `ConditionalCheckFailed` for this
    /// action. On a missing item, every attribute is absent (so `attribute_exists` fails).
    pub fn condition_check<E: Entity>(self, key: Key<E>, condition: Condition) -> Self
    where
        D: Admits<E>,
    {
        let action = (|| {
            let key = key.into_encoded()?;
            let cond = Cond::from_condition(E::TYPE, &condition)?;
            Action::condition_check(E::TYPE, E::NAMES, self.table.name(), &key, cond)
        })();
        self.push(action)
    }

    /// Makes the request idempotent: sending a request with the same token again within 10
    /// minutes of its first completion succeeds without applying it twice. 1 to 36 characters
    /// ([`MAX_TOKEN_CHARS`]); a retry must carry the same actions, or DynamoDB answers
    /// `IdempotentParameterMismatchException`. A token is not tied to a table (DynamoDB Local shares
    /// tokens between all tables of a server): derive it from what identifies the operation,
    /// such as the key of the purchase being recorded.
    pub fn client_request_token(mut self, token: impl Into<String>) -> Self {
        let token = token.into();
        let chars = token.chars().count();
        if chars == 0 || chars > MAX_TOKEN_CHARS {
            return self.fail(invalid(format!(
                "a client request token has 1 to {MAX_TOKEN_CHARS} characters, and `{token}` has {chars}"
            )));
        }
        self.token = Some(token);
        self
    }

    /// Resends the transaction up to `retries` times, with exponential backoff and jitter, when
    /// DynamoDB cancels it only because of conflicts with other writes or throttling (every
    /// failed action has a [transient](CancellationCode::is_transient) code). Nothing was
    /// written by a canceled transaction, so this is safe. Default: 0.
    pub fn retry_conflicts(mut self, retries: u32) -> Self {
        self.retries = retries;
        self
    }

    /// The number of actions so far, guard actions included.
    pub fn len(&self) -> usize {
        self.actions.len()
    }

    /// Whether no action has been added.
    pub fn is_empty(&self) -> bool {
        self.actions.is_empty()
    }

    /// Sends the transaction.
    ///
    /// # Errors
    /// Before sending: the first mistake made while building, [`Error::Invalid`] for no action,
    /// more than [`MAX_ACTIONS`] actions, or two actions on one item. From DynamoDB:
    /// [`Error::TransactionCanceled`] (nothing written) with the failed actions;
    /// [`Error::Sdk`] for anything else (such as a request over 4 MB, or a reused token).
    pub async fn send(self) -> Result<(), Error> {
        self.send_with_capacity().await.map(drop)
    }

    /// As [`send`](Self::send), returning the capacity the transaction consumed as DynamoDB
    /// reported it: 2 write units per 1 KB of each item written, for the table and for each
    /// GSI entry written (see [`capacity`](crate::capacity)). Also recorded on the table's
    /// meter ([`Table::consumed`]).
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn send_with_capacity(self) -> Result<Capacity, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        send(&self.table, &self.actions, self.token.as_deref(), self.retries).await
    }

    /// The `TransactWriteItems` request [`send`](Self::send) would send, built by the same
    /// code, without sending it. [`Request::to_json`](crate::table::render::Request::to_json) gives a
    /// deterministic text for snapshot tests.
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending.
    pub fn render(&self) -> Result<TransactWriteItemsInput, Error> {
        if let Some(e) = &self.error {
            return Err(e.copy_of_build_error());
        }
        let request = write_request(&self.actions, self.token.as_deref())?;
        crate::table::render::built(request.build())
    }
}

// ---------------------------------------------------------------------------------------------
// TransactGet

struct GetAction {
    entity: &'static str,
    names: &'static AttributeNames,
    table: String,
    key: PrimaryKey,
    text: String,
}

impl Named for GetAction {
    fn kind(&self) -> ActionKind {
        ActionKind::Get
    }
    fn entity(&self) -> &'static str {
        self.entity
    }
    fn table(&self) -> &str {
        &self.table
    }
    fn key(&self) -> &str {
        &self.text
    }
    fn names(&self) -> &'static AttributeNames {
        self.names
    }
}

/// The `TransactGetItems` request of `gets`.
fn get_request(gets: &[GetAction]) -> Result<TransactGetItemsInputBuilder, Error> {
    check_actions(gets, "transactional read")?;
    let mut items = Vec::with_capacity(gets.len());
    for g in gets {
        let get =
            Get::builder().table_name(&g.table).set_key(Some(g.names.key_item(&g.key))).build().map_err(invalid)?;
        items.push(TransactGetItem::builder().get(get).build());
    }
    Ok(aws_sdk_dynamodb::operation::transact_get_items::TransactGetItemsInput::builder()
        .set_transact_items(Some(items))
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes))
}

/// Reads the items, in order; `None` for a missing item.
async fn get_items(table: &Table, gets: &[GetAction]) -> Result<Vec<Option<Item>>, Error> {
    let request = get_request(gets)?.send_with(table.client());
    let entity = match gets {
        [first, rest @ ..] if rest.iter().all(|g| g.entity == first.entity) => first.entity,
        _ => "",
    };
    let result = table.execute(Call::new("TransactGetItems", entity), request).await;
    match result {
        Ok(out) => {
            let mut responses = out.responses.unwrap_or_default().into_iter();
            Ok(gets.iter().map(|_| responses.next().and_then(|r| r.item).filter(|i| !i.is_empty())).collect())
        }
        Err(SdkError::ServiceError(e)) => match e.into_err() {
            TransactGetItemsError::TransactionCanceledException(c) => Err(cancellation(gets, c.cancellation_reasons())),
            other if crate::error::service::response_too_large(&other) => Err(Error::ResponseTooLarge {
                operation: "TransactGetItems",
                entity,
                keys: gets.len(),
                max: crate::limits::MAX_TRANSACTION_BYTES,
                source: Box::new(other.into()),
            }),
            other => Err(Error::sdk("TransactGetItems", other)),
        },
        Err(e) => Err(Error::sdk("TransactGetItems", e)),
    }
}

fn decode<E: Entity>(item: Option<Item>) -> Result<Option<E>, Error> {
    item.map(|i| E::from_item(&i)).transpose()
}

/// A `TransactGetItems` of up to four items of any entity types, read as one consistent
/// snapshot; from [`Table::transact_get`]. `T` is the tuple of the entity types asked for so
/// far; [`send`](TransactGet::send) returns one `Option` per key, in order.
///
/// ```no_run
/// # use dynamo_entity::{Entity, Table};
/// # #[derive(Entity)] #[entity(pk = "USER#<id>", sk = "PROFILE")] struct User { id: String }
/// # #[derive(Entity)] #[entity(pk = "SKILL#<id>", sk = "META")] struct Skill { id: String }
/// # async fn f(table: Table) -> dynamo_entity::Result<()> {
/// let (seller, skill): (Option<User>, Option<Skill>) =
///     table.transact_get().get(User::key("u1")).get(Skill::key("s1")).send().await?;
/// # Ok(())
/// # }
/// ```
///
/// The reads are serializable with every transaction and write: no write is seen half done.
/// They cost 2 RCU per 4 KB of each item. For more items, all of one entity type, see
/// [`Table::transact_get_many`].
#[must_use = "a read does nothing until it is sent"]
pub struct TransactGet<T, D = Untyped> {
    table: Table,
    gets: Vec<GetAction>,
    error: Option<Error>,
    _types: PhantomData<fn() -> (T, D)>,
}

impl<T, D> fmt::Debug for TransactGet<T, D> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let keys: Vec<String> = self.gets.iter().map(|g| format!("{} {}", g.entity, g.text)).collect();
        f.debug_struct("TransactGet").field("table", &self.table.name()).field("keys", &keys).finish()
    }
}

impl<T, D> TransactGet<T, D> {
    fn with<E: Entity, U>(mut self, key: Key<E>) -> TransactGet<U, D> {
        match key.into_encoded() {
            Ok(key) => self.gets.push(GetAction {
                entity: E::TYPE,
                names: E::NAMES,
                table: self.table.name().to_owned(),
                text: E::NAMES.show_key(&key),
                key,
            }),
            Err(e) => {
                self.error.get_or_insert(e);
            }
        }
        TransactGet { table: self.table, gets: self.gets, error: self.error, _types: PhantomData }
    }

    async fn fetch(self) -> Result<Vec<Option<Item>>, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        get_items(&self.table, &self.gets).await
    }

    /// The `TransactGetItems` request `send` would send, built by the same code, without
    /// sending it.
    ///
    /// # Errors
    /// A key's encoding error; [`Error::Invalid`] for a key asked twice.
    pub fn render(&self) -> Result<TransactGetItemsInput, Error> {
        if let Some(e) = &self.error {
            return Err(e.copy_of_build_error());
        }
        crate::table::render::built(get_request(&self.gets)?.build())
    }
}

impl<D> TransactGet<(), D> {
    /// Reads the item with this key.
    pub fn get<A: Entity>(self, key: Key<A>) -> TransactGet<(A,), D>
    where
        D: Admits<A>,
    {
        self.with(key)
    }
}

macro_rules! transact_get_arity {
    ($($T:ident),+; $next:ident) => {
        impl<$($T: Entity,)+ DECL> TransactGet<($($T,)+), DECL> {
            /// Reads the item with this key too.
            pub fn get<$next: Entity>(self, key: Key<$next>) -> TransactGet<($($T,)+ $next,), DECL>
            where
                DECL: Admits<$next>,
            {
                self.with(key)
            }
        }
        transact_get_arity!($($T),+);
    };
    ($($T:ident),+) => {
        impl<$($T: Entity,)+ DECL> TransactGet<($($T,)+), DECL> {
            /// Sends the read: one `Option` per key, in order, `None` for a missing item.
            ///
            /// # Errors
            /// A key's encoding error, or [`Error::Invalid`] for a key asked twice, before
            /// sending; [`Error::TransactionCanceled`] when DynamoDB cancels the read (such as a
            /// conflict with a write in progress on one of the items); [`Error::Sdk`];
            /// [`Error::WrongEntity`] / [`Error::Decode`] for an item that is not a valid value
            /// of its entity type.
            pub async fn send(self) -> Result<($(Option<$T>,)+), Error> {
                let mut items = self.fetch().await?.into_iter();
                Ok(($(decode::<$T>(items.next().flatten())?,)+))
            }
        }
    };
}

transact_get_arity!(A; B);
transact_get_arity!(A, B; C);
transact_get_arity!(A, B, C; D);
transact_get_arity!(A, B, C, D);

// ---------------------------------------------------------------------------------------------
// Entry points

impl<D> Table<D> {
    /// A transaction of up to 100 write actions on this table (`TransactWriteItems`); see
    /// [`TransactWrite`] and the [`transact`](crate::transact) module for DynamoDB's rules. On
    /// a declared handle (`Table<D>`), its actions accept only `D`'s entities.
    pub fn transact(&self) -> TransactWrite<D> {
        TransactWrite {
            table: self.untyped(),
            actions: Vec::new(),
            token: None,
            retries: 0,
            error: None,
            decl: PhantomData,
        }
    }

    /// A consistent read of up to four items of any entity types (`TransactGetItems`); see
    /// [`TransactGet`]. On a declared handle (`Table<D>`), only of `D`'s entities.
    pub fn transact_get(&self) -> TransactGet<(), D> {
        TransactGet { table: self.untyped(), gets: Vec::new(), error: None, _types: PhantomData }
    }
}

impl<D> Table<D> {
    /// A consistent read of up to 100 items of entity type `E` (`TransactGetItems`): one
    /// `Option` per key, in order, `None` for a missing item. Costs 2 RCU per 4 KB of each item;
    /// the reads are serializable with every transaction and write.
    ///
    /// # Errors
    /// As [`TransactGet::send`]; [`Error::Invalid`] for no key; [`Error::LimitExceeded`]
    /// ([`Limit::TransactionActions`](crate::limits::Limit::TransactionActions)) for more than
    /// [`MAX_ACTIONS`];
    /// [`Error::ResponseTooLarge`] when the items total more than the 4 MB one answer holds
    /// (known only to DynamoDB: nothing was read).
    ///
    /// On a declared handle (`Table<D>`), of `D`'s entities only.
    pub fn transact_get_many<'a, E: Entity>(
        &self,
        keys: impl IntoIterator<Item = Key<E>> + Send + 'a,
    ) -> Op<'a, Vec<Option<E>>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move {
            let mut gets = Vec::new();
            for key in keys {
                let key = key.into_encoded()?;
                let text = E::NAMES.show_key(&key);
                gets.push(GetAction { entity: E::TYPE, names: E::NAMES, table: table.name().to_owned(), text, key });
            }
            get_items(&table, &gets).await?.into_iter().map(decode::<E>).collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct N(&'static str, &'static str);
    impl Named for N {
        fn kind(&self) -> ActionKind {
            ActionKind::Create
        }
        fn entity(&self) -> &'static str {
            "Order"
        }
        fn table(&self) -> &str {
            self.0
        }
        fn key(&self) -> &str {
            self.1
        }
        fn names(&self) -> &'static AttributeNames {
            &AttributeNames::DEFAULT
        }
    }

    #[test]
    fn one_action_per_item_and_at_most_100() {
        let ok = [N("t", "PK=a SK=b"), N("t", "PK=a SK=c"), N("u", "PK=a SK=b")];
        assert!(check_actions(&ok, "transaction").is_ok());
        let dup = [N("t", "PK=a SK=b"), N("t", "PK=x SK=y"), N("t", "PK=a SK=b")];
        let err = check_actions(&dup, "transaction").unwrap_err().to_string();
        assert!(err.contains("actions 0 (create Order) and 2 (create Order)"), "{err}");
        assert!(err.contains("PK=a SK=b of table t"), "{err}");
        let keys: Vec<String> = (0..=MAX_ACTIONS).map(|i| format!("PK={i} SK=x")).collect();
        let many: Vec<N> = keys.iter().map(|k| N("t", Box::leak(k.clone().into_boxed_str()))).collect();
        assert!(check_actions(&many[..MAX_ACTIONS], "transaction").is_ok());
        let err = check_actions(&many, "transaction").unwrap_err();
        assert!(
            matches!(
                err,
                Error::LimitExceeded {
                    limit: crate::limits::Limit::TransactionActions,
                    measured: 101,
                    max: 100,
                    operation: "TransactWriteItems",
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(
            err.to_string(),
            "TransactWriteItems of Order: TransactItems has 101 actions, over DynamoDB's limit of 100 (actions per \
             transaction); nothing was sent"
        );
        assert!(check_actions::<N>(&[], "transaction").is_err());
    }

    #[test]
    fn codes() {
        assert_eq!(CancellationCode::parse("None"), None);
        for code in [
            "ConditionalCheckFailed",
            "TransactionConflict",
            "ItemCollectionSizeLimitExceeded",
            "ProvisionedThroughputExceeded",
            "ThrottlingError",
            "ValidationError",
            "SomethingNew",
        ] {
            assert_eq!(CancellationCode::parse(code).unwrap().as_str(), code);
        }
        assert_eq!(CancellationCode::parse("SomethingNew"), Some(CancellationCode::Other("SomethingNew".into())));
        assert!(CancellationCode::TransactionConflict.is_transient());
        assert!(!CancellationCode::ConditionalCheckFailed.is_transient());
    }

    #[test]
    fn cancellation_keeps_the_request_index_of_failed_actions() {
        let actions = [N("t", "PK=A SK=1"), N("t", "PK=B SK=1")];
        let reasons = [
            sdk::CancellationReason::builder().code("None").build(),
            sdk::CancellationReason::builder()
                .code("ConditionalCheckFailed")
                .message("The conditional request failed")
                .build(),
        ];
        let Error::TransactionCanceled { reasons } = cancellation(&actions, &reasons) else { panic!() };
        assert_eq!(reasons.len(), 1);
        assert_eq!((reasons[0].index, reasons[0].key.as_str()), (1, "PK=B SK=1"));
        assert_eq!(reasons[0].code, CancellationCode::ConditionalCheckFailed);
        assert_eq!(reasons[0].to_string(), "action 1 (create Order PK=B SK=1): ConditionalCheckFailed");
    }
}

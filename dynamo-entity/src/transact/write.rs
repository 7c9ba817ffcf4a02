//! The transaction write builder, [`TransactWrite`]: typed puts, replaces, updates, deletes and
//! condition checks, the request token and conflict retries, and `send` / `render`.

use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;

use crate::capacity::Capacity;
use crate::error::{ActionKind, Error};
use crate::expr::{Condition, Placeholders};
use crate::schema::{Admits, Entity, Key};
use crate::table::{Table, Untyped};
use crate::transact::action::{Action, invalid};
use crate::transact::cond::Cond;
use crate::transact::resend::RequestToken;
use crate::transact::send::{send, write_request};
use crate::update::UpdateRequest;
use crate::versioning;

/// The longest client request token DynamoDB accepts, in characters.
pub const MAX_TOKEN_CHARS: usize = 36;

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
/// From [`Table::transact`]; see the [module documentation](crate::transact) for DynamoDB's rules.
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
    /// An empty transaction on `table`.
    pub(super) fn new(table: Table) -> Self {
        TransactWrite { table, actions: Vec::new(), token: None, retries: 0, error: None, decl: PhantomData }
    }

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

    /// Writes `value`, replacing the item of its entity type with its key, if any (a `Put` on
    /// the condition that no item has the key or that it is of `E`'s type).
    ///
    /// Not for entities with unique fields (an error at [`send`](Self::send)): use
    /// [`Table::put`], or [`create`](Self::create) in a transaction.
    ///
    /// A versioned entity is written on the condition that the stored version is `value`'s (for
    /// 0: no item, or one without a version), with the next version; a stored version that
    /// differs cancels the transaction with `ConditionalCheckFailed` for this action.
    /// `updated_at` is set to now. See [`versioning`].
    ///
    /// An entity with a schema version (`#[entity(schema(version = N))]`) is written only if the
    /// stored item is not of a newer schema version (as [`Table::put`]); one of a newer version
    /// cancels the transaction with `ConditionalCheckFailed` for this action, with the item.
    pub fn put<E: Entity>(self, value: &E) -> Self
    where
        D: Admits<E>,
    {
        if let Some(e) = unique_refusal::<E>("put", "Table::put, or create in a transaction") {
            return self.fail(e);
        }
        let action = versioning::stamp(value, false).and_then(|w| {
            let cond =
                version_cond::<E>(Some(Cond::absent_or_type(E::NAMES, E::TYPE).not_newer(E::schema())), w.expected);
            Action::put(ActionKind::Put, E::TYPE, E::NAMES, self.table.name(), &w.key, w.item, cond)
        });
        self.push(action)
    }

    /// Writes `value` only if an item has its key (`attribute_exists(PK)`).
    ///
    /// Not for entities with unique fields (an error at [`send`](Self::send)): use
    /// [`Table::replace`].
    ///
    /// A versioned entity is also conditional on its stored version, and an entity with a
    /// schema version on the stored item not being of a newer one, as with [`put`](Self::put).
    pub fn replace<E: Entity>(self, value: &E) -> Self
    where
        D: Admits<E>,
    {
        if let Some(e) = unique_refusal::<E>("replace", "Table::replace") {
            return self.fail(e);
        }
        let action = versioning::stamp(value, false).and_then(|w| {
            let cond =
                version_cond::<E>(Some(Cond::present_and_type(E::NAMES, E::TYPE).not_newer(E::schema())), w.expected);
            Action::put(ActionKind::Replace, E::TYPE, E::NAMES, self.table.name(), &w.key, w.item, cond)
        });
        self.push(action)
    }

    /// An update, built as for a single `UpdateItem` with [`Table::update`]: the same GSI key
    /// rewriting, the same condition that the item exists (a missing item cancels the
    /// transaction with `ConditionalCheckFailed` and no [`item`](crate::transact::CancellationReason::item)), and
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

    /// Upserts: the update of [`Table::upsert`], which creates the item when it is absent (see
    /// [`upsert`](crate::update::upsert)), as one action. Its condition is the upsert's: an
    /// item of another entity under the key, a version or a range guard that fails, or (for an
    /// upsert that cannot create its item, see [`Error::CannotCreate`]) an absent item cancels
    /// the transaction: [`Error::TransactionCanceled`], `ConditionalCheckFailed` for this
    /// action (with no item when it was absent).
    ///
    /// ```no_run
    /// # use dynamo_entity::{Entity, Table};
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "SKILL#<id>", sk = "COUNTER#<shard>")]
    /// struct SalesShard { id: String, shard: u8, sales: u64 }
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "SKILL#<id>", sk = "PURCHASE#<buyer>")]
    /// struct Purchase { id: String, buyer: String, price: u64 }
    /// # async fn demo(table: Table) -> dynamo_entity::Result<()> {
    /// let purchase = Purchase { id: "s1".into(), buyer: "u9".into(), price: 30 };
    /// table.transact()
    ///     .create(&purchase)
    ///     .upsert(table.upsert(SalesShard::key("s1", &3)).add(SalesShard::SALES, &1))
    ///     .send().await?;
    /// # Ok(()) }
    /// ```
    pub fn upsert<E: Entity>(self, upsert: crate::update::upsert::UpsertRequest<E>) -> Self
    where
        D: Admits<E>,
    {
        self.update(upsert.into_update())
    }

    /// A counter as one action: [`Table::increment`]'s upsert (`add`, creating the item when
    /// it is absent and can be created; see [`upsert`](Self::upsert)).
    ///
    /// ```no_run
    /// # use dynamo_entity::{Entity, Table};
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "SKILL#<id>", sk = "COUNTER#<shard>")]
    /// struct SalesShard { id: String, shard: u8, sales: u64 }
    /// # async fn demo(table: Table) -> dynamo_entity::Result<()> {
    /// table.transact()
    ///     .increment(SalesShard::key("s1", &3), SalesShard::SALES, 1)
    ///     .increment(SalesShard::key("s2", &0), SalesShard::SALES, 1)
    ///     .send().await?;
    /// # Ok(()) }
    /// ```
    pub fn increment<E: Entity, T: crate::value::Number>(
        self,
        key: Key<E>,
        field: crate::expr::Field<E, T, crate::expr::Mutable>,
        amount: T,
    ) -> Self
    where
        D: Admits<E>,
    {
        let upsert = crate::update::upsert::increment(self.table.clone(), key, field, &amount);
        self.update(upsert.into_update())
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

    /// The request's `ClientRequestToken`, instead of the one the library makes for each call
    /// (see [exactly once](crate::transact#exactly-once)): DynamoDB answers a request sent again
    /// with the same token within 10 minutes of its first completion as that first success,
    /// without applying it twice, so a token derived from what identifies the operation (such as
    /// the key of the purchase being recorded) makes a second call safe too, from another
    /// process included. 1 to 36 characters ([`MAX_TOKEN_CHARS`]); a token sent with other
    /// actions within the window is refused (`IdempotentParameterMismatchException`,
    /// [`Error::Sdk`]). A token is not tied to a table (DynamoDB Local shares tokens between all
    /// tables of a server).
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
    /// failed action has a [transient](crate::transact::CancellationCode::is_transient) code). Nothing was
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

    /// Sends the transaction, with its `ClientRequestToken` (yours, or one made for this call),
    /// sent again with the same token when an answer is lost: applied once (see [exactly
    /// once](crate::transact#exactly-once)).
    ///
    /// # Errors
    /// Before sending: the first mistake made while building, [`Error::Invalid`] for no action,
    /// more than [`MAX_ACTIONS`](crate::transact::MAX_ACTIONS) actions, or two actions on one item. From DynamoDB:
    /// [`Error::TransactionCanceled`] (nothing written) with the failed actions;
    /// [`Error::OutcomeUnknown`] when every attempt lost its answer (it may have been applied:
    /// [`Table::resolve`] tells, named by the first action's entity and key);
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
        let token = self.token.as_deref().map_or_else(RequestToken::new, RequestToken::given);
        send(&self.table, &self.actions, &token, self.retries).await
    }

    /// The `TransactWriteItems` request [`send`](Self::send) would send, built by the same
    /// code, without sending it. Without [`client_request_token`](Self::client_request_token)
    /// it has no `ClientRequestToken`: `send` makes one for each call. [`Request::to_json`](crate::table::render::Request::to_json) gives a
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

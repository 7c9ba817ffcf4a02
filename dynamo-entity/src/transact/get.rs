//! Transactional reads: [`TransactGet`] (up to four items of any entity types, as a tuple) and the
//! `TransactGetItems` request that it and [`Table::transact_get_many`] send.

use std::fmt;
use std::marker::PhantomData;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_get_items::builders::TransactGetItemsInputBuilder;
use aws_sdk_dynamodb::operation::transact_get_items::{TransactGetItemsError, TransactGetItemsInput};
use aws_sdk_dynamodb::types::{Get, ReturnConsumedCapacity, TransactGetItem};

use crate::error::{ActionKind, Error};
use crate::schema::{Admits, AttributeNames, Entity, Item, Key, PrimaryKey};
use crate::table::{Call, Table, Untyped};
use crate::transact::action::invalid;
use crate::transact::named::{Named, cancellation, check_actions};

pub(super) struct GetAction {
    pub(super) entity: &'static str,
    pub(super) names: &'static AttributeNames,
    pub(super) table: String,
    pub(super) key: PrimaryKey,
    pub(super) text: String,
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
pub(super) async fn get_items(table: &Table, gets: &[GetAction]) -> Result<Vec<Option<Item>>, Error> {
    let request = crate::table::body::transact_get_items(table.client(), get_request(gets)?);
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

/// The item decoded as `E`; `None` for a missing item.
pub(super) fn decode<E: Entity>(item: Option<Item>) -> Result<Option<E>, Error> {
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

impl<D> TransactGet<(), D> {
    /// An empty read of `table`.
    pub(super) fn new(table: Table) -> Self {
        TransactGet { table, gets: Vec::new(), error: None, _types: PhantomData }
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

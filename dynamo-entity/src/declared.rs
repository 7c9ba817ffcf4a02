//! The operations of a table handle bound to its declaration, [`Table<D>`](crate::Table) for a
//! `#[derive(TableDef)]` type `D`: each accepts only the entities `D` lists
//! ([`EntityOf<D>`](crate::schema::EntityOf)) and otherwise is the untyped handle's operation
//! of the same name, on the same table, client and capacity meter.
//!
//! ```ignore
//! #[derive(TableDef)]
//! #[table(entities(User, Order), pk = "pk", sk = "sk", entity_type = "kind")]
//! pub struct Shop;
//!
//! let shop: Table<Shop> = Table::new(client, "shop").declared();
//! shop.create(&user).await?;                              // written with `pk`, `sk` and `kind`
//! let orders = shop.query(Order::query(&user.id)).all().await?;
//! shop.put(&invoice).await?;  // error: `Invoice` is not an entity of table `Shop`
//! ```
//!
//! Every entity a declaration lists is checked at compile time to use the declaration's
//! attribute names and type attribute (`#[entity(table = D)]`), so a declared handle writes and
//! reads with them. Transactions, transactional reads, mixed batches and renders from a
//! `Table<D>` carry `D` and accept only its entities too
//! ([`Admits`](crate::schema::Admits)); the admin and migration operations are on the untyped
//! handle ([`Table::untyped`]), which accepts any entity.

use crate::batch::{BatchGet, BatchWriteOutcome};
use crate::collection::CollectionRequest;
use crate::error::{Error, Returned};
use crate::expr::{Field, Mutable};
use crate::query::scan::ScanRequest;
use crate::query::{IntoQuery, QuerySpec};
use crate::schema::{Entity, EntityOf, Key, TableDef};
use crate::table::Table;
use crate::unique::Unique;
use crate::update::UpdateRequest;
use crate::update::upsert::UpsertRequest;
use crate::value::{Attribute, Number};
use crate::versioning::Writable;

/// The future of a declared handle's asynchronous operation: the untyped handle's operation,
/// boxed, so that its type does not repeat the operation's bounds. An entity that `D` does not
/// list is then one error, at the argument, not a second one at the call's future and a third
/// at its `.await`. It is `Send`, so the value written by reference (`put(&value)`,
/// `batch_put`) must be `Sync`, as an entity of plain fields is.
pub type Op<'a, T> = std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, Error>> + Send + 'a>>;

impl<D: TableDef> Table<D> {
    /// [`Table::get`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::get`].
    pub fn get<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> Op<'static, Option<E>> {
        let table = self.untyped();
        Box::pin(async move { table.get(key).await })
    }

    /// [`Table::get_consistent`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::get_consistent`].
    pub fn get_consistent<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> Op<'static, Option<E>> {
        let table = self.untyped();
        Box::pin(async move { table.get_consistent(key).await })
    }

    /// [`Table::put`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::put`].
    pub fn put<'a, V: Writable + Send + 'a>(&self, value: V) -> Op<'a, ()>
    where
        V::Entity: EntityOf<D>,
    {
        let table = self.untyped();
        Box::pin(async move { table.put(value).await })
    }

    /// [`Table::create`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::create`].
    pub fn create<'a, V: Writable + Send + 'a>(&self, value: V) -> Op<'a, ()>
    where
        V::Entity: EntityOf<D>,
    {
        let table = self.untyped();
        Box::pin(async move { table.create(value).await })
    }

    /// [`Table::replace`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::replace`].
    pub fn replace<'a, V: Writable + Send + 'a>(&self, value: V) -> Op<'a, Returned<V::Entity>>
    where
        V::Entity: EntityOf<D>,
    {
        let table = self.untyped();
        Box::pin(async move { table.replace(value).await })
    }

    /// [`Table::delete`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::delete`].
    pub fn delete<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> Op<'static, Returned<Option<E>>> {
        let table = self.untyped();
        Box::pin(async move { table.delete(key).await })
    }

    /// [`Table::delete_if_version`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::delete_if_version`].
    pub fn delete_if_version<E: Entity + EntityOf<D>>(&self, key: Key<E>, version: u64) -> Op<'static, Returned<E>> {
        let table = self.untyped();
        Box::pin(async move { table.delete_if_version(key, version).await })
    }

    /// [`Table::update`] for an entity of `D`.
    pub fn update<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> UpdateRequest<E> {
        self.untyped().update(key)
    }

    /// [`Table::query`] for an entity of `D`: a [`QuerySpec`] (`Skill::gsi1(..)`) or a
    /// multi-attribute GSI's key condition (`Ticket::gsi6(..).status_eq(..)`).
    pub fn query<Q: IntoQuery>(&self, spec: Q) -> Q::Request
    where
        Q::Entity: EntityOf<D>,
    {
        self.untyped().query(spec)
    }

    /// [`Table::upsert`] for an entity of `D`.
    pub fn upsert<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> UpsertRequest<E> {
        self.untyped().upsert(key)
    }

    /// [`Table::increment`] for an entity of `D`.
    pub fn increment<E: Entity + EntityOf<D>, T: Number>(
        &self,
        key: Key<E>,
        field: Field<E, T, Mutable>,
        amount: T,
    ) -> UpsertRequest<E> {
        self.untyped().increment(key, field, amount)
    }

    /// [`Table::collection`] of a partition that an entity of `D` keys.
    pub fn collection<E: Entity + EntityOf<D>, S>(&self, spec: QuerySpec<E, S>) -> CollectionRequest {
        self.untyped().collection(spec)
    }

    /// [`Table::scan`] for an entity of `D`.
    pub fn scan<E: Entity + EntityOf<D>>(&self) -> ScanRequest<E> {
        self.untyped().scan::<E>()
    }

    /// [`Table::scan_table`] with `D`'s item enum (`D::Item`, such as `ShopItem`): every item of
    /// the table, each decoded as the variant of its entity.
    pub fn scan_table(&self) -> ScanRequest<D::Item>
    where
        D::Item: Send + 'static,
    {
        self.untyped().scan_table::<D::Item>()
    }

    /// [`Table::batch_put`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::batch_put`].
    pub fn batch_put<'a, E: Entity + EntityOf<D> + Sync>(&self, values: &'a [E]) -> Op<'a, BatchWriteOutcome> {
        let table = self.untyped();
        Box::pin(async move { table.batch_put(values).await })
    }

    /// [`Table::batch_get`] for an entity of `D`.
    pub fn batch_get<E: Entity + EntityOf<D>>(&self, keys: impl IntoIterator<Item = Key<E>>) -> BatchGet<E> {
        self.untyped().batch_get(keys)
    }

    /// [`Table::transact_get_many`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::transact_get_many`].
    pub fn transact_get_many<'a, E: Entity + EntityOf<D>>(
        &self,
        keys: impl IntoIterator<Item = Key<E>> + Send + 'a,
    ) -> Op<'a, Vec<Option<E>>> {
        let table = self.untyped();
        Box::pin(async move { table.transact_get_many(keys).await })
    }

    /// [`Table::get_by_unique`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::get_by_unique`].
    pub fn get_by_unique<'a, E: Entity + EntityOf<D>, T: Attribute + Sync>(
        &self,
        field: Field<E, T, Unique>,
        value: &'a T,
    ) -> Op<'a, Option<E>> {
        let table = self.untyped();
        Box::pin(async move { table.get_by_unique(field, value).await })
    }
}

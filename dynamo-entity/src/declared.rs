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
//! reads with them. Transactions, mixed batches, renders, and the admin and migration
//! operations are on the untyped handle ([`Table::untyped`]); they accept any entity.

use crate::batch::{BatchGet, BatchWriteOutcome};
use crate::collection::CollectionRequest;
use crate::error::{Error, Returned};
use crate::expr::Field;
use crate::query::scan::ScanRequest;
use crate::query::{QueryRequest, QuerySpec};
use crate::schema::{Entity, EntityOf, Key, TableDef};
use crate::table::Table;
use crate::unique::Unique;
use crate::update::UpdateRequest;
use crate::value::Attribute;
use crate::versioning::Writable;

impl<D: TableDef> Table<D> {
    /// [`Table::get`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::get`].
    pub async fn get<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> Result<Option<E>, Error> {
        self.untyped().get(key).await
    }

    /// [`Table::get_consistent`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::get_consistent`].
    pub async fn get_consistent<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> Result<Option<E>, Error> {
        self.untyped().get_consistent(key).await
    }

    /// [`Table::put`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::put`].
    pub async fn put<V: Writable>(&self, value: V) -> Result<(), Error>
    where
        V::Entity: EntityOf<D>,
    {
        self.untyped().put(value).await
    }

    /// [`Table::create`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::create`].
    pub async fn create<V: Writable>(&self, value: V) -> Result<(), Error>
    where
        V::Entity: EntityOf<D>,
    {
        self.untyped().create(value).await
    }

    /// [`Table::replace`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::replace`].
    pub async fn replace<V: Writable>(&self, value: V) -> Result<Returned<V::Entity>, Error>
    where
        V::Entity: EntityOf<D>,
    {
        self.untyped().replace(value).await
    }

    /// [`Table::delete`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::delete`].
    pub async fn delete<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> Result<Returned<Option<E>>, Error> {
        self.untyped().delete(key).await
    }

    /// [`Table::delete_if_version`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::delete_if_version`].
    pub async fn delete_if_version<E: Entity + EntityOf<D>>(
        &self,
        key: Key<E>,
        version: u64,
    ) -> Result<Returned<E>, Error> {
        self.untyped().delete_if_version(key, version).await
    }

    /// [`Table::update`] for an entity of `D`.
    pub fn update<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> UpdateRequest<E> {
        self.untyped().update(key)
    }

    /// [`Table::query`] for an entity of `D`.
    pub fn query<E: Entity + EntityOf<D>, S>(&self, spec: QuerySpec<E, S>) -> QueryRequest<E, S> {
        self.untyped().query(spec)
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
    pub async fn batch_put<E: Entity + EntityOf<D>>(&self, values: &[E]) -> Result<BatchWriteOutcome, Error> {
        self.untyped().batch_put(values).await
    }

    /// [`Table::batch_get`] for an entity of `D`.
    pub fn batch_get<E: Entity + EntityOf<D>>(&self, keys: impl IntoIterator<Item = Key<E>>) -> BatchGet<E> {
        self.untyped().batch_get(keys)
    }

    /// [`Table::transact_get_many`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::transact_get_many`].
    pub async fn transact_get_many<E: Entity + EntityOf<D>>(
        &self,
        keys: impl IntoIterator<Item = Key<E>>,
    ) -> Result<Vec<Option<E>>, Error> {
        self.untyped().transact_get_many(keys).await
    }

    /// [`Table::get_by_unique`] for an entity of `D`.
    ///
    /// # Errors
    /// As [`Table::get_by_unique`].
    pub async fn get_by_unique<E: Entity + EntityOf<D>, T: Attribute>(
        &self,
        field: Field<E, T, Unique>,
        value: &T,
    ) -> Result<Option<E>, Error> {
        self.untyped().get_by_unique(field, value).await
    }
}

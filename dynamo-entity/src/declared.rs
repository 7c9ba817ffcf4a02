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

use crate::expr::{Field, Mutable};
use crate::schema::{Entity, EntityOf, Key, TableDef};
use crate::table::Op;
use crate::table::Table;
use crate::unique::Unique;
use crate::update::UpdateRequest;
use crate::update::upsert::UpsertRequest;
use crate::value::{Attribute, Number};

impl<D: TableDef> Table<D> {
    /// [`Table::update`] for an entity of `D`.
    pub fn update<E: Entity + EntityOf<D>>(&self, key: Key<E>) -> UpdateRequest<E> {
        self.untyped().update(key)
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

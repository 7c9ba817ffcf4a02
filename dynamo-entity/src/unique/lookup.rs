//! Unique values from the reading side: [`Table::get_by_unique`] reads an item by a unique
//! value through its guard, and [`TransactWrite::create`] claims the guards of a new item.

use crate::error::Error;
use crate::expr::Field;
use crate::schema::{Entity, PrimaryKey};
use crate::table::{Op, Table};
#[cfg(doc)]
use crate::transact::CancellationCode;
use crate::transact::{Action, ActionKind, Cond, TransactWrite};
use crate::unique::guard::guard_key;
use crate::unique::plan::claims;
use crate::unique::write::read;
use crate::unique::{OWNER_PK, OWNER_SK, Unique};
use crate::value::Attribute;
use crate::versioning::{self, Stamped};

// ---------------------------------------------------------------------------------------------
// Lookup by a unique value

/// `create` is implemented here, beside the guard items it claims.
impl<D> TransactWrite<D> {
    /// Writes `value` only if no item has its key (`attribute_not_exists(PK)`); otherwise the
    /// transaction is canceled with [`CancellationCode::ConditionalCheckFailed`] for this action.
    ///
    /// For an entity with unique fields, one more action per present unique value claims its
    /// guard item, on the condition that the guard is free (or already this item's); a taken
    /// value cancels the transaction with `ConditionalCheckFailed` on that
    /// [`ActionKind::ClaimUnique`] action.
    ///
    /// A versioned entity is stored with version 1; `created_at` and `updated_at` are set to
    /// now. See [`versioning`].
    pub fn create<E: Entity>(mut self, value: &E) -> Self
    where
        D: crate::schema::Admits<E>,
    {
        let table = self.table.name().to_owned();
        let actions = (|| {
            let Stamped { key, item, .. } = versioning::stamp(value, true)?;
            let mut actions = claims::<E>(&table, &key, &item)?;
            let cond = Some(Cond::absent(E::NAMES));
            actions.insert(0, Action::put(ActionKind::Create, E::TYPE, E::NAMES, &table, &key, item, cond)?);
            Ok(actions)
        })();
        match actions {
            Ok(a) => self.actions.extend(a),
            Err(e) => self = self.fail(e),
        }
        self
    }
}

impl Table {
    /// The body of [`Table::get_by_unique`].
    pub(crate) async fn get_by_unique_now<E: Entity, T: Attribute>(
        &self,
        field: Field<E, T, Unique>,
        value: &T,
    ) -> Result<Option<E>, Error> {
        let av = value.to_attribute().map_err(|source| Error::Encode {
            entity: E::TYPE,
            field: field.name,
            attribute: field.attribute,
            source,
        })?;
        let Some(guard) = guard_key(E::TYPE, field.attribute, av.as_ref())? else {
            return Ok(None);
        };
        let Some(g) = read(self, E::TYPE, E::NAMES, &guard).await? else {
            return Ok(None);
        };
        let (Some(pk), Some(sk)) = (g.get(OWNER_PK), g.get(OWNER_SK)) else {
            return Ok(None);
        };
        let owner = PrimaryKey { pk: pk.clone(), sk: sk.clone() };
        let Some(item) = read(self, E::TYPE, E::NAMES, &owner).await? else {
            return Ok(None);
        };
        // The owner may have moved to another value between the two reads.
        if item.get(field.attribute) != av.as_ref() {
            return Ok(None);
        }
        E::from_item(&item).map(Some)
    }
}

impl<D> Table<D> {
    /// The item of entity `E` that holds `value` in the unique `field`, through the value's
    /// guard item: two strongly consistent reads (the guard, then its owner). `None` when no
    /// item holds the value.
    ///
    /// # Errors
    /// [`Error::Invalid`] / [`Error::Key`] / [`Error::Encode`] for a value that cannot be
    /// unique; [`Error::Sdk`]; [`Error::WrongEntity`] / [`Error::Decode`] for an owner that does
    /// not decode.
    pub fn get_by_unique<'a, E: Entity, T: Attribute + Sync>(
        &self,
        field: Field<E, T, Unique>,
        value: &'a T,
    ) -> Op<'a, Option<E>>
    where
        D: crate::schema::Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.get_by_unique_now(field, value).await })
    }
}

//! Synthetic to native keys: an access pattern served by a template GSI (`GSI1PK` /
//! `GSI1SK` strings built from key templates) moves to a native multi-attribute GSI keyed on
//! the item's own attributes (see [`multi_key`](crate::schema::multi_key)).
//!
//! ```no_run
//! use dynamo_entity::{Entity, Index, Table, TableDef};
//!
//! // Order declared `gsi1 = "CUST#<customer>", gsi1_sk = "<placed>"`; it now declares
//! // `gsi2(pk(customer), sk(placed))` instead.
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "ORDER#<id>", sk = "META", table = Shop, gsi2(pk(customer), sk(placed)))]
//! pub struct Order { pub id: String, pub customer: String, pub placed: u64 }
//!
//! #[derive(TableDef)]
//! #[table(entities(Order), gsi2)]
//! pub struct Shop;
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let layout = Shop::layout()?;
//! let report = table.native_keys::<Order>("orders-native", &layout, Index::Gsi(1), Index::Gsi(2)).drop_old().run().await?;
//! println!("{report}");
//! # Ok(())
//! # }
//! ```
//!
//! [`NativeKeys::run`] does, in order, each step resumable and idempotent:
//! 1. **create** the native GSI (`UpdateTable`, from [`Table::diff`] of the declared layout,
//!    that index only), waiting until it is `ACTIVE`; nothing when the table has it;
//! 2. **fill**: a backfill pass (checkpoints under the migration id) writing, with one
//!    conditional `UpdateItem` per item, the index's key attributes an item of the entity lacks
//!    (a field stored only inside a key, say); an item that already has them all is skipped
//!    without a write;
//! 3. **verify**: a `Scan` (`Select = COUNT`, strongly consistent) counts the items of the
//!    entity that are in the old index (they have its partition key attribute) and lack a key
//!    attribute of the new one; the run stops with [`Error::Invalid`] unless there are none;
//! 4. with [`drop_old`](NativeKeys::drop_old) only: **strip**, a second pass (checkpoints
//!    under `<id>+strip`) removing the old synthetic key attributes from each item of the
//!    entity, on the condition that they and the new key attributes are still as read; then
//!    **drop** the old GSI (`UpdateTable`), waiting until it is gone.
//!
//! Switching the application's reads to the new index is the deploy between the two: run
//! without `drop_old` first, switch the reads, then run again with it.
//!
//! [`Table::diff`]: crate::Table::diff

use std::collections::BTreeSet;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, Select};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::diff::{Change, Wait};
use crate::migrate::pass::step::{Check, ItemDone, Step};
use crate::migrate::pass::{Backfill, BackfillReport, VerifyReport};
use crate::migrate::steps::conditional_update::{UpdatePlan, update_item};
use crate::schema::{Entity, Index, Item, TableLayout};
use crate::table::{Call, Table};

/// What the fill and strip passes do with each item: the native key attributes to write when
/// missing, and the synthetic attributes to remove.
#[derive(Debug)]
pub(crate) struct NativeSpec {
    attrs: Vec<&'static str>,
    strip: Vec<&'static str>,
}

impl NativeSpec {
    /// The update `item` needs; `None` when it has every native key attribute it should and
    /// none of the attributes to strip.
    ///
    /// # Errors
    /// The item does not decode, or does not encode.
    fn plan<E: Entity>(&self, item: &Item) -> Result<Option<UpdatePlan<'static>>, Error> {
        let full = E::from_item(item)?.to_item()?;
        let mut set = Vec::new();
        for a in &self.attrs {
            if let Some(v) = full.get(*a) {
                if item.get(*a) != Some(v) {
                    set.push((*a, v.clone()));
                }
            }
        }
        let remove: Vec<&'static str> = self.strip.iter().copied().filter(|a| item.contains_key(*a)).collect();
        if set.is_empty() && remove.is_empty() {
            return Ok(None);
        }
        let version = E::SCHEMA.schema_version.as_ref().map(|v| v.attribute);
        let watched: BTreeSet<&'static str> = self.attrs.iter().chain(&self.strip).copied().chain(version).collect();
        Ok(Some(UpdatePlan {
            set,
            remove,
            watched: watched.into_iter().collect::<Vec<_>>().into(),
            every_version: false,
        }))
    }
}

/// The step of the fill and strip passes: each item's update, planned by
/// [`NativeSpec::plan`], in the conditional update loop it shares with the key backfill.
impl<E: Entity> Step<E> for NativeSpec {
    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>> {
        Box::pin(update_item::<E>(table, item, |item| self.plan::<E>(item)))
    }

    fn check(&self, item: &Item) -> Check {
        UpdatePlan::check(self.plan::<E>(item), item)
    }
}

/// The move of entity `E`'s access pattern from a template GSI to a native multi-attribute
/// GSI; from [`Table::native_keys`]. See the [module documentation](self).
#[must_use = "a migration does nothing until it is run"]
pub struct NativeKeys<E> {
    table: Table,
    id: String,
    layout: TableLayout,
    from: Index,
    to: Index,
    drop_old: bool,
    /// Whether completed passes are started again (a step applied again after drift).
    again: bool,
    wait: Wait,
    configure: Arc<dyn Fn(Backfill<E>) -> Backfill<E> + Send + Sync>,
    _entity: PhantomData<fn() -> E>,
}

impl<E> fmt::Debug for NativeKeys<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NativeKeys")
            .field("table", &self.table.name())
            .field("id", &self.id)
            .field("from", &self.from)
            .field("to", &self.to)
            .field("drop_old", &self.drop_old)
            .finish_non_exhaustive()
    }
}

/// What [`NativeKeys::run`] did.
#[derive(Debug, Clone, PartialEq)]
pub struct NativeKeysReport {
    /// Whether this run created the native GSI (`false`: the table had it).
    pub created: bool,
    /// The fill pass (the key attributes written).
    pub fill: BackfillReport,
    /// Items of the entity in the old index found lacking a key attribute of the new one by
    /// the verification (0, or the run stops with an error).
    pub unindexed: u64,
    /// The strip pass, with [`NativeKeys::drop_old`].
    pub strip: Option<BackfillReport>,
    /// Whether this run deleted the old GSI.
    pub dropped: bool,
}

impl fmt::Display for NativeKeysReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "native keys: index {}; fill: {}; verified ({} unindexed)",
            if self.created { "created" } else { "already there" },
            self.fill,
            self.unindexed
        )?;
        if let Some(s) = &self.strip {
            write!(f, "; strip: {s}; old index {}", if self.dropped { "deleted" } else { "already gone" })?;
        }
        Ok(())
    }
}

impl<D> Table<D> {
    /// The move of entity `E`'s access pattern from the template GSI `from` (its synthetic
    /// `GSI<n>PK` / `GSI<n>SK` attributes) to the native multi-attribute GSI `to` that `E`
    /// declares, recorded under the migration id `id`; `layout` is the table's declaration
    /// (it gives the new index's key schema and projection). See
    /// [`migrate::native`](crate::migrate::native).
    pub fn native_keys<E: Entity>(
        &self,
        id: impl Into<String>,
        layout: &TableLayout,
        from: Index,
        to: Index,
    ) -> NativeKeys<E>
    where
        D: crate::schema::Admits<E>,
    {
        NativeKeys {
            table: self.untyped(),
            id: id.into(),
            layout: layout.clone(),
            from,
            to,
            drop_old: false,
            again: false,
            wait: Wait::default(),
            configure: Arc::new(|b| b),
            _entity: PhantomData,
        }
    }
}

impl<E: Entity> NativeKeys<E> {
    /// Also removes the old synthetic key attributes from every item of `E` and deletes the
    /// old GSI, once the new one is verified. `E` and the layout must no longer declare the old
    /// index (checked before anything is sent).
    pub fn drop_old(mut self) -> Self {
        self.drop_old = true;
        self
    }

    /// How index creation and deletion wait ([`Wait::default`]).
    pub fn wait(mut self, wait: Wait) -> Self {
        self.wait = wait;
        self
    }

    /// Sets the segments, concurrency, page size, read rate or worker of both passes.
    pub fn configure(mut self, f: impl Fn(Backfill<E>) -> Backfill<E> + Send + Sync + 'static) -> Self {
        self.configure = Arc::new(f);
        self
    }

    /// The migration id.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Starts the completed passes again when run (the runner's `apply --again`): the items
    /// written since by code that knows only the old index get their native key attributes
    /// (and, with [`drop_old`](Self::drop_old), lose their old ones).
    pub(crate) fn again(mut self) -> Self {
        self.again = true;
        self
    }

    /// Checks the migration again, writing nothing (see [`Backfill::verify`]): the items of
    /// `E` missing a native key attribute of the new index, and, with
    /// [`drop_old`](Self::drop_old), those that still hold an old synthetic key attribute.
    ///
    /// ```no_run
    /// use dynamo_entity::{Entity, Index, Table, TableDef};
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "ORDER#<id>", sk = "META", table = Shop, gsi2(pk(customer), sk(placed)))]
    /// pub struct Order { pub id: String, pub customer: String, pub placed: u64 }
    ///
    /// #[derive(TableDef)]
    /// #[table(entities(Order), gsi2)]
    /// pub struct Shop;
    ///
    /// # async fn f(table: Table) -> dynamo_entity::Result<()> {
    /// let layout = Shop::layout()?;
    /// let move_ = table.native_keys::<Order>("orders-native", &layout, Index::Gsi(1), Index::Gsi(2));
    /// let found = move_.verify().await?;
    /// if !found.is_clean() { println!("{found}"); }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// As [`run`](Self::run) before anything is sent; [`Error::Sdk`].
    pub async fn verify(&self) -> Result<VerifyReport, Error> {
        let (_, _, _, attrs) = self.check()?;
        let names = E::NAMES;
        let strip = if self.drop_old { vec![names.pk_of(self.from), names.sk_of(self.from)] } else { Vec::new() };
        self.pass(self.id.clone(), NativeSpec { attrs, strip }).verify().await
    }

    fn check(&self) -> Result<(&'static str, &'static str, &'static str, Vec<&'static str>), Error> {
        let invalid = |reason: String| Error::Invalid { reason: format!("native keys {}: {reason}", self.id) };
        let names = E::NAMES;
        let Some(native) = E::SCHEMA.multi_gsis.iter().find(|g| g.index == self.to) else {
            return Err(invalid(format!("{} declares no multi-attribute key on {}", E::TYPE, self.to)));
        };
        if !matches!(self.from, Index::Gsi(_)) || self.from == self.to {
            return Err(invalid(format!("{} is not a template GSI other than {}", self.from, self.to)));
        }
        let (Some(old_name), Some(new_name)) = (names.index_name(self.from), names.index_name(self.to)) else {
            let unnamed = if names.index_name(self.from).is_none() { self.from } else { self.to };
            return Err(invalid(format!(
                "{unnamed} has no index name in {}'s attribute names (moving {} to {})",
                E::TYPE,
                self.from,
                self.to
            )));
        };
        if self.drop_old
            && (E::SCHEMA.gsis.iter().any(|g| g.index == self.from) || self.layout.indexes().contains(&self.from))
        {
            return Err(invalid(format!(
                "{old_name} is still declared (by {} or the table layout): it cannot be dropped",
                E::TYPE
            )));
        }
        let attrs = native.attributes().map(|a| a.attribute).collect();
        Ok((old_name, new_name, names.pk_of(self.from), attrs))
    }

    fn pass(&self, id: String, spec: NativeSpec) -> Backfill<E> {
        (self.configure)(Backfill::new(&self.table, id, Arc::new(spec)))
    }

    /// The fill pass, as its checkpoints record it (`None` before it started).
    ///
    /// # Errors
    /// As [`Backfill::status`].
    pub async fn status(&self) -> Result<Option<BackfillReport>, Error> {
        let (_, _, _, attrs) = self.check()?;
        self.pass(self.id.clone(), NativeSpec { attrs, strip: Vec::new() }).status().await
    }

    /// Runs every step not done yet (see the [module documentation](self)).
    ///
    /// # Errors
    /// [`Error::Invalid`] before anything is sent when `E` declares no multi-attribute key on
    /// the new index, or, with [`drop_old`](Self::drop_old), the old index is still declared;
    /// [`Error::Invalid`] when the table has an index of the new name with another key schema,
    /// when an index does not become `ACTIVE` (or gone) in time, or when the verification finds
    /// items not in the new index (nothing is removed then); [`Error::ItemsFailed`] when a pass
    /// ends with items it could not write (running it again retries them); the errors of a
    /// backfill.
    pub async fn run(&self) -> Result<NativeKeysReport, Error> {
        let (old_name, new_name, old_pk, attrs) = self.check()?;
        let diff = self.table.diff(&self.layout).await?;
        let create = diff.only(|c| matches!(c, Change::MissingIndex(s) if s.name == new_name));
        if let Some(c) =
            diff.changes.iter().find(|c| matches!(c, Change::KeySchema { declared, .. } if declared.name == new_name))
        {
            return Err(Error::Invalid {
                reason: format!("native keys {}: the table's {new_name} differs from its declaration: {c}", self.id),
            });
        }
        let created = !create.is_empty();
        if created {
            self.table.apply(&create, self.wait).await?;
        }
        let fill = self
            .pass(self.id.clone(), NativeSpec { attrs: attrs.clone(), strip: Vec::new() })
            .run_to_the_end(self.again)
            .await?;
        let unindexed = self.unindexed(old_pk, &attrs).await?;
        if unindexed > 0 {
            return Err(Error::Invalid {
                reason: format!(
                    "native keys {}: {unindexed} {} item(s) in {old_name} lack a key attribute of {new_name}; nothing \
                     removed",
                    self.id,
                    E::TYPE
                ),
            });
        }
        let mut report = NativeKeysReport { created, fill, unindexed, strip: None, dropped: false };
        if self.drop_old {
            let names = E::NAMES;
            let strip = vec![names.pk_of(self.from), names.sk_of(self.from)];
            let pass =
                self.pass(format!("{}+strip", self.id), NativeSpec { attrs, strip }).run_to_the_end(self.again).await?;
            report.strip = Some(pass);
            let diff = self.table.diff(&self.layout).await?;
            let delete = diff.only(|c| matches!(c, Change::ExtraIndex(s) if s.name == old_name));
            if !delete.is_empty() {
                self.table.apply(&delete, self.wait).await?;
                report.dropped = true;
            }
        }
        Ok(report)
    }

    /// How many items of `E` have `old_pk` and lack one of `attrs` (`Scan`, `Select = COUNT`,
    /// strongly consistent, every page).
    async fn unindexed(&self, old_pk: &str, attrs: &[&'static str]) -> Result<u64, Error> {
        let mut ph = Placeholders::default();
        let mut filter = String::new();
        // A table without a type attribute (`entity_type = none`) has no type to filter on:
        // every item with the old key counts.
        if E::NAMES.has_entity_type() {
            ph.push_name(E::NAMES.entity_type, &mut filter);
            filter.push_str(" = ");
            ph.push_value(AttributeValue::S(E::TYPE.to_owned()), &mut filter);
            filter.push_str(" AND ");
        }
        filter.push_str("attribute_exists(");
        ph.push_name(old_pk, &mut filter);
        filter.push_str(") AND (");
        for (i, a) in attrs.iter().enumerate() {
            if i > 0 {
                filter.push_str(" OR ");
            }
            filter.push_str("attribute_not_exists(");
            ph.push_name(a, &mut filter);
            filter.push(')');
        }
        filter.push(')');
        let (names, values) = (ph.take_names(), ph.take_values());
        let mut count = 0u64;
        let mut start: Option<Item> = None;
        loop {
            let request = self
                .table
                .client()
                .scan()
                .table_name(self.table.name())
                .filter_expression(filter.clone())
                .set_expression_attribute_names(names.clone())
                .set_expression_attribute_values(values.clone())
                .select(Select::Count)
                .consistent_read(true)
                .set_exclusive_start_key(start.take())
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                .send();
            let page =
                self.table.execute(Call::new("Scan", E::TYPE), request).await.map_err(|e| Error::sdk("Scan", e))?;
            count += u64::try_from(page.count).unwrap_or_default();
            match page.last_evaluated_key.filter(|k| !k.is_empty()) {
                Some(k) => start = Some(k),
                None => return Ok(count),
            }
        }
    }
}

//! Writing an upgraded item back: the optional second half of versioned entity schemas
//! ([`evolve`], in `schema`).
//!
//! Reads upgrade items of earlier schema versions in memory and write nothing. Where the stored
//! item should be brought to the current version too (so that other readers, exports and
//! backfills see the new shape), [`Table::upgrade`] takes an item **as read** (a raw item from a
//! scan, a stream record, a lenient read's skipped items or the SDK) and
//! [`Table::upgrade_key`] reads one by key first (strongly consistent):
//!
//! ```no_run
//! # use dynamo_entity::{Entity, Table};
//! # #[derive(Entity)] #[entity(pk = "S#<id>", sk = "M", name = "Skill", schema(version = 1))]
//! # struct SkillV1 { id: String }
//! # #[derive(Entity)] #[entity(pk = "S#<id>", sk = "M", schema(version = 2, from = SkillV1))]
//! # struct Skill { id: String }
//! # impl From<SkillV1> for Skill { fn from(v: SkillV1) -> Skill { Skill { id: v.id } } }
//! use dynamo_entity::migrate::upgrade::WriteBack;
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! if let Some(up) = table.upgrade_key(Skill::key("s1")).await? {
//!     match up.write_back {
//!         WriteBack::Written => println!("stored as version 2 (was {:?})", up.stored),
//!         WriteBack::Current => {}                  // already version 2: nothing written
//!         WriteBack::Changed | WriteBack::Deleted => {} // someone wrote first: nothing written
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! # The write and its condition
//!
//! The upgraded value is encoded ([`Entity::to_item`], stamped with the current schema
//! version) and written with one `UpdateItem` that sets every attribute whose value changed and
//! removes every attribute an earlier version wrote that the new version no longer has, **on
//! the condition that the stored item is still the one read**: every attribute that any
//! declared version of the entity writes ([`evolve::written_attributes`]: fields, keys, the
//! schema version ...) still has the value read, or is still absent. A write the application's
//! code of any version (or another client, or another upgrade) made after the read fails the
//! condition, and nothing is written ([`WriteBack::Changed`]; [`WriteBack::Deleted`] when the
//! item is gone). An attribute that no declared version writes (one another service added) is
//! neither checked nor changed: it is kept as stored. For an entity with `#[entity(version)]` optimistic locking, the
//! condition covers the lock version too and the write stores the next one, as every write does;
//! `updated_at` is left as stored (the item's content did not change, only its shape).
//!
//! When the condition fails because the stored item is already exactly what this write-back
//! stores (the SDK sent the request again after a first attempt was applied, or another process
//! made the same upgrade of the same read), the outcome is [`WriteBack::Written`]: the item is
//! as this call meant it, and nothing was applied twice.
//!
//! An item already at the current version is not written ([`WriteBack::Current`]). The write is
//! refused before sending ([`Error::Invalid`]) for an entity with `#[entity(unique)]` fields
//! whose upgrade changes a unique value (its guard items would have to move: write the value
//! with [`Table::put`] instead), and ([`Error::LimitExceeded`]) when the condition or update
//! expression would break one of DynamoDB's expression limits (an entity whose versions write
//! about 140 attributes or more; attributes of other services do not count).
//!
//! [`Table::put`]: crate::Table::put

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::operation::update_item::builders::UpdateItemInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::Backfill;
use crate::migrate::pass::step::{Check, ItemDone, Outcome, Step};
use crate::migrate::steps::conditional_update::{ItemWrite, Tried, write_item};
use crate::schema::evolve::{self, SchemaVersion};
use crate::schema::{Admits, Entity, Item, Key};
use crate::table::{Call, Op, Table};

/// What [`Table::upgrade`] did with the stored item.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteBack {
    /// The item was already at the entity's version: nothing was written.
    Current,
    /// The upgraded item was written (the stored item was still the one read).
    Written,
    /// The stored item changed after it was read: the condition failed and nothing was written.
    /// Read it again to upgrade what is there now.
    Changed,
    /// The item was deleted (or never stored) after it was read: nothing was written.
    Deleted,
}

/// An item of a versioned entity read as the entity's current version, and what writing it back
/// did.
#[derive(Debug, Clone, PartialEq)]
pub struct Upgraded<E> {
    /// The value: as read and upgraded in memory, or, after [`WriteBack::Written`], as it is
    /// now stored (with the next lock version of an `#[entity(version)]` entity).
    pub value: E,
    /// The schema version stored on the item read; `None` when it had none (it was read as the
    /// oldest declared version).
    pub stored: Option<u64>,
    /// What was written.
    pub write_back: WriteBack,
}

/// The `UpdateItem` that writes an upgraded item back, and the value as it will be stored.
struct Plan<E> {
    request: UpdateItemInputBuilder,
    /// The attributes the update sets, and those it removes, to tell our own earlier write
    /// (an SDK retry after an applied write) from another writer's.
    set: Vec<(String, AttributeValue)>,
    remove: Vec<String>,
    value: E,
}

impl Table {
    /// The body of [`Table::upgrade`].
    pub(crate) async fn upgrade_item_now<E: Entity>(&self, item: &Item) -> Result<Upgraded<E>, Error> {
        self.upgrade_counted::<E>(item, Call::new("UpdateItem", E::TYPE)).await.map(|(up, _)| up)
    }

    /// [`Table::upgrade`], with the write units its `UpdateItem` consumed (0 without one);
    /// `call` names the request's span (its attempt number).
    pub(crate) async fn upgrade_counted<E: Entity>(
        &self,
        item: &Item,
        call: Call,
    ) -> Result<(Upgraded<E>, f64), Error> {
        let sv = schema_version::<E>()?;
        let stored = evolve::stored_schema_version(item, E::NAMES, E::TYPE, sv.attribute)?;
        let value = E::from_item(item)?;
        if stored == Some(u64::from(sv.version)) {
            return Ok((Upgraded { value, stored, write_back: WriteBack::Current }, 0.0));
        }
        let Plan { request, set, remove, value: written } = self.upgrade_plan::<E>(item, &value)?;
        let send = request.send_with(self.client());
        match self.execute(call, send).await {
            Ok(out) => {
                let units = crate::capacity::Capacity::from_consumed(out.consumed_capacity.as_slice(), true).write();
                Ok((Upgraded { value: written, stored, write_back: WriteBack::Written }, units))
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                let now = match e.err() {
                    UpdateItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()),
                    _ => None,
                };
                let write_back = match now {
                    None => WriteBack::Deleted,
                    // The SDK sent the update again after a first attempt was applied (a 500 or a
                    // timeout after the write): the stored item is ours.
                    Some(now)
                        if set.iter().all(|(k, v)| now.get(k) == Some(v))
                            && remove.iter().all(|k| !now.contains_key(k)) =>
                    {
                        return Ok((Upgraded { value: written, stored, write_back: WriteBack::Written }, 0.0));
                    }
                    Some(_) => WriteBack::Changed,
                };
                Ok((Upgraded { value, stored, write_back }, 0.0))
            }
            Err(e) => Err(Error::sdk("UpdateItem", e)),
        }
    }

    /// The body of [`Table::upgrade_key`].
    pub(crate) async fn upgrade_key_now<E: Entity>(&self, key: Key<E>) -> Result<Option<Upgraded<E>>, Error> {
        schema_version::<E>()?;
        let key = key.into_encoded()?;
        let request = crate::table::body::get_item(self.client(), self.get_request(E::NAMES, &key, true));
        let resp = self.execute(Call::new("GetItem", E::TYPE), request).await.map_err(|e| Error::sdk("GetItem", e))?;
        match resp.item.filter(|i| !i.is_empty()) {
            None => Ok(None),
            Some(item) => self.upgrade_item_now::<E>(&item).await.map(Some),
        }
    }

    /// The conditional `UpdateItem` that replaces `read` by `value` encoded at the current
    /// version.
    fn upgrade_plan<E: Entity>(&self, read: &Item, value: &E) -> Result<Plan<E>, Error> {
        let schema = E::schema();
        let names = E::NAMES;
        let mut new = value.to_item()?;
        if let Some(lock) = &schema.version {
            let current = crate::versioning::stored_version(read, lock).unwrap_or(0);
            let next = crate::versioning::check_bump(E::TYPE, lock, current)?;
            new.insert(lock.attribute.to_owned(), AttributeValue::N(next.to_string()));
        }
        for unique in schema.unique_fields() {
            if new.get(unique.attribute) != read.get(unique.attribute) {
                return Err(Error::Invalid {
                    reason: format!(
                        "the upgrade of {} {} changes the unique field `{}`, whose guard items a write-back does not \
                         move: write the upgraded value with `Table::put`",
                        E::TYPE,
                        names.describe_key(read),
                        unique.field
                    ),
                });
            }
        }
        // The attributes some declared version writes: those the write may change and its
        // condition checks. Any other attribute (another service's) is kept as stored.
        let versions = evolve::written_attributes(E::SCHEMA);
        let declared = |k: &str| versions.binary_search(&k).is_ok();
        let is_key = |k: &str| k == names.pk || k == names.sk;
        let mut stored = new.clone();
        stored.extend(
            read.iter().filter(|(k, _)| !new.contains_key(*k) && !declared(k)).map(|(k, v)| (k.clone(), v.clone())),
        );
        crate::schema::size::check_item_size_in(names, E::TYPE, &stored)?;
        // The value as it will be stored, decoded before anything is sent.
        let written = E::from_item(&new)?;
        let mut set: Vec<(String, AttributeValue)> = new
            .iter()
            .filter(|(k, v)| !is_key(k) && read.get(*k) != Some(*v))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        set.sort_by(|a, b| a.0.cmp(&b.0));
        let mut remove: Vec<String> = read.keys().filter(|k| declared(k) && !new.contains_key(*k)).cloned().collect();
        remove.sort();
        let mut watched: Vec<&str> =
            versions.iter().copied().chain(new.keys().map(String::as_str).filter(|k| !is_key(k))).collect();
        watched.sort_unstable();
        watched.dedup();

        let mut ph = Placeholders::with_capacity(watched.len() + 1, watched.len() + set.len());
        let mut condition = String::from("attribute_exists(");
        ph.push_name(names.pk, &mut condition);
        condition.push(')');
        for attr in watched {
            match read.get(attr) {
                Some(v) => {
                    condition.push_str(" AND ");
                    ph.push_name(attr, &mut condition);
                    condition.push_str(" = ");
                    ph.push_value(v.clone(), &mut condition);
                }
                None => {
                    condition.push_str(" AND attribute_not_exists(");
                    ph.push_name(attr, &mut condition);
                    condition.push(')');
                }
            }
        }
        let mut update = String::new();
        for (i, (attr, v)) in set.iter().enumerate() {
            update.push_str(if i == 0 { "SET " } else { ", " });
            ph.push_name(attr, &mut update);
            update.push_str(" = ");
            ph.push_value(v.clone(), &mut update);
        }
        for (i, attr) in remove.iter().enumerate() {
            update.push_str(match (i, update.is_empty()) {
                (0, true) => "REMOVE ",
                (0, false) => " REMOVE ",
                _ => ", ",
            });
            ph.push_name(attr, &mut update);
        }
        let (expr_names, expr_values) = (ph.take_names(), ph.take_values());
        let key_text = names.describe_key(read);
        let limit = |e: crate::limits::Exceeded| e.request("UpdateItem", E::TYPE, key_text.clone());
        let expressions =
            [("UpdateExpression", update.as_str(), true, 0), ("ConditionExpression", condition.as_str(), false, 0)];
        crate::limits::check_request(&expressions, expr_names.as_ref(), expr_values.as_ref()).map_err(limit)?;
        let key: Item =
            [names.pk, names.sk].into_iter().filter_map(|n| read.get(n).map(|v| (n.to_owned(), v.clone()))).collect();
        let request = aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
            .table_name(self.name())
            .set_key(Some(key))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(expr_names)
            .set_expression_attribute_values(expr_values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes);
        Ok(Plan { request, set, remove, value: written })
    }
}

impl<D> Table<D> {
    /// Decodes `item` (an item of `E` **as read**, of any declared schema version), upgrades
    /// it in memory, and, when its stored version is an earlier one, writes the upgraded item
    /// back on the condition that the stored item is still `item` (see
    /// [`migrate::upgrade`](crate::migrate::upgrade)). An item at the current version is
    /// returned without a request.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an entity without `#[entity(schema(version = N))]`, or whose
    /// upgrade changes a unique field; the decode errors of [`Entity::from_item`]
    /// ([`Error::SchemaVersion`], [`Error::Decode`], [`Error::WrongEntity`]); the encoding
    /// errors of [`Entity::to_item`], [`Error::ItemTooLarge`] and [`Error::LimitExceeded`]
    /// before sending; [`Error::Sdk`]. A failed condition is not an error: it is
    /// [`WriteBack::Changed`] or [`WriteBack::Deleted`].
    pub fn upgrade<'a, E: Entity>(&self, item: &'a Item) -> Op<'a, Upgraded<E>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.upgrade_item_now(item).await })
    }

    /// Reads the item of `key` (`GetItem`, strongly consistent) and upgrades it as
    /// [`Table::upgrade`] does. `Ok(None)` when there is no such item.
    ///
    /// # Errors
    /// The key's encoding error before sending; as [`Table::upgrade`].
    pub fn upgrade_key<E: Entity>(&self, key: Key<E>) -> Op<'static, Option<Upgraded<E>>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.upgrade_key_now(key).await })
    }

    /// A bulk upgrade: every item of entity `E` written at an earlier schema version is
    /// written back at its current one, recorded under the migration id `id`.
    ///
    /// It is a [`Backfill`] whose step for each item is [`Table::upgrade`]: a parallel scan
    /// reads the items of `E`'s type, each is decoded as whichever declared version it is and
    /// upgraded in memory, and an item of an earlier version is written back with one
    /// `UpdateItem` on the condition that the stored item is unchanged. In its report,
    /// `updated` counts the items written back, `skipped` those already at the current version,
    /// `failed` those that do not decode (or whose upgrade cannot be written: a changed unique
    /// value, an expression over DynamoDB's limits), and `vanished` those deleted meanwhile. An
    /// item the application changed between the read and the write (`changed`) is read again
    /// (`GetItem`, strongly consistent) and upgraded as it then is, so its write is kept.
    /// Progress, resumption after a crash, workers and rate limits are those of a backfill;
    /// running it again skips every item.
    ///
    /// The run fails with [`Error::Invalid`] before reading anything when `E` declares no
    /// schema version (`#[entity(schema(version = N))]`).
    pub fn upgrade_all<E: Entity>(&self, id: impl Into<String>) -> Backfill<E>
    where
        D: Admits<E>,
    {
        Backfill::new(&self.untyped(), id.into(), std::sync::Arc::new(Upgrade))
    }
}

/// The step of [`Table::upgrade_all`]: writes each item back at the entity's current schema
/// version; refused before anything is read when the entity declares none.
struct Upgrade;

impl<E: Entity> Step<E> for Upgrade {
    fn refusal(&self) -> Option<Error> {
        schema_version::<E>().err()
    }

    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>> {
        Box::pin(upgrade_item::<E>(table, item))
    }

    fn check(&self, item: &Item) -> Check {
        let sv = match schema_version::<E>() {
            Ok(sv) => sv,
            Err(e) => return Check::Undecodable(e.to_string()),
        };
        let stored = match evolve::stored_schema_version(item, E::NAMES, E::TYPE, sv.attribute) {
            Ok(stored) => stored,
            Err(e) => return Check::Undecodable(e.to_string()),
        };
        // An item that does not decode would fail the upgrade too: reported, never dropped.
        if let Err(e) = E::from_item(item) {
            return Check::Undecodable(e.to_string());
        }
        match stored {
            Some(v) if v == u64::from(sv.version) => Check::Clean,
            Some(v) => Check::Drift(format!("stored at schema version {v}, not {}", sv.version)),
            None => Check::Drift(format!("stored without a schema version ({}), not at {}", sv.attribute, sv.version)),
        }
    }
}

/// The step of a bulk upgrade for one item: its outcome, how many conditions failed, and the
/// write units consumed; retried as every pass's conditional write is ([`write_item`]).
async fn upgrade_item<E: Entity>(table: &Table, item: Item) -> Result<ItemDone, Error> {
    write_item::<E, _>(table, item, &Upgrade).await
}

impl<E: Entity> ItemWrite<E> for Upgrade {
    const DOES: &'static str = "upgraded";

    async fn attempt(&self, table: &Table, item: &Item, call: Call) -> Result<Tried, Error> {
        match table.upgrade_counted::<E>(item, call).await {
            Ok((up, used)) => match up.write_back {
                WriteBack::Written => Ok(Tried::Done(Outcome::Updated, used)),
                WriteBack::Current => Ok(Tried::Done(Outcome::Skipped, used)),
                WriteBack::Deleted => Ok(Tried::Done(Outcome::Vanished, used)),
                // The condition does not return the item: read it as it now is.
                WriteBack::Changed => Ok(Tried::Changed(read_again::<E>(table, item).await?, used)),
            },
            // Throttling or a server error after the SDK's own retries: sent again, the write's
            // condition tells whether the first one was applied (then it is ours: `Written`).
            Err(e) if e.is_retryable() => Ok(Tried::Retry(e)),
            // The item's own trouble (it does not decode, its upgrade does not encode or breaks a
            // limit): reported, and the pass goes on.
            Err(
                e @ (Error::Key(_)
                | Error::KeyParse(_)
                | Error::Decode { .. }
                | Error::WrongEntity { .. }
                | Error::SchemaVersion { .. }
                | Error::Encode { .. }
                | Error::Invalid { .. }
                | Error::ItemTooLarge { .. }
                | Error::LimitExceeded { .. }
                | Error::OutOfRange { .. }),
            ) => Ok(Tried::Done(Outcome::Failed(e.to_string()), 0.0)),
            Err(e) => Err(e),
        }
    }
}

/// `item` as it is now stored (`GetItem` of its key, strongly consistent); `None` once deleted.
async fn read_again<E: Entity>(table: &Table, item: &Item) -> Result<Option<Item>, Error> {
    let names = E::NAMES;
    let key: Item =
        [names.pk, names.sk].into_iter().filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone()))).collect();
    let request = crate::table::body::get_item(
        table.client(),
        aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
            .table_name(table.name())
            .set_key(Some(key))
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes),
    );
    let out = table.execute(Call::new("GetItem", E::TYPE), request).await.map_err(|e| Error::sdk("GetItem", e))?;
    Ok(out.item.filter(|i| !i.is_empty()))
}

/// `E`'s declared schema version.
fn schema_version<E: Entity>() -> Result<&'static SchemaVersion, Error> {
    E::schema().schema_version.as_ref().ok_or_else(|| Error::Invalid {
        reason: format!(
            "{} declares no schema version (`#[entity(schema(version = N))]`), so it has no item to upgrade",
            E::TYPE
        ),
    })
}

//! The conditional `UpdateItem` of one item's attributes, planned again from the item as it now
//! is while the application changes it: the write of the key backfill (`gsi_keys.rs`) and of the
//! native-key passes (`native.rs`), and the retry of every pass step's conditional write of an
//! item ([`write_item`], which the bulk upgrade's `upgrade.rs` uses too).

use std::borrow::Cow;
use std::marker::PhantomData;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};

use crate::capacity::Capacity;
use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::step::{ATTEMPTS, Check, ItemDone, Outcome, RETRY};
use crate::schema::evolve;
use crate::schema::{Entity, EntitySchema, Item};
use crate::table::{Call, Next, Retrying, Table};

/// What one attempt of a conditional write of an item did (see [`write_item`]).
pub(crate) enum Tried {
    /// The item is done with: its outcome, and the write units the attempt consumed.
    Done(Outcome, f64),
    /// The write's condition failed: the item changed since it was read. It is as it now is
    /// (`None`: deleted), and the attempt consumed these write units.
    Changed(Option<Item>, f64),
    /// Throttling or a server error after the SDK's own retries: the write may or may not have
    /// been applied; sent again after a backoff, its condition tells.
    Retry(Error),
}

/// One attempt of a pass's conditional write of an item of entity `E`: what [`write_item`]
/// retries.
pub(crate) trait ItemWrite<E>: Sync {
    /// What the pass does to an item, as the failure of an item that kept changing says it
    /// (`backfilled`, `upgraded`).
    const DOES: &'static str;

    /// Writes `item` (as last read) once, its request's span named by `call`.
    ///
    /// # Errors
    /// A refusal by DynamoDB that sending again cannot fix; it stops the pass.
    fn attempt<'a>(
        &'a self,
        table: &'a Table,
        item: &'a Item,
        call: Call,
    ) -> impl Future<Output = Result<Tried, Error>> + Send + 'a;
}

/// Writes `item` (of entity `E`) with `write`, again from the item as it now is each time its
/// condition finds it changed (up to [`ATTEMPTS`] times; deleted or replaced by another
/// entity's item, it has vanished), and again after a backoff on throttling and server errors
/// ([`RETRY`]). The loop of every pass step that writes items conditionally: the key backfill
/// (`gsi_keys.rs`), the native-key passes (`native.rs`) and the bulk upgrade (`upgrade.rs`).
///
/// # Errors
/// What an attempt returns; the last error when the retries run out.
pub(crate) async fn write_item<E: Entity, W: ItemWrite<E>>(
    table: &Table,
    item: Item,
    write: &W,
) -> Result<ItemDone, Error> {
    // The item as last read, the conditions that failed, the write units consumed.
    let mut state = (item, 0u64, 0.0);
    Retrying::new(Call::new("UpdateItem", E::TYPE), RETRY)
        .run(&mut state, |(item, changed, units), attempt| {
            Box::pin(async move {
                match write.attempt(table, item, attempt.call()).await? {
                    Tried::Done(outcome, used) => {
                        *units += used;
                        Ok::<_, Error>(Next::Done((outcome, *changed, *units)))
                    }
                    Tried::Changed(now, used) => {
                        *units += used;
                        *changed += 1;
                        match now {
                            Some(now) if crate::owner::is_type(&now, E::SCHEMA) => *item = now,
                            // Deleted, or replaced by an item of another type: nothing to write.
                            _ => return Ok(Next::Done((Outcome::Vanished, *changed, *units))),
                        }
                        if *changed < u64::from(ATTEMPTS) {
                            return Ok(Next::Again);
                        }
                        let why = format!("the item changed {ATTEMPTS} times while it was {}", W::DOES);
                        Ok(Next::Done((Outcome::Failed(why), *changed, *units)))
                    }
                    Tried::Retry(e) => Ok(Next::Retry(e)),
                }
            })
        })
        .await?
}

/// Writes `item` (of entity `E`) as `plan` says: an `UpdateItem` on the condition that the item
/// is still as read, planned again from the item as it now is each time that condition fails
/// (`ReturnValuesOnConditionCheckFailure = ALL_OLD`), as [`write_item`] retries it. The write
/// of the key backfill (`gsi_keys.rs`) and of the native-key passes (`native.rs`).
///
/// # Errors
/// [`Error::Sdk`] for any other refusal by DynamoDB.
pub(crate) async fn update_item<'p, E: Entity>(
    table: &Table,
    item: Item,
    plan: impl Fn(&Item) -> Result<Option<UpdatePlan<'p>>, Error> + Sync,
) -> Result<ItemDone, Error> {
    write_item::<E, _>(table, item, &Planned(plan, PhantomData)).await
}

/// The write of [`update_item`]: the update `.0` plans from the item as read (borrowing `'p`).
struct Planned<'p, P>(P, PhantomData<&'p ()>);

impl<'p, E: Entity, P: Fn(&Item) -> Result<Option<UpdatePlan<'p>>, Error> + Sync> ItemWrite<E> for Planned<'p, P> {
    const DOES: &'static str = "backfilled";

    async fn attempt(&self, table: &Table, item: &Item, call: Call) -> Result<Tried, Error> {
        let failed = |e: Error| Ok(Tried::Done(Outcome::Failed(e.to_string()), 0.0));
        let mut plan = match (self.0)(item) {
            Ok(Some(plan)) => plan,
            Ok(None) => return Ok(Tried::Done(Outcome::Skipped, 0.0)),
            Err(e) => return failed(e),
        };
        if matches!(evolve::stored_version(item, E::SCHEMA), Ok(evolve::Stored::Earlier)) {
            plan.watch_every_version(E::SCHEMA);
        }
        let request = match plan.request::<E>(table, item) {
            Ok(request) => request,
            Err(e) => return failed(e),
        };
        match table.execute(call, request.send()).await {
            Ok(out) => {
                let units = Capacity::from_consumed(out.consumed_capacity.as_slice(), true).write();
                Ok(Tried::Done(Outcome::Updated, units))
            }
            Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                let now = match e.err() {
                    UpdateItemError::ConditionalCheckFailedException(c) => c.item().filter(|i| !i.is_empty()).cloned(),
                    _ => None,
                };
                Ok(Tried::Changed(now, 0.0))
            }
            Err(e) if crate::retry::retryable(&e) => Ok(Tried::Retry(Error::sdk("UpdateItem", e))),
            Err(e) => Err(Error::sdk("UpdateItem", e)),
        }
    }
}

/// The update of one item: the key attributes to set and to remove, and the attributes its
/// condition checks.
pub(crate) struct UpdatePlan<'a> {
    pub(crate) set: Vec<(&'static str, AttributeValue)>,
    pub(crate) remove: Vec<&'static str>,
    /// Attributes whose read value (or absence) the condition checks: sorted, each once.
    pub(crate) watched: Cow<'a, [&'static str]>,
    /// Whether `watched` holds the attributes of every version of the entity (an item stored
    /// at an earlier version): then the request is checked against DynamoDB's expression
    /// limits before it is sent.
    pub(crate) every_version: bool,
}

impl UpdatePlan<'_> {
    /// What this update would change in `item`, in a few words for a verification's report:
    /// `GSI1PK missing, GSI2SK stale, GSI3PK to remove`.
    pub(crate) fn describe(&self, item: &Item) -> String {
        let set =
            self.set.iter().map(|(a, _)| format!("{a} {}", if item.contains_key(*a) { "stale" } else { "missing" }));
        let remove = self.remove.iter().map(|a| format!("{a} to remove"));
        set.chain(remove).collect::<Vec<_>>().join(", ")
    }

    /// The [`Check`] of an item whose update is `plan` (`Ok(None)`: none needed).
    pub(crate) fn check(plan: Result<Option<UpdatePlan<'_>>, Error>, item: &Item) -> Check {
        match plan {
            Ok(None) => Check::Clean,
            Ok(Some(p)) => Check::Drift(p.describe(item)),
            Err(e) => Check::Undecodable(e.to_string()),
        }
    }

    /// Widens the condition of the update of an item stored at an earlier schema version of
    /// `schema`. The item was decoded as that version's struct and upgraded in memory, so its
    /// keys may come from attributes the current struct does not name (a field renamed since,
    /// an optional field the upgrade reads), which the application's code of that version may
    /// still write: the condition checks every attribute any declared version writes
    /// ([`evolve::written_attributes`]), each still as read or still absent.
    pub(crate) fn watch_every_version(&mut self, schema: &'static EntitySchema) {
        let mut all = evolve::written_attributes(schema);
        all.extend(self.watched.iter().copied());
        all.sort_unstable();
        all.dedup();
        self.watched = Cow::Owned(all);
        self.every_version = true;
    }

    /// The `UpdateItem` of `item`: `SET` / `REMOVE` of the keys, on the condition that the item
    /// exists with `E`'s type and every watched attribute still has the value read (or is
    /// still absent).
    ///
    /// # Errors
    /// [`Error::LimitExceeded`] when the condition of an item stored at an earlier schema
    /// version (see [`watch_every_version`](Self::watch_every_version)) breaks one of
    /// DynamoDB's expression limits (an entity whose versions write about 140 attributes or
    /// more); nothing is sent.
    fn request<E: Entity>(
        &self,
        table: &Table,
        item: &Item,
    ) -> Result<aws_sdk_dynamodb::operation::update_item::builders::UpdateItemFluentBuilder, Error> {
        let names = E::NAMES;
        // Sized once: a name for each attribute set, removed or watched, the partition key and
        // the type; a value for each attribute set or watched, and the type.
        let mut ph = Placeholders::with_capacity(
            self.set.len() + self.remove.len() + self.watched.len() + 2,
            self.set.len() + self.watched.len() + 1,
        );
        let mut update = String::new();
        for (i, (attr, v)) in self.set.iter().enumerate() {
            update.push_str(if i == 0 { "SET " } else { ", " });
            ph.push_name(attr, &mut update);
            update.push_str(" = ");
            ph.push_value(v.clone(), &mut update);
        }
        for (i, attr) in self.remove.iter().enumerate() {
            update.push_str(if i > 0 {
                ", "
            } else if update.is_empty() {
                "REMOVE "
            } else {
                " REMOVE "
            });
            ph.push_name(attr, &mut update);
        }
        let mut condition = String::from("attribute_exists(");
        ph.push_name(names.pk, &mut condition);
        condition.push(')');
        // A table without a type attribute (`entity_type = none`): the key tells the entity.
        if names.has_entity_type() {
            condition.push_str(" AND ");
            ph.push_name(names.entity_type, &mut condition);
            condition.push_str(" = ");
            ph.push_value(AttributeValue::S(E::TYPE.to_owned()), &mut condition);
        }
        for attr in self.watched.iter() {
            watch(&mut ph, &mut condition, attr, item.get(*attr));
        }
        let (expr_names, expr_values) = (ph.take_names(), ph.take_values());
        if self.every_version {
            let expressions =
                [("UpdateExpression", update.as_str(), true, 0), ("ConditionExpression", condition.as_str(), false, 0)];
            crate::limits::check_request(&expressions, expr_names.as_ref(), expr_values.as_ref())
                .map_err(|e| e.request("UpdateItem", E::TYPE, names.describe_key(item)))?;
        }
        let key: Item =
            [names.pk, names.sk].into_iter().filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone()))).collect();
        Ok(table
            .client()
            .update_item()
            .table_name(table.name())
            .set_key(Some(key))
            .update_expression(update)
            .condition_expression(condition)
            .set_expression_attribute_names(expr_names)
            .set_expression_attribute_values(expr_values)
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes))
    }
}

/// Appends ` AND <attr> = <value read>` to `condition`, or ` AND attribute_not_exists(<attr>)`
/// for an attribute the item read lacks.
fn watch(ph: &mut Placeholders, condition: &mut String, attr: &str, read: Option<&AttributeValue>) {
    condition.push_str(" AND ");
    match read {
        Some(v) => {
            ph.push_name(attr, condition);
            condition.push_str(" = ");
            ph.push_value(v.clone(), condition);
        }
        None => {
            condition.push_str("attribute_not_exists(");
            ph.push_name(attr, condition);
            condition.push(')');
        }
    }
}

//! Re-keying: after an entity's primary key template changes, move each of its items to its
//! new key.
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "MEMBER#<id>", sk = "META")]
//! pub struct MemberV1 { pub id: String, pub team: String }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "TEAM#<team>", sk = "MEMBER#<id>")]
//! pub struct Member { pub id: String, pub team: String }
//!
//! impl From<MemberV1> for Member {
//!     fn from(m: MemberV1) -> Member { Member { id: m.id, team: m.team } }
//! }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! // Members move from `MEMBER#<id>` / `META` to their team's partition, `TEAM#<team>` / `MEMBER#<id>`.
//! let report = table.rekey::<MemberV1, Member>("member-into-teams", Member::from).segments(8).run().await?;
//! println!("{report}");
//! # Ok(())
//! # }
//! ```
//!
//! A re-keying is a [`Backfill`] whose step for each item is a move: the scan reads the items
//! of the old entity's type; an item that already decodes as the new entity under its new key
//! is skipped; any other is decoded as the old entity, converted, and moved in one
//! `TransactWriteItems`: a `Put` of the new item, on the condition that nothing is at the new
//! key yet, and a `Delete` of the old item, on the condition that it is still as read (every
//! attribute it has still has the value read, and every attribute that a declared version of
//! the old entity writes and it lacks is still absent: [`evolve::written_attributes`]). The
//! attributes that no declared version of either entity writes (another service's) move with
//! the item as read, and the condition keeps a write made to them meanwhile. An item whose move
//! breaks one of DynamoDB's limits (a new item over 400 KB with those attributes; a condition
//! over the expression limits: about 140 attributes, present or declared) is reported as
//! failed, naming it, and the pass goes on.
//! When the old item changed, it is read again and moved as it now is; when it is gone, it is
//! counted in [`vanished`](crate::migrate::BackfillReport::vanished); when an item is already at
//! the new key, nothing is written and the old item is reported as failed, naming both keys.
//! Progress, resumption after a crash, workers and reports are those of a backfill (its
//! `updated` counts the items moved).
//!
//! # Unique fields
//! The guard items of `#[entity(unique)]` fields (see [`unique`](crate::unique)) name their
//! owner's primary key, so they move with the item, in the same transaction: the guard of each
//! unique value of the new item is put with the new key as its owner, on the condition that it
//! is absent (an item stored before the field became unique) or owned by the old key; the guard
//! of an old value the new item no longer has (a conversion that changes it, or a field no
//! longer unique) is deleted on the same condition. A guard owned by another item cancels the
//! move, which is reported as failed, naming the guard; nothing is written.
//!
//! # Retries
//! A move whose answer was lost (a server error after DynamoDB applied it, once the SDK's own
//! retries, which resend the same client request token, are spent) is sent again with a new
//! token: its conditions then fail, the old item is gone, and the item at the new key is read;
//! when it is the item the move wrote, the move counts as done (`updated`), not as `vanished`.
//! Transactions canceled by a conflict with another transaction or by throttling are sent again.
//!
//! Not handled: items of other entities that hold the old key.

use std::sync::Arc;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    AttributeValue, Delete, Put, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};

use crate::capacity::Capacity;
use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::Backfill;
use crate::migrate::pass::step::{ATTEMPTS, Check, ItemDone, Outcome, RETRY, Step};
use crate::schema::evolve;
use crate::schema::{Entity, EntitySchema, Item};
use crate::table::{Call, Next, Retrying, Table};
use crate::unique::{OWNER_PK, OWNER_SK};

impl<D> Table<D> {
    /// A re-keying of every item of entity `Old` to the primary key of `New` (see
    /// [`rekey`](crate::migrate::rekey)), converting each value with `convert`, recorded
    /// under the migration id `id`. `Old` and `New` are usually two versions of one entity,
    /// sharing its type name (`#[entity(name = "...")]`).
    ///
    /// The returned backfill's `run` fails with [`Error::Invalid`] at the first item it reads
    /// when the type names of `Old` and `New` differ. Guard items of unique fields move with
    /// their items (see [`rekey`](crate::migrate::rekey)).
    pub fn rekey<Old: Entity, New: Entity>(
        &self,
        id: impl Into<String>,
        convert: impl Fn(Old) -> New + Send + Sync + 'static,
    ) -> Backfill<Old>
    where
        D: crate::schema::Admits<Old> + crate::schema::Admits<New>,
    {
        let refusal = if Old::TYPE != New::TYPE {
            Some(format!(
                "re-keying {} to {}: the two must share one entity type name (`#[entity(name = \"...\")]`)",
                Old::TYPE,
                New::TYPE
            ))
        } else {
            None
        };
        let mover: Mover = Arc::new(move |item: &Item| {
            if let Some(reason) = &refusal {
                return Err(Error::Invalid { reason: reason.clone() });
            }
            if New::from_item(item).is_ok() {
                return Ok(None);
            }
            let new = convert(Old::from_item(item)?);
            new.to_item().map(|i| Some((i, New::SCHEMA)))
        });
        Backfill::new(&self.untyped(), id.into(), Arc::new(Move(mover)))
    }
}

/// What a re-keying does with one item read: `Ok(None)` when it already has its new key,
/// `Ok(Some((new item, the new entity's schema)))` to move it, `Err` when it does not decode.
type Mover = Arc<dyn Fn(&Item) -> Result<Option<(Item, &'static EntitySchema)>, Error> + Send + Sync>;

/// The step of [`Table::rekey`]: moves each item to its new primary key.
struct Move(Mover);

impl<E: Entity> Step<E> for Move {
    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>> {
        Box::pin(move_item::<E>(table, &self.0, item))
    }

    fn check(&self, item: &Item) -> Check {
        let names = E::NAMES;
        match (self.0)(item) {
            Ok(None) => Check::Clean,
            Ok(Some((new, _))) if key_of(&new, names.pk, names.sk) == key_of(item, names.pk, names.sk) => Check::Clean,
            Ok(Some((new, _))) => {
                Check::Drift(format!("still at its old key; its new key is {}", names.describe_key(&new)))
            }
            Err(e) => Check::Undecodable(e.to_string()),
        }
    }
}

/// The condition that `item` is still as read: it exists, every attribute it has (those of
/// other services too, which the move carries to the new item) still has the value read, and
/// each attribute that a declared version of `E` writes ([`evolve::written_attributes`]:
/// `versions`) and the item lacks is still absent.
fn unchanged<E: Entity>(item: &Item, versions: &[&'static str], ph: &mut Placeholders) -> String {
    let names = E::NAMES;
    let mut cond = String::from("attribute_exists(");
    ph.push_name(names.pk, &mut cond);
    cond.push(')');
    let mut read: Vec<(&String, &AttributeValue)> =
        item.iter().filter(|(a, _)| **a != names.pk && **a != names.sk).collect();
    read.sort_unstable_by(|a, b| a.0.cmp(b.0));
    for (a, v) in read {
        cond.push_str(" AND ");
        ph.push_name(a, &mut cond);
        cond.push_str(" = ");
        ph.push_value(v.clone(), &mut cond);
    }
    for a in versions.iter().filter(|a| !item.contains_key(**a)) {
        cond.push_str(" AND attribute_not_exists(");
        ph.push_name(a, &mut cond);
        cond.push(')');
    }
    cond
}

fn key_of(item: &Item, pk: &str, sk: &str) -> Item {
    [pk, sk].into_iter().filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone()))).collect()
}

/// How many times a move is sent after throttling, a server error or a conflict with another
/// transaction, with [`RETRY`]'s backoff (a move is cheap to resend: its conditions make it
/// idempotent), before the run stops with the error or reports the item as failed.
const MOVE_RETRIES: u32 = 16;

/// `attribute_not_exists(PK) OR (ownerPK = :old_pk AND ownerSK = :old_sk)`: a guard that is
/// absent or owned by the item at `old`.
fn free_or_owned_by(pk: &str, old: &Item, names: &crate::schema::AttributeNames, ph: &mut Placeholders) -> String {
    let mut cond = String::from("attribute_not_exists(");
    ph.push_name(pk, &mut cond);
    cond.push_str(") OR (");
    ph.push_name(OWNER_PK, &mut cond);
    cond.push_str(" = ");
    ph.push_value(old.get(names.pk).cloned().unwrap_or(AttributeValue::Null(true)), &mut cond);
    cond.push_str(" AND ");
    ph.push_name(OWNER_SK, &mut cond);
    cond.push_str(" = ");
    ph.push_value(old.get(names.sk).cloned().unwrap_or(AttributeValue::Null(true)), &mut cond);
    cond.push(')');
    cond
}

/// The guards of `item`'s unique values under `schema`: key and (field attribute, value).
fn guards_of(
    schema: &'static EntitySchema,
    item: &Item,
) -> Result<Vec<(crate::schema::PrimaryKey, &'static str, AttributeValue)>, Error> {
    let mut out = Vec::new();
    for f in schema.unique_fields() {
        let value = item.get(f.attribute);
        if let Some(key) = crate::unique::guard_key(schema.name, f.attribute, value)? {
            out.push((key, f.attribute, value.cloned().unwrap_or(AttributeValue::Null(true))));
        }
    }
    Ok(out)
}

/// The guard actions of a move from `old` to `new` (after the put and the delete of the item):
/// a put of each guard of `new` with the new owner, a delete of each guard of `old` that `new`
/// does not keep, each on the condition that the guard is absent or `old`'s. Returns the
/// actions and, by position, the guard keys (for errors).
fn guard_moves<E: Entity>(
    table: &Table,
    old: &Item,
    new: &Item,
    new_schema: &'static EntitySchema,
) -> Result<(Vec<TransactWriteItem>, Vec<String>), Error> {
    let names = E::NAMES;
    let invalid = |e: String| Error::Invalid { reason: e };
    let text = |k: &crate::schema::PrimaryKey| k.pk.as_s().cloned().unwrap_or_default();
    let olds = guards_of(E::SCHEMA, old)?;
    let news = guards_of(new_schema, new)?;
    let mut actions = Vec::new();
    let mut keys = Vec::new();
    for (key, attribute, value) in &news {
        let part = |from: &str| new.get(from).cloned().unwrap_or(AttributeValue::Null(true));
        let owner = crate::schema::PrimaryKey { pk: part(names.pk), sk: part(names.sk) };
        let item = crate::unique::guard_item(names, key, new_schema.name, attribute, value.clone(), &owner);
        let mut ph = Placeholders::default();
        let cond = free_or_owned_by(names.pk, old, names, &mut ph);
        let put = Put::builder()
            .table_name(table.name())
            .set_item(Some(item))
            .condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .build()
            .map_err(|e| invalid(e.to_string()))?;
        actions.push(TransactWriteItem::builder().put(put).build());
        keys.push(text(key));
    }
    for (key, _, _) in olds.iter().filter(|(k, _, _)| !news.iter().any(|(n, _, _)| n == k)) {
        let mut ph = Placeholders::default();
        let cond = free_or_owned_by(names.pk, old, names, &mut ph);
        let delete = Delete::builder()
            .table_name(table.name())
            .key(names.pk, key.pk.clone())
            .key(names.sk, key.sk.clone())
            .condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .build()
            .map_err(|e| invalid(e.to_string()))?;
        actions.push(TransactWriteItem::builder().delete(delete).build());
        keys.push(text(key));
    }
    Ok((actions, keys))
}

/// Whether the item at `new`'s key is `new` (a strongly consistent read): a move whose answer
/// was lost was applied.
async fn landed<E: Entity>(table: &Table, new: &Item) -> Result<bool, Error> {
    let names = E::NAMES;
    let request = crate::table::body::get_item(
        table.client(),
        aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
            .table_name(table.name())
            .set_key(Some(key_of(new, names.pk, names.sk)))
            .consistent_read(true),
    );
    let out = table.execute(Call::new("GetItem", E::TYPE), request).await.map_err(|e| Error::sdk("GetItem", e))?;
    Ok(out.item.as_ref() == Some(new))
}

/// Moves one item of `E` (the old entity) to the key `mover` gives it, with its unique guards:
/// the outcome, how many times it changed meanwhile, and the write units consumed.
pub(crate) async fn move_item<E: Entity>(
    table: &Table,
    mover: &Mover,
    item: Item,
) -> Result<(Outcome, u64, f64), Error> {
    let names = E::NAMES;
    let invalid = |e: String| Error::Invalid { reason: e };
    let versions = evolve::written_attributes(E::SCHEMA);
    let (invalid, versions) = (&invalid, &versions);
    // The item as last read, how many times it changed, and whether a request of this move may
    // have been applied without its answer arriving.
    let mut state = (item, 0u64, false);
    // `Retry` carries the answer if the policy allows no further attempt.
    let outcome = Retrying::new(Call::new("TransactWriteItems", E::TYPE), RETRY.max_attempts(MOVE_RETRIES))
        .run(&mut state, |(item, changed, ambiguous), attempt| {
            Box::pin(async move {
                let changed_now = *changed;
                let done = |outcome| Ok(Next::Done((outcome, changed_now, 0.0)));
                let (mut new_item, new_schema) = match mover(item) {
                    Ok(None) => return done(Outcome::Skipped),
                    Ok(Some(n)) => n,
                    Err(e @ Error::Invalid { .. }) => return Err(e),
                    Err(e) => return done(Outcome::Failed(e.to_string())),
                };
                // The attributes no declared version of either entity writes (another service's) move
                // with the item, as read.
                let new_versions = evolve::written_attributes(new_schema);
                let foreign = |k: &str| {
                    k != names.pk
                        && k != names.sk
                        && k != names.entity_type
                        && versions.binary_search(&k).is_err()
                        && new_versions.binary_search(&k).is_err()
                };
                for (k, v) in item.iter() {
                    if foreign(k) && !new_item.contains_key(k) {
                        new_item.insert(k.clone(), v.clone());
                    }
                }
                if let Err(e) = crate::schema::size::check_item_size_in(names, E::TYPE, &new_item) {
                    return done(Outcome::Failed(e.to_string()));
                }
                let old_key = key_of(item, names.pk, names.sk);
                if key_of(&new_item, names.pk, names.sk) == old_key {
                    // The template change gives this item the key it has: nothing to move.
                    return done(Outcome::Skipped);
                }
                let (guards, guard_keys) = match guard_moves::<E>(table, item, &new_item, new_schema) {
                    Ok(g) => g,
                    Err(e) => return done(Outcome::Failed(e.to_string())),
                };
                let mut put_ph = Placeholders::default();
                let mut put_cond = String::from("attribute_not_exists(");
                put_ph.push_name(names.pk, &mut put_cond);
                put_cond.push(')');
                let put = Put::builder()
                    .table_name(table.name())
                    .set_item(Some(new_item.clone()))
                    .condition_expression(put_cond)
                    .set_expression_attribute_names(put_ph.take_names())
                    .build()
                    .map_err(|e| invalid(e.to_string()))?;
                let mut del_ph = Placeholders::default();
                let del_cond = unchanged::<E>(item, versions, &mut del_ph);
                let (del_names, del_values) = (del_ph.take_names(), del_ph.take_values());
                let expressions = [("ConditionExpression", del_cond.as_str(), false, 0)];
                if let Err(e) = crate::limits::check_request(&expressions, del_names.as_ref(), del_values.as_ref()) {
                    // The condition must check every attribute the move carries, or a write made
                    // meanwhile would be lost: an item this wide cannot be moved in one transaction.
                    let e = e.request("TransactWriteItems", E::TYPE, names.describe_key(item));
                    let why = format!(
                        "{e}: a move checks each of the item's {} attributes, and each attribute {} declares that the \
                         item lacks, so that a write made meanwhile is not lost; move this item by hand",
                        item.len(),
                        E::TYPE
                    );
                    return done(Outcome::Failed(why));
                }
                let delete = Delete::builder()
                    .table_name(table.name())
                    .set_key(Some(old_key))
                    .condition_expression(del_cond)
                    .set_expression_attribute_names(del_names)
                    .set_expression_attribute_values(del_values)
                    .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
                    .build()
                    .map_err(|e| invalid(e.to_string()))?;
                let mut items = vec![
                    TransactWriteItem::builder().put(put).build(),
                    TransactWriteItem::builder().delete(delete).build(),
                ];
                items.extend(guards);
                let request = table
                    .client()
                    .transact_write_items()
                    .set_transact_items(Some(items))
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send();
                match table.execute(attempt.call(), request).await {
                    Ok(out) => {
                        let units =
                            Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), true).write();
                        Ok(Next::Done((Outcome::Updated, *changed, units)))
                    }
                    Err(e) if crate::retry::retryable(&e) => {
                        // Throttling or a server error: the move may or may not have been applied; sent
                        // again, its conditions tell.
                        *ambiguous |= !matches!(&e, SdkError::ServiceError(s) if is_throttling(s.err()));
                        Ok(Next::Retry(Err(Error::sdk("TransactWriteItems", e))))
                    }
                    Err(SdkError::ServiceError(e)) => match e.into_err() {
                        TransactWriteItemsError::TransactionCanceledException(c) => {
                            let reasons = c.cancellation_reasons();
                            let code = |i: usize| reasons.get(i).and_then(|r| r.code()).unwrap_or("None");
                            if let Some(g) = (2..reasons.len()).find(|i| code(*i) == "ConditionalCheckFailed") {
                                if code(1) != "ConditionalCheckFailed" {
                                    let why = format!(
                                        "its unique guard {} belongs to another item; nothing was moved",
                                        guard_keys.get(g - 2).map_or("?", String::as_str)
                                    );
                                    return done(Outcome::Failed(why));
                                }
                            }
                            if code(1) == "ConditionalCheckFailed" {
                                match reasons[1].item().filter(|i| !i.is_empty()) {
                                    Some(now) if crate::owner::is_type(now, E::SCHEMA) => {
                                        *changed += 1;
                                        *item = now.clone();
                                    }
                                    _ if *ambiguous && landed::<E>(table, &new_item).await? => {
                                        // An earlier attempt moved it; its answer was lost.
                                        return Ok(Next::Done((Outcome::Updated, *changed, 0.0)));
                                    }
                                    _ => return Ok(Next::Done((Outcome::Vanished, *changed + 1, 0.0))),
                                }
                                if *changed < u64::from(ATTEMPTS) {
                                    return Ok(Next::Again);
                                }
                                let why = format!("the item changed {ATTEMPTS} times while it was moved");
                                Ok(Next::Done((Outcome::Failed(why), *changed, 0.0)))
                            } else if code(0) == "ConditionalCheckFailed" {
                                let why = format!(
                                    "an item is already at its new key {}; neither was changed",
                                    names.describe_key(&new_item)
                                );
                                done(Outcome::Failed(why))
                            } else {
                                // A conflicting transaction or throttling: try again, without counting
                                // an attempt (bounded by the retries).
                                let why = format!("the move was canceled {} times by conflicts", attempt.retries + 1);
                                Ok(Next::Retry(Ok((Outcome::Failed(why), *changed, 0.0))))
                            }
                        }
                        other => Err(Error::sdk("TransactWriteItems", other)),
                    },
                    Err(e) => Err(Error::sdk("TransactWriteItems", e)),
                }
            })
        })
        .await?;
    match outcome {
        Ok(done) => Ok(done),
        Err(last) => last,
    }
}

/// Whether `e` is throttling (a request DynamoDB refused, so never applied).
fn is_throttling(e: &TransactWriteItemsError) -> bool {
    matches!(
        e,
        TransactWriteItemsError::ProvisionedThroughputExceededException(_)
            | TransactWriteItemsError::ThrottlingException(_)
            | TransactWriteItemsError::RequestLimitExceeded(_)
    )
}

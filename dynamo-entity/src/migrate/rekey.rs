//! Re-keying: after an entity's primary key template changes, move each of its items to its
//! new key.
//!
//! ```ignore
//! // Members move from `MEMBER#<id>` / `META` to their team's partition, `TEAM#<team>` / `MEMBER#<id>`.
//! let report = table.rekey::<MemberV1, Member>("member-into-teams", Member::from).segments(8).run().await?;
//! ```
//!
//! A re-keying is a [`Backfill`] whose step for each item is a move: the scan reads the items
//! of the old entity's type; an item that already decodes as the new entity under its new key
//! is skipped; any other is decoded as the old entity, converted, and moved in one
//! `TransactWriteItems`: a `Put` of the new item, on the condition that nothing is at the new
//! key yet, and a `Delete` of the old item, on the condition that it is still as read (every
//! attribute read has the value read, every other field of the old entity is still absent).
//! When the old item changed, it is read again and moved as it now is; when it is gone, it is
//! counted in [`vanished`](crate::migrate::BackfillReport::vanished); when an item is already at
//! the new key, nothing is written and the old item is reported as failed, naming both keys.
//! Progress, resumption after a crash, workers and reports are those of a backfill (its
//! `updated` counts the items moved).
//!
//! Not handled yet: entities with `#[entity(unique)]` fields (their guard items name the old
//! key; [`Table::rekey`] refuses them), and items of other entities that hold the old key.

use std::sync::Arc;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsError;
use aws_sdk_dynamodb::types::{
    Delete, Put, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure, TransactWriteItem,
};

use crate::capacity::Capacity;
use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::backfill::{ATTEMPTS, Backfill, Mover, Outcome, RETRY};
use crate::schema::{Entity, Item};
use crate::table::{Call, Table};

impl Table {
    /// A re-keying of every item of entity `Old` to the primary key of `New` (see
    /// [`rekey`](crate::migrate::rekey)), converting each value with `convert`, recorded
    /// under the migration id `id`. `Old` and `New` are usually two versions of one entity,
    /// sharing its type name (`#[entity(name = "...")]`).
    ///
    /// The returned backfill's `run` fails with [`Error::Invalid`] at the first item it reads
    /// when `Old` or `New` has `#[entity(unique)]` fields, or their type names differ.
    pub fn rekey<Old: Entity, New: Entity>(
        &self,
        id: impl Into<String>,
        convert: impl Fn(Old) -> New + Send + Sync + 'static,
    ) -> Backfill<Old> {
        let refusal = if Old::SCHEMA.has_unique() || New::SCHEMA.has_unique() {
            Some(format!(
                "re-keying {} to {}: entities with unique fields are not supported (their guard items name the old \
                 key)",
                Old::TYPE,
                New::TYPE
            ))
        } else if Old::TYPE != New::TYPE {
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
            new.to_item().map(Some)
        });
        let mut backfill = self.backfill::<Old>(id);
        backfill.mover = Some(mover);
        backfill
    }
}

/// The condition that `item` is still as read: it exists, and each of its attributes has the
/// value read and each field of `E` it lacks is still absent.
fn unchanged<E: Entity>(item: &Item, ph: &mut Placeholders) -> String {
    let names = E::NAMES;
    let mut cond = String::from("attribute_exists(");
    ph.push_name(names.pk, &mut cond);
    cond.push(')');
    let mut attrs: Vec<&String> = item.keys().filter(|a| **a != names.pk && **a != names.sk).collect();
    attrs.sort();
    for a in attrs {
        cond.push_str(" AND ");
        ph.push_name(a, &mut cond);
        cond.push_str(" = ");
        ph.push_value(item[a].clone(), &mut cond);
    }
    for f in E::SCHEMA.fields {
        if !item.contains_key(f.attribute) {
            cond.push_str(" AND attribute_not_exists(");
            ph.push_name(f.attribute, &mut cond);
            cond.push(')');
        }
    }
    cond
}

fn key_of(item: &Item, pk: &str, sk: &str) -> Item {
    [pk, sk].into_iter().filter_map(|n| item.get(n).map(|v| (n.to_owned(), v.clone()))).collect()
}

/// Moves one item of `E` (the old entity) to the key `mover` gives it: the outcome, how many
/// times it changed meanwhile, and the write units consumed.
pub(crate) async fn move_item<E: Entity>(
    table: &Table,
    mover: &Mover,
    mut item: Item,
) -> Result<(Outcome, u64, f64), Error> {
    let names = E::NAMES;
    let invalid = |e: String| Error::Invalid { reason: e };
    let mut changed = 0;
    let mut retries = 0;
    let mut attempt = 0;
    while attempt < ATTEMPTS {
        attempt += 1;
        let new_item = match mover(&item) {
            Ok(None) => return Ok((Outcome::Skipped, changed, 0.0)),
            Ok(Some(n)) => n,
            Err(e @ Error::Invalid { .. }) => return Err(e),
            Err(e) => return Ok((Outcome::Failed(e.to_string()), changed, 0.0)),
        };
        let old_key = key_of(&item, names.pk, names.sk);
        if key_of(&new_item, names.pk, names.sk) == old_key {
            // The template change gives this item the key it has: nothing to move.
            return Ok((Outcome::Skipped, changed, 0.0));
        }
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
        let del_cond = unchanged::<E>(&item, &mut del_ph);
        let delete = Delete::builder()
            .table_name(table.name())
            .set_key(Some(old_key))
            .condition_expression(del_cond)
            .set_expression_attribute_names(del_ph.take_names())
            .set_expression_attribute_values(del_ph.take_values())
            .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
            .build()
            .map_err(|e| invalid(e.to_string()))?;
        let request = table
            .client()
            .transact_write_items()
            .transact_items(TransactWriteItem::builder().put(put).build())
            .transact_items(TransactWriteItem::builder().delete(delete).build())
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        match table.execute(Call::new("TransactWriteItems", E::TYPE), request).await {
            Ok(out) => {
                let units = Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), true).write();
                return Ok((Outcome::Updated, changed, units));
            }
            Err(e) if crate::retry::retryable(&e) && retries + 1 < RETRY.max_attempts => {
                // Throttling or a server error: the move may or may not have been applied; sent
                // again, its conditions tell (an applied move then reads as gone: `vanished`).
                retries += 1;
                attempt -= 1;
                tokio::time::sleep(RETRY.jittered(retries)).await;
            }
            Err(SdkError::ServiceError(e)) => match e.into_err() {
                TransactWriteItemsError::TransactionCanceledException(c) => {
                    let reasons = c.cancellation_reasons();
                    let code = |i: usize| reasons.get(i).and_then(|r| r.code()).unwrap_or("None");
                    if code(1) == "ConditionalCheckFailed" {
                        changed += 1;
                        match reasons[1].item().filter(|i| !i.is_empty()) {
                            Some(now) if crate::query::is_type(now, E::SCHEMA) => item = now.clone(),
                            _ => return Ok((Outcome::Vanished, changed, 0.0)),
                        }
                    } else if code(0) == "ConditionalCheckFailed" {
                        let why = format!(
                            "an item is already at its new key {}; neither was changed",
                            names.describe_key(&new_item)
                        );
                        return Ok((Outcome::Failed(why), changed, 0.0));
                    } else {
                        // A conflicting transaction or throttling: try again.
                        changed += 1;
                        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                    }
                }
                other => return Err(Error::sdk("TransactWriteItems", other)),
            },
            Err(e) => return Err(Error::sdk("TransactWriteItems", e)),
        }
    }
    Ok((Outcome::Failed(format!("the item changed {ATTEMPTS} times while it was moved")), changed, 0.0))
}

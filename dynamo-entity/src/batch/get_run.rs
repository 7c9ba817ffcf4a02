//! The reading of one `BatchGetItem` request's keys: the keys ([`GetEntry`]), the request, its
//! retries of what comes back unprocessed, and the report of what was found and what was left.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use aws_sdk_dynamodb::operation::batch_get_item::builders::BatchGetItemInputBuilder;
use aws_sdk_dynamodb::types::{KeysAndAttributes, ReturnConsumedCapacity};

use crate::batch::key_id::{KeyId, key_id, key_id_of};
use crate::batch::run::{Run, reason_after};
use crate::capacity::Capacity;
use crate::error::{Error, UnprocessedReason};
use crate::retry::retryable;
use crate::schema::{AttributeNames, Entity, Item, Key, PrimaryKey};
use crate::table::{Next, Table};

/// One key of a batch get.
#[derive(Debug, Clone)]
pub(super) struct GetEntry {
    pub(super) entity: &'static str,
    pub(super) names: &'static AttributeNames,
    pub(super) key: PrimaryKey,
}

impl GetEntry {
    pub(super) fn new<E: Entity>(key: Key<E>) -> Result<GetEntry, Error> {
        let key = key.into_encoded()?;
        key_id_of(&key, E::NAMES)?;
        Ok(GetEntry { entity: E::TYPE, names: E::NAMES, key })
    }
}

/// What the requests of one chunk of keys read, and what they left.
pub(super) struct GetReport {
    pub(super) found: Vec<(usize, Item)>,
    pub(super) left: Vec<(usize, UnprocessedReason)>,
    pub(super) requests: u32,
    pub(super) retries: u32,
    pub(super) backoff: Duration,
    pub(super) capacity: Capacity,
    pub(super) fatal: Option<Error>,
}

/// The `BatchGetItem` request of `keys`.
pub(super) fn get_request(table: &Table, keys: Vec<Item>, consistent: bool) -> Result<BatchGetItemInputBuilder, Error> {
    let request =
        KeysAndAttributes::builder().set_keys(Some(keys)).consistent_read(consistent).build().map_err(invalid)?;
    Ok(aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput::builder()
        .request_items(table.name(), request)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes))
}

fn invalid(e: impl fmt::Display) -> Error {
    Error::Invalid { reason: e.to_string() }
}

impl Run<'_, GetEntry> {
    /// Reads one request's worth of keys, re-sending what comes back unprocessed.
    pub(super) async fn get_chunk(
        &self,
        pending: Vec<usize>,
        positions: &HashMap<KeyId<'_>, (usize, &'static str)>,
        consistent: bool,
    ) -> GetReport {
        let report = GetReport {
            found: Vec::with_capacity(pending.len()),
            left: Vec::new(),
            requests: 0,
            retries: 0,
            backoff: Duration::ZERO,
            capacity: Capacity::default(),
            fatal: None,
        };
        let mut state = (pending, report);
        // `Retry` carries the attempt's error (`None`: answered, with keys unprocessed).
        let run = self.retrying("BatchGetItem").run(&mut state, |(pending, report), attempt| {
            Box::pin(async move {
                report.backoff = attempt.slept;
                if self.stop.load(Ordering::Relaxed) {
                    let reason = reason_after(attempt.number - 1, attempt.previous.flatten());
                    report.left.extend(std::mem::take(pending).into_iter().map(|i| (i, reason.clone())));
                    return Ok(Next::Done(()));
                }
                report.requests += 1;
                if attempt.number > 1 {
                    report.retries += 1;
                }
                let keys = pending.iter().map(|&i| self.entries[i].names.key_item(&self.entries[i].key)).collect();
                // The key attribute names of the entries sent (one set for the entities of a table).
                let mut names: Vec<&'static AttributeNames> = Vec::with_capacity(1);
                for &i in pending.iter() {
                    if !names.iter().any(|n| std::ptr::eq(*n, self.entries[i].names)) {
                        names.push(self.entries[i].names);
                    }
                }
                // The position of the key an item names.
                let position_of = |item: &Item| -> Option<usize> {
                    names.iter().find_map(|n| {
                        let id = key_id(item.get(n.pk), item.get(n.sk))?;
                        positions.get(&id).map(|p| p.0)
                    })
                };
                let request = match get_request(self.table, keys, consistent) {
                    Ok(request) => request,
                    Err(e) => {
                        // A request that cannot be built stops this chunk only.
                        report.fatal = Some(e);
                        return Ok(Next::Done(()));
                    }
                };
                let result = self
                    .table
                    .execute(attempt.call(), crate::table::body::batch_get_item(self.table.client(), request))
                    .await;
                let out = match result {
                    Ok(out) => out,
                    Err(err) if retryable(&err) => {
                        return Ok(Next::Retry(Some(Arc::new(Error::sdk("BatchGetItem", err)))));
                    }
                    Err(err) => return Err(Error::sdk("BatchGetItem", err)),
                };
                report.capacity += Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), false);
                let items = out.responses.and_then(|mut m| m.remove(self.table.name())).unwrap_or_default();
                let mut done = Vec::with_capacity(items.len());
                for item in items {
                    match position_of(&item) {
                        Some(i) => {
                            done.push(i);
                            report.found.push((i, item));
                        }
                        None => {
                            let key = names
                                .first()
                                .map_or_else(|| crate::schema::describe_key(&item), |n| n.describe_key(&item));
                            tracing::warn!(%key, "BatchGetItem returned an item that was not asked for")
                        }
                    }
                }
                let returned = out
                    .unprocessed_keys
                    .and_then(|mut m| m.remove(self.table.name()))
                    .map(|k| k.keys)
                    .unwrap_or_default();
                let mut still = Vec::with_capacity(returned.len());
                for key in &returned {
                    match position_of(key) {
                        Some(i) if pending.contains(&i) => still.push(i),
                        _ => {
                            tracing::warn!(?key, "UnprocessedKeys names a key that was not sent; re-reading them all");
                            still = pending.iter().copied().filter(|i| !done.contains(i)).collect();
                            break;
                        }
                    }
                }
                *pending = still;
                if pending.is_empty() { Ok(Next::Done(())) } else { Ok(Next::Retry(None)) }
            })
        });
        let outcome = run.await;
        let (pending, mut report) = state;
        match outcome {
            Ok(Ok(())) => {}
            // The policy allows no further attempt.
            Ok(Err(last_error)) => {
                let reason = reason_after(report.requests, last_error);
                report.left.extend(pending.into_iter().map(|i| (i, reason.clone())));
            }
            // An error that retrying cannot fix stops the batch.
            Err(error) => {
                self.stop.store(true, Ordering::Relaxed);
                report.fatal = Some(error);
            }
        }
        report
    }
}

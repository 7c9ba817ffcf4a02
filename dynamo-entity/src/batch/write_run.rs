//! The sending of one `BatchWriteItem` request's writes: the request, its retries of what comes
//! back unprocessed, and the report of what was written and what was left.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use aws_sdk_dynamodb::operation::batch_write_item::builders::BatchWriteItemFluentBuilder;
use aws_sdk_dynamodb::types::{ReturnConsumedCapacity, WriteRequest};

use crate::batch::key_id::{KeyId, entry_id};
use crate::batch::lost::LostAnswer;
use crate::batch::run::{Run, reason_after};
use crate::batch::wire;
use crate::batch::write_op::{WriteOp, write_request_key};
use crate::capacity::Capacity;
use crate::error::{Error, UnprocessedReason};
use crate::retry::retryable;
use crate::table::{Next, Table};

/// The `BatchWriteItem` request of `requests`, as sent and rendered.
pub(super) fn write_request(table: &Table, requests: Vec<WriteRequest>) -> BatchWriteItemFluentBuilder {
    table
        .client()
        .batch_write_item()
        .request_items(table.name(), requests)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
}

#[derive(Default)]
pub(super) struct WriteReport {
    pub(super) written: usize,
    pub(super) left: Vec<(usize, UnprocessedReason)>,
    /// The positions of the writes an attempt that lost its answer carried: DynamoDB may have
    /// applied them (see [`LostAnswer`]).
    pub(super) maybe_written: BTreeSet<usize>,
    pub(super) requests: u32,
    pub(super) retries: u32,
    pub(super) backoff: Duration,
    pub(super) capacity: Capacity,
    pub(super) fatal: Option<Arc<Error>>,
}

impl WriteReport {
    fn leave(&mut self, pending: Vec<usize>, reason: UnprocessedReason) {
        self.left.extend(pending.into_iter().map(|i| (i, reason.clone())));
    }
}

impl Run<'_, WriteOp> {
    /// Writes one request's worth of entries (the writes at the positions `pending`),
    /// re-sending what comes back unprocessed or fails with a retryable error. Each attempt's
    /// request is built from the writes' bytes (see `wire`): the writes stay in the batch.
    pub(super) async fn write_chunk(&self, pending: Vec<usize>) -> WriteReport {
        let mut state = (pending, WriteReport::default());
        // `Retry` carries the attempt's error (`None`: answered, with writes unprocessed).
        let run = self.retrying("BatchWriteItem").run(&mut state, |(pending, report), attempt| {
            Box::pin(async move {
                report.backoff = attempt.slept;
                if self.stop.load(Ordering::Relaxed) {
                    let sent = attempt.number - 1;
                    report.leave(std::mem::take(pending), reason_after(sent, attempt.previous.flatten()));
                    return Ok(Next::Done(()));
                }
                report.requests += 1;
                if attempt.number > 1 {
                    report.retries += 1;
                }
                let writes = wire::joined(pending.iter().map(|&i| &self.entries[i].wire));
                let body = wire::Body::new(self.table.name(), writes);
                let lost = LostAnswer::default();
                let request = write_request(self.table, Vec::new())
                    .customize()
                    .interceptor(body)
                    .interceptor(lost.clone())
                    .send();
                let answer = self.table.execute(attempt.call(), request).await;
                if lost.lost() {
                    report.maybe_written.extend(pending.iter().copied());
                }
                match answer {
                    Ok(out) => {
                        report.capacity +=
                            Capacity::from_consumed(out.consumed_capacity.as_deref().unwrap_or_default(), true);
                        let returned =
                            out.unprocessed_items.and_then(|mut m| m.remove(self.table.name())).unwrap_or_default();
                        let still = self.unprocessed_of(pending, &returned);
                        report.written += pending.len() - still.len();
                        *pending = still;
                        if pending.is_empty() { Ok(Next::Done(())) } else { Ok(Next::Retry(None)) }
                    }
                    Err(err) if retryable(&err) => Ok(Next::Retry(Some(Arc::new(Error::sdk("BatchWriteItem", err))))),
                    Err(err) => Err(Arc::new(Error::sdk("BatchWriteItem", err))),
                }
            })
        });
        let outcome = run.await;
        let (pending, mut report) = state;
        match outcome {
            Ok(Ok(())) => {}
            // The policy allows no further attempt.
            Ok(Err(last_error)) => report.leave(pending, reason_after(report.requests, last_error)),
            // An error that retrying cannot fix stops the batch.
            Err(error) => {
                self.stop.store(true, Ordering::Relaxed);
                let reason = UnprocessedReason::Failed { attempts: report.requests, error: Arc::clone(&error) };
                report.leave(pending, reason);
                report.fatal = Some(error);
            }
        }
        report
    }

    /// The positions of `pending` whose writes DynamoDB returned unprocessed, each once, in
    /// position order: empty when every write was applied. A returned entry that matches no
    /// pending write gives all of `pending`: nothing is counted as written that might not be
    /// (puts and deletes are idempotent, so re-sending is safe).
    fn unprocessed_of(&self, pending: &[usize], returned: &[WriteRequest]) -> Vec<usize> {
        if returned.is_empty() {
            return Vec::new();
        }
        let by_key: HashMap<KeyId<'_>, usize> =
            pending.iter().filter_map(|&i| Some((entry_id(&self.entries[i].key)?, i))).collect();
        let mut still = Vec::with_capacity(returned.len());
        for request in returned {
            // Every entity of a table names its keys alike; the names of any pending write do.
            let found = pending.iter().find_map(|&p| {
                write_request_key(request, self.entries[p].names).and_then(|id| by_key.get(&id).copied())
            });
            match found {
                Some(i) => still.push(i),
                None => {
                    tracing::warn!(?request, "UnprocessedItems names a write that was not sent; re-sending them all");
                    let mut all = pending.to_vec();
                    all.sort_unstable();
                    return all;
                }
            }
        }
        still.sort_unstable();
        still.dedup();
        still
    }
}

//! The page loop of a pass: segments claimed, scanned page by page, each item handed to the
//! pass's step, a checkpoint written after each page.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use futures::{StreamExt, TryStreamExt};

use crate::error::Error;
use crate::migrate::pass::Backfill;
use crate::migrate::pass::checkpoint::{Checkpoints, SegmentState};
use crate::migrate::pass::lease::now_ms;
use crate::migrate::pass::report::{BackfillReport, Counts, KEPT_FAILURES, PageDone};
use crate::migrate::pass::step::Outcome;
use crate::schema::{Entity, Item};

impl<E: Entity> Backfill<E> {
    /// Runs the segments of run `run` not done yet, as many at a time as the pass's
    /// concurrency, until every segment is done (by this worker or others); then records the
    /// run `completed` and returns its report.
    pub(super) async fn run_segments(&self, run: u64, segments: u32) -> Result<BackfillReport, Error> {
        if let Some(e) = self.check_names() {
            return Err(e);
        }
        let checkpoints = self.checkpoints();
        let checkpoints = &checkpoints;
        loop {
            let states = checkpoints.segment_states(run, segments).await?;
            if states.iter().all(|s| s.done) {
                checkpoints.put(checkpoints.run_item(run, segments, "completed")).await?;
                return Ok(self.report(run, segments, &states));
            }
            let now = now_ms();
            // The segments this worker may take, claimed concurrently (one conditional write
            // each), as many as it runs at a time; a claim another worker won is left out.
            let free: Vec<SegmentState> =
                states.into_iter().filter(|s| self.lease.may_take(s, now)).take(self.concurrency).collect();
            let claimed: Vec<SegmentState> = futures::stream::iter(free.into_iter().map(|mut state| async move {
                Ok::<_, Error>(self.lease.write(checkpoints, run, &mut state, true).await?.then_some(state))
            }))
            .buffer_unordered(self.concurrency)
            .try_filter_map(|s| async move { Ok(s) })
            .try_collect()
            .await?;
            if claimed.is_empty() {
                // Other workers hold the remaining segments: wait for them to finish, or for a
                // lease to expire.
                tokio::time::sleep(self.lease.poll).await;
                continue;
            }
            futures::stream::iter(claimed.into_iter().map(|s| self.segment(checkpoints, run, segments, s)))
                .buffer_unordered(self.concurrency)
                .try_collect::<Vec<()>>()
                .await?;
        }
    }

    /// Runs one segment from its checkpoint to its end, writing a checkpoint after each page.
    ///
    /// The checkpoint of a page is written while the next page is read (both requests at
    /// once); the next page's items are only written once that checkpoint holds, so a worker
    /// that lost its lease writes nothing more.
    async fn segment(
        &self,
        checkpoints: &Checkpoints<'_>,
        run: u64,
        segments: u32,
        mut state: SegmentState,
    ) -> Result<(), Error> {
        if state.done {
            return Ok(());
        }
        let mut scan = self.table.scan::<E>().segment(state.segment, segments);
        if let Some(n) = self.page_size {
            scan = scan.page_size(n);
        }
        if let Some(rate) = &self.rate {
            scan = scan.rate_limit(Arc::clone(rate));
        }
        let first = if state.started { state.last_key.clone() } else { None };
        let mut page = scan.raw_page(first).await?;
        loop {
            // A lease about to end (a slow page, a paused process) is renewed before the page's
            // items are written: a segment another worker took is left to it.
            if self.lease.ending(&state, now_ms()) && !self.lease.write(checkpoints, run, &mut state, false).await? {
                self.lost(&state);
                return Ok(());
            }
            let mut counts = Counts { read_units: page.consumed.read(), ..Counts::default() };
            counts.scanned = page.items.len() as u64;
            let examined = page.examined;
            let (pk, sk) = (E::NAMES.pk, E::NAMES.sk);
            let results: Vec<(Outcome, u64, f64, [Option<AttributeValue>; 2])> =
                futures::stream::iter(std::mem::take(&mut page.items).into_iter().map(|item| async move {
                    // The key, kept to name the item should it fail.
                    let key = [item.get(pk).cloned(), item.get(sk).cloned()];
                    let (outcome, changed, units) = self.step.item(&self.table, item).await?;
                    Ok::<_, Error>((outcome, changed, units, key))
                }))
                .buffer_unordered(self.writes)
                .try_collect()
                .await?;
            for (outcome, changed, units, key) in results {
                counts.changed += changed;
                counts.write_units += units;
                match outcome {
                    Outcome::Updated => counts.updated += 1,
                    Outcome::Skipped => counts.skipped += 1,
                    Outcome::Vanished => counts.vanished += 1,
                    Outcome::Failed(why) => {
                        counts.failed += 1;
                        if counts.failures.len() < KEPT_FAILURES {
                            let item: Item = [(pk, &key[0]), (sk, &key[1])]
                                .into_iter()
                                .filter_map(|(n, v)| Some((n.to_owned(), v.clone()?)))
                                .collect();
                            counts.failures.push((E::NAMES.describe_key(&item), why));
                        }
                    }
                }
            }
            state.started = true;
            state.last_key = page.last_key.take();
            state.done = state.last_key.is_none();
            state.counts.add(&counts);
            let (held, next) = if state.done {
                (self.lease.write(checkpoints, run, &mut state, false).await?, None)
            } else {
                let read_next = scan.raw_page(state.last_key.clone());
                let (held, next) =
                    futures::future::join(self.lease.write(checkpoints, run, &mut state, false), read_next).await;
                (held?, Some(next))
            };
            if !held {
                self.lost(&state);
                return Ok(());
            }
            if let Some(observer) = &self.observer {
                observer(&PageDone {
                    segment: state.segment,
                    examined,
                    scanned: counts.scanned,
                    updated: counts.updated,
                    segment_done: state.done,
                });
            }
            tracing::info!(
                target: "dynamo_entity",
                backfill = %self.id,
                segment = state.segment,
                scanned = state.counts.scanned,
                updated = state.counts.updated,
                done = state.done,
                "backfill page done"
            );
            match next {
                None => return Ok(()),
                Some(next) => page = next?,
            }
        }
    }

    /// Logs that another worker took segment `state`'s lease: this worker stops working on it
    /// (the new owner reads again the page whose checkpoint this worker could not write).
    fn lost(&self, state: &SegmentState) {
        tracing::warn!(
            target: "dynamo_entity",
            backfill = %self.id,
            segment = state.segment,
            worker = %self.lease.worker,
            "another worker took the segment's lease; this worker leaves the segment to it"
        );
    }
}

//! The part of a batch get that does not depend on the entity type ([`GetCore`]): its keys and
//! settings, split into `BatchGetItem` requests of at most [`MAX_GET_KEYS`] keys, sent and rendered.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use aws_sdk_dynamodb::operation::batch_get_item::BatchGetItemInput;
use futures::StreamExt;
use tokio::time::Instant;

use crate::batch::get_outcome::BatchGetOutcome;
use crate::batch::get_run::{GetEntry, GetReport, get_request};
use crate::batch::key_id::check_duplicates;
use crate::batch::run::{Options, Run};
use crate::capacity::Capacity;
use crate::error::{Error, UnprocessedKey};
use crate::schema::Item;
use crate::table::Table;

/// The most keys DynamoDB accepts in one `BatchGetItem` request.
pub const MAX_GET_KEYS: usize = 100;

#[derive(Debug)]
pub(super) struct GetCore {
    pub(super) table: Table,
    pub(super) keys: Vec<Result<GetEntry, Error>>,
    pub(super) options: Options,
    pub(super) consistent: bool,
}

impl GetCore {
    pub(super) async fn send(self) -> Result<BatchGetOutcome<Item>, Error> {
        let keys = self.keys.into_iter().collect::<Result<Vec<GetEntry>, Error>>()?;
        let positions = check_duplicates(keys.iter().map(|k| (&k.key, k.entity, k.names)))?;
        let indices: Vec<usize> = (0..keys.len()).collect();
        let chunks: Vec<Vec<usize>> = indices.chunks(MAX_GET_KEYS).map(<[usize]>::to_vec).collect();

        let run = Run {
            table: &self.table,
            entries: &keys,
            options: self.options,
            started: Instant::now(),
            stop: AtomicBool::new(false),
        };
        let reports: Vec<GetReport> = futures::stream::iter(chunks)
            .map(|chunk| run.get_chunk(chunk, &positions, self.consistent))
            .buffer_unordered(self.options.concurrency)
            .collect()
            .await;

        let mut outcome = BatchGetOutcome {
            items: vec![None; keys.len()],
            unprocessed: Vec::new(),
            skipped: Vec::new(),
            requests: 0,
            retries: 0,
            backoff: Duration::ZERO,
            consumed_capacity: self.options.capacity.then_some(0.0),
            consumed: Capacity::default(),
        };
        for report in reports {
            if let Some(error) = report.fatal {
                return Err(error);
            }
            outcome.requests += report.requests;
            outcome.retries += report.retries;
            outcome.backoff += report.backoff;
            if let Some(total) = &mut outcome.consumed_capacity {
                *total += report.capacity.total();
            }
            outcome.consumed += report.capacity;
            for (i, item) in report.found {
                outcome.items[i] = Some(item);
            }
            outcome.unprocessed.extend(report.left.into_iter().map(|(i, reason)| UnprocessedKey {
                position: i,
                entity: keys[i].entity,
                key: keys[i].key.clone(),
                reason,
                names: keys[i].names,
            }));
        }
        // Each position is one key's, so no two are equal: the unstable sort gives the one order.
        outcome.unprocessed.sort_unstable_by_key(|u| u.position);
        Ok(outcome)
    }
}

impl GetCore {
    /// The first requests, one per [`MAX_GET_KEYS`] keys.
    pub(super) fn render(&self) -> Result<Vec<BatchGetItemInput>, Error> {
        let mut keys = Vec::with_capacity(self.keys.len());
        for key in &self.keys {
            keys.push(key.as_ref().map_err(Error::copy_of_build_error)?);
        }
        check_duplicates(keys.iter().map(|k| (&k.key, k.entity, k.names)))?;
        keys.chunks(MAX_GET_KEYS)
            .map(|chunk| {
                let items = chunk.iter().map(|k| k.names.key_item(&k.key)).collect();
                crate::table::render::built(get_request(&self.table, items, self.consistent)?.build())
            })
            .collect()
    }
}

//! Write sharding: a GSI partition key spread over `N` partitions, and the query that reads
//! them back as one.
//!
//! A partition key built only from few values, such as `SKILL#<status>` (a review queue), puts
//! every item with one value in one partition, and a partition serves at most 1,000 write and
//! 3,000 read units a second. A shard segment spreads it:
//!
//! ```no_run
//! use dynamo_entity::{Entity, KeyPart, Table, Timestamp};
//!
//! #[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
//! enum SkillStatus { Draft, Pending, Approved }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META",
//!          gsi4 = "SKILL#<status>#<shard(id, 8)>", gsi4_sk = "<submitted_at>")]
//! struct Skill { id: String, status: SkillStatus, submitted_at: Option<Timestamp> }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! // The query takes the other parts; it reads SKILL#pending#0 ... SKILL#pending#7.
//! let page = table.query(Skill::gsi4(&SkillStatus::Pending)).page_items(20).send().await?;
//! let next = table.query(Skill::gsi4(&SkillStatus::Pending)).page_items(20).after(page.cursor).send().await?;
//! # let _ = next;
//! # Ok(())
//! # }
//! ```
//!
//! # The shard segment
//! `<shard(field, N)>` is a segment of a GSI partition key template, `N` from 2 to 100. The
//! source field must always be present (not an `Option`), must not be a part of the same key,
//! and must not be one the library rewrites (`version`, `updated_at`, `ttl`). The shard is in no
//! primary key and no sort key.
//!
//! # The shard number
//! `<shard(field, N)>` is written as [`shard_of`](crate::key::shard_of)`(part, N)`: FNV-1a
//! (64 bits) of the UTF-8 bytes of `field`'s encoded key part (as it appears inside a key:
//! `#` written `%23`, `%` written `%25`, integers zero-padded), modulo `N`, in decimal
//! zero-padded to the width of `N - 1`. `SKILL#pending#3` for 8 shards, `SKILL#pending#03` for
//! 16. Any language can recompute it, and it never changes for a value, so an item moves
//! between shards only when its source field changes (an update that sets the source field
//! rewrites the key, like any GSI key part).
//!
//! # The query
//! A query of a sharded index sends one `Query` per shard, concurrently, with the same
//! key condition, sort-key condition and filter, and merges the shards' items in sort-key
//! order (ascending, or descending after [`descending`](crate::query::QueryRequest::descending);
//! items with equal sort keys come in shard order). With pages of `L` items
//! ([`page_items`](crate::query::QueryRequest::page_items), or what is left of
//! [`max_items`](crate::query::QueryRequest::max_items)), each shard is asked for up to `L` items (or the
//! [`page_size`](crate::query::QueryRequest::page_size)), so a page reads up to `N × L` items: the
//! price of reading `N` partitions in order. Shards that run dry before the page is full are
//! read again. Without either, a page is what one round of requests allows to merge safely.
//! The page's [`consumed`](crate::Page::consumed()) capacity, its
//! [`scanned`](crate::Page#structfield.scanned) and its
//! [`filtered_out`](crate::Page#structfield.filtered_out) counts are the sums over every
//! shard's requests (an item a shard read for this page and the next page takes is read, and
//! counted, again there).
//!
//! The page's one [`Cursor`] records where every shard stands (exhausted, not started, or the
//! key of the last item taken from it). It is bound to the entity, the index, the shards'
//! partitions, the order and the sort-key condition like the cursor of any query, and a cursor
//! of another query, of an unsharded query, or one altered to point outside a shard's
//! partition is rejected with [`Error::Cursor`]. Every item is returned exactly once across
//! pages, in order, whatever the page sizes.
//!
//! [`Table::collection`](crate::Table::collection) has no single partition to read on a
//! sharded index and refuses it with [`Error::Invalid`].

use std::cmp::Ordering;
use std::collections::VecDeque;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::capacity::Capacity;
use crate::error::Error;
use crate::query::cursor::{self, Position};
use crate::query::pages::{Answer, Settled, settle};
use crate::query::{Cursor, Page, QueryRequest, SkCondition, Slot, key_of};
use crate::schema::{Entity, Item};

/// One shard's state while a page is merged.
struct Lane {
    /// Items of the entity fetched and not yet taken, in the shard's order.
    buffer: VecDeque<Item>,
    /// Where the shard resumes when its buffer is not empty: after the last item taken from
    /// it, or where the fetch that filled the buffer started.
    taken: Position,
    /// Where the next fetch starts: DynamoDB's `LastEvaluatedKey`, or `Done`.
    resume: Position,
}

impl Lane {
    fn cursor_position(&self) -> Position {
        if self.buffer.is_empty() { self.resume.clone() } else { self.taken.clone() }
    }

    fn exhausted(&self) -> bool {
        self.buffer.is_empty() && self.resume == Position::Done
    }
}

/// Names the shards' partitions for the cursor's scope: the first and the last shard's key.
fn partition_label(shards: &[AttributeValue]) -> String {
    match (shards.first(), shards.last()) {
        (Some(first), Some(last)) => {
            format!("{}..{} ({} shards)", cursor::scalar_text(first), cursor::scalar_text(last), shards.len())
        }
        _ => "(no shards)".to_owned(),
    }
}

/// DynamoDB's order of two sort key values of one type: strings and binaries by bytes,
/// numbers by value.
fn compare_keys(a: Option<&AttributeValue>, b: Option<&AttributeValue>) -> Ordering {
    match (a, b) {
        (Some(AttributeValue::S(x)), Some(AttributeValue::S(y))) => x.as_bytes().cmp(y.as_bytes()),
        (Some(AttributeValue::N(x)), Some(AttributeValue::N(y))) => crate::value::compare_numbers(x, y),
        (Some(AttributeValue::B(x)), Some(AttributeValue::B(y))) => x.as_ref().cmp(y.as_ref()),
        (None, Some(_)) => Ordering::Less,
        (Some(_), None) => Ordering::Greater,
        _ => Ordering::Equal,
    }
}

/// Runs one page of a sharded query: fans out over `shards`, merges in sort-key order.
pub(crate) async fn send<E: Entity, S>(
    req: &QueryRequest<E, S>,
    shards: &[AttributeValue],
    sk: Option<SkCondition>,
) -> Result<Page<E>, Error> {
    let index = req.spec.index.index;
    let entity = req.spec.entity;
    let sk_attribute = E::NAMES.sk_of(index);
    let scope = req.scope(partition_label(shards), &sk);
    let starts = match &req.options.after {
        Some(c) => cursor::decode_sharded(c.as_str(), &scope, E::NAMES, index, shards)?,
        None => vec![Position::Start; shards.len()],
    };
    let first = shards.first().cloned().ok_or_else(|| Error::Invalid {
        reason: format!("{entity}: a sharded query of {} needs at least one shard", E::NAMES.label(index)),
    })?;
    let parts = req.parts(first, sk)?;
    let mut lanes: Vec<Lane> =
        starts.into_iter().map(|p| Lane { buffer: VecDeque::new(), taken: p.clone(), resume: p }).collect();

    // Projected index items (no type attribute) are read whole at the end, in merge order.
    let mut items: Vec<Slot<E>> = Vec::new();
    let mut skipped = Vec::new();
    let mut passed_over = 0u64;
    let mut consumed = Capacity::default();
    // `ScannedCount` summed over every shard's requests, and what their filter left out.
    let (mut scanned, mut filtered_out) = (0u64, 0u64);
    let mut rounds = 0usize;
    loop {
        if Some(items.len()) == req.options.counts.page_limit() {
            break;
        }
        // Every shard that may hold the next item must have one at hand before any is taken.
        let dry: Vec<usize> =
            (0..lanes.len()).filter(|&i| lanes[i].buffer.is_empty() && lanes[i].resume != Position::Done).collect();
        if !dry.is_empty() {
            if req.options.counts.page_limit().is_none() && rounds > 0 {
                break;
            }
            rounds += 1;
            let page_limit = req.options.request_limit(items.len());
            let requests = dry.iter().map(|&i| {
                let start = match &lanes[i].resume {
                    Position::After(k) => Some(k.clone()),
                    _ => None,
                };
                req.fetch(&parts, Some(&shards[i]), page_limit, start)
            });
            let responses = futures::future::try_join_all(requests).await?;
            for (&i, resp) in dry.iter().zip(responses) {
                let mut answer = Answer::of_query(resp);
                let answer_items = answer.take_items()?;
                consumed += answer.consumed;
                scanned += answer.scanned;
                filtered_out += answer.scanned.saturating_sub(answer.count);
                let lane = &mut lanes[i];
                lane.taken = lane.resume.clone();
                for item in answer_items {
                    // Kept: this entity's items, and those to report (`Err`).
                    if !matches!(req.found(&item), Ok(None)) {
                        lane.buffer.push_back(item);
                    } else {
                        tracing::debug!(entity, "sharded query skipped an item of another entity type");
                    }
                }
                lane.resume = answer.last_key.map_or(Position::Done, Position::After);
            }
            continue;
        }
        // Take the lowest (highest, descending) head; equal sort keys in shard order.
        let mut best: Option<usize> = None;
        for (i, lane) in lanes.iter().enumerate() {
            let Some(head) = lane.buffer.front() else { continue };
            let better = match best {
                None => true,
                Some(b) => {
                    let current = lanes[b].buffer.front().and_then(|x| x.get(sk_attribute));
                    let order = compare_keys(head.get(sk_attribute), current);
                    if req.options.descending { order == Ordering::Greater } else { order == Ordering::Less }
                }
            };
            if better {
                best = Some(i);
            }
        }
        let Some(b) = best else { break };
        let lane = &mut lanes[b];
        let Some(item) = lane.buffer.pop_front() else { break };
        lane.taken = Position::After(key_of(&item, E::NAMES, index));
        // Taken as every page loop takes an item (`pages::settle`).
        let taken = match req.found(&item) {
            Ok(Some(found)) => Slot::of(&item, found).map(Some),
            Ok(None) => E::from_item(&item).map(|e| Some(Slot::Whole(e))),
            Err(e) => Err(e),
        };
        match settle(taken, || item, req.options.lenient, E::NAMES, &mut skipped)? {
            Settled::Kept(value) => items.push(value),
            Settled::Passed => passed_over += 1,
            Settled::Reported => {}
        }
    }

    let cursor = if lanes.iter().all(Lane::exhausted) {
        None
    } else {
        let positions: Vec<Position> = lanes.iter().map(Lane::cursor_position).collect();
        Some(Cursor::from(cursor::encode_sharded(&scope, &positions)))
    };
    let items = req.hydrate(items, &mut skipped).await?;
    Ok(Page { items, skipped, cursor, consumed, segment: None, scanned, filtered_out, passed_over })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_compare_as_dynamodb_does() {
        let s = |t: &str| AttributeValue::S(t.to_owned());
        let n = |t: &str| AttributeValue::N(t.to_owned());
        assert_eq!(compare_keys(Some(&s("a")), Some(&s("b"))), Ordering::Less);
        assert_eq!(compare_keys(Some(&s("Z")), Some(&s("a"))), Ordering::Less);
        assert_eq!(compare_keys(Some(&n("9")), Some(&n("10"))), Ordering::Less);
        assert_eq!(compare_keys(Some(&n("-1")), Some(&n("-10"))), Ordering::Greater);
        assert_eq!(compare_keys(Some(&n("1.50")), Some(&n("1.5"))), Ordering::Equal);
    }

    #[test]
    fn the_cursor_scope_names_first_and_last_shard() {
        let shards =
            [AttributeValue::S("Q#0".into()), AttributeValue::S("Q#1".into()), AttributeValue::S("Q#2".into())];
        assert_eq!(partition_label(&shards), "S:Q#0..S:Q#2 (3 shards)");
    }
}

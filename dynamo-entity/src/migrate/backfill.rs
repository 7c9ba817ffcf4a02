//! Index backfills: after an entity gains or changes a secondary index template, write the new
//! key attributes of every item of that entity already in the table.
//!
//! ```ignore
//! // Member gained `gsi2 = "TEAM#<team>", gsi2_sk = "<rank>"`: fill GSI2PK / GSI2SK of the
//! // members written before, 8 segments, 4 at a time, at most 500 read units a second.
//! let report = table.backfill::<Member>("member-gsi2").segments(8).concurrency(4).read_rate(500.0).run().await?;
//! println!("{report}");
//! ```
//!
//! # How it works
//! A parallel scan ([`query::scan`](crate::query::scan)) reads the entity's items, segment by
//! segment. For each item, the entity's key templates give the secondary index keys it should
//! have ([`Entity::from_item`], then [`Entity::gsi_keys`]): every GSI key pair and LSI sort key
//! the entity declares. An item that already has exactly those (and none it should not) is
//! skipped without a write. Any other item gets one `UpdateItem` (`SET` of the keys it lacks or
//! has wrong, `REMOVE` of the sparse keys it should not have), with a condition that the item
//! is still as read: it exists, has the entity's type, and every attribute the keys are built
//! from, and every key attribute written, still has the value read (or is still absent). A
//! field that the primary key fixes (it fills a placeholder of `PK` or `SK`, in a key that keeps
//! case, with one of the library's one-to-one part writers) is not checked: the update is
//! addressed to that key, and an item whose fields disagree with its keys does not decode. An
//! item stored at an earlier schema version of a versioned entity is read as that version and
//! upgraded in memory, so its keys may come from attributes the current struct no longer names
//! (a field renamed since, or an optional field the upgrade reads, which code of that version
//! may still write): its condition checks every attribute that any declared version of the
//! entity writes, each still as read or still absent
//! ([`evolve::written_attributes`]). So
//!
//! * a write the application made meanwhile is never overwritten: the condition fails, DynamoDB
//!   returns the item as it now is (`ReturnValuesOnConditionCheckFailure = ALL_OLD`), and the
//!   backfill computes its keys again from that (counted in [`BackfillReport::changed`]); the
//!   application's own writes of the new code already carry the right keys, and are then
//!   skipped;
//! * an item deleted meanwhile never comes back (an update of an absent item would create it;
//!   the condition refuses it, and the item is counted in [`BackfillReport::vanished`]).
//!
//! # Progress and resumption
//! The backfill records its progress in the table itself, under the partition
//! `_MIGRATION#<id>` (the table's partition key attribute; entity type `_migration`, which no
//! entity scan or query returns): an item `RUN` (the run number, the number of segments,
//! `running` or `completed`) and an item `SEGMENT#<n>` per segment, holding its
//! `LastEvaluatedKey` and counters, written after each page is done (every item of the page
//! updated or skipped). A run stopped at any point, a killed process included, resumes with
//! [`Backfill::run`] from the last page recorded of each segment; the items of the page that
//! was in progress are read again, and those it already updated are then skipped. Running a
//! completed backfill again returns its report without reading anything; [`Backfill::rerun`]
//! starts a new run (which, on a table already backfilled, skips every item).
//!
//! # Several workers
//! A backfill can be spread over several processes or machines, each running it with its own
//! [`Backfill::worker`] name: a worker claims a segment by writing its checkpoint item with
//! itself as owner and a lease expiry, on the condition that the item is the one it read (a
//! write counter `v`) and that the segment is free, its own, or its lease expired; every
//! checkpoint renews the lease, on the condition that the worker still holds it. The segments
//! of a worker that dies are taken over by the others once its lease expires, from its last
//! checkpoint; nothing else coordinates the workers. Start the run once (or let the first
//! worker start it), and call [`Backfill::rerun`] from one place only.

use std::borrow::Cow;
use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::operation::update_item::UpdateItemError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};
use futures::{StreamExt, TryStreamExt};

use crate::capacity::Capacity;
use crate::error::Error;
use crate::expr::Placeholders;
use crate::query::scan::ReadRate;
use crate::schema::evolve;
use crate::schema::{AttributeNames, Entity, EntitySchema, Item};
use crate::table::{Call, Next, Retrying, Table};

/// Milliseconds since the Unix epoch, by this machine's clock.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

pub use crate::schema::reserved::MIGRATION_TYPE;

/// How many times one item is read again after its condition failed (a write of the
/// application in between) before it counts as failed.
pub(crate) const ATTEMPTS: u32 = 8;

/// The retries of an update or move that failed with throttling or a server error.
pub(crate) const RETRY: crate::retry::RetryPolicy = crate::retry::RetryPolicy::DEFAULT;

/// At most this many failures are kept, with their keys, in a report.
const KEPT_FAILURES: usize = 100;

/// What a backfill did, over all the segments of its run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackfillReport {
    /// The migration id.
    pub id: String,
    /// The run number (1 for the first run; [`Backfill::rerun`] adds one).
    pub run: u64,
    /// The number of scan segments.
    pub segments: u32,
    /// Whether every segment is done.
    pub completed: bool,
    /// Items of the entity read (an item read again after a resumption counts again).
    pub scanned: u64,
    /// Items whose keys were written.
    pub updated: u64,
    /// Items that already had the right keys (no write).
    pub skipped: u64,
    /// Items that could not be backfilled: they do not decode, their keys do not encode, or
    /// their condition kept failing. The first ones are in [`failures`](Self::failures).
    pub failed: u64,
    /// Items deleted between the scan and their update (not written back).
    pub vanished: u64,
    /// Updates whose condition failed because the item changed after it was read; each was
    /// computed again from the item as it then was (and is counted once more in
    /// `updated`, `skipped`, `vanished` or `failed`).
    pub changed: u64,
    /// Read units of the scan.
    pub read_units: f64,
    /// Write units of the updates (the checkpoint writes, one a page, are not counted).
    pub write_units: f64,
    /// The first failures: the item's key (`PK=… SK=…`) and why.
    pub failures: Vec<(String, String)>,
}

impl fmt::Display for BackfillReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "backfill {} run {} ({} segments, {}): {} scanned, {} updated, {} skipped, {} failed, {} vanished, {} \
             changed meanwhile; {} RCU, {} WCU",
            self.id,
            self.run,
            self.segments,
            if self.completed { "completed" } else { "in progress" },
            self.scanned,
            self.updated,
            self.skipped,
            self.failed,
            self.vanished,
            self.changed,
            self.read_units,
            self.write_units
        )
    }
}

/// The progress of one segment, as its checkpoint item holds it.
#[derive(Debug, Clone, Default)]
struct SegmentState {
    segment: u32,
    last_key: Option<Item>,
    done: bool,
    started: bool,
    counts: Counts,
    /// The checkpoint item's write counter `v` (0: no item): every write checks it.
    version: u64,
    /// The worker holding the segment's lease, and until when (milliseconds since the Unix
    /// epoch).
    owner: Option<String>,
    lease_until: u64,
}

#[derive(Debug, Clone, Default)]
struct Counts {
    scanned: u64,
    updated: u64,
    skipped: u64,
    failed: u64,
    vanished: u64,
    changed: u64,
    read_units: f64,
    write_units: f64,
    failures: Vec<(String, String)>,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.scanned += o.scanned;
        self.updated += o.updated;
        self.skipped += o.skipped;
        self.failed += o.failed;
        self.vanished += o.vanished;
        self.changed += o.changed;
        self.read_units += o.read_units;
        self.write_units += o.write_units;
        for f in &o.failures {
            if self.failures.len() < KEPT_FAILURES {
                self.failures.push(f.clone());
            }
        }
    }
}

/// What happened to one item.
pub(crate) enum Outcome {
    Updated,
    Skipped,
    Vanished,
    Failed(String),
}

/// One page of a backfill done and checkpointed: what [`Backfill::on_page`] observers are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageDone {
    /// The scan segment.
    pub segment: u32,
    /// Items DynamoDB read for the page (`ScannedCount`: items of every entity type, the
    /// measure of progress through the table).
    pub examined: u64,
    /// Items of the entity in the page.
    pub scanned: u64,
    /// Of those, items written (updated or moved).
    pub updated: u64,
    /// Whether the segment is done.
    pub segment_done: bool,
}

/// An observer of a backfill's pages; see [`Backfill::on_page`].
pub type PageObserver = Arc<dyn Fn(&PageDone) + Send + Sync>;

/// A backfill of the secondary index keys of entity `E`; from [`Table::backfill`].
#[must_use = "a backfill does nothing until it is run"]
pub struct Backfill<E> {
    table: Table,
    id: String,
    segments: u32,
    concurrency: usize,
    page_size: Option<i32>,
    writes: usize,
    rate: Option<Arc<ReadRate>>,
    worker: String,
    lease: Duration,
    poll: Duration,
    /// What is done with each item read.
    pub(crate) step: Arc<dyn Step<E>>,
    observer: Option<PageObserver>,
    _entity: PhantomData<fn() -> E>,
}

/// What a pass over the items of entity `E` does with each item read: the one thing in which
/// a backfill of secondary index keys ([`Table::backfill`], this file), a re-keying
/// ([`Table::rekey`], `rekey.rs`), a bulk upgrade ([`Table::upgrade_all`], `upgrade.rs`) and a
/// native-key migration ([`Table::native_keys`], `native.rs`) differ. Each implements it in its
/// own file; the pass (scan, checkpoints, leases, counts) names none of them.
pub(crate) trait Step<E>: Send + Sync {
    /// The error that refuses the pass before anything is read, if any.
    fn refusal(&self) -> Option<Error> {
        None
    }

    /// Handles one item read: its outcome, how many conditions failed because the item
    /// changed meanwhile, and the write units consumed.
    ///
    /// # Errors
    /// A request DynamoDB refused for another reason than its condition, after retries; it
    /// stops the pass (the item's page is read again when the pass resumes).
    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>>;
}

/// What a [`Step`] did with one item: its outcome, how many conditions failed because the item
/// changed meanwhile, and the write units consumed.
pub(crate) type ItemDone = (Outcome, u64, f64);

/// The step of [`Table::backfill`]: writes the item's secondary index keys when they differ
/// from what its templates give.
struct Keys(KeyAttributes);

impl<E: Entity> Step<E> for Keys {
    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>> {
        Box::pin(update_item::<E>(table, item, |item| plan_update::<E>(item, &self.0)))
    }
}

impl<E> fmt::Debug for Backfill<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Backfill")
            .field("table", &self.table.name())
            .field("id", &self.id)
            .field("segments", &self.segments)
            .field("concurrency", &self.concurrency)
            .finish_non_exhaustive()
    }
}

impl Table {
    /// A backfill of the secondary index keys of every item of entity `E`, recorded under the
    /// migration id `id` (see [`backfill`](crate::migrate::backfill)).
    pub fn backfill<E: Entity>(&self, id: impl Into<String>) -> Backfill<E> {
        Backfill {
            table: self.clone(),
            id: id.into(),
            segments: 4,
            concurrency: 4,
            page_size: None,
            writes: 8,
            rate: None,
            worker: "local".to_owned(),
            lease: Duration::from_secs(60),
            poll: Duration::from_secs(1),
            step: Arc::new(Keys(KeyAttributes::of::<E>())),
            observer: None,
            _entity: PhantomData,
        }
    }
}

impl<E: Entity> Backfill<E> {
    /// The number of scan segments (`TotalSegments`; 4 by default). A run that resumes keeps
    /// the number its first start recorded.
    pub fn segments(mut self, n: u32) -> Self {
        self.segments = n.clamp(1, crate::query::scan::MAX_TOTAL_SEGMENTS);
        self
    }

    /// How many segments are scanned at a time (4 by default).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// How many items one `Scan` request reads (DynamoDB's `Limit`; by default up to 1 MB): a
    /// checkpoint is written after each page.
    pub fn page_size(mut self, n: i32) -> Self {
        self.page_size = Some(n.max(1));
        self
    }

    /// How many updates each segment has in flight at a time (8 by default).
    pub fn writes_in_flight(mut self, n: usize) -> Self {
        self.writes = n.max(1);
        self
    }

    /// At most `units_per_second` read units a second over the whole scan (see [`ReadRate`]).
    pub fn read_rate(mut self, units_per_second: f64) -> Self {
        self.rate = Some(Arc::new(ReadRate::new(units_per_second)));
        self
    }

    /// Runs as worker `name` among several processes (or machines) sharing this backfill:
    /// each worker claims segments by taking their lease (a conditional write to the segment's
    /// checkpoint item), renews it with every checkpoint, and takes over the segments whose
    /// lease expired (a worker that died). `lease` must exceed the time one page takes (its
    /// scan and its updates); expiry is judged by each worker's clock, so clocks must agree to
    /// well within it. A worker waits (polling every `lease / 4`, at most 1 s) while other
    /// workers hold the remaining segments, and returns when every segment is done.
    ///
    /// Without it, the backfill runs as the worker `local` with a 60 s lease: a process that
    /// resumes after a crash takes its segments back at once.
    pub fn worker(mut self, name: impl Into<String>, lease: Duration) -> Self {
        self.worker = name.into();
        self.lease = lease.max(Duration::from_millis(100));
        self.poll = (self.lease / 4).min(Duration::from_secs(1));
        self
    }

    /// Calls `observer` after each page is done and its checkpoint written (from the task
    /// running the page's segment: keep it short), for progress reports such as the migration
    /// command line's progress bar. A page read again after a resumption is reported again.
    pub fn on_page(mut self, observer: impl Fn(&PageDone) + Send + Sync + 'static) -> Self {
        self.observer = Some(Arc::new(observer));
        self
    }

    /// The migration id.
    pub fn id(&self) -> &str {
        &self.id
    }

    fn names(&self) -> &'static AttributeNames {
        E::NAMES
    }

    fn partition(&self) -> AttributeValue {
        AttributeValue::S(format!("{}{}", crate::schema::reserved::MIGRATION_PREFIX, self.id))
    }

    fn checkpoint_key(&self, sk: String) -> Item {
        HashMap::from([
            (self.names().pk.to_owned(), self.partition()),
            (self.names().sk.to_owned(), AttributeValue::S(sk)),
        ])
    }

    async fn get(&self, sk: String) -> Result<Option<Item>, Error> {
        let request = self
            .table
            .client()
            .get_item()
            .table_name(self.table.name())
            .set_key(Some(self.checkpoint_key(sk)))
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let out = self
            .table
            .execute(Call::new("GetItem", MIGRATION_TYPE), request)
            .await
            .map_err(|e| Error::sdk("GetItem", e))?;
        Ok(out.item)
    }

    async fn put(&self, item: Item) -> Result<(), Error> {
        self.put_if(item, None).await.map(|_| ())
    }

    /// Puts a checkpoint item on `condition` (expression and placeholders); `Ok(false)` when
    /// the condition failed.
    async fn put_if(&self, item: Item, condition: Option<(String, Placeholders)>) -> Result<bool, Error> {
        let (expr, names, values) = match condition {
            Some((expr, mut ph)) => (Some(expr), ph.take_names(), ph.take_values()),
            None => (None, None, None),
        };
        let (item, expr, names, values) = (&item, &expr, &names, &values);
        Retrying::new(Call::new("PutItem", MIGRATION_TYPE), RETRY)
            .run(&mut (), |(), attempt| {
                Box::pin(async move {
                    let request = self
                        .table
                        .client()
                        .put_item()
                        .table_name(self.table.name())
                        .set_item(Some(item.clone()))
                        .set_condition_expression(expr.clone())
                        .set_expression_attribute_names(names.clone())
                        .set_expression_attribute_values(values.clone())
                        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                        .send();
                    match self.table.execute(attempt.call(), request).await {
                        Ok(_) => Ok(Next::Done(true)),
                        Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                            Ok(Next::Done(false))
                        }
                        // A checkpoint re-sent after it was applied fails its version condition: the
                        // segment is then claimed again from the checkpoint, as after a lost lease.
                        Err(e) if crate::retry::retryable(&e) => Ok(Next::Retry(Error::sdk("PutItem", e))),
                        Err(e) => Err(Error::sdk("PutItem", e)),
                    }
                })
            })
            .await?
    }

    /// Writes the checkpoint of `state` (with its version one more than the stored one, this
    /// worker as owner and a new lease) if the stored item is still the one read (`version`)
    /// and, unless this write `claim`s the segment, still held by this worker; `Ok(false)` when
    /// another worker took it.
    async fn write_segment(&self, run: u64, state: &mut SegmentState, claim: bool) -> Result<bool, Error> {
        let mut ph = Placeholders::default();
        let mut cond = String::new();
        if state.version == 0 {
            cond.push_str("attribute_not_exists(");
            ph.push_name(self.names().pk, &mut cond);
            cond.push(')');
        } else {
            ph.push_name("v", &mut cond);
            cond.push_str(" = ");
            ph.push_value(AttributeValue::N(state.version.to_string()), &mut cond);
        }
        if !claim {
            cond.push_str(" AND ");
            ph.push_name("owner", &mut cond);
            cond.push_str(" = ");
            ph.push_value(AttributeValue::S(self.worker.clone()), &mut cond);
        }
        let mut next = state.clone();
        next.version += 1;
        next.owner = Some(self.worker.clone());
        next.lease_until = now_ms().saturating_add(u64::try_from(self.lease.as_millis()).unwrap_or(u64::MAX));
        if self.put_if(self.segment_item(run, &next), Some((cond, ph))).await? {
            *state = next;
            Ok(true)
        } else {
            Ok(false)
        }
    }

    fn run_item(&self, run: u64, segments: u32, status: &str) -> Item {
        let mut item = self.checkpoint_key("RUN".to_owned());
        if self.names().has_entity_type() {
            item.insert(self.names().entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("entity".to_owned(), AttributeValue::S(E::TYPE.to_owned()));
        item.insert("run".to_owned(), AttributeValue::N(run.to_string()));
        item.insert("segments".to_owned(), AttributeValue::N(segments.to_string()));
        item.insert("status".to_owned(), AttributeValue::S(status.to_owned()));
        item
    }

    fn segment_item(&self, run: u64, s: &SegmentState) -> Item {
        let mut item = self.checkpoint_key(format!("SEGMENT#{:07}", s.segment));
        let n = |v: u64| AttributeValue::N(v.to_string());
        let f = |v: f64| AttributeValue::N(v.to_string());
        if self.names().has_entity_type() {
            item.insert(self.names().entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("run".to_owned(), n(run));
        item.insert("segment".to_owned(), n(u64::from(s.segment)));
        item.insert("done".to_owned(), AttributeValue::Bool(s.done));
        item.insert("v".to_owned(), n(s.version));
        item.insert("lease_until".to_owned(), n(s.lease_until));
        if let Some(o) = &s.owner {
            item.insert("owner".to_owned(), AttributeValue::S(o.clone()));
        }
        if let Some(k) = &s.last_key {
            item.insert("last_key".to_owned(), AttributeValue::M(k.clone()));
        }
        let c = &s.counts;
        for (name, v) in [
            ("scanned", c.scanned),
            ("updated", c.updated),
            ("skipped", c.skipped),
            ("failed", c.failed),
            ("vanished", c.vanished),
            ("changed", c.changed),
        ] {
            item.insert(name.to_owned(), n(v));
        }
        item.insert("read_units".to_owned(), f(c.read_units));
        item.insert("write_units".to_owned(), f(c.write_units));
        if !c.failures.is_empty() {
            let list = c
                .failures
                .iter()
                .map(|(k, why)| AttributeValue::L(vec![AttributeValue::S(k.clone()), AttributeValue::S(why.clone())]))
                .collect();
            item.insert("failures".to_owned(), AttributeValue::L(list));
        }
        item
    }

    fn segment_from(segment: u32, item: &Item) -> SegmentState {
        let n =
            |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
        let f =
            |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
        let failures = item
            .get("failures")
            .and_then(|v| v.as_l().ok())
            .map(|l| {
                l.iter()
                    .filter_map(|e| match e.as_l().ok()?.as_slice() {
                        [AttributeValue::S(k), AttributeValue::S(w)] => Some((k.clone(), w.clone())),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        SegmentState {
            segment,
            last_key: item.get("last_key").and_then(|v| v.as_m().ok()).cloned(),
            done: matches!(item.get("done"), Some(AttributeValue::Bool(true))),
            started: true,
            version: n("v"),
            owner: item.get("owner").and_then(|v| v.as_s().ok()).cloned(),
            lease_until: n("lease_until"),
            counts: Counts {
                scanned: n("scanned"),
                updated: n("updated"),
                skipped: n("skipped"),
                failed: n("failed"),
                vanished: n("vanished"),
                changed: n("changed"),
                read_units: f("read_units"),
                write_units: f("write_units"),
                failures,
            },
        }
    }

    /// The run record: (run, segments, completed).
    async fn run_record(&self) -> Result<Option<(u64, u32, bool)>, Error> {
        let Some(item) = self.get("RUN".to_owned()).await? else { return Ok(None) };
        let n = |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|s| s.parse::<u64>().ok());
        let bad = || Error::Invalid { reason: format!("the run record of backfill {} is malformed", self.id) };
        let run = n("run").ok_or_else(bad)?;
        let segments = n("segments").and_then(|s| u32::try_from(s).ok()).ok_or_else(bad)?;
        let completed = matches!(item.get("status"), Some(AttributeValue::S(s)) if s == "completed");
        Ok(Some((run, segments, completed)))
    }

    /// Every checkpoint item of a segment (`SEGMENT#…`), by segment number: one strongly
    /// consistent `Query` of the migration's partition (paginated).
    async fn segment_items(&self) -> Result<HashMap<u32, Item>, Error> {
        let names = self.names();
        let items = migration_items(&self.table, names.pk, self.partition(), Some((names.sk, "SEGMENT#"))).await?;
        let mut out = HashMap::with_capacity(items.len());
        for item in items {
            let segment =
                item.get("segment").and_then(|v| v.as_n().ok()).and_then(|n| n.parse::<u32>().ok()).ok_or_else(
                    || Error::Invalid {
                        reason: format!(
                            "a segment checkpoint of backfill {} has no segment number ({})",
                            self.id,
                            names.describe_key(&item)
                        ),
                    },
                )?;
            out.insert(segment, item);
        }
        Ok(out)
    }

    async fn segment_states(&self, run: u64, segments: u32) -> Result<Vec<SegmentState>, Error> {
        let mut items = self.segment_items().await?;
        let run_text = run.to_string();
        let mut out = Vec::with_capacity(segments as usize);
        for s in 0..segments {
            let state = match items.remove(&s) {
                Some(item) if matches!(item.get("run"), Some(AttributeValue::N(r)) if *r == run_text) => {
                    Self::segment_from(s, &item)
                }
                // A segment of an earlier run starts again, over its item.
                Some(item) => SegmentState {
                    segment: s,
                    version: Self::segment_from(s, &item).version,
                    ..SegmentState::default()
                },
                None => SegmentState { segment: s, ..SegmentState::default() },
            };
            out.push(state);
        }
        Ok(out)
    }

    fn report(&self, run: u64, segments: u32, states: &[SegmentState]) -> BackfillReport {
        let mut total = Counts::default();
        for s in states {
            total.add(&s.counts);
        }
        BackfillReport {
            id: self.id.clone(),
            run,
            segments,
            completed: states.iter().all(|s| s.done),
            scanned: total.scanned,
            updated: total.updated,
            skipped: total.skipped,
            failed: total.failed,
            vanished: total.vanished,
            changed: total.changed,
            read_units: total.read_units,
            write_units: total.write_units,
            failures: total.failures,
        }
    }

    /// The backfill's progress as its checkpoints record it; `None` before its first run.
    ///
    /// # Errors
    /// [`Error::Sdk`]; [`Error::Invalid`] for a malformed run record.
    pub async fn status(&self) -> Result<Option<BackfillReport>, Error> {
        let Some((run, segments, _)) = self.run_record().await? else { return Ok(None) };
        let states = self.segment_states(run, segments).await?;
        Ok(Some(self.report(run, segments, &states)))
    }

    /// Runs the backfill: starts run 1 the first time, resumes a run that was stopped (from the
    /// last page recorded of each segment), and returns the report of a completed run without
    /// reading anything.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the table's partition key is not a string (the checkpoints are
    /// stored under `_MIGRATION#<id>`); [`Error::Sdk`] from DynamoDB (the progress up to the
    /// last page of each segment is kept: run it again to resume).
    pub async fn run(&self) -> Result<BackfillReport, Error> {
        let (run, segments) = match self.run_record().await? {
            Some((run, segments, true)) => {
                let states = self.segment_states(run, segments).await?;
                return Ok(self.report(run, segments, &states));
            }
            Some((run, segments, false)) => (run, segments),
            None => {
                // Several workers may start at once: the first one's record stands.
                let mut ph = Placeholders::default();
                let mut cond = String::from("attribute_not_exists(");
                ph.push_name(self.names().pk, &mut cond);
                cond.push(')');
                if self.put_if(self.run_item(1, self.segments, "running"), Some((cond, ph))).await? {
                    (1, self.segments)
                } else {
                    match self.run_record().await? {
                        Some((run, segments, _)) => (run, segments),
                        None => (1, self.segments),
                    }
                }
            }
        };
        self.run_segments(run, segments).await
    }

    /// Starts a new run (the previous run number plus one, with the segments of this builder),
    /// scanning every item again; on a table already backfilled it writes nothing but its
    /// checkpoints.
    ///
    /// # Errors
    /// As [`run`](Self::run).
    pub async fn rerun(&self) -> Result<BackfillReport, Error> {
        let run = self.run_record().await?.map_or(1, |(r, _, _)| r + 1);
        self.put(self.run_item(run, self.segments, "running")).await?;
        self.run_segments(run, self.segments).await
    }

    /// Runs the backfill as one step of a migration that must leave no item behind (the
    /// runner's steps, and the passes of a native-key migration): as [`run`](Self::run), but a
    /// run completed with failed items is started again ([`rerun`](Self::rerun): the items
    /// already migrated are skipped, the failed ones tried again), and a run that ends with
    /// failed items is an error.
    ///
    /// # Errors
    /// [`Error::ItemsFailed`] naming the first failed items' keys; as [`run`](Self::run).
    pub(crate) async fn run_to_the_end(&self) -> Result<BackfillReport, Error> {
        let report = match self.status().await? {
            Some(done) if done.completed && done.failed > 0 => self.rerun().await?,
            _ => self.run().await?,
        };
        if report.failed > 0 {
            return Err(Error::ItemsFailed {
                id: self.id.clone(),
                entity: E::TYPE,
                failed: report.failed,
                failures: report.failures,
            });
        }
        Ok(report)
    }

    async fn run_segments(&self, run: u64, segments: u32) -> Result<BackfillReport, Error> {
        if let Some(e) = self.check_names() {
            return Err(e);
        }
        loop {
            let states = self.segment_states(run, segments).await?;
            if states.iter().all(|s| s.done) {
                self.put(self.run_item(run, segments, "completed")).await?;
                return Ok(self.report(run, segments, &states));
            }
            let now = now_ms();
            // The segments this worker may take, claimed concurrently (one conditional write
            // each), as many as it runs at a time; a claim another worker won is left out.
            let free: Vec<SegmentState> = states
                .into_iter()
                .filter(|s| {
                    !s.done
                        && (s.owner.is_none()
                            || s.owner.as_deref() == Some(self.worker.as_str())
                            || s.lease_until < now)
                })
                .take(self.concurrency)
                .collect();
            let claimed: Vec<SegmentState> = futures::stream::iter(free.into_iter().map(|mut state| async move {
                Ok::<_, Error>(self.write_segment(run, &mut state, true).await?.then_some(state))
            }))
            .buffer_unordered(self.concurrency)
            .try_filter_map(|s| async move { Ok(s) })
            .try_collect()
            .await?;
            if claimed.is_empty() {
                // Other workers hold the remaining segments: wait for them to finish, or for a
                // lease to expire.
                tokio::time::sleep(self.poll).await;
                continue;
            }
            futures::stream::iter(claimed.into_iter().map(|s| self.segment(run, segments, s)))
                .buffer_unordered(self.concurrency)
                .try_collect::<Vec<()>>()
                .await?;
        }
    }

    fn check_names(&self) -> Option<Error> {
        if let Some(e) = self.step.refusal() {
            return Some(e);
        }
        let names = self.names();
        let pk_type = E::SCHEMA.primary.pk.key_type;
        (pk_type != crate::key::KeyType::S).then(|| Error::Invalid {
            reason: format!(
                "backfill {}: the checkpoints are stored under {} = _MIGRATION#{}, but {} of this table is of type {pk_type}, not S",
                self.id, names.pk, self.id, names.pk
            ),
        })
    }

    /// Runs one segment from its checkpoint to its end, writing a checkpoint after each page.
    ///
    /// The checkpoint of a page is written while the next page is read (both requests at
    /// once); the next page's items are only written once that checkpoint holds, so a worker
    /// that lost its lease writes nothing more.
    async fn segment(&self, run: u64, segments: u32, mut state: SegmentState) -> Result<(), Error> {
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
            let mut counts = Counts { read_units: page.consumed.read(), ..Counts::default() };
            counts.scanned = page.items.len() as u64;
            let examined = page.examined;
            let (pk, sk) = (self.names().pk, self.names().sk);
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
                            counts.failures.push((self.names().describe_key(&item), why));
                        }
                    }
                }
            }
            state.started = true;
            state.last_key = page.last_key.take();
            state.done = state.last_key.is_none();
            state.counts.add(&counts);
            let (held, next) = if state.done {
                (self.write_segment(run, &mut state, false).await?, None)
            } else {
                let read_next = scan.raw_page(state.last_key.clone());
                let (held, next) = futures::future::join(self.write_segment(run, &mut state, false), read_next).await;
                (held?, Some(next))
            };
            if !held {
                tracing::warn!(
                    target: "dynamo_entity",
                    backfill = %self.id,
                    segment = state.segment,
                    worker = %self.worker,
                    "another worker took the segment's lease; it reads the last page again"
                );
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
}

/// Writes `item` (of entity `E`) as `plan` says: an `UpdateItem` on the condition that the item
/// is still as read, planned again from the item as it now is each time that condition fails
/// (`ReturnValuesOnConditionCheckFailure = ALL_OLD`), at most [`ATTEMPTS`] times; throttling
/// and server errors are retried (the condition tells whether an earlier try was applied).
/// The loop of the key backfill ([`Keys`]) and of the native-key migration.
///
/// # Errors
/// [`Error::Sdk`] for any other refusal by DynamoDB.
pub(crate) async fn update_item<'p, E: Entity>(
    table: &Table,
    item: Item,
    plan: impl Fn(&Item) -> Result<Option<UpdatePlan<'p>>, Error> + Sync,
) -> Result<ItemDone, Error> {
    let plan = &plan;
    // The item as last read, the conditions that failed, the write units consumed.
    let mut state = (item, 0u64, 0.0);
    Retrying::new(Call::new("UpdateItem", E::TYPE), RETRY)
        .run(&mut state, |(item, changed, units), attempt| {
            Box::pin(async move {
                let done = |outcome| Ok(Next::Done((outcome, *changed, *units)));
                let mut plan = match plan(item) {
                    Ok(Some(plan)) => plan,
                    Ok(None) => return done(Outcome::Skipped),
                    Err(e) => return done(Outcome::Failed(e.to_string())),
                };
                if matches!(evolve::stored_version(item, E::SCHEMA), Ok(evolve::Stored::Earlier)) {
                    plan.watch_every_version(E::SCHEMA);
                }
                let request = match plan.request::<E>(table, item) {
                    Ok(request) => request,
                    Err(e) => return done(Outcome::Failed(e.to_string())),
                };
                match table.execute(attempt.call(), request.send()).await {
                    Ok(out) => {
                        *units += Capacity::from_consumed(out.consumed_capacity.as_slice(), true).write();
                        Ok(Next::Done((Outcome::Updated, *changed, *units)))
                    }
                    Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                        *changed += 1;
                        let now = match e.err() {
                            UpdateItemError::ConditionalCheckFailedException(c) => {
                                c.item().filter(|i| !i.is_empty()).cloned()
                            }
                            _ => None,
                        };
                        match now {
                            Some(now) if crate::owner::is_type(&now, E::SCHEMA) => *item = now,
                            // Deleted, or replaced by an item of another type: nothing to backfill.
                            _ => return Ok(Next::Done((Outcome::Vanished, *changed, *units))),
                        }
                        if *changed < u64::from(ATTEMPTS) {
                            return Ok(Next::Again);
                        }
                        let why = format!("the item changed {ATTEMPTS} times while it was backfilled");
                        Ok(Next::Done((Outcome::Failed(why), *changed, *units)))
                    }
                    // Throttling or a server error, after the SDK's own retries: the update may
                    // or may not have been applied; sent again, its condition tells.
                    Err(e) if crate::retry::retryable(&e) => Ok(Next::Retry(Error::sdk("UpdateItem", e))),
                    Err(e) => Err(Error::sdk("UpdateItem", e)),
                }
            })
        })
        .await?
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

/// The attributes a backfill of entity `E`'s secondary index keys writes and watches: the same
/// for every item, so computed once a segment rather than once an item.
pub(crate) struct KeyAttributes {
    /// Every key attribute of `E` but the table's partition and sort key: the attributes set
    /// or removed.
    managed: Vec<&'static str>,
    /// Those, the attribute of every field a secondary index template is built from but the
    /// primary key does not fix (the update is addressed to that key, see
    /// `EntitySchema::fixed_by_primary_key`), and the schema version attribute of a versioned
    /// entity: sorted, each once.
    watched: Vec<&'static str>,
}

impl KeyAttributes {
    /// The attributes of `E`'s keys.
    pub(crate) fn of<E: Entity>() -> KeyAttributes {
        let schema = E::SCHEMA;
        let names = E::NAMES;
        let managed: Vec<&'static str> =
            schema.key_attributes().map(|(a, _)| a).filter(|a| *a != names.pk && *a != names.sk).collect();
        let mut watched: BTreeSet<&'static str> = managed.iter().copied().collect();
        for index in schema.secondary_indexes() {
            for field in index.pk.fields().chain(index.sk.fields()) {
                if schema.fixed_by_primary_key(field) {
                    continue;
                }
                if let Some(f) = schema.fields.iter().find(|f| f.field == field) {
                    watched.insert(f.attribute);
                }
            }
        }
        // The schema version: an item replaced meanwhile by code of another version, with the
        // same raw values, decodes to other fields (a unit changed between versions).
        watched.extend(schema.schema_version.iter().map(|v| v.attribute));
        KeyAttributes { managed, watched: watched.into_iter().collect() }
    }
}

/// What `item` (of entity `E`, whose key `attributes` are given) needs: `None` when its
/// secondary index keys are already right.
///
/// # Errors
/// The item does not decode, or its keys do not encode.
fn plan_update<'a, E: Entity>(item: &Item, attributes: &'a KeyAttributes) -> Result<Option<UpdatePlan<'a>>, Error> {
    // A handful of keys: found by a linear search (the last value given for an attribute, as a
    // map collected from the list would hold), not through a map built for each item.
    let wanted = E::from_item(item)?.gsi_keys()?;
    let mut set = Vec::new();
    let mut remove = Vec::new();
    for attr in &attributes.managed {
        let want = wanted.iter().rev().find(|(a, _)| a == attr).map(|(_, v)| v);
        match (want, item.get(*attr)) {
            (Some(w), Some(have)) if w == have => {}
            (Some(w), _) => set.push((*attr, w.clone())),
            (None, Some(_)) => remove.push(*attr),
            (None, None) => {}
        }
    }
    if set.is_empty() && remove.is_empty() {
        return Ok(None);
    }
    Ok(Some(UpdatePlan { set, remove, watched: Cow::Borrowed(&attributes.watched), every_version: false }))
}

impl UpdatePlan<'_> {
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

/// Every item of the migration records' partition `pk` (attribute `pk_attribute`), or with
/// `sk` (`(attribute, prefix)`) those whose sort key begins with the prefix: strongly
/// consistent `Query` requests, page after page, in sort key order. The one read of the
/// records that the backfills' checkpoints and the runner's list of migrations share.
///
/// # Errors
/// [`Error::Sdk`] from DynamoDB.
pub(crate) async fn migration_items(
    table: &Table,
    pk_attribute: &str,
    pk: AttributeValue,
    sk: Option<(&str, &str)>,
) -> Result<Vec<Item>, Error> {
    let mut out = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let mut ph = Placeholders::default();
        let mut cond = String::new();
        ph.push_name(pk_attribute, &mut cond);
        cond.push_str(" = ");
        ph.push_value(pk.clone(), &mut cond);
        if let Some((sk_attribute, prefix)) = sk {
            cond.push_str(" AND begins_with(");
            ph.push_name(sk_attribute, &mut cond);
            cond.push_str(", ");
            ph.push_value(AttributeValue::S(prefix.to_owned()), &mut cond);
            cond.push(')');
        }
        let request = table
            .client()
            .query()
            .table_name(table.name())
            .key_condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .set_exclusive_start_key(start.take())
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let page =
            table.execute(Call::new("Query", MIGRATION_TYPE), request).await.map_err(|e| Error::sdk("Query", e))?;
        out.extend(page.items.unwrap_or_default());
        match page.last_evaluated_key.filter(|k| !k.is_empty()) {
            Some(k) => start = Some(k),
            None => return Ok(out),
        }
    }
}

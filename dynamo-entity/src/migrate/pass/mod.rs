//! The pass over the items of one entity, apart from its steps: a resumable parallel scan
//! (`segments.rs`) whose segments are claimed under leases (`lease.rs`), checkpointed after each
//! page in the table itself (`checkpoint.rs`), and counted into a report (`report.rs`). What
//! is done with each item is the pass's [`Step`] (`step.rs`), implemented once per step in
//! `migrate/steps/`. Its public face is [`migrate::backfill`](crate::migrate::backfill).

mod checkpoint;
mod lease;
mod report;
mod segments;
pub(crate) mod step;
mod verify;

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;
use std::time::Duration;

pub(crate) use checkpoint::{Checkpoints, migration_items};
pub use report::{BackfillReport, PageDone, PageObserver};
pub use verify::{VERIFY_EXAMPLES, VerifyReport};

pub use crate::schema::reserved::MIGRATION_TYPE;

use crate::error::Error;
use crate::migrate::pass::checkpoint::SegmentState;
use crate::migrate::pass::lease::Lease;
use crate::migrate::pass::report::Counts;
use crate::migrate::pass::step::Step;
use crate::query::scan::ReadRate;
use crate::schema::Entity;
use crate::table::Table;

/// A pass over the items of entity `E`, resumable from its checkpoints: a backfill of the
/// secondary index keys from [`Table::backfill`], or, with another step, a re-keying
/// ([`Table::rekey`]), a bulk upgrade ([`Table::upgrade_all`]) or a pass of a native-key
/// migration ([`NativeKeys::configure`]).
///
/// [`Table::rekey`]: crate::Table::rekey
/// [`Table::upgrade_all`]: crate::Table::upgrade_all
/// [`NativeKeys::configure`]: crate::migrate::NativeKeys::configure
#[must_use = "a backfill does nothing until it is run"]
pub struct Backfill<E> {
    table: Table,
    id: String,
    segments: u32,
    concurrency: usize,
    page_size: Option<i32>,
    writes: usize,
    rate: Option<Arc<ReadRate>>,
    lease: Lease,
    /// What is done with each item read.
    step: Arc<dyn Step<E>>,
    observer: Option<PageObserver>,
    _entity: PhantomData<fn() -> E>,
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

impl<E> Backfill<E> {
    /// A pass `id` over the items of `E` in `table` that hands each item to `step`: 4 segments,
    /// 4 at a time, 8 writes in flight per segment, as the worker `local`.
    pub(crate) fn new(table: &Table, id: String, step: Arc<dyn Step<E>>) -> Backfill<E> {
        Backfill {
            table: table.clone(),
            id,
            segments: 4,
            concurrency: 4,
            page_size: None,
            writes: 8,
            rate: None,
            lease: Lease::local(),
            step,
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
    /// resumes after a crash takes its segments back at once. Run by the migration runner
    /// ([`Migrations`](crate::migrate::Migrations)), a pass runs as the runner's own worker
    /// ([`RunOptions::worker`](crate::migrate::RunOptions::worker), this machine and process by
    /// default) with its lease ([`RunOptions::lease`](crate::migrate::RunOptions::lease)),
    /// whatever its `configure` closure set here.
    ///
    /// A worker whose lease was taken over (its checkpoint's condition fails: the segment's
    /// owner or write counter changed) writes nothing more in that segment, neither items nor
    /// checkpoints; before it writes a page's items with less than a quarter of its lease left
    /// (a slow page, a paused process), it renews the lease first.
    pub fn worker(mut self, name: impl Into<String>, lease: Duration) -> Self {
        self.lease = Lease::of(name.into(), lease);
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

    /// The checkpoint items of this pass.
    fn checkpoints(&self) -> Checkpoints<'_> {
        Checkpoints { table: &self.table, names: E::NAMES, id: &self.id, entity: E::TYPE }
    }

    fn report(&self, run: u64, segments: u32, states: &[SegmentState]) -> BackfillReport {
        let mut total = Counts::default();
        for s in states {
            total.add(&s.counts);
        }
        total.into_report(self.id.clone(), run, segments, states.iter().all(|s| s.done))
    }

    /// The backfill's progress as its checkpoints record it; `None` before its first run.
    ///
    /// # Errors
    /// [`Error::Sdk`]; [`Error::Invalid`] for a malformed run record.
    pub async fn status(&self) -> Result<Option<BackfillReport>, Error> {
        let checkpoints = self.checkpoints();
        let Some((run, segments, _)) = checkpoints.run_record().await? else { return Ok(None) };
        let states = checkpoints.segment_states(run, segments).await?;
        Ok(Some(self.report(run, segments, &states)))
    }

    /// Runs the backfill: starts run 1 the first time, resumes a run that was stopped (from the
    /// last page recorded of each segment), and returns the report of a completed run without
    /// reading anything: an item written since by code that does not know the pass (a late
    /// writer of a rolling deploy) is not looked for. [`verify`](Self::verify) finds such
    /// items, and [`rerun`](Self::rerun) brings them back.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the table's partition key is not a string (the checkpoints are
    /// stored under `_MIGRATION#<id>`); [`Error::Sdk`] from DynamoDB (the progress up to the
    /// last page of each segment is kept: run it again to resume).
    pub async fn run(&self) -> Result<BackfillReport, Error> {
        let checkpoints = self.checkpoints();
        let (run, segments) = match checkpoints.run_record().await? {
            Some((run, segments, true)) => {
                let states = checkpoints.segment_states(run, segments).await?;
                return Ok(self.report(run, segments, &states));
            }
            Some((run, segments, false)) => (run, segments),
            None => {
                // Several workers may start at once: the first one's record stands.
                if checkpoints.start(self.segments).await? {
                    (1, self.segments)
                } else {
                    match checkpoints.run_record().await? {
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
        let checkpoints = self.checkpoints();
        let run = checkpoints.run_record().await?.map_or(1, |(r, _, _)| r + 1);
        checkpoints.put(checkpoints.run_item(run, self.segments, "running")).await?;
        self.run_segments(run, self.segments).await
    }

    /// Runs the backfill as one step of a migration that must leave no item behind (the
    /// runner's steps, and the passes of a native-key migration): as [`run`](Self::run), but a
    /// run completed with failed items is started again ([`rerun`](Self::rerun): the items
    /// already migrated are skipped, the failed ones tried again), and a run that ends with
    /// failed items is an error. With `again` (a step applied again after a verification found
    /// drift), a completed run is started again too; a run not completed is resumed, so a
    /// re-application stopped part way continues from its checkpoints.
    ///
    /// # Errors
    /// [`Error::ItemsFailed`] naming the first failed items' keys; as [`run`](Self::run).
    pub(crate) async fn run_to_the_end(&self, again: bool) -> Result<BackfillReport, Error> {
        let report = match self.status().await? {
            Some(done) if done.completed && (again || done.failed > 0) => self.rerun().await?,
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

    /// Why the pass cannot run, before anything is read: its step refuses it, or the table's
    /// partition key is not a string (the checkpoints are stored under `_MIGRATION#<id>`).
    pub(super) fn check_names(&self) -> Option<Error> {
        if let Some(e) = self.step.refusal() {
            return Some(e);
        }
        let names = E::NAMES;
        let pk_type = E::SCHEMA.primary.pk.key_type;
        (pk_type != crate::key::KeyType::S).then(|| Error::Invalid {
            reason: format!(
                "backfill {}: the checkpoints are stored under {} = _MIGRATION#{}, but {} of this table is of type {pk_type}, not S",
                self.id, names.pk, self.id, names.pk
            ),
        })
    }
}

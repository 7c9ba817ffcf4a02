//! The migration runner: a table's migrations declared in the application's code as one ordered
//! list with ids, and the record the table keeps of each (applied, running, or stopped with its
//! checkpoint).
//!
//! ```ignore
//! let migrations = Migrations::new(AppTable::layout()?)
//!     .apply_layout("2026-03-gsi3")                                   // create GSI3 (UpdateTable)
//!     .backfill::<Review>("2026-03-review-gsi3", |b| b.segments(8))   // fill its keys
//!     .rekey::<MemberV1, Member>("2026-04-members-into-teams", Member::from, |b| b)
//!     .custom("2026-05-drop-drafts", "delete the draft items", |table| async move { Ok(String::new()) });
//! migrations.apply(&table, &RunOptions::default()).await?;   // runs what is not applied yet
//! for s in migrations.status(&table).await? { println!("{s}"); }
//! ```
//!
//! # The record
//! Each migration has the item `_MIGRATION#<id>` / `STEP` in the table (under the table's
//! partition and sort key attributes, entity type `_migration`, which no entity scan or query
//! returns), beside the checkpoint items of a backfill or re-keying of the same id: its kind,
//! `status` (`running`, `applied` or `failed`), the worker running it, a heartbeat the runner
//! renews while the step runs ([`Migrations::heartbeat`]), the start and end times, and a
//! one-line summary or error. A step recorded `running` whose heartbeat is older than three
//! heartbeat periods was stopped (its process killed or its future dropped), as is a `failed`
//! one: [`Status::Stopped`], with the backfill's checkpoint. [`Migrations::apply`] and
//! [`Migrations::resume`] continue it (a backfill or re-keying from its checkpoint; an index
//! step by comparing the table with the declaration again; a custom step from its start, so it
//! must be idempotent).
//!
//! A pass over an entity's items that ends with items it could not migrate (they do not
//! decode, or their condition kept failing) is not applied: the step fails with
//! [`Error::ItemsFailed`], which names the first of them, and is recorded `failed`. Once they
//! are mended, `resume` runs the pass again: a new run of the backfill, which skips the items
//! already migrated.
//!
//! The table also lists every migration a runner started, one item `_MIGRATIONS` / `ID#<id>`
//! each (its id and kind), so that [`Migrations::status`] reads the records of migrations no
//! longer declared too ([`Status::Undeclared`]) with one `Query`.
//!
//! Migrations run one at a time, in the declared order; a step another runner is running
//! (a fresh heartbeat) is not started twice (the step's record is claimed with a conditional
//! write).

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::{Backfill, BackfillReport, MIGRATION_TYPE, PageDone, PageObserver, migration_items};
use crate::migrate::diff::Wait;
use crate::migrate::native::NativeKeys;
use crate::schema::{Entity, Item, TableLayout};
use crate::table::{Call, Table};

// The partition holding the list of the migrations run on a table, one item `ID#<id>` each.
use crate::schema::reserved::MIGRATION_REGISTRY as REGISTRY;

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Milliseconds since the Unix epoch, by this machine's clock.
fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What kind of step a migration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A backfill of an entity's secondary index keys ([`Table::backfill`]).
    Backfill,
    /// A re-keying of an entity's items to a new primary key template ([`Table::rekey`]).
    Rekey,
    /// The table's indexes and TTL brought to the declared layout ([`Table::diff`],
    /// [`Table::apply`]).
    ///
    /// [`Table::diff`]: crate::Table::diff
    /// [`Table::apply`]: crate::Table::apply
    Layout,
    /// Every item of an entity written back at its current schema version
    /// ([`Table::upgrade_all`]).
    Upgrade,
    /// A template GSI replaced by a native multi-attribute GSI ([`Table::native_keys`]).
    NativeKeys,
    /// A step of the application's own ([`Migrations::custom`]).
    Custom,
}

impl Kind {
    fn from_name(name: &str) -> Option<Kind> {
        [Kind::Backfill, Kind::Rekey, Kind::Layout, Kind::Upgrade, Kind::NativeKeys, Kind::Custom]
            .into_iter()
            .find(|k| k.name() == name)
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Backfill => "backfill",
            Kind::Rekey => "rekey",
            Kind::Layout => "layout",
            Kind::Upgrade => "upgrade",
            Kind::NativeKeys => "native-keys",
            Kind::Custom => "custom",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Told what a run does, step by step: the command line's progress bar and progress lines
/// implement it. Every method has an empty default.
pub trait Observer: Send + Sync {
    /// A step starts (or resumes). `estimate` is the number of items a scan of the table reads
    /// (DynamoDB's `ItemCount`, updated about every six hours on DynamoDB itself), for a backfill
    /// or re-keying; `done` is what its checkpoint records as already read.
    fn step_started(&self, id: &str, kind: Kind, estimate: Option<u64>, done: u64) {
        let _ = (id, kind, estimate, done);
    }
    /// Pages of a scanning step (a backfill, re-keying, bulk upgrade or native-keys pass) are
    /// done and checkpointed: those of one segment since its previous checkpoint.
    fn page(&self, id: &str, page: &PageDone) {
        let _ = (id, page);
    }
    /// A step is done; `summary` says what it did.
    fn step_finished(&self, id: &str, summary: &str) {
        let _ = (id, summary);
    }
    /// A step failed with `error` (it is recorded `failed`; the run stops).
    fn step_failed(&self, id: &str, error: &Error) {
        let _ = (id, error);
    }
}

/// An observer that is told nothing.
struct Quiet;
impl Observer for Quiet {}

/// The steps a migration's kind runs, behind one object-safe face.
trait Step: Send + Sync {
    fn describe(&self) -> String;
    fn run<'a>(&'a self, table: &'a Table, id: &'a str, obs: Arc<dyn Observer>)
    -> BoxFuture<'a, Result<String, Error>>;
    fn checkpoint<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>>;
    fn plan<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>>;
}

type Configure<E> = Arc<dyn Fn(Backfill<E>) -> Backfill<E> + Send + Sync>;
type Make<E> = Arc<dyn Fn(&Table, &str) -> Backfill<E> + Send + Sync>;

/// A backfill or a re-keying: both are a [`Backfill`] of entity `E`.
struct BackfillStep<E> {
    make: Make<E>,
    what: String,
    kind: Kind,
}

impl<E: Entity> Step for BackfillStep<E> {
    fn describe(&self) -> String {
        self.what.clone()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        obs: Arc<dyn Observer>,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            let backfill = (self.make)(table, id);
            let done = backfill.status().await?.map_or(0, |r| if r.completed { 0 } else { r.scanned });
            obs.step_started(id, self.kind, item_count(table).await?, done);
            let owned = id.to_owned();
            let report = backfill.on_page(move |p| obs.page(&owned, p)).run_to_the_end().await?;
            Ok(report.to_string())
        })
    }

    fn checkpoint<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async move { (self.make)(table, id).status().await })
    }

    fn plan<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(async move {
            let backfill = (self.make)(table, id);
            let count = item_count(table).await?.map_or_else(|| "the table".to_owned(), |n| format!("~{n} items"));
            let mut lines =
                vec![format!("{}: a parallel scan of {count}, a conditional write per item to change", self.what)];
            if let Some(r) = backfill.status().await? {
                if r.completed && r.failed > 0 {
                    lines.push(format!("a new run, to retry the {} item(s) that failed: {r}", r.failed));
                } else if r.completed {
                    lines.push(format!("already done by its checkpoints: {r}"));
                } else {
                    lines.push(format!("resumes from its checkpoints: {r}"));
                }
            }
            Ok(lines)
        })
    }
}

/// Makes the step's [`NativeKeys`]; its passes tell their pages to the observer given.
type MakeNative<E> = Arc<dyn Fn(&Table, &str, Option<PageObserver>) -> NativeKeys<E> + Send + Sync>;

/// A template GSI replaced by a native multi-attribute GSI.
struct NativeStep<E> {
    make: MakeNative<E>,
    what: String,
}

impl<E: Entity> Step for NativeStep<E> {
    fn describe(&self) -> String {
        self.what.clone()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        obs: Arc<dyn Observer>,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            obs.step_started(id, Kind::NativeKeys, None, 0);
            let owned = id.to_owned();
            let pages: PageObserver = Arc::new(move |p: &PageDone| obs.page(&owned, p));
            Ok((self.make)(table, id, Some(pages)).run().await?.to_string())
        })
    }

    fn checkpoint<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async move { (self.make)(table, id, None).status().await })
    }

    fn plan<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(async move {
            let mut lines = vec![format!(
                "{}: create the index if missing, a parallel scan writing the attributes items lack, a verifying scan",
                self.what
            )];
            if let Some(r) = (self.make)(table, id, None).status().await? {
                lines.push(format!("fill pass checkpoint: {r}"));
            }
            Ok(lines)
        })
    }
}

/// The table's indexes and TTL brought to the layout.
struct LayoutStep {
    layout: TableLayout,
    wait: Wait,
}

impl Step for LayoutStep {
    fn describe(&self) -> String {
        "bring the table's indexes and time to live to the declared layout".to_owned()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        obs: Arc<dyn Observer>,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            obs.step_started(id, Kind::Layout, None, 0);
            let diff = table.diff(&self.layout).await?;
            let steps = table.apply(&diff, self.wait).await?;
            Ok(if steps.is_empty() {
                "the table already matched its declaration".to_owned()
            } else {
                steps.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
            })
        })
    }

    fn checkpoint<'a>(&'a self, _: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async { Ok(None) })
    }

    fn plan<'a>(&'a self, table: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(async move {
            let plan = table.diff(&self.layout).await?.plan();
            let text = plan.to_string();
            Ok(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect())
        })
    }
}

type CustomFn = Arc<dyn Fn(Table) -> BoxFuture<'static, Result<String, Error>> + Send + Sync>;

struct CustomStep {
    description: String,
    f: CustomFn,
}

impl Step for CustomStep {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        obs: Arc<dyn Observer>,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            obs.step_started(id, Kind::Custom, None, 0);
            (self.f)(table.clone()).await
        })
    }

    fn checkpoint<'a>(&'a self, _: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async { Ok(None) })
    }

    fn plan<'a>(&'a self, _: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(async move { Ok(vec![format!("{} (the application's own step)", self.description)]) })
    }
}

/// `ItemCount` of `DescribeTable`: the estimate of a scan's length.
async fn item_count(table: &Table) -> Result<Option<u64>, Error> {
    let out = table
        .execute(Call::new("DescribeTable", ""), table.client().describe_table().table_name(table.name()).send())
        .await
        .map_err(|e| Error::sdk("DescribeTable", e))?;
    Ok(out.table.and_then(|t| t.item_count).and_then(|n| u64::try_from(n).ok()))
}

/// One declared migration.
struct Migration {
    id: String,
    kind: Kind,
    step: Box<dyn Step>,
}

/// A table's migrations, in the order they run; see the [module documentation](self).
pub struct Migrations {
    layout: TableLayout,
    steps: Vec<Migration>,
    heartbeat: Duration,
    wait: Wait,
}

impl fmt::Debug for Migrations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Migrations").field("ids", &self.ids().collect::<Vec<_>>()).finish_non_exhaustive()
    }
}

/// Where one migration stands, as the table records it.
#[derive(Debug, Clone, PartialEq)]
pub enum Status {
    /// Not started.
    Pending,
    /// Being run by `worker` (its heartbeat is fresh).
    Running {
        /// The worker running it.
        worker: String,
        /// Its checkpoint (a backfill or re-keying).
        checkpoint: Option<BackfillReport>,
    },
    /// Started and stopped before it was done: its process was killed, its run dropped, or it
    /// failed with `error`. [`Migrations::resume`] continues it.
    Stopped {
        /// The error it failed with, if it failed.
        error: Option<String>,
        /// Its checkpoint (a backfill or re-keying).
        checkpoint: Option<BackfillReport>,
    },
    /// Done.
    Applied {
        /// When it was done, in milliseconds since the Unix epoch.
        at_ms: u64,
        /// What it did.
        summary: String,
    },
    /// Recorded in the table but no longer declared (its step was removed from the code, or
    /// the table is shared with another program's migrations). Nothing runs it.
    Undeclared {
        /// What its record says: `running`, `applied` or `failed`.
        recorded: String,
        /// Its summary (applied) or error (failed), if any.
        text: Option<String>,
    },
}

/// One line of [`Migrations::status`].
#[derive(Debug, Clone, PartialEq)]
pub struct MigrationStatus {
    /// The migration id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// What it does.
    pub description: String,
    /// Where it stands.
    pub status: Status,
}

impl fmt::Display for MigrationStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let checkpoint = |c: &Option<BackfillReport>| {
            c.as_ref().map_or(String::new(), |r| {
                let done = r.completed;
                format!(
                    " (checkpoint: run {}, {} scanned, {} updated, {} skipped{}{})",
                    r.run,
                    r.scanned,
                    r.updated,
                    r.skipped,
                    if r.failed > 0 { format!(", {} failed", r.failed) } else { String::new() },
                    if done { ", every segment done" } else { "" }
                )
            })
        };
        write!(f, "{:<8} {} [{}] {}", self.status.word(), self.id, self.kind, self.description)?;
        match &self.status {
            Status::Pending => Ok(()),
            Status::Running { worker, checkpoint: c } => write!(f, ": run by {worker}{}", checkpoint(c)),
            Status::Stopped { error, checkpoint: c } => {
                write!(f, ":{}", checkpoint(c))?;
                if let Some(e) = error {
                    write!(f, " failed: {e}")?;
                }
                Ok(())
            }
            Status::Applied { summary, .. } => write!(f, ": {summary}"),
            Status::Undeclared { recorded, text } => {
                write!(f, ": recorded {recorded}")?;
                if let Some(t) = text {
                    write!(f, ": {t}")?;
                }
                Ok(())
            }
        }
    }
}

impl Status {
    /// `pending`, `running`, `stopped`, `applied` or `undeclared`.
    pub fn word(&self) -> &'static str {
        match self {
            Status::Undeclared { .. } => "undeclared",
            Status::Pending => "pending",
            Status::Running { .. } => "running",
            Status::Stopped { .. } => "stopped",
            Status::Applied { .. } => "applied",
        }
    }
}

/// How [`Migrations::apply`] and [`Migrations::resume`] run.
#[derive(Clone)]
pub struct RunOptions {
    /// Stop after the migration with this id (it included); `None`: run to the end.
    pub to: Option<String>,
    /// This runner's name in the record ([`default_worker`]: this machine and process, by
    /// default); a step recorded as run by the same name is taken over at once, whatever its
    /// heartbeat, and one run by another name only once its heartbeat is stale. Give the same
    /// name to a process that takes over a step at once after a crash; never to two processes
    /// that run at once.
    pub worker: String,
    /// Told of each step and page.
    pub observer: Arc<dyn Observer>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions { to: None, worker: default_worker(), observer: Arc::new(Quiet) }
    }
}

/// The default name of a runner: `<host>:<process id>` (the host from the `HOSTNAME`
/// variable or `/etc/hostname`, `localhost` without either), so that two processes started at
/// once (every instance of a service migrating on start-up) never take each other's step.
pub fn default_worker() -> String {
    let host = std::env::var("HOSTNAME")
        .ok()
        .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_owned());
    format!("{host}:{}", std::process::id())
}

impl fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunOptions").field("to", &self.to).field("worker", &self.worker).finish_non_exhaustive()
    }
}

/// One step a run did: its id and summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The migration id.
    pub id: String,
    /// What it did.
    pub summary: String,
}

impl Migrations {
    /// No migrations yet, for the table declared by `layout` (its partition and sort key
    /// attribute names hold the records; its layout is what [`apply_layout`](Self::apply_layout)
    /// steps apply and the command line exports).
    pub fn new(layout: TableLayout) -> Migrations {
        Migrations { layout, steps: Vec::new(), heartbeat: Duration::from_secs(5), wait: Wait::default() }
    }

    /// The declared layout.
    pub fn layout(&self) -> &TableLayout {
        &self.layout
    }

    /// The migration ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().map(|m| m.id.as_str())
    }

    /// How often a running step renews its heartbeat (5 s by default); a step whose heartbeat
    /// is older than three periods counts as stopped.
    #[must_use]
    pub fn heartbeat(mut self, period: Duration) -> Migrations {
        self.heartbeat = period.max(Duration::from_millis(50));
        self
    }

    /// How [`apply_layout`](Self::apply_layout) steps wait for each index ([`Wait::default`]).
    #[must_use]
    pub fn wait(mut self, wait: Wait) -> Migrations {
        self.wait = wait;
        self
    }

    fn push(mut self, id: String, kind: Kind, step: Box<dyn Step>) -> Migrations {
        self.steps.push(Migration { id, kind, step });
        self
    }

    /// Adds the step `id` of `kind` that runs the [`Backfill`] `make` returns for the table and
    /// the step's id (a backfill, a re-keying or a bulk upgrade), described by `what`.
    fn backfill_step<E: Entity>(
        self,
        id: impl Into<String>,
        kind: Kind,
        what: String,
        make: impl Fn(&Table, &str) -> Backfill<E> + Send + Sync + 'static,
    ) -> Migrations {
        let make: Make<E> = Arc::new(make);
        self.push(id.into(), kind, Box::new(BackfillStep { make, what, kind }))
    }

    /// Adds a backfill of entity `E`'s secondary index keys ([`Table::backfill`]) with the id
    /// `id`; `configure` sets its segments, concurrency, read rate or worker.
    #[must_use]
    pub fn backfill<E: Entity>(
        self,
        id: impl Into<String>,
        configure: impl Fn(Backfill<E>) -> Backfill<E> + Send + Sync + 'static,
    ) -> Migrations {
        let what = format!("backfill the secondary index keys of {} items", E::TYPE);
        self.backfill_step(id, Kind::Backfill, what, move |table, id| configure(table.backfill::<E>(id)))
    }

    /// Adds a re-keying of `Old`'s items to `New`'s primary key ([`Table::rekey`]), converting
    /// each with `convert`; `configure` as for [`backfill`](Self::backfill).
    #[must_use]
    pub fn rekey<Old: Entity, New: Entity>(
        self,
        id: impl Into<String>,
        convert: impl Fn(Old) -> New + Send + Sync + 'static,
        configure: impl Fn(Backfill<Old>) -> Backfill<Old> + Send + Sync + 'static,
    ) -> Migrations {
        let convert = Arc::new(convert);
        let what = format!("move the {} items to their new primary key", Old::TYPE);
        self.backfill_step(id, Kind::Rekey, what, move |table, id| {
            let convert = Arc::clone(&convert);
            configure(table.rekey::<Old, New>(id, move |o| convert(o)))
        })
    }

    /// Adds a bulk upgrade of entity `E` ([`Table::upgrade_all`]): every item written at an
    /// earlier schema version is written back at the current one, conditionally on the stored
    /// item being unchanged; resumable like a backfill. `configure` as for
    /// [`backfill`](Self::backfill).
    ///
    /// [`Table::upgrade_all`]: crate::Table::upgrade_all
    #[must_use]
    pub fn upgrade<E: Entity>(
        self,
        id: impl Into<String>,
        configure: impl Fn(Backfill<E>) -> Backfill<E> + Send + Sync + 'static,
    ) -> Migrations {
        let what = format!("write every {} item back at its current schema version", E::TYPE);
        self.backfill_step(id, Kind::Upgrade, what, move |table, id| configure(table.upgrade_all::<E>(id)))
    }

    /// Adds the move of entity `E`'s access pattern from the template GSI `from` to the native
    /// multi-attribute GSI `to` ([`Table::native_keys`], with the declared layout); with
    /// `drop_old`, the old synthetic key attributes are then removed and the old GSI deleted.
    /// `configure` sets the passes' segments, concurrency, read rate or worker.
    ///
    /// [`Table::native_keys`]: crate::Table::native_keys
    #[must_use]
    pub fn native_keys<E: Entity>(
        self,
        id: impl Into<String>,
        from: crate::schema::Index,
        to: crate::schema::Index,
        drop_old: bool,
        configure: impl Fn(Backfill<E>) -> Backfill<E> + Send + Sync + 'static,
    ) -> Migrations {
        let layout = self.layout.clone();
        let wait = self.wait;
        let configure: Configure<E> = Arc::new(configure);
        let make: MakeNative<E> = Arc::new(move |table: &Table, id: &str, pages: Option<PageObserver>| {
            let configure = Arc::clone(&configure);
            let n = table.native_keys::<E>(id, &layout, from, to).wait(wait).configure(move |b| {
                let b = configure(b);
                match &pages {
                    Some(pages) => {
                        let pages = Arc::clone(pages);
                        b.on_page(move |p| pages(p))
                    }
                    None => b,
                }
            });
            if drop_old { n.drop_old() } else { n }
        });
        let what = format!(
            "move the {} access pattern from {from} to the native multi-attribute {to}{}",
            E::TYPE,
            if drop_old { ", then remove the old keys and index" } else { "" }
        );
        self.push(id.into(), Kind::NativeKeys, Box::new(NativeStep { make, what }))
    }

    /// Adds a step that brings the table's indexes and time to live to the declared layout
    /// ([`Table::diff`], then [`Table::apply`]: GSIs deleted and created one at a time, waiting
    /// for each as [`wait`](Self::wait) says). It fails, changing nothing, when the difference
    /// needs a person (a table key or LSI change).
    ///
    /// [`Table::diff`]: crate::Table::diff
    /// [`Table::apply`]: crate::Table::apply
    #[must_use]
    pub fn apply_layout(self, id: impl Into<String>) -> Migrations {
        let step = LayoutStep { layout: self.layout.clone(), wait: self.wait };
        self.push(id.into(), Kind::Layout, Box::new(step))
    }

    /// Adds a step of the application's own: `f` gets the table and returns a one-line summary
    /// of what it did. A stopped custom step runs again from its start: make it idempotent.
    #[must_use]
    pub fn custom<F, Fut>(self, id: impl Into<String>, description: impl Into<String>, f: F) -> Migrations
    where
        F: Fn(Table) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, Error>> + Send + 'static,
    {
        let f: CustomFn = Arc::new(move |t| Box::pin(f(t)));
        self.push(id.into(), Kind::Custom, Box::new(CustomStep { description: description.into(), f }))
    }

    /// Every id is non-empty and declared once, and `to` names one.
    fn check(&self, to: Option<&str>) -> Result<(), Error> {
        let mut seen = HashSet::new();
        for m in &self.steps {
            if m.id.is_empty() {
                return Err(Error::Invalid { reason: "migrations: a migration id is empty".to_owned() });
            }
            if !seen.insert(m.id.as_str()) {
                return Err(Error::Invalid { reason: format!("migrations: the id {:?} is declared twice", m.id) });
            }
        }
        if let Some(to) = to {
            if !seen.contains(to) {
                return Err(Error::Invalid { reason: format!("migrations: no migration has the id {to:?}") });
            }
        }
        if self.layout.key_type(self.layout.names().pk) != crate::key::KeyType::S {
            return Err(Error::Invalid {
                reason: format!(
                    "migrations: the records are stored under {} = _MIGRATION#<id>, but {} of this table is not a string",
                    self.layout.names().pk,
                    self.layout.names().pk
                ),
            });
        }
        Ok(())
    }

    fn key(&self, id: &str) -> Item {
        let names = self.layout.names();
        HashMap::from([
            (names.pk.to_owned(), AttributeValue::S(format!("{}{id}", crate::schema::reserved::MIGRATION_PREFIX))),
            (names.sk.to_owned(), AttributeValue::S("STEP".to_owned())),
        ])
    }

    async fn record(&self, table: &Table, id: &str) -> Result<Option<Item>, Error> {
        let request = table
            .client()
            .get_item()
            .table_name(table.name())
            .set_key(Some(self.key(id)))
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let out =
            table.execute(Call::new("GetItem", MIGRATION_TYPE), request).await.map_err(|e| Error::sdk("GetItem", e))?;
        Ok(out.item)
    }

    /// Writes the record of `m`, on the condition `claim` says; `Ok(false)` when it failed.
    async fn write(&self, table: &Table, m: &Migration, fields: Record<'_>, claim: Guard) -> Result<bool, Error> {
        let mut item = self.key(&m.id);
        if self.layout.names().has_entity_type() {
            item.insert(self.layout.names().entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("kind".to_owned(), AttributeValue::S(m.kind.name().to_owned()));
        item.insert("status".to_owned(), AttributeValue::S(fields.status.to_owned()));
        item.insert("worker".to_owned(), AttributeValue::S(fields.worker.to_owned()));
        item.insert("heartbeat".to_owned(), AttributeValue::N(now_ms().to_string()));
        item.insert("started".to_owned(), AttributeValue::N(fields.started.to_string()));
        if let Some(text) = fields.text {
            item.insert(
                if fields.status == "failed" { "error" } else { "summary" }.to_owned(),
                AttributeValue::S(text),
            );
        }
        let mut request = table.client().put_item().table_name(table.name()).set_item(Some(item));
        let mut ph = Placeholders::default();
        let mut cond = String::new();
        let equals = |ph: &mut Placeholders, cond: &mut String, name: &str, op: &str, value: AttributeValue| {
            ph.push_name(name, cond);
            cond.push_str(op);
            ph.push_value(value, cond);
        };
        match claim {
            Guard::Claim => {
                cond.push_str("attribute_not_exists(");
                ph.push_name(self.layout.names().pk, &mut cond);
                cond.push_str(") OR ");
                equals(&mut ph, &mut cond, "status", " <> ", AttributeValue::S("running".to_owned()));
                cond.push_str(" OR ");
                equals(&mut ph, &mut cond, "heartbeat", " < ", AttributeValue::N(self.stale_before().to_string()));
                cond.push_str(" OR ");
                equals(&mut ph, &mut cond, "worker", " = ", AttributeValue::S(fields.worker.to_owned()));
            }
            Guard::Held => {
                equals(&mut ph, &mut cond, "status", " = ", AttributeValue::S("running".to_owned()));
                cond.push_str(" AND ");
                equals(&mut ph, &mut cond, "worker", " = ", AttributeValue::S(fields.worker.to_owned()));
            }
            Guard::None => {}
        }
        if !cond.is_empty() {
            request = request
                .condition_expression(cond)
                .set_expression_attribute_names(ph.take_names())
                .set_expression_attribute_values(ph.take_values());
        }
        match table.execute(Call::new("PutItem", MIGRATION_TYPE), request.send()).await {
            Ok(_) => Ok(true),
            Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
                if e.err().is_conditional_check_failed_exception() =>
            {
                Ok(false)
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
    }

    /// Heartbeats older than this (milliseconds since the Unix epoch) are stale.
    fn stale_before(&self) -> u64 {
        now_ms().saturating_sub(u64::try_from(self.heartbeat.as_millis() * 3).unwrap_or(u64::MAX))
    }

    /// Where each declared migration stands, in order (one `GetItem` each, and the checkpoint
    /// of a started backfill or re-keying), then each migration the table records as started
    /// that is no longer declared ([`Status::Undeclared`], by id; one `Query` of the table's
    /// list of migrations and a `GetItem` each).
    ///
    /// # Errors
    /// [`Error::Invalid`] for an id declared twice or empty, or a malformed record;
    /// [`Error::Sdk`].
    pub async fn status(&self, table: &Table) -> Result<Vec<MigrationStatus>, Error> {
        self.check(None)?;
        let mut out = Vec::with_capacity(self.steps.len());
        for m in &self.steps {
            out.push(self.status_of(table, m).await?);
        }
        let declared: HashSet<&str> = self.ids().collect();
        for (id, kind) in self.registered(table).await? {
            if declared.contains(id.as_str()) {
                continue;
            }
            let Some(item) = self.record(table, &id).await? else { continue };
            let s = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
            let recorded = s("status").unwrap_or_default();
            let text = s(if recorded == "failed" { "error" } else { "summary" });
            out.push(MigrationStatus {
                id,
                kind,
                description: "no longer declared".to_owned(),
                status: Status::Undeclared { recorded, text },
            });
        }
        Ok(out)
    }

    /// The key of migration `id`'s entry in the table's list of migrations run
    /// (`_MIGRATIONS` / `ID#<id>`).
    fn registry_key(&self, id: &str) -> Item {
        let names = self.layout.names();
        HashMap::from([
            (names.pk.to_owned(), AttributeValue::S(REGISTRY.to_owned())),
            (names.sk.to_owned(), AttributeValue::S(format!("ID#{id}"))),
        ])
    }

    /// Adds `m` to the table's list of migrations run (an unconditional `PutItem`: the entry
    /// only names it).
    async fn register(&self, table: &Table, m: &Migration) -> Result<(), Error> {
        let mut item = self.registry_key(&m.id);
        if self.layout.names().has_entity_type() {
            item.insert(self.layout.names().entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("id".to_owned(), AttributeValue::S(m.id.clone()));
        item.insert("kind".to_owned(), AttributeValue::S(m.kind.name().to_owned()));
        let request = table
            .client()
            .put_item()
            .table_name(table.name())
            .set_item(Some(item))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        table.execute(Call::new("PutItem", MIGRATION_TYPE), request).await.map_err(|e| Error::sdk("PutItem", e))?;
        Ok(())
    }

    /// Every migration the table's list names, in id order: one strongly consistent `Query` of
    /// the partition `_MIGRATIONS` (paginated).
    async fn registered(&self, table: &Table) -> Result<Vec<(String, Kind)>, Error> {
        let names = self.layout.names();
        let items = migration_items(table, names.pk, AttributeValue::S(REGISTRY.to_owned()), None).await?;
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let id = item.get("id").and_then(|v| v.as_s().ok()).cloned();
            let kind = item.get("kind").and_then(|v| v.as_s().ok()).and_then(|k| Kind::from_name(k));
            match (id, kind) {
                (Some(id), Some(kind)) => out.push((id, kind)),
                _ => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "an entry of the table's list of migrations ({}) is malformed",
                            names.describe_key(&item)
                        ),
                    });
                }
            }
        }
        Ok(out)
    }

    async fn status_of(&self, table: &Table, m: &Migration) -> Result<MigrationStatus, Error> {
        let record = self.record(table, &m.id).await?;
        let s = |item: &Item, name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
        let n = |item: &Item, name: &str| {
            item.get(name).and_then(|v| v.as_n().ok()).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        };
        let status = match record {
            None => Status::Pending,
            Some(item) => match s(&item, "status").as_deref() {
                Some("applied") => {
                    Status::Applied { at_ms: n(&item, "heartbeat"), summary: s(&item, "summary").unwrap_or_default() }
                }
                Some("running") if n(&item, "heartbeat") >= self.stale_before() => Status::Running {
                    worker: s(&item, "worker").unwrap_or_default(),
                    checkpoint: m.step.checkpoint(table, &m.id).await?,
                },
                Some("running" | "failed") => {
                    Status::Stopped { error: s(&item, "error"), checkpoint: m.step.checkpoint(table, &m.id).await? }
                }
                other => {
                    return Err(Error::Invalid {
                        reason: format!("migration {}: its record has the status {other:?}", m.id),
                    });
                }
            },
        };
        Ok(MigrationStatus { id: m.id.clone(), kind: m.kind, description: m.step.describe(), status })
    }

    /// What [`apply`](Self::apply) would do, without changing anything: for each migration not
    /// applied yet (up to `to`), its id and lines that say what it would send (an index step
    /// lists its `UpdateTable` steps; a backfill its scan and where its checkpoint stands).
    ///
    /// # Errors
    /// [`Error::Invalid`] for an id declared twice, a `to` no migration has, or a migration never
    /// run declared before one already run (see [`apply`](Self::apply)); as
    /// [`status`](Self::status).
    pub async fn plan(&self, table: &Table, to: Option<&str>) -> Result<Vec<(String, Vec<String>)>, Error> {
        self.check(to)?;
        let statuses = self.status_in_order(table).await?;
        let mut out = Vec::new();
        for (m, st) in self.steps.iter().zip(statuses) {
            if !matches!(st.status, Status::Applied { .. }) {
                let mut lines = m.step.plan(table, &m.id).await?;
                if let Status::Running { worker, .. } = &st.status {
                    lines.insert(0, format!("now being run by {worker}"));
                }
                out.push((m.id.clone(), lines));
            }
            if Some(m.id.as_str()) == to {
                break;
            }
        }
        Ok(out)
    }

    /// Runs, in order, every migration not applied yet (up to `options.to`), each recorded as
    /// `running` while it runs and `applied` once done; a stopped one continues from its
    /// checkpoint. Returns the steps done by this call.
    ///
    /// # Errors
    /// [`Error::Invalid`] for an id declared twice, a `to` no migration has, a migration never
    /// run declared before one already run (it would run after a migration declared after
    /// it: nothing is started), or when a step is being run by another worker (nothing after
    /// it is started); the error of a step (recorded as `failed`, with
    /// the steps before it applied: run again to continue), among them
    /// [`Error::ItemsFailed`] for a backfill, re-keying, bulk upgrade or native-key pass that
    /// ended with items it could not migrate (run again, the pass retries those items).
    pub async fn apply(&self, table: &Table, options: &RunOptions) -> Result<Vec<Applied>, Error> {
        self.check(options.to.as_deref())?;
        self.run(table, options, false).await
    }

    /// Continues the migrations that were stopped (a killed process, a dropped run, a failure),
    /// in order, and nothing else.
    ///
    /// # Errors
    /// [`Error::Invalid`] when no migration is stopped; otherwise as [`apply`](Self::apply).
    pub async fn resume(&self, table: &Table, options: &RunOptions) -> Result<Vec<Applied>, Error> {
        self.check(options.to.as_deref())?;
        self.run(table, options, true).await
    }

    /// Where each declared migration stands, in the declared order, after checking that order
    /// against the table's records: a migration never started may not be declared before one
    /// already started (applied, running or stopped), which ran without it.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming both migrations; as [`status`](Self::status).
    async fn status_in_order(&self, table: &Table) -> Result<Vec<MigrationStatus>, Error> {
        let mut statuses = Vec::with_capacity(self.steps.len());
        for m in &self.steps {
            statuses.push(self.status_of(table, m).await?);
        }
        let mut first_pending: Option<&str> = None;
        for st in &statuses {
            match (&st.status, first_pending) {
                (Status::Pending, None) => first_pending = Some(&st.id),
                (Status::Pending, Some(_)) => {}
                (started, Some(pending)) => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "migrations: {pending} is declared before {}, but {} is {} and {pending} was never run: \
                             migrations run in their declared order, so declare a new migration after every one \
                             already run; nothing started",
                            st.id,
                            st.id,
                            started.word()
                        ),
                    });
                }
                (_, None) => {}
            }
        }
        Ok(statuses)
    }

    async fn run(&self, table: &Table, options: &RunOptions, stopped_only: bool) -> Result<Vec<Applied>, Error> {
        self.status_in_order(table).await?;
        let mut done = Vec::new();
        let mut any_stopped = false;
        for m in &self.steps {
            let st = self.status_of(table, m).await?;
            let run = match &st.status {
                Status::Applied { .. } | Status::Undeclared { .. } => false,
                Status::Stopped { .. } => {
                    any_stopped = true;
                    true
                }
                // Recorded as run by this very worker: a run of it that stopped before its
                // heartbeat went stale (a process restarted under the same name).
                Status::Running { worker, .. } if *worker == options.worker => {
                    any_stopped = true;
                    true
                }
                Status::Running { worker, .. } => {
                    return Err(Error::Invalid {
                        reason: format!("migration {} is being run by {worker}; nothing started", m.id),
                    });
                }
                Status::Pending => !stopped_only,
            };
            if run {
                done.push(self.run_one(table, m, options).await?);
            }
            if Some(m.id.as_str()) == options.to.as_deref() {
                break;
            }
        }
        if stopped_only && !any_stopped {
            return Err(Error::Invalid { reason: "migrations: no migration is stopped; nothing to resume".to_owned() });
        }
        Ok(done)
    }

    async fn run_one(&self, table: &Table, m: &Migration, options: &RunOptions) -> Result<Applied, Error> {
        let started = now_ms();
        let worker = options.worker.as_str();
        let running = || Record { status: "running", worker, started, text: None };
        // Registered before the record is claimed: a registration that fails leaves no record
        // `running` with no worker to finish it (the entry only names the migration).
        self.register(table, m).await?;
        if !self.write(table, m, running(), Guard::Claim).await? {
            return Err(Error::Invalid {
                reason: format!("migration {} is being run by another worker; nothing started", m.id),
            });
        }
        tracing::info!(target: "dynamo_entity", migration = %m.id, kind = %m.kind, "migration started");
        let step = m.step.run(table, &m.id, Arc::clone(&options.observer));
        let beat = async {
            loop {
                tokio::time::sleep(self.heartbeat).await;
                // A heartbeat that fails is tried again at the next period.
                if let Err(e) = self.write(table, m, running(), Guard::Held).await {
                    tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %e, "heartbeat not written");
                }
            }
        };
        futures::pin_mut!(beat);
        let result = match futures::future::select(step, beat).await {
            futures::future::Either::Left((r, _)) => r,
            futures::future::Either::Right(((), step)) => step.await,
        };
        match result {
            Ok(summary) => {
                let record = Record { status: "applied", worker, started, text: Some(summary.clone()) };
                self.write(table, m, record, Guard::None).await?;
                options.observer.step_finished(&m.id, &summary);
                tracing::info!(target: "dynamo_entity", migration = %m.id, %summary, "migration applied");
                Ok(Applied { id: m.id.clone(), summary })
            }
            Err(e) => {
                options.observer.step_failed(&m.id, &e);
                let record = Record { status: "failed", worker, started, text: Some(e.to_string()) };
                // The step's error is the one to report; a failure to record it is logged.
                if let Err(w) = self.write(table, m, record, Guard::None).await {
                    tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %w, "failure not recorded");
                }
                Err(e)
            }
        }
    }
}

/// The condition of a record write.
#[derive(Clone, Copy)]
enum Guard {
    /// Only if no other worker runs the step: its record is absent, not `running`, `running`
    /// with a stale heartbeat, or run by this worker.
    Claim,
    /// Only if this worker still runs it (a heartbeat: never over the final record).
    Held,
    /// No condition.
    None,
}

/// The fields of a record write.
struct Record<'a> {
    status: &'static str,
    worker: &'a str,
    started: u64,
    text: Option<String>,
}

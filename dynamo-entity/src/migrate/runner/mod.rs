//! The migration runner: a table's migrations declared in the application's code as one ordered
//! list with ids, and the record the table keeps of each (applied, running, or stopped with its
//! checkpoint).
//!
//! ```no_run
//! use dynamo_entity::migrate::{Migrations, RunOptions};
//! use dynamo_entity::{Entity, Table, TableDef};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>", gsi3 = "AUTHOR#<author>", gsi3_sk = "<id>")]
//! pub struct Review { pub skill_id: String, pub id: String, pub author: String }
//!
//! /// A member as the launch stored it, in a partition of its own.
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
//! #[derive(TableDef)]
//! #[table(entities(Review, Member), gsi3)]
//! pub struct AppTable;
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let migrations = Migrations::new(AppTable::layout()?)
//!     .apply_layout("2026-03-gsi3")                                   // create GSI3 (UpdateTable)
//!     .backfill::<Review>("2026-03-review-gsi3", |b| b.segments(8))   // fill its keys
//!     .rekey::<MemberV1, Member>("2026-04-members-into-teams", Member::from, |b| b)
//!     .custom("2026-05-drop-drafts", "delete the draft items", |table| async move { Ok(String::new()) });
//! migrations.apply(&table, &RunOptions::default()).await?;   // runs what is not applied yet
//! for s in migrations.status(&table).await? { println!("{s}"); }
//! # Ok(())
//! # }
//! ```
//!
//! # The steps
//!
//! | step | what it does |
//! |---|---|
//! | [`backfill::<E>(id, configure)`](Migrations::backfill) | writes the secondary index keys of every item of `E` ([`Table::backfill`]) |
//! | [`rekey::<Old, New>(id, convert, configure)`](Migrations::rekey) | moves every item of `Old` to `New`'s primary key, unique guards included ([`Table::rekey`]) |
//! | [`upgrade::<E>(id, configure)`](Migrations::upgrade) | writes every item of `E` stored at an earlier schema version back at the current one ([`Table::upgrade_all`]) |
//! | [`native_keys::<E>(id, from, to, drop_old, configure)`](Migrations::native_keys) | moves `E`'s access pattern from the template GSI `from` to the native multi-attribute GSI `to`: create, fill, verify; with `drop_old` also strip the old key attributes and delete `from` ([`Table::native_keys`]) |
//! | [`apply_layout(id)`](Migrations::apply_layout) | brings the table's GSIs and TTL to the declared layout, one `UpdateTable` at a time ([`Table::diff`], [`Table::apply`]) |
//! | [`custom(id, description, f)`](Migrations::custom) | a step of the application's own, run again from its start after a stop |
//!
//! Applied steps are checked again with [`Migrations::verify`] and brought back with
//! [`Migrations::reapply`] (see [Verifying under a rolling deploy](#verifying-under-a-rolling-deploy)).
//!
//! Until an `upgrade` step has run, reads upgrade an item of an earlier version in memory, and
//! an `update` or upsert through the current struct refuses it with
//! [`Error::UpgradeRequired`], writing nothing: its fields are the current version's, the item
//! would keep its old version and attributes, and reads would not see the write. Upgrade the
//! item first ([`Table::upgrade`], or this step).
//!
//! The scanning steps (the first four) resume from per-segment checkpoints, written after each
//! page. A migration never run may not be declared before one already run: `apply` and `plan`
//! refuse. The same runner is a command line an application embeds in a binary of its own:
//! `cli::MigrationCli` (feature `cli`).
//!
//! [`Table::backfill`]: crate::Table::backfill
//! [`Table::rekey`]: crate::Table::rekey
//! [`Table::upgrade_all`]: crate::Table::upgrade_all
//! [`Table::upgrade`]: crate::Table::upgrade
//! [`Table::native_keys`]: crate::Table::native_keys
//! [`Table::diff`]: crate::Table::diff
//! [`Table::apply`]: crate::Table::apply
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
//! [`Error::ItemsFailed`], which names the first of them and why (the command line exits 1),
//! and is recorded `failed` ([`Migrations::status`] shows it stopped). Once they
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
//!
//! # Verifying under a rolling deploy
//! A step's pass reads the items that exist when it runs. During a rolling deploy, instances
//! of the code before the step still write, and an item one of them writes after the pass
//! went by lacks what the step writes (a GSI key a backfill filled: the item is missing from
//! the new index; an earlier schema version an upgrade raised). Nothing in the step's record
//! changes: it stays applied, and [`Backfill::run`](crate::migrate::Backfill::run) of a
//! completed pass returns its old report. So, in this order:
//!
//! 1. deploy the code that reads and writes the new shape; apply the step (`migrate apply`);
//! 2. once the last instance of the old code is gone, check the applied steps again:
//!    [`Migrations::verify`] (`migrate verify`, exit code 3 on drift) scans each scanning
//!    step's entity, read-only, and names the items the step would still change: their count
//!    and first keys (`PK=… SK=…`), and the items it cannot decode, which are never left
//!    out. What it found is recorded in the step's record with when, and
//!    [`Migrations::status`] shows it ([`Verification`]); an applied step not checked since
//!    says "not verified since applied";
//! 3. bring a drifted step back with [`Migrations::reapply`] (`migrate apply --again ID`): a
//!    new run of its pass, which writes the drifted items and skips the rest, recorded and
//!    resumable like the first run (stopped part way, `migrate resume` continues it);
//! 4. verify again: exit code 0.
//!
//! A verification before the last old instance is gone can only say what was stale then:
//! verify after it.
//!
//! # Two runners, one step
//! Each runner has its own worker name ([`RunOptions::worker`]: this machine and process by
//! default), in the step's record and in the segment leases of the step's passes, so that two
//! processes never take each other's claims for their own. A runner renews its claim every
//! heartbeat period, and before its step goes on once a period has passed (a process that was
//! paused renews it before anything else); it does not poll its step while its claim was last
//! confirmed two periods ago or more. A runner whose heartbeat finds the record taken over (its
//! heartbeat was stale for three periods, and another runner claimed the step) drops the step's
//! future and fails with [`Error::MigrationTakenOver`], naming the runner holding the step; its
//! `applied` (or `failed`) record is only written while it holds the claim. Requests a step
//! sent before the pause may still land: the passes' writes are guarded by their segment leases
//! (a worker whose lease was taken writes nothing more in that segment), but a custom step's are
//! not, so a custom step must be idempotent.

mod kind;
mod options;
mod record;
mod run;
mod status;
mod steps;
mod verify;

use std::collections::HashSet;
use std::fmt;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

pub use kind::Kind;
pub use options::{Observer, RunOptions, default_worker};
pub use run::Applied;
pub use status::{MigrationStatus, Status, Verification};
pub use verify::Verified;

use crate::error::Error;
use crate::migrate::diff::Wait;
use crate::migrate::pass::Backfill;
use crate::migrate::runner::steps::{
    BackfillStep, Configure, CustomFn, CustomStep, LayoutStep, Make, MakeNative, NativeStep, RunnerPasses, Step,
};
use crate::schema::{Entity, TableLayout};
use crate::table::Table;

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
    /// `id`; `configure` sets its segments, concurrency, page size or read rate (the pass runs
    /// as the runner's worker, [`RunOptions::worker`], with its lease, [`RunOptions::lease`]).
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
    /// `configure` sets the passes' segments, concurrency, page size or read rate (they run as
    /// the runner's worker, [`RunOptions::worker`]).
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
        let make: MakeNative<E> = Arc::new(move |table: &Table, id: &str, runner: Option<RunnerPasses>| {
            let configure = Arc::clone(&configure);
            let n = table.native_keys::<E>(id, &layout, from, to).wait(wait).configure(move |b| {
                let b = configure(b);
                match &runner {
                    // The runner's identity, whatever `configure` set: its segments are its own.
                    Some(RunnerPasses { pages, worker, lease }) => {
                        let pages = Arc::clone(pages);
                        b.on_page(move |p| pages(p)).worker(worker.clone(), *lease)
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
}

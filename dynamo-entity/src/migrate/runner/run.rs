//! Running the declared migrations: where each stands ([`Migrations::status`]), what a run
//! would do ([`Migrations::plan`]), and the run itself ([`Migrations::apply`],
//! [`Migrations::resume`]), one migration at a time, each recorded while it runs.

use std::collections::HashSet;
use std::task::Poll;

use std::time::Duration;

use tokio::time::Instant;

use crate::error::Error;
use crate::migrate::runner::options::RunOptions;
use crate::migrate::runner::record::{Guard, Record, now_ms};
use crate::migrate::runner::status::{MigrationStatus, Status};
use crate::migrate::runner::steps::BoxFuture;
use crate::migrate::runner::verify::verification_of;
use crate::migrate::runner::{Migration, Migrations};
use crate::schema::Item;
use crate::table::Table;

/// One step a run did: its id and summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    /// The migration id.
    pub id: String,
    /// What it did.
    pub summary: String,
}

impl Migrations {
    /// Where each declared migration stands, in order (one `GetItem` each, and the checkpoint
    /// of a started backfill or re-keying), then each migration the table records as started
    /// that is no longer declared ([`Status::Undeclared`], by id; one `Query` of the table's
    /// list of migrations and a `GetItem` each).
    ///
    /// # Errors
    /// [`Error::Invalid`] for an id declared twice or empty, or a malformed record;
    /// [`Error::Sdk`].
    pub async fn status<D>(&self, table: &Table<D>) -> Result<Vec<MigrationStatus>, Error> {
        let table = &table.untyped();
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

    pub(super) async fn status_of(&self, table: &Table, m: &Migration) -> Result<MigrationStatus, Error> {
        let record = self.record(table, &m.id).await?;
        let s = |item: &Item, name: &str| item.get(name).and_then(|v| v.as_s().ok()).cloned();
        let n = |item: &Item, name: &str| {
            item.get(name).and_then(|v| v.as_n().ok()).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0)
        };
        let status = match record {
            None => Status::Pending,
            Some(item) => match s(&item, "status").as_deref() {
                Some("applied") => Status::Applied {
                    at_ms: n(&item, "heartbeat"),
                    summary: s(&item, "summary").unwrap_or_default(),
                    verified: verification_of(&m.id, &item, m.step.verifiable())?,
                },
                Some("running") if n(&item, "heartbeat") >= self.stale_before() => Status::Running {
                    worker: s(&item, "worker").unwrap_or_default(),
                    checkpoint: m.step.checkpoint(table, &m.id).await?,
                    heartbeat_at_ms: n(&item, "heartbeat"),
                    stale_after: self.heartbeat * 3,
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
    pub async fn plan<D>(&self, table: &Table<D>, to: Option<&str>) -> Result<Vec<(String, Vec<String>)>, Error> {
        let table = &table.untyped();
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
    /// it: nothing is started), or when a step is being run by another worker that is alive
    /// (nothing after it is started; a worker that died is waited out and taken over, see
    /// [`resume`](Self::resume)); the error of a step (recorded as `failed`, with
    /// the steps before it applied: run again to continue), among them
    /// [`Error::ItemsFailed`] for a backfill, re-keying, bulk upgrade or native-key pass that
    /// ended with items it could not migrate (run again, the pass retries those items);
    /// [`Error::MigrationTakenOver`] when another runner took the step over while this one
    /// was paused or cut off (the step is stopped and not recorded applied by this runner).
    pub async fn apply<D>(&self, table: &Table<D>, options: &RunOptions) -> Result<Vec<Applied>, Error> {
        let table = &table.untyped();
        self.check(options.to.as_deref())?;
        self.run(table, options, false).await
    }

    /// Continues the migrations that were stopped (a killed process, a dropped run, a failure),
    /// in order, and nothing else. A step still recorded as run by a worker that died is taken
    /// over once its heartbeat is stale: the run waits for that, three heartbeat periods at
    /// most (15 s by default), and tells the observer ([`Observer::waiting`]). With no step
    /// stopped, it runs nothing, returns an empty list and tells the observer
    /// ([`Observer::nothing_to_resume`]): a deploy script that resumes on every start needs no
    /// special case.
    ///
    /// [`Observer::waiting`]: crate::migrate::runner::Observer::waiting
    /// [`Observer::nothing_to_resume`]: crate::migrate::runner::Observer::nothing_to_resume
    ///
    /// # Errors
    /// As [`apply`](Self::apply).
    pub async fn resume<D>(&self, table: &Table<D>, options: &RunOptions) -> Result<Vec<Applied>, Error> {
        let table = &table.untyped();
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
                Status::Running { worker, heartbeat_at_ms, .. } => {
                    let stopped = self.wait_out(table, m, worker, *heartbeat_at_ms, options).await?;
                    any_stopped |= stopped;
                    stopped
                }
                Status::Pending => !stopped_only,
            };
            if run {
                done.push(self.run_one(table, m, options, false).await?);
            }
            if Some(m.id.as_str()) == options.to.as_deref() {
                break;
            }
        }
        if stopped_only && !any_stopped {
            options.observer.nothing_to_resume();
        }
        Ok(done)
    }

    /// A step recorded `running` by another worker, whose heartbeat was last renewed at
    /// `heartbeat_at_ms`: waits until that heartbeat is stale (three heartbeat periods old, at
    /// most that long), then looks again. `Ok(true)`: the worker is gone, and this run takes the
    /// step over; `Ok(false)`: the worker finished it meanwhile.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the worker renewed its heartbeat meanwhile: it is alive, and
    /// nothing is started.
    async fn wait_out(
        &self,
        table: &Table,
        m: &Migration,
        worker: &str,
        heartbeat_at_ms: u64,
        options: &RunOptions,
    ) -> Result<bool, Error> {
        let stale_at = heartbeat_at_ms.saturating_add(u64::try_from((self.heartbeat * 3).as_millis()).unwrap_or(0));
        // Two looks at most: a clock that lags the worker's may find it fresh once more.
        for _ in 0..2 {
            let wait = Duration::from_millis(stale_at.saturating_sub(now_ms()) + 50);
            options.observer.waiting(&m.id, worker, wait);
            tracing::info!(target: "dynamo_entity", migration = %m.id, worker, wait_ms = wait.as_millis() as u64,
                "waiting for another worker's heartbeat to go stale");
            tokio::time::sleep(wait).await;
            match self.status_of(table, m).await?.status {
                Status::Applied { .. } => return Ok(false),
                Status::Running { worker: now, heartbeat_at_ms: renewed, .. }
                    if now != worker || renewed > heartbeat_at_ms =>
                {
                    let age = now_ms().saturating_sub(renewed);
                    return Err(Error::Invalid {
                        reason: format!(
                            "migration {} is being run by {now}, which renewed its heartbeat {age} ms ago: it is \
                             alive; nothing started (run again once it is done)",
                            m.id
                        ),
                    });
                }
                Status::Running { .. } => continue,
                _ => return Ok(true),
            }
        }
        Err(Error::Invalid {
            reason: format!(
                "migration {} is still recorded as run by {worker}, whose heartbeat should be stale by this \
                 machine's clock: the clocks disagree; nothing started (`--worker {worker}` takes it over)",
                m.id
            ),
        })
    }

    /// Applies the migration `id` again: a step whose verification found drift (items a late
    /// writer wrote, during a rolling deploy, without what the step writes). A scanning step
    /// (a backfill, re-keying, bulk upgrade or native-key migration) starts a new run of its
    /// passes, which writes the items that need it and skips the rest; an index layout step
    /// compares the table with its declaration again; a custom step runs again. It is recorded
    /// and resumable as a first run: stopped part way, it shows as stopped, and
    /// [`resume`](Self::resume) (or `reapply` again) continues it from its checkpoints. Only
    /// this migration runs; its record then holds no verification until the next
    /// [`verify`](Self::verify).
    ///
    /// ```no_run
    /// use dynamo_entity::migrate::{Migrations, RunOptions};
    /// use dynamo_entity::{Entity, Table, TableDef};
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CATEGORY#<category>", gsi1_sk = "<id>")]
    /// pub struct Skill { pub id: String, pub category: String }
    ///
    /// #[derive(TableDef)]
    /// #[table(entities(Skill), gsi1)]
    /// pub struct AppTable;
    ///
    /// # async fn f(table: Table) -> dynamo_entity::Result<()> {
    /// let migrations = Migrations::new(AppTable::layout()?).backfill::<Skill>("0002-skill-gsi1", |b| b);
    /// let done = migrations.reapply(&table, "0002-skill-gsi1", &RunOptions::default()).await?;
    /// println!("{}: {}", done.id, done.summary);
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] for an id no migration has, or one never applied (`apply` runs it),
    /// or when the step is being run by another worker that is alive; as
    /// [`apply`](Self::apply).
    pub async fn reapply<D>(&self, table: &Table<D>, id: &str, options: &RunOptions) -> Result<Applied, Error> {
        let table = &table.untyped();
        self.check(Some(id))?;
        let Some(m) = self.steps.iter().find(|m| m.id == id) else {
            return Err(Error::Invalid { reason: format!("migrations: no migration has the id {id:?}") });
        };
        let again = match self.status_of(table, m).await?.status {
            Status::Applied { .. } => true,
            // A re-application (or a first run) stopped part way: continued from its checkpoints.
            Status::Stopped { .. } => false,
            Status::Running { worker, .. } if worker == options.worker => false,
            Status::Running { worker, heartbeat_at_ms, .. } => {
                // The worker died: continue its run; it finished meanwhile: apply it again.
                !self.wait_out(table, m, &worker, heartbeat_at_ms, options).await?
            }
            Status::Pending | Status::Undeclared { .. } => {
                return Err(Error::Invalid {
                    reason: format!("migration {id} was never applied: `apply` runs it; nothing started"),
                });
            }
        };
        self.run_one(table, m, options, again).await
    }

    async fn run_one(&self, table: &Table, m: &Migration, options: &RunOptions, again: bool) -> Result<Applied, Error> {
        let started = now_ms();
        let worker = options.worker.as_str();
        let running = || Record { status: "running", worker, started, text: None };
        // Registered before the record is claimed: a registration that fails leaves no record
        // `running` with no worker to finish it (the entry only names the migration).
        self.register(table, m).await?;
        let claimed_at = Instant::now();
        if !self.write(table, m, running(), Guard::Claim).await? {
            return Err(Error::Invalid {
                reason: format!("migration {} is being run by another worker; nothing started", m.id),
            });
        }
        tracing::info!(target: "dynamo_entity", migration = %m.id, kind = %m.kind, "migration started");
        let step = m.step.run(table, &m.id, options, again);
        let result = match self.while_held(table, m, step, claimed_at, running).await {
            Held::Done(result) => result,
            Held::Lost => {
                let e = self.taken_over(table, m, worker).await;
                options.observer.step_failed(&m.id, &e);
                tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %e, "migration taken over");
                return Err(e);
            }
        };
        match result {
            Ok(summary) => {
                let record = Record { status: "applied", worker, started, text: Some(summary.clone()) };
                // Only while this runner still holds the step; a write resent after it was
                // applied finds its own record.
                if !self.write(table, m, record, Guard::Held).await?
                    && !self.recorded_applied(table, m, worker, started).await?
                {
                    let e = self.taken_over(table, m, worker).await;
                    options.observer.step_failed(&m.id, &e);
                    return Err(e);
                }
                options.observer.step_finished(&m.id, &summary);
                tracing::info!(target: "dynamo_entity", migration = %m.id, %summary, "migration applied");
                Ok(Applied { id: m.id.clone(), summary })
            }
            Err(e) => {
                let record = Record { status: "failed", worker, started, text: Some(e.to_string()) };
                // The step's error is the one to report; a failure to record it is logged. A
                // record another runner holds now is left to it.
                match self.write(table, m, record, Guard::Held).await {
                    Ok(true) => {}
                    Ok(false) => {
                        tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %e, "step failed after it was taken over");
                        let e = self.taken_over(table, m, worker).await;
                        options.observer.step_failed(&m.id, &e);
                        return Err(e);
                    }
                    Err(w) => {
                        tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %w, "failure not recorded");
                    }
                }
                options.observer.step_failed(&m.id, &e);
                Err(e)
            }
        }
    }

    /// Polls `step` while this runner holds the claim on `m`'s record, renewing it every
    /// heartbeat period, and before the step is polled again once a period has passed (a
    /// process paused or starved renews its claim before its step goes on). The step is not
    /// polled while the claim was last confirmed two periods ago or more (another runner takes
    /// a step over three periods after its last heartbeat); a heartbeat that fails is tried
    /// again a quarter period later. [`Held::Lost`], with the step dropped, when a heartbeat
    /// finds the record no longer this runner's.
    async fn while_held<'r>(
        &self,
        table: &Table,
        m: &Migration,
        step: BoxFuture<'_, Result<String, Error>>,
        claimed_at: Instant,
        running: impl Fn() -> Record<'r>,
    ) -> Held {
        let period = self.heartbeat;
        let mut step = step;
        let mut confirmed = claimed_at;
        let mut next_beat = claimed_at + period;
        loop {
            let now = Instant::now();
            if now >= next_beat {
                let sent = Instant::now();
                match self.write(table, m, running(), Guard::Held).await {
                    Ok(true) => {
                        confirmed = sent;
                        next_beat = sent + period;
                    }
                    Ok(false) => return Held::Lost,
                    Err(e) => {
                        tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %e, "heartbeat not written");
                        next_beat = Instant::now() + period / 4;
                    }
                }
                continue;
            }
            let runnable_until = confirmed + period * 2;
            if now >= runnable_until {
                // The claim is not confirmed: the step waits for the next heartbeat.
                tokio::time::sleep_until(next_beat).await;
                continue;
            }
            let deadline = next_beat.min(runnable_until);
            let sleep = tokio::time::sleep_until(deadline);
            futures::pin_mut!(sleep);
            let polled = std::future::poll_fn(|cx| {
                // Checked before the step is polled: after a pause, the claim is renewed first.
                if Instant::now() >= deadline {
                    return Poll::Ready(None);
                }
                if let Poll::Ready(r) = step.as_mut().poll(cx) {
                    return Poll::Ready(Some(r));
                }
                sleep.as_mut().poll(cx).map(|()| None)
            })
            .await;
            if let Some(result) = polled {
                return Held::Done(result);
            }
        }
    }
}

/// How a step run under a claim ended.
enum Held {
    /// The step ended, with its result.
    Done(Result<String, Error>),
    /// Another runner took the step over; the step was dropped.
    Lost,
}

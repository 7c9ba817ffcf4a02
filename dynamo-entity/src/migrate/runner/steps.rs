//! The kinds of step a migration runs, behind one object-safe face ([`Step`]): a pass over an
//! entity's items (a backfill, re-keying or bulk upgrade: [`BackfillStep`]), a native-key
//! migration ([`NativeStep`]), the table's layout ([`LayoutStep`]) and a step of the
//! application's own ([`CustomStep`]).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::error::Error;
use crate::migrate::diff::Wait;
use crate::migrate::pass::{Backfill, BackfillReport, PageDone, PageObserver, VerifyReport};
use crate::migrate::runner::kind::Kind;
use crate::migrate::runner::options::RunOptions;
use crate::migrate::steps::native::NativeKeys;
use crate::schema::{Entity, TableLayout};
use crate::table::{Call, Table};

/// A boxed future that may be sent between threads.
pub(super) type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The steps a migration's kind runs, behind one object-safe face.
pub(super) trait Step: Send + Sync {
    /// What the step does, in one line.
    fn describe(&self) -> String;
    /// Runs the step as migration `id` (or continues it) as the runner `options` name (the
    /// worker of its passes' segment leases), telling its observer; returns its summary. With
    /// `again` (the step applied again), the completed passes of a scanning step start again.
    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        options: &'a RunOptions,
        again: bool,
    ) -> BoxFuture<'a, Result<String, Error>>;
    /// Checks the step again, writing nothing ([`Backfill::verify`]); `None` for a step that
    /// is no pass over items (an index layout, a custom step).
    fn verify<'a>(&'a self, _: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Option<VerifyReport>, Error>> {
        Box::pin(async { Ok(None) })
    }
    /// Whether [`verify`](Self::verify) checks anything.
    fn verifiable(&self) -> bool {
        false
    }
    /// Where its pass stands by its checkpoints; `None` for a step that is no pass over items.
    fn checkpoint<'a>(&'a self, _: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async { Ok(None) })
    }
    /// What a run would do, in lines, without changing anything.
    fn plan<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>>;
}

/// What a migration's `configure` closure does to each pass.
pub(super) type Configure<E> = Arc<dyn Fn(Backfill<E>) -> Backfill<E> + Send + Sync>;
/// Makes the step's pass for the table and the step's id.
pub(super) type Make<E> = Arc<dyn Fn(&Table, &str) -> Backfill<E> + Send + Sync>;

/// A backfill or a re-keying: both are a [`Backfill`] of entity `E`.
pub(super) struct BackfillStep<E> {
    pub(super) make: Make<E>,
    pub(super) what: String,
    pub(super) kind: Kind,
}

impl<E: Entity> Step for BackfillStep<E> {
    fn describe(&self) -> String {
        self.what.clone()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        options: &'a RunOptions,
        again: bool,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            let backfill = (self.make)(table, id);
            let done = backfill.status().await?.map_or(0, |r| if r.completed { 0 } else { r.scanned });
            let passes = RunnerPasses::start(options, id, self.kind, item_count(table).await?, done);
            // The runner's identity, whatever `configure` set: its segments are its own.
            let backfill = backfill.worker(passes.worker, passes.lease);
            let report = backfill.on_page(move |p| (passes.pages)(p)).run_to_the_end(again).await?;
            Ok(report.to_string())
        })
    }

    fn checkpoint<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async move { (self.make)(table, id).status().await })
    }

    fn verify<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<VerifyReport>, Error>> {
        Box::pin(async move { (self.make)(table, id).verify().await.map(Some) })
    }

    fn verifiable(&self) -> bool {
        true
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

/// What a runner sets on the passes of a step it runs: their page observer, and the runner's
/// worker and lease for their segments.
pub(super) struct RunnerPasses {
    pub(super) pages: PageObserver,
    pub(super) worker: String,
    pub(super) lease: std::time::Duration,
}

impl RunnerPasses {
    /// Tells the runner's observer that step `id` (of `kind`) starts, with the table's estimated
    /// item count and the items its checkpoints say are done; returns what the runner sets on the
    /// step's passes (a step with none drops it): a page observer that tells the same observer,
    /// and the runner's worker and lease. Every kind of step starts with it.
    fn start(options: &RunOptions, id: &str, kind: Kind, items: Option<u64>, done: u64) -> RunnerPasses {
        options.observer.step_started(id, kind, items, done);
        let (obs, owned) = (Arc::clone(&options.observer), id.to_owned());
        let pages: PageObserver = Arc::new(move |p: &PageDone| obs.page(&owned, p));
        RunnerPasses { pages, worker: options.worker.clone(), lease: options.lease }
    }
}

/// Makes the step's [`NativeKeys`]; run by a runner, its passes are set as [`RunnerPasses`]
/// says.
pub(super) type MakeNative<E> = Arc<dyn Fn(&Table, &str, Option<RunnerPasses>) -> NativeKeys<E> + Send + Sync>;

/// A template GSI replaced by a native multi-attribute GSI.
pub(super) struct NativeStep<E> {
    pub(super) make: MakeNative<E>,
    pub(super) what: String,
}

impl<E: Entity> Step for NativeStep<E> {
    fn describe(&self) -> String {
        self.what.clone()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        options: &'a RunOptions,
        again: bool,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            let passes = RunnerPasses::start(options, id, Kind::NativeKeys, None, 0);
            let native = (self.make)(table, id, Some(passes));
            let native = if again { native.again() } else { native };
            Ok(native.run().await?.to_string())
        })
    }

    fn checkpoint<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<BackfillReport>, Error>> {
        Box::pin(async move { (self.make)(table, id, None).status().await })
    }

    fn verify<'a>(&'a self, table: &'a Table, id: &'a str) -> BoxFuture<'a, Result<Option<VerifyReport>, Error>> {
        Box::pin(async move { (self.make)(table, id, None).verify().await.map(Some) })
    }

    fn verifiable(&self) -> bool {
        true
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
pub(super) struct LayoutStep {
    pub(super) layout: TableLayout,
    pub(super) wait: Wait,
}

impl Step for LayoutStep {
    fn describe(&self) -> String {
        "bring the table's indexes and time to live to the declared layout".to_owned()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        options: &'a RunOptions,
        _: bool,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            RunnerPasses::start(options, id, Kind::Layout, None, 0);
            let diff = table.diff(&self.layout).await?;
            let steps = table.apply(&diff, self.wait).await?;
            Ok(if steps.is_empty() {
                "the table already matched its declaration".to_owned()
            } else {
                steps.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ")
            })
        })
    }

    fn plan<'a>(&'a self, table: &'a Table, _: &'a str) -> BoxFuture<'a, Result<Vec<String>, Error>> {
        Box::pin(async move {
            let plan = table.diff(&self.layout).await?.plan();
            let text = plan.to_string();
            Ok(text.lines().map(str::trim).filter(|l| !l.is_empty()).map(str::to_owned).collect())
        })
    }
}

/// The application's own step: gets the table, returns a one-line summary.
pub(super) type CustomFn = Arc<dyn Fn(Table) -> BoxFuture<'static, Result<String, Error>> + Send + Sync>;

pub(super) struct CustomStep {
    pub(super) description: String,
    pub(super) f: CustomFn,
}

impl Step for CustomStep {
    fn describe(&self) -> String {
        self.description.clone()
    }

    fn run<'a>(
        &'a self,
        table: &'a Table,
        id: &'a str,
        options: &'a RunOptions,
        _: bool,
    ) -> BoxFuture<'a, Result<String, Error>> {
        Box::pin(async move {
            RunnerPasses::start(options, id, Kind::Custom, None, 0);
            (self.f)(table.clone()).await
        })
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

//! How a run of the migrations runs ([`RunOptions`]): up to which migration, under which
//! worker name ([`default_worker`]) and segment lease, told to whom ([`Observer`]).

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Error;
use crate::migrate::pass::PageDone;
use crate::migrate::runner::kind::Kind;

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
    /// The step `id` is recorded as run by `worker`, and the run waits `wait` for that worker's
    /// heartbeat to go stale before it takes the step over (the worker died, or the run fails
    /// if it renews its heartbeat).
    fn waiting(&self, id: &str, worker: &str, wait: Duration) {
        let _ = (id, worker, wait);
    }
    /// [`Migrations::resume`](super::Migrations::resume) found no step stopped, and ran nothing.
    fn nothing_to_resume(&self) {}
}

/// An observer that is told nothing.
struct Quiet;
impl Observer for Quiet {}

/// How [`Migrations::apply`] and [`Migrations::resume`] run.
///
/// [`Migrations::apply`]: super::Migrations::apply
/// [`Migrations::resume`]: super::Migrations::resume
#[derive(Clone)]
pub struct RunOptions {
    /// Stop after the migration with this id (it included); `None`: run to the end.
    pub to: Option<String>,
    /// This runner's name in the record ([`default_worker`]: this machine and process, by
    /// default); a step recorded as run by the same name is taken over at once, whatever its
    /// heartbeat, and one run by another name only once its heartbeat is stale. Give the same
    /// name to a process that takes over a step at once after a crash; never to two processes
    /// that run at once.
    ///
    /// It is also the worker whose name the passes of the run's steps (a backfill, re-keying,
    /// bulk upgrade or native-key pass) write into the leases of their segments, whatever
    /// their `configure` closure set with [`Backfill::worker`]: two runners never take each
    /// other's segments for their own.
    ///
    /// [`Backfill::worker`]: crate::migrate::Backfill::worker
    pub worker: String,
    /// How long a segment of a step's pass stays this runner's after its last checkpoint
    /// (60 s by default; at least 100 ms): another runner that took the step over waits that
    /// long before it continues the segment. It must exceed the time one page takes (its scan
    /// and its writes).
    pub lease: Duration,
    /// Told of each step and page.
    pub observer: Arc<dyn Observer>,
}

impl Default for RunOptions {
    fn default() -> RunOptions {
        RunOptions { to: None, worker: default_worker(), lease: DEFAULT_LEASE, observer: Arc::new(Quiet) }
    }
}

/// The segment lease of a run's passes by default.
const DEFAULT_LEASE: Duration = Duration::from_secs(60);

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
        f.debug_struct("RunOptions")
            .field("to", &self.to)
            .field("worker", &self.worker)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

//! The migration command line an application embeds in a binary of its own (feature `cli`):
//! `status`, `plan`, `apply` and `resume` of its declared [`Migrations`], and the exports of its
//! table declaration (`cloudformation`, `workbench`, `design`, `lint`).
//!
//! ```no_run
//! // src/bin/migrate.rs of the application
//! use dynamo_entity::cli::MigrationCli;
//! use dynamo_entity::migrate::Migrations;
//! use dynamo_entity::{Entity, Table, TableDef};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>", gsi3 = "AUTHOR#<author>", gsi3_sk = "<id>")]
//! pub struct Review { pub skill_id: String, pub id: String, pub author: String }
//!
//! #[derive(TableDef)]
//! #[table(entities(Review), gsi3)]
//! pub struct AppTable;
//!
//! // The binary's `main` builds the client as every AWS SDK application does
//! // (`aws_sdk_dynamodb::Client::new(&aws_config::load_from_env().await)`, crate aws-config)
//! // and returns what this returns.
//! async fn migrate(client: aws_sdk_dynamodb::Client) -> std::process::ExitCode {
//!     let table = Table::new(client, "app");
//!     let migrations = Migrations::new(AppTable::layout().unwrap())
//!         .apply_layout("0001-gsi3")
//!         .backfill::<Review>("0002-review-gsi3", |b| b.segments(8));
//!     MigrationCli::new("migrate", table, migrations).main().await
//! }
//! ```
//!
//! ```text
//! $ migrate status                 # pending / running / stopped / applied, one line a migration
//! $ migrate plan [--to ID]         # what apply would do; nothing is changed
//! $ migrate apply [--to ID] [--worker NAME]
//! $ migrate resume [--worker NAME] # continue the stopped migrations only (none: exit 0)
//! $ migrate verify [ID]            # check applied steps again (read-only); drift: exit 3
//! $ migrate apply --again ID [--worker NAME]  # apply a drifted step again (resumable)
//! $ migrate cloudformation [--table-name NAME] | workbench | design [--html] | lint
//! ```
//!
//! A backfill or re-keying shows a progress bar with its rate and estimated time left when
//! standard error is a terminal, and plain progress lines (at most one a second a step)
//! otherwise (`--progress bar|lines|off` chooses).
//!
//! | exit code | when |
//! |---|---|
//! | 0 | the command succeeded; `resume` with nothing stopped ("nothing to resume"); `lint` with warnings or advice only |
//! | 1 | a command failed; a step is being run by a worker that is alive; `lint` found an error ([`Severity::Error`]) |
//! | 2 | the arguments were not understood |
//! | 3 | `verify` found drift: items an applied step would still change, or items it cannot decode (each step's count and first keys are written out) |
//!
//! `verify` after a rolling deploy: once the last instance of the old code is gone, `verify`
//! finds the items those instances wrote without what a step writes (a GSI key a backfill
//! filled, a schema version an upgrade raised); `status` then shows the drift with when it was
//! found, and `apply --again ID` brings the step back (a new run of its pass, resumable with
//! `resume`); `verify ID` after it exits 0.
//!
//! `apply` and `resume` after a crash: a step the dead process was running stays recorded as
//! `running` until its heartbeat is three periods old (15 s by default; `status` shows the
//! heartbeat's age). Both wait that out, saying so, and take the step over. `--worker NAME`
//! with the dead worker's name takes it over at once.

use std::ffi::OsString;
use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::{Parser, Subcommand, ValueEnum};

use crate::design::lint::Severity;
use crate::design::workbench::WorkbenchModel;
use crate::error::Error;
use crate::migrate::PageDone;
use crate::migrate::runner::{Kind, Migrations, Observer, RunOptions, Status};
use crate::schema::Item;
use crate::table::Table;

#[derive(Parser, Debug)]
#[command(about = "Migrations and exports of a DynamoDB table declared with dynamo-entity")]
struct Args {
    /// How a long step shows its progress: `auto` (a bar on a terminal, lines otherwise).
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto, global = true)]
    progress: ProgressMode,
    #[command(subcommand)]
    command: Command,
}

/// How progress is shown.
#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ProgressMode {
    Auto,
    Bar,
    Lines,
    Off,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Where each declared migration stands (pending, running, stopped, applied).
    Status,
    /// What `apply` would do, migration by migration; nothing is changed.
    Plan {
        /// Stop after this migration id.
        #[arg(long)]
        to: Option<String>,
    },
    /// Runs every migration not applied yet, in order; with `--again ID`, that applied
    /// migration only, again.
    Apply {
        /// Stop after this migration id.
        #[arg(long, conflicts_with = "again")]
        to: Option<String>,
        /// Apply this migration again (after `verify` found drift): a new run of its pass,
        /// resumable with `resume`.
        #[arg(long, value_name = "ID")]
        again: Option<String>,
        /// This runner's name in the migration records (default: `<host>:<process id>`).
        #[arg(long)]
        worker: Option<String>,
    },
    /// Continues the stopped migrations (killed, interrupted or failed), and nothing else.
    Resume {
        /// This runner's name in the migration records (default: `<host>:<process id>`).
        #[arg(long)]
        worker: Option<String>,
    },
    /// Checks applied migrations again, changing no item: the items each step would still
    /// change; exits with 3 when there are any.
    Verify {
        /// Only this migration (it must be applied).
        id: Option<String>,
    },
    /// The AWS CloudFormation template of the declared table (JSON).
    Cloudformation {
        /// The table name in the template (the table's own name by default).
        #[arg(long)]
        table_name: Option<String>,
    },
    /// The NoSQL Workbench data model of the declared table, with the samples given (JSON).
    Workbench,
    /// The design document: the access-pattern matrix (Markdown), or the HTML design page.
    Design {
        /// The HTML page instead of Markdown.
        #[arg(long)]
        html: bool,
    },
    /// The design lint: one line per finding, `error:`, `warning:` or `advice:` first; exits
    /// with 1 only when a finding is an error.
    Lint,
}

/// Output shared by the command and its progress observer.
type Shared = Arc<Mutex<Box<dyn Write + Send>>>;

fn say(out: &Shared, text: &str) {
    // A poisoned lock still holds a usable writer; a write error (a closed pipe) is ignored.
    let mut w = out.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let _ = writeln!(w, "{text}");
    let _ = w.flush();
}

/// Why a command line run did not succeed.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// The arguments were not understood (clap's message, with the usage).
    #[error("{0}")]
    Usage(String),
    /// A command failed.
    #[error("{0}")]
    Failed(#[from] Error),
    /// `lint` found this many errors (they were written out, with the other findings).
    #[error("the design lint found {0} error(s) (severity error; warnings and advice do not fail it)")]
    Findings(usize),
    /// `verify` found drift in these migrations (their items were written out).
    #[error("verify found drift in {}: `apply --again ID` applies a migration again", .0.join(", "))]
    Drift(Vec<String>),
}

impl CliError {
    /// The process exit code: 2 for a usage error, 3 for drift found by `verify`, 1
    /// otherwise.
    ///
    /// ```
    /// use dynamo_entity::cli::CliError;
    ///
    /// assert_eq!(CliError::Drift(vec!["0002-member-keys".into()]).exit_code(), 3);
    /// assert_eq!(CliError::Usage("error: unexpected argument".into()).exit_code(), 2);
    /// ```
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Usage(_) => 2,
            CliError::Drift(_) => 3,
            _ => 1,
        }
    }
}

/// The embedded command line: a table, its migrations, and optional samples for the exports.
/// See the [module documentation](self).
pub struct MigrationCli {
    name: String,
    table: Table,
    migrations: Migrations,
    title: String,
    samples: Vec<Item>,
    workbench: Option<WorkbenchModel>,
}

impl std::fmt::Debug for MigrationCli {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MigrationCli")
            .field("name", &self.name)
            .field("table", &self.table.name())
            .finish_non_exhaustive()
    }
}

impl MigrationCli {
    /// The command line `name` (the binary's name, for the usage text) for `table` and its
    /// `migrations`, through an untyped or a declared handle.
    pub fn new<D>(name: impl Into<String>, table: Table<D>, migrations: Migrations) -> MigrationCli {
        let title = table.name().to_owned();
        let table = table.untyped();
        MigrationCli { name: name.into(), table, migrations, title, samples: Vec::new(), workbench: None }
    }

    /// The title of the design document (the table name by default).
    #[must_use]
    pub fn title(mut self, title: impl Into<String>) -> MigrationCli {
        self.title = title.into();
        self
    }

    /// Sample items (as stored) for the HTML design page's views.
    #[must_use]
    pub fn samples(mut self, items: Vec<Item>) -> MigrationCli {
        self.samples = items;
        self
    }

    /// The NoSQL Workbench model `workbench` exports (without one, `workbench` fails, naming
    /// this method).
    #[must_use]
    pub fn workbench(mut self, model: WorkbenchModel) -> MigrationCli {
        self.workbench = Some(model);
        self
    }

    /// Runs the command line on the process's arguments, writing results to standard output
    /// and progress and errors to standard error; the exit code to return from `main`.
    pub async fn main(&self) -> ExitCode {
        self.main_from(std::env::args_os()).await
    }

    /// [`main`](Self::main) on `args` instead of the process's arguments (the first one is the
    /// program name).
    pub async fn main_from<I, T>(&self, args: I) -> ExitCode
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let terminal = std::io::stderr().is_terminal();
        let out: Shared = Arc::new(Mutex::new(Box::new(std::io::stdout())));
        let progress: Shared = Arc::new(Mutex::new(Box::new(std::io::stderr())));
        match self.run_with(args, out, progress, terminal).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("{}: {e}", self.name);
                ExitCode::from(e.exit_code())
            }
        }
    }

    /// Runs the command line on `args` (the first one is the program name, as in
    /// `std::env::args_os`), writing results and progress lines to `out` (no bar unless
    /// `--progress bar`).
    ///
    /// # Errors
    /// [`CliError::Usage`] for arguments clap refuses (`--help` is not an error: the help is
    /// written to `out`); [`CliError::Failed`] for a command that failed; [`CliError::Findings`]
    /// when `lint` finds errors ([`Severity::Error`]; warnings and advice are only written out).
    pub async fn run<I, T>(&self, args: I, out: impl Write + Send + 'static) -> Result<(), CliError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let out: Shared = Arc::new(Mutex::new(Box::new(out)));
        self.run_with(args, Arc::clone(&out), out, false).await
    }

    async fn run_with<I, T>(&self, args: I, out: Shared, progress: Shared, terminal: bool) -> Result<(), CliError>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let command = <Args as clap::CommandFactory>::command().name(self.name.clone());
        let matches = match command.try_get_matches_from(args) {
            Ok(m) => m,
            Err(e)
                if matches!(e.kind(), clap::error::ErrorKind::DisplayHelp | clap::error::ErrorKind::DisplayVersion) =>
            {
                say(&out, e.render().to_string().trim_end());
                return Ok(());
            }
            Err(e) => return Err(CliError::Usage(e.render().to_string().trim_end().to_owned())),
        };
        let args = <Args as clap::FromArgMatches>::from_arg_matches(&matches)
            .map_err(|e| CliError::Usage(e.render().to_string()))?;
        let layout = self.migrations.layout();
        let named = match &args.command {
            Command::Plan { to: Some(to) } | Command::Apply { to: Some(to), .. } => Some(("--to ", to)),
            Command::Apply { again: Some(id), .. } => Some(("--again ", id)),
            Command::Verify { id: Some(id) } => Some(("", id)),
            _ => None,
        };
        if let Some((flag, to)) = named {
            if !self.migrations.ids().any(|id| id == to) {
                let ids = self.migrations.ids().collect::<Vec<_>>().join(", ");
                return Err(CliError::Usage(format!(
                    "error: {flag}{to:?} names no declared migration (the declared ids: {ids})"
                )));
            }
        }
        match args.command {
            Command::Status => {
                for s in self.migrations.status(&self.table).await? {
                    say(&out, &s.to_string());
                }
            }
            Command::Plan { to } => {
                let plan = self.migrations.plan(&self.table, to.as_deref()).await?;
                if plan.is_empty() {
                    say(&out, "nothing to do: every migration is applied");
                }
                for (id, lines) in plan {
                    say(&out, &format!("would run {id}:"));
                    for l in lines {
                        say(&out, &format!("  {l}"));
                    }
                }
            }
            Command::Apply { to, again, worker } => {
                let observer = progress_observer(args.progress, terminal, progress);
                let worker = worker.unwrap_or_else(crate::migrate::runner::default_worker);
                let options = RunOptions { to, worker, observer, ..RunOptions::default() };
                let ran = match again {
                    Some(id) => {
                        self.migrations.reapply(&self.table, &id, &options).await?;
                        1
                    }
                    None => self.migrations.apply(&self.table, &options).await?.len(),
                };
                self.report_done(&out, ran).await?;
            }
            Command::Verify { id } => {
                let found = self.migrations.verify(&self.table, id.as_deref()).await?;
                if found.is_empty() {
                    say(&out, "nothing to verify: no migration is applied");
                }
                for v in &found {
                    say(&out, &v.to_string());
                }
                let drifted: Vec<String> = found.iter().filter(|v| !v.is_clean()).map(|v| v.id.clone()).collect();
                if !drifted.is_empty() {
                    return Err(CliError::Drift(drifted));
                }
            }
            Command::Resume { worker } => {
                let observer = progress_observer(args.progress, terminal, progress);
                let worker = worker.unwrap_or_else(crate::migrate::runner::default_worker);
                let options = RunOptions { to: None, worker, observer, ..RunOptions::default() };
                let done = self.migrations.resume(&self.table, &options).await?;
                self.report_done(&out, done.len()).await?;
            }
            Command::Cloudformation { table_name } => {
                let cfn = layout.cloudformation(table_name.as_deref().unwrap_or(self.table.name()));
                say(&out, &serde_json::to_string_pretty(&cfn).unwrap_or_default());
            }
            Command::Workbench => {
                let Some(model) = &self.workbench else {
                    return Err(CliError::Failed(Error::Invalid {
                        reason: "workbench: this command line has no NoSQL Workbench model (MigrationCli::workbench)"
                            .to_owned(),
                    }));
                };
                let json = layout.workbench(model)?;
                say(&out, &serde_json::to_string_pretty(&json).unwrap_or_default());
            }
            Command::Design { html } => {
                let text = if html { layout.html(&self.title, &self.samples) } else { layout.markdown(&self.title) };
                say(&out, text.trim_end());
            }
            Command::Lint => {
                let lints = layout.lint();
                for l in &lints {
                    say(&out, &format!("{}: {l}", l.severity()));
                }
                let count = |s: Severity| lints.iter().filter(|l| l.severity() == s).count();
                let errors = count(Severity::Error);
                let plural = |n: usize, word: &str| if n == 1 { format!("1 {word}") } else { format!("{n} {word}s") };
                say(
                    &out,
                    &format!(
                        "{}, {}, {} advice",
                        plural(errors, "error"),
                        plural(count(Severity::Warning), "warning"),
                        count(Severity::Advice)
                    ),
                );
                if errors > 0 {
                    return Err(CliError::Findings(errors));
                }
            }
        }
        Ok(())
    }

    /// After `apply` / `resume`: how many ran, then the status lines.
    async fn report_done(&self, out: &Shared, ran: usize) -> Result<(), CliError> {
        say(out, &format!("{ran} migration(s) run"));
        for s in self.migrations.status(&self.table).await? {
            if !matches!(s.status, Status::Applied { .. }) || ran > 0 {
                say(out, &s.to_string());
            }
        }
        Ok(())
    }
}

fn progress_observer(mode: ProgressMode, terminal: bool, out: Shared) -> Arc<dyn Observer> {
    match mode {
        ProgressMode::Off => Arc::new(Lines { out, state: Mutex::new(None), quiet: true }),
        ProgressMode::Bar => Arc::new(Bar { bar: Mutex::new(None) }),
        ProgressMode::Auto if terminal => Arc::new(Bar { bar: Mutex::new(None) }),
        ProgressMode::Auto | ProgressMode::Lines => Arc::new(Lines { out, state: Mutex::new(None), quiet: false }),
    }
}

/// A step's progress: items read, the estimate, when it started, when the last line was
/// written.
struct StepProgress {
    id: String,
    read: u64,
    estimate: Option<u64>,
    started: Instant,
    resumed_from: u64,
    last_line: Instant,
}

impl StepProgress {
    fn line(&self) -> String {
        let secs = self.started.elapsed().as_secs_f64().max(1e-3);
        let rate = (self.read - self.resumed_from) as f64 / secs;
        let mut s = format!("progress {}: {} items read", self.id, self.read);
        if let Some(total) = self.estimate.filter(|t| *t > 0) {
            let pct = (self.read as f64 * 100.0 / total as f64).min(100.0);
            s.push_str(&format!(" of ~{total} ({pct:.0}%)"));
            if rate > 0.0 {
                let left = total.saturating_sub(self.read) as f64 / rate;
                s.push_str(&format!(", {rate:.0} items/s, ETA {}", eta(left)));
                return s;
            }
        }
        s.push_str(&format!(", {rate:.0} items/s"));
        s
    }
}

fn eta(secs: f64) -> String {
    let s = secs.round() as u64;
    if s >= 3600 { format!("{}h{:02}m", s / 3600, s / 60 % 60) } else { format!("{}m{:02}s", s / 60, s % 60) }
}

/// Plain progress lines: a line when a step starts, at most one a second while it reads, and
/// one when it is done.
struct Lines {
    out: Shared,
    state: Mutex<Option<StepProgress>>,
    quiet: bool,
}

impl Lines {
    fn state(&self) -> std::sync::MutexGuard<'_, Option<StepProgress>> {
        self.state.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The step's last progress line (when it read anything), then `last`.
    fn step_ended(&self, last: &str) {
        let progress = self.state().take();
        if !self.quiet {
            if let Some(p) = progress.filter(|p| p.read > 0) {
                say(&self.out, &p.line());
            }
            say(&self.out, last);
        }
    }
}

impl Observer for Lines {
    fn step_started(&self, id: &str, kind: Kind, estimate: Option<u64>, done: u64) {
        let now = Instant::now();
        *self.state() = Some(StepProgress {
            id: id.to_owned(),
            read: done,
            estimate,
            started: now,
            resumed_from: done,
            last_line: now,
        });
        if !self.quiet {
            let from = if done > 0 { format!(", resuming after {done} items read") } else { String::new() };
            say(&self.out, &format!("running {id} [{kind}]{from}"));
        }
    }

    fn page(&self, _: &str, page: &PageDone) {
        let line = {
            let mut state = self.state();
            let Some(p) = state.as_mut() else { return };
            p.read += page.examined;
            (p.last_line.elapsed() >= Duration::from_secs(1)).then(|| {
                p.last_line = Instant::now();
                p.line()
            })
        };
        if let (Some(line), false) = (line, self.quiet) {
            say(&self.out, &line);
        }
    }

    fn step_finished(&self, id: &str, summary: &str) {
        self.step_ended(&format!("applied {id}: {summary}"));
    }

    fn step_failed(&self, id: &str, _: &Error) {
        // The error itself is the command's result, printed once by `main`.
        self.step_ended(&format!("failed {id}"));
    }

    // Not progress: written even with `--progress off`.
    fn waiting(&self, id: &str, worker: &str, wait: Duration) {
        say(&self.out, &waiting_line(id, worker, wait));
    }

    fn nothing_to_resume(&self) {
        say(&self.out, NOTHING_TO_RESUME);
    }
}

/// What `resume` says when no migration is stopped (it exits with 0).
const NOTHING_TO_RESUME: &str = "nothing to resume: no migration is stopped";

/// What a run says while it waits out another worker's heartbeat.
fn waiting_line(id: &str, worker: &str, wait: Duration) -> String {
    format!(
        "{id} is recorded as run by {worker}: waiting {:.1} s for its heartbeat to go stale, then taking the step \
         over (`--worker {worker}` takes it over at once)",
        wait.as_secs_f64()
    )
}

/// A progress bar on standard error (indicatif), with the rate and the time left.
struct Bar {
    bar: Mutex<Option<indicatif::ProgressBar>>,
}

impl Observer for Bar {
    fn step_started(&self, id: &str, kind: Kind, estimate: Option<u64>, done: u64) {
        let bar = match estimate {
            Some(n) if n > 0 => indicatif::ProgressBar::new(n),
            _ => indicatif::ProgressBar::new_spinner(),
        };
        let template = "{msg} [{elapsed_precise}] {wide_bar} {human_pos}/{human_len} items, {per_sec}, ETA {eta}";
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_message(format!("{id} [{kind}]"));
        bar.set_position(done);
        bar.reset_eta();
        bar.enable_steady_tick(Duration::from_millis(200));
        *self.bar.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some(bar);
    }

    fn page(&self, _: &str, page: &PageDone) {
        if let Some(bar) = &*self.bar.lock().unwrap_or_else(std::sync::PoisonError::into_inner) {
            bar.inc(page.examined);
        }
    }

    fn step_finished(&self, id: &str, summary: &str) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            bar.finish_and_clear();
        }
        eprintln!("applied {id}: {summary}");
    }

    fn step_failed(&self, id: &str, _: &Error) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(std::sync::PoisonError::into_inner).take() {
            bar.abandon();
        }
        eprintln!("failed {id}");
    }

    fn waiting(&self, id: &str, worker: &str, wait: Duration) {
        eprintln!("{}", waiting_line(id, worker, wait));
    }

    fn nothing_to_resume(&self) {
        eprintln!("{NOTHING_TO_RESUME}");
    }
}

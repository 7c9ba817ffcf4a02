//! The migration runner (`migrate::runner::Migrations`) through its embedded command line
//! (`cli::MigrationCli`, feature `cli`): a table created with the launch layout (members
//! without their GSIs) gets three migrations, the indexes (`apply_layout`), the backfill of the
//! members' keys, and a custom step. `status` before and after, `plan` says what it would do
//! and changes nothing, `apply --to` runs up to a migration, an `apply` stopped mid-backfill
//! (its future dropped) shows as stopped with its checkpoint, and `resume` continues it. A
//! second test runs the command line as a real process (this test binary, running the ignored
//! test `migrations_cli::cli_child`) and checks its output and exit codes.

use crate::backfills::{Member, MemberV1, Team, check_table, current, load, snapshot, v1};
use crate::common;

use std::collections::HashMap;
use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use dynamo_entity::cli::{CliError, MigrationCli};
use dynamo_entity::migrate::{Migrations, Wait};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Table};
use dynamo_entity_local::LocalDynamoDb;

const N: u64 = 600;
const TEAMS: u64 = 7;

/// The custom step's runs, by table name.
static CUSTOM_RUNS: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn migrations() -> Migrations {
    Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
        .heartbeat(Duration::from_millis(200))
        .wait(Wait { timeout: Duration::from_secs(120), poll: Duration::from_millis(100) })
        .apply_layout("0001-member-indexes")
        .backfill::<Member>("0002-member-keys", |b| b.segments(4).concurrency(2).page_size(10))
        .custom("0003-team-zero", "resize team t0 to 99", |table: Table| async move {
            table.put(&Team { name: "t0".into(), size: 99 }).await?;
            CUSTOM_RUNS.lock().unwrap().push(table.name().to_owned());
            Ok("team t0 resized".to_owned())
        })
}

/// A writer whose text the test reads back.
#[derive(Clone, Default)]
pub(crate) struct Buffer(Arc<Mutex<Vec<u8>>>);

impl Write for Buffer {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Buffer {
    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.0.lock().unwrap().clone()).unwrap()
    }
}

/// Runs `migrate <args>`: its result and its output.
async fn cli(table: &Table, args: &[&str]) -> (Result<(), CliError>, String) {
    let out = Buffer::default();
    let cli = MigrationCli::new("migrate", table.clone(), migrations());
    let result = cli.run(std::iter::once("migrate").chain(args.iter().copied()), out.clone()).await;
    (result, out.text())
}

async fn ok(table: &Table, args: &[&str]) -> String {
    let (result, text) = cli(table, args).await;
    if let Err(e) = result {
        panic!("migrate {args:?} failed: {e}\n{text}");
    }
    text
}

const LAYOUT_LINE: &str = "[layout] bring the table's indexes and time to live to the declared layout";
const BACKFILL_LINE: &str = "[backfill] backfill the secondary index keys of Member items";
const CUSTOM_LINE: &str = "[custom] resize team t0 to 99";

async fn gsi_names(table: &Table) -> Vec<String> {
    let (desc, _) = common::describe(table).await;
    let mut names: Vec<String> =
        desc.global_secondary_indexes().iter().map(|g| g.index_name().unwrap_or_default().to_owned()).collect();
    names.sort();
    names
}

async fn launch_table(test: &str) -> Table {
    let table = common::table(test, &[MemberV1::SCHEMA, Team::SCHEMA]).await;
    load(&table, N, TEAMS).await;
    table
}

#[tokio::test]
async fn the_command_line_shows_status_plans_applies_and_resumes_migrations() {
    let table = launch_table("migrate_cli").await;
    let before = snapshot(&table).await;

    // status before anything ran
    assert_eq!(
        ok(&table, &["status"]).await,
        format!(
            "pending  0001-member-indexes {LAYOUT_LINE}\npending  0002-member-keys {BACKFILL_LINE}\npending  0003-team-zero {CUSTOM_LINE}\n"
        )
    );

    // plan: says what it would do, changes nothing
    let plan = ok(&table, &["plan"]).await;
    let name = table.name();
    let items = N + TEAMS;
    assert_eq!(
        plan,
        format!(
            "would run 0001-member-indexes:\n  table {name}: 2 step(s)\n  1. UpdateTable: create GSI GSI1 on GSI1PK (S) / GSI1SK (S), projection ALL, wait until it is ACTIVE\n  2. UpdateTable: create GSI GSI2 on GSI2PK (S) / GSI2SK (S), projection ALL, wait until it is ACTIVE\nwould run 0002-member-keys:\n  backfill the secondary index keys of Member items: a parallel scan of ~{items} items, a conditional write per item to change\nwould run 0003-team-zero:\n  resize team t0 to 99 (the application's own step)\n"
        )
    );
    assert_eq!(snapshot(&table).await, before, "plan wrote nothing");
    assert!(gsi_names(&table).await.is_empty(), "plan created no index");
    let plan_to = ok(&table, &["plan", "--to", "0001-member-indexes"]).await;
    assert!(plan_to.starts_with("would run 0001-member-indexes:\n") && !plan_to.contains("0002"), "{plan_to}");

    // apply --to the first migration: the indexes only
    let text = ok(&table, &["apply", "--to", "0001-member-indexes", "--progress", "lines"]).await;
    assert!(
        text.starts_with(
            "running 0001-member-indexes [layout]\napplied 0001-member-indexes: UpdateTable: create GSI GSI1"
        ),
        "{text}"
    );
    assert!(text.contains("\n1 migration(s) run\n"), "{text}");
    assert_eq!(gsi_names(&table).await, ["GSI1", "GSI2"]);
    let status = ok(&table, &["status"]).await;
    let lines: Vec<&str> = status.lines().collect();
    assert!(lines[0].starts_with("applied  0001-member-indexes [layout]"), "{status}");
    assert_eq!(
        lines[1..],
        [format!("pending  0002-member-keys {BACKFILL_LINE}"), format!("pending  0003-team-zero {CUSTOM_LINE}")]
    );
    assert_eq!(
        snapshot(&table).await.len(),
        before.len() + 2,
        "one record item more, and its entry in the list of migrations run: {status}"
    );

    // apply, stopped mid-backfill (its run dropped): the backfill shows as stopped
    let stopped_run = tokio::spawn({
        let table = table.clone();
        async move { cli(&table, &["apply"]).await }
    });
    let backfill = table.backfill::<Member>("0002-member-keys");
    let started = Instant::now();
    loop {
        let scanned = backfill.status().await.unwrap().map_or(0, |r| r.scanned);
        if scanned >= N / 3 {
            break;
        }
        assert!(!stopped_run.is_finished(), "apply ended before it was stopped");
        assert!(started.elapsed() < Duration::from_secs(120), "no progress");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    stopped_run.abort();
    assert!(stopped_run.await.unwrap_err().is_cancelled());
    // Running while its heartbeat is fresh (3 periods of 200 ms), stopped after. The
    // checkpoint is read after that wait: a checkpoint write already sent when the run was
    // dropped still lands in the table.
    tokio::time::sleep(Duration::from_millis(700)).await;
    let at_stop = backfill.status().await.unwrap().unwrap();
    assert!(!at_stop.completed, "stopped mid-run: {at_stop}");
    let status = ok(&table, &["status"]).await;
    let lines: Vec<&str> = status.lines().collect();
    assert_eq!(
        lines[1],
        format!(
            "stopped  0002-member-keys {BACKFILL_LINE}: (checkpoint: run 1, {} scanned, {} updated, {} skipped)",
            at_stop.scanned, at_stop.updated, at_stop.skipped
        )
    );
    assert_eq!(lines[2], format!("pending  0003-team-zero {CUSTOM_LINE}"));
    let plan = ok(&table, &["plan"]).await;
    assert!(plan.contains(&format!("\n  resumes from its checkpoints: {at_stop}\n")), "{plan}");
    assert!(CUSTOM_RUNS.lock().unwrap().iter().all(|t| t != table.name()), "the custom step did not run");

    // resume: continues the backfill from its checkpoint, and runs nothing else
    let text = ok(&table, &["resume", "--progress", "lines"]).await;
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        format!("running 0002-member-keys [backfill], resuming after {} items read", at_stop.scanned)
    );
    let report = backfill.status().await.unwrap().unwrap();
    assert!(report.completed && report.run == 1 && report.failed == 0, "{report}");
    assert!(text.contains(&format!("\napplied 0002-member-keys: {report}\n")), "{text}");
    assert!(text.contains("\n1 migration(s) run\n"), "{text}");
    assert!(text.lines().filter(|l| l.starts_with("progress ")).all(|l| l.starts_with("progress 0002-member-keys: ")));
    let status = ok(&table, &["status"]).await;
    let lines: Vec<&str> = status.lines().collect();
    assert_eq!(lines[1], format!("applied  0002-member-keys {BACKFILL_LINE}: {report}; not verified since applied"));
    assert_eq!(lines[2], format!("pending  0003-team-zero {CUSTOM_LINE}"));
    // The members resumed were read once more at most a page a segment: 4 pages of 10.
    assert!(report.scanned >= N && report.scanned <= N + 40, "{report}");
    assert_eq!(report.updated + report.skipped, report.scanned);

    // Nothing stopped now: resume runs nothing and succeeds (exit code 0), saying so, so a
    // deploy script can resume on every start.
    let text = ok(&table, &["resume"]).await;
    assert!(text.starts_with("nothing to resume: no migration is stopped\n0 migration(s) run\n"), "{text}");

    // apply: the custom step, once
    let text = ok(&table, &["apply", "--progress", "off"]).await;
    assert!(text.starts_with("1 migration(s) run\n"), "{text}");
    assert!(text.ends_with(&format!("applied  0003-team-zero {CUSTOM_LINE}: team t0 resized\n")), "{text}");
    assert_eq!(CUSTOM_RUNS.lock().unwrap().iter().filter(|t| *t == table.name()).count(), 1);
    assert_eq!(ok(&table, &["plan"]).await, "nothing to do: every migration is applied\n");
    assert_eq!(ok(&table, &["apply"]).await, "0 migration(s) run\n");

    // Every member has exactly its new keys; team t0 was resized, the other teams untouched.
    let mut after = snapshot(&table).await;
    let t0 = after.remove("TEAM#t0|META").unwrap();
    assert_eq!(t0, Team { name: "t0".into(), size: 99 }.to_item().unwrap());
    let mut before = before;
    before.remove("TEAM#t0|META");
    let expected: HashMap<String, Member> = (0..N).map(|i| (v1(i).id, current(&v1(i)))).collect();
    check_table(&after, &expected, &before);
    let records = after.keys().filter(|k| k.ends_with("|STEP")).count();
    assert_eq!(records, 3, "one record a migration");

    // a usage error
    let (result, _) = cli(&table, &["frobnicate"]).await;
    match result {
        Err(e @ CliError::Usage(_)) => {
            assert!(e.to_string().contains("unrecognized subcommand 'frobnicate'"), "{e}");
            assert_eq!(e.exit_code(), 2);
        }
        other => panic!("{other:?}"),
    }
}

/// The child process of `the_command_line_runs_as_a_process`: runs `MigrationCli::main_from`
/// with the arguments in `MIGRATE_ARGS` (separated by spaces) on the table
/// `MIGRATE_TABLE` and exits with its exit code. Does nothing when the variables are unset.
#[tokio::test]
#[ignore = "the child process of the_command_line_runs_as_a_process"]
async fn cli_child() {
    let (Ok(name), Ok(args)) = (std::env::var("MIGRATE_TABLE"), std::env::var("MIGRATE_ARGS")) else { return };
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let cli = MigrationCli::new("migrate", Table::new(server.client(), name), migrations());
    let code = cli.main_from(std::iter::once("migrate").chain(args.split(' '))).await;
    std::io::stdout().flush().unwrap();
    // `ExitCode::exit_process` is unstable: the code is told apart by comparison.
    let code = [0u8, 1, 2].into_iter().find(|c| std::process::ExitCode::from(*c) == code).unwrap();
    std::process::exit(i32::from(code));
}

/// Runs the command line in a child process: exit code, standard output, standard error.
fn process(table: &Table, server: &LocalDynamoDb, args: &str) -> (i32, String, String) {
    let (code, out, err, _) = process_with_pid(table, server, args);
    (code, out, err)
}

/// As [`process`], with the child's process id.
fn process_with_pid(table: &Table, server: &LocalDynamoDb, args: &str) -> (i32, String, String, u32) {
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["migrations_cli::cli_child", "--exact", "--ignored", "--nocapture", "--test-threads=1", "-q"])
        .env("MIGRATE_TABLE", table.name())
        .env("MIGRATE_ARGS", args)
        .env("DYNAMODB_ENDPOINT", server.endpoint())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let out = child.wait_with_output().unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code().unwrap_or(-1), text(&out.stdout), text(&out.stderr), pid)
}

#[tokio::test]
async fn the_command_line_runs_as_a_process() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = launch_table("migrate_process").await;

    let (code, out, _) = process(&table, server, "status");
    assert_eq!(code, 0);
    assert!(out.contains(&format!("pending  0002-member-keys {BACKFILL_LINE}\n")), "{out}");

    let (code, out, err, pid) = process_with_pid(&table, server, "apply --to 0002-member-keys");
    assert_eq!(code, 0, "{out}\n{err}");
    // Recorded under the default worker name: the machine and the process, so that two
    // processes migrating at once never take each other's step.
    let record = common::raw_item(&table, "_MIGRATION#0002-member-keys", "STEP").await.unwrap();
    let host = dynamo_entity::migrate::default_worker().rsplit_once(':').unwrap().0.to_owned();
    assert_eq!(record["worker"], aws_sdk_dynamodb::types::AttributeValue::S(format!("{host}:{pid}")));
    // The same name holds the backfill's segment leases: every segment was the process's own.
    let segments = crate::backfills::checkpoints(&table, "0002-member-keys").await;
    assert_eq!(segments.len(), 4);
    for segment in &segments {
        assert_eq!(segment["owner"], aws_sdk_dynamodb::types::AttributeValue::S(format!("{host}:{pid}")));
    }
    // Standard error is not a terminal: plain progress lines.
    assert!(err.contains("running 0001-member-indexes [layout]\n"), "{err}");
    assert!(err.contains("running 0002-member-keys [backfill]\n"), "{err}");
    assert!(err.contains("\nprogress 0002-member-keys: "), "{err}");
    assert!(
        err.contains("\napplied 0002-member-keys: backfill 0002-member-keys run 1 (4 segments, completed)"),
        "{err}"
    );
    assert!(out.contains("2 migration(s) run\n"), "{out}");
    assert!(out.contains(&format!("pending  0003-team-zero {CUSTOM_LINE}\n")), "{out}");

    let (code, out, _) = process(&table, server, "cloudformation --table-name app");
    assert_eq!(code, 0);
    assert!(out.contains("\"TableName\": \"app\""), "{out}");

    let (code, _, err) = process(&table, server, "frobnicate");
    assert_eq!(code, 2);
    assert!(err.contains("unrecognized subcommand 'frobnicate'"), "{err}");
}

/// Runs `migrate <args>` with the migrations `declared`: its result and its output.
async fn cli_with(table: &Table, declared: Migrations, args: &[&str]) -> (Result<(), CliError>, String) {
    let out = Buffer::default();
    let cli = MigrationCli::new("migrate", table.clone(), declared);
    let result = cli.run(std::iter::once("migrate").chain(args.iter().copied()), out.clone()).await;
    (result, out.text())
}

/// The indexes and the members' backfill, in one segment.
fn two_migrations() -> Migrations {
    Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
        .heartbeat(Duration::from_millis(200))
        .wait(Wait { timeout: Duration::from_secs(120), poll: Duration::from_millis(100) })
        .apply_layout("0001-member-indexes")
        .backfill::<Member>("0002-member-keys", |b| b.segments(1).page_size(10))
}

/// A member whose `rank` another service stored as a string: it does not decode.
async fn put_member_with_rank(table: &Table, rank: aws_sdk_dynamodb::types::AttributeValue) {
    let mut item = v1(99).to_item().unwrap();
    item.insert("rank".to_owned(), rank);
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// A backfill that ends with an item it could not migrate is not applied: `apply` fails with
/// the item's key and why (exit 1), `status` shows the migration stopped with its failure,
/// `plan` says a new run retries it, and once the item is mended, `resume` runs the backfill
/// again, which writes that item only.
#[tokio::test]
async fn a_backfill_that_leaves_items_behind_is_stopped_and_resume_retries_them() {
    use aws_sdk_dynamodb::types::AttributeValue;
    let table = common::table("migrate_failed_items", &[MemberV1::SCHEMA, Team::SCHEMA]).await;
    load(&table, 30, 2).await;
    put_member_with_rank(&table, AttributeValue::S("high".to_owned())).await;

    let (result, text) = cli_with(&table, two_migrations(), &["apply", "--progress", "off"]).await;
    let failure = "migration 0002-member-keys: 1 Member item(s) could not be migrated: PK=MEMBER#m000099 SK=META \
                   (cannot decode Member PK=MEMBER#m000099 SK=META: attribute `rank`: expected type N, found S); \
                   every other item is done: mend them, then resume the migration to retry them";
    match result {
        Err(e @ CliError::Failed(_)) => {
            assert_eq!(e.to_string(), failure, "{text}");
            assert_eq!(e.exit_code(), 1);
        }
        other => panic!("{other:?}\n{text}"),
    }
    let report = table.backfill::<Member>("0002-member-keys").status().await.unwrap().unwrap();
    assert_eq!((report.run, report.scanned, report.updated, report.failed, report.completed), (1, 31, 30, 1, true));
    let (result, status) = cli_with(&table, two_migrations(), &["status"]).await;
    result.unwrap();
    let lines: Vec<&str> = status.lines().collect();
    assert!(lines[0].starts_with("applied  0001-member-indexes [layout]"), "{status}");
    assert_eq!(
        lines[1],
        format!(
            "stopped  0002-member-keys {BACKFILL_LINE}: (checkpoint: run 1, 31 scanned, 30 updated, 0 skipped, 1 \
             failed, every segment done) failed: {failure}"
        )
    );
    let (result, plan) = cli_with(&table, two_migrations(), &["plan"]).await;
    result.unwrap();
    assert!(plan.contains(&format!("\n  a new run, to retry the 1 item(s) that failed: {report}\n")), "{plan}");

    // Not mended: resume runs the backfill again and fails the same way.
    let (result, text) = cli_with(&table, two_migrations(), &["resume", "--progress", "lines"]).await;
    assert_eq!(result.unwrap_err().to_string(), failure);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.first(), Some(&"running 0002-member-keys [backfill]"), "{text}");
    assert!(lines[1].starts_with("progress 0002-member-keys: ") && lines[1].contains(" items read"), "{text}");
    assert_eq!(lines[2..], ["failed 0002-member-keys"], "{text}");
    let again = table.backfill::<Member>("0002-member-keys").status().await.unwrap().unwrap();
    assert_eq!((again.run, again.scanned, again.updated, again.skipped, again.failed), (2, 31, 0, 30, 1));

    // Mended: resume writes that item's keys only, and the migration is applied.
    put_member_with_rank(&table, AttributeValue::N("7".to_owned())).await;
    let (result, text) = cli_with(&table, two_migrations(), &["resume", "--progress", "off"]).await;
    result.unwrap_or_else(|e| panic!("{e}\n{text}"));
    let done = table.backfill::<Member>("0002-member-keys").status().await.unwrap().unwrap();
    assert_eq!((done.run, done.scanned, done.updated, done.skipped, done.failed), (3, 31, 1, 30, 0));
    assert!(
        text.contains(&format!("applied  0002-member-keys {BACKFILL_LINE}: {done}; not verified since applied\n")),
        "{text}"
    );
    let mended = current(&MemberV1 { rank: 7, ..v1(99) });
    let stored = common::raw_item(&table, "MEMBER#m000099", "META").await.unwrap();
    assert_eq!(stored, mended.to_item().unwrap());
}

/// A migration never run may not be declared before one already run: it would run after a
/// migration declared after it. `apply` and `plan` refuse and start nothing; `--to` naming no
/// declared migration is a usage error (exit 2).
#[tokio::test]
async fn migrations_declared_out_of_order_and_unknown_targets_are_refused() {
    let table = common::table("migrate_order", &[MemberV1::SCHEMA, Team::SCHEMA]).await;
    load(&table, 5, 1).await;
    let (result, text) = cli_with(&table, two_migrations(), &["apply", "--to", "0001-member-indexes"]).await;
    result.unwrap_or_else(|e| panic!("{e}\n{text}"));

    let inserted = || {
        Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
            .backfill::<Member>("0000-member-keys-early", |b| b.segments(1))
            .apply_layout("0001-member-indexes")
            .backfill::<Member>("0002-member-keys", |b| b.segments(1))
    };
    let refusal = "invalid request: migrations: 0000-member-keys-early is declared before 0001-member-indexes, but \
                   0001-member-indexes is applied and 0000-member-keys-early was never run: migrations run in their \
                   declared order, so declare a new migration after every one already run; nothing started";
    for args in [&["apply"][..], &["plan"][..]] {
        let (result, text) = cli_with(&table, inserted(), args).await;
        match result {
            Err(e @ CliError::Failed(_)) => {
                assert_eq!(e.to_string(), refusal, "{args:?}");
                assert_eq!(e.exit_code(), 1);
            }
            other => panic!("{args:?}: {other:?}\n{text}"),
        }
    }
    assert_eq!(table.backfill::<Member>("0000-member-keys-early").status().await.unwrap(), None, "nothing ran");
    assert_eq!(table.backfill::<Member>("0002-member-keys").status().await.unwrap(), None, "nothing ran");
    // Two migrations already run, declared in the other order: nothing is refused.
    let (result, _) = cli_with(&table, two_migrations(), &["apply", "--progress", "off"]).await;
    result.unwrap();
    let swapped = Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
        .backfill::<Member>("0002-member-keys", |b| b.segments(1))
        .apply_layout("0001-member-indexes");
    let (result, text) = cli_with(&table, swapped, &["apply"]).await;
    result.unwrap();
    assert_eq!(text, "0 migration(s) run\n");

    for args in [&["apply", "--to", "0009-nothing"][..], &["plan", "--to", "0009-nothing"][..]] {
        let (result, _) = cli_with(&table, two_migrations(), args).await;
        match result {
            Err(e @ CliError::Usage(_)) => {
                assert_eq!(
                    e.to_string(),
                    "error: --to \"0009-nothing\" names no declared migration (the declared ids: \
                     0001-member-indexes, 0002-member-keys)"
                );
                assert_eq!(e.exit_code(), 2);
            }
            other => panic!("{args:?}: {other:?}"),
        }
    }
}

/// Calls of the step of `resume_right_after_a_stop_continues_the_step_of_this_worker`.
static SLOW_CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A run stopped while its heartbeat is still fresh (a process restarted at once, under the
/// same worker name) is resumed by `resume`: the step is this worker's, so it is continued,
/// not refused as "nothing to resume".
#[tokio::test]
async fn resume_right_after_a_stop_continues_the_step_of_this_worker() {
    use std::sync::atomic::Ordering;
    let table = common::table("migrate_resume_at_once", &[Member::SCHEMA, Team::SCHEMA]).await;
    let declared = || {
        Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
            .heartbeat(Duration::from_secs(10))
            .custom("0001-slow", "a step that hangs the first time", |_| async {
                if SLOW_CALLS.fetch_add(1, Ordering::SeqCst) == 0 {
                    tokio::time::sleep(Duration::from_secs(600)).await;
                }
                Ok("done".to_owned())
            })
    };
    let first = tokio::spawn({
        let table = table.clone();
        let declared = declared();
        async move { declared.apply(&table, &dynamo_entity::migrate::RunOptions::default()).await }
    });
    while SLOW_CALLS.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    let status = declared().status(&table).await.unwrap();
    assert_eq!(status[0].status.word(), "running", "its heartbeat is fresh");

    let (result, text) = cli_with(&table, declared(), &["resume", "--progress", "off"]).await;
    result.unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(SLOW_CALLS.load(Ordering::SeqCst), 2);
    assert!(text.starts_with("1 migration(s) run\n"), "{text}");
    assert_eq!(declared().status(&table).await.unwrap()[0].status.word(), "applied");
}

static HELD_CALLS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// After a crash, the step stays recorded as run by the dead worker until its heartbeat is three
/// periods old: `status` shows the heartbeat's age, and `resume` under another worker name (a
/// restarted process) waits that out, says so, and takes the step over. A worker that is alive
/// keeps its step: `resume` fails, naming it, and nothing runs twice.
#[tokio::test]
async fn resume_after_a_crash_waits_out_the_dead_worker_and_refuses_a_live_one() {
    use std::sync::atomic::Ordering;
    let table = common::table("migrate_resume_after_crash", &[Member::SCHEMA, Team::SCHEMA]).await;
    let declared = || {
        Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
            .heartbeat(Duration::from_millis(400))
            .custom("0001-held", "a step that hangs the first two times", |_| async {
                if HELD_CALLS.fetch_add(1, Ordering::SeqCst) < 2 {
                    tokio::time::sleep(Duration::from_secs(600)).await;
                }
                Ok("done".to_owned())
            })
    };
    let start = |worker: &str| {
        let table = table.clone();
        let declared = declared();
        let options = dynamo_entity::migrate::RunOptions { worker: worker.to_owned(), ..Default::default() };
        tokio::spawn(async move { declared.apply(&table, &options).await })
    };

    // A live worker: vm:1 runs the step and renews its heartbeat; vm:2's resume fails.
    let live = start("vm:1");
    while HELD_CALLS.load(Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let line = declared().status(&table).await.unwrap()[0].to_string();
    assert!(
        line.starts_with(
            "running  0001-held [custom] a step that hangs the first two times: run by vm:1, heartbeat 0."
        ),
        "{line}"
    );
    assert!(line.ends_with(" s ago (stopped once 1.2 s old)"), "{line}");
    let (result, text) = cli_with(&table, declared(), &["resume", "--worker", "vm:2", "--progress", "off"]).await;
    assert!(text.starts_with("0001-held is recorded as run by vm:1: waiting "), "{text}");
    assert!(
        text.contains(
            " s for its heartbeat to go stale, then taking the step over (`--worker vm:1` takes it over at once)\n"
        ),
        "{text}"
    );
    match result {
        Err(e @ CliError::Failed(_)) => {
            assert!(
                e.to_string().contains("migration 0001-held is being run by vm:1, which renewed its heartbeat "),
                "{e}"
            );
            assert!(
                e.to_string().ends_with(" ms ago: it is alive; nothing started (run again once it is done)"),
                "{e}"
            );
            assert_eq!(e.exit_code(), 1);
        }
        other => panic!("{other:?}\n{text}"),
    }
    assert_eq!(HELD_CALLS.load(Ordering::SeqCst), 1, "the live worker's step did not run twice");

    // The crash: vm:1 dies (its task is dropped) and vm:3 starts it again; it dies too, at once.
    live.abort();
    assert!(live.await.unwrap_err().is_cancelled());
    let dead = start("vm:3");
    while HELD_CALLS.load(Ordering::SeqCst) < 2 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    dead.abort();
    assert!(dead.await.unwrap_err().is_cancelled());
    assert_eq!(declared().status(&table).await.unwrap()[0].status.word(), "running", "its heartbeat is fresh");

    // A restarted process, another worker name: resume waits out vm:3's heartbeat, then runs it.
    let started = std::time::Instant::now();
    let (result, text) = cli_with(&table, declared(), &["resume", "--worker", "vm:4", "--progress", "off"]).await;
    result.unwrap_or_else(|e| panic!("{e}\n{text}"));
    let waited = started.elapsed();
    assert!(text.starts_with("0001-held is recorded as run by vm:3: waiting "), "{text}");
    assert!(
        text.contains("\n1 migration(s) run\napplied  0001-held [custom] a step that hangs the first two times: done"),
        "{text}"
    );
    assert!(waited < Duration::from_secs(5), "waited at most three heartbeat periods: {waited:?}");
    assert_eq!(HELD_CALLS.load(Ordering::SeqCst), 3);
}

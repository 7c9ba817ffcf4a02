//! Two migration runners, two processes, one step (issue 30): runner r1, a child process (this
//! test binary running the ignored test `runner_identity::runner_child`, under its default
//! worker name `<host>:<pid>`), is paused (SIGSTOP) in the middle of a step, past its heartbeat;
//! runner r9, this test's process, takes the step over and applies it; then r1 is woken
//! (SIGCONT). r1 must stop the step and fail with `Error::MigrationTakenOver` naming r9, and
//! never record or report the step applied: once for a custom step (a counter shows it was
//! started twice and finished once), once for a backfill (every item migrated, the segment's
//! checkpoints only move forward, and r1 writes nothing after it wakes).

use crate::backfills::{Member, Team, check_table, current, load, snapshot, v1};
use crate::common;

use std::collections::HashMap;
use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::{Applied, Migrations, Observer, PageDone, RunOptions, Status};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Item, Table};
use dynamo_entity_local::LocalDynamoDb;

/// Both runners' heartbeat period: a step is stale 600 ms after its last heartbeat.
const HEARTBEAT: Duration = Duration::from_millis(200);
/// Both runners' segment lease.
const LEASE: Duration = Duration::from_millis(500);
/// How long r1's custom step sleeps between its start and its end (r1 is paused meanwhile).
const NAP: Duration = Duration::from_secs(5);
const COUNT_ID: &str = "0001-count";
const KEYS_ID: &str = "0001-member-keys";
/// Members of the backfill test: 6 pages of 10.
const N: u64 = 60;

fn layout() -> TableLayout {
    TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap()
}

/// Adds 1 to the attribute `name` of the counter item `COUNTER` / `RUNS`.
async fn count(table: &Table, name: &str) {
    table
        .client()
        .update_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S("COUNTER".to_owned()))
        .key("SK", AttributeValue::S("RUNS".to_owned()))
        .update_expression("ADD #n :one")
        .expression_attribute_names("#n", name)
        .expression_attribute_values(":one", AttributeValue::N("1".to_owned()))
        .send()
        .await
        .expect("the counter is written");
}

/// The counter's attributes `started` and `finished` (0 when absent).
async fn counts(table: &Table) -> (u64, u64) {
    let item = common::raw_item(table, "COUNTER", "RUNS").await.unwrap_or_default();
    let n = |name: &str| item.get(name).map_or(0, |v| v.as_n().unwrap().parse::<u64>().unwrap());
    (n("started"), n("finished"))
}

/// The custom step: counts its start, sleeps `nap`, counts its end.
fn counting(nap: Duration) -> Migrations {
    Migrations::new(layout()).heartbeat(HEARTBEAT).custom(COUNT_ID, "count the runs", move |table: Table| async move {
        count(&table, "started").await;
        tokio::time::sleep(nap).await;
        count(&table, "finished").await;
        Ok("counted".to_owned())
    })
}

/// The backfill of the members' keys: one segment, pages of 10.
fn keys() -> Migrations {
    Migrations::new(layout()).heartbeat(HEARTBEAT).backfill::<Member>(KEYS_ID, |b| b.segments(1).page_size(10))
}

/// Blocks its runner's thread (a current-thread runtime: the whole runner) for 2 s after the
/// first page is checkpointed, so that the test pauses it there.
struct HoldAfterFirstPage(AtomicBool);

impl Observer for HoldAfterFirstPage {
    fn page(&self, _: &str, _: &PageDone) {
        if !self.0.swap(true, Ordering::SeqCst) {
            std::thread::sleep(Duration::from_secs(2));
        }
    }
}

/// Runner r1: applies the migrations `RUNNER_STEP` names (`count` or `keys`) to the table
/// `RUNNER_TABLE` under its default worker name, prints `RUNNER: ` and its result, and exits
/// with 0 (applied), 1 (taken over) or 2 (another error). Does nothing when the variables are
/// unset.
#[tokio::test]
#[ignore = "runner r1 of the runner_identity tests"]
async fn runner_child() {
    let (Ok(name), Ok(step)) = (std::env::var("RUNNER_TABLE"), std::env::var("RUNNER_STEP")) else { return };
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), name);
    let (migrations, observer): (Migrations, Arc<dyn Observer>) = match step.as_str() {
        "count" => (counting(NAP), Arc::new(HoldAfterFirstPage(AtomicBool::new(true)))),
        _ => (keys(), Arc::new(HoldAfterFirstPage(AtomicBool::new(false)))),
    };
    let options = RunOptions { lease: LEASE, observer, ..RunOptions::default() };
    let code = match migrations.apply(&table, &options).await {
        Ok(applied) => {
            println!("RUNNER: applied {applied:?}");
            0
        }
        Err(e @ Error::MigrationTakenOver { .. }) => {
            println!("RUNNER: taken over: {e}");
            1
        }
        Err(e) => {
            println!("RUNNER: failed: {e}");
            2
        }
    };
    std::io::stdout().flush().unwrap();
    std::process::exit(code);
}

/// A child process, killed (SIGKILL) when dropped: a failing test leaves none behind.
struct Runner(std::process::Child);

impl Drop for Runner {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

impl Runner {
    /// Starts runner r1 on `table` with the migrations `step` names.
    fn start(table: &Table, server: &LocalDynamoDb, step: &str) -> Runner {
        let child = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["runner_identity::runner_child", "--exact", "--ignored", "--nocapture", "--test-threads=1", "-q"])
            .env("RUNNER_TABLE", table.name())
            .env("RUNNER_STEP", step)
            .env("DYNAMODB_ENDPOINT", server.endpoint())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        Runner(child)
    }

    /// r1's worker name: this machine (as this process names it) and r1's process id.
    fn worker(&self) -> String {
        let host = dynamo_entity::migrate::default_worker().rsplit_once(':').unwrap().0.to_owned();
        format!("{host}:{}", self.0.id())
    }

    /// Sends `signal` (`STOP` or `CONT`) to r1.
    fn signal(&self, signal: &str) {
        let status =
            std::process::Command::new("kill").args([format!("-{signal}"), self.0.id().to_string()]).status().unwrap();
        assert!(status.success(), "kill -{signal}");
    }

    /// Waits for r1 to exit: its exit code and its `RUNNER: ` line.
    fn finish(mut self) -> (i32, String) {
        let status = self.0.wait().unwrap();
        let mut out = String::new();
        std::io::Read::read_to_string(self.0.stdout.as_mut().unwrap(), &mut out).unwrap();
        let line = out.lines().find_map(|l| l.strip_prefix("RUNNER: ")).unwrap_or_else(|| panic!("{out}"));
        (status.code().unwrap_or(-1), line.to_owned())
    }
}

/// Polls `done` every 10 ms, for at most 60 s.
async fn wait_for<F: std::future::Future<Output = bool>>(what: &str, mut done: impl FnMut() -> F) {
    let start = Instant::now();
    while !done().await {
        assert!(start.elapsed() < Duration::from_secs(60), "timed out waiting for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// Runner r9: this process, under the name `r9`.
fn r9() -> RunOptions {
    RunOptions { worker: "r9".to_owned(), lease: LEASE, ..RunOptions::default() }
}

/// What r1 says once woken: it lost the step to r9, which applied it.
fn taken_over(r1: &str, id: &str) -> String {
    format!(
        "taken over: migration {id}: the runner {r1} lost its claim on the step to r9 (its record says applied by \
         r9); it stopped the step and did not record it applied"
    )
}

/// The step record's `status`, `worker` and `summary`.
async fn record(table: &Table, id: &str) -> (String, String, String) {
    let item = common::raw_item(table, &format!("_MIGRATION#{id}"), "STEP").await.unwrap();
    let s = |name: &str| item.get(name).map_or(String::new(), |v| v.as_s().unwrap().clone());
    (s("status"), s("worker"), s("summary"))
}

#[tokio::test]
async fn a_runner_paused_past_its_heartbeat_loses_its_custom_step_to_the_runner_that_took_it_over() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = common::table("runner_custom", &[Member::SCHEMA, Team::SCHEMA]).await;

    let r1 = Runner::start(&table, server, "count");
    let r1_worker = r1.worker();
    // r1 started the step (and sleeps 5 s in it): paused there.
    wait_for("r1 to start the step", || async { counts(&table).await == (1, 0) }).await;
    r1.signal("STOP");
    assert_eq!(record(&table, COUNT_ID).await, ("running".to_owned(), r1_worker.clone(), String::new()));
    // Three heartbeat periods without one: the step is stopped, and r9 takes it over.
    tokio::time::sleep(HEARTBEAT * 3 + Duration::from_millis(300)).await;
    assert!(matches!(counting(Duration::ZERO).status(&table).await.unwrap()[0].status, Status::Stopped { .. }));
    let applied = counting(Duration::ZERO).apply(&table, &r9()).await.unwrap();
    assert_eq!(applied, [Applied { id: COUNT_ID.to_owned(), summary: "counted".to_owned() }]);
    assert_eq!(counts(&table).await, (2, 1), "r9 ran the step to its end");

    r1.signal("CONT");
    let (code, said) = r1.finish();
    assert_eq!((code, said), (1, taken_over(&r1_worker, COUNT_ID)));
    assert_eq!(counts(&table).await, (2, 1), "r1 did not finish the step");
    assert_eq!(record(&table, COUNT_ID).await, ("applied".to_owned(), "r9".to_owned(), "counted".to_owned()));
    let status = counting(Duration::ZERO).status(&table).await.unwrap();
    assert!(matches!(&status[0].status, Status::Applied { summary, .. } if summary == "counted"), "{status:?}");
}

/// One reading of the segment's checkpoint: its write counter, items scanned, owner.
type Reading = (u64, u64, String);

fn reading(item: &Item) -> Reading {
    let n = |name: &str| item[name].as_n().unwrap().parse::<u64>().unwrap();
    (n("v"), n("scanned"), item["owner"].as_s().unwrap().clone())
}

async fn segment_checkpoint(table: &Table) -> Option<Item> {
    common::raw_item(table, &format!("_MIGRATION#{KEYS_ID}"), "SEGMENT#0000000").await
}

#[tokio::test]
async fn a_runner_paused_past_its_heartbeat_loses_its_backfill_to_the_runner_that_took_it_over() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = common::table("runner_backfill", &[Member::SCHEMA, Team::SCHEMA]).await;
    load(&table, N, 3).await;
    let before = snapshot(&table).await;

    // Every change of the segment's checkpoint, read every 5 ms from now to the end.
    let watching = Arc::new(AtomicBool::new(true));
    let watch = tokio::spawn({
        let (table, watching) = (table.clone(), Arc::clone(&watching));
        async move {
            let mut seen: Vec<Reading> = Vec::new();
            while watching.load(Ordering::SeqCst) {
                if let Some(item) = segment_checkpoint(&table).await {
                    let r = reading(&item);
                    if seen.last() != Some(&r) {
                        seen.push(r);
                    }
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            seen
        }
    });

    let r1 = Runner::start(&table, server, "keys");
    let r1_worker = r1.worker();
    // r1 checkpointed its first page (10 items read, the members among them counted; it holds
    // 2 s after it): paused there.
    wait_for("r1's first page", || async { segment_checkpoint(&table).await.is_some_and(|c| reading(&c).1 > 0) }).await;
    r1.signal("STOP");
    tokio::time::sleep(HEARTBEAT * 3 + Duration::from_millis(300)).await;
    // r9 takes the step over, waits for r1's segment lease to end, and continues the segment
    // from r1's checkpoint.
    let applied = keys().apply(&table, &r9()).await.unwrap();
    let report = table.backfill::<Member>(KEYS_ID).status().await.unwrap().unwrap();
    assert_eq!(
        (report.run, report.segments, report.completed, report.scanned, report.updated, report.skipped),
        (1, 1, true, N, N, 0)
    );
    assert_eq!((report.failed, report.vanished, report.changed), (0, 0, 0));
    assert_eq!(applied, [Applied { id: KEYS_ID.to_owned(), summary: report.to_string() }]);
    let taken = segment_checkpoint(&table).await.unwrap();
    assert_eq!((reading(&taken).1, reading(&taken).2.as_str()), (N, "r9"));
    assert_eq!(taken["done"], AttributeValue::Bool(true));

    r1.signal("CONT");
    let (code, said) = r1.finish();
    assert_eq!((code, said), (1, taken_over(&r1_worker, KEYS_ID)));
    // r1 wrote nothing once woken: neither the checkpoint nor the record.
    assert_eq!(segment_checkpoint(&table).await.unwrap(), taken);
    assert_eq!(record(&table, KEYS_ID).await, ("applied".to_owned(), "r9".to_owned(), report.to_string()));
    watching.store(false, Ordering::SeqCst);
    let seen = watch.await.unwrap();

    // The checkpoints only moved forward: each reading a later write with as many items or
    // more; r1's pages first, then r9's, never r1's again.
    for pair in seen.windows(2) {
        assert!(pair[1].0 > pair[0].0 && pair[1].1 >= pair[0].1, "{seen:?}");
    }
    let owners: Vec<&str> = seen.iter().map(|r| r.2.as_str()).collect();
    let first_r9 = owners.iter().position(|o| *o == "r9").unwrap();
    assert!(owners[..first_r9].iter().all(|o| *o == r1_worker), "{seen:?}");
    assert!(owners[first_r9..].iter().all(|o| *o == "r9"), "{seen:?}");
    assert_eq!(seen.last(), Some(&reading(&taken)));
    assert!(seen.iter().any(|r| r.1 > 0 && r.2 == r1_worker), "r1's first page: {seen:?}");

    // Every member has exactly its new keys.
    let expected: HashMap<String, Member> = (0..N).map(|i| (v1(i).id.clone(), current(&v1(i)))).collect();
    check_table(&snapshot(&table).await, &expected, &before);
}

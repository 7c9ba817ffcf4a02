//! Backfill throughput: `Table::backfill` against a hand-written parallel scan plus
//! conditional-update loop, at 1, 2, 4 and 8 scan segments, on DynamoDB Local, in one run.
//!
//! For each concurrency and each side, a fresh table gets `n` members written with the launch
//! schema (no GSI1 keys), then the side fills GSI1PK / GSI1SK of every member:
//!
//! * `library`: `table.backfill::<Member>(id).segments(c).concurrency(c)` (8 updates in flight
//!   a segment, its defaults), with its checkpoint item written after every page;
//! * `hand`: `c` tasks, each scanning its segment (`Segment` / `TotalSegments`, a filter on the
//!   entity type, 1 MB pages) and sending, 8 at a time, one `UpdateItem` per member: `SET` of
//!   the two keys on the condition that the item exists, has the type and still has the team,
//!   rank and (absent) keys read, asking for the consumed capacity (the library reports the
//!   capacity used) and for the item on a failed condition (`ALL_OLD`, what the library
//!   re-reads a changed item from). The keys come from the same encoder (`Entity::gsi_keys`), so
//!   what is compared is the scan, update and bookkeeping machinery. No checkpoints.
//!
//! Both sides' tables are checked afterwards: every member has exactly the keys the template
//! gives. Each line gives items per second of both sides, their ratio (goal: at least 0.9), and
//! the growth of the process's peak resident memory during the run (`VmHWM` after writing `5`
//! to `/proc/self/clear_refs`, Linux). The sides alternate (which goes first alternates by round
//! and by concurrency) and the median of the rounds is reported; under it, each round's rates,
//! and the CPU time per item of the client process (`getrusage`) and, when this process started
//! DynamoDB Local, of the server (`/proc/<pid>/stat`): the server's work per item, which tells
//! whether a gap in the rates comes from what the requests ask of the server. Under each line,
//! `requests per item` counts the HTTP
//! requests each side sent during its run (an SDK interceptor reading `X-Amz-Target`, retries
//! included), divided by the members, in total and by operation: a figure that does not
//! depend on the machine's load, unlike the rates. The last line is `ratio min=R`.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local.
//!
//! `cargo bench -p dynamo-entity-examples --bench backfill` (20,000 members, 3 rounds);
//! `-- --quick` runs 2,000 members, one round (a check that both sides run and agree).
//!
//! For a profiler: `BACKFILL_PROFILE=library|hand|load` with `BACKFILL_PROFILE_MEMBERS=N`
//! (default 400) and `BACKFILL_PROFILE_SEGMENTS=S` (default 1) loads a fresh table with N
//! members and runs that one side once at S segments (`load`: none), then exits (see
//! `profile`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};
use dynamo_entity::{Entity, Item, Table};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use futures::{StreamExt, TryStreamExt};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A member as written at launch.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Member", pk = "MEMBER#<id>", sk = "META")]
pub struct MemberV1 {
    pub id: String,
    pub team: String,
    pub rank: u32,
    pub note: String,
}

/// The member today: a team leaderboard on GSI1.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Member", pk = "MEMBER#<id>", sk = "META", gsi1 = "TEAM#<team>", gsi1_sk = "<rank>#<id>")]
pub struct Member {
    pub id: String,
    pub team: String,
    pub rank: u32,
    pub note: String,
}

fn v1(i: u64) -> MemberV1 {
    MemberV1 {
        id: format!("m{i:07}"),
        team: format!("t{}", i % 50),
        rank: (i % 1000) as u32,
        note: format!("member {i}, {}", "a note of some length ".repeat(4)),
    }
}

/// Counts the requests sent, by operation (`X-Amz-Target` without its `DynamoDB_20120810.`).
#[derive(Debug, Clone, Default)]
struct Requests(Arc<Mutex<BTreeMap<String, u64>>>);

impl Intercept for Requests {
    fn name(&self) -> &'static str {
        "Requests"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _: &RuntimeComponents,
        _: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let target = context.request().headers().get("x-amz-target").unwrap_or("?");
        let op = target.rsplit('.').next().unwrap_or(target).to_owned();
        *self.0.lock().unwrap().entry(op).or_default() += 1;
        Ok(())
    }
}

impl Requests {
    /// The counts so far, and zero from now on.
    fn take(&self) -> BTreeMap<String, u64> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

/// `total (Op a, Op b, …)`: requests per item.
fn per_item(counts: &BTreeMap<String, u64>, n: u64) -> String {
    let total: u64 = counts.values().sum();
    let ops: Vec<String> = counts.iter().map(|(op, c)| format!("{op} {:.4}", *c as f64 / n as f64)).collect();
    format!("{:.4} ({})", total as f64 / n as f64, ops.join(", "))
}

/// A field of `/proc/self/status` in bytes (`VmRSS`, `VmHWM`); 0 where there is none.
fn status_bytes(field: &str) -> u64 {
    let Ok(text) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    text.lines()
        .find(|l| l.starts_with(field) && l[field.len()..].starts_with(':'))
        .and_then(|l| l[field.len() + 1..].trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// Resets the peak resident size to the current one; the baseline.
fn reset_peak() -> u64 {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    status_bytes("VmHWM")
}

/// CPU time (user + system) of process `pid` so far, from `/proc/<pid>/stat` (Linux); `None`
/// where it cannot be read (no pid: a server started elsewhere).
fn process_cpu(pid: Option<u32>) -> Option<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{}/stat", pid?)).ok()?;
    // The fields after the command name (which is in parentheses and may hold spaces): state is
    // the 3rd field of the line, utime and stime the 14th and 15th.
    let rest: Vec<&str> = stat[stat.rfind(')')? + 1..].split_whitespace().collect();
    let ticks: u64 = rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?;
    // SAFETY: sysconf reads a configuration value and has no other effect.
    let per_second = u64::try_from(unsafe { libc::sysconf(libc::_SC_CLK_TCK) }).ok().filter(|&t| t > 0)?;
    Some(Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// CPU time (user + system) of this process so far, every thread included.
fn own_cpu() -> Duration {
    // SAFETY: getrusage writes the struct it is given and reads nothing else.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    assert_eq!(rc, 0, "getrusage failed");
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// What one side's run cost: the client's CPU time and the server's (when its pid is known).
#[derive(Debug, Clone, Copy, Default)]
struct Cost {
    client: Duration,
    server: Option<Duration>,
}

impl Cost {
    fn now(server: Option<u32>) -> Cost {
        Cost { client: own_cpu(), server: process_cpu(server) }
    }

    fn since(self, before: Cost) -> Cost {
        Cost {
            client: self.client.saturating_sub(before.client),
            server: self.server.zip(before.server).map(|(a, b)| a.saturating_sub(b)),
        }
    }
}

async fn fresh_table(client: &aws_sdk_dynamodb::Client, n: u64) -> Res<Table> {
    let table = Table::new(client.clone(), unique_table_name("bench_backfill"));
    table.create_table(&[Member::SCHEMA]).await?;
    let members: Vec<MemberV1> = (0..n).map(v1).collect();
    let out = table.batch_write().put_all(&members).concurrency(4).send().await?;
    if !out.unprocessed.is_empty() || out.written as u64 != n {
        return Err("the members were not all written".into());
    }
    Ok(table)
}

/// The hand-written side: `segments` tasks, each scanning its segment and updating, 8 at a
/// time, every member that lacks its keys.
async fn hand(table: &Table, segments: u32) -> Res<u64> {
    let tasks = (0..segments).map(|segment| {
        let table = table.clone();
        async move {
            let client = table.client();
            let mut start: Option<Item> = None;
            let mut updated = 0u64;
            loop {
                let page = client
                    .scan()
                    .table_name(table.name())
                    .segment(segment as i32)
                    .total_segments(segments as i32)
                    .filter_expression("#t = :t")
                    .expression_attribute_names("#t", "_type")
                    .expression_attribute_values(":t", AttributeValue::S("Member".into()))
                    .set_exclusive_start_key(start.take())
                    .send()
                    .await?;
                let items = page.items.unwrap_or_default();
                let done: Vec<u64> = futures::stream::iter(items.into_iter().map(|item| {
                    let table = table.clone();
                    async move { update_one(&table, item).await }
                }))
                .buffer_unordered(8)
                .try_collect()
                .await?;
                updated += done.iter().sum::<u64>();
                match page.last_evaluated_key {
                    Some(k) => start = Some(k),
                    None => return Res::Ok(updated),
                }
            }
        }
    });
    let counts: Vec<u64> = futures::stream::iter(tasks).buffer_unordered(segments as usize).try_collect().await?;
    Ok(counts.iter().sum())
}

async fn update_one(table: &Table, item: Item) -> Res<u64> {
    let member = Member::from_item(&item)?;
    let keys: HashMap<&'static str, AttributeValue> = member.gsi_keys()?.into_iter().collect();
    if keys.iter().all(|(k, v)| item.get(*k) == Some(v)) {
        return Ok(0);
    }
    let mut request = table
        .client()
        .update_item()
        .table_name(table.name())
        .key("PK", item["PK"].clone())
        .key("SK", item["SK"].clone())
        .update_expression("SET #g1pk = :g1pk, #g1sk = :g1sk")
        .condition_expression(
            "attribute_exists(#pk) AND #t = :t AND #team = :team AND #rank = :rank AND attribute_not_exists(#g1pk) \
             AND attribute_not_exists(#g1sk)",
        )
        .expression_attribute_names("#pk", "PK")
        .expression_attribute_names("#t", "_type")
        .expression_attribute_names("#team", "team")
        .expression_attribute_names("#rank", "rank")
        .expression_attribute_names("#g1pk", "GSI1PK")
        .expression_attribute_names("#g1sk", "GSI1SK")
        .expression_attribute_values(":t", AttributeValue::S("Member".into()))
        .expression_attribute_values(":team", item["team"].clone())
        .expression_attribute_values(":rank", item["rank"].clone())
        // What a loop that reports the capacity it used and re-reads an item whose condition
        // failed asks for, as the library's backfill does.
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld);
    for (name, attr) in [(":g1pk", "GSI1PK"), (":g1sk", "GSI1SK")] {
        let value = keys.get(attr).ok_or("no GSI1 key")?.clone();
        request = request.expression_attribute_values(name, value);
    }
    request.send().await?;
    Ok(1)
}

/// Every member has exactly its GSI1 keys.
async fn check(table: &Table, n: u64) -> Res<()> {
    let mut start = None;
    let mut members = 0;
    loop {
        let page = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await?;
        for item in page.items.unwrap_or_default() {
            if item.get("_type") == Some(&AttributeValue::S("Member".into())) {
                let want = Member::from_item(&item)?.to_item()?;
                if item != want {
                    return Err(format!("{item:?} is not {want:?}").into());
                }
                members += 1;
            }
        }
        match page.last_evaluated_key {
            Some(k) => start = Some(k),
            None => break,
        }
    }
    if members != n {
        return Err(format!("{members} members, not {n}").into());
    }
    Ok(())
}

/// One side at one concurrency on a fresh table: items per second, peak growth (bytes), and
/// the requests the side sent, by operation.
async fn measure(
    client: &aws_sdk_dynamodb::Client,
    server: Option<u32>,
    requests: &Requests,
    n: u64,
    segments: u32,
    library: bool,
) -> Res<(f64, u64, BTreeMap<String, u64>, Cost)> {
    let table = fresh_table(client, n).await?;
    requests.take();
    let base = reset_peak();
    let cost = Cost::now(server);
    let started = Instant::now();
    let updated = if library {
        let report = table.backfill::<Member>("bench").segments(segments).concurrency(segments as usize).run().await?;
        if !report.completed || report.failed > 0 {
            return Err(format!("{report}").into());
        }
        report.updated
    } else {
        hand(&table, segments).await?
    };
    let secs = started.elapsed().as_secs_f64();
    let cost = Cost::now(server).since(cost);
    let growth = status_bytes("VmHWM").saturating_sub(base);
    let sent = requests.take();
    if updated != n {
        return Err(format!("{} updated {updated} of {n}", if library { "library" } else { "hand" }).into());
    }
    check(&table, n).await?;
    table.client().delete_table().table_name(table.name()).send().await?;
    Ok((n as f64 / secs, growth, sent, cost))
}

/// `BACKFILL_PROFILE=library|hand|load`: loads a fresh table with `BACKFILL_PROFILE_MEMBERS`
/// members (default 400; the same load for every side), runs that one side once at
/// `BACKFILL_PROFILE_SEGMENTS` segments (default 1; `load` runs none), checks that every
/// member was updated (from the side's own count, no read of the table), and exits; for
/// `valgrind --tool=callgrind`, which counts this process only. The run with N = 0 counts what
/// does not depend on N (the table, the connection, the side's own setup and its one empty
/// page a segment), to subtract; `load` counts the loading, to subtract from both sides.
async fn profile(client: &aws_sdk_dynamodb::Client, requests: &Requests, side: &str) -> Res<()> {
    let env = |name: &str, default: u64| -> Res<u64> {
        Ok(std::env::var(name).ok().map(|v| v.parse::<u64>()).transpose()?.unwrap_or(default))
    };
    let n = env("BACKFILL_PROFILE_MEMBERS", 400)?;
    let segments = u32::try_from(env("BACKFILL_PROFILE_SEGMENTS", 1)?)?;
    let table = fresh_table(client, n).await?;
    requests.take();
    let started = Instant::now();
    let updated = match side {
        "library" => {
            let report =
                table.backfill::<Member>("bench").segments(segments).concurrency(segments as usize).run().await?;
            if !report.completed || report.failed > 0 {
                return Err(format!("{report}").into());
            }
            report.updated
        }
        "hand" => hand(&table, segments).await?,
        "load" => n,
        other => return Err(format!("BACKFILL_PROFILE: no side {other:?} (library, hand or load)").into()),
    };
    let secs = started.elapsed().as_secs_f64();
    let sent = requests.take();
    table.client().delete_table().table_name(table.name()).send().await?;
    if updated != n {
        return Err(format!("{side} updated {updated} of {n}").into());
    }
    println!(
        "{side}: {n} members, {segments} segment(s), {secs:.3} s ({:.0} items/s), requests {sent:?}",
        n as f64 / secs
    );
    Ok(())
}

/// `client library X / hand Y ms, server library X / hand Y ms` per item, summed over the
/// rounds (the server's only when its pid is known: started by this process).
fn cpu_per_item(lib: &[Cost], hand: &[Cost], n: u64) -> String {
    let items = (n as f64) * lib.len() as f64;
    let ms = |d: Duration| d.as_secs_f64() * 1000.0 / items;
    let client = |v: &[Cost]| ms(v.iter().map(|c| c.client).sum());
    let server = |v: &[Cost]| v.iter().map(|c| c.server).sum::<Option<Duration>>().map(ms);
    let mut out = format!("client library {:.3} / hand {:.3} ms", client(lib), client(hand));
    if let (Some(l), Some(h)) = (server(lib), server(hand)) {
        out.push_str(&format!(", server (DynamoDB Local) library {l:.3} / hand {h:.3} ms"));
    }
    out
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick" || a == "--test");
    let (n, rounds) = if quick { (2_000, 1) } else { (20_000, 3) };
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(4).enable_all().build()?;
    rt.block_on(async {
        let server = LocalDynamoDb::shared().await?;
        let requests = Requests::default();
        let client = aws_sdk_dynamodb::Client::from_conf(
            server.client().config().to_builder().interceptor(requests.clone()).build(),
        );
        if let Ok(side) = std::env::var("BACKFILL_PROFILE") {
            return profile(&client, &requests, &side).await;
        }
        println!("backfill of {n} members, {rounds} round(s), library vs hand-written scan + conditional updates");
        let mut min_ratio = f64::INFINITY;
        for (c, segments) in [1u32, 2, 4, 8].into_iter().enumerate() {
            let (mut lib, mut hand) = (Vec::new(), Vec::new());
            let (mut lib_mem, mut hand_mem) = (0u64, 0u64);
            let (mut lib_sent, mut hand_sent) = (BTreeMap::new(), BTreeMap::new());
            let (mut lib_cost, mut hand_cost) = (Vec::new(), Vec::new());
            let mut order = Vec::new();
            for round in 0..rounds {
                // Which side goes first alternates by round and by concurrency, so that over a
                // run each goes first as often as the other.
                let hand_first = (round + c) % 2 == 0;
                order.push(if hand_first { "hand first" } else { "library first" });
                for library in if hand_first { [false, true] } else { [true, false] } {
                    let (rate, growth, sent, cost) =
                        measure(&client, server.pid(), &requests, n, segments, library).await?;
                    if library {
                        lib.push(rate);
                        lib_mem = lib_mem.max(growth);
                        lib_sent = sent;
                        lib_cost.push(cost);
                    } else {
                        hand.push(rate);
                        hand_mem = hand_mem.max(growth);
                        hand_sent = sent;
                        hand_cost.push(cost);
                    }
                }
            }
            let rounds_text: Vec<String> =
                (0..rounds).map(|r| format!("{:.0} / {:.0} ({})", lib[r], hand[r], order[r])).collect();
            let (l, h) = (median(lib), median(hand));
            let ratio = l / h;
            min_ratio = min_ratio.min(ratio);
            println!(
                "segments={segments} library={l:.0} items/s hand={h:.0} items/s ratio={ratio:.2} peak_growth \
                 library={:.1} MiB hand={:.1} MiB",
                lib_mem as f64 / 1048576.0,
                hand_mem as f64 / 1048576.0
            );
            println!("  items/s by round, library / hand: {}", rounds_text.join(", "));
            println!("  CPU per item, all rounds: {}", cpu_per_item(&lib_cost, &hand_cost, n));
            println!(
                "  requests per item (last round): library={} hand={}",
                per_item(&lib_sent, n),
                per_item(&hand_sent, n)
            );
        }
        println!("ratio min={min_ratio:.2}");
        Res::Ok(())
    })
}

//! End to end against DynamoDB Local: one workload run through the library and through
//! hand-written SDK calls, measuring the client process's CPU time and the wall time of each
//! phase.
//!
//! The workload, on the Skill entity (11 fields, three GSIs), per side and round:
//!
//! | phase | requests |
//! |---|---|
//! | `create` | 10,000 `PutItem` with `attribute_not_exists(PK)`, one at a time |
//! | `get` | 10,000 `GetItem` of those items, decoded |
//! | `query` | 1,000 `Query` of GSI1 (keyed on the items' own `category` / `downloads`: one category, by downloads descending), 20 items each |
//! | `update` | 1,000 `UpdateItem` approving a skill: `status` and `submitted_at` set, the GSI4 key pair rewritten, `ALL_NEW` decoded |
//! | `put` | 10,000 `PutItem` replacing the items, one at a time |
//! | `batch` | 10,000 new items by `BatchWriteItem` (25 a request, 4 in flight) |
//!
//! Each side gets a fresh table per round. Every sequential phase runs in blocks (50 by
//! default: 200 of the 10,000 gets, 20 of the 1,000 queries), the two sides taking turns block
//! by block and the side that goes first alternating by block, phase and round, so that both
//! sides sample the machine at the same times: what else runs on it (DynamoDB Local's JVM
//! included) moves both alike. The batch phase runs whole, once per side and round, its order
//! alternating by round (see `round`). Both sides send requests of the same shape (the same
//! condition expressions, `ReturnValues`, and `ReturnConsumedCapacity = INDEXES`, which the
//! library asks for on every request), so the server does the same work, and every answer is
//! checked. One difference is the point of the library: its writes carry write tokens (exactly
//! once), which the hand-written side does not send. A `put` of a skill with the values it
//! holds changes its token, so DynamoDB rewrites its copy in the indexes that project every
//! attribute, and the answer carries their consumed capacity; the hand-written put changes
//! nothing and gets none (`E2E_NO_TOKENS=1` below measures the library without them).
//!
//! CPU time is the process's user + system time from `getrusage(RUSAGE_SELF)` (every thread,
//! the Tokio runtime's included), differenced around each block; DynamoDB Local runs in another
//! process and is not counted. The lines before the last give each phase per round and in total,
//! with the total's user and system time and context switches (voluntary + involuntary) per
//! request; the last line is
//! `ratio cpu_vs_hand=A wall_vs_hand=B batch_vs_sequential_puts=C <phase>_cpu_vs_hand=...`:
//! library over hand-written for the CPU and wall time summed over all phases and rounds, the
//! library's sequential `put` phase time over its `batch` phase time (same item count), and
//! each phase's CPU ratio.
//!
//! Uses `DYNAMODB_ENDPOINT` when set, otherwise starts DynamoDB Local.
//!
//! `cargo bench -p dynamo-entity-examples --bench e2e` (two rounds, about 3 minutes);
//! `-- --quick` runs 300 / 300 / 30 / 30 / 300 / 300 requests once to check that it works;
//! `-- --rounds N` sets the number of rounds, `-- --blocks N` the blocks of a sequential phase
//! (1: each side runs the whole phase in one go, as before 2026-12-03).
//!
//! For a profiler: `E2E_PROFILE=<phase>` or `hand-<phase>` with `E2E_PROFILE_REQUESTS=N` runs
//! that phase alone, N requests, after a setup that does not depend on N (see `profile`);
//! `E2E_NO_TOKENS=1` runs the library's side without write tokens
//! (`Table::without_write_tokens`), to count what exactly once costs.

use std::collections::HashMap;
use std::future::Future;
use std::ops::Range;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::types::{
    AttributeValue, PutRequest, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure, WriteRequest,
};
use dynamo_entity::{Entity, Item, Table, Timestamp};
use dynamo_entity_examples::skill_exchange::{Skill, SkillId, SkillStatus, UserId, data::CATEGORIES};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use futures::{StreamExt, TryStreamExt};

mod common;
use common::{hand_decode_skill, hand_encode_skill, key1, skill_gsi4pk, status_text};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// How many requests each phase sends.
#[derive(Clone, Copy)]
struct Sizes {
    creates: usize,
    queries: usize,
    updates: usize,
    batch: usize,
}

const FULL: Sizes = Sizes { creates: 10_000, queries: 1_000, updates: 1_000, batch: 10_000 };
const QUICK: Sizes = Sizes { creates: 300, queries: 30, updates: 30, batch: 300 };
/// Items per query page.
const PAGE: usize = 20;
/// `BatchWriteItem` requests in flight, the library's default.
const IN_FLIGHT: usize = 4;

/// Blocks a sequential phase is run in, the sides taking turns (see [`round`]).
const BLOCKS: usize = 50;

const PHASES: [&str; 6] = ["create", "get", "query", "update", "put", "batch"];

/// This process's resource use so far, every thread included: CPU time (user and system) and
/// context switches (voluntary: a thread waited; involuntary: it was preempted).
#[derive(Clone, Copy, Default, Debug)]
struct Usage {
    user: Duration,
    sys: Duration,
    voluntary: u64,
    involuntary: u64,
}

impl Usage {
    fn now() -> Usage {
        // SAFETY: getrusage writes the struct it is given and reads nothing else.
        let mut u: libc::rusage = unsafe { std::mem::zeroed() };
        let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
        assert_eq!(rc, 0, "getrusage failed");
        let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, t.tv_usec as u32 * 1000);
        Usage {
            user: tv(u.ru_utime),
            sys: tv(u.ru_stime),
            voluntary: u.ru_nvcsw as u64,
            involuntary: u.ru_nivcsw as u64,
        }
    }

    fn cpu(&self) -> Duration {
        self.user + self.sys
    }
}

impl std::ops::Sub for Usage {
    type Output = Usage;
    fn sub(self, o: Usage) -> Usage {
        Usage {
            user: self.user - o.user,
            sys: self.sys - o.sys,
            voluntary: self.voluntary - o.voluntary,
            involuntary: self.involuntary - o.involuntary,
        }
    }
}

impl std::ops::AddAssign for Usage {
    fn add_assign(&mut self, o: Usage) {
        self.user += o.user;
        self.sys += o.sys;
        self.voluntary += o.voluntary;
        self.involuntary += o.involuntary;
    }
}

#[derive(Clone, Copy, Default, Debug)]
struct Sample {
    /// User + system CPU time.
    cpu: Duration,
    wall: Duration,
    /// The split of `cpu` and the context switches.
    usage: Usage,
}

impl std::ops::AddAssign for Sample {
    fn add_assign(&mut self, o: Sample) {
        self.cpu += o.cpu;
        self.wall += o.wall;
        self.usage += o.usage;
    }
}

async fn measure<F: Future<Output = Res<()>>>(f: F) -> Res<Sample> {
    let (u0, w0) = (Usage::now(), Instant::now());
    f.await?;
    let (usage, wall) = (Usage::now() - u0, w0.elapsed());
    Ok(Sample { cpu: usage.cpu(), wall, usage })
}

/// The skills of the workload: `prefix` ids, every skill pending review (so that each update
/// moves it in GSI4), downloads distinct so that the GSI1 order is fully determined.
fn make_skills(prefix: char, n: usize) -> Vec<Skill> {
    let base = Timestamp::from_millis(1_767_225_600_000).unwrap_or(Timestamp::EPOCH);
    (0..n)
        .map(|i| Skill {
            id: SkillId(format!("{prefix}{i:06}")),
            title: format!("Skill #{i}: summarize long documents"),
            category: CATEGORIES[i % CATEGORIES.len()].to_owned(),
            seller_id: UserId(format!("u{:04}", i % 200)),
            status: SkillStatus::Pending,
            downloads: (i * 7919 % 100_003) as u64,
            price_cents: 100 * (1 + (i % 50) as u32),
            created_at: base.add_millis(i as i64 * 1000),
            submitted_at: Some(base.add_millis(i as i64 * 1000 + 500)),
            seller_verified: i % 3 == 0,
            tags: (0..i % 3).map(|t| format!("tag{t}")).collect(),
        })
        .collect()
}

/// The top `PAGE` skills of `category` by downloads, as both sides must return them.
fn expected_top(all: &[Skill], category: &str) -> Vec<Skill> {
    let mut v: Vec<Skill> = all.iter().filter(|s| s.category == category).cloned().collect();
    v.sort_by_key(|s| std::cmp::Reverse(s.downloads));
    v.truncate(PAGE);
    v
}

fn approved(s: &Skill, at: Timestamp) -> Skill {
    Skill { status: SkillStatus::Approved, submitted_at: Some(at), ..s.clone() }
}

fn approval_time(i: usize) -> Timestamp {
    Timestamp::from_millis(1_800_000_000_000 + i as i64).unwrap_or(Timestamp::EPOCH)
}

fn check(ok: bool, what: impl FnOnce() -> String) -> Res<()> {
    if ok { Ok(()) } else { Err(what().into()) }
}

// ---------------------------------------------------------------------------------------------
// The library.

async fn lib_phase(phase: &str, t: &Table, w: &Workload, part: Range<usize>) -> Res<()> {
    match phase {
        "create" => {
            for s in &w.skills[part] {
                t.create(s).await?;
            }
        }
        "get" => {
            for s in &w.skills[part] {
                let got = t.get(Skill::key(&s.id)).await?;
                check(got.as_ref() == Some(s), || format!("get {}: {got:?}", s.id.0))?;
            }
        }
        "query" => {
            for q in part {
                let cat = CATEGORIES[q % CATEGORIES.len()];
                let page = t.query(Skill::gsi1(cat)).descending().max_items(PAGE).send().await?;
                check(page.items == w.top[q % CATEGORIES.len()], || format!("query {cat}"))?;
            }
        }
        "update" => {
            for (i, s) in part.clone().zip(&w.skills[part]) {
                let at = approval_time(i);
                let new = t
                    .update(Skill::key(&s.id))
                    .set(Skill::STATUS, &SkillStatus::Approved)
                    .set(Skill::SUBMITTED_AT, &Some(at))
                    .send()
                    .await?;
                check(new == approved(s, at), || format!("update {}", s.id.0))?;
            }
        }
        "put" => {
            for s in &w.skills[part] {
                t.put(s).await?;
            }
        }
        "batch" => {
            let items = &w.batch[part];
            let outcome = t.batch_write().put_all(items).concurrency(IN_FLIGHT).send().await?;
            outcome.check()?;
            check(outcome.written == items.len(), || format!("batch wrote {}", outcome.written))?;
        }
        _ => unreachable!("no phase {phase}"),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Hand-written with the SDK's fluent builders.

fn hand_key(id: &SkillId) -> Item {
    HashMap::from([
        ("PK".to_owned(), AttributeValue::S(key1("SKILL#", &id.0))),
        ("SK".to_owned(), AttributeValue::S("META".to_owned())),
    ])
}

async fn hand_batch(c: &Client, table: &str, chunk: &[Skill]) -> Res<()> {
    let mut writes: Vec<WriteRequest> = chunk
        .iter()
        .map(|s| {
            let put = PutRequest::builder().set_item(Some(hand_encode_skill(s))).build()?;
            Ok(WriteRequest::builder().put_request(put).build())
        })
        .collect::<Res<_>>()?;
    let mut delay = Duration::from_millis(25);
    loop {
        let resp = c
            .batch_write_item()
            .request_items(table, writes)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await?;
        match resp.unprocessed_items.and_then(|mut u| u.remove(table)).filter(|w| !w.is_empty()) {
            None => return Ok(()),
            Some(rest) => {
                writes = rest;
                tokio::time::sleep(delay).await;
                delay = (delay * 2).min(Duration::from_secs(2));
            }
        }
    }
}

async fn hand_phase(phase: &str, c: &Client, table: &str, w: &Workload, part: Range<usize>) -> Res<()> {
    match phase {
        "create" => {
            for s in &w.skills[part] {
                c.put_item()
                    .table_name(table)
                    .set_item(Some(hand_encode_skill(s)))
                    .condition_expression("attribute_not_exists(#pk)")
                    .expression_attribute_names("#pk", "PK")
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .await?;
            }
        }
        "get" => {
            for s in &w.skills[part] {
                let resp = c
                    .get_item()
                    .table_name(table)
                    .set_key(Some(hand_key(&s.id)))
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .await?;
                let got = resp.item.map(|i| hand_decode_skill(&i)).transpose().map_err(|e| format!("{e:?}"))?;
                check(got.as_ref() == Some(s), || format!("get {}: {got:?}", s.id.0))?;
            }
        }
        "query" => {
            for q in part {
                let cat = CATEGORIES[q % CATEGORIES.len()];
                let resp = c
                    .query()
                    .table_name(table)
                    .index_name("GSI1")
                    .key_condition_expression("#cat = :cat")
                    .expression_attribute_names("#cat", "category")
                    .expression_attribute_values(":cat", AttributeValue::S(cat.to_owned()))
                    .scan_index_forward(false)
                    .limit(PAGE as i32)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .await?;
                let items = resp
                    .items
                    .unwrap_or_default()
                    .iter()
                    .map(hand_decode_skill)
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(|e| format!("{e:?}"))?;
                check(items == w.top[q % CATEGORIES.len()], || format!("query {cat}"))?;
            }
        }
        "update" => {
            for (i, s) in part.clone().zip(&w.skills[part]) {
                let at = approval_time(i).to_string();
                let status = status_text(SkillStatus::Approved);
                let resp = c
                    .update_item()
                    .table_name(table)
                    .set_key(Some(hand_key(&s.id)))
                    .update_expression("SET #st = :st, #sub = :sub, #g4pk = :g4pk, #g4sk = :sub")
                    .condition_expression("attribute_exists(#pk) AND #ty = :ty")
                    .expression_attribute_names("#st", "status")
                    .expression_attribute_names("#sub", "submitted_at")
                    .expression_attribute_names("#g4pk", "GSI4PK")
                    .expression_attribute_names("#g4sk", "GSI4SK")
                    .expression_attribute_names("#pk", "PK")
                    .expression_attribute_names("#ty", "_type")
                    .expression_attribute_values(":st", AttributeValue::S(status.to_owned()))
                    .expression_attribute_values(":sub", AttributeValue::S(at))
                    .expression_attribute_values(
                        ":g4pk",
                        AttributeValue::S(skill_gsi4pk(SkillStatus::Approved, &s.id.0)),
                    )
                    .expression_attribute_values(":ty", AttributeValue::S("Skill".to_owned()))
                    .return_values(ReturnValue::AllNew)
                    .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .await?;
                let new = hand_decode_skill(&resp.attributes.unwrap_or_default()).map_err(|e| format!("{e:?}"))?;
                check(new == approved(s, approval_time(i)), || format!("update {}", s.id.0))?;
            }
        }
        "put" => {
            for s in &w.skills[part] {
                c.put_item()
                    .table_name(table)
                    .set_item(Some(hand_encode_skill(s)))
                    .condition_expression("(attribute_not_exists(#pk) OR #ty = :ty)")
                    .expression_attribute_names("#pk", "PK")
                    .expression_attribute_names("#ty", "_type")
                    .expression_attribute_values(":ty", AttributeValue::S("Skill".to_owned()))
                    .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
                    .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                    .send()
                    .await?;
            }
        }
        "batch" => {
            futures::stream::iter(w.batch[part].chunks(25).map(|chunk| hand_batch(c, table, chunk)))
                .buffer_unordered(IN_FLIGHT)
                .try_collect::<Vec<()>>()
                .await?;
        }
        _ => unreachable!("no phase {phase}"),
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------

struct Workload {
    sizes: Sizes,
    skills: Vec<Skill>,
    batch: Vec<Skill>,
    /// Per category index: the expected page of each query.
    top: Vec<Vec<Skill>>,
}

impl Workload {
    fn new(sizes: Sizes) -> Workload {
        let skills = make_skills('s', sizes.creates);
        let top = CATEGORIES.iter().map(|c| expected_top(&skills, c)).collect();
        Workload { sizes, batch: make_skills('b', sizes.batch), skills, top }
    }
}

/// The units of `phase` (skills written or read, queries, updates, batch items).
fn units(phase: &str, w: &Workload) -> usize {
    match phase {
        "create" | "get" | "put" => w.skills.len(),
        "query" => w.sizes.queries,
        "update" => w.sizes.updates,
        _ => w.batch.len(),
    }
}

/// The `k`-th of `blocks` consecutive parts of `0..n` (sizes differing by at most one).
fn block(n: usize, blocks: usize, k: usize) -> Range<usize> {
    n * k / blocks..n * (k + 1) / blocks
}

/// One round: a fresh table per side, every phase run on both sides.
///
/// The sequential phases run in `blocks` blocks (consecutive parts of the phase's requests),
/// the two sides taking turns block by block, the side that goes first alternating by block,
/// phase and round. Each side's sample is the sum over its blocks: every request is the same
/// as in one long run of the phase (the same items, in the same order, on the same table), but
/// both sides now sample the machine at the same times. Run as one half per side (10 to 20
/// seconds each), the same-shape `create` and `put` phases came out anywhere from 0.78 to 1.47
/// in one run, with what else the machine (DynamoDB Local's JVM included) did during one half
/// and not the other (`docs/benchmarks-notebook.md`, "End to end against DynamoDB Local"). The
/// batch phase stays one `BatchWriteItem` run of all its items per side (the library checks
/// and encodes the whole batch before it sends anything, so splitting the batch would change
/// what is measured); its order alternates by round.
///
/// Returns the samples `[phase][0 = library, 1 = hand-written]`.
async fn round(client: &Client, w: &Workload, r: usize, blocks: usize) -> Res<Vec<[Sample; 2]>> {
    let lib = Table::new(client.clone(), unique_table_name("bench-e2e-lib"));
    let hand = Table::new(client.clone(), unique_table_name("bench-e2e-hand"));
    lib.create_table(&[Skill::schema()]).await?;
    hand.create_table(&[Skill::schema()]).await?;
    let mut out = Vec::new();
    for (p, phase) in PHASES.iter().enumerate() {
        let n = units(phase, w);
        let blocks = if *phase == "batch" { 1 } else { blocks.clamp(1, n.max(1)) };
        let mut s = [Sample::default(); 2];
        for k in 0..blocks {
            let part = block(n, blocks, k);
            let lib_first = (r + p + k) % 2 == 0;
            for turn in 0..2 {
                if (turn == 0) == lib_first {
                    s[0] += measure(lib_phase(phase, &lib, w, part.clone())).await?;
                } else {
                    s[1] += measure(hand_phase(phase, client, hand.name(), w, part.clone())).await?;
                }
            }
        }
        out.push(s);
    }
    let _ = lib.delete_table().await;
    let _ = hand.delete_table().await;
    Ok(out)
}

/// Items a profiled phase other than `create` finds in its table (written before it runs): 25
/// a category, so that a query fills its page of 20 and has more after it, as in the workload.
const PROFILE_ITEMS: usize = 200;

/// `E2E_PROFILE=<phase>` (the library) or `E2E_PROFILE=hand-<phase>` (the hand-written code):
/// runs that one phase once with `E2E_PROFILE_REQUESTS=N` requests (default 20; the batch phase
/// writes `25 N` items, N requests) on a fresh table, then exits; for
/// `valgrind --tool=callgrind`, which counts this process only. Before the phase, the same
/// for every N, the table is made, one `GetItem` opens the connection and, for every phase but
/// `create`, [`PROFILE_ITEMS`] skills are written by hand: a run with N = 0 counts this setup,
/// to subtract.
async fn profile(client: &Client, which: &str) -> Res<()> {
    let (hand, phase) = match which.strip_prefix("hand-") {
        Some(p) => (true, p),
        None => (false, which),
    };
    if !PHASES.contains(&phase) {
        return Err(format!("E2E_PROFILE: no phase {phase:?} (one of {PHASES:?}, or hand-<phase>)").into());
    }
    let n: usize = std::env::var("E2E_PROFILE_REQUESTS").ok().map(|n| n.parse::<usize>()).transpose()?.unwrap_or(20);
    let stored = make_skills('s', PROFILE_ITEMS);
    let table = Table::new(client.clone(), unique_table_name("bench-e2e-profile"));
    table.create_table(&[Skill::schema()]).await?;
    client.get_item().table_name(table.name()).set_key(Some(hand_key(&SkillId("none".to_owned())))).send().await?;
    if phase != "create" {
        for s in &stored {
            client.put_item().table_name(table.name()).set_item(Some(hand_encode_skill(s))).send().await?;
        }
    }
    let sizes = Sizes { creates: n, queries: n, updates: n, batch: 25 * n };
    let skills: Vec<Skill> = stored.iter().cycle().take(n).cloned().collect();
    let top = CATEGORIES.iter().map(|c| expected_top(&stored, c)).collect();
    let w = Workload { sizes, skills, batch: make_skills('b', sizes.batch), top };
    let all = 0..units(phase, &w);
    // `E2E_NO_TOKENS=1`: the library's side without write tokens, to count what they cost.
    let lib = match std::env::var_os("E2E_NO_TOKENS") {
        Some(_) => table.without_write_tokens(),
        None => table.clone(),
    };
    let done = if hand {
        hand_phase(phase, client, table.name(), &w, all).await
    } else {
        lib_phase(phase, &lib, &w, all).await
    };
    let _ = table.delete_table().await;
    done
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn requests(phase: &str, s: Sizes) -> usize {
    match phase {
        "create" | "get" | "put" => s.creates,
        "query" => s.queries,
        "update" => s.updates,
        _ => s.batch.div_ceil(25),
    }
}

#[tokio::main]
async fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick" || a == "--test");
    let number = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).map(|n| n.parse());
    let rounds = number("--rounds").transpose()?.unwrap_or(if quick { 1 } else { 2 });
    let blocks = number("--blocks").transpose()?.unwrap_or(BLOCKS);
    let sizes = if quick { QUICK } else { FULL };

    let server = LocalDynamoDb::shared().await?;
    let client = server.client();
    if let Ok(phase) = std::env::var("E2E_PROFILE") {
        return profile(&client, &phase).await;
    }
    println!("DynamoDB at {}; {rounds} round(s), {blocks} blocks a phase", server.endpoint());

    // Warm-up: DynamoDB Local's JVM compiles its hot paths on the first requests, and the
    // client opens its connections.
    round(&client, &Workload::new(QUICK), 1, blocks).await?;

    let w = Workload::new(sizes);
    let mut total = vec![[Sample::default(); 2]; PHASES.len()];
    for r in 0..rounds {
        let samples = round(&client, &w, r, blocks).await?;
        for (p, s) in samples.iter().enumerate() {
            let n = requests(PHASES[p], sizes) as f64;
            println!(
                "round {} {:<6} library cpu {:8.1} ms wall {:8.1} ms | hand cpu {:8.1} ms wall {:8.1} ms | \
                 cpu per request {:6.1} / {:6.1} us | cpu_vs_hand={:.3} wall_vs_hand={:.3}",
                r + 1,
                PHASES[p],
                ms(s[0].cpu),
                ms(s[0].wall),
                ms(s[1].cpu),
                ms(s[1].wall),
                ms(s[0].cpu) * 1000.0 / n,
                ms(s[1].cpu) * 1000.0 / n,
                s[0].cpu.as_secs_f64() / s[1].cpu.as_secs_f64(),
                s[0].wall.as_secs_f64() / s[1].wall.as_secs_f64(),
            );
            total[p][0] += s[0];
            total[p][1] += s[1];
        }
    }
    let mut sum = [Sample::default(); 2];
    let mut per_phase = String::new();
    for (p, s) in total.iter().enumerate() {
        println!(
            "total   {:<6} library cpu {:8.1} ms wall {:8.1} ms | hand cpu {:8.1} ms wall {:8.1} ms",
            PHASES[p],
            ms(s[0].cpu),
            ms(s[0].wall),
            ms(s[1].cpu),
            ms(s[1].wall)
        );
        let n = (requests(PHASES[p], sizes) * rounds) as f64;
        let per = |u: &Usage| {
            format!(
                "user {:6.1} sys {:6.1} us, switches {:5.2} + {:5.2}",
                ms(u.user) * 1000.0 / n,
                ms(u.sys) * 1000.0 / n,
                u.voluntary as f64 / n,
                u.involuntary as f64 / n
            )
        };
        println!(
            "        {:<6} per request: library {} | hand {} | user_vs_hand={:.3} sys_vs_hand={:.3}",
            PHASES[p],
            per(&s[0].usage),
            per(&s[1].usage),
            s[0].usage.user.as_secs_f64() / s[1].usage.user.as_secs_f64(),
            s[0].usage.sys.as_secs_f64() / s[1].usage.sys.as_secs_f64(),
        );
        per_phase.push_str(&format!(
            " {}_cpu_vs_hand={:.3}",
            PHASES[p],
            s[0].cpu.as_secs_f64() / s[1].cpu.as_secs_f64()
        ));
        sum[0] += s[0];
        sum[1] += s[1];
    }
    let idx = |name: &str| PHASES.iter().position(|p| *p == name).unwrap_or(0);
    let (put, batch) = (total[idx("put")][0].wall, total[idx("batch")][0].wall);
    println!(
        "ratio cpu_vs_hand={:.3} wall_vs_hand={:.3} batch_vs_sequential_puts={:.2}{per_phase}",
        sum[0].cpu.as_secs_f64() / sum[1].cpu.as_secs_f64(),
        sum[0].wall.as_secs_f64() / sum[1].wall.as_secs_f64(),
        put.as_secs_f64() / batch.as_secs_f64(),
    );
    Ok(())
}

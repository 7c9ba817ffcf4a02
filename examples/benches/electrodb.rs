//! Side by side with ElectroDB 3: the same 12-attribute entity declared in both, written (a
//! complete `PutItem` input) and read back (from the item as the SDK returns it), each timed in
//! its own language, in one run.
//!
//! * The entity: `Listing`, a marketplace listing shaped like Skill Exchange's `Skill` (the same
//!   kinds of fields and keys) with twelve fields: `LISTING#<id>` / `META`, GSI1
//!   `CAT#<category>` / `<downloads>` (a number), GSI2 `SELLER#<seller_id>` / `<created_at>`,
//!   GSI3 `STATUS#<status>` / `<created_at>`, an optional `submitted_at` (absent when `None`),
//!   a renamed field (`sellerVerified`) and a list of strings. Skill itself cannot be declared
//!   in ElectroDB so that both write the same item: its GSI4 key carries a write shard computed
//!   from the id (ElectroDB would have to store it as an attribute of its own) and is sparse
//!   (ElectroDB writes `GSI4PK` without `GSI4SK` for a draft, or refuses the value with an index
//!   `condition`).
//! * ElectroDB (`examples/benches/electrodb/bench.cjs`, Node): `entity.put(value).params()` then
//!   `marshall` of its `Item` (@aws-sdk/util-dynamodb), what a user of the low-level client or of
//!   @aws-sdk/lib-dynamodb runs before the request is sent; and `unmarshall` then
//!   `entity.parse({ Item })` of a stored item.
//! * This library: `table.render().put(&value)`, the complete `PutItemInput` built by the code
//!   that sends it (the item, the condition that no item of another entity type has the key,
//!   `ReturnValuesOnConditionCheckFailure`, `ReturnConsumedCapacity`); and
//!   `Listing::from_item(&item)`.
//!
//! Before timing, the benchmark checks that both write the same item for each of its 32 values
//! (every key string and attribute, compared as `AttributeValue`s) and parse the same values
//! back; any difference fails the run. ElectroDB's item has one attribute more, its model
//! version `__edb_v__ = "1"`, which it always writes (the library's item has none): that one is
//! checked and then left out of the comparison. ElectroDB's entity name goes to `_type`, the
//! library's entity type attribute (`setIdentifier("entity", "_type")`).
//!
//! Both sides time the same way: warm-up, then rounds that run each measured pass (one call per
//! value) in turn, the order rotating, for about 40 ms each (10 in quick mode); the figures are
//! medians of CPU time per call (this thread's for Rust; the process's for Node, so V8's
//! garbage-collector threads count), with wall-time medians beside them. Printed: ElectroDB's line
//! (`electrodb put_us=… put_params_us=… marshall_us=… decode_us=… unmarshall_us=… parse_us=…`, µs
//! per call), the library's (`library put_us=… put_direct_us=… to_item_us=… decode_us=…`: besides
//! the rendered put, the same input built from the derived item with the SDK's
//! `PutItemInput::builder()`, and the derived `to_item` alone), the same three for Skill Exchange's
//! `Skill` for reference, the ElectroDB ratio of the directly built input (`floor
//! put_direct_vs_electrodb=…`), and last `ratio put_vs_electrodb=A decode_vs_electrodb=B`:
//! ElectroDB's time over the library's (how many times faster the library is).
//!
//! The Node packages, pinned in `examples/benches/electrodb/package.json` and
//! `package-lock.json`, are installed by the benchmark when missing (`npm ci`, from the npm
//! registry) into `${XDG_CACHE_HOME:-~/.cache}/dynamo-entity/electrodb-3.9.3` (or
//! `$ELECTRODB_HOME`); nothing is fetched at run time after that. Node 18 or later must be on
//! the `PATH`.
//!
//! `cargo bench -p dynamo-entity-examples --bench electrodb` (add `-- --quick` for a run of a
//! few seconds that checks that it works and that both sides agree).
//!
//! `ELECTRODB_PROFILE=put|put-direct|to-item|decode|skill-put`: only run that part of the
//! library's side for 5 s, then exit, for a profiler (`perf record --call-graph dwarf`).

use std::collections::HashMap;
use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use aws_sdk_dynamodb::operation::put_item::PutItemInput;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity, ReturnValuesOnConditionCheckFailure};
use dynamo_entity::{Entity, Item, KeyPart, Table, Timestamp};
use dynamo_entity_examples::skill_exchange::{Dataset, Sizes, Skill, SkillStatus};
use serde_json::{Value, json};

mod common;
use common::thread_cpu;

/// The ElectroDB release `package.json` pins (checked against what Node loads).
const ELECTRODB_VERSION: &str = "3.9.3";
const TABLE: &str = "skill-exchange";
/// Values measured, each pass one call per value.
const N: usize = 32;

/// Where a listing is in moderation.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
enum ListingStatus {
    Draft,
    Pending,
    Approved,
}

/// The benchmark's entity: twelve fields, four key pairs (declared the same way in
/// `electrodb/bench.cjs`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "LISTING#<id>",
    sk = "META",
    gsi1 = "CAT#<category>",
    gsi1_sk = "<downloads>",
    gsi2 = "SELLER#<seller_id>",
    gsi2_sk = "<created_at>",
    gsi3 = "STATUS#<status>",
    gsi3_sk = "<created_at>"
)]
struct Listing {
    id: String,
    title: String,
    summary: String,
    category: String,
    seller_id: String,
    status: ListingStatus,
    downloads: u64,
    price_cents: u32,
    created_at: Timestamp,
    submitted_at: Option<Timestamp>,
    #[entity(rename = "sellerVerified")]
    seller_verified: bool,
    tags: Vec<String>,
}

fn status_text(s: ListingStatus) -> &'static str {
    match s {
        ListingStatus::Draft => "draft",
        ListingStatus::Pending => "pending",
        ListingStatus::Approved => "approved",
    }
}

/// The value as an ElectroDB user passes it to `put` (and gets it back from `parse`).
fn js_value(l: &Listing) -> Value {
    let mut v = json!({
        "id": l.id,
        "title": l.title,
        "summary": l.summary,
        "category": l.category,
        "seller_id": l.seller_id,
        "status": status_text(l.status),
        "downloads": l.downloads,
        "price_cents": l.price_cents,
        "created_at": l.created_at.to_string(),
        "seller_verified": l.seller_verified,
        "tags": l.tags,
    });
    if let Some(t) = l.submitted_at {
        v["submitted_at"] = Value::String(t.to_string());
    }
    v
}

/// An attribute value in DynamoDB's JSON form (`{"S": "..."}`), as `marshall` returns it.
fn attribute(v: &Value) -> AttributeValue {
    let (kind, inner) = v.as_object().and_then(|m| m.iter().next()).unwrap_or_else(|| panic!("not an attribute: {v}"));
    let text = || inner.as_str().unwrap_or_else(|| panic!("{kind} of a non-string: {v}")).to_owned();
    let texts = || inner.as_array().expect("a set").iter().map(|x| x.as_str().expect("text").to_owned()).collect();
    match kind.as_str() {
        "S" => AttributeValue::S(text()),
        "N" => AttributeValue::N(text()),
        "BOOL" => AttributeValue::Bool(inner.as_bool().expect("a boolean")),
        "NULL" => AttributeValue::Null(true),
        "L" => AttributeValue::L(inner.as_array().expect("a list").iter().map(attribute).collect()),
        "M" => AttributeValue::M(item(inner)),
        "SS" => AttributeValue::Ss(texts()),
        "NS" => AttributeValue::Ns(texts()),
        other => panic!("unexpected attribute type {other} in {v}"),
    }
}

fn item(v: &Value) -> Item {
    v.as_object().expect("an item").iter().map(|(k, v)| (k.clone(), attribute(v))).collect()
}

fn sorted(item: &Item) -> Vec<(&String, &AttributeValue)> {
    let mut v: Vec<_> = item.iter().collect();
    v.sort_by(|a, b| a.0.cmp(b.0));
    v
}

// ---------------------------------------------------------------------------------------------
// This library's side.

/// The complete `PutItem` input, rendered by the code that sends it.
fn lib_put<E: Entity>(t: &Table, value: &E) -> PutItemInput {
    let mut requests = t.render().put(value).expect("renders");
    requests.pop().and_then(|r| r.into_put_item()).expect("one PutItem")
}

/// The same input built the cheapest way: the derived item and the SDK's input builder
/// directly (no fluent builder, no copy of the input); for the breakdown of `lib_put`.
fn direct_put<E: Entity>(value: &E) -> PutItemInput {
    PutItemInput::builder()
        .table_name(TABLE)
        .set_item(Some(value.to_item().expect("encodes")))
        .condition_expression("(attribute_not_exists(#n0) OR #n1 = :v0)")
        .set_expression_attribute_names(Some(HashMap::from([
            ("#n0".to_owned(), "PK".to_owned()),
            ("#n1".to_owned(), "_type".to_owned()),
        ])))
        .set_expression_attribute_values(Some(HashMap::from([(
            ":v0".to_owned(),
            AttributeValue::S(E::TYPE.to_owned()),
        )])))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .build()
        .expect("builds")
}

/// Medians (ns per call: thread CPU time, wall time) of each pass, timed as `bench.cjs` times
/// ElectroDB: a warm-up of `warmup` per pass that also sets how many passes fill a `slice`,
/// then `rounds` rounds running every pass in turn, the order rotating.
fn measure(
    passes: &mut [(&str, &mut dyn FnMut())],
    rounds: usize,
    slice: Duration,
    warmup: Duration,
) -> Vec<(f64, f64)> {
    let calls: Vec<usize> = passes
        .iter_mut()
        .map(|(_, pass)| {
            let start = Instant::now();
            let mut n = 0usize;
            while start.elapsed() < warmup {
                pass();
                n += 1;
            }
            ((n as f64 * slice.as_secs_f64() / start.elapsed().as_secs_f64()).ceil() as usize).max(1)
        })
        .collect();
    let mut cpu = vec![Vec::with_capacity(rounds); passes.len()];
    let mut wall = vec![Vec::with_capacity(rounds); passes.len()];
    for r in 0..rounds {
        for k in 0..passes.len() {
            let i = (k + r) % passes.len();
            let pass = &mut passes[i].1;
            let (c0, w0) = (thread_cpu(), Instant::now());
            for _ in 0..calls[i] {
                pass();
            }
            let per = (calls[i] * N) as f64;
            wall[i].push(w0.elapsed().as_nanos() as f64 / per);
            cpu[i].push((thread_cpu() - c0).as_nanos() as f64 / per);
        }
    }
    cpu.iter_mut().zip(&mut wall).map(|(c, w)| (median(c), median(w))).collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) / 2.0 }
}

// ---------------------------------------------------------------------------------------------
// ElectroDB's side: installing it and running it.

/// The directory the pinned Node packages are installed into.
fn electrodb_home() -> PathBuf {
    if let Some(home) = std::env::var_os("ELECTRODB_HOME") {
        return home.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").expect("HOME or XDG_CACHE_HOME must be set")).join(".cache")
    });
    cache.join("dynamo-entity").join(format!("electrodb-{ELECTRODB_VERSION}"))
}

/// Installs `src`'s `package.json` / `package-lock.json` into `home` with `npm ci` unless this
/// exact pair is installed there already (a stamp file named by their hash).
fn install(src: &Path, home: &Path) {
    let read =
        |name: &str| std::fs::read(src.join(name)).unwrap_or_else(|e| panic!("{}: {e}", src.join(name).display()));
    let (package, lock) = (read("package.json"), read("package-lock.json"));
    let hash = package
        .iter()
        .chain(&lock)
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3));
    let stamp = home.join(format!(".installed-{hash:016x}"));
    if stamp.exists() && home.join("node_modules/electrodb/package.json").exists() {
        return;
    }
    eprintln!("electrodb: installing electrodb {ELECTRODB_VERSION} and the AWS SDK packages into {}", home.display());
    std::fs::create_dir_all(home).unwrap_or_else(|e| panic!("{}: {e}", home.display()));
    std::fs::write(home.join("package.json"), &package).expect("writes package.json");
    std::fs::write(home.join("package-lock.json"), &lock).expect("writes package-lock.json");
    let status = Command::new("npm")
        .args(["ci", "--no-audit", "--no-fund", "--ignore-scripts", "--loglevel=error"])
        .current_dir(home)
        .stdout(Stdio::null())
        .status()
        .unwrap_or_else(|e| panic!("cannot run npm (Node 18 or later with npm is needed): {e}"));
    assert!(status.success(), "npm ci failed in {} ({status})", home.display());
    std::fs::write(&stamp, b"").expect("writes the install stamp");
}

/// What `bench.cjs` reports: the items and values it produced, and its figures (µs per call).
struct ElectroDb {
    items: Vec<Item>,
    parsed: Vec<Value>,
    figures: HashMap<String, f64>,
}

fn run_electrodb(values: &[Value], quick: bool) -> ElectroDb {
    let src = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/benches/electrodb"));
    let home = electrodb_home();
    install(src, &home);
    let dir = std::env::temp_dir();
    let input = dir.join(format!("dynamo-entity-electrodb-{}-in.json", std::process::id()));
    let output = dir.join(format!("dynamo-entity-electrodb-{}-out.json", std::process::id()));
    std::fs::write(&input, json!({ "values": values }).to_string()).expect("writes the values for Node");
    let mut cmd = Command::new("node");
    cmd.arg(src.join("bench.cjs")).arg(&home).arg(&input).arg(&output);
    if quick {
        cmd.arg("--quick");
    }
    let out = cmd.stderr(Stdio::inherit()).output().unwrap_or_else(|e| panic!("cannot run node: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    print!("{stdout}");
    assert!(out.status.success(), "bench.cjs failed ({})", out.status);
    let text = std::fs::read_to_string(&output).expect("bench.cjs wrote its output");
    let _ = (std::fs::remove_file(&input), std::fs::remove_file(&output));
    let result: Value = serde_json::from_str(&text).expect("bench.cjs's output is JSON");
    assert_eq!(result["electrodb"], ELECTRODB_VERSION, "Node loaded another ElectroDB than package.json pins");
    let line = stdout.lines().rfind(|l| l.starts_with("electrodb put_us=")).expect("bench.cjs printed its figures");
    let figures = line
        .split_whitespace()
        .skip(1)
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("key=value");
            (k.to_owned(), v.parse().unwrap_or_else(|_| panic!("{kv}: not a number")))
        })
        .collect();
    ElectroDb {
        items: result["items"].as_array().expect("items").iter().map(item).collect(),
        parsed: result["parsed"].as_array().expect("parsed").clone(),
        figures,
    }
}

// ---------------------------------------------------------------------------------------------

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .build();
    let table = Table::new(Client::from_conf(config), TABLE);

    // 32 listings from the Skill Exchange data: drafts (no `submitted_at`) among them.
    let data = Dataset::generate(7, Sizes::SMALL);
    let listings: Vec<Listing> = data
        .skills
        .iter()
        .take(N)
        .map(|s| Listing {
            id: s.id.0.clone(),
            title: s.title.clone(),
            summary: format!("{} in {}, by {}: {} tags", s.title, s.category, s.seller_id.0, s.tags.len()),
            category: s.category.clone(),
            seller_id: s.seller_id.0.clone(),
            status: match s.status {
                SkillStatus::Draft => ListingStatus::Draft,
                SkillStatus::Pending => ListingStatus::Pending,
                SkillStatus::Approved => ListingStatus::Approved,
            },
            downloads: s.downloads,
            price_cents: s.price_cents,
            created_at: s.created_at,
            submitted_at: s.submitted_at,
            seller_verified: s.seller_verified,
            tags: s.tags.clone(),
        })
        .collect();
    assert!(listings.iter().any(|l| l.submitted_at.is_none()), "some values leave out submitted_at");
    let items: Vec<Item> = listings.iter().map(|l| l.to_item().expect("encodes")).collect();
    for (l, i) in listings.iter().zip(&items) {
        let rendered = lib_put(&table, l);
        assert_eq!(rendered.item(), Some(i), "the rendered PutItem carries the derived item");
        assert_eq!(rendered, direct_put(l), "the rendered and the directly built PutItem of {}", l.id);
        assert_eq!(&Listing::from_item(i).expect("decodes"), l);
    }
    // Skill Exchange's Skill itself, for reference (not compared with ElectroDB): the same three
    // ways of building its PutItem.
    let skills: Vec<Skill> = data.skills.iter().take(N).cloned().collect();
    for s in &skills {
        assert_eq!(lib_put(&table, s), direct_put(s), "the rendered and the directly built PutItem of {}", s.id.0);
    }

    if let Ok(part) = std::env::var("ELECTRODB_PROFILE") {
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            for ((l, i), s) in listings.iter().zip(&items).zip(&skills) {
                match part.as_str() {
                    "put" => drop(black_box(lib_put(&table, l))),
                    "put-direct" => drop(black_box(direct_put(l))),
                    "to-item" => drop(black_box(l.to_item())),
                    "decode" => drop(black_box(Listing::from_item(i))),
                    "skill-put" => drop(black_box(lib_put(&table, s))),
                    other => panic!("ELECTRODB_PROFILE={other}: put, put-direct, to-item, decode or skill-put"),
                }
            }
        }
        return;
    }

    // ElectroDB first: its items and values are checked before anything is timed here.
    let values: Vec<Value> = listings.iter().map(js_value).collect();
    let edb = run_electrodb(&values, quick);
    assert_eq!(edb.items.len(), N, "ElectroDB wrote one item per value");
    for ((l, mine), theirs) in listings.iter().zip(&items).zip(&edb.items) {
        let mut theirs = theirs.clone();
        let version = theirs.remove("__edb_v__");
        assert_eq!(version, Some(AttributeValue::S("1".to_owned())), "ElectroDB's version attribute of {}", l.id);
        if &theirs != mine {
            eprintln!("library:   {:?}", sorted(mine));
            eprintln!("electrodb: {:?}", sorted(&theirs));
            panic!("ElectroDB and this library write different items for listing {}", l.id);
        }
        // The library reads ElectroDB's item too (its extra attribute is ignored).
        let mut stored = theirs;
        stored.insert("__edb_v__".to_owned(), AttributeValue::S("1".to_owned()));
        assert_eq!(&Listing::from_item(&stored).expect("decodes ElectroDB's item"), l);
    }
    for (v, parsed) in values.iter().zip(&edb.parsed) {
        assert_eq!(parsed, v, "ElectroDB parses back another value");
    }
    println!("items: identical for the {N} values (ElectroDB's __edb_v__ aside); values parsed back alike");

    let (rounds, slice, warmup) = if quick {
        (7, Duration::from_millis(10), Duration::from_millis(150))
    } else {
        (30, Duration::from_millis(40), Duration::from_millis(1500))
    };
    let mut put = || listings.iter().for_each(|l| drop(black_box(lib_put(&table, l))));
    let mut put_direct = || listings.iter().for_each(|l| drop(black_box(direct_put(l))));
    let mut to_item = || listings.iter().for_each(|l| drop(black_box(l.to_item())));
    let mut decode = || items.iter().for_each(|i| drop(black_box(Listing::from_item(i))));
    let mut skill_put = || skills.iter().for_each(|s| drop(black_box(lib_put(&table, s))));
    let mut skill_direct = || skills.iter().for_each(|s| drop(black_box(direct_put(s))));
    let mut skill_to_item = || skills.iter().for_each(|s| drop(black_box(s.to_item())));
    let t = measure(
        &mut [
            ("put", &mut put),
            ("put_direct", &mut put_direct),
            ("to_item", &mut to_item),
            ("decode", &mut decode),
            ("skill_put", &mut skill_put),
            ("skill_put_direct", &mut skill_direct),
            ("skill_to_item", &mut skill_to_item),
        ],
        rounds,
        slice,
        warmup,
    );
    let us = |ns: f64| ns / 1000.0;
    println!(
        "library put_us={:.3} put_direct_us={:.3} to_item_us={:.3} decode_us={:.3} put_wall_us={:.3} \
         decode_wall_us={:.3}",
        us(t[0].0),
        us(t[1].0),
        us(t[2].0),
        us(t[3].0),
        us(t[0].1),
        us(t[3].1)
    );
    println!(
        "skill put_us={:.3} put_direct_us={:.3} to_item_us={:.3} (Skill Exchange's Skill, for reference)",
        us(t[4].0),
        us(t[5].0),
        us(t[6].0)
    );
    let fig = |k: &str| *edb.figures.get(k).unwrap_or_else(|| panic!("bench.cjs did not report {k}"));
    println!(
        "floor put_direct_vs_electrodb={:.1} (the same input built from the derived item directly)",
        fig("put_us") / us(t[1].0)
    );
    println!(
        "ratio put_vs_electrodb={:.1} decode_vs_electrodb={:.1}",
        fig("put_us") / us(t[0].0),
        fig("decode_us") / us(t[3].0)
    );
}

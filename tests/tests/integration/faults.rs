//! The Skill Exchange workload (load the data set, then every access pattern, its checks
//! included) through an SDK client whose HTTP layer injects a fault into 30% of the requests
//! ([`dynamo_entity_local::fault`]): throttling (`ThrottlingException`,
//! `ProvisionedThroughputExceededException`), HTTP 500 (`InternalServerError`, and for
//! `BatchWriteItem`, whose puts are idempotent, and for `TransactWriteItems`, which the SDK
//! retries with the same `ClientRequestToken`, a 500 after the server applied the request) and
//! `UnprocessedItems` / `UnprocessedKeys` for batches.
//!
//! The same workload runs on a second table through a client without faults (the reference).
//! Afterwards both tables are read through clean clients and must hold the same items, attribute
//! for attribute: every write landed exactly once and every counter is exact. Nothing panics,
//! and the retries are bounded (10 attempts a request in the SDK, 8 for an unprocessed batch
//! entry in the library) and reported: requests, faults by kind, extra requests.
//!
//! The default size is 100 users, 400 skills, 600 reviews and 2,000 purchases (a few hundred
//! requests); `FAULTS_FULL=1` runs the example's full data set (200 users, 1,000 skills, 2,000
//! reviews, 5,000 purchases), see BENCHMARKS.md, "Reliability":
//!
//! ```text
//! FAULTS_FULL=1 cargo test --release -p dynamo-entity-tests --test integration -- --nocapture faults::
//! ```

use crate::common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition};
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Item, Table};
use dynamo_entity_examples::skill_exchange::{self, Dataset, Sizes};
use dynamo_entity_local::fault::{Fault, FaultCounts, FaultInjector, FaultRule, Injected, Pick};

/// The share of requests that get a fault.
const RATE: f64 = 0.30;

/// Adds rules so that each request of `operation` gets one of `faults` with the given shares
/// (summing to the fault rate): a rule fires with its share of what the rules before it left.
fn add_group(injector: &FaultInjector, operation: &str, faults: &[(Fault, f64)]) {
    let mut left = 1.0;
    for (fault, share) in faults {
        injector.add(FaultRule::new(fault.clone()).on(operation).rate(share / left));
        left -= share;
    }
}

fn thirty_percent(injector: &FaultInjector) {
    use Fault::*;
    add_group(
        injector,
        "BatchWriteItem",
        &[
            (Unprocessed(Pick::Rate(0.5)), 0.10),
            (Throttling, 0.05),
            (ProvisionedThroughputExceeded, 0.05),
            (InternalServerError, 0.05),
            (InternalServerErrorAfterApplying, 0.05),
        ],
    );
    add_group(
        injector,
        "BatchGetItem",
        &[(Unprocessed(Pick::Rate(0.5)), 0.10), (Throttling, 0.10), (InternalServerError, 0.10)],
    );
    // A transaction applied and then answered with a 500 is retried by the SDK with the same
    // `ClientRequestToken`, which DynamoDB answers as the first success without applying it again.
    add_group(
        injector,
        "TransactWriteItems",
        &[
            (Throttling, 0.10),
            (ProvisionedThroughputExceeded, 0.05),
            (InternalServerError, 0.10),
            (InternalServerErrorAfterApplying, 0.05),
        ],
    );
    for operation in ["GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "TransactGetItems"] {
        add_group(
            injector,
            operation,
            &[(Throttling, 0.10), (ProvisionedThroughputExceeded, 0.05), (InternalServerError, 0.15)],
        );
    }
}

/// A table named like `plain` whose client goes through `injector`, with the SDK's standard
/// retry mode at 10 attempts a request and short backoffs. The client has a retry partition
/// (and so a retry quota, the SDK's default token bucket) of its own, so the faulted run's
/// retries draw on no other client's quota.
fn through(injector: &FaultInjector, plain: &Table, name: &str, partition: &'static str) -> Table {
    let config = injector
        .config_builder(plain.client().config())
        .retry_config(
            RetryConfig::standard()
                .with_max_attempts(10)
                .with_initial_backoff(Duration::from_millis(2))
                .with_max_backoff(Duration::from_millis(50)),
        )
        .retry_partition(RetryPartition::new(partition))
        .build();
    Table::new(aws_sdk_dynamodb::Client::from_conf(config), name)
}

/// Every item of the table by its key, read with strongly consistent scans through `table`'s
/// (clean) client.
async fn contents(table: &Table) -> BTreeMap<String, Item> {
    let mut items = BTreeMap::new();
    for item in common::scan_all(table).await {
        let key = dynamo_entity::schema::describe_key(&item);
        assert!(items.insert(key.clone(), item).is_none(), "{key} scanned twice");
    }
    items
}

/// Requests per operation.
fn per_operation(injector: &FaultInjector) -> BTreeMap<String, (u64, u64)> {
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for r in injector.requests() {
        let e = out.entry(r.operation).or_default();
        e.0 += 1;
        e.1 += u64::from(r.injected.is_some());
    }
    out
}

async fn workload(table: &Table, data: &Dataset) -> usize {
    skill_exchange::scenario::load(table, data, 16).await.expect("the data set loads");
    skill_exchange::run(table, data).await.expect("every access pattern answers as the data set says").len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_workload_at_a_30_percent_fault_rate_writes_everything_exactly_once() {
    let full = std::env::var("FAULTS_FULL").is_ok_and(|v| v == "1");
    // The default size makes a few hundred requests, enough for every fault kind to occur.
    let sizes = if full { Sizes::FULL } else { Sizes { users: 100, skills: 400, reviews: 600, purchases: 2000 } };
    let data = Dataset::generate(42, sizes);

    // The reference: the same workload through a client that injects nothing (the injector
    // only counts its requests).
    let reference_plain = common::table("faults_reference", &skill_exchange::schemas()).await;
    let counter = FaultInjector::new(0);
    let reference = through(&counter, &reference_plain, reference_plain.name(), "faults-reference");
    let started = Instant::now();
    let patterns = workload(&reference, &data).await;
    let reference_time = started.elapsed();

    // The same workload with 30% of the requests faulted.
    let plain = common::table("faults", &skill_exchange::schemas()).await;
    let injector = FaultInjector::new(30);
    thirty_percent(&injector);
    let faulty = through(&injector, &plain, plain.name(), "faults-30");
    let started = Instant::now();
    assert_eq!(workload(&faulty, &data).await, patterns);
    let faulty_time = started.elapsed();
    injector.clear_rules();

    // Both tables, read through clean clients: the same items, attribute for attribute, except
    // the time the nightly job stamps on the badges it awards.
    let mut expect = contents(&reference_plain).await;
    let mut got = contents(&plain).await;
    for items in [&mut expect, &mut got] {
        for item in items.values_mut() {
            if dynamo_entity::collection::type_of(item) == Some("Badge") {
                item.remove("awarded_at");
            }
        }
    }
    let missing: Vec<&String> = expect.keys().filter(|k| !got.contains_key(*k)).collect();
    let extra: Vec<&String> = got.keys().filter(|k| !expect.contains_key(*k)).collect();
    assert!(missing.is_empty() && extra.is_empty(), "missing {missing:?}, extra {extra:?}");
    for (key, item) in &expect {
        assert_eq!(&got[key], item, "{key} differs from the reference");
    }
    // The counters, as the data set and the one purchase the patterns add say.
    let n = |item: &Item, name: &str| match item.get(name) {
        Some(AttributeValue::N(n)) => n.parse::<u64>().expect("a counter"),
        other => panic!("{name} is {other:?}"),
    };
    let of_type = |t: &'static str| got.values().filter(move |i| dynamo_entity::collection::type_of(i) == Some(t));
    let downloads: u64 = of_type("Skill").map(|i| n(i, "downloads")).sum();
    let sales: u64 = of_type("User").map(|i| n(i, "sales")).sum();
    let purchases = of_type("Purchase").count() as u64;
    assert_eq!(
        (downloads, sales, purchases),
        (sizes.purchases as u64 + 1, sizes.purchases as u64 + 1, sizes.purchases as u64 + 1)
    );
    assert_eq!(of_type("_unique").count(), data.users.len(), "one e-mail guard per user");

    // The figures.
    let counts: FaultCounts = injector.counts();
    let clean = counter.counts();
    let by_op = per_operation(&injector);
    let clean_by_op = per_operation(&counter);
    let records = injector.requests();
    let kind = |k: fn(&Injected) -> bool| records.iter().filter(|r| r.injected.as_ref().is_some_and(k)).count();
    let after_applying = kind(|k| matches!(k, Injected::InternalServerErrorAfterApplying));
    let transactions_after_applying = records
        .iter()
        .filter(|r| {
            r.operation == "TransactWriteItems"
                && matches!(r.injected, Some(Injected::InternalServerErrorAfterApplying))
        })
        .count();
    println!(
        "faults ({}): {} items; reference run {:.2} s, faulty run {:.2} s",
        if full { "full" } else { "default" },
        got.len(),
        reference_time.as_secs_f64(),
        faulty_time.as_secs_f64()
    );
    println!(
        "  requests {} (reference {}), faulted {} ({:.1}%): throttling {}, provisioned throughput exceeded {}, \
         HTTP 500 {} (of which {after_applying} after applying, {transactions_after_applying} of them to a \
         transaction), unprocessed responses {} ({} entries)",
        counts.requests,
        clean.requests,
        counts.faults(),
        100.0 * counts.faults() as f64 / counts.requests as f64,
        counts.throttling,
        counts.provisioned_throughput_exceeded,
        counts.server_errors,
        counts.unprocessed_responses,
        counts.unprocessed_items
    );
    println!(
        "  extra requests (SDK retries and batch re-sends): {}",
        counts.requests - clean.requests.min(counts.requests)
    );
    for (op, (requests, faulted)) in &by_op {
        let reference = clean_by_op.get(op).map_or(0, |c| c.0);
        println!("  {op:<20} {requests:>6} requests ({reference:>6} in the reference), {faulted:>5} faulted");
    }

    // The rate is what was asked for (the rules draw per request, seeded by its body).
    let rate = counts.faults() as f64 / counts.requests as f64;
    assert!((RATE - 0.1..=RATE + 0.1).contains(&rate), "fault rate {rate}");
    // Every kind was injected.
    assert!(counts.throttling > 0 && counts.provisioned_throughput_exceeded > 0);
    assert!(counts.server_errors > 0 && after_applying > 0 && counts.unprocessed_items > 0);
    // Transactions applied but answered with a 500 were among them, and the counters above
    // show that none was applied twice.
    assert!(transactions_after_applying > 0, "no transaction was faulted after applying");
    // Bounded retries: each extra request answers a fault (an error the SDK retried, or a batch
    // re-sending unprocessed entries); transactions are left out, since conflicts between the
    // 50 concurrent purchase attempts make their count vary from run to run.
    let requests = |m: &BTreeMap<String, (u64, u64)>| {
        m.iter().filter(|(op, _)| op.as_str() != "TransactWriteItems").map(|(_, c)| c.0).sum::<u64>()
    };
    let faulted = by_op.iter().filter(|(op, _)| op.as_str() != "TransactWriteItems").map(|(_, c)| c.1).sum::<u64>();
    let extra_requests = requests(&by_op) - requests(&clean_by_op).min(requests(&by_op));
    assert!(extra_requests <= faulted, "{extra_requests} extra requests for {faulted} faults");
}

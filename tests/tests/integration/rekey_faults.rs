//! Re-keying an entity with unique fields (its guard items move with it) while 30% of the
//! move transactions get a fault from the SDK HTTP layer
//! ([`dynamo_entity_local::fault`]): throttling, HTTP 500 before and after DynamoDB applied the
//! transaction, and transactions canceled by a `TransactionConflict`. The faulted client makes
//! one attempt a request (no SDK retries, no client request token reuse), so every fault reaches
//! the library. Afterwards every account is at its new key exactly once, every guard names its
//! new owner (none orphaned, none lost), and the table's stream shows each item moved once.
//!
//! Size: `REKEY_FAULT_ITEMS` accounts (300 by default; BENCHMARKS.md runs 5,000).

use crate::backfills::{record_writes, recorded_writes};
use crate::common;

use std::collections::{BTreeMap, HashSet};
use std::time::Instant;

use aws_sdk_dynamodb::config::retry::{RetryConfig, RetryPartition};
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Item, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule};
use futures::StreamExt;

/// An account as launched: keyed by its id, with a unique e-mail address and an optional
/// unique handle.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Account", pk = "ACCOUNT#<id>", sk = "META")]
pub struct AccountV1 {
    pub id: String,
    pub team: String,
    #[entity(unique)]
    pub email: String,
    #[entity(unique)]
    pub handle: Option<String>,
    pub note: String,
}

/// The account today: in its team's partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Account", pk = "TEAM#<team>", sk = "ACCOUNT#<id>")]
pub struct Account {
    pub id: String,
    pub team: String,
    #[entity(unique)]
    pub email: String,
    #[entity(unique)]
    pub handle: Option<String>,
    pub note: String,
}

impl From<AccountV1> for Account {
    fn from(a: AccountV1) -> Account {
        Account { id: a.id, team: a.team, email: a.email, handle: a.handle, note: a.note }
    }
}

fn v1(i: u64) -> AccountV1 {
    AccountV1 {
        id: format!("a{i:05}"),
        team: format!("t{}", i % 9),
        email: format!("user{i}@example.test"),
        handle: (i % 4 != 0).then(|| format!("h{i}")),
        note: format!("note {i}"),
    }
}

fn size() -> u64 {
    std::env::var("REKEY_FAULT_ITEMS").ok().and_then(|s| s.parse().ok()).unwrap_or(300)
}

/// Adds rules so that each `TransactWriteItems` gets one of `faults` with the given shares.
fn add_group(injector: &FaultInjector, faults: &[(Fault, f64)]) {
    let mut left = 1.0;
    for (fault, share) in faults {
        injector.add(FaultRule::new(fault.clone()).on("TransactWriteItems").rate(share / left));
        left -= share;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_rekeying_with_unique_fields_under_30_percent_faults_moves_every_item_and_guard_once() {
    let n = size();
    let table = common::table("rekey_faults", &[AccountV1::SCHEMA]).await;
    let loading = Instant::now();
    futures::stream::iter((0..n).map(|i| {
        let table = table.clone();
        async move { table.create(&v1(i)).await.unwrap() }
    }))
    .buffer_unordered(16)
    .collect::<Vec<()>>()
    .await;
    let before: BTreeMap<String, Item> =
        common::scan_all(&table).await.into_iter().map(|i| (dynamo_entity::schema::describe_key(&i), i)).collect();
    let handles = (0..n).filter(|i| i % 4 != 0).count() as u64;
    assert_eq!(before.len() as u64, n + n + handles, "accounts and their guards");
    record_writes(&table).await;

    let injector = FaultInjector::new(14);
    add_group(
        &injector,
        &[
            (Fault::Throttling, 0.06),
            (Fault::ProvisionedThroughputExceeded, 0.03),
            (Fault::InternalServerError, 0.06),
            (Fault::InternalServerErrorAfterApplying, 0.08),
            (Fault::TransactionConflict, 0.07),
        ],
    );
    let config = injector
        .config_builder(table.client().config())
        .retry_config(RetryConfig::standard().with_max_attempts(1))
        .retry_partition(RetryPartition::new("rekey_faults"))
        .build();
    let faulty = Table::new(aws_sdk_dynamodb::Client::from_conf(config), table.name());

    let started = Instant::now();
    let report = faulty
        .rekey::<AccountV1, Account>("accounts-into-teams", Account::from)
        .segments(4)
        .concurrency(4)
        .page_size(25)
        .run()
        .await
        .unwrap();
    let elapsed = started.elapsed();
    let counts = injector.counts();
    let transactions = injector.requests_for("TransactWriteItems").len() as u64;
    println!(
        "{n} accounts loaded in {:.1} s, re-keyed in {:.1} s: {report}\nTransactWriteItems: {transactions} requests, \
         {} faults ({:.0}%): {} throttling, {} throughput exceeded, {} HTTP 500 ({} after applying), {} transaction \
         conflicts",
        loading.elapsed().as_secs_f64() - elapsed.as_secs_f64(),
        elapsed.as_secs_f64(),
        counts.faults(),
        counts.faults() as f64 * 100.0 / transactions as f64,
        counts.throttling,
        counts.provisioned_throughput_exceeded,
        counts.server_errors,
        injector
            .requests_for("TransactWriteItems")
            .iter()
            .filter(|r| r.injected == Some(dynamo_entity_local::fault::Injected::InternalServerErrorAfterApplying))
            .count(),
        counts.transaction_conflicts
    );
    assert!(report.completed, "{report}");
    // Each account moved once (`updated`, an applied move whose answer was lost included); the
    // scan also meets accounts already at their new keys, which it skips.
    assert_eq!((report.updated, report.failed, report.vanished), (n, 0, 0), "{report}");
    assert_eq!(report.scanned, report.updated + report.skipped, "{report}");
    // Every kind of fault occurred.
    assert!(counts.throttling > 0 && counts.provisioned_throughput_exceeded > 0 && counts.transaction_conflicts > 0);
    assert!(
        injector
            .requests_for("TransactWriteItems")
            .iter()
            .any(|r| r.injected == Some(dynamo_entity_local::fault::Injected::InternalServerErrorAfterApplying)),
        "a move was applied and its answer lost"
    );
    let share = counts.faults() as f64 / transactions as f64;
    assert!((0.2..0.4).contains(&share), "about 30% of the moves got a fault: {share:.2}");

    // Every account is at its new key, exactly as converted; every guard names it; nothing else.
    let after = common::scan_all(&table).await;
    let mut accounts = HashSet::new();
    let mut guards = 0;
    for item in &after {
        let key = dynamo_entity::schema::describe_key(item);
        match item["_type"].as_s().unwrap().as_str() {
            "Account" => {
                let a = Account::from_item(item).unwrap();
                let i: u64 = a.id[1..].parse().unwrap();
                assert_eq!(*item, Account::from(v1(i)).to_item().unwrap(), "{key}");
                assert!(accounts.insert(i), "account {i} twice");
            }
            "_unique" => {
                guards += 1;
                let field = item["field"].as_s().unwrap();
                let value = item["value"].as_s().unwrap();
                let (pk, sk) = (item["ownerPK"].as_s().unwrap(), item["ownerSK"].as_s().unwrap());
                let owner = after
                    .iter()
                    .find(|o| o["PK"].as_s().unwrap() == pk && o["SK"].as_s().unwrap() == sk)
                    .unwrap_or_else(|| panic!("guard {key} is orphaned: its owner {pk} / {sk} is gone"));
                assert!(pk.starts_with("TEAM#"), "guard {key} names the new key: {pk}");
                assert_eq!(owner[field], AttributeValue::S(value.clone()), "guard {key} holds its owner's value");
            }
            "_migration" => {}
            other => panic!("{key} of type {other}"),
        }
    }
    assert_eq!(accounts.len() as u64, n, "no account lost");
    assert_eq!(guards, n + handles, "one guard per unique value, none orphaned, none lost");

    // The stream: each old key removed once, each new key inserted once, each guard modified
    // once (its owner), nothing else.
    let writes = recorded_writes(&table).await;
    let (mut removed, mut inserted, mut moved_guards) = (0, 0, 0);
    for (key, events) in &writes {
        if key.starts_with("ACCOUNT#") {
            assert_eq!(events, &["REMOVE"], "{key}");
            removed += 1;
        } else if key.starts_with("TEAM#") {
            assert_eq!(events, &["INSERT"], "{key}");
            inserted += 1;
        } else if key.starts_with("UNIQUE#") {
            assert_eq!(events, &["MODIFY"], "{key}");
            moved_guards += 1;
        } else {
            assert!(key.starts_with("_MIGRATION#"), "{key}: {events:?}");
        }
    }
    assert_eq!((removed, inserted, moved_guards), (n, n, n + handles));
}

//! Batch writes and gets against DynamoDB Local, with faults (unprocessed items, throttling,
//! server errors) injected at the SDK's HTTP layer by `dynamo_entity_local::fault`.

use crate::common;
use dynamo_entity_local::Divergence;

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::interceptors::{
    BeforeSerializationInterceptorContextMut, BeforeTransmitInterceptorContextRef,
};
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::batch::{RetryPolicy, UnprocessedReason, WriteKind};
use dynamo_entity::{Entity, Error, Item, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule, Injected, Pick};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "THING#<id>", sk = "META")]
struct Thing {
    id: String,
    name: String,
    n: u32,
}

/// Same key template as `Thing`: a different entity type on the same item key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "THING#<thing>", sk = "META")]
struct Alias {
    thing: String,
    note: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "THING#<thing>", sk = "TAG#<tag>")]
struct Tag {
    thing: String,
    tag: String,
}

fn id(i: usize) -> String {
    format!("t{i:03}")
}

fn thing(i: usize) -> Thing {
    Thing { id: id(i), name: format!("thing {i}"), n: i as u32 }
}

fn key_text(t: &Thing) -> String {
    t.primary_key().unwrap().to_string()
}

/// A fresh table, and a second handle on it whose client goes through a fault injector.
async fn tables(test: &str, seed: u64) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Thing::schema(), Alias::schema(), Tag::schema()]).await;
    let faults = FaultInjector::new(seed);
    let faulty = Table::new(faults.client(plain.client()), plain.name());
    (plain, faulty, faults)
}

/// Every item of the table, read with a raw, consistent Scan, by `PK` / `SK`.
async fn scan(table: &Table) -> BTreeMap<(String, String), Item> {
    let mut items = BTreeMap::new();
    for item in common::scan_all(table).await {
        let pk = item["PK"].as_s().unwrap().clone();
        let sk = item["SK"].as_s().unwrap().clone();
        assert!(items.insert((pk, sk), item).is_none(), "an item was scanned twice");
    }
    items
}

/// The `Thing`s stored, decoded, by id.
async fn stored_things(table: &Table) -> BTreeMap<String, Thing> {
    scan(table)
        .await
        .values()
        .filter(|item| item["_type"] == AttributeValue::S("Thing".into()))
        .map(|item| Thing::from_item(item).unwrap())
        .map(|t| (t.id.clone(), t))
        .collect()
}

fn sizes(faults: &FaultInjector, operation: &str) -> Vec<usize> {
    faults.requests_for(operation).iter().map(|r| r.items).collect()
}

#[tokio::test]
async fn case_k09_unprocessed_batch_items_are_retried() {
    let (plain, table, faults) = tables("k09", 9).await;
    let things: Vec<Thing> = (0..30).map(thing).collect();
    // The first response (to the request of the first 25) reports these 4 as unprocessed.
    let dropped = [3, 8, 15, 22];
    let dropped_keys: Vec<String> = dropped.iter().map(|&i| key_text(&things[i])).collect();
    faults.add(
        FaultRule::new(Fault::Unprocessed(Pick::Keys(
            dropped.iter().map(|&i| things[i].primary_key().unwrap()).collect(),
        )))
        .on("BatchWriteItem")
        .times(1),
    );

    let outcome = table.batch_write().put_all(&things).return_consumed_capacity().send().await.unwrap();

    // Requests of 25 and 5 (sent concurrently, in either order), then one of the 4, after the 25.
    let requests = faults.requests_for("BatchWriteItem");
    assert_eq!(requests.len(), 3, "{requests:?}");
    let mut first_two = vec![requests[0].items, requests[1].items];
    first_two.sort_unstable();
    assert_eq!(first_two, vec![5, 25]);
    assert_eq!(requests[2].items, 4);
    assert_eq!(requests[2].keys, dropped_keys, "the retry re-sends exactly the 4");
    let of_25 = requests.iter().find(|r| r.items == 25).unwrap();
    assert_eq!(of_25.injected, Some(Injected::Unprocessed { items: 4 }));
    assert_eq!(of_25.claimed, dropped_keys);
    assert_eq!(of_25.keys, things[..25].iter().map(key_text).collect::<Vec<_>>());
    assert!(requests.iter().filter(|r| r.items != 25).all(|r| r.injected.is_none()));
    let counts = faults.counts();
    assert_eq!(
        (counts.requests, counts.forwarded, counts.unprocessed_responses, counts.unprocessed_items),
        (3, 3, 1, 4)
    );

    // The outcome: all written, nothing left, one retry (with a backoff of at most 50 ms).
    assert_eq!(outcome.written, 30);
    assert!(outcome.unprocessed.is_empty());
    assert_eq!(outcome.retries, 1);
    assert_eq!(outcome.requests, 3);
    assert!(outcome.backoff <= Duration::from_millis(50), "{:?}", outcome.backoff);
    // One write capacity unit per small item, each item counted once (21 + 5 + 4).
    assert_eq!(outcome.consumed_capacity, Some(30.0));

    // All 30 stored, exactly as written.
    let stored = stored_things(&plain).await;
    assert_eq!(scan(&plain).await.len(), 30);
    assert_eq!(stored.into_values().collect::<Vec<_>>(), things);
}

#[tokio::test]
async fn items_unprocessed_beyond_the_retry_bound_come_back_typed() {
    let (plain, table, faults) = tables("stuck", 1).await;
    let things: Vec<Thing> = (0..30).map(thing).collect();
    // Every request holding these two claims them unprocessed, forever.
    let stuck = [4, 27];
    faults.add(FaultRule::new(Fault::Unprocessed(Pick::Keys(
        stuck.iter().map(|&i| things[i].primary_key().unwrap()).collect(),
    ))));
    let policy = RetryPolicy::default().max_attempts(3).base_delay(Duration::from_millis(2));

    let outcome = table.batch_write().put_all(&things).retry(policy).send().await.unwrap();

    assert_eq!(outcome.written, 28, "the written count excludes the two");
    let left: Vec<(usize, &str, String, WriteKind)> =
        outcome.unprocessed.iter().map(|u| (u.position, u.entity, u.key.to_string(), u.kind)).collect();
    assert_eq!(
        left,
        vec![
            (4, "Thing", "PK=THING#t004 SK=META".to_owned(), WriteKind::Put),
            (27, "Thing", "PK=THING#t027 SK=META".to_owned(), WriteKind::Put),
        ]
    );
    for u in &outcome.unprocessed {
        assert!(matches!(u.reason, UnprocessedReason::Unprocessed { attempts: 3 }), "{:?}", u.reason);
        assert_eq!(Thing::from_item(u.item().unwrap()).unwrap(), things[u.position]);
    }
    // Each of the two requests was sent 3 times: 2 + 4 retries.
    assert_eq!((outcome.requests, outcome.retries), (6, 4));
    assert_eq!(sizes(&faults, "BatchWriteItem").iter().sum::<usize>(), 25 + 5 + 2 * 2);

    let stored = stored_things(&plain).await;
    assert_eq!(stored.len(), 28);
    assert!(!stored.contains_key("t004") && !stored.contains_key("t027"));

    let err = outcome.check().unwrap_err();
    assert_eq!(
        err.to_string(),
        "batch write incomplete: 28 written, 2 not written; first: put Thing PK=THING#t004 SK=META (position 4): \
         returned unprocessed by DynamoDB 3 times"
    );

    // Once DynamoDB takes them again, the leftovers can be sent as they are.
    faults.clear_rules();
    let again = table.batch_write().resubmit(outcome.unprocessed).send().await.unwrap();
    assert_eq!((again.written, again.unprocessed.len(), again.retries), (2, 0, 0));
    assert_eq!(stored_things(&plain).await.into_values().collect::<Vec<_>>(), things);
}

#[tokio::test]
async fn the_retry_bound_can_be_a_time_limit() {
    let (_plain, table, faults) = tables("elapsed", 2).await;
    faults.add(FaultRule::new(Fault::Unprocessed(Pick::Positions(vec![0]))));
    let policy = RetryPolicy::default()
        .max_attempts(1000)
        .base_delay(Duration::from_millis(20))
        .max_delay(Duration::from_millis(40))
        .max_elapsed(Some(Duration::from_millis(300)));
    let started = Instant::now();
    let outcome = table.batch_write().put(&thing(1)).put(&thing(2)).retry(policy).send().await.unwrap();
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    assert_eq!(outcome.written, 1);
    assert_eq!(outcome.unprocessed.len(), 1);
    assert!(outcome.retries >= 1 && outcome.retries < 100, "{}", outcome.retries);
    assert!(outcome.backoff <= Duration::from_millis(300));
    let UnprocessedReason::Unprocessed { attempts } = outcome.unprocessed[0].reason else { panic!() };
    assert_eq!(attempts, outcome.retries + 1);
}

#[tokio::test]
async fn duplicate_keys_are_an_error_before_sending() {
    let (plain, table, faults) = tables("dup", 3).await;
    let err = table
        .batch_write()
        .put(&thing(1))
        .put(&thing(2))
        .delete(Tag::key("t001", "red"))
        .put(&Alias { thing: id(1), note: "same item as Thing t001".into() })
        .send()
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate key PK=THING#t001 SK=META in one batch: position 0 (Thing) and position 3 (Alias); \
         DynamoDB rejects a batch that names one item twice"
    );
    assert!(
        matches!(err, Error::DuplicateKey { first: 0, first_entity: "Thing", second: 3, second_entity: "Alias", .. }),
        "{err:?}"
    );

    // Far apart, in different requests, it is still one batch.
    let mut things: Vec<Thing> = (0..60).map(thing).collect();
    things.push(thing(7));
    let err = table.batch_put(&things).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate key PK=THING#t007 SK=META in one batch: position 7 (Thing) and position 60 (Thing); \
         DynamoDB rejects a batch that names one item twice"
    );

    let err = table.batch_get([Thing::key("t005"), Thing::key("t006"), Thing::key("t005")]).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "duplicate key PK=THING#t005 SK=META in one batch: position 0 (Thing) and position 2 (Thing); \
         DynamoDB rejects a batch that names one item twice"
    );

    assert!(faults.requests().is_empty(), "nothing was sent");
    assert!(scan(&plain).await.is_empty());
}

#[tokio::test]
async fn encoding_errors_and_oversize_items_are_errors_before_sending() {
    let (plain, table, faults) = tables("encode", 4).await;
    let mut things: Vec<Thing> = (0..40).map(thing).collect();
    things[33].id = String::new(); // an empty key part
    let err = table.batch_put(&things).await.unwrap_err();
    assert!(matches!(err, Error::Key(_)), "{err:?}");

    let err = table.batch_write().put(&thing(1)).delete(Thing::key("")).send().await.unwrap_err();
    assert!(matches!(err, Error::Key(_)), "{err:?}");

    let big = Thing { id: id(9), name: "x".repeat(400 * 1024), n: 9 };
    let err = table.batch_write().put(&thing(1)).put(&big).send().await.unwrap_err();
    match err {
        Error::ItemTooLarge { entity: "Thing", ref key, size, limit: 409_600 } => {
            assert_eq!(key, "PK=THING#t009 SK=META");
            // Names and values: PK THING#t009, SK META, _type Thing, id t009, name, n 9 (one
            // digit: 1 byte + 1).
            assert_eq!(size, (2 + 10) + (2 + 4) + (5 + 5) + (2 + 4) + (4 + 400 * 1024) + (1 + 2));
        }
        other => panic!("expected ItemTooLarge, got {other:?}"),
    }

    assert!(faults.requests().is_empty(), "nothing was sent");
    assert!(scan(&plain).await.is_empty());

    // At exactly the limit (as counted here), DynamoDB Local takes the item; one byte more is
    // refused before sending.
    let at_limit = Thing { name: "x".repeat(400 * 1024 - 41), ..big.clone() };
    assert_eq!(dynamo_entity::batch::item_size(&at_limit.to_item().unwrap()), 409_600);
    table.batch_write().put(&at_limit).send().await.unwrap().check().unwrap();
    let over = Thing { name: "x".repeat(400 * 1024 - 40), ..big };
    assert!(matches!(table.batch_write().put(&over).send().await, Err(Error::ItemTooLarge { size: 409_601, .. })));
    assert_eq!(plain.get(Thing::key("t009")).await.unwrap(), Some(at_limit));
    faults.reset_records();

    // An empty batch sends nothing either.
    let outcome = table.batch_write().send().await.unwrap();
    assert_eq!((outcome.written, outcome.requests), (0, 0));
    assert!(faults.requests().is_empty());
}

#[tokio::test]
async fn puts_and_deletes_of_several_entity_types_in_one_batch() {
    let (plain, table, faults) = tables("mixed", 5).await;
    let things: Vec<Thing> = (0..40).map(thing).collect();
    assert_eq!(plain.batch_put(&things).await.unwrap().written, 40);

    let tags: Vec<Tag> = (0..30).map(|i| Tag { thing: id(i), tag: format!("tag{i}") }).collect();
    let outcome = table
        .batch_write()
        .delete_all((0..20).map(|i| Thing::key(&id(i))))
        .put_all(&tags)
        .delete(Thing::key("t999")) // no such item: deleting it is fine
        .concurrency(1)
        .send()
        .await
        .unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len(), outcome.requests), (51, 0, 3));
    assert_eq!(sizes(&faults, "BatchWriteItem"), vec![25, 25, 1]);

    let items = scan(&plain).await;
    assert_eq!(items.len(), 20 + 30);
    assert_eq!(stored_things(&plain).await.into_values().collect::<Vec<_>>(), things[20..].to_vec());
    let stored_tags: Vec<Tag> = items
        .values()
        .filter(|i| i["_type"] == AttributeValue::S("Tag".into()))
        .map(|i| Tag::from_item(i).unwrap())
        .collect();
    let mut expected = tags.clone();
    expected.sort_by(|a, b| (&a.thing, &a.tag).cmp(&(&b.thing, &b.tag)));
    assert_eq!(stored_tags, expected);
}

#[tokio::test]
async fn throttling_and_server_errors_are_retried_by_the_sdk_then_by_the_batch() {
    let (plain, _, _) = tables("throttle", 6).await;
    let faults = FaultInjector::new(6);
    // The SDK's standard retry mode, 3 attempts, with short backoffs to keep the test quick.
    let config = faults
        .config_builder(plain.client().config())
        .retry_config(RetryConfig::standard().with_max_attempts(3).with_initial_backoff(Duration::from_millis(5)))
        .build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    let things: Vec<Thing> = (0..10).map(thing).collect();

    // Two throttles and a 500: the SDK's 3 attempts all fail, the batch retries once.
    faults.add(FaultRule::new(Fault::ProvisionedThroughputExceeded).on("BatchWriteItem").times(2));
    faults.add(FaultRule::new(Fault::InternalServerError).on("BatchWriteItem").times(1));
    let outcome = table.batch_put(&things).await.unwrap();
    assert_eq!((outcome.written, outcome.requests, outcome.retries), (10, 2, 1));
    let counts = faults.counts();
    assert_eq!(
        (counts.requests, counts.provisioned_throughput_exceeded, counts.server_errors, counts.forwarded),
        (4, 2, 1, 1)
    );

    // One ThrottlingException: the SDK's own retry absorbs it; the batch sees one request.
    faults.reset_records();
    faults.add(FaultRule::new(Fault::Throttling).on("BatchGetItem").times(1));
    let got = table.batch_get(things.iter().map(|t| Thing::key(&t.id))).send().await.unwrap();
    assert_eq!((got.requests, got.retries), (1, 0));
    assert_eq!(got.into_result().unwrap(), things.iter().cloned().map(Some).collect::<Vec<_>>());
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.throttling, counts.forwarded), (2, 1, 1));

    // Throttled beyond every bound: the writes come back as failed, with the error, never as written.
    faults.reset_records();
    faults.add(FaultRule::new(Fault::Throttling).on("BatchWriteItem"));
    let outcome = table
        .batch_write()
        .put(&Thing { name: "changed".into(), ..thing(0) })
        .retry(RetryPolicy::default().max_attempts(2).base_delay(Duration::from_millis(1)))
        .send()
        .await
        .unwrap();
    assert_eq!((outcome.written, outcome.requests, outcome.retries), (0, 2, 1));
    match &outcome.unprocessed[0].reason {
        UnprocessedReason::Failed { attempts: 2, error } => {
            assert!(error.to_string().contains("ThrottlingException"), "{error}");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(faults.counts().throttling, 6, "3 SDK attempts for each of 2 batch attempts");
    assert_eq!(stored_things(&plain).await["t000"], thing(0), "unchanged");

    // Applied, but answered with a 500: the SDK sends it again, which puts make harmless.
    faults.clear_rules();
    faults.reset_records();
    faults.add(FaultRule::new(Fault::InternalServerErrorAfterApplying).on("BatchWriteItem").times(1));
    let changed: Vec<Thing> = (0..10).map(|i| Thing { n: 100 + i as u32, ..thing(i) }).collect();
    let outcome = table.batch_put(&changed).await.unwrap();
    assert_eq!((outcome.written, outcome.requests, outcome.retries), (10, 1, 0));
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 2, 1));
    assert_eq!(stored_things(&plain).await.into_values().collect::<Vec<_>>(), changed);
}

#[tokio::test]
async fn random_faults_at_a_30_percent_rate_lose_nothing_and_count_nothing_twice() {
    let (plain, _, _) = tables("random_faults", 30).await;
    let faults = FaultInjector::new(30);
    let config = faults
        .config_builder(plain.client().config())
        .retry_config(RetryConfig::standard().with_max_attempts(3).with_initial_backoff(Duration::from_millis(2)))
        .build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    // 10% of requests each: half their entries unprocessed, throttled, HTTP 500.
    faults.add(FaultRule::new(Fault::Unprocessed(Pick::Rate(0.5))).rate(0.1));
    faults.add(FaultRule::new(Fault::Throttling).rate(0.1));
    faults.add(FaultRule::new(Fault::InternalServerError).rate(0.1));
    let policy = RetryPolicy::default().base_delay(Duration::from_millis(2)).max_delay(Duration::from_millis(20));

    let things: Vec<Thing> = (0..600).map(thing).collect();
    let outcome = table.batch_write().put_all(&things).retry(policy).send().await.unwrap();
    let stored = stored_things(&plain).await;
    let left: Vec<usize> = outcome.unprocessed.iter().map(|u| u.position).collect();
    assert_eq!(outcome.written + left.len(), 600);
    assert_eq!(stored.len(), outcome.written, "every write counted is stored, and only those");
    for (i, t) in things.iter().enumerate() {
        assert_eq!(stored.get(&t.id), (!left.contains(&i)).then_some(t), "{i}");
    }

    let got = table.batch_get(things.iter().map(|t| Thing::key(&t.id))).retry(policy).send().await.unwrap();
    let unread: Vec<usize> = got.unprocessed.iter().map(|u| u.position).collect();
    for (i, item) in got.items.iter().enumerate() {
        if !unread.contains(&i) {
            assert_eq!(item.as_ref(), stored.get(&things[i].id), "{i}");
        }
    }

    let counts = faults.counts();
    println!(
        "write: {} requests, {} retries, {} unprocessed; get: {} requests, {} retries, {} unread; {counts:?}",
        outcome.requests,
        outcome.retries,
        left.len(),
        got.requests,
        got.retries,
        unread.len()
    );
    assert!(counts.unprocessed_responses > 0 && counts.throttling > 0 && counts.server_errors > 0, "{counts:?}");
    // The faults are a function of the seed and the request contents (not of timing, arrival
    // order or table name), so these figures are the same on every run. (They changed when
    // every request began to carry `ReturnConsumedCapacity = INDEXES`.)
    assert_eq!((outcome.requests, outcome.retries, left.len()), (26, 2, 0));
    assert_eq!((got.requests, got.retries, unread.len()), (6, 0, 0));
    assert_eq!(
        (counts.requests, counts.forwarded, counts.unprocessed_responses, counts.unprocessed_items),
        (38, 32, 2, 22)
    );
    assert_eq!((counts.throttling, counts.server_errors), (3, 3));
    assert!(outcome.retries <= 7 * 24 && got.retries <= 7 * 6, "bounded: 7 retries per request at most");
}

#[tokio::test]
async fn an_error_that_retrying_cannot_fix_stops_the_batch_and_keeps_the_outcome() {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.unwrap();
    let table = Table::new(server.client(), "no-such-table-for-batch");
    let things: Vec<Thing> = (0..60).map(thing).collect();
    let err = table.batch_write().put_all(&things).concurrency(1).send().await.unwrap_err();
    let Error::BatchWrite { outcome, source: Some(source) } = &err else { panic!("{err:?}") };
    assert!(source.to_string().contains("ResourceNotFoundException"), "{source}");
    assert_eq!((outcome.written, outcome.unprocessed.len(), outcome.requests), (0, 60, 1));
    assert!(
        outcome.unprocessed[..25].iter().all(|u| matches!(u.reason, UnprocessedReason::Failed { attempts: 1, .. }))
    );
    assert!(outcome.unprocessed[25..].iter().all(|u| matches!(u.reason, UnprocessedReason::NotSent)));
    assert_eq!(outcome.unprocessed.iter().map(|u| u.position).collect::<Vec<_>>(), (0..60).collect::<Vec<_>>());
    assert!(err.to_string().starts_with(
        "batch write incomplete: 0 written, 60 not written; first: put Thing PK=THING#t000 SK=META (position 0): \
         request failed (attempt 1): DynamoDB BatchWriteItem failed: "
    ));

    let err = table.batch_get([Thing::key("t001")]).send().await.unwrap_err();
    assert!(matches!(err, Error::Sdk { operation: "BatchGetItem", .. }), "{err:?}");
}

/// Every DynamoDB attribute type, for the writes a batch reads back from a failed request.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "KINDS#<id>", sk = "META")]
struct Kinds {
    id: String,
    text: String,
    count: u64,
    ratio: f64,
    flag: bool,
    bytes: Vec<u8>,
    words: BTreeSet<String>,
    numbers: BTreeSet<u32>,
    list: Vec<String>,
    map: BTreeMap<String, u32>,
    raw: AttributeValue,
}

fn kinds(i: usize, text: &str) -> Kinds {
    let raw = match i % 3 {
        // In the order DynamoDB returns a binary set (by the elements' base64 text).
        0 => AttributeValue::Bs(vec![Blob::new(b"\xff\"\\".to_vec()), Blob::new(vec![0, i as u8])]),
        1 => AttributeValue::Null(true),
        _ => AttributeValue::M(
            [(
                "l".to_owned(),
                AttributeValue::L(vec![AttributeValue::N("1.5E-3".into()), AttributeValue::Bool(false)]),
            )]
            .into(),
        ),
    };
    Kinds {
        id: format!("k{i:02}"),
        text: format!("{text} \u{e9}\u{1F600} \"{i}\"\n"),
        count: u64::MAX - i as u64,
        ratio: 0.1 * i as f64,
        flag: i % 2 == 0,
        bytes: vec![i as u8, 0, 255],
        words: ["b", "a", "\u{2603}"].map(str::to_owned).into(),
        numbers: [i as u32, 7].into(),
        list: vec![String::new(), "x".into()],
        map: [("k".to_owned(), i as u32)].into(),
        raw,
    }
}

/// The stored `Kinds` items, by id.
async fn stored_kinds(table: &Table) -> BTreeMap<String, Item> {
    let items = scan(table).await;
    items
        .into_iter()
        .filter(|((pk, _), _)| pk.starts_with("KINDS#"))
        .map(|((pk, _), item)| (pk[6..].to_owned(), item))
        .collect()
}

/// The stored `Kinds`, decoded, their `raw` sets in one order ([`raw_sets_sorted`]).
fn decoded_kinds(stored: &BTreeMap<String, Item>) -> Vec<Kinds> {
    stored.values().map(|i| raw_sets_sorted(Kinds::from_item(i).unwrap())).collect()
}

/// `kinds` with the elements of the sets in its `raw` attribute in one order (the typed sets
/// are `BTreeSet`s already): DynamoDB does not keep a set's order.
fn raw_sets_sorted(mut kinds: Kinds) -> Kinds {
    kinds.raw = common::value_sets_sorted(kinds.raw);
    kinds
}

/// An interceptor of a client that refuses every request before it is serialized.
#[derive(Debug)]
struct RefuseBeforeSerialization;

impl Intercept for RefuseBeforeSerialization {
    fn name(&self) -> &'static str {
        "RefuseBeforeSerialization"
    }

    fn modify_before_serialization(
        &self,
        _context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        Err("refused by the client's interceptor".into())
    }
}

/// A batch keeps each write as its bytes and builds every request from them; when a request
/// fails, its writes are reported or sent again exactly as they were, whatever the failure: refused by
/// DynamoDB (reported with their items, then resubmitted), answered with a 500 (sent again by
/// the batch), or refused by the client before serialization (reported with their items).
#[tokio::test]
async fn the_writes_of_a_failed_request_come_back_exactly_as_they_were() {
    let (plain, _, _) = tables("kinds", 8).await;
    let first: Vec<Kinds> = (0..30).map(|i| kinds(i, "first")).collect();
    let items: Vec<Item> = first.iter().map(|k| k.to_item().unwrap()).collect();

    // Refused by DynamoDB after serialization: the 25 sent and the 5 never sent, each with its item.
    let missing = Table::new(plain.client().clone(), "no-such-table-for-kinds");
    let err = missing.batch_write().put_all(&first).concurrency(1).send().await.unwrap_err();
    let Error::BatchWrite { outcome, .. } = err else { panic!("{err:?}") };
    assert_eq!(outcome.unprocessed.iter().map(|u| u.position).collect::<Vec<_>>(), (0..30).collect::<Vec<_>>());
    for u in &outcome.unprocessed {
        assert_eq!(u.item(), Some(&items[u.position]), "position {}", u.position);
    }
    let again = plain.batch_write().resubmit(outcome.unprocessed).send().await.unwrap();
    assert_eq!((again.written, again.unprocessed.len()), (30, 0));
    // Compared with the sets' elements in one order: DynamoDB keeps a set, not its order.
    let stored = stored_kinds(&plain).await;
    assert_eq!(
        stored.values().cloned().map(common::sets_sorted).collect::<Vec<_>>(),
        items.iter().cloned().map(common::sets_sorted).collect::<Vec<_>>()
    );
    assert_eq!(decoded_kinds(&stored), first.iter().cloned().map(raw_sets_sorted).collect::<Vec<_>>());

    // A 500, the SDK's retries off: the batch sends the writes again, read back from the body.
    let faults = FaultInjector::new(8);
    let config = faults.config_builder(plain.client().config()).retry_config(RetryConfig::disabled()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    faults.add(FaultRule::new(Fault::InternalServerError).on("BatchWriteItem").times(1));
    let second: Vec<Kinds> = (0..30).map(|i| kinds(i, "second")).collect();
    let policy = RetryPolicy::default().base_delay(Duration::from_millis(1));
    let outcome = table.batch_write().put_all(&second).concurrency(1).retry(policy).send().await.unwrap();
    assert_eq!((outcome.written, outcome.requests, outcome.retries), (30, 3, 1));
    assert_eq!(faults.counts().server_errors, 1);
    let stored = stored_kinds(&plain).await;
    assert_eq!(decoded_kinds(&stored), second.into_iter().map(raw_sets_sorted).collect::<Vec<_>>());

    // Refused before serialization by an interceptor of the client: each write with its item.
    let config = plain.client().config().to_builder().interceptor(RefuseBeforeSerialization).build();
    let refusing = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    let err = refusing.batch_write().put_all(&first).concurrency(1).send().await.unwrap_err();
    let Error::BatchWrite { outcome, source: Some(source) } = err else { panic!() };
    assert!(format!("{source:?}").contains("refused by the client's interceptor"), "{source:?}");
    assert_eq!(outcome.unprocessed.len(), 30);
    for u in &outcome.unprocessed {
        assert_eq!(u.item(), Some(&items[u.position]), "position {}", u.position);
    }
}

/// An interceptor of a client that sets `ReturnItemCollectionMetrics = SIZE` on every
/// `BatchWriteItem` input, and records the body of every request as it is sent.
#[derive(Debug, Default, Clone)]
struct MetricsAndBodies(std::sync::Arc<std::sync::Mutex<Vec<serde_json::Value>>>);

impl Intercept for MetricsAndBodies {
    fn name(&self) -> &'static str {
        "MetricsAndBodies"
    }

    fn modify_before_serialization(
        &self,
        context: &mut BeforeSerializationInterceptorContextMut<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        use aws_sdk_dynamodb::operation::batch_write_item::BatchWriteItemInput;
        use aws_sdk_dynamodb::types::ReturnItemCollectionMetrics;
        if let Some(input) = context.input_mut().downcast_mut::<BatchWriteItemInput>() {
            input.return_item_collection_metrics = Some(ReturnItemCollectionMetrics::Size);
        }
        Ok(())
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let body = context.request().body().bytes().ok_or("a body in memory")?;
        let length = context.request().headers().get("content-length").ok_or("a content-length")?;
        assert_eq!(length, body.len().to_string());
        self.0.lock().unwrap().push(serde_json::from_slice(body)?);
        Ok(())
    }
}

/// What an interceptor of the client changes in a batch write's input is sent with the
/// batch's writes, and the body it sees before sending is the one DynamoDB receives.
#[tokio::test]
async fn a_client_interceptor_sees_and_keeps_its_changes_to_a_batch_write() {
    let (plain, _, _) = tables("interceptor", 9).await;
    let recorder = MetricsAndBodies::default();
    let config = plain.client().config().to_builder().interceptor(recorder.clone()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    let things: Vec<Thing> = (0..30).map(thing).collect();
    let outcome = table.batch_write().put_all(&things).concurrency(1).send().await.unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len(), outcome.requests), (30, 0, 2));
    let bodies = recorder.0.lock().unwrap().clone();
    assert_eq!(bodies.len(), 2);
    for (body, range) in bodies.iter().zip([0..25, 25..30]) {
        assert_eq!(body["ReturnItemCollectionMetrics"], "SIZE");
        assert_eq!(body["ReturnConsumedCapacity"], "INDEXES");
        let writes = body["RequestItems"][plain.name()].as_array().unwrap();
        let ids: Vec<&str> = writes.iter().map(|w| w["PutRequest"]["Item"]["id"]["S"].as_str().unwrap()).collect();
        assert_eq!(ids, range.map(id).collect::<Vec<_>>().iter().map(String::as_str).collect::<Vec<_>>());
    }
    assert_eq!(stored_things(&plain).await.into_values().collect::<Vec<_>>(), things);
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "BIG#<id>", sk = "META")]
struct Big {
    id: String,
    text: String,
}

/// Items within 400 KB whose JSON is six times their size (every character a control character,
/// written `\u0001`): a request of 25 of them would be 61 MB, so the batch splits them by the
/// bytes of their requests, each within DynamoDB's 16 MB.
#[tokio::test]
async fn requests_stay_within_16_mb_of_json_whatever_the_items_sizes() {
    let (plain, faulty, faults) = tables("sixteen", 10).await;
    let _ = plain;
    let text = "\u{1}".repeat(409_600 - 160);
    let bigs: Vec<Big> = (0..7).map(|i| Big { id: format!("b{i}"), text: text.clone() }).collect();
    let sizes_of: Vec<usize> = bigs.iter().map(|b| dynamo_entity::batch::item_size(&b.to_item().unwrap())).collect();
    assert!(sizes_of.iter().all(|&n| n <= 409_600), "{sizes_of:?}");
    let outcome = faulty.batch_write().put_all(&bigs).concurrency(1).send().await.unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len()), (7, 0));
    // 2,457 KB of JSON each: six in one request (14.7 MB), the seventh in another.
    assert_eq!(sizes(&faults, "BatchWriteItem"), vec![6, 1]);
    for b in &bigs {
        assert_eq!(faulty.get(Big::key(&b.id)).await.unwrap().as_ref(), Some(b));
    }
}

#[tokio::test]
async fn batch_get_of_150_keys_in_input_order_with_missing_items() {
    let (plain, table, faults) = tables("get150", 7).await;
    let missing = [7, 99, 100, 149];
    let things: Vec<Thing> = (0..150).filter(|i| !missing.contains(i)).map(thing).collect();
    assert_eq!(plain.batch_put(&things).await.unwrap().written, 146);

    // Keys in reverse order: the results follow the keys, not the table.
    let order: Vec<usize> = (0..150).rev().collect();
    let outcome =
        table.batch_get(order.iter().map(|&i| Thing::key(&id(i)))).return_consumed_capacity().send().await.unwrap();
    let mut request_sizes = sizes(&faults, "BatchGetItem");
    request_sizes.sort_unstable();
    assert_eq!(request_sizes, vec![50, 100]);
    assert_eq!((outcome.requests, outcome.retries), (2, 0));
    assert!(outcome.unprocessed.is_empty());
    // Half a read capacity unit per small item (eventually consistent), a missing one too
    // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/read-write-operations.html#read-operation-consumption),
    // unless the engine charges nothing for missing keys.
    let missing_keys = if common::diverges(Divergence::BatchGetMissingKeysCostNothing).await { 0.0 } else { 4.0 };
    assert_eq!(outcome.consumed_capacity, Some(73.0 + 0.5 * missing_keys));
    let expected: Vec<Option<Thing>> =
        order.iter().map(|&i| if missing.contains(&i) { None } else { Some(thing(i)) }).collect();
    assert_eq!(outcome.into_result().unwrap(), expected);

    // Strongly consistent, one key at a time: the same.
    let one = table.batch_get([Thing::key("t005"), Thing::key("t007")]).consistent_read().send().await.unwrap();
    assert_eq!(one.items, vec![Some(thing(5)), None]);
}

#[tokio::test]
async fn batch_get_retries_injected_unprocessed_keys() {
    let (plain, table, faults) = tables("get_retry", 8).await;
    let things: Vec<Thing> = (0..150).map(thing).collect();
    plain.batch_put(&things).await.unwrap().check().unwrap();

    // The first response to hold these five (from the request of the first 100) claims them.
    let claimed = [0, 42, 57, 58, 99];
    faults.add(
        FaultRule::new(Fault::Unprocessed(Pick::Keys(
            claimed.iter().map(|&i| things[i].primary_key().unwrap()).collect(),
        )))
        .on("BatchGetItem")
        .times(1),
    );
    let outcome = table.batch_get(things.iter().map(|t| Thing::key(&t.id))).send().await.unwrap();
    let requests = faults.requests_for("BatchGetItem");
    let mut request_sizes: Vec<usize> = requests.iter().map(|r| r.items).collect();
    request_sizes.sort_unstable();
    assert_eq!(request_sizes, vec![5, 50, 100]);
    let retry = requests.iter().find(|r| r.items == 5).unwrap();
    assert_eq!(retry.keys, claimed.iter().map(|&i| key_text(&things[i])).collect::<Vec<_>>());
    assert_eq!((outcome.requests, outcome.retries), (3, 1));
    assert_eq!(outcome.into_result().unwrap(), things.iter().cloned().map(Some).collect::<Vec<_>>());

    // Claimed on every request: after the bound they come back as typed keys, not as "missing".
    faults.clear_rules();
    faults.add(FaultRule::new(Fault::Unprocessed(Pick::Keys(vec![
        things[3].primary_key().unwrap(),
        things[120].primary_key().unwrap(),
    ]))));
    let outcome = table
        .batch_get(things.iter().map(|t| Thing::key(&t.id)))
        .retry(RetryPolicy::default().max_attempts(2).base_delay(Duration::from_millis(1)))
        .send()
        .await
        .unwrap();
    assert!(!outcome.is_complete());
    let left: Vec<(usize, String)> = outcome.unprocessed.iter().map(|u| (u.position, u.key.to_string())).collect();
    assert_eq!(left, vec![(3, "PK=THING#t003 SK=META".to_owned()), (120, "PK=THING#t120 SK=META".to_owned())]);
    let typed: Vec<String> = outcome.unprocessed_keys().iter().map(|k| k.encoded().unwrap().to_string()).collect();
    assert_eq!(typed, vec!["PK=THING#t003 SK=META", "PK=THING#t120 SK=META"]);
    assert_eq!(outcome.items.iter().filter(|i| i.is_some()).count(), 148);
    assert_eq!((outcome.requests, outcome.retries), (4, 2));
    let err = outcome.into_result().unwrap_err();
    assert_eq!(
        err.to_string(),
        "batch get incomplete: 2 of 150 keys not read; first: get Thing PK=THING#t003 SK=META (position 3): \
         returned unprocessed by DynamoDB 2 times"
    );
}

#[tokio::test]
async fn batch_get_mixed_reads_several_entity_types() {
    let (plain, table, _faults) = tables("get_mixed", 10).await;
    let tag = Tag { thing: id(1), tag: "blue".into() };
    plain.batch_write().put(&thing(1)).put(&tag).send().await.unwrap().check().unwrap();
    let outcome = table
        .batch_get_mixed()
        .key(Tag::key("t001", "blue"))
        .key(Thing::key("t001"))
        .key(Tag::key("t001", "green"))
        .send()
        .await
        .unwrap();
    let items = outcome.into_result().unwrap();
    assert_eq!(Tag::from_item(items[0].as_ref().unwrap()).unwrap(), tag);
    assert_eq!(Thing::from_item(items[1].as_ref().unwrap()).unwrap(), thing(1));
    assert!(items[2].is_none());

    // A typed batch get of an item stored as another entity type is an error.
    let err = table.batch_get([Alias::key("t001")]).send().await.unwrap_err();
    assert!(matches!(err, Error::WrongEntity { expected: "Alias", .. }), "{err:?}");
}

/// Not a test: measures a batch write of 10,000 items (at several concurrencies) against
/// 10,000 sequential puts, after a warm-up of the server; each in a fresh table.
/// `cargo test --release -p dynamo-entity-tests --test integration -- --ignored --nocapture batch::measure`
#[tokio::test(flavor = "multi_thread")]
#[ignore = "measurement; run explicitly"]
async fn measure_batch_write_against_sequential_puts() {
    const N: usize = 10_000;
    let things: Vec<Thing> =
        (0..N).map(|i| Thing { id: format!("{i:05}"), name: format!("thing {i}"), n: i as u32 }).collect();

    // Warm-up: the JVM of DynamoDB Local compiles its hot paths on the first requests.
    let warm = common::table("measure_warm", &[Thing::schema()]).await;
    warm.batch_put(&things[..2_000]).await.unwrap().check().unwrap();
    for t in &things[..1_000] {
        warm.put(t).await.unwrap();
    }

    let mut batch_secs = Vec::new();
    for concurrency in [1, 4, 8, 16] {
        let table = common::table("measure_batch", &[Thing::schema()]).await;
        let started = Instant::now();
        let outcome = table.batch_write().put_all(&things).concurrency(concurrency).send().await.unwrap();
        let secs = started.elapsed().as_secs_f64();
        assert_eq!((outcome.written, outcome.retries), (N, 0));
        assert_eq!(scan(&table).await.len(), N);
        println!("batch write of {N} items, concurrency {concurrency:2}: {secs:.2} s ({} requests)", outcome.requests);
        batch_secs.push((concurrency, secs));
    }

    let table = common::table("measure_puts", &[Thing::schema()]).await;
    let started = Instant::now();
    for t in &things {
        table.put(t).await.unwrap();
    }
    let sequential = started.elapsed().as_secs_f64();
    assert_eq!(scan(&table).await.len(), N);
    println!("{N} sequential puts: {sequential:.2} s");

    let default = batch_secs.iter().find(|(c, _)| *c == 4).map_or(f64::NAN, |(_, s)| *s);
    let best = batch_secs.iter().map(|(_, s)| *s).fold(f64::INFINITY, f64::min);
    println!(
        "ratio batch_vs_sequential_puts={:.2} best_concurrency_ratio={:.2}",
        sequential / default,
        sequential / best
    );
}

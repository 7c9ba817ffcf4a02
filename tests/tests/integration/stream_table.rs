//! Streams in the table declaration: `#[table(stream = ...)]` / `TableLayout::stream` created
//! by `create_table_from`, exported to CloudFormation, compared by `Table::diff` and enabled
//! or changed by `Table::apply`; the table's stream read by `StreamReader`; and a Lambda batch
//! handled by `stream::lambda::handle`, partly failed and redelivered.

use std::collections::BTreeMap;
use std::time::Duration;

use aws_lambda_events::event::dynamodb::{Event, EventRecord};
use dynamo_entity::migrate::{Change as DiffChange, Step, Wait};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::stream::lambda::{RecordFailure, Undecodable, handle};
use dynamo_entity::stream::{Change, ChangeKind, ReadError, StartAt, StreamReader, StreamViewType};
use dynamo_entity::{Entity, Error, Table, TableDef};
use dynamo_entity_local::{Divergence, LocalDynamoDb, unique_table_name};

use crate::common;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUNTER#<id>", sk = "META")]
pub struct Counter {
    pub id: String,
    pub n: u64,
}

#[derive(TableDef)]
#[table(entities(Counter), stream = new_and_old_images, item(name = CounterItem, derive(Debug, Clone, PartialEq)))]
pub struct Counters;

#[derive(TableDef)]
#[table(entities(Counter), item(name = PlainItem, derive(Debug, Clone, PartialEq)))]
pub struct PlainCounters;

fn wait() -> Wait {
    Wait { timeout: Duration::from_secs(60), poll: Duration::from_millis(100) }
}

async fn new_table(test: &str, layout: &TableLayout) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(layout).await.expect("the table is created");
    table
}

/// `DescribeTable`'s stream: (enabled, view type, latest stream ARN).
async fn described_stream(table: &Table) -> (bool, Option<String>, Option<String>) {
    let desc = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let spec = desc.stream_specification();
    (
        spec.is_some_and(|s| s.stream_enabled()),
        spec.and_then(|s| s.stream_view_type()).map(|v| v.as_str().to_owned()),
        desc.latest_stream_arn,
    )
}

async fn streams() -> aws_sdk_dynamodbstreams::Client {
    LocalDynamoDb::shared().await.expect("DynamoDB Local is available").streams_client()
}

#[tokio::test]
async fn create_table_from_a_declared_stream_enables_it() {
    let layout = Counters::layout().unwrap();
    assert_eq!(layout.stream_view_type(), Some(StreamViewType::NewAndOldImages));
    let table = new_table("stream_create", &layout).await;
    let (enabled, view, arn) = described_stream(&table).await;
    assert_eq!((enabled, view.as_deref()), (true, Some("NEW_AND_OLD_IMAGES")));
    assert!(arn.is_some());
    assert_eq!(table.stream_arn().await.unwrap(), arn);
    assert_eq!(table.diff(&layout).await.unwrap().changes, []);

    // A table created without one has no ARN to read.
    let plain = new_table("stream_create_plain", &PlainCounters::layout().unwrap()).await;
    assert!(!described_stream(&plain).await.0);
    assert_eq!(plain.stream_arn().await.unwrap(), None);
}

#[tokio::test]
async fn diff_and_apply_enable_and_change_the_stream() {
    let plain = PlainCounters::layout().unwrap();
    let table = new_table("stream_apply", &plain).await;
    // A declaration that says nothing about the stream compares none.
    assert_eq!(table.diff(&plain).await.unwrap().changes, []);

    let declared = plain.clone().stream(StreamViewType::NewImage);
    let diff = table.diff(&declared).await.unwrap();
    assert_eq!(diff.changes, [DiffChange::Stream { declared: Some(StreamViewType::NewImage), actual: None }]);
    assert_eq!(
        diff.to_string(),
        format!("table {}: 1 difference(s)\n  stream: declared NEW_IMAGE, table has no stream\n", table.name())
    );
    assert_eq!(diff.plan().steps, [Step::EnableStream(StreamViewType::NewImage)]);
    assert_eq!(table.apply(&diff, wait()).await.unwrap(), [Step::EnableStream(StreamViewType::NewImage)]);
    let (enabled, view, first_arn) = described_stream(&table).await;
    assert_eq!((enabled, view.as_deref()), (true, Some("NEW_IMAGE")));
    assert_eq!(table.diff(&declared).await.unwrap().changes, []);
    // The same diff again is older than the table: refused before anything is sent.
    let stale = table.apply(&diff, wait()).await.unwrap_err();
    assert_eq!(
        stale.to_string(),
        format!(
            "invalid request: table {}: nothing applied; the diff is older than the table (it enables a stream of view \
             type NEW_IMAGE, and the table has one of NEW_IMAGE): run Table::diff again",
            table.name()
        )
    );

    // Another view type: the stream is disabled, then a new one enabled.
    let both = plain.clone().stream(StreamViewType::NewAndOldImages);
    let diff = table.diff(&both).await.unwrap();
    assert_eq!(
        diff.changes,
        [DiffChange::Stream {
            declared: Some(StreamViewType::NewAndOldImages),
            actual: Some(StreamViewType::NewImage)
        }]
    );
    let steps = [Step::DisableStream, Step::EnableStream(StreamViewType::NewAndOldImages)];
    assert_eq!(diff.plan().steps, steps);
    assert_eq!(
        diff.plan().to_string(),
        format!(
            "table {}: 2 step(s)\n  1. UpdateTable: disable the stream, wait until the table is ACTIVE\n  2. UpdateTable: \
             enable a stream of view type NEW_AND_OLD_IMAGES, wait until the table is ACTIVE\n",
            table.name()
        )
    );
    assert_eq!(table.apply(&diff, wait()).await.unwrap(), steps);
    let (enabled, view, arn) = described_stream(&table).await;
    assert_eq!((enabled, view.as_deref()), (true, Some("NEW_AND_OLD_IMAGES")));
    assert_ne!(arn, first_arn, "a new stream has a new ARN");
    assert_eq!(table.diff(&both).await.unwrap().changes, []);

    // Declared without a stream: disabled.
    let none = plain.clone().without_stream();
    let diff = table.diff(&none).await.unwrap();
    assert_eq!(diff.changes, [DiffChange::Stream { declared: None, actual: Some(StreamViewType::NewAndOldImages) }]);
    assert_eq!(table.apply(&diff, wait()).await.unwrap(), [Step::DisableStream]);
    assert!(!described_stream(&table).await.0);
    assert_eq!(table.stream_arn().await.unwrap(), None);
    assert_eq!(table.diff(&none).await.unwrap().changes, []);
}

#[test]
fn the_cloudformation_export_has_the_stream() {
    let cfn = Counters::layout().unwrap().cloudformation("counters");
    let properties = &cfn["Resources"]["CountersTable"]["Properties"];
    assert_eq!(properties["StreamSpecification"], serde_json::json!({ "StreamViewType": "NEW_AND_OLD_IMAGES" }));
    let plain = PlainCounters::layout().unwrap().cloudformation("counters");
    assert_eq!(plain["Resources"]["CountersTable"]["Properties"].get("StreamSpecification"), None);
    let keys = Counters::layout().unwrap().stream(StreamViewType::KeysOnly).cloudformation("counters");
    assert_eq!(
        keys["Resources"]["CountersTable"]["Properties"]["StreamSpecification"],
        serde_json::json!({ "StreamViewType": "KEYS_ONLY" })
    );
}

/// One change of a counter: its kind, `n` before and `n` after.
type Write = (ChangeKind, Option<u64>, Option<u64>);

/// The longest one `next_batch` may take here: a few requests to a local engine. A reader that
/// keeps asking for records that do not come fails the test with this message instead of
/// hanging it.
const BATCH_TIMEOUT: Duration = Duration::from_secs(10);

/// `reader.next_batch()`, failing the test if it takes more than [`BATCH_TIMEOUT`].
async fn next_batch(
    reader: &mut StreamReader<CounterItem>,
) -> Result<Vec<dynamo_entity::stream::StreamRecord<CounterItem>>, ReadError> {
    match tokio::time::timeout(BATCH_TIMEOUT, reader.next_batch()).await {
        Ok(batch) => batch,
        Err(_) => panic!("StreamReader::next_batch took more than {BATCH_TIMEOUT:?}: it keeps reading a shard"),
    }
}

/// Reads `reader` until it has caught up twice in a row (DynamoDB Local may publish a record
/// a moment after the write).
async fn read_all(reader: &mut StreamReader<CounterItem>) -> Vec<dynamo_entity::stream::StreamRecord<CounterItem>> {
    let mut out = Vec::new();
    let mut empty = 0;
    while empty < 2 {
        let batch = next_batch(reader).await.unwrap();
        if batch.is_empty() {
            empty += 1;
            tokio::time::sleep(Duration::from_millis(200)).await;
        } else {
            empty = 0;
            out.extend(batch);
        }
    }
    out
}

#[tokio::test]
async fn the_reader_reads_every_write_in_order_per_item() {
    let table = new_table("stream_reader", &Counters::layout().unwrap()).await;
    let arn = table.stream_arn().await.unwrap().unwrap();
    // A reader from LATEST, started after c0's write and before the others, sees only the
    // others. (DynamoDB Local answers a `LATEST` iterator of a shard without records with
    // `TrimmedDataAccessException` once other tables' streams have written meanwhile.)
    table.put(&Counter { id: "c0".into(), n: 9 }).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut latest = StreamReader::<CounterItem>::new(streams().await, arn.clone()).start_at(StartAt::Latest);
    assert_eq!(next_batch(&mut latest).await.unwrap(), []);

    // 3 more counters, each written 4 times (1 insert, 3 modifies), interleaved; then c2 deleted.
    for n in 0..4u64 {
        for id in ["c1", "c2", "c3"] {
            table.put(&Counter { id: id.into(), n }).await.unwrap();
        }
    }
    table.delete(Counter::key("c2")).await.unwrap();

    let mut reader = StreamReader::<CounterItem>::new(streams().await, arn.clone()).limit(2);
    let records = read_all(&mut reader).await;
    assert_eq!(records.len(), 14);
    let mut per_item: BTreeMap<String, Vec<Write>> = BTreeMap::new();
    let n = |c: &Option<CounterItem>| c.as_ref().map(|CounterItem::Counter(c)| c.n);
    for r in &records {
        let change = r.change.as_ref().expect("a Counter change");
        per_item.entry(change.key.clone()).or_default().push((change.kind, n(&change.old), n(&change.new)));
        assert!(r.skipped.is_empty());
    }
    use ChangeKind::{Insert, Modify, Remove};
    let writes = vec![
        (Insert, None, Some(0)),
        (Modify, Some(0), Some(1)),
        (Modify, Some(1), Some(2)),
        (Modify, Some(2), Some(3)),
    ];
    let mut c2 = writes.clone();
    c2.push((Remove, Some(3), None));
    assert_eq!(
        per_item,
        BTreeMap::from([
            ("PK=COUNTER#c0 SK=META".to_owned(), vec![(Insert, None, Some(9))]),
            ("PK=COUNTER#c1 SK=META".to_owned(), writes.clone()),
            ("PK=COUNTER#c2 SK=META".to_owned(), c2),
            ("PK=COUNTER#c3 SK=META".to_owned(), writes),
        ])
    );
    // Sequence numbers grow within a shard.
    let mut by_shard: BTreeMap<&str, Vec<u128>> = BTreeMap::new();
    for r in &records {
        by_shard.entry(&r.shard_id).or_default().push(r.sequence_number.parse().unwrap());
    }
    for seqs in by_shard.values() {
        assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    }
    let last = records.last().unwrap();
    assert!(reader.positions().contains(&(last.shard_id.clone(), last.sequence_number.clone())));

    // The LATEST reader: the same changes but c0's. A shard that `DescribeStream` reports with
    // an `EndingSequenceNumber` is closed ("can no longer receive more data",
    // https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_streams_DescribeStream.html),
    // so a reader from LATEST skips it: Dynoxide reports its one open shard so once it holds c0.
    assert_eq!(records[0].change.as_ref().unwrap().key, "PK=COUNTER#c0 SK=META");
    let expected = if common::diverges(Divergence::OpenShardReportedClosed).await { &[][..] } else { &records[1..] };
    assert_eq!(read_all(&mut latest).await, expected);

    // A reader resumed after the checkpoint reads only what comes after it.
    let mut resumed = StreamReader::<CounterItem>::new(streams().await, arn.clone());
    for (shard, seq) in reader.positions() {
        resumed = resumed.after(shard, seq);
    }
    assert_eq!(next_batch(&mut resumed).await.unwrap(), []);
    table.put(&Counter { id: "c4".into(), n: 7 }).await.unwrap();
    let more = read_all(&mut resumed).await;
    let changes: Vec<Change<CounterItem>> = more.into_iter().map(|r| r.change.unwrap()).collect();
    assert_eq!(
        changes,
        [Change {
            kind: Insert,
            key: "PK=COUNTER#c4 SK=META".into(),
            old: None,
            new: Some(CounterItem::Counter(Counter { id: "c4".into(), n: 7 }))
        }]
    );
}

#[tokio::test]
async fn a_strict_reader_stops_at_an_undecodable_record_and_a_lenient_one_reports_it() {
    let table = new_table("stream_reader_bad", &Counters::layout().unwrap()).await;
    let arn = table.stream_arn().await.unwrap().unwrap();
    table.put(&Counter { id: "a".into(), n: 1 }).await.unwrap();
    // Another writer's Counter without `n`.
    let mut bad = Counter { id: "b".into(), n: 2 }.to_item().unwrap();
    bad.remove("n");
    table.client().put_item().table_name(table.name()).set_item(Some(bad)).send().await.unwrap();
    table.put(&Counter { id: "c".into(), n: 3 }).await.unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;

    let mut strict = StreamReader::<CounterItem>::new(streams().await, arn.clone());
    let first = next_batch(&mut strict).await.unwrap();
    let ids: Vec<String> = first.iter().map(|r| r.change.as_ref().unwrap().key.clone()).collect();
    assert_eq!(ids, ["PK=COUNTER#a SK=META"]);
    let err = next_batch(&mut strict).await.unwrap_err();
    let ReadError::Decode { sequence_number, .. } = &err else { panic!("{err}") };
    let failed = sequence_number.clone();
    // It fails on the same record again until it is skipped.
    assert!(
        matches!(next_batch(&mut strict).await, Err(ReadError::Decode { sequence_number, .. }) if sequence_number == failed)
    );
    assert_eq!(strict.skip_failed().map(|(_, seq)| seq), Some(failed.clone()));
    let rest = read_all(&mut strict).await;
    let ids: Vec<String> = rest.iter().map(|r| r.change.as_ref().unwrap().key.clone()).collect();
    assert_eq!(ids, ["PK=COUNTER#c SK=META"]);

    let mut lenient = StreamReader::<CounterItem>::new(streams().await, arn).lenient();
    let all = read_all(&mut lenient).await;
    let summary: Vec<(bool, Vec<String>)> =
        all.iter().map(|r| (r.change.is_some(), r.skipped.iter().map(|s| s.key.clone()).collect())).collect();
    assert_eq!(summary, [(true, vec![]), (false, vec!["PK=COUNTER#b SK=META".to_owned()]), (true, vec![])]);
    assert_eq!(all[1].sequence_number, failed);
}

/// A Lambda record of an insert of counter `id` with sequence number `seq`.
fn lambda_record(id: &str, n: u64, seq: &str) -> EventRecord {
    let counter = Counter { id: id.into(), n };
    let mut record = EventRecord::default();
    record.event_name = "INSERT".into();
    record.change.sequence_number = Some(seq.into());
    record.change.keys = counter.primary_key().unwrap().to_item().into();
    record.change.new_image = counter.to_item().unwrap().into();
    record
}

fn batch(records: &[EventRecord]) -> Event {
    let mut event = Event::default();
    event.records = records.to_vec();
    event
}

#[tokio::test]
async fn a_partly_failed_batch_reports_the_first_failure_and_a_redelivery_handles_the_rest_once() {
    let records: Vec<EventRecord> = (1..=5).map(|i| lambda_record(&format!("c{i}"), i, &format!("{i}00"))).collect();
    let handled = std::sync::Mutex::new(Vec::<String>::new());
    let down = std::sync::atomic::AtomicBool::new(true);
    let run = |change: Change<CounterItem>, seq: String| {
        let (handled, down) = (&handled, &down);
        async move {
            if seq == "300" && down.load(std::sync::atomic::Ordering::SeqCst) {
                return Err("the downstream service is down");
            }
            let Some(CounterItem::Counter(c)) = change.new else { return Err("not an insert") };
            handled.lock().unwrap().push(format!("{seq}:{}", c.id));
            Ok(())
        }
    };

    // Record 3 of 5 fails: only its sequence number is reported; 4 and 5 are not handled.
    let outcome = handle::<CounterItem, _, _, _>(&batch(&records), Undecodable::Fail, run).await;
    let response = serde_json::to_value(&outcome.response).unwrap();
    assert_eq!(response, serde_json::json!({ "batchItemFailures": [{ "itemIdentifier": "300" }] }));
    assert_eq!(outcome.handled, ["100", "200"]);
    assert_eq!(outcome.not_handled, ["400", "500"]);
    assert!(
        matches!(&outcome.failure, Some((seq, RecordFailure::Handler("the downstream service is down"))) if seq == "300")
    );
    assert_eq!(*handled.lock().unwrap(), ["100:c1", "200:c2"]);

    // Lambda resumes from the reported sequence number: records 3 to 5 again.
    down.store(false, std::sync::atomic::Ordering::SeqCst);
    let outcome = handle::<CounterItem, _, _, _>(&batch(&records[2..]), Undecodable::Fail, run).await;
    assert_eq!(serde_json::to_value(&outcome.response).unwrap(), serde_json::json!({ "batchItemFailures": [] }));
    assert_eq!(outcome.handled, ["300", "400", "500"]);
    assert!(outcome.failure.is_none() && outcome.not_handled.is_empty());
    // Each record handled exactly once across both deliveries, in order.
    assert_eq!(*handled.lock().unwrap(), ["100:c1", "200:c2", "300:c3", "400:c4", "500:c5"]);
}

#[tokio::test]
async fn an_undecodable_record_fails_or_is_skipped_and_reported() {
    let mut records: Vec<EventRecord> =
        (1..=3).map(|i| lambda_record(&format!("c{i}"), i, &format!("{i}00"))).collect();
    records[1].change.new_image.remove("n");
    let ok = |_: Change<CounterItem>, _: String| async { Ok::<(), Error>(()) };

    let failed = handle::<CounterItem, _, _, _>(&batch(&records), Undecodable::Fail, ok).await;
    assert_eq!(
        serde_json::to_value(&failed.response).unwrap(),
        serde_json::json!({ "batchItemFailures": [{ "itemIdentifier": "200" }] })
    );
    assert_eq!(
        (failed.handled.as_slice(), failed.not_handled.as_slice()),
        (&["100".to_owned()][..], &["300".to_owned()][..])
    );
    assert!(matches!(&failed.failure, Some((seq, RecordFailure::Decode(_))) if seq == "200"));

    let skipped = handle::<CounterItem, _, _, _>(&batch(&records), Undecodable::Skip, ok).await;
    assert_eq!(serde_json::to_value(&skipped.response).unwrap(), serde_json::json!({ "batchItemFailures": [] }));
    assert_eq!(skipped.handled, ["100", "300"]);
    let skipped: Vec<&str> = skipped.skipped.iter().map(|(seq, _)| seq.as_str()).collect();
    assert_eq!(skipped, ["200"]);
}

//! Index backfills (`Table::backfill`): members written before `Member` gained its GSI1 (team
//! leaderboard) and GSI2 (sparse: mentor) templates get exactly the keys the templates give,
//! with conditional updates; the other entity's items are never touched; a second run changes
//! nothing; application writers running meanwhile keep every write; and a backfill whose
//! process is killed (SIGKILL) at a random point resumes from its checkpoints.
//!
//! The crash test runs the backfill in a child process: this test binary itself, running the
//! ignored test `backfills::crash_child` (which does nothing unless `BACKFILL_CHILD_TABLE` is
//! set). Its size is `BACKFILL_CRASH_ITEMS` (3,000 by default; BENCHMARKS.md runs 100,000).

use crate::common;

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::config::interceptors::BeforeSerializationInterceptorContextRef;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::BackfillReport;
use dynamo_entity::{Entity, Item, Table};
use dynamo_entity_local::LocalDynamoDb;

/// A member as the application wrote it at launch.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Member", pk = "MEMBER#<id>", sk = "META")]
pub struct MemberV1 {
    pub id: String,
    pub team: String,
    pub rank: u32,
    pub mentor: Option<String>,
    pub note: String,
}

/// The member today: a team leaderboard (GSI1) and a sparse index of mentees (GSI2).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "Member",
    pk = "MEMBER#<id>",
    sk = "META",
    gsi1 = "TEAM#<team>",
    gsi1_sk = "<rank>#<id>",
    gsi2 = "MENTOR#<mentor>",
    gsi2_sk = "<id>"
)]
pub struct Member {
    pub id: String,
    pub team: String,
    pub rank: u32,
    pub mentor: Option<String>,
    pub note: String,
}

/// Another entity of the table, which no backfill of `Member` may touch.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TEAM#<name>", sk = "META")]
pub struct Team {
    pub name: String,
    pub size: u32,
}

pub(crate) fn v1(i: u64) -> MemberV1 {
    MemberV1 {
        id: format!("m{i:06}"),
        team: format!("t{}", i % 7),
        rank: (i % 100) as u32,
        mentor: (i % 3 == 0).then(|| format!("m{:06}", i / 3)),
        note: format!("note {i}"),
    }
}

pub(crate) fn current(m: &MemberV1) -> Member {
    Member { id: m.id.clone(), team: m.team.clone(), rank: m.rank, mentor: m.mentor.clone(), note: m.note.clone() }
}

/// A small deterministic generator (64-bit LCG), for writers and kill points.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 = self.0.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

async fn new_table(test: &str) -> Table {
    common::table(test, &[Member::SCHEMA, Team::SCHEMA]).await
}

/// `n` members of the launch schema and `teams` teams (`BatchWriteItem`, 4 requests at a time).
pub(crate) async fn load(table: &Table, n: u64, teams: u64) {
    let members: Vec<MemberV1> = (0..n).map(v1).collect();
    let teams: Vec<Team> = (0..teams).map(|t| Team { name: format!("t{t}"), size: t as u32 }).collect();
    let outcome = table.batch_write().put_all(&members).put_all(&teams).concurrency(4).send().await.unwrap();
    assert!(outcome.unprocessed.is_empty(), "every item is written");
    assert_eq!(outcome.written as u64, n + teams.len() as u64);
}

fn key_text(item: &Item) -> String {
    format!("{}|{}", item["PK"].as_s().unwrap(), item["SK"].as_s().unwrap())
}

/// Every item of the table by `PK|SK`.
pub(crate) async fn snapshot(table: &Table) -> BTreeMap<String, Item> {
    common::scan_all(table).await.into_iter().map(|i| (key_text(&i), i)).collect()
}

/// Checks the table after a backfill: every member item is exactly `expected` (by id; its
/// attributes and all the keys `Member::to_item` gives, no other), every team item is as in
/// `before`, and besides them there are only the backfill's checkpoint items (`_migration`).
pub(crate) fn check_table(
    after: &BTreeMap<String, Item>,
    expected: &HashMap<String, Member>,
    before: &BTreeMap<String, Item>,
) {
    let mut members = 0;
    let mut checkpoints = 0;
    for (key, item) in after {
        match item.get("_type").and_then(|t| t.as_s().ok()).map(String::as_str) {
            Some("Member") => {
                let id = item["id"].as_s().unwrap();
                let want = expected.get(id).unwrap_or_else(|| panic!("member {id} should not exist (deleted?)"));
                assert_eq!(*item, want.to_item().unwrap(), "member {id} has exactly its attributes and keys");
                members += 1;
            }
            Some("Team") => assert_eq!(Some(item), before.get(key), "team {key} untouched"),
            Some("_migration") => checkpoints += 1,
            other => panic!("unexpected item {key} of type {other:?}"),
        }
    }
    assert_eq!(members, expected.len(), "every member is there");
    assert!(checkpoints > 0);
}

#[tokio::test]
async fn a_backfill_writes_the_new_keys_of_every_item_and_a_second_run_changes_nothing() {
    let table = new_table("backfill_basic").await;
    load(&table, 400, 10).await;
    // 20 members already written by today's code: they are skipped.
    for i in 400..420 {
        table.put(&current(&v1(i))).await.unwrap();
    }
    // One member whose rank is not a number: it is reported, by key, and left alone.
    table
        .client()
        .put_item()
        .table_name(table.name())
        .set_item(Some(HashMap::from([
            ("PK".to_owned(), AttributeValue::S("MEMBER#bad".into())),
            ("SK".to_owned(), AttributeValue::S("META".into())),
            ("_type".to_owned(), AttributeValue::S("Member".into())),
            ("id".to_owned(), AttributeValue::S("bad".into())),
            ("team".to_owned(), AttributeValue::S("t1".into())),
            ("rank".to_owned(), AttributeValue::S("first".into())),
            ("note".to_owned(), AttributeValue::S("x".into())),
        ])))
        .send()
        .await
        .unwrap();
    let before = snapshot(&table).await;

    let backfill = table.backfill::<Member>("member-indexes").segments(3).concurrency(2).page_size(40);
    assert_eq!(backfill.status().await.unwrap(), None);
    let report = backfill.run().await.unwrap();
    assert_eq!(
        (report.run, report.segments, report.completed, report.scanned, report.updated, report.skipped, report.failed),
        (1, 3, true, 421, 400, 20, 1),
        "{report}"
    );
    assert_eq!((report.vanished, report.changed), (0, 0));
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].0, "PK=MEMBER#bad SK=META");
    assert!(report.failures[0].1.contains("rank"), "{:?}", report.failures);
    assert!(report.read_units > 0.0 && report.write_units >= 400.0, "{report}");

    let expected: HashMap<String, Member> = (0..420).map(|i| (v1(i).id, current(&v1(i)))).collect();
    let after = snapshot(&table).await;
    let bad = after.get("MEMBER#bad|META").cloned().unwrap();
    assert_eq!(Some(&bad), before.get("MEMBER#bad|META"), "the undecodable item is untouched");
    let mut after_members = after.clone();
    after_members.remove("MEMBER#bad|META");
    check_table(&after_members, &expected, &before);
    assert_eq!(after.values().filter(|i| i["_type"].as_s().unwrap() == "_migration").count(), 4, "RUN and 3 segments");

    // The new access patterns answer from the backfilled keys.
    let team3 = table.query(Member::gsi1("t3")).all().await.unwrap();
    let mut want: Vec<&str> = expected.values().filter(|m| m.team == "t3").map(|m| m.id.as_str()).collect();
    want.sort_unstable();
    let mut got: Vec<&str> = team3.iter().map(|m| m.id.as_str()).collect();
    got.sort_unstable();
    assert_eq!(got, want);
    let mentees = table.query(Member::gsi2("m000001")).all().await.unwrap();
    assert_eq!(mentees.iter().map(|m| m.id.as_str()).collect::<Vec<_>>(), ["m000003"]);

    // Run again: the completed run's report, nothing read.
    let meter = table.metered();
    let again = meter.backfill::<Member>("member-indexes").run().await.unwrap();
    assert_eq!(again, report);
    assert_eq!(
        meter.consumed().read(),
        2.0,
        "two consistent reads of checkpoint items (the RUN item, one Query of the 3 segments), no scan"
    );

    // A new run reads everything and writes no item of the entity.
    let rerun = table.backfill::<Member>("member-indexes").segments(2).rerun().await.unwrap();
    assert_eq!((rerun.run, rerun.scanned, rerun.updated, rerun.skipped, rerun.failed), (2, 421, 0, 420, 1), "{rerun}");
    let mut after2 = snapshot(&table).await;
    after2.remove("MEMBER#bad|META");
    check_table(&after2, &expected, &before);
    let members_after = |m: &BTreeMap<String, Item>| {
        m.iter()
            .filter(|(_, i)| i["_type"].as_s().unwrap() == "Member")
            .map(|(k, i)| (k.clone(), i.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(members_after(&after2), members_after(&after_members), "the second run changed no item");
}

/// A handle as another service writes it: its key is lowercased (`key_case = "lower"`), so
/// `Ann` and `ann` have one key, and the key does not fix the name's case.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "HANDLE#<name>", sk = "META", key_case = "lower", gsi1 = "HANDLES", gsi1_sk = "<score>#<name>")]
pub struct Handle {
    pub name: String,
    pub score: u32,
}

/// An interceptor of a client that records each `UpdateItem`'s condition expression with its
/// placeholders replaced by the names and values they stand for.
#[derive(Debug, Default, Clone)]
struct Conditions(Arc<std::sync::Mutex<Vec<String>>>);

impl Intercept for Conditions {
    fn name(&self) -> &'static str {
        "Conditions"
    }

    fn read_before_serialization(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
        let Some(input) = context.input().downcast_ref::<UpdateItemInput>() else { return Ok(()) };
        let mut text = input.condition_expression().unwrap_or_default().to_owned();
        // Longest placeholders first, so `#n1` does not replace the start of `#n10`.
        let mut names: Vec<_> = input.expression_attribute_names().into_iter().flatten().collect();
        names.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        for (placeholder, name) in names {
            text = text.replace(placeholder.as_str(), name);
        }
        let mut values: Vec<_> = input.expression_attribute_values().into_iter().flatten().collect();
        values.sort_by_key(|(k, _)| std::cmp::Reverse(k.len()));
        for (placeholder, value) in values {
            let shown = match value {
                AttributeValue::S(s) => format!("'{s}'"),
                AttributeValue::N(n) => n.clone(),
                other => format!("{other:?}"),
            };
            text = text.replace(placeholder.as_str(), &shown);
        }
        self.0.lock().unwrap().push(text);
        Ok(())
    }
}

/// A backfill's condition checks every attribute its new keys are built from, but not a field
/// that the primary key fixes (the update is addressed to that key): `id` of `MEMBER#<id>`.
/// A field of a case-folded key is still checked: `Ann` could become `ANN` under one key.
#[tokio::test]
async fn a_backfill_checks_what_its_keys_are_built_from_but_what_the_primary_key_fixes() {
    let plain = common::table("backfill_condition", &[Member::SCHEMA, Team::SCHEMA, Handle::SCHEMA]).await;
    let recorder = Conditions::default();
    let config = plain.client().config().to_builder().interceptor(recorder.clone()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    table.put(&v1(3)).await.unwrap();
    let report = table.backfill::<Member>("member-condition").run().await.unwrap();
    assert_eq!((report.scanned, report.updated), (1, 1), "{report}");
    let member = recorder.0.lock().unwrap().drain(..).collect::<Vec<_>>();
    assert_eq!(
        member,
        [
            "attribute_exists(PK) AND _type = 'Member' AND attribute_not_exists(GSI1PK) AND attribute_not_exists(GSI1SK) \
          AND attribute_not_exists(GSI2PK) AND attribute_not_exists(GSI2SK) AND mentor = 'm000001' AND rank = 3 \
          AND team = 't3'"
        ]
    );

    // Written without its GSI1 keys, as before the index was declared.
    let mut handle = Handle { name: "Ann".to_owned(), score: 7 }.to_item().unwrap();
    handle.retain(|k, _| !k.starts_with("GSI1"));
    table.client().put_item().table_name(table.name()).set_item(Some(handle)).send().await.unwrap();
    let report = table.backfill::<Handle>("handle-condition").run().await.unwrap();
    assert_eq!((report.scanned, report.updated), (1, 1), "{report}");
    let handles = recorder.0.lock().unwrap().drain(..).collect::<Vec<_>>();
    assert_eq!(
        handles,
        [
            "attribute_exists(PK) AND _type = 'Handle' AND attribute_not_exists(GSI1PK) AND attribute_not_exists(GSI1SK) \
          AND name = 'Ann' AND score = 7"
        ]
    );
    assert_eq!(table.query(Handle::gsi1()).all().await.unwrap(), [Handle { name: "Ann".to_owned(), score: 7 }]);
}

/// A writer as the application's first version stored it: `team_name`, which the second
/// version renamed to `team` and built its GSI1 partition key from.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Writer", pk = "WRITER#<id>", sk = "META", schema(version = 1))]
pub struct WriterV1 {
    pub id: String,
    pub team_name: String,
    /// A team that replaces `team_name` when set.
    pub team_override: Option<String>,
    pub rank: u32,
}

/// The writer today (schema version 2): a team leaderboard on GSI1.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    name = "Writer",
    pk = "WRITER#<id>",
    sk = "META",
    gsi1 = "TEAM#<team>",
    gsi1_sk = "<rank>#<id>",
    schema(version = 2, from = WriterV1)
)]
pub struct Writer {
    pub id: String,
    pub team: String,
    pub rank: u32,
}

impl From<WriterV1> for Writer {
    fn from(v: WriterV1) -> Writer {
        Writer { id: v.id, team: v.team_override.unwrap_or(v.team_name), rank: v.rank }
    }
}

/// An interceptor that runs `write` (once) just before the first `UpdateItem` or
/// `TransactWriteItems` of the client it is on is sent, on a thread of its own, and waits for it: the application's write lands
/// between a backfill's read of an item and its update.
#[derive(Clone, Default)]
#[allow(clippy::type_complexity)]
struct WriteBeforeUpdate(Arc<std::sync::Mutex<Option<Box<dyn FnOnce() + Send>>>>);

impl std::fmt::Debug for WriteBeforeUpdate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("WriteBeforeUpdate")
    }
}

impl Intercept for WriteBeforeUpdate {
    fn name(&self) -> &'static str {
        "WriteBeforeUpdate"
    }

    fn read_before_serialization(
        &self,
        context: &BeforeSerializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        use aws_sdk_dynamodb::operation::transact_write_items::TransactWriteItemsInput;
        use aws_sdk_dynamodb::operation::update_item::UpdateItemInput;
        let input = context.input();
        let writes = input.downcast_ref::<UpdateItemInput>().is_some()
            || input.downcast_ref::<TransactWriteItemsInput>().is_some();
        let write = if writes { self.0.lock().unwrap().take() } else { None };
        if let Some(write) = write {
            std::thread::spawn(write).join().expect("the application's write ran");
        }
        Ok(())
    }
}

/// An item stored at an earlier schema version is decoded as that version and upgraded in
/// memory: its new keys come from attributes the current struct does not name (`team_name`,
/// `team_override`, which code of version 1 may still write). Its backfill condition checks
/// every attribute any declared version writes, each as read or still absent; an item of the
/// current version keeps the narrow condition, with its schema version (code of version 1
/// replacing it meanwhile would leave the same raw values under another meaning).
#[tokio::test]
async fn a_backfill_of_an_item_stored_at_an_earlier_version_checks_what_every_version_writes() {
    let plain = common::table("backfill_earlier_condition", &[Writer::SCHEMA]).await;
    let recorder = Conditions::default();
    let config = plain.client().config().to_builder().interceptor(recorder.clone()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    table
        .put(&WriterV1 { id: "w1".to_owned(), team_name: "red".to_owned(), team_override: None, rank: 4 })
        .await
        .unwrap();
    let mut current = Writer { id: "w2".to_owned(), team: "blue".to_owned(), rank: 9 }.to_item().unwrap();
    current.retain(|k, _| !k.starts_with("GSI1"));
    table.client().put_item().table_name(table.name()).set_item(Some(current)).send().await.unwrap();

    // Written by a service that stores no schema version: read as the oldest, version 1.
    let mut unversioned =
        WriterV1 { id: "w0".to_owned(), team_name: "gold".to_owned(), team_override: None, rank: 1 }.to_item().unwrap();
    unversioned.remove("_schema");
    table.client().put_item().table_name(table.name()).set_item(Some(unversioned)).send().await.unwrap();

    let report = table.backfill::<Writer>("writer-condition").segments(1).run().await.unwrap();
    assert_eq!((report.scanned, report.updated, report.changed, report.failed), (3, 3, 0, 0), "{report}");
    let mut conditions = recorder.0.lock().unwrap().drain(..).collect::<Vec<_>>();
    conditions.sort();
    assert_eq!(
        conditions,
        [
            "attribute_exists(PK) AND _type = 'Writer' AND attribute_not_exists(GSI1PK) \
             AND attribute_not_exists(GSI1SK) AND _schema = 1 AND id = 'w1' AND rank = 4 \
             AND attribute_not_exists(team) AND team_name = 'red' AND attribute_not_exists(team_override)",
            "attribute_exists(PK) AND _type = 'Writer' AND attribute_not_exists(GSI1PK) \
             AND attribute_not_exists(GSI1SK) AND _schema = 2 AND rank = 9 AND team = 'blue'",
            "attribute_exists(PK) AND _type = 'Writer' AND attribute_not_exists(GSI1PK) \
             AND attribute_not_exists(GSI1SK) AND attribute_not_exists(_schema) AND id = 'w0' AND rank = 1 \
             AND attribute_not_exists(team) AND team_name = 'gold' AND attribute_not_exists(team_override)",
        ]
    );
    let w1 = common::raw_item(&plain, "WRITER#w1", "META").await.unwrap();
    assert_eq!(w1.get("GSI1PK"), Some(&AttributeValue::S("TEAM#red".to_owned())));
    assert_eq!(w1.get("_schema"), Some(&AttributeValue::N("1".to_owned())), "a backfill writes keys, not the upgrade");
    assert_eq!(w1.get("team"), None);
}

/// Runs `migrate` (a backfill or a bulk upgrade of `Writer`) over one `WriterV1` item (`red`,
/// no override) while code of version 1 runs `write` between the migration's read of the item
/// and its first write; returns the migration's report and the item as stored after.
async fn race_with_version_1_code(
    test: &str,
    write: impl AsyncFnOnce(Table) + Send + 'static,
    migrate: impl AsyncFnOnce(Table) -> BackfillReport,
) -> (BackfillReport, Item, Table) {
    let plain = common::table(test, &[Writer::SCHEMA]).await;
    let w1 = WriterV1 { id: "w1".to_owned(), team_name: "red".to_owned(), team_override: None, rank: 4 };
    plain.put(&w1).await.unwrap();
    let hook = WriteBeforeUpdate::default();
    let app = plain.clone();
    *hook.0.lock().unwrap() = Some(Box::new(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(write(app));
    }));
    let config = plain.client().config().to_builder().interceptor(hook.clone()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    let report = migrate(table).await;
    assert!(hook.0.lock().unwrap().is_none(), "the application's write ran");
    let stored = common::raw_item(&plain, "WRITER#w1", "META").await.unwrap();
    (report, stored, plain)
}

/// Code of the first version writes `team_name` of an item stored at version 1 after the
/// backfill read the item and before its update (it knows nothing of the rename to `team`),
/// then, in a second run, sets `team_override`, which was absent when read. Each time the
/// condition fails, the backfill computes the keys again from the item as it then is, and GSI1
/// finds the writer under the team the application wrote (before, the condition watched only
/// `team` and `rank`, then only the attributes present when read, and the old team's key was
/// written over the new team's name).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_of_earlier_version_code_during_a_backfill_is_not_overwritten() {
    let s = |v: &str| AttributeValue::S(v.to_owned());
    let set = |attribute: &'static str, value: &'static str| {
        async move |app: Table| {
            let key = WriterV1::key("w1").into_encoded().unwrap();
            app.client()
                .update_item()
                .table_name(app.name())
                .key("PK", key.pk)
                .key("SK", key.sk)
                .update_expression("SET #a = :v")
                .expression_attribute_names("#a", attribute)
                .expression_attribute_values(":v", AttributeValue::S(value.to_owned()))
                .send()
                .await
                .unwrap();
        }
    };
    let backfill = async |table: Table| table.backfill::<Writer>("writer-race").segments(1).run().await.unwrap();
    for (test, attribute, team) in
        [("backfill_race_renamed", "team_name", "green"), ("backfill_race_absent", "team_override", "purple")]
    {
        let (report, stored, plain) = race_with_version_1_code(test, set(attribute, team), backfill).await;
        assert_eq!((report.scanned, report.updated, report.changed, report.failed), (1, 1, 1, 0), "{test}: {report}");
        assert_eq!(stored.get(attribute), Some(&s(team)), "{test}");
        assert_eq!(stored.get("GSI1PK"), Some(&s(&format!("TEAM#{team}"))), "{test}");
        assert_eq!(stored.get("GSI1SK"), Some(&s(&format!("{:010}#w1", 4))), "{test}");
        let found = plain.query(Writer::gsi1(team)).all().await.unwrap();
        assert_eq!(found, [Writer { id: "w1".to_owned(), team: team.to_owned(), rank: 4 }], "{test}");
        assert_eq!(plain.query(Writer::gsi1("red")).all().await.unwrap(), [], "{test}");
    }
}

/// The same race against a bulk upgrade (`Table::upgrade_all`): version 1 code sets
/// `team_override`, absent when the upgrade read the item. The write-back's condition fails,
/// the item is read again and upgraded as it then is: stored at version 2 with `team =
/// purple`, the version 1 attributes removed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_of_earlier_version_code_during_an_upgrade_is_not_overwritten() {
    let write = async |app: Table| {
        let mut v1 = app.get(WriterV1::key("w1")).await.unwrap().unwrap();
        v1.team_override = Some("purple".to_owned());
        app.put(&v1).await.unwrap();
    };
    let upgrade = async |table: Table| table.upgrade_all::<Writer>("writer-upgrade").segments(1).run().await.unwrap();
    let (report, stored, plain) = race_with_version_1_code("upgrade_race_absent", write, upgrade).await;
    assert_eq!((report.scanned, report.updated, report.changed, report.failed), (1, 1, 1, 0), "{report}");
    let want = Writer { id: "w1".to_owned(), team: "purple".to_owned(), rank: 4 };
    assert_eq!(stored, want.to_item().unwrap());
    assert_eq!(plain.query(Writer::gsi1("purple")).all().await.unwrap(), [want]);
}

/// An item stored at version 1 with 200 attributes another service added: its backfill's
/// condition checks the attributes the entity's versions write, not the other service's
/// (DynamoDB allows 300 operators in a condition), so it is backfilled, and a bulk upgrade
/// then writes it at version 2 and keeps those attributes as they are.
#[tokio::test]
async fn a_wide_item_of_an_earlier_version_is_backfilled_and_upgraded_keeping_other_services_attributes() {
    let table = common::table("backfill_wide_v1", &[Writer::SCHEMA]).await;
    let mut item =
        WriterV1 { id: "w1".to_owned(), team_name: "red".to_owned(), team_override: None, rank: 4 }.to_item().unwrap();
    let audit: Item = (0..200).map(|i| (format!("audit{i:03}"), AttributeValue::N(i.to_string()))).collect();
    item.extend(audit.clone());
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();

    let report = table.backfill::<Writer>("wide-keys").run().await.unwrap();
    assert_eq!((report.scanned, report.updated, report.failed), (1, 1, 0), "{report:?}");
    let report = table.upgrade_all::<Writer>("wide-upgrade").run().await.unwrap();
    assert_eq!((report.scanned, report.updated, report.failed), (1, 1, 0), "{report:?}");
    let mut want = Writer { id: "w1".to_owned(), team: "red".to_owned(), rank: 4 }.to_item().unwrap();
    want.extend(audit);
    assert_eq!(common::raw_item(&table, "WRITER#w1", "META").await.unwrap(), want);
}

/// What the application's writers did during a backfill.
#[derive(Default)]
struct WriterFigures {
    field_updates: AtomicU64,
    key_part_updates: AtomicU64,
    deletes: AtomicU64,
    creates: AtomicU64,
}

#[tokio::test]
async fn application_writes_made_during_a_backfill_are_never_overwritten() {
    // 1,500 members in CI; `BACKFILL_WRITERS_ITEMS` sets the size (BENCHMARKS.md runs 20,000).
    let n: u64 = std::env::var("BACKFILL_WRITERS_ITEMS").ok().and_then(|s| s.parse().ok()).unwrap_or(1_500);
    const WRITERS: u64 = 4;
    let table = new_table("backfill_writers").await;
    load(&table, n, 7).await;
    let before = snapshot(&table).await;

    let done = Arc::new(AtomicBool::new(false));
    let figures = Arc::new(WriterFigures::default());
    // Writer `w` owns the ids `i % WRITERS == w` (and its new ones), so the last write of each
    // id is known; it runs today's code, deployed before the backfill starts.
    let writers: Vec<_> = (0..WRITERS)
        .map(|w| {
            let table = table.clone();
            let done = Arc::clone(&done);
            let figures = Arc::clone(&figures);
            tokio::spawn(async move {
                let mut state: HashMap<String, Option<Member>> = HashMap::new();
                let mut rng = Lcg(w + 1);
                let mut next_new = n + w;
                while !done.load(Ordering::Relaxed) {
                    let i = rng.next(n / WRITERS) * WRITERS + w;
                    let id = v1(i).id;
                    let now = state.get(&id).cloned().unwrap_or_else(|| Some(current(&v1(i))));
                    let Some(mut m) = now else { continue };
                    match rng.next(10) {
                        0..=3 => {
                            let note = format!("edited {}", rng.next(1_000_000));
                            table.update(Member::key(&id)).set(Member::NOTE, &note).send().await.unwrap();
                            m.note = note;
                            figures.field_updates.fetch_add(1, Ordering::Relaxed);
                            state.insert(id, Some(m));
                        }
                        4..=6 => {
                            m.team = format!("t{}", rng.next(7));
                            m.rank = rng.next(100) as u32;
                            table.put(&m).await.unwrap();
                            figures.key_part_updates.fetch_add(1, Ordering::Relaxed);
                            state.insert(id, Some(m));
                        }
                        7 => {
                            table.delete(Member::key(&id)).await.unwrap();
                            figures.deletes.fetch_add(1, Ordering::Relaxed);
                            state.insert(id, None);
                        }
                        _ => {
                            let m = current(&v1(next_new));
                            next_new += WRITERS;
                            table.put(&m).await.unwrap();
                            figures.creates.fetch_add(1, Ordering::Relaxed);
                            state.insert(m.id.clone(), Some(m));
                        }
                    }
                }
                state
            })
        })
        .collect();

    let started = Instant::now();
    let report: BackfillReport = table
        .backfill::<Member>("writers")
        .segments(4)
        .concurrency(4)
        .page_size(25)
        .writes_in_flight(4)
        .run()
        .await
        .unwrap();
    let elapsed = started.elapsed();
    done.store(true, Ordering::Relaxed);
    let mut expected: HashMap<String, Member> = (0..n).map(|i| (v1(i).id, current(&v1(i)))).collect();
    for w in writers {
        for (id, m) in w.await.unwrap() {
            match m {
                Some(m) => expected.insert(id, m),
                None => expected.remove(&id),
            };
        }
    }
    let f = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let writes = f(&figures.field_updates) + f(&figures.key_part_updates) + f(&figures.deletes) + f(&figures.creates);
    println!(
        "backfill with {WRITERS} writers over {n} members in {:.2} s: {report}; writers made {writes} writes during it \
         ({} field updates, {} key-part updates, {} deletes, {} new members); {} members at the end",
        elapsed.as_secs_f64(),
        f(&figures.field_updates),
        f(&figures.key_part_updates),
        f(&figures.deletes),
        f(&figures.creates),
        expected.len()
    );
    assert!(report.completed);
    assert_eq!(report.failed, 0, "{:?}", report.failures);
    assert!(writes >= 100, "the writers ran during the backfill: {writes} writes");
    // Every item of the entity read was either updated, already right, or gone.
    assert_eq!(report.scanned, report.updated + report.skipped + report.vanished);
    check_table(&snapshot(&table).await, &expected, &before);
}

/// Turns on the table's stream (keys only): every write from now on is recorded.
pub(crate) async fn record_writes(table: &Table) {
    use aws_sdk_dynamodb::types::{StreamSpecification, StreamViewType};
    let spec = StreamSpecification::builder().stream_enabled(true).stream_view_type(StreamViewType::KeysOnly).build();
    table.client().update_table().table_name(table.name()).stream_specification(spec.unwrap()).send().await.unwrap();
}

/// The writes the stream recorded, as `PK|SK` -> event names (`INSERT`, `MODIFY`, `REMOVE`),
/// read until every shard is exhausted or gives nothing new. A `MODIFY` that changed
/// nothing is not recorded by DynamoDB.
pub(crate) async fn recorded_writes(table: &Table) -> BTreeMap<String, Vec<String>> {
    use aws_sdk_dynamodbstreams::types::ShardIteratorType;
    let server = LocalDynamoDb::shared().await.unwrap();
    let streams = server.streams_client();
    let desc = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let arn = desc.table.and_then(|t| t.latest_stream_arn).expect("the table has a stream");
    let shards = streams.describe_stream().stream_arn(&arn).send().await.unwrap().stream_description.unwrap().shards;
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for shard in shards.unwrap_or_default() {
        let mut iterator = streams
            .get_shard_iterator()
            .stream_arn(&arn)
            .shard_id(shard.shard_id.unwrap())
            .shard_iterator_type(ShardIteratorType::TrimHorizon)
            .send()
            .await
            .unwrap()
            .shard_iterator;
        let mut empty = 0;
        while let Some(it) = iterator.take() {
            let page = streams.get_records().shard_iterator(it).send().await.unwrap();
            let records = page.records.unwrap_or_default();
            if records.is_empty() {
                empty += 1;
                if empty == 3 {
                    break;
                }
                tokio::time::sleep(Duration::from_millis(50)).await;
            } else {
                empty = 0;
            }
            for r in records {
                let keys = r.dynamodb.and_then(|d| d.keys).unwrap();
                let text = |k: &str| match &keys[k] {
                    aws_sdk_dynamodbstreams::types::AttributeValue::S(s) => s.clone(),
                    other => format!("{other:?}"),
                };
                let event = r.event_name.map(|e| e.as_str().to_owned()).unwrap_or_default();
                out.entry(format!("{}|{}", text("PK"), text("SK"))).or_default().push(event);
            }
            iterator = page.next_shard_iterator;
        }
    }
    out
}

/// Checks that the stream recorded exactly one `MODIFY` for each of `items` members (the
/// backfill's update) and no other write except the checkpoints'.
fn check_written_once(writes: &BTreeMap<String, Vec<String>>, items: u64) {
    let mut members = 0;
    for (key, events) in writes {
        if key.starts_with("_MIGRATION#") {
            continue;
        }
        assert!(key.starts_with("MEMBER#"), "{key} was written: {events:?}");
        assert_eq!(events, &["MODIFY"], "{key} was written exactly once");
        members += 1;
    }
    assert_eq!(members, items, "every member was updated once");
}

/// A child process, killed (SIGKILL) when dropped: a failing test leaves none behind.
struct ChildGuard(std::process::Child);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        if self.0.try_wait().ok().flatten().is_none() {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

fn crash_items() -> u64 {
    std::env::var("BACKFILL_CRASH_ITEMS").ok().and_then(|s| s.parse().ok()).unwrap_or(3_000)
}

const CRASH_ID: &str = "crash";

fn crash_backfill(table: &Table, items: u64) -> dynamo_entity::migrate::Backfill<Member> {
    let page = if items > 10_000 { 100 } else { 20 };
    table.backfill::<Member>(CRASH_ID).segments(4).concurrency(4).page_size(page)
}

/// The child process of the crash test: runs the backfill of the table `BACKFILL_CHILD_TABLE`
/// (on `DYNAMODB_ENDPOINT`) until it is killed. Does nothing when the variable is unset.
#[tokio::test]
#[ignore = "the child process of backfill_resumes_after_its_process_is_killed"]
async fn crash_child() {
    let Ok(name) = std::env::var("BACKFILL_CHILD_TABLE") else { return };
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), name);
    let report = crash_backfill(&table, crash_items()).run().await.unwrap();
    println!("child finished: {report}");
}

#[tokio::test]
async fn a_backfill_resumes_after_its_process_is_killed() {
    let items = crash_items();
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = new_table("backfill_crash").await;
    let loading = Instant::now();
    load(&table, items, 50).await;
    let before = snapshot(&table).await;
    record_writes(&table).await;
    let seed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64;
    let kill_after = items / 10 + Lcg(seed).next(items * 7 / 10);
    println!(
        "{items} members loaded in {:.1} s; the child is killed once {kill_after} are scanned (seed {seed})",
        loading.elapsed().as_secs_f64()
    );

    let exe = std::env::current_exe().unwrap();
    let mut child = ChildGuard(
        std::process::Command::new(exe)
            .args(["backfills::crash_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("BACKFILL_CHILD_TABLE", table.name())
            .env("BACKFILL_CRASH_ITEMS", items.to_string())
            .env("DYNAMODB_ENDPOINT", server.endpoint())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap(),
    );
    let started = Instant::now();
    let backfill = crash_backfill(&table, items);
    let (mut last, mut last_progress) = (0, Instant::now());
    loop {
        if let Some(status) = child.0.try_wait().unwrap() {
            panic!("the child ended ({status}) before it was killed");
        }
        let scanned = backfill.status().await.unwrap().map_or(0, |r| r.scanned);
        if scanned >= kill_after {
            break;
        }
        if scanned > last {
            (last, last_progress) = (scanned, Instant::now());
        }
        assert!(last_progress.elapsed() < Duration::from_secs(120), "the child made no progress in 2 minutes");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    child.0.kill().unwrap(); // SIGKILL
    let status = child.0.wait().unwrap();
    assert!(!status.success(), "the child was killed: {status}");
    let at_kill = backfill.status().await.unwrap().unwrap();
    println!("killed after {:.2} s: {at_kill}", started.elapsed().as_secs_f64());
    assert!(!at_kill.completed, "the child was killed mid-run");
    assert!(at_kill.scanned >= kill_after && at_kill.scanned < items, "{at_kill}");

    let resumed_at = Instant::now();
    let report = backfill.run().await.unwrap();
    println!("resumed in {:.2} s: {report}", resumed_at.elapsed().as_secs_f64());
    assert!(report.completed);
    assert_eq!((report.run, report.failed, report.vanished, report.changed), (1, 0, 0, 0), "{report}");
    // Every member was read at least once; a page in progress at the kill is read again.
    assert!(report.scanned >= items && report.updated + report.skipped == report.scanned, "{report}");
    assert!(report.updated <= items, "{report}");

    let expected: HashMap<String, Member> = (0..items).map(|i| (v1(i).id, current(&v1(i)))).collect();
    let after = snapshot(&table).await;
    check_table(&after, &expected, &before);
    let run = &after[&format!("_MIGRATION#{CRASH_ID}|RUN")];
    assert_eq!(run["status"], AttributeValue::S("completed".into()));
    assert_eq!(run["run"], AttributeValue::N("1".into()), "one run, resumed");
    let segments: Vec<&Item> = after.values().filter(|i| i.get("segment").is_some()).collect();
    assert_eq!(segments.len(), 4);
    assert!(segments.iter().all(|s| s["done"] == AttributeValue::Bool(true) && s.get("last_key").is_none()));
    check_written_once(&recorded_writes(&table).await, items);
}

const WORKERS_ID: &str = "workers";

/// The segment checkpoint items of backfill `id` (one `Query` of its partition).
pub(crate) async fn checkpoints(table: &Table, id: &str) -> Vec<Item> {
    let out = table
        .client()
        .query()
        .table_name(table.name())
        .key_condition_expression("PK = :pk AND begins_with(SK, :s)")
        .expression_attribute_values(":pk", AttributeValue::S(format!("_MIGRATION#{id}")))
        .expression_attribute_values(":s", AttributeValue::S("SEGMENT#".into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.items.unwrap_or_default()
}
const WORKER_LEASE: Duration = Duration::from_secs(5);

fn shared_backfill(table: &Table, worker: &str) -> dynamo_entity::migrate::Backfill<Member> {
    table.backfill::<Member>(WORKERS_ID).segments(8).concurrency(2).page_size(20).worker(worker, WORKER_LEASE)
}

/// A worker process of the shared backfill test: runs the backfill of `BACKFILL_CHILD_TABLE` as
/// worker `BACKFILL_WORKER`. Does nothing when the variables are unset.
#[tokio::test]
#[ignore = "a worker process of three_workers_share_a_backfill"]
async fn worker_child() {
    let (Ok(name), Ok(worker)) = (std::env::var("BACKFILL_CHILD_TABLE"), std::env::var("BACKFILL_WORKER")) else {
        return;
    };
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), name);
    let report = shared_backfill(&table, &worker).run().await.unwrap();
    println!("worker {worker} finished: {report}");
}

#[tokio::test]
async fn three_workers_share_a_backfill_and_finish_the_segments_of_one_killed() {
    let items = crash_items();
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = new_table("backfill_workers").await;
    load(&table, items, 20).await;
    let before = snapshot(&table).await;
    record_writes(&table).await;

    let exe = std::env::current_exe().unwrap();
    let spawn = |worker: &str| {
        let child = std::process::Command::new(&exe)
            .args(["backfills::worker_child", "--exact", "--ignored", "--nocapture", "--test-threads=1"])
            .env("BACKFILL_CHILD_TABLE", table.name())
            .env("BACKFILL_WORKER", worker)
            .env("DYNAMODB_ENDPOINT", server.endpoint())
            .stdout(std::process::Stdio::null())
            .spawn()
            .unwrap();
        ChildGuard(child)
    };
    let mut workers: Vec<(String, ChildGuard)> =
        ["w1", "w2", "w3"].into_iter().map(|w| (w.to_owned(), spawn(w))).collect();
    let started = Instant::now();

    // Kill w1 once it holds a segment it has made progress in, and a quarter is scanned.
    let segment_items = |snapshot: &BTreeMap<String, Item>| -> Vec<Item> {
        snapshot.values().filter(|i| i.get("segment").is_some()).cloned().collect()
    };
    let held_by_w1 = loop {
        let status = shared_backfill(&table, "observer").status().await.unwrap();
        let scanned = status.map_or(0, |r| r.scanned);
        let segs = checkpoints(&table, WORKERS_ID).await;
        let held: Vec<String> = segs
            .iter()
            .filter(|s| {
                s.get("owner") == Some(&AttributeValue::S("w1".into()))
                    && s["done"] == AttributeValue::Bool(false)
                    && s["scanned"] != AttributeValue::N("0".into())
            })
            .map(|s| s["segment"].as_n().unwrap().clone())
            .collect();
        if scanned >= items / 4 && !held.is_empty() {
            break held;
        }
        assert!(workers.iter_mut().all(|(_, c)| c.0.try_wait().unwrap().is_none()), "a worker ended before the kill");
        assert!(started.elapsed() < Duration::from_secs(900), "no progress");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let (_, w1) = &mut workers[0];
    w1.0.kill().unwrap();
    assert!(!w1.0.wait().unwrap().success());
    let at_kill = shared_backfill(&table, "observer").status().await.unwrap().unwrap();
    println!("w1 killed after {:.2} s holding segments {held_by_w1:?}: {at_kill}", started.elapsed().as_secs_f64());
    assert!(!at_kill.completed);

    for (name, child) in workers.iter_mut().skip(1) {
        let status = child.0.wait().unwrap();
        assert!(status.success(), "worker {name} finished: {status}");
    }
    let report = shared_backfill(&table, "observer").status().await.unwrap().unwrap();
    println!("w2 and w3 finished after {:.2} s: {report}", started.elapsed().as_secs_f64());
    assert!(report.completed);
    // `changed` may be above 0: on a loaded machine, a page can outlast a lease, and the worker
    // that takes the segment over meets the items the other one is updating (its conditions
    // fail, and it finds them already right).
    assert_eq!((report.run, report.failed, report.vanished), (1, 0, 0), "{report}");

    let expected: HashMap<String, Member> = (0..items).map(|i| (v1(i).id, current(&v1(i)))).collect();
    let after = snapshot(&table).await;
    check_table(&after, &expected, &before);
    let run = &after[&format!("_MIGRATION#{WORKERS_ID}|RUN")];
    assert_eq!((&run["status"], &run["run"]), (&AttributeValue::S("completed".into()), &AttributeValue::N("1".into())));
    let segs = segment_items(&after);
    assert_eq!(segs.len(), 8);
    for s in &segs {
        assert_eq!(s["done"], AttributeValue::Bool(true));
        let owner = s["owner"].as_s().unwrap();
        if held_by_w1.contains(s["segment"].as_n().unwrap()) {
            assert_ne!(owner, "w1", "a surviving worker took over segment {:?}", s["segment"]);
        }
    }
    check_written_once(&recorded_writes(&table).await, items);
}

/// Members moved into their team's partition: the primary key template changed.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(name = "Member", pk = "TEAM#<team>", sk = "MEMBER#<id>")]
pub struct TeamMember {
    pub id: String,
    pub team: String,
    pub rank: u32,
    pub mentor: Option<String>,
    pub note: String,
}

impl From<MemberV1> for TeamMember {
    fn from(m: MemberV1) -> TeamMember {
        TeamMember { id: m.id, team: m.team, rank: m.rank, mentor: m.mentor, note: m.note }
    }
}

#[tokio::test]
async fn a_rekeying_moves_every_item_once_keeps_concurrent_writes_and_resumes() {
    const N: u64 = 600;
    let table = new_table("rekey").await;
    load(&table, N, 7).await;
    // 20 members already moved by today's code, and an item squatting member 5's new key.
    for i in N..N + 20 {
        table.put(&TeamMember::from(v1(i))).await.unwrap();
    }
    let squatter = TeamMember { note: "squatter".into(), ..TeamMember::from(v1(5)) };
    table.put(&squatter).await.unwrap();
    let before = snapshot(&table).await;
    record_writes(&table).await;

    let rekey = || table.rekey::<MemberV1, TeamMember>("into-teams", TeamMember::from).segments(3).page_size(20);
    // A writer edits the notes of members 100 to 149 during the move, at their old key or, once
    // moved, at the new one.
    let writer = {
        let table = table.clone();
        tokio::spawn(async move {
            let (mut at_old, mut at_new) = (0, 0);
            for i in 100..150 {
                let m = v1(i);
                let note = format!("edited {i}");
                match table.update(MemberV1::key(&m.id)).set(MemberV1::NOTE, &note).send().await {
                    Ok(_) => at_old += 1,
                    Err(dynamo_entity::Error::NotFound { .. }) => {
                        table
                            .update(TeamMember::key(&m.team, &m.id))
                            .set(TeamMember::NOTE, &note)
                            .send()
                            .await
                            .unwrap();
                        at_new += 1;
                    }
                    Err(e) => panic!("{e}"),
                }
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            (at_old, at_new)
        })
    };
    // The first run is stopped (its future dropped) once a third of the members are read.
    let first = tokio::spawn({
        let table = table.clone();
        async move {
            table.rekey::<MemberV1, TeamMember>("into-teams", TeamMember::from).segments(3).page_size(20).run().await
        }
    });
    loop {
        let scanned = rekey().status().await.unwrap().map_or(0, |r| r.scanned);
        if scanned >= N / 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    first.abort();
    assert!(first.await.unwrap_err().is_cancelled());
    let stopped = rekey().status().await.unwrap().unwrap();
    assert!(!stopped.completed, "{stopped}");
    let report = rekey().run().await.unwrap();
    let (at_old, at_new) = writer.await.unwrap();
    println!("stopped at {stopped}\nresumed: {report}\nwriter: {at_old} notes edited before the move, {at_new} after");
    assert!(report.completed);
    assert_eq!(report.failed, 1, "{report}");
    assert_eq!(report.failures[0].0, "PK=MEMBER#m000005 SK=META");
    assert!(
        report.failures[0].1.contains("already at its new key PK=TEAM#t5 SK=MEMBER#m000005"),
        "{:?}",
        report.failures
    );
    assert_eq!(report.vanished, 0);

    // Every member is at its new key, with the writer's note where it wrote one; member 5
    // stays at its old key beside the squatter; the teams are untouched.
    let after = snapshot(&table).await;
    let mut members = 0;
    for (key, item) in &after {
        match item["_type"].as_s().unwrap().as_str() {
            "Member" if key == "MEMBER#m000005|META" => assert_eq!(Some(item), before.get(key)),
            "Member" => {
                let m = TeamMember::from_item(item).unwrap();
                let i: u64 = m.id[1..].parse().unwrap();
                let mut want = if i == 5 { squatter.clone() } else { TeamMember::from(v1(i)) };
                if (100..150).contains(&i) {
                    want.note = format!("edited {i}");
                }
                assert_eq!(*item, want.to_item().unwrap(), "{key}");
                members += 1;
            }
            "Team" => assert_eq!(Some(item), before.get(key)),
            "_migration" => {}
            other => panic!("{key} of type {other}"),
        }
    }
    assert_eq!(members, N + 20);
    // Each member moved once: one REMOVE of its old key, one INSERT of its new one.
    let writes = recorded_writes(&table).await;
    let mut moved = 0;
    for (key, events) in &writes {
        let count = |e: &str| events.iter().filter(|x| *x == e).count();
        if key.starts_with("MEMBER#") {
            assert_eq!(count("REMOVE"), 1, "{key}: {events:?}");
            assert_eq!(count("INSERT"), 0, "{key}: {events:?}");
            moved += 1;
        } else if key.starts_with("TEAM#") {
            assert_eq!(count("INSERT"), 1, "{key}: {events:?}");
            assert_eq!(count("REMOVE"), 0, "{key}: {events:?}");
        } else {
            assert!(key.starts_with("_MIGRATION#"), "{key} was written: {events:?}");
        }
    }
    assert_eq!(moved, N - 1);

    let again = rekey().rerun().await.unwrap();
    assert_eq!((again.run, again.updated, again.skipped, again.failed), (2, 0, N + 20, 1), "{again}");
}

/// A re-keying meets one member with 200 attributes another service added. The move carries
/// them to the new item and must check each (a write made to one meanwhile would be lost):
/// over DynamoDB's 300 operators, this one item is reported as failed, naming it, and stays
/// where it is; the other members move. Before, DynamoDB refused the transaction and the run
/// stopped at that item every time it was resumed.
#[tokio::test]
async fn a_rekeying_reports_an_item_too_wide_to_move_and_moves_the_others() {
    let table = common::table("rekey_wide", &[MemberV1::SCHEMA, TeamMember::SCHEMA]).await;
    for i in 0..12 {
        table.put(&v1(i)).await.unwrap();
    }
    let mut wide = v1(12).to_item().unwrap();
    let audit: Item = (0..200).map(|i| (format!("audit{i:03}"), AttributeValue::N(i.to_string()))).collect();
    wide.extend(audit.clone());
    table.client().put_item().table_name(table.name()).set_item(Some(wide.clone())).send().await.unwrap();

    let report = table
        .rekey::<MemberV1, TeamMember>("wide-into-teams", TeamMember::from)
        .segments(1)
        .page_size(5)
        .run()
        .await
        .unwrap();
    assert_eq!((report.updated, report.failed, report.completed), (12, 1, true), "{report}");
    let why = "TransactWriteItems of Member PK=MEMBER#m000012 SK=META: ConditionExpression has 413 operators and \
               functions, over DynamoDB's limit of 300 (operators per expression); nothing was sent: a move checks \
               each of the item's 208 attributes, and each attribute Member declares that the item lacks, so that a \
               write made meanwhile is not lost; move this item by hand";
    assert_eq!(report.failures, [("PK=MEMBER#m000012 SK=META".to_owned(), why.to_owned())]);
    let after = snapshot(&table).await;
    assert_eq!(after.get("MEMBER#m000012|META"), Some(&wide), "the wide item stays as it was");
    for i in 0..12 {
        let moved = TeamMember::from(v1(i));
        let key = format!("TEAM#{}|MEMBER#{}", moved.team, moved.id);
        assert_eq!(after.get(&key), Some(&moved.to_item().unwrap()), "{key}");
    }
}

/// Another service writes its own attributes of a member (changes one, adds one, removes one)
/// between the re-keying's read and its move: the move's condition fails, the item is read
/// again, and the new item carries the attributes as the service left them.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rekeying_keeps_what_another_service_wrote_to_its_attributes_meanwhile() {
    let plain = common::table("rekey_foreign_race", &[MemberV1::SCHEMA, TeamMember::SCHEMA]).await;
    let mut item = v1(1).to_item().unwrap();
    item.insert("audit".to_owned(), AttributeValue::S("v1".to_owned()));
    item.insert("lock_token".to_owned(), AttributeValue::S("t".to_owned()));
    plain.client().put_item().table_name(plain.name()).set_item(Some(item)).send().await.unwrap();
    let hook = WriteBeforeUpdate::default();
    let app = plain.clone();
    *hook.0.lock().unwrap() = Some(Box::new(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        runtime.block_on(async {
            app.client()
                .update_item()
                .table_name(app.name())
                .key("PK", AttributeValue::S("MEMBER#m000001".to_owned()))
                .key("SK", AttributeValue::S("META".to_owned()))
                .update_expression("SET audit = :a, flag = :f REMOVE lock_token")
                .expression_attribute_values(":a", AttributeValue::S("v2".to_owned()))
                .expression_attribute_values(":f", AttributeValue::S("set meanwhile".to_owned()))
                .send()
                .await
                .unwrap();
        });
    }));
    let config = plain.client().config().to_builder().interceptor(hook.clone()).build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    let report = table.rekey::<MemberV1, TeamMember>("foreign-race", TeamMember::from).run().await.unwrap();
    assert_eq!((report.updated, report.changed, report.failed), (1, 1, 0), "{report}");
    assert!(hook.0.lock().unwrap().is_none(), "the service's write ran");
    let moved = TeamMember::from(v1(1));
    let mut want = moved.to_item().unwrap();
    want.insert("audit".to_owned(), AttributeValue::S("v2".to_owned()));
    want.insert("flag".to_owned(), AttributeValue::S("set meanwhile".to_owned()));
    let after = snapshot(&plain).await;
    assert_eq!(after.get(&format!("TEAM#{}|MEMBER#{}", moved.team, moved.id)), Some(&want));
    assert_eq!(after.get("MEMBER#m000001|META"), None);
}

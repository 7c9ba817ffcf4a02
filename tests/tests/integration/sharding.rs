//! Write sharding against DynamoDB Local: items spread over the shards of a sharded GSI
//! partition, and the fan-out query reads them back in sort-key order, page by page with one
//! cursor, with nothing lost or duplicated.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use dynamo_entity::query::QueryRequest;
use dynamo_entity::{Cursor, Entity, Error, KeyPart, Table};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Stage {
    Queued,
    Running,
    Done,
}

/// GSI1: the jobs of one stage, spread over 8 shards by id, by queue time (a composite `S` sort
/// key). GSI2: a team's jobs, over 4 shards by owner (a non-key field). GSI3: every job, over
/// 16 shards, by score (a numeric `N` sort key).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "JOB#<id>",
    sk = "META",
    gsi1 = "JOBS#<stage>#<shard(id, 8)>",
    gsi1_sk = "<queued_at>#<id>",
    gsi2 = "TEAM#<team>#<shard(owner, 4)>",
    gsi2_sk = "<queued_at>",
    gsi3 = "ALL#<shard(id, 16)>",
    gsi3_sk = "<score>"
)]
struct Job {
    id: String,
    stage: Stage,
    queued_at: u32,
    team: String,
    owner: String,
    score: u64,
}

const STAGES: [Stage; 3] = [Stage::Queued, Stage::Running, Stage::Done];
const OWNERS: [&str; 5] = ["alice", "bob", "carol", "dave", "erin"];

/// 360 jobs: stages in turn, distinct scrambled queue times and scores, two teams.
fn jobs() -> Vec<Job> {
    (0..360u32)
        .map(|i| Job {
            id: format!("j{i:04}"),
            stage: STAGES[(i % 3) as usize],
            queued_at: (i * 7919) % 100_003,
            team: if i % 2 == 0 { "red".into() } else { "blue".into() },
            owner: OWNERS[(i % 5) as usize].into(),
            score: u64::from((i * 104_729) % 1_000_003),
        })
        .collect()
}

/// FNV-1a 64 written again here, from its definition, to check the documented shard formula.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

async fn seeded(test: &str) -> (Table, Vec<Job>) {
    let table = common::table(test, &[Job::schema()]).await;
    let all = jobs();
    let outcome = table.batch_put(&all).await.expect("the jobs are written");
    assert!(outcome.unprocessed.is_empty());
    (table, all)
}

fn ids(jobs: &[Job]) -> Vec<String> {
    jobs.iter().map(|j| j.id.clone()).collect()
}

/// Pages through `make()` with cursors until the last page; every page has at most `limit`
/// items. Returns the ids in order and the number of pages.
async fn page_through<S>(make: impl Fn() -> QueryRequest<Job, S>, limit: usize) -> (Vec<String>, usize) {
    let mut out = Vec::new();
    let mut cursor: Option<Cursor> = None;
    let mut pages = 0;
    loop {
        let page = make().page_items(limit).after(cursor.take()).send().await.expect("a page");
        assert!(page.items.len() <= limit, "page of {} items over the limit {limit}", page.items.len());
        pages += 1;
        out.extend(ids(&page.items));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => return (out, pages),
        }
        assert!(pages < 1000, "the cursor does not advance");
    }
}

fn expected(all: &[Job], keep: impl Fn(&Job) -> bool, descending: bool) -> Vec<String> {
    let mut v: Vec<&Job> = all.iter().filter(|j| keep(j)).collect();
    v.sort_by(|a, b| (a.queued_at, &a.id).cmp(&(b.queued_at, &b.id)));
    if descending {
        v.reverse();
    }
    v.into_iter().map(|j| j.id.clone()).collect()
}

#[tokio::test]
async fn items_carry_the_documented_shard_and_spread_over_the_shards() {
    let (table, all) = seeded("shard_keys").await;
    let mut shards_used = std::collections::BTreeSet::new();
    for job in all.iter().take(40) {
        let item = common::raw_item(&table, &format!("JOB#{}", job.id), "META").await.expect("stored");
        let shard = fnv(&job.id) % 8;
        shards_used.insert(shard);
        let stage = match job.stage {
            Stage::Queued => "queued",
            Stage::Running => "running",
            Stage::Done => "done",
        };
        assert_eq!(item.get("GSI1PK"), Some(&AttributeValue::S(format!("JOBS#{stage}#{shard}"))));
        assert_eq!(item.get("GSI1SK"), Some(&AttributeValue::S(format!("{:010}#{}", job.queued_at, job.id))));
        assert_eq!(item.get("GSI2PK"), Some(&AttributeValue::S(format!("TEAM#{}#{}", job.team, fnv(&job.owner) % 4))));
        // 16 shards are written with two digits.
        assert_eq!(item.get("GSI3PK"), Some(&AttributeValue::S(format!("ALL#{:02}", fnv(&job.id) % 16))));
        assert_eq!(item.get("GSI3SK"), Some(&AttributeValue::N(job.score.to_string())));
    }
    assert_eq!(shards_used.len(), 8, "40 ids use every one of the 8 shards");
}

#[tokio::test]
async fn pages_in_both_orders_are_the_sorted_list() {
    let (table, all) = seeded("shard_pages").await;
    let queued = expected(&all, |j| j.stage == Stage::Queued, false);
    assert_eq!(queued.len(), 120);

    // Small pages, ascending and descending.
    let (got, pages) = page_through(|| table.query(Job::gsi1(&Stage::Queued)), 7).await;
    assert_eq!(got, queued);
    assert_eq!(pages, 18); // 17 full pages and the last 1 item (120 = 17 × 7 + 1)
    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Queued)).descending(), 11).await;
    assert_eq!(got, expected(&all, |j| j.stage == Stage::Queued, true));
    // A page size smaller than the limit makes every shard read in several requests.
    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Running)).page_size(3), 13).await;
    assert_eq!(got, expected(&all, |j| j.stage == Stage::Running, false));
    // Without a limit: `all` follows the cursors of rounds of one request per shard.
    let got = table.query(Job::gsi1(&Stage::Done)).page_size(4).all().await.unwrap();
    assert_eq!(ids(&got), expected(&all, |j| j.stage == Stage::Done, false));
    let got = table.query(Job::gsi1(&Stage::Done)).descending().all().await.unwrap();
    assert_eq!(ids(&got), expected(&all, |j| j.stage == Stage::Done, true));
    // One page of exactly everything ends without a cursor.
    let page = table.query(Job::gsi1(&Stage::Queued)).max_items(120).send().await.unwrap();
    assert_eq!(ids(&page.items), queued);
    assert_eq!(page.cursor, None);
}

#[tokio::test]
async fn sort_key_conditions_and_filters_apply_to_every_shard() {
    let (table, all) = seeded("shard_conditions").await;
    let q = |j: &Job| j.stage == Stage::Queued;

    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Queued)).sk_gt((&50_000u32,)), 6).await;
    assert_eq!(got, expected(&all, |j| q(j) && j.queued_at > 50_000, false));
    let (got, _) = page_through(
        || table.query(Job::gsi1(&Stage::Queued)).sk_between((&20_000u32,), (&70_000u32,)).descending(),
        9,
    )
    .await;
    assert_eq!(got, expected(&all, |j| q(j) && (20_000..=70_000).contains(&j.queued_at), true));
    let one = all.iter().find(|j| q(j)).unwrap();
    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Queued)).sk_begins_with((&one.queued_at,)), 2).await;
    assert_eq!(got, vec![one.id.clone()]);
    let (got, _) =
        page_through(|| table.query(Job::gsi1(&Stage::Queued)).sk_eq((&one.queued_at, one.id.as_str())), 2).await;
    assert_eq!(got, vec![one.id.clone()]);

    // A filter keeps 1 item in 5: shards run dry before a page is full and are read again.
    let (got, _) =
        page_through(|| table.query(Job::gsi1(&Stage::Queued)).filter(Job::OWNER.eq(&"alice".to_owned())), 4).await;
    assert_eq!(got, expected(&all, |j| q(j) && j.owner == "alice", false));

    // A numeric sort key over 16 shards, highest first.
    let (got, _) = page_through(|| table.query(Job::gsi3()).descending(), 25).await;
    let mut by_score: Vec<&Job> = all.iter().collect();
    by_score.sort_by_key(|j| std::cmp::Reverse(j.score));
    assert_eq!(got, by_score.iter().map(|j| j.id.clone()).collect::<Vec<_>>());
}

#[tokio::test]
async fn the_cursor_is_bound_to_its_query_and_refuses_tampering() {
    let (table, _) = seeded("shard_cursor").await;
    let page = table.query(Job::gsi1(&Stage::Queued)).page_items(5).send().await.unwrap();
    let cursor = page.cursor.clone().expect("more pages");
    let cursor_error = |r: Result<dynamo_entity::Page<Job>, Error>| match r {
        Err(Error::Cursor { reason }) => reason,
        other => panic!("expected a cursor error, got {other:?}"),
    };

    let other_stage = table.query(Job::gsi1(&Stage::Running)).page_items(5).after(cursor.clone()).send().await;
    let reason = cursor_error(other_stage);
    assert!(
        reason.starts_with("it belongs to a query of Job on GSI1 partition S:JOBS#queued#0..S:JOBS#queued#7 (8 shards), not of Job on GSI1 partition S:JOBS#running#0..S:JOBS#running#7 (8 shards)"),
        "{reason}"
    );
    let reversed = table.query(Job::gsi1(&Stage::Queued)).descending().page_items(5).after(cursor.clone()).send().await;
    assert_eq!(
        cursor_error(reversed),
        "it belongs to a query of Job on GSI1 partition S:JOBS#queued#0..S:JOBS#queued#7 (8 shards) with another sort order or sort-key condition"
    );
    let narrowed =
        table.query(Job::gsi1(&Stage::Queued)).sk_gt((&5u32,)).page_items(5).after(cursor.clone()).send().await;
    assert!(cursor_error(narrowed).ends_with("with another sort order or sort-key condition"));

    // A cursor of a query of one partition, and the other way round.
    let single = table.query(Job::query("j0000")).send().await.unwrap();
    assert_eq!(single.cursor, None);
    let plain = Cursor::from(URL_SAFE_NO_PAD.encode(
        r#"{"v":1,"e":"Job","i":"primary","p":"S:JOB#j0000","q":"x","k":[["PK","S","JOB#j0000"],["SK","S","META"]]}"#,
    ));
    let wrong_kind = table.query(Job::gsi1(&Stage::Queued)).page_items(5).after(plain).send().await;
    assert_eq!(cursor_error(wrong_kind), "it is the cursor of a query of one partition, not of a sharded query");
    let wrong_kind = table.query(Job::query("j0000")).after(cursor.clone()).send().await;
    assert_eq!(cursor_error(wrong_kind), "it is the cursor of a sharded query, not of a query of one partition");

    // Moving a shard's position into another shard's partition.
    let json = String::from_utf8(URL_SAFE_NO_PAD.decode(cursor.as_str()).unwrap()).unwrap();
    let mut wire: serde_json::Value = serde_json::from_str(&json).unwrap();
    let positions = wire["s"].as_array_mut().unwrap();
    let (at, key) = positions
        .iter_mut()
        .enumerate()
        .find_map(|(i, p)| p.as_array_mut().filter(|k| !k.is_empty()).map(|k| (i, k)))
        .expect("a shard with a position");
    for attr in key.iter_mut() {
        if attr[0] == "GSI1PK" {
            attr[2] = serde_json::Value::String(format!("JOBS#queued#{}", (at + 1) % 8));
        }
    }
    let forged = Cursor::from(URL_SAFE_NO_PAD.encode(wire.to_string()));
    let reason = cursor_error(table.query(Job::gsi1(&Stage::Queued)).page_items(5).after(forged).send().await);
    assert_eq!(
        reason,
        format!(
            "its key lies in partition S:JOBS#queued#{}, outside the query's partition S:JOBS#queued#{at}",
            (at + 1) % 8
        )
    );
    // Dropping a shard.
    let mut wire: serde_json::Value = serde_json::from_str(&json).unwrap();
    wire["s"].as_array_mut().unwrap().pop();
    let short = Cursor::from(URL_SAFE_NO_PAD.encode(wire.to_string()));
    let reason = cursor_error(table.query(Job::gsi1(&Stage::Queued)).page_items(5).after(short).send().await);
    assert_eq!(reason, "it has 7 shard positions, but the query has 8 shards");
    let garbage = table.query(Job::gsi1(&Stage::Queued)).after(Cursor::from("not a cursor")).send().await;
    assert_eq!(cursor_error(garbage), "not a cursor of this library (bad encoding)");

    // The genuine cursor still works: the second page follows the first.
    let next = table.query(Job::gsi1(&Stage::Queued)).page_items(5).after(cursor).send().await.unwrap();
    let both: Vec<String> = ids(&page.items).into_iter().chain(ids(&next.items)).collect();
    let all = table.query(Job::gsi1(&Stage::Queued)).max_items(10).send().await.unwrap();
    assert_eq!(both, ids(&all.items));
}

#[tokio::test]
async fn updates_move_items_between_partitions_and_shards() {
    let (table, mut all) = seeded("shard_updates").await;
    // Start 30 queued jobs: each leaves JOBS#queued#s for JOBS#running#s (same shard, by id).
    let moving: Vec<String> = all.iter().filter(|j| j.stage == Stage::Queued).take(30).map(|j| j.id.clone()).collect();
    for id in &moving {
        let updated = table.update(Job::key(id)).set(Job::STAGE, &Stage::Running).send().await.unwrap().unwrap();
        assert_eq!(updated.stage, Stage::Running);
        let item = common::raw_item(&table, &format!("JOB#{id}"), "META").await.unwrap();
        assert_eq!(item.get("GSI1PK"), Some(&AttributeValue::S(format!("JOBS#running#{}", fnv(id) % 8))));
    }
    for j in all.iter_mut().filter(|j| moving.contains(&j.id)) {
        j.stage = Stage::Running;
    }
    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Queued)), 8).await;
    assert_eq!(got, expected(&all, |j| j.stage == Stage::Queued, false));
    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Running)).descending(), 8).await;
    assert_eq!(got, expected(&all, |j| j.stage == Stage::Running, true));

    // A new owner moves the job to the owner's shard of GSI2; the team must be set with it.
    let job = all[0].clone();
    let moved = table
        .update(Job::key(&job.id))
        .set(Job::OWNER, &"zed".to_owned())
        .set(Job::TEAM, &job.team)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(moved.owner, "zed");
    let item = common::raw_item(&table, &format!("JOB#{}", job.id), "META").await.unwrap();
    assert_eq!(item.get("GSI2PK"), Some(&AttributeValue::S(format!("TEAM#{}#{}", job.team, fnv("zed") % 4))));
    let team: Vec<String> = ids(&table.query(Job::gsi2(&job.team)).sk_eq(&job.queued_at).all().await.unwrap());
    assert_eq!(team, vec![job.id.clone()]);

    let without_team = table.update(Job::key(&job.id)).set(Job::OWNER, &"amy".to_owned()).render();
    match without_team {
        Err(Error::Invalid { reason }) => assert_eq!(
            reason,
            "this update of Job sets `owner`, which GSI2PK `TEAM#<team>#<shard(owner, 4)>` is built from; set `team` in the same update so the key can be rebuilt"
        ),
        other => panic!("expected Invalid, got {other:?}"),
    }
    // Sent, it reads the team from the item: the job moves to amy's shard.
    let amy = table.update(Job::key(&job.id)).set(Job::OWNER, &"amy".to_owned()).send().await.unwrap().unwrap();
    assert_eq!(amy.owner, "amy");
    let item = common::raw_item(&table, &format!("JOB#{}", job.id), "META").await.unwrap();
    assert_eq!(item.get("GSI2PK"), Some(&AttributeValue::S(format!("TEAM#{}#{}", job.team, fnv("amy") % 4))));
}

#[tokio::test]
async fn a_sharded_index_has_no_single_item_collection() {
    let (table, _) = seeded("shard_collection").await;
    let err = table.collection(Job::gsi1(&Stage::Queued)).send().await.unwrap_err();
    match err {
        Error::Invalid { reason } => assert_eq!(
            reason,
            "GSI1 of Job is sharded over 8 partitions (`JOBS#<stage>#<shard(id, 8)>`), so it has no single item collection; query it with Table::query, which reads every shard"
        ),
        other => panic!("expected Invalid, got {other:?}"),
    }
}

/// Writes the same sharded partitions as `Job` (the design lint reports this as a filter on
/// the entity type): a query of `Job` reads its items and leaves them out.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ALARM#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(id, 8)>", gsi1_sk = "<queued_at>#<id>")]
struct Alarm {
    id: String,
    stage: Stage,
    queued_at: u32,
}

#[tokio::test]
async fn items_of_other_entities_in_the_shards_are_left_out() {
    let table = common::table("shard_mixed", &[Job::schema(), Alarm::schema()]).await;
    let all = jobs();
    assert!(table.batch_put(&all).await.unwrap().unprocessed.is_empty());
    let alarms: Vec<Alarm> =
        (0..90u32).map(|i| Alarm { id: format!("a{i:03}"), stage: Stage::Queued, queued_at: i * 1111 }).collect();
    assert!(table.batch_put(&alarms).await.unwrap().unprocessed.is_empty());

    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Queued)), 10).await;
    assert_eq!(got, expected(&all, |j| j.stage == Stage::Queued, false));
    let (got, _) = page_through(|| table.query(Job::gsi1(&Stage::Queued)).descending().page_size(5), 6).await;
    assert_eq!(got, expected(&all, |j| j.stage == Stage::Queued, true));
    let mut alarm_ids: Vec<(u32, String)> = alarms.iter().map(|a| (a.queued_at, a.id.clone())).collect();
    alarm_ids.sort();
    let got = table.query(Alarm::gsi1(&Stage::Queued)).all().await.unwrap();
    assert_eq!(
        got.iter().map(|a| a.id.clone()).collect::<Vec<_>>(),
        alarm_ids.into_iter().map(|(_, id)| id).collect::<Vec<_>>()
    );
}

#[tokio::test]
async fn a_page_reads_every_shard_and_reports_their_summed_capacity() {
    use dynamo_entity::Index;
    use dynamo_entity::capacity::{Capacity, Units};
    let (table, _) = seeded("shard_capacity").await;
    // Eight requests, one per shard, each reading at most 10 small items (under 4 KB):
    // 0.5 read units each, eventually consistent.
    let page = table.query(Job::gsi1(&Stage::Queued)).max_items(10).send().await.unwrap();
    assert_eq!(page.items.len(), 10);
    assert_eq!(page.consumed, Capacity::zero().with_index(Index::Gsi(1), Units::reads(4.0)));
    // Sixteen shards: sixteen requests.
    let page = table.query(Job::gsi3()).max_items(3).send().await.unwrap();
    assert_eq!(page.consumed, Capacity::zero().with_index(Index::Gsi(3), Units::reads(8.0)));
}

/// A sharded page counts what its shards' requests evaluated (`scanned`, DynamoDB's
/// `ScannedCount` summed over the shards) and what the filter left out (`filtered_out`), as the
/// page of an unsharded query does.
#[tokio::test]
async fn a_sharded_page_sums_the_scanned_and_filtered_counts_of_its_shards() {
    let (table, all) = seeded("shard_counts").await;
    // 120 queued jobs over 8 shards; the filter keeps alice's (every fifth job): 24. Without
    // item counts, one round reads every shard to its end: 8 requests evaluating 120 items.
    let alice = Job::OWNER.eq(&"alice".to_owned());
    let page = table.query(Job::gsi1(&Stage::Queued)).filter(alice).send().await.unwrap();
    let want = expected(&all, |j| j.stage == Stage::Queued && j.owner == "alice", false);
    assert_eq!(want.len(), 24);
    assert_eq!(ids(&page.items), want);
    assert_eq!((page.scanned, page.filtered_out, page.passed_over, page.cursor), (120, 96, 0, None));
    // Without a filter nothing is filtered out.
    let page = table.query(Job::gsi1(&Stage::Running)).send().await.unwrap();
    assert_eq!((page.items.len(), page.scanned, page.filtered_out), (120, 120, 0));
}

/// An entity without a sharded template: a sharded query made by hand for it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META")]
struct Note {
    id: String,
}

/// Generated code makes a sharded query only for an entity with a sharded partition key; made
/// by hand for another, it is refused before anything is sent (that entity's code leaves out
/// the fan-out), for items and for keys.
#[tokio::test]
async fn a_sharded_query_of_an_entity_without_a_sharded_template_is_refused_before_sending() {
    use dynamo_entity::query::QuerySpec;
    let table = common::table("shard_refused", &[Note::SCHEMA]).await;
    table.put(&Note { id: "n1".into() }).await.unwrap();
    let shards = || Ok(vec![AttributeValue::S("NOTE#n1".into()), AttributeValue::S("NOTE#n2".into())]);
    let spec = || QuerySpec::<Note, ()>::sharded(&Note::SCHEMA.primary, "Note", shards());
    let want = "Note: a sharded query, but no partition key template of it is sharded";
    for err in
        [table.query(spec()).send().await.unwrap_err(), table.query(spec()).send_keys().await.map(|_| ()).unwrap_err()]
    {
        assert!(matches!(&err, Error::Invalid { reason } if reason == want), "{err:?}");
    }
    // The same entity's own query reads its partition.
    assert_eq!(table.query(Note::query("n1")).all().await.unwrap(), vec![Note { id: "n1".into() }]);
}

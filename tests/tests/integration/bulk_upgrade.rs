//! Bulk upgrades (`Table::upgrade_all`, the runner's `Migrations::upgrade` step): every item of
//! an entity stored at an earlier schema version is written back at the current one, with
//! exact counts of items scanned, upgraded, skipped and failed; a second run changes nothing; a
//! run dropped after its first page resumes from its checkpoint and leaves the same table.
//! And `status` (of the runner and of the command line) lists the records of migrations the
//! table has that are no longer declared, marked as such.
//!
//! The entity is `schema_versions::Skill` (version 3, upgraded from version 1 and 2 items).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::{Migrations, RunOptions, Status};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Item, Table};

use crate::common;
use crate::schema_versions::{Review, Skill, new_table, raw_put, skill, v1_item, v2_item};

/// 60 version 1 items (`a…`), 30 version 2 items (`b…`), 20 created by the library at version
/// 3 (`c…`), one item stamped with a version newer than declared (`z000`, which fails to
/// decode), and two reviews. Returns the expected value of every upgradable skill by id.
async fn load(table: &Table) -> HashMap<String, Skill> {
    let mut expected = HashMap::new();
    for i in 0..60u32 {
        let id = format!("a{i:03}");
        raw_put(table, v1_item(&id, &format!("T{i}: sub"), "dev", i)).await;
        expected.insert(id.clone(), skill(&id, &format!("T{i}"), Some("sub"), u64::from(i) * 100, 1));
    }
    for i in 0..30u64 {
        let id = format!("b{i:03}");
        raw_put(table, v2_item(&id, &format!("T{i}"), "dev", i * 10)).await;
        expected.insert(id.clone(), skill(&id, &format!("T{i}"), None, i * 10, 1));
    }
    for i in 0..20u64 {
        let id = format!("c{i:03}");
        let mut value = skill(&id, &format!("N{i}"), Some("new"), i, 0);
        table.create(&mut value).await.unwrap();
        expected.insert(id, value);
    }
    let mut newer = v1_item("z000", "Future", "dev", 1);
    newer.insert("_schema".to_owned(), AttributeValue::N("9".to_owned()));
    raw_put(table, newer).await;
    table.put(&Review { skill_id: "a000".into(), n: 1, stars: 5 }).await.unwrap();
    table.put(&Review { skill_id: "a001".into(), n: 1, stars: 3 }).await.unwrap();
    expected
}

/// After the upgrade: every skill but `z000` is stored exactly as its expected value encodes
/// (version 3, lock version 1), `z000` and the reviews are as they were loaded, and the rest
/// are the migration's own record items.
fn check(after: &[Item], before: &[Item], expected: &HashMap<String, Skill>) {
    let key = |i: &Item| format!("{:?}|{:?}", i["PK"], i["SK"]);
    let before: HashMap<String, &Item> = before.iter().map(|i| (key(i), i)).collect();
    let (mut skills, mut others) = (0, 0);
    for item in after {
        match item["_type"].as_s().unwrap().as_str() {
            "Skill" if item["id"] == AttributeValue::S("z000".into()) => {
                assert_eq!(Some(&item), before.get(&key(item)), "the item of version 9 is untouched");
                others += 1;
            }
            "Skill" => {
                let id = item["id"].as_s().unwrap();
                assert_eq!(*item, expected[id].to_item().unwrap(), "skill {id} is stored at version 3");
                assert_eq!(item["_schema"], AttributeValue::N("3".into()));
                skills += 1;
            }
            "Review" => {
                assert_eq!(Some(&item), before.get(&key(item)), "reviews are untouched");
                others += 1;
            }
            "_migration" => {}
            other => panic!("unexpected item of type {other}"),
        }
    }
    assert_eq!((skills, others), (110, 3));
}

#[tokio::test]
async fn a_bulk_upgrade_writes_every_earlier_version_back_once_with_exact_counts() {
    let table = new_table("bulk_upgrade", false).await;
    let expected = load(&table).await;
    let before = common::scan_all(&table).await;

    let migrations = Migrations::new(TableLayout::new(&[Skill::SCHEMA, Review::SCHEMA]).unwrap())
        .upgrade::<Skill>("skill-v3", |b| b.segments(3).page_size(7));
    // `z000` cannot be upgraded: the step ends with it failed, and is not applied.
    let err = migrations.apply(&table, &RunOptions::default()).await.unwrap_err();
    let refusal = "migration skill-v3: 1 Skill item(s) could not be migrated: PK=SKILL#z000 SK=META (Skill \
                   PK=SKILL#z000 SK=META has schema version 9, newer than this program knows: Skill declares versions \
                   1 to 3); every other item is done: mend them, then resume the migration to retry them";
    assert_eq!(err.to_string(), refusal);
    assert!(matches!(&err, dynamo_entity::Error::ItemsFailed { failed: 1, failures, .. } if failures.len() == 1));
    let report = table.upgrade_all::<Skill>("skill-v3").status().await.unwrap().unwrap();
    assert!(report.completed);
    assert_eq!(
        (report.run, report.segments, report.scanned, report.updated, report.skipped, report.failed),
        (1, 3, 111, 90, 20, 1),
        "{report}"
    );
    assert_eq!((report.vanished, report.changed), (0, 0));
    assert_eq!(report.failures.len(), 1);
    assert_eq!(report.failures[0].0, "PK=SKILL#z000 SK=META");
    // DynamoDB Local reports two write units per upgraded item (each under 1 KB): 180 for 90.
    assert_eq!(report.write_units, 180.0, "{report}");
    let status = migrations.status(&table).await.unwrap();
    assert_eq!(status[0].status, Status::Stopped { error: Some(refusal.to_owned()), checkpoint: Some(report.clone()) });
    check(&common::scan_all(&table).await, &before, &expected);

    // Run again: the completed run's report, nothing read; a new run skips every item.
    let again = table.upgrade_all::<Skill>("skill-v3").run().await.unwrap();
    assert_eq!(again, report);
    let rerun = table.upgrade_all::<Skill>("skill-v3").segments(2).rerun().await.unwrap();
    assert_eq!(
        (rerun.run, rerun.scanned, rerun.updated, rerun.skipped, rerun.failed, rerun.write_units),
        (2, 111, 0, 110, 1, 0.0),
        "{rerun}"
    );
    check(&common::scan_all(&table).await, &before, &expected);

    // `z000` removed: resuming the step starts a new run, which skips every item, and the
    // step is applied.
    let key: Item = [("PK", "SKILL#z000"), ("SK", "META")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.to_owned())))
        .collect();
    table.client().delete_item().table_name(table.name()).set_key(Some(key)).send().await.unwrap();
    let applied = migrations.resume(&table, &RunOptions::default()).await.unwrap();
    let last = table.upgrade_all::<Skill>("skill-v3").status().await.unwrap().unwrap();
    assert_eq!((last.run, last.scanned, last.updated, last.skipped, last.failed), (3, 110, 0, 110, 0), "{last}");
    assert_eq!(applied.len(), 1);
    assert_eq!(applied[0].summary, last.to_string());
    let status = migrations.status(&table).await.unwrap();
    assert!(matches!(&status[0].status, Status::Applied { summary, .. } if *summary == last.to_string()));

    // An entity without a schema version has nothing to upgrade: refused before any read.
    let err = table.upgrade_all::<Review>("reviews").run().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: Review declares no schema version (`#[entity(schema(version = N))]`), so it has no item to upgrade"
    );
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn a_bulk_upgrade_dropped_after_its_first_page_resumes_from_its_checkpoint() {
    let table = new_table("bulk_upgrade_resume", false).await;
    let expected = load(&table).await;
    let before = common::scan_all(&table).await;

    let pages = Arc::new(AtomicU64::new(0));
    let seen = Arc::clone(&pages);
    let stop = Arc::new(tokio::sync::Notify::new());
    let stopper = Arc::clone(&stop);
    let first = table.upgrade_all::<Skill>("skill-v3").segments(2).concurrency(2).page_size(5).on_page(move |_| {
        seen.fetch_add(1, Ordering::SeqCst);
        stopper.notify_one();
    });
    tokio::select! {
        r = first.run() => panic!("the run ended before it was dropped: {r:?}"),
        () = stop.notified() => {}
    }
    let stopped = table.upgrade_all::<Skill>("skill-v3").status().await.unwrap().unwrap();
    assert!(!stopped.completed && stopped.scanned > 0 && stopped.scanned < 111, "{stopped}");
    assert!(pages.load(Ordering::SeqCst) >= 1);

    let report = table.upgrade_all::<Skill>("skill-v3").segments(5).run().await.unwrap();
    // The same run, with the segments its first start recorded.
    assert_eq!((report.run, report.segments, report.failed, report.vanished, report.changed), (1, 2, 1, 0, 0));
    assert!(report.completed);
    // Every item was read at least once; items of a page in progress at the drop are read
    // again (and then skipped: already at version 3).
    assert!(report.scanned >= 111 && report.updated + report.skipped + report.failed == report.scanned, "{report}");
    assert!(report.updated <= 90 && report.skipped >= 20, "{report}");
    check(&common::scan_all(&table).await, &before, &expected);
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn status_lists_the_migrations_recorded_but_no_longer_declared() {
    let table = new_table("status_undeclared", false).await;
    load(&table).await;
    // Without `z000`, which no upgrade can read: the upgrade step is applied.
    let key: Item = [("PK", "SKILL#z000"), ("SK", "META")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), AttributeValue::S(v.to_owned())))
        .collect();
    table.client().delete_item().table_name(table.name()).set_key(Some(key)).send().await.unwrap();
    let layout = || TableLayout::new(&[Skill::SCHEMA, Review::SCHEMA]).unwrap();
    let first = Migrations::new(layout())
        .custom("0001-note", "write nothing", |_| async { Ok("nothing to write".to_owned()) })
        .upgrade::<Skill>("0002-skill-v3", |b| b.segments(2));
    first.apply(&table, &RunOptions::default()).await.unwrap();
    let summary = table.upgrade_all::<Skill>("0002-skill-v3").status().await.unwrap().unwrap().to_string();

    // The code now declares 0001 and a new step; 0002 was removed from it.
    let now = Migrations::new(layout())
        .custom("0001-note", "write nothing", |_| async { Ok("nothing to write".to_owned()) })
        .custom("0003-later", "a later step", |_| async { Ok(String::new()) });
    let status = now.status(&table).await.unwrap();
    let lines: Vec<(String, &'static str)> = status.iter().map(|s| (s.id.clone(), s.status.word())).collect();
    assert_eq!(
        lines,
        [
            ("0001-note".to_owned(), "applied"),
            ("0003-later".to_owned(), "pending"),
            ("0002-skill-v3".to_owned(), "undeclared")
        ]
    );
    assert_eq!(status[2].status, Status::Undeclared { recorded: "applied".to_owned(), text: Some(summary.clone()) });
    assert_eq!(status[2].kind, dynamo_entity::migrate::Kind::Upgrade);
    assert_eq!(
        status[2].to_string(),
        format!("undeclared 0002-skill-v3 [upgrade] no longer declared: recorded applied: {summary}")
    );

    // The command line's `status` prints the same lines.
    let out = crate::migrations_cli::Buffer::default();
    let cli = dynamo_entity::cli::MigrationCli::new("migrate", table.clone(), now);
    cli.run(["migrate", "status"], out.clone()).await.unwrap();
    let want: String = status.iter().map(|s| format!("{s}\n")).collect();
    assert_eq!(out.text(), want);
    assert!(out.text().contains("undeclared 0002-skill-v3 [upgrade] no longer declared: recorded applied: backfill"));

    // Applying the new declaration runs 0003 only; the undeclared record stays as it was.
    let later = Migrations::new(layout())
        .custom("0001-note", "write nothing", |_| async { Ok("nothing to write".to_owned()) })
        .custom("0003-later", "a later step", |_| async { Ok(String::new()) });
    let done = later.apply(&table, &RunOptions::default()).await.unwrap();
    assert_eq!(done.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(), ["0003-later"]);
    let words: Vec<&str> = later.status(&table).await.unwrap().iter().map(|s| s.status.word()).collect();
    assert_eq!(words, ["applied", "applied", "undeclared"]);
    table.delete_table().await.unwrap();
}

//! Migrations that verify (`Migrations::verify`, `Backfill::verify`, `migrate verify`,
//! `Migrations::reapply` / `migrate apply --again`): after a backfill of the members' GSI keys
//! is applied, a late writer (code of the launch shape, `MemberV1`, still running during a
//! rolling deploy) writes a member without them. `verify` names exactly that item, `status`
//! shows the drift with when it was found, applying the step again writes its keys, and
//! `verify` is clean again; the command line exits with 3 on drift. The same for a bulk
//! upgrade: an item written at schema version 2 after the upgrade to 3, and an item that does
//! not decode, which is reported, never left out.

use std::time::Duration;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::cli::{CliError, MigrationCli};
use dynamo_entity::migrate::{Kind, Migrations, RunOptions, Status, Verification, Verified, VerifyReport};
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Item, Table, TableDef};

use crate::backfills::{Member, Team, current, load, v1};
use crate::common;
use crate::migrations_cli::Buffer;
use crate::schema_versions::{Shop, Skill, new_table, raw_put, v1_item, v2_item};

const STEP: &str = "0001-member-keys";
/// The late writer's member: `m001000`, team `t6`, rank 0, no mentor (so no GSI2 keys).
const LATE_KEY: &str = "PK=MEMBER#m001000 SK=META";

fn member_migrations() -> Migrations {
    Migrations::new(TableLayout::new(&[Member::SCHEMA, Team::SCHEMA]).unwrap())
        .heartbeat(Duration::from_millis(200))
        .backfill::<Member>(STEP, |b| b.segments(4).concurrency(2).page_size(10))
}

async fn member_table(test: &str) -> Table {
    let table = common::table(test, &[Member::SCHEMA, Team::SCHEMA]).await;
    load(&table, 50, 3).await;
    table
}

async fn raw_get(table: &Table, pk: &str) -> Item {
    let out = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S(pk.to_owned()))
        .key("SK", AttributeValue::S("META".to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap();
    out.item.unwrap()
}

/// The verification `status` shows for the only declared step.
async fn verification(migrations: &Migrations, table: &Table) -> Verification {
    let status = migrations.status(table).await.unwrap();
    assert_eq!(status.len(), 1, "{status:?}");
    match &status[0].status {
        Status::Applied { verified, .. } => verified.clone(),
        other => panic!("not applied: {other:?}"),
    }
}

fn report(scanned: u64, drift: &[(&str, &str)], undecodable: &[(&str, &str)], entity: &str, id: &str) -> VerifyReport {
    let own = |l: &[(&str, &str)]| l.iter().map(|(k, w)| ((*k).to_owned(), (*w).to_owned())).collect::<Vec<_>>();
    VerifyReport {
        id: id.to_owned(),
        entity: entity.to_owned(),
        scanned,
        drifted: drift.len() as u64,
        undecodable: undecodable.len() as u64,
        read_units: 0.0,
        drift: own(drift),
        undecodable_items: own(undecodable),
    }
}

/// `found` with its read units zeroed (they depend on the engine), for an exact comparison.
fn without_units(mut found: Vec<Verified>) -> Vec<Verified> {
    for v in &mut found {
        if let Some(r) = &mut v.report {
            assert!(r.read_units > 0.0, "the scan read something: {r:?}");
            r.read_units = 0.0;
        }
    }
    found
}

#[tokio::test]
async fn a_late_writer_after_a_backfill_is_found_by_verify_and_applying_again_brings_it_back() {
    let table = member_table("verify_backfill").await;
    let migrations = member_migrations();
    let options = RunOptions { worker: "runner-a".into(), ..RunOptions::default() };
    let applied = migrations.apply(&table, &options).await.unwrap();
    assert_eq!(applied.len(), 1);
    assert_eq!(verification(&migrations, &table).await, Verification::NotVerified);
    let line = migrations.status(&table).await.unwrap()[0].to_string();
    assert!(line.ends_with(&format!("{}; not verified since applied", applied[0].summary)), "{line}");

    // Verified right after the backfill: clean, 50 members checked, and so recorded.
    let found = without_units(migrations.verify(&table, None).await.unwrap());
    let clean = report(50, &[], &[], "Member", STEP);
    assert_eq!(found, [Verified { id: STEP.into(), kind: Kind::Backfill, report: Some(clean.clone()) }]);
    match verification(&migrations, &table).await {
        Verification::Checked { report, .. } => assert_eq!(VerifyReport { read_units: 0.0, ..report }, clean),
        other => panic!("{other:?}"),
    }

    // A late writer: an instance still on the launch code writes a member without GSI1 keys.
    let late = v1(1000);
    table.put(&late).await.unwrap();
    // The completed backfill does not look again: its old report.
    let backfill = table.backfill::<Member>(STEP);
    let old = backfill.run().await.unwrap();
    assert_eq!((old.run, old.scanned, old.updated), (1, 50, 50));

    // verify names exactly that item.
    let drifted = report(51, &[(LATE_KEY, "GSI1PK missing, GSI1SK missing")], &[], "Member", STEP);
    let mut direct = backfill.verify().await.unwrap();
    direct.read_units = 0.0;
    assert_eq!(direct, drifted);
    let before = dynamo_entity::Timestamp::now().as_millis() as u64;
    let found = without_units(migrations.verify(&table, Some(STEP)).await.unwrap());
    assert_eq!(found, [Verified { id: STEP.into(), kind: Kind::Backfill, report: Some(drifted.clone()) }]);
    assert!(!found[0].is_clean());
    // status shows it, with when it was found.
    let (at_ms, recorded) = match verification(&migrations, &table).await {
        Verification::Checked { at_ms, report } => (at_ms, report),
        other => panic!("{other:?}"),
    };
    assert_eq!(VerifyReport { read_units: 0.0, ..recorded.clone() }, drifted);
    assert!(at_ms >= before && at_ms <= dynamo_entity::Timestamp::now().as_millis() as u64, "{at_ms}");
    let at = dynamo_entity::Timestamp::from_millis(at_ms as i64).unwrap();
    let line = migrations.status(&table).await.unwrap()[0].to_string();
    assert!(
        line.ends_with(&format!(
            "{}; drift found by verify at {at}: 1 of 51 Member items the step would still change ({LATE_KEY}: GSI1PK \
             missing, GSI1SK missing), 0 undecodable",
            applied[0].summary
        )),
        "{line}"
    );
    // The item has no GSI1 key.
    assert!(!raw_get(&table, "MEMBER#m001000").await.contains_key("GSI1PK"));

    // Applied again: a new run of the pass writes that item's keys, and skips the others.
    let again = migrations.reapply(&table, STEP, &options).await.unwrap();
    let rerun = backfill.status().await.unwrap().unwrap();
    assert_eq!(
        (rerun.run, rerun.completed, rerun.scanned, rerun.updated, rerun.skipped, rerun.failed),
        (2, true, 51, 1, 50, 0)
    );
    assert_eq!(again.summary, rerun.to_string());
    // As the current code writes it, but for the late writer's write token (`_w1`), kept.
    let mut stored = raw_get(&table, "MEMBER#m001000").await;
    assert!(stored.remove("_w1").is_some());
    assert_eq!(stored, current(&late).to_item().unwrap());
    assert_eq!(verification(&migrations, &table).await, Verification::NotVerified, "a new run: not verified since");

    // verify is clean again.
    let found = without_units(migrations.verify(&table, None).await.unwrap());
    assert_eq!(
        found,
        [Verified { id: STEP.into(), kind: Kind::Backfill, report: Some(report(51, &[], &[], "Member", STEP)) }]
    );
    assert!(found[0].is_clean());
}

/// Runs `migrate <args>` of `migrations` on `table`: its result and output.
async fn cli(table: &Table, migrations: Migrations, args: &[&str]) -> (Result<(), CliError>, String) {
    let out = Buffer::default();
    let cli = MigrationCli::new("migrate", table.clone(), migrations);
    let result = cli.run(std::iter::once("migrate").chain(args.iter().copied()), out.clone()).await;
    (result, out.text())
}

#[tokio::test]
async fn migrate_verify_exits_with_3_on_drift_and_apply_again_brings_the_step_back() {
    let table = member_table("verify_cli").await;
    let run = |args: &'static [&'static str]| {
        let table = table.clone();
        async move { cli(&table, member_migrations(), args).await }
    };
    // Nothing applied: nothing to verify; a step not applied is refused by name.
    let (result, text) = run(&["verify"]).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(text, "nothing to verify: no migration is applied\n");
    let (result, _) = run(&["verify", STEP]).await;
    let e = result.unwrap_err();
    assert_eq!(e.exit_code(), 1);
    assert_eq!(
        e.to_string(),
        format!(
            "invalid request: migration {STEP} is pending: only an applied migration is verified (`apply` runs it)"
        )
    );
    let (result, _) = run(&["apply", "--again", STEP]).await;
    assert_eq!(
        result.unwrap_err().to_string(),
        format!("invalid request: migration {STEP} was never applied: `apply` runs it; nothing started")
    );
    // Unknown ids and `--again` with `--to` are usage errors.
    let (result, _) = run(&["verify", "0009-nope"]).await;
    let e = result.unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert_eq!(e.to_string(), format!("error: \"0009-nope\" names no declared migration (the declared ids: {STEP})"));
    let (result, _) = run(&["apply", "--again", STEP, "--to", STEP]).await;
    let e = result.unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().starts_with("error: the argument '--again <ID>' cannot be used with '--to <TO>'"), "{e}");

    let (result, _) = run(&["apply", "--progress", "off"]).await;
    assert!(result.is_ok(), "{result:?}");
    let (result, text) = run(&["verify"]).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        text,
        format!("clean    {STEP} [backfill]: 50 Member items checked: 0 the step would still change, 0 undecodable\n")
    );

    // The late writer: verify exits with 3, naming the step, the count and the key.
    table.put(&v1(1000)).await.unwrap();
    let (result, text) = run(&["verify"]).await;
    let e = result.unwrap_err();
    assert_eq!(e.exit_code(), 3);
    assert_eq!(e.to_string(), format!("verify found drift in {STEP}: `apply --again ID` applies a migration again"));
    assert_eq!(
        text,
        format!(
            "drift    {STEP} [backfill]: 51 Member items checked: 1 the step would still change, 0 undecodable\n  \
             {LATE_KEY}: GSI1PK missing, GSI1SK missing\n"
        )
    );
    let (result, text) = run(&["status"]).await;
    assert!(result.is_ok(), "{result:?}");
    assert!(text.contains("; drift found by verify at "), "{text}");
    assert!(
        text.ends_with(&format!(
            ": 1 of 51 Member items the step would still change ({LATE_KEY}: GSI1PK missing, GSI1SK missing), 0 \
             undecodable\n"
        )),
        "{text}"
    );

    // apply --again: the step runs again, and status says it is not verified since.
    let (result, text) = run(&["apply", "--again", STEP, "--progress", "off"]).await;
    assert!(result.is_ok(), "{result:?}: {text}");
    let rerun = table.backfill::<Member>(STEP).status().await.unwrap().unwrap();
    assert_eq!((rerun.run, rerun.updated, rerun.skipped), (2, 1, 50));
    assert_eq!(
        text,
        format!(
            "1 migration(s) run\napplied  {STEP} [backfill] backfill the secondary index keys of Member items: {rerun}; \
             not verified since applied\n"
        )
    );
    let (result, text) = run(&["verify", STEP]).await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(
        text,
        format!("clean    {STEP} [backfill]: 51 Member items checked: 0 the step would still change, 0 undecodable\n")
    );
    let (_, text) = run(&["status"]).await;
    assert!(text.contains(": 51 Member items checked\n") && text.contains("; verified clean at "), "{text}");
}

#[tokio::test]
async fn an_item_written_at_an_older_schema_version_after_the_upgrade_is_found_and_upgraded_again() {
    let table = new_table("verify_upgrade", false).await;
    for i in 0..5u32 {
        raw_put(&table, v1_item(&format!("a{i}"), &format!("T{i}: sub"), "dev", i)).await;
    }
    const UP: &str = "0001-skills-v3";
    let migrations = Migrations::new(Shop::layout().unwrap()).upgrade::<Skill>(UP, |b| b.segments(2));
    migrations.apply(&table, &RunOptions::default()).await.unwrap();
    let found = without_units(migrations.verify(&table, None).await.unwrap());
    assert_eq!(
        found,
        [Verified { id: UP.into(), kind: Kind::Upgrade, report: Some(report(5, &[], &[], "Skill", UP)) }]
    );

    // A late writer of version 2, and one of version 1 (no schema version attribute).
    raw_put(&table, v2_item("late2", "Late", "dev", 700)).await;
    raw_put(&table, v1_item("late1", "Late: one", "dev", 7)).await;
    let found = without_units(migrations.verify(&table, Some(UP)).await.unwrap());
    let drift = [
        ("PK=SKILL#late1 SK=META", "stored without a schema version (_schema), not at 3"),
        ("PK=SKILL#late2 SK=META", "stored at schema version 2, not 3"),
    ];
    assert_eq!(
        found,
        [Verified { id: UP.into(), kind: Kind::Upgrade, report: Some(report(7, &drift, &[], "Skill", UP)) }]
    );
    match verification(&migrations, &table).await {
        Verification::Checked { report: r, .. } => assert_eq!((r.drifted, r.drift.len()), (2, 2)),
        other => panic!("{other:?}"),
    }

    let again = migrations.reapply(&table, UP, &RunOptions::default()).await.unwrap();
    let rerun = table.upgrade_all::<Skill>(UP).status().await.unwrap().unwrap();
    assert_eq!((rerun.run, rerun.scanned, rerun.updated, rerun.skipped), (2, 7, 2, 5));
    assert_eq!(again.summary, rerun.to_string());
    assert_eq!(raw_get(&table, "SKILL#late2").await["_schema"], AttributeValue::N("3".into()));
    let found = without_units(migrations.verify(&table, None).await.unwrap());
    assert_eq!(
        found,
        [Verified { id: UP.into(), kind: Kind::Upgrade, report: Some(report(7, &[], &[], "Skill", UP)) }]
    );

    // An item that does not decode (a schema version newer than declared) is reported, not
    // left out.
    let mut newer = v1_item("z000", "Future", "dev", 1);
    newer.insert("_schema".to_owned(), AttributeValue::N("9".to_owned()));
    raw_put(&table, newer.clone()).await;
    let why = Skill::from_item(&newer).unwrap_err().to_string();
    let found = without_units(migrations.verify(&table, None).await.unwrap());
    let expected = report(8, &[], &[("PK=SKILL#z000 SK=META", why.as_str())], "Skill", UP);
    assert_eq!(found, [Verified { id: UP.into(), kind: Kind::Upgrade, report: Some(expected) }]);
    assert!(!found[0].is_clean());
}

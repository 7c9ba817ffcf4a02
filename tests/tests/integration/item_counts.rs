//! Item counts of the read builders: `page_items(n)` (pages of up to n decoded items, each from
//! the cursor of the one before), `max_items(n)` (the most items in all, whichever way the read
//! is read), both together, and the deprecated `limit(n)` (the total, as `max_items`), for a
//! query, a scan (one segment and parallel) and a query of a multi-attribute GSI.

use std::collections::BTreeSet;

use dynamo_entity::{Entity, Page, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use futures::TryStreamExt;

/// A sensor reading: the partition `SENSOR#s1` in time order, and GSI6 keyed natively on its
/// site, then its time.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SENSOR#<sensor>", sk = "AT#<at>", gsi6(pk(site), sk(at)))]
pub struct Reading {
    pub sensor: String,
    pub site: String,
    pub at: u32,
    pub value: u64,
}

#[derive(TableDef)]
#[table(entities(Reading), gsi6(projection = all))]
pub struct Plant;

/// The number of readings: pages of 3 are 3, 3 and 2.
const READINGS: u32 = 8;

/// A table holding readings 0 to 7 of sensor `s1` at site `north`.
async fn table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Plant::layout().unwrap()).await.expect("the table is created");
    for at in 0..READINGS {
        let reading = Reading { sensor: "s1".to_owned(), site: "north".to_owned(), at, value: u64::from(at) * 10 };
        table.put(&reading).await.unwrap();
    }
    table
}

/// The times of each page's readings, and whether each page has a cursor.
fn shape(pages: &[Page<Reading>]) -> (Vec<Vec<u32>>, Vec<bool>) {
    (
        pages.iter().map(|p| p.items.iter().map(|r| r.at).collect()).collect(),
        pages.iter().map(|p| p.cursor.is_some()).collect(),
    )
}

/// As [`shape`], for scan pages.
fn scan_shape(pages: &[dynamo_entity::Page<Reading>]) -> (Vec<Vec<u32>>, Vec<bool>) {
    (
        pages.iter().map(|p| p.items.iter().map(|r| r.at).collect()).collect(),
        pages.iter().map(|p| p.cursor.is_some()).collect(),
    )
}

fn times(readings: &[Reading]) -> Vec<u32> {
    readings.iter().map(|r| r.at).collect()
}

#[tokio::test]
async fn query_pages_of_n_items_and_totals() {
    let table = table("counts_query").await;
    let q = || table.query(Reading::query("s1"));

    let pages: Vec<Page<Reading>> = q().page_items(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&pages), (vec![vec![0, 1, 2], vec![3, 4, 5], vec![6, 7]], vec![true, true, false]));
    // Each page's cursor resumes at the next page, as a send from it reads it.
    for (page, next) in pages.iter().zip(&pages[1..]) {
        let resumed = q().page_items(3).after(page.cursor.clone()).send().await.unwrap();
        assert_eq!(times(&resumed.items), times(&next.items));
    }

    let total: Vec<Page<Reading>> = q().max_items(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&total), (vec![vec![0, 1, 2]], vec![true]));
    let both: Vec<Page<Reading>> = q().page_items(3).max_items(5).pages().try_collect().await.unwrap();
    assert_eq!(shape(&both), (vec![vec![0, 1, 2], vec![3, 4]], vec![true, true]));
    let descending: Vec<Page<Reading>> =
        q().descending().max_items(5).page_items(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&descending), (vec![vec![7, 6, 5], vec![4, 3]], vec![true, true]));

    // `all` and `stream` read every item, `page_items` at a time, up to `max_items`.
    assert_eq!(times(&q().page_items(3).all().await.unwrap()), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(times(&q().page_items(3).max_items(5).all().await.unwrap()), [0, 1, 2, 3, 4]);
    let streamed: Vec<Reading> = q().page_items(3).max_items(7).stream().try_collect().await.unwrap();
    assert_eq!(times(&streamed), [0, 1, 2, 3, 4, 5, 6]);
    // A lenient query reads every page too.
    let lenient = q().page_items(3).lenient().all().await.unwrap();
    assert_eq!((times(&lenient.items), lenient.skipped.len()), (vec![0, 1, 2, 3, 4, 5, 6, 7], 0));
    let lenient_pages: Vec<Page<Reading>> =
        q().page_items(3).max_items(5).lenient().pages().try_collect().await.unwrap();
    assert_eq!(shape(&lenient_pages), (vec![vec![0, 1, 2], vec![3, 4]], vec![true, true]));

    // `page_size` is DynamoDB's `Limit` (items evaluated a request), not the items of a page.
    let evaluated: Vec<Page<Reading>> = q().page_size(2).max_items(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&evaluated), (vec![vec![0, 1, 2]], vec![true]));

    // The deprecated `limit` keeps its meaning: the total.
    #[allow(deprecated)]
    let old: Vec<Page<Reading>> = q().limit(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&old), (vec![vec![0, 1, 2]], vec![true]));
}

#[tokio::test]
async fn multi_attribute_query_pages_of_n_items_and_totals() {
    let table = table("counts_multi_key").await;
    let q = || table.query(Reading::gsi6("north"));

    let pages: Vec<Page<Reading>> = q().page_items(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&pages), (vec![vec![0, 1, 2], vec![3, 4, 5], vec![6, 7]], vec![true, true, false]));
    for (page, next) in pages.iter().zip(&pages[1..]) {
        let resumed = q().page_items(3).after(page.cursor.clone()).send().await.unwrap();
        assert_eq!(times(&resumed.items), times(&next.items));
    }

    let total: Vec<Page<Reading>> = q().max_items(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&total), (vec![vec![0, 1, 2]], vec![true]));
    let both: Vec<Page<Reading>> = q().page_items(3).max_items(5).pages().try_collect().await.unwrap();
    assert_eq!(shape(&both), (vec![vec![0, 1, 2], vec![3, 4]], vec![true, true]));

    assert_eq!(times(&q().page_items(3).all().await.unwrap()), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(times(&q().page_items(3).max_items(5).all().await.unwrap()), [0, 1, 2, 3, 4]);
    let lenient = q().page_items(3).lenient().all().await.unwrap();
    assert_eq!((times(&lenient.items), lenient.skipped.len()), (vec![0, 1, 2, 3, 4, 5, 6, 7], 0));

    #[allow(deprecated)]
    let old: Vec<Page<Reading>> = q().limit(3).pages().try_collect().await.unwrap();
    assert_eq!(shape(&old), (vec![vec![0, 1, 2]], vec![true]));
}

#[tokio::test]
async fn scan_pages_of_n_items_and_totals() {
    let table = table("counts_scan").await;
    let s = || table.scan::<Reading>().consistent_read();
    let every: BTreeSet<u32> = (0..READINGS).collect();

    // A scan's order is the table's hash order: the pages' sizes and their union are exact.
    let pages: Vec<dynamo_entity::Page<Reading>> = s().page_items(3).pages().try_collect().await.unwrap();
    let (ids, cursors) = scan_shape(&pages);
    assert_eq!((ids.iter().map(Vec::len).collect::<Vec<_>>(), cursors), (vec![3, 3, 2], vec![true, true, false]));
    let seen: Vec<u32> = ids.concat();
    assert_eq!((seen.len(), seen.iter().copied().collect::<BTreeSet<u32>>()), (8, every.clone()), "no item twice");
    for (page, next) in pages.iter().zip(&pages[1..]) {
        let resumed = s().page_items(3).after(page.cursor.clone()).send().await.unwrap();
        assert_eq!(times(&resumed.items), times(&next.items));
    }

    let total: Vec<dynamo_entity::Page<Reading>> = s().max_items(3).pages().try_collect().await.unwrap();
    assert_eq!(scan_shape(&total), (vec![ids[0].clone()], vec![true]));
    let both: Vec<dynamo_entity::Page<Reading>> = s().page_items(3).max_items(5).pages().try_collect().await.unwrap();
    assert_eq!(scan_shape(&both), (vec![ids[0].clone(), ids[1][..2].to_vec()], vec![true, true]));

    assert_eq!(times(&s().page_items(3).all().await.unwrap()), seen);
    assert_eq!(times(&s().page_items(3).max_items(5).all().await.unwrap()), seen[..5]);
    let dynamo_entity::Page { items: lenient, skipped: undecodable, .. } =
        s().page_items(3).lenient().all().await.unwrap();
    assert_eq!((times(&lenient), undecodable.len()), (seen.clone(), 0));

    // A parallel scan: pages of up to 3 from each segment, and at most `max_items` in all.
    let parallel: Vec<dynamo_entity::Page<Reading>> =
        s().parallel(2).page_items(3).pages().try_collect().await.unwrap();
    assert!(parallel.iter().all(|p| p.items.len() <= 3), "{:?}", scan_shape(&parallel));
    let all: Vec<u32> = parallel.iter().flat_map(|p| times(&p.items)).collect();
    assert_eq!((all.len(), all.into_iter().collect::<BTreeSet<u32>>()), (8, every));
    let cut: Vec<dynamo_entity::Page<Reading>> =
        s().parallel(2).page_items(3).max_items(5).pages().try_collect().await.unwrap();
    assert_eq!(cut.iter().map(|p| p.items.len()).sum::<usize>(), 5, "{:?}", scan_shape(&cut));
    assert_eq!(s().parallel(2).max_items(5).all().await.unwrap().len(), 5);

    #[allow(deprecated)]
    let old: Vec<dynamo_entity::Page<Reading>> = s().limit(3).pages().try_collect().await.unwrap();
    assert_eq!(scan_shape(&old), (vec![ids[0].clone()], vec![true]));
}

/// A count of 0, or a `Limit` below 1, would end a read before it reads anything (and say it
/// is over): every read refuses it before sending, naming the setting; nothing is rounded.
#[tokio::test]
async fn counts_that_would_read_nothing_are_refused_before_sending() {
    let table = table("counts_zero").await;
    let recorder = dynamo_entity_local::fault::FaultInjector::new(1);
    let recorded = Table::new(recorder.client(table.client()), table.name());
    let q = || recorded.query(Reading::query("s1"));
    let s = || recorded.scan::<Reading>();
    let refused = |e: dynamo_entity::Error| match e {
        dynamo_entity::Error::Invalid { reason } => reason,
        other => panic!("expected Error::Invalid, got {other}"),
    };
    let page_items = "page_items(0) would end the read before reading anything; give at least 1";
    let max_items = "max_items(0) would end the read before reading anything; give at least 1";

    assert_eq!(refused(q().page_items(0).send().await.unwrap_err()), format!("Query of Reading: {page_items}"));
    assert_eq!(refused(q().max_items(0).lenient().all().await.unwrap_err()), format!("Query of Reading: {max_items}"));
    assert_eq!(refused(q().max_items(0).all().await.unwrap_err()), format!("Query of Reading: {max_items}"));
    assert_eq!(
        refused(q().page_size(0).all().await.unwrap_err()),
        "Query of Reading: page_size(0): DynamoDB's Limit is at least 1"
    );
    let gsi = || recorded.query(Reading::gsi6("north"));
    assert_eq!(refused(gsi().page_items(0).all().await.unwrap_err()), format!("Query of Reading: {page_items}"));
    assert_eq!(refused(s().page_items(0).send().await.unwrap_err()), format!("Scan of Reading: {page_items}"));
    assert_eq!(refused(s().max_items(0).parallel(2).all().await.unwrap_err()), format!("Scan of Reading: {max_items}"));
    assert_eq!(
        refused(s().page_size(-1).render().unwrap_err()),
        "Scan of Reading: page_size(-1): DynamoDB's Limit is at least 1"
    );
    assert_eq!(
        refused(s().parallel(2).concurrency(0).all().await.unwrap_err()),
        "a scan of Reading: concurrency(0) would read no segment; give at least 1"
    );
    // Nothing was sent.
    assert_eq!(recorder.requests().len(), 0);
}

/// The migration runner takes a declared handle as it takes an untyped one: the same table,
/// the same records.
#[tokio::test]
async fn the_migration_runner_runs_through_a_declared_handle() {
    use dynamo_entity::migrate::runner::{Migrations, RunOptions};
    let table = table("counts_runner_declared").await;
    let plant = table.clone().declared::<Plant>();
    let migrations = Migrations::new(Plant::layout().unwrap()).backfill::<Reading>("0001-reading-keys", |b| b).custom(
        "0002-note",
        "a step that names its table",
        |t| async move { Ok(t.name().to_owned()) },
    );
    let applied = migrations.apply(&plant, &RunOptions::default()).await.unwrap();
    let ids: Vec<&str> = applied.iter().map(|a| a.id.as_str()).collect();
    assert_eq!(ids, ["0001-reading-keys", "0002-note"]);
    assert_eq!(applied[1].summary, table.name());
    let through_declared: Vec<&str> =
        migrations.status(&plant).await.unwrap().iter().map(|s| s.status.word()).collect();
    let through_untyped: Vec<&str> = migrations.status(&table).await.unwrap().iter().map(|s| s.status.word()).collect();
    assert_eq!(through_declared, ["applied", "applied"]);
    assert_eq!(through_untyped, ["applied", "applied"]);
}

//! Reads through projected indexes that the plain keys-only query did not cover: sharded
//! queries and item collections through a `KEYS_ONLY` index, and queries through an `INCLUDE`
//! index that leaves out some of the entity's fields (read whole, not as `None`s).

use dynamo_entity::{Entity, Table, TableDef};
use dynamo_entity_local::fault::FaultInjector;
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

/// Spread over 4 shards of GSI1 (keys only), ranked by `rank`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "QUEUE#<shard(id, 4)>", gsi1_sk = "<rank>")]
struct Job {
    id: String,
    rank: u32,
    note: Option<String>,
}

/// Two entity types in one GSI2 partition (keys only).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TEAM#<team>#MEMBER#<name>", sk = "META", gsi2 = "ORG#<org>", gsi2_sk = "M#<name>")]
struct Member {
    team: String,
    name: String,
    org: String,
    role: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "PROJECT#<code>", sk = "META", gsi2 = "ORG#<org>", gsi2_sk = "P#<code>")]
struct Project {
    code: String,
    org: String,
    budget: u64,
}

/// Read through GSI3, which projects `title` only, and GSI4, which projects every field.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "BOOK#<isbn>",
    sk = "META",
    gsi3 = "SHELF#<shelf>",
    gsi3_sk = "<isbn>",
    gsi4 = "GENRE#<genre>",
    gsi4_sk = "<isbn>"
)]
struct Book {
    isbn: String,
    shelf: String,
    genre: String,
    title: String,
    subtitle: Option<String>,
}

#[derive(TableDef)]
#[table(
    entities(Job, Member, Project, Book),
    gsi1(projection = keys_only),
    gsi2(projection = keys_only),
    gsi3(projection = include(title)),
    gsi4(projection = include(shelf, title, subtitle))
)]
struct Library;

async fn table(test: &str, injector: &FaultInjector) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let plain = Table::new(server.client(), unique_table_name(test));
    plain.create_table_from(&Library::layout().unwrap()).await.unwrap();
    Table::new(injector.client(plain.client()), plain.name())
}

fn operations(injector: &FaultInjector) -> Vec<String> {
    injector.requests().into_iter().map(|r| r.operation).collect()
}

#[tokio::test]
async fn a_sharded_query_through_a_keys_only_index_reads_the_whole_items() {
    let injector = FaultInjector::new(0);
    let table = table("projected_sharded", &injector).await;
    let jobs: Vec<Job> = (0..12u32)
        .map(|i| Job { id: format!("j{i}"), rank: 100 - i, note: (i % 3 == 0).then(|| format!("n{i}")) })
        .collect();
    table.batch_put(&jobs).await.unwrap().check().unwrap();
    let mut by_rank = jobs.clone();
    by_rank.sort_by_key(|j| j.rank);
    injector.reset_records();
    // Before: every index item (no type attribute) was skipped as another entity's.
    assert_eq!(table.query(Job::gsi1()).all().await.unwrap(), by_rank);
    let first = table.query(Job::gsi1()).limit(5).send().await.unwrap();
    assert_eq!(first.items, by_rank[..5].to_vec());
    let rest = table.query(Job::gsi1()).after(first.cursor).send().await.unwrap();
    assert_eq!(rest.items, by_rank[5..].to_vec());
    let ops = operations(&injector);
    assert!(ops.contains(&"BatchGetItem".to_owned()), "{ops:?}");
}

#[tokio::test]
async fn a_collection_through_a_keys_only_index_holds_every_entity() {
    let injector = FaultInjector::new(0);
    let table = table("projected_collection", &injector).await;
    let members = [
        Member { team: "a".into(), name: "ann".into(), org: "acme".into(), role: Some("lead".into()) },
        Member { team: "b".into(), name: "bob".into(), org: "acme".into(), role: None },
    ];
    let projects = [Project { code: "x1".into(), org: "acme".into(), budget: 10 }];
    table.batch_put(&members).await.unwrap().check().unwrap();
    table.batch_put(&projects).await.unwrap().check().unwrap();
    table.put(&Member { team: "c".into(), name: "cat".into(), org: "other".into(), role: None }).await.unwrap();
    injector.reset_records();
    let items = table.collection(Member::gsi2("acme")).send().await.unwrap();
    assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
    assert_eq!(items.items().len(), 3);
    assert_eq!(items.all::<Member>().unwrap(), members.to_vec());
    assert_eq!(items.all::<Project>().unwrap(), projects.to_vec());
    assert_eq!(items.type_counts(), [("Member".to_owned(), 2), ("Project".to_owned(), 1)].into());
}

#[tokio::test]
async fn an_include_index_that_leaves_fields_out_reads_the_whole_items() {
    let injector = FaultInjector::new(0);
    let table = table("projected_include", &injector).await;
    let books: Vec<Book> = (0..4u32)
        .map(|i| Book {
            isbn: format!("isbn{i}"),
            shelf: "s1".into(),
            genre: "poetry".into(),
            title: format!("Title {i}"),
            subtitle: Some(format!("Subtitle {i}")),
        })
        .collect();
    table.batch_put(&books).await.unwrap().check().unwrap();

    // The handle that created the table knows its layout; so does one given it.
    let known = table.with_layout(&Library::layout().unwrap());
    injector.reset_records();
    let shelf = known.query(Book::gsi3("s1")).all().await.unwrap();
    // The subtitles are there: not `None`s from the projection.
    assert_eq!(shelf, books);
    assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
    // GSI4 projects every field: decoded from the index alone.
    injector.reset_records();
    assert_eq!(known.query(Book::gsi4("poetry")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query"]);

    // A handle without the layout cannot tell what the projection leaves out: an index item
    // that lacks an attribute the entity reads (here `genre`, `subtitle`) is read whole, never
    // decoded as a partial entity (nor refused for a missing field).
    injector.reset_records();
    assert_eq!(table.query(Book::gsi3("s1")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
    // GSI4 holds every field of these items: decoded from the index alone.
    injector.reset_records();
    assert_eq!(table.query(Book::gsi4("poetry")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query"]);
}

#[tokio::test]
async fn a_handle_without_the_layout_never_returns_a_partial_entity() {
    let injector = FaultInjector::new(0);
    let table = table("projected_include_plain", &injector).await;
    // Two books with a subtitle, one without, in index order isbn0, isbn1, isbn2.
    let books: Vec<Book> = (0..3u32)
        .map(|i| Book {
            isbn: format!("isbn{i}"),
            shelf: "s2".into(),
            genre: "essays".into(),
            title: format!("Title {i}"),
            subtitle: (i != 1).then(|| format!("Subtitle {i}")),
        })
        .collect();
    table.batch_put(&books).await.unwrap().check().unwrap();

    // GSI3 projects `title` only: every item lacks `genre` and is read whole, in index order.
    injector.reset_records();
    let page = table.query(Book::gsi3("s2")).send().await.unwrap();
    assert_eq!(page.items, books);
    assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
    // Written back, a book read through the index erases nothing.
    table.put(&page.items[0]).await.unwrap();
    assert_eq!(table.get(Book::key("isbn0")).await.unwrap().as_ref(), Some(&books[0]));

    // GSI4 projects every field, but a handle without the layout cannot know it: isbn1 has
    // no `subtitle` (a `None`, or left out?), so it alone is read whole; the others decode
    // from the index.
    injector.reset_records();
    assert_eq!(table.query(Book::gsi4("essays")).all().await.unwrap(), books);
    let requests = injector.requests();
    assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
    assert_eq!(requests[1].keys, ["PK=BOOK#isbn1 SK=META"]);

    // A handle bound to the declaration knows the projections: GSI4 covers Book, so nothing
    // is read twice, and GSI3 does not, so every item is.
    let server = LocalDynamoDb::shared().await.unwrap();
    let declared = Table::new(injector.client(&server.client()), table.name()).declared::<Library>();
    injector.reset_records();
    assert_eq!(declared.query(Book::gsi4("essays")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query"]);
    injector.reset_records();
    assert_eq!(declared.query(Book::gsi3("s2")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
}

//! Reads through projected indexes that the plain keys-only query did not cover: sharded
//! queries and item collections through a `KEYS_ONLY` index, and queries through an `INCLUDE`
//! index that leaves out some of the entity's fields (read whole, not as `None`s).

use aws_sdk_dynamodb::types::AttributeValue;
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
    let first = table.query(Job::gsi1()).page_items(5).send().await.unwrap();
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

    // GSI4 projects every field, but a handle without the layout cannot know it from the
    // items: isbn1 has no `subtitle` (a `None`, or left out?). The handle learns the table's
    // projections once (`DescribeTable`) instead of reading isbn1 twice: GSI4 holds every field
    // Book reads, so isbn1 decodes from the index as it is.
    injector.reset_records();
    assert_eq!(table.query(Book::gsi4("essays")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query", "DescribeTable"]);
    // Learned once: the next reads send their queries alone.
    injector.reset_records();
    assert_eq!(table.query(Book::gsi4("essays")).all().await.unwrap(), books);
    assert_eq!(operations(&injector), ["Query"]);

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

#[tokio::test]
async fn a_scan_of_a_projected_index_reads_the_whole_items() {
    use dynamo_entity::Error;
    use dynamo_entity::schema::Index;
    use dynamo_entity_local::fault::{Fault, FaultRule, Pick};

    let injector = FaultInjector::new(0);
    let table = table("projected_scan", &injector).await;
    let jobs: Vec<Job> = (0..7u32)
        .map(|i| Job { id: format!("j{i}"), rank: 50 + i, note: (i % 2 == 0).then(|| format!("n{i}")) })
        .collect();
    let members = [
        Member { team: "a".into(), name: "ann".into(), org: "acme".into(), role: Some("lead".into()) },
        Member { team: "b".into(), name: "bob".into(), org: "zeta".into(), role: None },
    ];
    let project = Project { code: "x1".into(), org: "acme".into(), budget: 10 };
    table.batch_put(&jobs).await.unwrap().check().unwrap();
    table.batch_put(&members).await.unwrap().check().unwrap();
    table.put(&project).await.unwrap();
    let by_id = |mut v: Vec<Job>| {
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    };

    // GSI1 is KEYS_ONLY: its items carry no type attribute and no `note`; every one is read
    // whole, and the page keeps the scan's order (that of the index items).
    injector.reset_records();
    let page = table.scan::<Job>().index(Index::Gsi(1)).send().await.unwrap();
    assert_eq!(by_id(page.items.clone()), jobs);
    assert_eq!((page.scanned, page.filtered_out, page.passed_over, page.cursor.is_none()), (7, 0, 0, true));
    assert_eq!(operations(&injector), ["Scan", "BatchGetItem"]);
    let scan = &injector.requests_for("Scan")[0];
    assert_eq!(scan.items, 0);
    let fetched: Vec<String> = injector.requests_for("BatchGetItem")[0].keys.clone();
    let order: Vec<String> = page.items.iter().map(|j| format!("PK=JOB#{} SK=META", j.id)).collect();
    assert_eq!(fetched, order);
    let rendered = table.scan::<Job>().index(Index::Gsi(1)).render().unwrap();
    assert_eq!(rendered.index_name(), Some("GSI1"));
    // Items without a type (this index's) or with one that is not a string come back too.
    assert_eq!(
        rendered.filter_expression(),
        Some("(#n0 = :v0 OR attribute_not_exists(#n0) OR NOT attribute_type(#n0, :v1))")
    );
    assert_eq!(rendered.expression_attribute_values().unwrap()[":v1"], AttributeValue::S("S".into()));

    // Pages of 3 with cursors: every job once.
    let first = table.scan::<Job>().index(Index::Gsi(1)).page_items(3).send().await.unwrap();
    assert_eq!(first.items, page.items[..3].to_vec());
    let second = table.scan::<Job>().index(Index::Gsi(1)).page_items(3).after(first.cursor).send().await.unwrap();
    assert_eq!(second.items, page.items[3..6].to_vec());
    let third = table.scan::<Job>().index(Index::Gsi(1)).page_items(3).after(second.cursor).send().await.unwrap();
    assert_eq!(third.items, page.items[6..].to_vec());
    assert_eq!(third.cursor, None);

    // Unprocessed keys of the second read are read again; nothing is lost.
    injector.add(FaultRule::new(Fault::Unprocessed(Pick::Positions(vec![0, 4]))).on("BatchGetItem").times(1));
    injector.reset_records();
    let retried = table.scan::<Job>().index(Index::Gsi(1)).all().await.unwrap();
    assert_eq!(retried, page.items);
    assert_eq!(operations(&injector), ["Scan", "BatchGetItem", "BatchGetItem"]);
    assert_eq!(injector.requests_for("BatchGetItem")[1].keys, [order[0].clone(), order[4].clone()]);

    // GSI2 is KEYS_ONLY and holds members and a project: the members are told by their key
    // templates, the project's item is another entity's (skipped, counted).
    injector.reset_records();
    let page = table.scan::<Member>().index(Index::Gsi(2)).send().await.unwrap();
    let mut got = page.items.clone();
    got.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(got, members.to_vec());
    // The project's item is left out by the type filter (DynamoDB Local evaluates it on the
    // whole item) or, when the index item shows no type, skipped after its key shape: one
    // item either way, and counted.
    assert_eq!((page.scanned, page.filtered_out + page.passed_over), (3, 1));
    assert_eq!(table.scan::<Project>().index(Index::Gsi(2)).all().await.unwrap(), [project]);

    // Refused before sending: a strongly consistent scan of a GSI, an index Job does not write.
    injector.reset_records();
    let err = table.scan::<Job>().index(Index::Gsi(1)).consistent_read().send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: a scan of Job on GSI1 cannot be strongly consistent: DynamoDB reads a global secondary \
         index with eventual consistency only"
    );
    let err = table.scan::<Job>().index(Index::Gsi(3)).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: a scan of Job on GSI3: Job does not write that index (its templates name no key of it)"
    );
    assert!(matches!(err, Error::Invalid { .. }));
    assert_eq!(operations(&injector), Vec::<String>::new());
}

#[tokio::test]
async fn a_scan_of_an_include_index_reads_left_out_fields_whole() {
    use dynamo_entity::schema::Index;

    let injector = FaultInjector::new(0);
    let table = table("projected_scan_include", &injector).await;
    let books: Vec<Book> = (0..3u32)
        .map(|i| Book {
            isbn: format!("isbn{i}"),
            shelf: format!("s{i}"),
            genre: "poetry".into(),
            title: format!("Title {i}"),
            subtitle: (i != 2).then(|| format!("Subtitle {i}")),
        })
        .collect();
    table.batch_put(&books).await.unwrap().check().unwrap();
    let sorted = |mut v: Vec<Book>| {
        v.sort_by(|a, b| a.isbn.cmp(&b.isbn));
        v
    };
    // GSI3 projects `title` (and the type attribute): every item lacks `genre`, read whole.
    injector.reset_records();
    assert_eq!(sorted(table.scan::<Book>().index(Index::Gsi(3)).all().await.unwrap()), books);
    assert_eq!(operations(&injector), ["Scan", "BatchGetItem"]);
    assert_eq!(injector.requests_for("BatchGetItem")[0].items, 3);
    // GSI4 projects every field Book has: on a handle without the layout, only isbn2 (no
    // subtitle: None or left out?) is read whole; with the layout, none is.
    injector.reset_records();
    assert_eq!(sorted(table.scan::<Book>().index(Index::Gsi(4)).all().await.unwrap()), books);
    assert_eq!(injector.requests_for("BatchGetItem")[0].keys, ["PK=BOOK#isbn2 SK=META"]);
    let known = table.with_layout(&Library::layout().unwrap());
    injector.reset_records();
    assert_eq!(sorted(known.scan::<Book>().index(Index::Gsi(4)).all().await.unwrap()), books);
    assert_eq!(operations(&injector), ["Scan"]);
}

/// A native multi-attribute GSI5 on `maker` then `rank` projecting `title` (and the type
/// attribute) only: `note` is left out.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "GADGET#<id>", sk = "META", gsi5(pk(maker), sk(rank)))]
struct Gadget {
    id: String,
    maker: String,
    rank: u32,
    title: String,
    note: Option<String>,
}

#[derive(TableDef)]
#[table(entities(Gadget), gsi5(projection = include(title)))]
struct Workshop;

/// A table without a type attribute, whose native GSI5 holds the keys only.
mod typeless {
    use dynamo_entity::{Entity, TableDef};

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "PART#<id>", sk = "META", table = Store, gsi5(pk(maker), sk(rank)))]
    pub struct Part {
        pub id: String,
        pub maker: String,
        pub rank: u32,
        pub note: Option<String>,
    }

    #[derive(TableDef)]
    #[table(entities(Part), entity_type = none, gsi5(projection = keys_only))]
    pub struct Store;
}

async fn table_of(test: &str, injector: &FaultInjector, layout: &dynamo_entity::design::TableLayout) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let plain = Table::new(server.client(), unique_table_name(test));
    plain.create_table_from(layout).await.unwrap();
    Table::new(injector.client(plain.client()), plain.name())
}

#[tokio::test]
async fn a_native_gsi_whose_projection_leaves_fields_out_reads_the_whole_items() {
    use typeless::{Part, Store};

    // INCLUDE(title): the index items carry the type attribute but no `note`.
    let injector = FaultInjector::new(0);
    let layout = Workshop::layout().unwrap();
    let table = table_of("projected_native_include", &injector, &layout).await;
    let gadgets: Vec<Gadget> = (0..3u32)
        .map(|i| Gadget {
            id: format!("g{i}"),
            maker: "acme".into(),
            rank: 10 + i,
            title: format!("Gadget {i}"),
            note: Some(format!("note {i}")),
        })
        .collect();
    table.batch_put(&gadgets).await.unwrap().check().unwrap();
    // Before: decoded from the index items, every `note` read `None`. The handle without the
    // layout learns the projection first (`DescribeTable`, once), as the items alone cannot
    // tell a `None` from a field left out.
    for (handle, learn) in [(table.clone(), true), (table.with_layout(&layout), false)] {
        injector.reset_records();
        assert_eq!(handle.query(Gadget::gsi5("acme").rank_ge(&10)).all().await.unwrap(), gadgets);
        let expected: &[&str] =
            if learn { &["Query", "DescribeTable", "BatchGetItem"] } else { &["Query", "BatchGetItem"] };
        assert_eq!(operations(&injector), expected);
        assert_eq!(
            injector.requests_for("BatchGetItem")[0].keys,
            ["PK=GADGET#g0 SK=META", "PK=GADGET#g1 SK=META", "PK=GADGET#g2 SK=META"]
        );
    }

    // KEYS_ONLY in a table without a type attribute: the key shape tells the entity, and the
    // items are read whole.
    let injector = FaultInjector::new(0);
    let layout = Store::layout().unwrap();
    let table = table_of("projected_native_keys_only", &injector, &layout).await;
    let parts: Vec<Part> = (0..2u32)
        .map(|i| Part { id: format!("p{i}"), maker: "acme".into(), rank: i, note: Some(format!("n{i}")) })
        .collect();
    table.batch_put(&parts).await.unwrap().check().unwrap();
    for handle in [table.clone(), table.with_layout(&layout)] {
        injector.reset_records();
        assert_eq!(handle.query(Part::gsi5("acme").rank_ge(&0)).all().await.unwrap(), parts);
        assert_eq!(operations(&injector), ["Query", "BatchGetItem"]);
        assert_eq!(injector.requests_for("BatchGetItem")[0].keys, ["PK=PART#p0 SK=META", "PK=PART#p1 SK=META"]);
    }
}

#[tokio::test]
async fn a_lenient_query_skips_a_whole_item_that_does_not_decode() {
    use aws_sdk_dynamodb::types::AttributeValue;
    use dynamo_entity::Error;

    let injector = FaultInjector::new(0);
    let table = table("projected_lenient_hydrate", &injector).await;
    let members = [
        Member { team: "a".into(), name: "ann".into(), org: "acme".into(), role: Some("lead".into()) },
        Member { team: "c".into(), name: "cat".into(), org: "acme".into(), role: None },
    ];
    table.batch_put(&members).await.unwrap().check().unwrap();
    // Between them in GSI2's order, a member whose `role` is a number: its index item (keys
    // only) is fine, its whole item does not decode.
    let s = |v: &str| AttributeValue::S(v.to_owned());
    let bad = [
        ("PK", s("TEAM#b#MEMBER#bob")),
        ("SK", s("META")),
        ("_type", s("Member")),
        ("team", s("b")),
        ("name", s("bob")),
        ("org", s("acme")),
        ("role", AttributeValue::N("7".into())),
        ("GSI2PK", s("ORG#acme")),
        ("GSI2SK", s("M#bob")),
    ];
    let item = bad.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();

    // Before: the lenient query failed on the BatchGetItem's decode error.
    let page = table.query(Member::gsi2("acme")).lenient().send().await.unwrap();
    assert_eq!(page.items, members.to_vec());
    assert_eq!(page.skipped.len(), 1);
    assert_eq!(page.skipped[0].key, "PK=TEAM#b#MEMBER#bob SK=META");
    assert!(matches!(page.skipped[0].error, Error::Decode { .. }), "{:?}", page.skipped[0].error);

    // Strict, the item fails the query, naming its key.
    let err = table.query(Member::gsi2("acme")).send().await.unwrap_err();
    assert!(matches!(err, Error::Decode { .. }), "{err:?}");
    assert!(err.to_string().contains("PK=TEAM#b#MEMBER#bob SK=META"), "{err}");
}

#[tokio::test]
async fn a_scan_of_a_native_gsi_is_refused_naming_entity_and_index() {
    use dynamo_entity::Error;
    use dynamo_entity::schema::Index;

    let injector = FaultInjector::new(0);
    let table = table_of("projected_native_scan", &injector, &Workshop::layout().unwrap()).await;
    injector.reset_records();
    // Before: "Gadget does not write that index", which it does.
    let err = table.scan::<Gadget>().index(Index::Gsi(5)).send().await.unwrap_err();
    assert!(matches!(&err, Error::NativeIndexScan { entity: "Gadget", index } if index == "GSI5"), "{err:?}");
    assert_eq!(
        err.to_string(),
        "a scan of Gadget on GSI5 is not supported: GSI5 is a native multi-attribute GSI; query it with the generated \
         builder instead"
    );
    assert_eq!(operations(&injector), Vec::<String>::new());
}

//! Queries through indexes whose projection leaves attributes out (`KEYS_ONLY`): the index
//! items carry no entity type, are told to be the entity's by their key templates, and are read
//! whole by their primary keys (`send`), or returned as typed keys (`send_keys`). A query never
//! returns fewer items than the index holds. And sealed cursors (`query::CursorKeys`), tested here
//! on such a query.

use dynamo_entity::{Entity, Table, TableDef};
use dynamo_entity_local::Divergence;
use dynamo_entity_local::fault::FaultInjector;
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TASK#<id>", sk = "META", gsi1 = "GROUP#<group>", gsi1_sk = "<rank>")]
struct Task {
    id: String,
    group: String,
    rank: u32,
    note: Option<String>,
}

/// A follow edge in the follower's partition, read from the followed end through the
/// inverted index.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<follower>", sk = "FOLLOWS#<followed>", inverted)]
struct Follow {
    follower: String,
    followed: String,
    since: u32,
}

#[derive(TableDef)]
#[table(entities(Task, Follow), gsi1(projection = keys_only), inverted(projection = keys_only))]
struct Projected;

/// A table of the declaration, and a handle on it whose requests `injector` records.
async fn table(test: &str, injector: &FaultInjector) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let plain = Table::new(server.client(), unique_table_name(test));
    plain.create_table_from(&Projected::layout().unwrap()).await.unwrap();
    Table::new(injector.client(plain.client()), plain.name())
}

fn task(i: u32) -> Task {
    Task { id: format!("t{i}"), group: "x".into(), rank: 10 * i, note: (i % 2 == 0).then(|| format!("note {i}")) }
}

#[tokio::test]
async fn a_keys_only_gsi_reads_the_whole_items() {
    let injector = FaultInjector::new(0);
    let table = table("projected_gsi", &injector).await;
    let tasks: Vec<Task> = (0..5).map(task).collect();
    table.batch_put(&tasks).await.unwrap().check().unwrap();
    // Without the second read, the query would return nothing: the index items carry no
    // type attribute (what the SDK alone reads from the index).
    let raw = table
        .client()
        .query()
        .table_name(table.name())
        .index_name("GSI1")
        .key_condition_expression("GSI1PK = :p")
        .expression_attribute_values(":p", aws_sdk_dynamodb::types::AttributeValue::S("GROUP#x".into()))
        .send()
        .await
        .unwrap();
    let first_raw = &raw.items()[0];
    let mut names: Vec<&str> = first_raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["GSI1PK", "GSI1SK", "PK", "SK"]);

    injector.reset_records();
    let first = table.query(Task::gsi1("x")).page_items(3).send().await.unwrap();
    assert_eq!(first.items, tasks[..3].to_vec());
    let ops: Vec<String> = injector.requests().into_iter().map(|r| r.operation).collect();
    assert_eq!(ops, ["Query", "BatchGetItem"]);
    let rest = table.query(Task::gsi1("x")).page_items(3).after(first.cursor).send().await.unwrap();
    assert_eq!(rest.items, tasks[3..].to_vec());
    assert_eq!(rest.cursor, None);
    assert_eq!(
        table.query(Task::gsi1("x")).descending().all().await.unwrap(),
        tasks.iter().rev().cloned().collect::<Vec<_>>()
    );

    // The keys alone: one Query, no second read.
    injector.reset_records();
    let keys = table.query(Task::gsi1("x")).send_keys().await.unwrap();
    let expected: Vec<_> = tasks.iter().map(|t| Task::key(&t.id).encoded().unwrap().clone()).collect();
    let got: Vec<_> = keys.items.iter().map(|k| k.encoded().unwrap().clone()).collect();
    assert_eq!(got, expected);
    let ops: Vec<String> = injector.requests().into_iter().map(|r| r.operation).collect();
    assert_eq!(ops, ["Query"]);
}

#[tokio::test]
async fn a_keys_only_inverted_index_reads_the_followers() {
    let injector = FaultInjector::new(0);
    let table = table("projected_inverted", &injector).await;
    let follows: Vec<Follow> = ["u3", "u1", "u2"]
        .into_iter()
        .enumerate()
        .map(|(i, u)| Follow { follower: u.into(), followed: "star".into(), since: i as u32 })
        .chain([Follow { follower: "u1".into(), followed: "other".into(), since: 9 }])
        .collect();
    table.batch_put(&follows).await.unwrap().check().unwrap();
    table.put(&task(1)).await.unwrap();
    let fans = table.query(Follow::inverted("star")).all().await.unwrap();
    assert_eq!(fans, vec![follows[1].clone(), follows[2].clone(), follows[0].clone()]);
    let page = table.query(Follow::inverted("star")).max_items(2).send().await.unwrap();
    assert_eq!(page.items, vec![follows[1].clone(), follows[2].clone()]);
    assert!(page.cursor.is_some());
}

/// Sealed cursors page through a query like plain ones, show nothing of the keys, and refuse
/// tampering; a key rotated out still opens the cursors it sealed while it is kept.
#[tokio::test]
async fn sealed_cursors_page_and_reveal_nothing() {
    use base64::Engine as _;
    use dynamo_entity::Error;
    use dynamo_entity::query::CursorKeys;
    let injector = FaultInjector::new(0);
    let table = table("projected_sealed", &injector).await;
    let tasks: Vec<Task> = (0..5).map(|i| Task { id: format!("alice{i}@example.com"), ..task(i) }).collect();
    table.batch_put(&tasks).await.unwrap().check().unwrap();
    let q = || table.query(Task::gsi1("x")).max_items(2);
    let first = q().send().await.unwrap();
    let plain = first.cursor.clone().unwrap();
    // The plain cursor shows the next item's key; the sealed one shows nothing of it.
    let plain_bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(plain.as_str()).unwrap();
    assert!(String::from_utf8(plain_bytes).unwrap().contains("TASK#alice1@example.com"));
    let old = CursorKeys::new([3; 32]);
    let sealed = old.seal(&plain).unwrap();
    let sealed_bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD.decode(&sealed).unwrap();
    assert!(!sealed_bytes.windows(5).any(|w| w == b"alice"));
    assert!(!sealed.contains("alice") && !sealed.contains(plain.as_str()));

    // After rotation, the old key still opens the cursor, which resumes the query.
    let keys = CursorKeys::new([4; 32]).with_retired([3; 32]);
    let second = q().after(keys.open(&sealed).unwrap()).send().await.unwrap();
    assert_eq!(second.items, tasks[2..4].to_vec());
    let third =
        q().after(keys.open(&keys.seal(second.cursor.as_ref().unwrap()).unwrap()).unwrap()).send().await.unwrap();
    assert_eq!(third.items, tasks[4..].to_vec());

    // Tampered: one character changed is refused before any request.
    let mut chars: Vec<char> = sealed.chars().collect();
    chars[30] = if chars[30] == 'A' { 'B' } else { 'A' };
    let tampered: String = chars.into_iter().collect();
    assert!(matches!(keys.open(&tampered), Err(Error::Cursor { .. })));
    // Without the retired key, refused; a sealed cursor opened still belongs to its query.
    assert!(matches!(CursorKeys::new([4; 32]).open(&sealed), Err(Error::Cursor { .. })));
    let other = table.query(Task::gsi1("y")).after(keys.open(&sealed).unwrap()).send().await;
    assert!(matches!(other, Err(Error::Cursor { .. })), "{other:?}");
}

/// An item read through indexes that project little: GSI2 keys only (ranked by `rank`), GSI3
/// `title` only, the native GSI4 (on `group` and `rank`) keys only, LSI1 keys only and the
/// inverted index keys only.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "SHELF#<shelf>",
    sk = "ITEM#<id>",
    gsi2 = "GROUP#<group>",
    gsi2_sk = "<rank>",
    gsi3 = "TITLED#<group>",
    gsi3_sk = "<id>",
    gsi4(pk(group), sk(rank)),
    lsi1 = "<rank>",
    inverted
)]
struct Thing {
    shelf: String,
    id: String,
    group: String,
    rank: u32,
    title: String,
    note: Option<String>,
    tags: std::collections::BTreeMap<String, String>,
}

#[derive(TableDef)]
#[table(
    entities(Thing),
    gsi2(projection = keys_only),
    gsi3(projection = include(title)),
    gsi4(projection = keys_only),
    lsi1(projection = keys_only),
    inverted(projection = keys_only)
)]
struct Shelf;

fn thing(i: u32) -> Thing {
    Thing {
        shelf: "s1".into(),
        id: format!("i{i}"),
        group: "x".into(),
        rank: 10 * i,
        title: format!("T{i}"),
        note: (i % 2 == 0).then(|| format!("note {i}")),
        tags: [("k".to_owned(), format!("v{i}"))].into(),
    }
}

/// The finding: a filter on an attribute that a `KEYS_ONLY` or `INCLUDE` index does not
/// project reached DynamoDB and came back as a raw `ValidationException`. Now the handle bound to
/// the declaration refuses it before sending, in `render` as in `send`, for every kind of index
/// read; a filter on a projected attribute returns exactly the matching items.
#[tokio::test]
async fn a_filter_on_an_attribute_the_index_does_not_project_is_refused_before_sending() {
    use dynamo_entity::Error;
    use dynamo_entity::schema::Index;
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let plain = Table::new(server.client(), unique_table_name("projected_filters"));
    plain.create_table_from(&Shelf::layout().unwrap()).await.unwrap();
    let injector = FaultInjector::new(0);
    let shelf = Table::new(injector.client(plain.client()), plain.name()).declared::<Shelf>();
    let things: Vec<Thing> = (1..=4).map(thing).collect();
    shelf.batch_put(&things).await.unwrap().check().unwrap();
    injector.reset_records();

    let refused = |op: &str, index: &str, projection: &str, attributes: &str, which: &str| {
        format!(
            "{op} of Thing on {index}: the filter reads {attributes}, which {index} does not project ({projection}); \
             nothing was sent: filter the items after reading them, or project {which} into {index}"
        )
    };
    let keys_only = |index: &str, attribute: &str| refused("Query", index, "KEYS_ONLY", attribute, "the attribute");

    // Template GSI, keys only: `title`, and `rank` (a part of GSI2SK, but not projected itself).
    let q = || shelf.query(Thing::gsi2("x")).filter(Thing::TITLE.eq(&"T4".to_owned()));
    assert_eq!(q().render().unwrap_err().to_string(), keys_only("GSI2", "`title`"));
    let err = q().all().await.unwrap_err();
    let Error::FilterNotProjected { operation, entity, index, ref projection, ref attributes } = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (operation, entity, index, projection.as_str(), attributes.as_slice()),
        ("Query", "Thing", "GSI2", "KEYS_ONLY", &["title"][..])
    );
    let q = || shelf.query(Thing::gsi2("x")).filter(Thing::RANK.ge(&10));
    assert_eq!(q().render().unwrap_err().to_string(), keys_only("GSI2", "`rank`"));
    assert_eq!(q().send().await.unwrap_err().to_string(), keys_only("GSI2", "`rank`"));

    // Template GSI, `include(title)` (the layout adds the type attribute): `note`, and a map
    // entry of `tags` (its top-level attribute).
    let include = |attributes: &str, which: &str| refused("Query", "GSI3", "INCLUDE (_type, title)", attributes, which);
    let q = || shelf.query(Thing::gsi3("x")).filter(Thing::NOTE.not_exists());
    assert_eq!(q().render().unwrap_err().to_string(), include("`note`", "the attribute"));
    assert_eq!(q().all().await.unwrap_err().to_string(), include("`note`", "the attribute"));
    let q = || {
        shelf.query(Thing::gsi3("x")).filter(Thing::TAGS.entry("k").eq(&"v1".to_owned())).filter(Thing::NOTE.exists())
    };
    assert_eq!(q().all().await.unwrap_err().to_string(), include("`tags`, `note`", "the attributes"));

    // LSI and inverted index, keys only.
    let q = || shelf.query(Thing::lsi1("s1")).filter(Thing::TITLE.eq(&"T4".to_owned()));
    assert_eq!(q().render().unwrap_err().to_string(), keys_only("LSI1", "`title`"));
    assert_eq!(q().all().await.unwrap_err().to_string(), keys_only("LSI1", "`title`"));
    let q = || shelf.query(Thing::inverted("i1")).filter(Thing::GROUP.eq(&"x".to_owned()));
    assert_eq!(q().all().await.unwrap_err().to_string(), keys_only("INVERTED", "`group`"));

    // The native GSI4, keys only, through the untyped handle on the same table (it shares the
    // declaration's projections): `title` is not projected; its own key attribute `rank` goes
    // to the key condition.
    let q = || shelf.untyped().query(Thing::gsi4("x")).filter(Thing::TITLE.eq(&"T4".to_owned()));
    assert_eq!(q().render().unwrap_err().to_string(), keys_only("GSI4", "`title`"));
    assert_eq!(q().all().await.unwrap_err().to_string(), keys_only("GSI4", "`title`"));
    let err = shelf.untyped().query(Thing::gsi4("x")).filter(Thing::RANK.ge(&20)).all().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: Query of Thing on GSI4: the filter reads `rank`, a key attribute of GSI4, which DynamoDB \
         takes in the key condition only; nothing was sent: give it to the key condition (the index's sort-key \
         conditions), or filter the items after reading them"
    );

    // A scan of the keys-only GSI2.
    let s = || shelf.scan::<Thing>().index(Index::Gsi(2)).filter(Thing::TITLE.eq(&"T4".to_owned()));
    let scan = refused("Scan", "GSI2", "KEYS_ONLY", "`title`", "the attribute");
    assert_eq!(s().render().unwrap_err().to_string(), scan);
    assert_eq!(s().all().await.unwrap_err().to_string(), scan);

    assert_eq!(injector.counts().requests, 0, "{:?}", injector.requests());

    // What works: a filter on the projected `title` returns the whole item it matches (read by
    // its key), the sort-key conditions take `rank`, and a filter after reading the rest.
    let found = shelf.query(Thing::gsi3("x")).filter(Thing::TITLE.eq(&"T3".to_owned())).all().await.unwrap();
    assert_eq!(found, [thing(3)]);
    let ops: Vec<String> = injector.requests().into_iter().map(|r| r.operation).collect();
    assert_eq!(ops, ["Query", "BatchGetItem"]);
    assert_eq!(shelf.query(Thing::gsi2("x")).sk_ge(&20).all().await.unwrap(), things[1..].to_vec());
    let native = shelf.untyped().query(Thing::gsi4("x").rank_ge(&20)).all().await.unwrap();
    assert_eq!(native, things[1..].to_vec());
    let noted: Vec<Thing> =
        shelf.query(Thing::gsi2("x")).all().await.unwrap().into_iter().filter(|t| t.note.is_some()).collect();
    assert_eq!(noted, [thing(2), thing(4)]);

    // A handle that knows no projection sends the filter as it is: DynamoDB refuses it
    // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/GSI.html#GSI.Projections).
    let unknown = Table::new(plain.client().clone(), plain.name());
    if crate::common::diverges(Divergence::UnprojectedFilterAnswered).await {
        let answered = unknown.query(Thing::gsi2("x")).filter(Thing::TITLE.eq(&"T4".to_owned())).all().await.unwrap();
        assert_eq!(answered, []);
        return;
    }
    let err = unknown.query(Thing::gsi2("x")).filter(Thing::TITLE.eq(&"T4".to_owned())).all().await.unwrap_err();
    assert!(matches!(err, Error::Sdk { .. }), "{err:?}");
    assert!(
        err.to_string().contains("Secondary index GSI2 does not project one or more filter attributes: [title]"),
        "{err}"
    );
}

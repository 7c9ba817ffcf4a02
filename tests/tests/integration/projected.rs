//! Queries through indexes whose projection leaves attributes out (`KEYS_ONLY`): the index
//! items carry no entity type, are told to be the entity's by their key templates, and are read
//! whole by their primary keys (`send`), or returned as typed keys (`send_keys`). A query never
//! returns fewer items than the index holds. And sealed cursors (`query::CursorKeys`), tested here
//! on such a query.

use dynamo_entity::{Entity, Table, TableDef};
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
    let first = table.query(Task::gsi1("x")).limit(3).send().await.unwrap();
    assert_eq!(first.items, tasks[..3].to_vec());
    let ops: Vec<String> = injector.requests().into_iter().map(|r| r.operation).collect();
    assert_eq!(ops, ["Query", "BatchGetItem"]);
    let rest = table.query(Task::gsi1("x")).limit(3).after(first.cursor).send().await.unwrap();
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
    let page = table.query(Follow::inverted("star")).limit(2).send().await.unwrap();
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
    let q = || table.query(Task::gsi1("x")).limit(2);
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

//! The requests operations render without sending (`dynamo_entity::table::render`), pinned as insta
//! snapshots of their deterministic JSON form (tests/tests/snapshots/render__*.snap), and the
//! check that a rendered request is what is sent: each rendered request is sent as it is
//! through the SDK to DynamoDB Local and gives the item the library's own operation gives.

use crate::common;
use crate::common::insta;

use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use dynamo_entity::table::render::Request;
use dynamo_entity::{Cursor, Entity, Table};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<downloads>")]
struct Skill {
    id: String,
    title: String,
    category: String,
    downloads: u64,
    tags: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Doc {
    id: String,
    title: String,
    #[entity(version)]
    version: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct User {
    id: String,
    #[entity(unique)]
    email: String,
    name: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "PROFILE")]
struct Member {
    id: String,
    #[entity(unique)]
    email: String,
    #[entity(version)]
    version: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SKILL#<skill>", sk = "REVIEW#<at>#<user>")]
struct Review {
    skill: String,
    at: u32,
    user: String,
    stars: u8,
}

/// A table handle on a client that never sends anything here: rendering needs no server.
fn offline() -> Table {
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .build();
    Table::new(aws_sdk_dynamodb::Client::from_conf(config), "skill-exchange")
}

fn skill() -> Skill {
    Skill {
        id: "s1".into(),
        title: "Rust & DynamoDB".into(),
        category: "documents".into(),
        downloads: 42,
        tags: vec!["rust".into(), "aws".into()],
    }
}

fn json(requests: &[Request]) -> serde_json::Value {
    requests.iter().map(Request::to_json).collect()
}

#[test]
fn put_of_a_plain_entity() {
    let requests = offline().render().put(&skill()).unwrap();
    assert_eq!(requests.len(), 1);
    insta::assert_json_snapshot!("put_plain", json(&requests));
}

#[test]
fn put_of_a_versioned_entity() {
    let doc = Doc { id: "d1".into(), title: "Draft".into(), version: 3 };
    let requests = offline().render().put(&doc).unwrap();
    insta::assert_json_snapshot!("put_versioned", json(&requests));
}

#[test]
fn put_of_an_entity_with_a_unique_field() {
    let user = User { id: "u1".into(), email: "ann@example.test".into(), name: "Ann".into() };
    let requests = offline().render().put(&user).unwrap();
    let operations: Vec<&str> = requests.iter().map(Request::operation).collect();
    assert_eq!(operations, ["GetItem", "TransactWriteItems"]);
    insta::assert_json_snapshot!("put_unique", json(&requests));
}

/// A versioned entity with a unique field, read at version 2: the transaction is rendered as
/// sent when the read finds version 2 with the same e-mail address (the guard is claimed again,
/// a no-op for the owner).
#[test]
fn put_of_a_versioned_entity_with_a_unique_field() {
    let member = Member { id: "m1".into(), email: "bo@example.test".into(), version: 2 };
    let requests = offline().render().put(&member).unwrap();
    let tx = requests[1].clone().into_transact_write_items().unwrap();
    let put = tx.transact_items()[0].put().unwrap();
    // The item exists, still holds the e-mail address read, is of this entity type (the guard
    // every write shares: a put never overwrites another entity's item), and is at version 2.
    assert_eq!(put.condition_expression(), Some("attribute_exists(#n0) AND #n1 = :v0 AND #n2 = :v1 AND #n3 = :v2"));
    let names = put.expression_attribute_names().unwrap();
    assert_eq!((names["#n2"].as_str(), names["#n3"].as_str()), ("_type", "version"));
    let values = put.expression_attribute_values().unwrap();
    assert_eq!(values[":v1"], aws_sdk_dynamodb::types::AttributeValue::S("Member".into()));
    assert_eq!(values[":v2"], aws_sdk_dynamodb::types::AttributeValue::N("2".into()));
    assert_eq!(put.item()["version"], aws_sdk_dynamodb::types::AttributeValue::N("3".into()));
    assert_eq!(tx.transact_items().len(), 2);
    // A replace renders the same transaction.
    assert_eq!(offline().render().replace(&member).unwrap(), requests);
}

#[test]
fn create() {
    let requests = offline().render().create(&skill()).unwrap();
    insta::assert_json_snapshot!("create", json(&requests));
}

#[test]
fn update_rewriting_a_gsi_key() {
    let table = offline();
    let input = table
        .update(Skill::key("s1"))
        .set(Skill::CATEGORY, &"videos".to_owned())
        .add(Skill::DOWNLOADS, &1)
        .condition(Skill::DOWNLOADS.lt(&1000))
        .render()
        .unwrap();
    insta::assert_json_snapshot!("update_gsi_rewrite", Request::from(input).to_json());
}

/// Changing a unique field: the read, then the update with the release of the old guard and
/// the claim of the new one, rendered for a given stored item.
#[test]
fn update_of_a_unique_field() {
    let table = offline();
    let stored = User { id: "u1".into(), email: "ann@example.test".into(), name: "Ann".into() };
    let requests =
        table.update(User::key("u1")).set_unique(User::EMAIL, &"ann@example.org".to_owned()).render(&stored).unwrap();
    let operations: Vec<&str> = requests.iter().map(Request::operation).collect();
    assert_eq!(operations, ["GetItem", "TransactWriteItems"]);
    insta::assert_json_snapshot!("update_unique", json(&requests));
}

#[test]
fn delete() {
    let requests = offline().render().delete(Skill::key("s1")).unwrap();
    insta::assert_json_snapshot!("delete", json(&requests));
}

#[test]
fn transaction() {
    let table = offline();
    let input = table
        .transact()
        .create(&skill())
        .update(table.update(Skill::key("s2")).add(Skill::DOWNLOADS, &1))
        .delete(Review::key("s1", &7, "u9"))
        .condition_check(Doc::key("d1"), Doc::VERSION.eq(&3))
        .client_request_token("purchase-s1-u2")
        .render()
        .unwrap();
    insta::assert_json_snapshot!("transaction", Request::from(input).to_json());
}

#[test]
fn batch_write() {
    let table = offline();
    let other = Skill { id: "s2".into(), downloads: 0, tags: vec![], ..skill() };
    let inputs = table.batch_write().put(&skill()).put(&other).delete(Review::key("s1", &7, "u9")).render().unwrap();
    assert_eq!(inputs.len(), 1);
    let requests: Vec<Request> = inputs.into_iter().map(Request::from).collect();
    insta::assert_json_snapshot!("batch_write", json(&requests));
    // More than 25 writes: one request per 25.
    let many: Vec<Skill> = (0..26).map(|i| Skill { id: format!("s{i}"), ..skill() }).collect();
    let inputs = table.batch_write().put_all(&many).render().unwrap();
    let sizes: Vec<usize> = inputs.iter().map(|i| i.request_items().unwrap()["skill-exchange"].len()).collect();
    assert_eq!(sizes, [25, 1]);
}

#[test]
fn rendering_is_stable() {
    // HashMap order differs between maps built in the same process: render many times.
    let first = json(&offline().render().put(&skill()).unwrap());
    for _ in 0..50 {
        assert_eq!(json(&offline().render().put(&skill()).unwrap()), first);
    }
}

/// A query with a sort-key range, a filter and a cursor. The cursor comes from a real first page
/// (DynamoDB Local); it names keys, not the table, so it renders the same in every run.
#[tokio::test]
async fn query_with_sort_key_condition_filter_and_cursor() {
    let live = common::table("render_query", &[Review::schema()]).await;
    for (at, user, stars) in [(5, "u1", 5), (7, "u2", 3), (9, "u3", 4)] {
        live.put(&Review { skill: "s1".into(), at, user: user.into(), stars }).await.unwrap();
    }
    let query = |table: &Table, after: Option<Cursor>| {
        table
            .query(Review::query("s1"))
            .sk_ge((&6,))
            .filter(Review::STARS.ge(&3))
            .descending()
            .page_items(1)
            .after(after)
    };
    let first = query(&live, None).send().await.unwrap();
    assert_eq!(first.items.iter().map(|r| r.at).collect::<Vec<_>>(), [9]);
    let cursor = first.cursor.clone().expect("a second page");

    let input = query(&offline(), Some(cursor.clone())).render().unwrap();
    insta::assert_json_snapshot!("query_sk_filter_cursor", Request::from(input.clone()).to_json());

    // The rendered request, sent as it is, reads what the library's second page reads.
    let sent = live
        .client()
        .query()
        .set_table_name(Some(live.name().to_owned()))
        .set_index_name(input.index_name().map(str::to_owned))
        .set_key_condition_expression(input.key_condition_expression().map(str::to_owned))
        .set_filter_expression(input.filter_expression().map(str::to_owned))
        .set_expression_attribute_names(input.expression_attribute_names().cloned())
        .set_expression_attribute_values(input.expression_attribute_values().cloned())
        .set_scan_index_forward(input.scan_index_forward())
        .set_limit(input.limit())
        .set_exclusive_start_key(input.exclusive_start_key().cloned())
        .send()
        .await
        .unwrap();
    let second = query(&live, Some(cursor)).send().await.unwrap();
    let raw: Vec<Review> = sent.items().iter().map(|i| Review::from_item(i).unwrap()).collect();
    assert_eq!(raw, second.items);
    assert_eq!(raw.iter().map(|r| r.at).collect::<Vec<_>>(), [7]);
}

#[test]
fn reads_in_batches_and_transactions() {
    let table = offline();
    let inputs = table.batch_get([Skill::key("s1"), Skill::key("s2")]).consistent_read().render().unwrap();
    let requests: Vec<Request> = inputs.into_iter().map(Request::from).collect();
    insta::assert_json_snapshot!("batch_get", json(&requests));
    // 150 keys: 100 in the first request, 50 in the second.
    let inputs = table.batch_get((0..150).map(|i| Skill::key(&format!("s{i}")))).render().unwrap();
    let sizes: Vec<usize> = inputs.iter().map(|i| i.request_items().unwrap()["skill-exchange"].keys().len()).collect();
    assert_eq!(sizes, [100, 50]);

    let input = table.collection(Skill::query("s1")).render().unwrap();
    assert_eq!(
        (input.key_condition_expression(), input.index_name(), input.expression_attribute_values().map(|v| v.len())),
        (Some("#pk = :pk"), None, Some(1))
    );

    let input = table.transact_get().get(Skill::key("s1")).get(User::key("u1")).render().unwrap();
    insta::assert_json_snapshot!("transact_get", Request::from(input).to_json());
}

#[test]
fn what_cannot_be_sent_cannot_be_rendered() {
    let table = offline();
    let err = table.render().get(Skill::key("")).unwrap_err();
    assert!(matches!(err, dynamo_entity::Error::Key(_)), "{err:?}");
    let err = table.update(Skill::key("s1")).render().unwrap_err();
    assert_eq!(err.to_string(), "invalid request: an update of Skill must change at least one field");
    let err = table.batch_write().put(&skill()).put(&skill()).render().unwrap_err();
    assert!(matches!(err, dynamo_entity::Error::DuplicateKey { first: 0, second: 1, .. }), "{err:?}");
    let err = table.transact().render().unwrap_err();
    assert_eq!(err.to_string(), "invalid request: a transaction needs at least one action");
    let err = table.render().delete_if_version(Skill::key("s1"), 1).unwrap_err();
    assert!(err.to_string().contains("Skill has no `#[entity(version)]` field"), "{err}");
}

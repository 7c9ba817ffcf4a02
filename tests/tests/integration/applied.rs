//! A write that DynamoDB applied is never reported as a failure: for every operation, an item
//! made undecodable on purpose (written with the raw SDK, a field of the wrong type) is written,
//! updated or deleted exactly once, and the call returns `Ok` carrying the decode problem
//! (`Returned::Undecodable`, with the entity, attribute and key) where the operation returns an
//! item.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::error::{ItemError, Returned};
use dynamo_entity::value::ValueError;
use dynamo_entity::{Entity, Error, Item, Table};

/// An account: `name` is a string, `count` a counter.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "META")]
struct Account {
    id: String,
    name: String,
    count: u64,
}

/// A versioned document.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Doc {
    id: String,
    title: String,
    hits: u32,
    #[entity(version)]
    version: u64,
}

/// A member with a unique e-mail address.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "PROFILE")]
struct Member {
    id: String,
    #[entity(unique)]
    email: String,
    name: String,
    logins: u32,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

/// Writes `item` with the raw SDK.
async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// An `Account` item whose `name` is a number (N 7): it does not decode.
async fn bad_account(table: &Table, id: &str, count: u64) {
    let item: Item = [
        ("PK".to_owned(), s(&format!("ACCOUNT#{id}"))),
        ("SK".to_owned(), s("META")),
        ("_type".to_owned(), s("Account")),
        ("id".to_owned(), s(id)),
        ("name".to_owned(), n("7")),
        ("count".to_owned(), n(&count.to_string())),
    ]
    .into();
    raw_put(table, item).await;
}

/// A `Doc` item at `version` whose `title` is a number (N 7).
async fn bad_doc(table: &Table, id: &str, version: u64) {
    let item: Item = [
        ("PK".to_owned(), s(&format!("DOC#{id}"))),
        ("SK".to_owned(), s("META")),
        ("_type".to_owned(), s("Doc")),
        ("id".to_owned(), s(id)),
        ("title".to_owned(), n("7")),
        ("hits".to_owned(), n("45")),
        ("version".to_owned(), n(&version.to_string())),
    ]
    .into();
    raw_put(table, item).await;
}

/// Asserts that `problem` is the decode error of attribute `attribute` of `entity` at `key`,
/// a number where a string is expected, and returns the item it carries.
fn assert_problem<'a>(problem: &'a ItemError, entity: &str, attribute: &str, key: &str) -> &'a Item {
    assert_eq!(problem.key, key);
    match &problem.error {
        Error::Decode { entity: e, attribute: a, key: k, source } => {
            assert_eq!((*e, *a, k.as_str()), (entity, attribute, key));
            assert_eq!(*source, ValueError::WrongType { expected: "S", found: "N" });
        }
        other => panic!("expected a decode error, got {other:?}"),
    }
    let source = ValueError::WrongType { expected: "S", found: "N" };
    assert_eq!(
        problem.to_string(),
        format!("item {key} does not decode: cannot decode {entity} {key}: attribute `{attribute}`: {source}")
    );
    &problem.item
}

fn undecodable<T: std::fmt::Debug>(returned: Returned<T>) -> ItemError {
    match returned {
        Returned::Undecodable(e) => e,
        Returned::Decoded(v) => panic!("expected an undecodable item, got {v:?}"),
        Returned::Lost { key, .. } => panic!("expected an undecodable item, got a lost one at {key}"),
    }
}

async fn count_of(table: &Table, pk: &str, sk: &str) -> Option<String> {
    common::raw_item(table, pk, sk).await.map(|i| i["count"].as_n().unwrap().clone())
}

#[tokio::test]
async fn update_add_on_an_undecodable_item_applies_once_and_reports_it() {
    let table = common::table("applied_update", &[Account::schema()]).await;
    bad_account(&table, "a", 45).await;
    let returned = table.update(Account::key("a")).add(Account::COUNT, &1).send().await.unwrap();
    let problem = undecodable(returned);
    let item = assert_problem(&problem, "Account", "name", "PK=ACCOUNT#a SK=META");
    // The returned item is the one after the update (ALL_NEW).
    assert_eq!(item["count"], n("46"));
    assert_eq!(count_of(&table, "ACCOUNT#a", "META").await.as_deref(), Some("46"));

    // ALL_OLD: the item before the second update, which was applied once too.
    let returned = table.update(Account::key("a")).add(Account::COUNT, &1).send_returning_old().await.unwrap();
    let problem = undecodable(returned);
    assert_eq!(assert_problem(&problem, "Account", "name", "PK=ACCOUNT#a SK=META")["count"], n("46"));
    assert_eq!(count_of(&table, "ACCOUNT#a", "META").await.as_deref(), Some("47"));

    // An item that decodes comes back decoded.
    table.put(&Account { id: "b".into(), name: "Bea".into(), count: 1 }).await.unwrap();
    let returned = table.update(Account::key("b")).add(Account::COUNT, &1).send().await.unwrap();
    assert_eq!(returned.into_result().unwrap(), Account { id: "b".into(), name: "Bea".into(), count: 2 });
}

#[tokio::test]
async fn delete_of_an_undecodable_item_deletes_it_and_reports_it() {
    let table = common::table("applied_delete", &[Account::schema()]).await;
    bad_account(&table, "a", 45).await;
    let problem = undecodable(table.delete(Account::key("a")).await.unwrap());
    assert_eq!(assert_problem(&problem, "Account", "name", "PK=ACCOUNT#a SK=META")["count"], n("45"));
    assert_eq!(common::raw_item(&table, "ACCOUNT#a", "META").await, None);
    // Deleting again: nothing was there.
    assert_eq!(table.delete(Account::key("a")).await.unwrap().into_result().unwrap(), None);
}

#[tokio::test]
async fn replace_and_put_over_an_undecodable_item_write_it_and_report_the_old_one() {
    let table = common::table("applied_replace", &[Account::schema()]).await;
    bad_account(&table, "a", 45).await;
    let new = Account { id: "a".into(), name: "Ann".into(), count: 1 };
    let problem = undecodable(table.replace(&new).await.unwrap());
    assert_eq!(assert_problem(&problem, "Account", "name", "PK=ACCOUNT#a SK=META")["count"], n("45"));
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap(), Some(new.clone()));

    // put and create return no item: over an undecodable item, a put is a plain success.
    bad_account(&table, "a", 45).await;
    table.put(&new).await.unwrap();
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap(), Some(new.clone()));
    table.delete(Account::key("a")).await.unwrap().unwrap();
    let mut fresh = new.clone();
    table.create(&mut fresh).await.unwrap();
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap(), Some(new));
}

#[tokio::test]
async fn versioned_writes_on_an_undecodable_item_apply_once_and_report_it() {
    let table = common::table("applied_versioned", &[Doc::schema()]).await;
    bad_doc(&table, "d", 3).await;
    // An update on the version read: applied (version 3 -> 4, hits 45 -> 46), reported.
    let returned = table.update(Doc::key("d")).add(Doc::HITS, &1).if_version(3).send().await.unwrap();
    let problem = undecodable(returned);
    let item = assert_problem(&problem, "Doc", "title", "PK=DOC#d SK=META");
    assert_eq!((&item["hits"], &item["version"]), (&n("46"), &n("4")));
    let raw = common::raw_item(&table, "DOC#d", "META").await.unwrap();
    assert_eq!((&raw["hits"], &raw["version"]), (&n("46"), &n("4")));

    // A replace at that version: written (version 5), the old item reported.
    let mut doc = Doc { id: "d".into(), title: "Fixed".into(), hits: 0, version: 4 };
    let problem = undecodable(table.replace(&mut doc).await.unwrap());
    assert_eq!(assert_problem(&problem, "Doc", "title", "PK=DOC#d SK=META")["version"], n("4"));
    assert_eq!(doc.version, 5);
    assert_eq!(table.get_consistent(Doc::key("d")).await.unwrap(), Some(doc.clone()));

    // A put (&mut) over an undecodable item at the value's version: written, the value updated.
    bad_doc(&table, "d", 5).await;
    table.put(&mut doc).await.unwrap();
    assert_eq!(doc.version, 6);
    assert_eq!(table.get_consistent(Doc::key("d")).await.unwrap(), Some(doc));

    // delete_if_version: deleted, reported.
    bad_doc(&table, "d", 6).await;
    let problem = undecodable(table.delete_if_version(Doc::key("d"), 6).await.unwrap());
    assert_eq!(assert_problem(&problem, "Doc", "title", "PK=DOC#d SK=META")["version"], n("6"));
    assert_eq!(common::raw_item(&table, "DOC#d", "META").await, None);
}

#[tokio::test]
async fn unique_field_writes_on_an_undecodable_item_apply_once_and_report_it() {
    let table = common::table("applied_unique", &[Member::schema()]).await;
    let ann = Member { id: "m".into(), email: "ann@example.test".into(), name: "Ann".into(), logins: 45 };
    table.create(&ann).await.unwrap();
    let corrupt = async |table: &Table| {
        table
            .client()
            .update_item()
            .table_name(table.name())
            .key("PK", s("MEMBER#m"))
            .key("SK", s("PROFILE"))
            .update_expression("SET #n = :n")
            .expression_attribute_names("#n", "name")
            .expression_attribute_values(":n", n("7"))
            .send()
            .await
            .unwrap();
    };
    corrupt(&table).await;

    // An update through the guard transaction returns no item: a plain success, applied once.
    table
        .update(Member::key("m"))
        .set_unique(Member::EMAIL, &"ann@new.test".to_owned())
        .add(Member::LOGINS, &1)
        .send()
        .await
        .unwrap();
    let raw = common::raw_item(&table, "MEMBER#m", "PROFILE").await.unwrap();
    assert_eq!((&raw["email"], &raw["logins"]), (&s("ann@new.test"), &n("46")));

    // A replace: written with its guards, the old item reported.
    let new = Member { email: "ann@example.test".into(), ..ann.clone() };
    let problem = undecodable(table.replace(&new).await.unwrap());
    assert_eq!(assert_problem(&problem, "Member", "name", "PK=MEMBER#m SK=PROFILE")["logins"], n("46"));
    assert_eq!(table.get_consistent(Member::key("m")).await.unwrap(), Some(new));

    // A delete: the item and its guard are gone, the item reported.
    corrupt(&table).await;
    let problem = undecodable(table.delete(Member::key("m")).await.unwrap());
    assert_eq!(assert_problem(&problem, "Member", "name", "PK=MEMBER#m SK=PROFILE")["email"], s("ann@example.test"));
    assert_eq!(common::scan_all(&table).await, Vec::<Item>::new());
}

#[tokio::test]
async fn transactions_and_batches_on_undecodable_items_apply_once() {
    let table = common::table("applied_batch", &[Account::schema()]).await;
    bad_account(&table, "a", 45).await;
    bad_account(&table, "b", 10).await;
    // A transaction returns no item: Ok, applied once.
    table
        .transact()
        .update(table.update(Account::key("a")).add(Account::COUNT, &1))
        .delete(Account::key("b"))
        .send()
        .await
        .unwrap();
    assert_eq!(count_of(&table, "ACCOUNT#a", "META").await.as_deref(), Some("46"));
    assert_eq!(common::raw_item(&table, "ACCOUNT#b", "META").await, None);

    // A batch write returns no item either: the delete is written.
    let outcome = table.batch_write().delete(Account::key("a")).send().await.unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len()), (1, 0));
    assert_eq!(common::scan_all(&table).await, Vec::<Item>::new());
}

/// A counter another client stored as a string (`S "45"`): DynamoDB refuses the `add`, and the
/// error is typed, naming the entity, the key and the counter; nothing was written, through
/// `update` and `upsert` alike (`increment` is an upsert).
#[tokio::test]
async fn an_add_to_a_counter_stored_as_a_string_is_a_typed_error_and_writes_nothing() {
    let table = common::table("applied_counter_type", &[Account::schema()]).await;
    let item: Item = [
        ("PK".to_owned(), s("ACCOUNT#c")),
        ("SK".to_owned(), s("META")),
        ("_type".to_owned(), s("Account")),
        ("id".to_owned(), s("c")),
        ("name".to_owned(), s("Cy")),
        ("count".to_owned(), s("45")),
    ]
    .into();
    raw_put(&table, item.clone()).await;
    let expected = |err: &Error| {
        let Error::StoredTypeMismatch { operation, entity, key, attributes, .. } = err else { panic!("{err:?}") };
        assert_eq!(
            (*operation, *entity, key.as_str(), attributes.clone()),
            ("UpdateItem", "Account", "PK=ACCOUNT#c SK=META", vec!["count"])
        );
        assert!(
            err.to_string().starts_with(
                "DynamoDB UpdateItem of Account PK=ACCOUNT#c SK=META refused: attribute `count` is stored with \
                 another type than the update's operand (DynamoDB: ValidationException: "
            ),
            "{err}"
        );
        assert!(err.to_string().ends_with("; nothing was written"), "{err}");
    };
    expected(&table.update(Account::key("c")).add(Account::COUNT, &1).send().await.unwrap_err());
    let upsert = table.upsert(Account::key("c")).set_if_absent(Account::NAME, &"Cy".to_owned());
    expected(&upsert.add(Account::COUNT, &1).send().await.unwrap_err());
    assert_eq!(common::raw_item(&table, "ACCOUNT#c", "META").await, Some(item));
}

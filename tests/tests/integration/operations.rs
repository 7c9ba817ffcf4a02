//! Every operation of `Table` against DynamoDB Local, with the exact items and errors expected.

use crate::common;

use std::collections::{BTreeMap, BTreeSet};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::key::KeyError;
use dynamo_entity::value::ValueError;
use dynamo_entity::{Entity, Error, KeyPart, Timestamp};
use futures::TryStreamExt;

#[derive(KeyPart, Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
struct AccountId(String);

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
enum Plan {
    Free,
    ProTeam,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "PROFILE", gsi1 = "PLAN#<plan>", gsi1_sk = "<seats>", name = "Account")]
struct Account {
    id: AccountId,
    plan: Plan,
    seats: u32,
    balance: i64,
    ratio: f64,
    #[entity(rename = "display-name")]
    name: String,
    tags: BTreeSet<String>,
    limits: BTreeMap<String, u16>,
    avatar: Vec<u8>,
    joined: Timestamp,
    nickname: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<account>", sk = "EVENT#<at>#<seq>")]
struct Event {
    account: AccountId,
    at: Timestamp,
    seq: i32,
    kind: String,
}

fn account(id: &str, plan: Plan, seats: u32) -> Account {
    Account {
        id: AccountId(id.into()),
        plan,
        seats,
        balance: -42,
        ratio: 0.25,
        name: format!("Account {id}"),
        tags: ["a".to_owned(), "b".to_owned()].into(),
        limits: [("api".to_owned(), 100u16)].into(),
        avatar: vec![0, 1, 255],
        joined: Timestamp::parse("2025-03-04T05:06:07.089Z").unwrap(),
        nickname: None,
    }
}

fn ts(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

#[tokio::test]
async fn put_get_and_the_stored_item() {
    let table = common::table("put_get", &[Account::schema()]).await;
    let a = account("a1", Plan::ProTeam, 7);
    table.put(&a).await.unwrap();
    assert_eq!(table.get(Account::key(&AccountId("a1".into()))).await.unwrap(), Some(a.clone()));
    assert_eq!(table.get_consistent(Account::key(&AccountId("a1".into()))).await.unwrap(), Some(a.clone()));
    assert_eq!(table.get(Account::key(&AccountId("nobody".into()))).await.unwrap(), None);

    let item = common::raw_item(&table, "ACCOUNT#a1", "PROFILE").await.unwrap();
    let expected: dynamo_entity::Item = [
        ("PK", AttributeValue::S("ACCOUNT#a1".into())),
        ("SK", AttributeValue::S("PROFILE".into())),
        ("GSI1PK", AttributeValue::S("PLAN#pro_team".into())),
        ("GSI1SK", AttributeValue::N("7".into())),
        ("_type", AttributeValue::S("Account".into())),
        ("id", AttributeValue::S("a1".into())),
        ("plan", AttributeValue::S("pro_team".into())),
        ("seats", AttributeValue::N("7".into())),
        ("balance", AttributeValue::N("-42".into())),
        ("ratio", AttributeValue::N("0.25".into())),
        ("display-name", AttributeValue::S("Account a1".into())),
        ("tags", AttributeValue::Ss(vec!["a".into(), "b".into()])),
        ("limits", AttributeValue::M([("api".to_owned(), AttributeValue::N("100".into()))].into())),
        ("avatar", AttributeValue::B(aws_sdk_dynamodb::primitives::Blob::new(vec![0, 1, 255]))),
        ("joined", AttributeValue::S("2025-03-04T05:06:07.089Z".into())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(item, expected);
}

#[tokio::test]
async fn create_is_create_if_absent() {
    let table = common::table("create", &[Account::schema()]).await;
    let a = account("a1", Plan::Free, 1);
    table.create(&a).await.unwrap();
    let err = table.create(&Account { seats: 99, ..a.clone() }).await.unwrap_err();
    match err {
        Error::AlreadyExists { entity, key } => {
            assert_eq!(entity, "Account");
            assert_eq!(key, "PK=ACCOUNT#a1 SK=PROFILE");
        }
        other => panic!("expected AlreadyExists, got {other:?}"),
    }
    assert_eq!(table.get(Account::key(&AccountId("a1".into()))).await.unwrap(), Some(a), "unchanged");
}

#[tokio::test]
async fn delete_returns_the_old_item() {
    let table = common::table("delete", &[Account::schema()]).await;
    let a = account("a1", Plan::Free, 1);
    table.put(&a).await.unwrap();
    assert_eq!(table.delete(Account::key(&AccountId("a1".into()))).await.unwrap(), Some(a));
    assert_eq!(table.delete(Account::key(&AccountId("a1".into()))).await.unwrap(), None);
    assert_eq!(table.get(Account::key(&AccountId("a1".into()))).await.unwrap(), None);
}

#[tokio::test]
async fn update_set_remove_add_and_conditions() {
    let table = common::table("update", &[Account::schema()]).await;
    let a = account("a1", Plan::Free, 3);
    table.put(&a).await.unwrap();
    let key = || Account::key(&AccountId("a1".into()));

    let b = table
        .update(key())
        .set(Account::NAME, &"Renamed".to_owned())
        .set(Account::NICKNAME, &Some("nick".to_owned()))
        .add(Account::BALANCE, &50)
        .send()
        .await
        .unwrap();
    assert_eq!(b, Account { name: "Renamed".into(), nickname: Some("nick".into()), balance: 8, ..a.clone() });

    // Adding to a field that is exactly a GSI sort key moves the key with it.
    let c = table.update(key()).add(Account::SEATS, &2).send().await.unwrap().unwrap();
    assert_eq!(c.seats, 5);
    let item = common::raw_item(&table, "ACCOUNT#a1", "PROFILE").await.unwrap();
    assert_eq!(item["GSI1SK"], AttributeValue::N("5".into()));
    assert_eq!(item["GSI1PK"], AttributeValue::S("PLAN#free".into()));

    // Condition not met: nothing changes.
    let err =
        table.update(key()).set(Account::BALANCE, &0).condition(Account::BALANCE.gt(&1000)).send().await.unwrap_err();
    assert!(
        matches!(err, Error::ConditionFailed { entity: "Account", ref key } if key == "PK=ACCOUNT#a1 SK=PROFILE"),
        "{err:?}"
    );
    let d = table
        .update(key())
        .set(Account::NICKNAME, &None)
        .condition(Account::BALANCE.eq(&8).and(Account::NICKNAME.exists()))
        .send()
        .await
        .unwrap();
    assert_eq!(d, Account { name: "Renamed".into(), balance: 8, seats: 5, ..a.clone() });

    // An update never creates an item.
    let err =
        table.update(Account::key(&AccountId("ghost".into()))).set(Account::BALANCE, &1).send().await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Account", .. }), "{err:?}");
    assert_eq!(table.get(Account::key(&AccountId("ghost".into()))).await.unwrap(), None);
}

#[tokio::test]
async fn query_sort_key_conditions_on_a_composite_key() {
    let table = common::table("query_sk", &[Event::schema()]).await;
    let acct = AccountId("a".into());
    let days = ["2025-01-01T00:00:00.000Z", "2025-01-02T00:00:00.000Z", "2025-01-03T00:00:00.000Z"];
    for day in days {
        for seq in [-5, 0, 7] {
            table.put(&Event { account: acct.clone(), at: ts(day), seq, kind: format!("{day}/{seq}") }).await.unwrap();
        }
    }
    let q = || table.query(Event::query(&acct));
    let kinds = |v: Vec<Event>| v.into_iter().map(|e| e.kind).collect::<Vec<_>>();

    assert_eq!(q().all().await.unwrap().len(), 9);
    // Signed integers sort numerically inside the composite key.
    assert_eq!(
        kinds(q().sk_begins_with((&ts(days[1]),)).all().await.unwrap()),
        vec!["2025-01-02T00:00:00.000Z/-5", "2025-01-02T00:00:00.000Z/0", "2025-01-02T00:00:00.000Z/7"]
    );
    assert_eq!(kinds(q().sk_eq((&ts(days[0]), &0)).all().await.unwrap()), vec!["2025-01-01T00:00:00.000Z/0"]);
    // A bound on the leading part only.
    assert_eq!(q().sk_gt((&ts(days[1]),)).all().await.unwrap().len(), 3);
    assert_eq!(q().sk_ge((&ts(days[1]),)).all().await.unwrap().len(), 6);
    assert_eq!(q().sk_lt((&ts(days[1]),)).all().await.unwrap().len(), 3);
    assert_eq!(q().sk_le((&ts(days[1]),)).all().await.unwrap().len(), 6);
    assert_eq!(q().sk_between((&ts(days[1]),), (&ts(days[2]),)).all().await.unwrap().len(), 6);
    // Full bounds.
    assert_eq!(
        kinds(q().sk_between((&ts(days[0]), &0), (&ts(days[1]), &-5)).all().await.unwrap()),
        vec!["2025-01-01T00:00:00.000Z/0", "2025-01-01T00:00:00.000Z/7", "2025-01-02T00:00:00.000Z/-5"]
    );
    assert_eq!(kinds(q().sk_gt((&ts(days[2]), &0)).all().await.unwrap()), vec!["2025-01-03T00:00:00.000Z/7"]);
    // Descending with a limit and a cursor.
    let first = q().descending().page_items(4).send().await.unwrap();
    assert_eq!(first.items.len(), 4);
    assert_eq!(first.items[0].kind, "2025-01-03T00:00:00.000Z/7");
    let rest = q().descending().after(first.cursor.clone()).all().await.unwrap();
    assert_eq!(rest.len(), 5);
    assert_eq!(rest[0].kind, "2025-01-02T00:00:00.000Z/0");
}

#[tokio::test]
async fn query_a_numeric_gsi_sort_key_and_stream_pages() {
    let table = common::table("query_gsi", &[Account::schema()]).await;
    for i in 0..25u32 {
        table
            .put(&account(&format!("a{i:02}"), if i % 5 == 0 { Plan::Free } else { Plan::ProTeam }, i * 3))
            .await
            .unwrap();
    }
    let pro: Vec<u32> = table
        .query(Account::gsi1(&Plan::ProTeam))
        .descending()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.seats)
        .collect();
    let mut expect: Vec<u32> = (0..25u32).filter(|i| i % 5 != 0).map(|i| i * 3).collect();
    expect.reverse();
    assert_eq!(pro, expect);

    let mid: Vec<u32> = table
        .query(Account::gsi1(&Plan::ProTeam))
        .sk_between(&10, &20)
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.seats)
        .collect();
    assert_eq!(mid, vec![12, 18]);

    // The stream reads page by page (3 items each) and yields every item once.
    let pages: Vec<usize> = table
        .query(Account::gsi1(&Plan::ProTeam))
        .page_size(3)
        .pages()
        .map_ok(|p| p.items.len())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.iter().sum::<usize>(), 20);
    assert!(pages.len() >= 7, "{pages:?}");
    let streamed: Vec<Account> =
        table.query(Account::gsi1(&Plan::Free)).page_size(2).stream().try_collect().await.unwrap();
    assert_eq!(streamed.iter().map(|a| a.seats).collect::<Vec<_>>(), vec![0, 15, 30, 45, 60]);
    let limited: Vec<Account> =
        table.query(Account::gsi1(&Plan::Free)).max_items(3).stream().try_collect().await.unwrap();
    assert_eq!(limited.len(), 3);
}

#[tokio::test]
async fn keys_that_cannot_be_encoded_are_errors_before_sending() {
    let table = common::table("bad_keys", &[Account::schema()]).await;
    let err = table.get(Account::key(&AccountId(String::new()))).await.unwrap_err();
    assert_eq!(err.to_string(), "Account.id cannot be a part of PK (`ACCOUNT#<id>`): the value is empty");
    let long = AccountId("x".repeat(2041));
    let err = table.put(&account(&long.0, Plan::Free, 1)).await.unwrap_err();
    match err {
        Error::Key(KeyError::TooLong { entity, attribute, bytes, over, limit, .. }) => {
            assert_eq!((entity, attribute, bytes, over, limit), ("Account", "PK", 2049, 1, 2048));
        }
        other => panic!("expected TooLong, got {other:?}"),
    }
    let err = table.put(&Account { ratio: f64::NAN, ..account("a1", Plan::Free, 1) }).await.unwrap_err();
    match err {
        Error::Encode { entity, field, attribute, source: ValueError::NotRepresentable { .. } } => {
            assert_eq!((entity, field, attribute), ("Account", "ratio", "ratio"));
        }
        other => panic!("expected Encode, got {other:?}"),
    }
    let scan = table.client().scan().table_name(table.name()).send().await.unwrap();
    assert_eq!(scan.count, 0, "nothing was written");
}

#[tokio::test]
async fn items_that_do_not_decode_are_typed_errors() {
    let table = common::table("bad_items", &[Account::schema()]).await;
    let mut item = account("a1", Plan::Free, 1).to_item().unwrap();
    item.insert("seats".into(), AttributeValue::S("seven".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    let err = table.get(Account::key(&AccountId("a1".into()))).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Account PK=ACCOUNT#a1 SK=PROFILE: attribute `seats`: expected type N, found S"
    );

    item.insert("seats".into(), AttributeValue::N("4294967296".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    let err = table.get(Account::key(&AccountId("a1".into()))).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Account PK=ACCOUNT#a1 SK=PROFILE: attribute `seats`: number 4294967296 does not fit in u32"
    );

    item.insert("seats".into(), AttributeValue::N("1".into()));
    item.insert("plan".into(), AttributeValue::S("platinum".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    let err = table.get(Account::key(&AccountId("a1".into()))).await.unwrap_err();
    assert!(matches!(&err, Error::Decode { entity: "Account", attribute: "plan", .. }), "{err:?}");

    item.insert("plan".into(), AttributeValue::S("free".into()));
    item.remove("display-name");
    table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    let err = table.get(Account::key(&AccountId("a1".into()))).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode Account PK=ACCOUNT#a1 SK=PROFILE: attribute `display-name`: the attribute is missing"
    );

    item.insert("_type".into(), AttributeValue::S("Invoice".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    let err = table.get(Account::key(&AccountId("a1".into()))).await.unwrap_err();
    assert_eq!(err.to_string(), "item PK=ACCOUNT#a1 SK=PROFILE has entity type Invoice, expected Account");
}

#[tokio::test]
async fn create_table_rejects_entities_that_disagree_on_a_key_type() {
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "X#<id>", sk = "META", gsi1 = "ALL", gsi1_sk = "<name>")]
    struct Named {
        id: String,
        name: String,
    }
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.unwrap();
    let table = dynamo_entity::Table::new(server.client(), dynamo_entity_local::unique_table_name("conflict"));
    let err = table.create_table(&[Account::schema(), Named::schema()]).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: key attribute GSI1SK is S in Named but N in Account; a table stores one type per key attribute"
    );
}

//! Exactly once, in the order of an item's writes (`write_token`): every write's token is newer
//! than the item's latest, so an attempt that reaches DynamoDB late (the network held it past
//! the client's attempt timeout, and the client sent it again) is refused once a newer write was
//! applied, however many writes came after; and a writer whose token is older than the item's
//! latest (its clock behind another writer's) is sent again with a newer one. The late attempt
//! is `Fault::ArrivesLate`: answered HTTP 500 at once, forwarded later.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::common;
use crate::common::lose;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::write_token::HISTORY;
use dynamo_entity::{Entity, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "META")]
struct Account {
    id: String,
    balance: i64,
}

/// A fresh table, a handle on it without faults and one whose requests go through `faults`.
async fn tables(test: &str) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Account::schema()]).await;
    let faults = FaultInjector::new(11);
    let faulty = Table::new(faults.client(plain.client()), plain.name());
    (plain, faulty, faults)
}

fn account(id: &str, balance: i64) -> Account {
    Account { id: id.into(), balance }
}

async fn balance(plain: &Table, id: &str) -> Option<i64> {
    plain.get_consistent(Account::key(id)).await.unwrap().map(|a| a.balance)
}

/// The stored item of account `id`, its history included.
async fn raw(plain: &Table, id: &str) -> Option<dynamo_entity::Item> {
    plain
        .client()
        .get_item()
        .table_name(plain.name())
        .key("PK", AttributeValue::S(format!("ACCOUNT#{id}")))
        .key("SK", AttributeValue::S("META".into()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
}

fn latest(item: &dynamo_entity::Item) -> Vec<u8> {
    item[HISTORY[0]].as_b().unwrap().as_ref().to_vec()
}

const LATE: Duration = Duration::from_millis(700);

#[tokio::test]
async fn a_late_first_attempt_is_refused_after_any_number_of_newer_writes() {
    let (plain, faulty, faults) = tables("order_late_update").await;
    // Written by the same handle: its resend knows the history reaches back to before it.
    faulty.put(&account("a", 100)).await.unwrap();

    // The debit's first attempt is held by the network; its resend is applied and answered.
    lose(&faults, Fault::ArrivesLate(LATE), "UpdateItem", Some(1));
    let debited = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap();
    assert_eq!(debited.unwrap(), account("a", 70));
    assert_eq!(faults.counts().requests, 2);
    // Five more writes push the debit's token out of the four-entry history.
    for _ in 0..5 {
        plain.update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap();
    }
    let before = latest(&raw(&plain, "a").await.unwrap());
    // The first attempt arrives: its token is older than the item's latest, and it is refused.
    tokio::time::sleep(LATE + Duration::from_millis(500)).await;
    assert_eq!(balance(&plain, "a").await, Some(75));
    assert_eq!(latest(&raw(&plain, "a").await.unwrap()), before);
}

#[tokio::test]
async fn a_late_put_or_delete_is_refused_after_a_newer_write() {
    let (plain, faulty, faults) = tables("order_late_put").await;

    // A put whose first attempt comes late, after a newer put of the same item.
    lose(&faults, Fault::ArrivesLate(LATE), "PutItem", Some(1));
    faulty.put(&account("p", 1)).await.unwrap();
    plain.put(&account("p", 2)).await.unwrap();
    tokio::time::sleep(LATE + Duration::from_millis(500)).await;
    assert_eq!(balance(&plain, "p").await, Some(2));

    // A delete whose first attempt comes late, after the item was created again.
    faults.clear_rules();
    faulty.put(&account("d", 1)).await.unwrap();
    lose(&faults, Fault::ArrivesLate(LATE), "DeleteItem", Some(1));
    let deleted = faulty.delete(Account::key("d")).await.unwrap();
    assert_eq!(deleted.into_result().unwrap(), Some(account("d", 1)));
    assert_eq!(faults.counts().requests, 2);
    plain.create(&account("d", 9)).await.unwrap();
    tokio::time::sleep(LATE + Duration::from_millis(500)).await;
    assert_eq!(balance(&plain, "d").await, Some(9));
}

/// A token of a clock `ahead` of this one, as another writer's would be.
fn token_ahead(ahead: Duration) -> Vec<u8> {
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap() + ahead;
    let mut token = (now.as_millis() as u64).to_be_bytes().to_vec();
    token.extend_from_slice(&[0xff; 8]);
    token
}

#[tokio::test]
async fn a_write_older_than_the_items_latest_is_sent_again_with_a_newer_token() {
    let (plain, faulty, faults) = tables("order_clock").await;
    // Another writer, its clock a minute ahead, wrote the item last.
    plain.put(&account("a", 10)).await.unwrap();
    let ahead = token_ahead(Duration::from_secs(60));
    plain
        .client()
        .update_item()
        .table_name(plain.name())
        .key("PK", AttributeValue::S("ACCOUNT#a".into()))
        .key("SK", AttributeValue::S("META".into()))
        .update_expression("SET #w = :t")
        .expression_attribute_names("#w", HISTORY[0])
        .expression_attribute_values(":t", AttributeValue::B(Blob::new(ahead.clone())))
        .send()
        .await
        .unwrap();

    // The update is refused for its older token, then sent with one a millisecond after the
    // item's latest, and applied once.
    faults.clear_rules();
    faults.reset_records();
    let updated = faulty.update(Account::key("a")).add(Account::BALANCE, &5).send().await.unwrap();
    assert_eq!(updated.unwrap(), account("a", 15));
    assert_eq!(faults.counts().requests, 2, "{:?}", faults.requests());
    let item = raw(&plain, "a").await.unwrap();
    let newer = latest(&item);
    let millis = |t: &[u8]| u64::from_be_bytes(t[..8].try_into().unwrap());
    assert_eq!(millis(&newer), millis(&ahead) + 1);
    assert_eq!(item[HISTORY[1]].as_b().unwrap().as_ref(), &ahead[..]);

    // The handle's next write of the item starts above the token it wrote: one request.
    faults.reset_records();
    faulty.update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap();
    assert_eq!(faults.counts().requests, 1);
    assert_eq!(balance(&plain, "a").await, Some(16));

    // A put and a delete from a handle that did not write it are sent again the same way.
    let other = Table::new(faults.client(plain.client()), plain.name());
    faults.reset_records();
    other.put(&account("a", 40)).await.unwrap();
    assert_eq!(faults.counts().requests, 2);
    faults.reset_records();
    let gone = Table::new(faults.client(plain.client()), plain.name()).delete(Account::key("a")).await.unwrap();
    assert_eq!(gone.into_result().unwrap(), Some(account("a", 40)));
    assert_eq!(faults.counts().requests, 2);
    assert_eq!(balance(&plain, "a").await, None);
}

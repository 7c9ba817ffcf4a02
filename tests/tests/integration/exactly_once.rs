//! Exactly once for single-item writes (`write_token`): each write kind with its answer lost
//! once after DynamoDB applied it (the resend finds it applied: `Ok`, applied once), lost on
//! every attempt (`Error::OutcomeUnknown`, and `Table::resolve` says `Applied`), and not
//! applied on every attempt (`OutcomeUnknown`, `resolve` says `NotApplied`). The faults are
//! injected at the SDK's HTTP layer by `dynamo_entity_local::fault`; every stored state is read
//! back through a client without faults.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::error::Returned;
use dynamo_entity::write_token::{HISTORY, Resolved};
use dynamo_entity::{Entity, Error, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "META")]
struct Account {
    id: String,
    balance: i64,
    entries: Vec<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Doc {
    id: String,
    body: String,
    #[entity(version)]
    version: u64,
}

fn account(id: &str, balance: i64) -> Account {
    Account { id: id.into(), balance, entries: vec![] }
}

/// A fresh table, a handle on it without faults and one whose requests go through `faults`.
async fn tables(test: &str) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Account::schema(), Doc::schema()]).await;
    let faults = FaultInjector::new(7);
    let faulty = Table::new(faults.client(plain.client()), plain.name());
    (plain, faulty, faults)
}

/// The fault on every request of `operation` from now on (`times`: only the first ones).
fn lose(faults: &FaultInjector, fault: Fault, operation: &str, times: Option<u64>) {
    faults.clear_rules();
    faults.reset_records();
    let rule = FaultRule::new(fault).on(operation);
    faults.add(match times {
        Some(n) => rule.times(n),
        None => rule,
    });
}

async fn stored(plain: &Table, id: &str) -> Option<Account> {
    plain.get_consistent(Account::key(id)).await.unwrap()
}

fn pending(e: &Error) -> &dynamo_entity::write_token::Pending {
    e.pending().unwrap_or_else(|| panic!("expected OutcomeUnknown, got {e}"))
}

#[tokio::test]
async fn an_update_whose_answer_is_lost_once_is_applied_once_and_returns_the_new_item() {
    let (plain, faulty, faults) = tables("once_update").await;
    plain.put(&account("a", 100)).await.unwrap();

    // A debit on the condition `balance >= 30`: applied, the answer lost, sent again.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", Some(1));
    let debited = faulty
        .update(Account::key("a"))
        .add(Account::BALANCE, &-30)
        .condition(Account::BALANCE.ge(&30))
        .send()
        .await
        .unwrap();
    assert_eq!(debited.unwrap(), account("a", 70));
    assert_eq!(stored(&plain, "a").await, Some(account("a", 70)));
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 2, 1));

    // An increment and a list append, each lost once.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", Some(1));
    faulty.update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap();
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", Some(1));
    let appended =
        faulty.update(Account::key("a")).append(Account::ENTRIES, &["entry".to_owned()]).send().await.unwrap();
    let expected = Account { id: "a".into(), balance: 71, entries: vec!["entry".into()] };
    assert_eq!(appended.unwrap(), expected);
    assert_eq!(stored(&plain, "a").await, Some(expected.clone()));

    // Returning the old item: the item it returns went with the lost answer.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", Some(1));
    let old = faulty.update(Account::key("a")).add(Account::BALANCE, &1).send_returning_old().await.unwrap();
    assert!(matches!(&old, Returned::Lost { entity: "Account", key } if key == "PK=ACCOUNT#a SK=META"), "{old:?}");
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 72);
}

#[tokio::test]
async fn an_update_that_another_write_followed_is_applied_once_and_its_item_is_lost() {
    let (plain, faulty, faults) = tables("once_followed").await;
    plain.put(&account("a", 100)).await.unwrap();
    // The first attempt is applied and its answer held for 400 ms, then lost; meanwhile
    // another writer's increment lands, so the resend finds the token behind a newer one.
    faults.clear_rules();
    faults.reset_records();
    faults.add(
        FaultRule::new(Fault::InternalServerErrorAfterApplying)
            .on("UpdateItem")
            .times(1)
            .answer_after(std::time::Duration::from_millis(400)),
    );
    let other = tokio::spawn({
        let plain = plain.clone();
        async move {
            // Once the debit is applied (its answer is still held).
            while stored(&plain, "a").await.unwrap().balance != 70 {
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
            plain.update(Account::key("a")).add(Account::BALANCE, &5).send().await.unwrap();
        }
    });
    let returned = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap();
    other.await.unwrap();
    assert!(matches!(returned, Returned::Lost { .. }), "{returned:?}");
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 75);
}

#[tokio::test]
async fn writes_whose_answer_is_lost_once_report_what_the_first_attempt_did() {
    let (plain, faulty, faults) = tables("once_writes").await;

    // create: applied once, not AlreadyExists.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.create(&account("c", 10)).await.unwrap();
    assert_eq!(stored(&plain, "c").await, Some(account("c", 10)));

    // A versioned put at version 0, then 1: not a VersionConflict with itself.
    let mut doc = Doc { id: "d".into(), body: "one".into(), version: 0 };
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.put(&mut doc).await.unwrap();
    assert_eq!(doc.version, 1);
    doc.body = "two".into();
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    faulty.put(&mut doc).await.unwrap();
    let got = plain.get_consistent(Doc::key("d")).await.unwrap().unwrap();
    assert_eq!((got.body.as_str(), got.version), ("two", 2));

    // replace: applied; the item it replaced went with the lost answer.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", Some(1));
    let old = faulty.replace(&account("c", 11)).await.unwrap();
    assert!(matches!(old, Returned::Lost { entity: "Account", .. }), "{old:?}");
    assert_eq!(stored(&plain, "c").await, Some(account("c", 11)));

    // delete: applied; the deleted item went with the lost answer (not "there was none").
    lose(&faults, Fault::InternalServerErrorAfterApplying, "DeleteItem", Some(1));
    let old = faulty.delete(Account::key("c")).await.unwrap();
    assert!(matches!(old, Returned::Lost { entity: "Account", .. }), "{old:?}");
    assert_eq!(stored(&plain, "c").await, None);

    // delete_if_version: applied, not NotFound.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "DeleteItem", Some(1));
    let old = faulty.delete_if_version(Doc::key("d"), 2).await.unwrap();
    assert!(matches!(old, Returned::Lost { entity: "Doc", .. }), "{old:?}");
    assert_eq!(plain.get_consistent(Doc::key("d")).await.unwrap(), None);

    // A conditional update whose condition no longer holds after it was applied: still Ok.
    plain.put(&account("e", 40)).await.unwrap();
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", Some(1));
    let debited = faulty
        .update(Account::key("e"))
        .add(Account::BALANCE, &-30)
        .condition(Account::BALANCE.ge(&30))
        .send()
        .await
        .unwrap();
    assert_eq!(debited.unwrap().balance, 10);
    assert_eq!(stored(&plain, "e").await.unwrap().balance, 10);
}

#[tokio::test]
async fn a_write_not_applied_before_its_lost_answer_is_applied_by_the_resend() {
    let (plain, faulty, faults) = tables("once_not_applied").await;
    plain.put(&account("a", 100)).await.unwrap();
    // A 500 before DynamoDB saw the request: the resend's condition holds, and it is applied.
    lose(&faults, Fault::InternalServerError, "UpdateItem", Some(1));
    let debited = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap();
    assert_eq!(debited.unwrap().balance, 70);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 70);
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 1, 1));

    // The resend's own condition is judged as any condition: the debit no longer fits.
    plain.put(&account("b", 20)).await.unwrap();
    lose(&faults, Fault::InternalServerError, "UpdateItem", Some(1));
    let refused = faulty
        .update(Account::key("b"))
        .add(Account::BALANCE, &-30)
        .condition(Account::BALANCE.ge(&30))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(refused, Error::ConditionFailed { entity: "Account", .. }), "{refused}");
    assert_eq!(stored(&plain, "b").await.unwrap().balance, 20);
}

#[tokio::test]
async fn every_attempt_lost_is_an_unknown_outcome_that_resolve_answers() {
    let (plain, faulty, faults) = tables("once_unknown").await;
    plain.put(&account("a", 100)).await.unwrap();

    // Applied on the first attempt; every answer lost (3 attempts, the SDK's default).
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", None);
    let e = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    assert!(
        matches!(&e, Error::OutcomeUnknown { operation: "UpdateItem", entity: "Account", key, .. } if key == "PK=ACCOUNT#a SK=META"),
        "{e}"
    );
    assert_eq!(faults.counts().requests, 3);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 70, "applied once, not three times");
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::Applied);

    // Never applied: resolve says so, and the item is as it was.
    lose(&faults, Fault::InternalServerError, "UpdateItem", None);
    let e = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::NotApplied);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 70);

    // A create and a delete, every answer lost.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "PutItem", None);
    let e = faulty.create(&account("n", 1)).await.unwrap_err();
    assert_eq!(pending(&e).operation(), "PutItem");
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::Applied);
    assert_eq!(stored(&plain, "n").await, Some(account("n", 1)));
    lose(&faults, Fault::InternalServerErrorAfterApplying, "DeleteItem", None);
    let e = faulty.delete(Account::key("n")).await.unwrap_err();
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::Applied);
    assert_eq!(stored(&plain, "n").await, None);

    // A delete never applied, of an item written over a second ago: not applied.
    tokio::time::sleep(std::time::Duration::from_millis(1_100)).await;
    lose(&faults, Fault::InternalServerError, "DeleteItem", None);
    let e = faulty.delete(Account::key("a")).await.unwrap_err();
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::NotApplied);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 70);
}

#[tokio::test]
async fn throttled_writes_are_sent_again_as_they_are() {
    let (plain, faulty, faults) = tables("once_throttled").await;
    plain.put(&account("a", 100)).await.unwrap();
    lose(&faults, Fault::ProvisionedThroughputExceeded, "UpdateItem", Some(2));
    let debited = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap();
    assert_eq!(debited.unwrap().balance, 70);
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.provisioned_throughput_exceeded), (3, 1, 2));
    // Throttled on every attempt: nothing was applied, and the error says throttled.
    lose(&faults, Fault::ProvisionedThroughputExceeded, "UpdateItem", None);
    let e = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    assert!(matches!(e, Error::Throttled { .. }), "{e}");
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 70);
}

#[tokio::test]
async fn items_carry_a_four_entry_write_history_unless_the_handle_has_none() {
    let (plain, faulty, faults) = tables("once_history").await;
    plain.put(&account("a", 1)).await.unwrap();
    let raw = |t: &Table| {
        let t = t.clone();
        async move {
            t.client()
                .get_item()
                .table_name(t.name())
                .key("PK", AttributeValue::S("ACCOUNT#a".into()))
                .key("SK", AttributeValue::S("META".into()))
                .consistent_read(true)
                .send()
                .await
                .unwrap()
                .item
                .unwrap()
        }
    };
    let history = |item: &dynamo_entity::Item| -> Vec<Vec<u8>> {
        HISTORY.iter().map(|a| item[*a].as_b().unwrap().as_ref().to_vec()).collect()
    };
    // A put starts the history with its token; each update shifts it, filling what it lacks
    // with zeros.
    let put = raw(&plain).await;
    let first = put[HISTORY[0]].as_b().unwrap().as_ref().to_vec();
    assert_eq!(first.len(), 16);
    assert!(HISTORY[1..].iter().all(|a| !put.contains_key(*a)), "{put:?}");
    plain.update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap();
    let updated = history(&raw(&plain).await);
    assert_eq!(updated[1], first);
    assert_eq!(&updated[2..], &[vec![0u8; 16], vec![0u8; 16]]);
    assert_ne!(updated[0], first);

    // Without write tokens: nothing added, and a lost answer is not sent again.
    let bare = plain.without_write_tokens();
    bare.put(&account("a", 5)).await.unwrap();
    let item = raw(&plain).await;
    assert!(HISTORY.iter().all(|a| !item.contains_key(*a)), "{item:?}");
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", None);
    let e = faulty.without_write_tokens().update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap_err();
    assert_eq!(faults.counts().requests, 1, "not sent again");
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::CannotTell);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 6);
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META")]
struct Note {
    id: String,
    body: String,
}

#[tokio::test]
async fn the_write_history_counts_against_the_400_kb_item_limit() {
    let plain = common::table("once_limits", &[Note::schema()]).await;
    let bare = plain.without_write_tokens();
    // `PK` + `NOTE#a` + `SK` + `META` (14 bytes), `_type` + `Note` (9), `id` + `a` (3) and
    // `body` (4): 30 bytes besides the body's value.
    let note = |n: usize| Note { id: "a".into(), body: "x".repeat(n) };
    // A put adds `_w1` and its 16 bytes: 19.
    let err = plain.put(&note(409_600 - 30 - 19 + 1)).await.unwrap_err();
    assert!(matches!(err, Error::ItemTooLarge { size: 409_601, limit: 409_600, .. }), "{err:?}");
    plain.put(&note(409_600 - 30 - 19)).await.unwrap();
    // Without the history, the entity's own 409,600 bytes fit.
    bare.put(&note(409_600 - 30)).await.unwrap();
    // An update sets the whole history: 76 bytes beside the key (14), type (9) and body (4).
    let set = |t: &Table, n: usize| t.update(Note::key("a")).set(Note::BODY, &"y".repeat(n));
    let err = set(&plain, 409_600 - 27 - 76 + 1).send().await.unwrap_err();
    assert!(matches!(err, Error::ItemTooLarge { size: 409_601, limit: 409_600, .. }), "{err:?}");
    assert!(set(&bare, 409_600 - 27 - 76 + 1).render().is_ok());
}

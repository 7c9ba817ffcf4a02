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

use crate::common::lose;

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
    plain.put(&account("b", 20)).await.unwrap();
    // Within the margin of the puts, a resend could not tell (see `a_resend_right_after_a_put`).
    tokio::time::sleep(dynamo_entity::write_token::RESEND_MARGIN).await;
    // A 500 before DynamoDB saw the request: the resend's condition holds, and it is applied.
    lose(&faults, Fault::InternalServerError, "UpdateItem", Some(1));
    let debited = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap();
    assert_eq!(debited.unwrap().balance, 70);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 70);
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 1, 1));

    // The resend's own condition is judged as any condition: the debit no longer fits.
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

    // Never applied: resolve says so, and the item is as it was (once its history reaches
    // back past the margin).
    tokio::time::sleep(dynamo_entity::write_token::RESEND_MARGIN).await;
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
    // The stored item of account `id`, history included.
    let raw = |t: &Table, id: &str| {
        let (t, pk) = (t.clone(), format!("ACCOUNT#{id}"));
        async move {
            t.client()
                .get_item()
                .table_name(t.name())
                .key("PK", AttributeValue::S(pk))
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
    // A put starts the history with its token alone; each update shifts it, filling what it
    // lacks with zeros.
    let put = raw(&plain, "a").await;
    let first = put[HISTORY[0]].as_b().unwrap().as_ref().to_vec();
    assert_eq!(first.len(), 16);
    assert!(HISTORY[1..].iter().all(|a| !put.contains_key(*a)), "{put:?}");
    plain.update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap();
    let updated = history(&raw(&plain, "a").await);
    assert_eq!(updated[1], first);
    assert_eq!(&updated[2..], &[vec![0u8; 16], vec![0u8; 16]]);
    assert_ne!(updated[0], first);
    // An update of an item without a history (another client's) fills what it lacks with zeros.
    let bare = plain.without_write_tokens();
    bare.put(&account("z", 1)).await.unwrap();
    plain.update(Account::key("z")).add(Account::BALANCE, &1).send().await.unwrap();
    assert_eq!(&history(&raw(&plain, "z").await)[1..], &[vec![0u8; 16], vec![0u8; 16], vec![0u8; 16]]);

    // Without write tokens: nothing added, and a lost answer is not sent again.
    bare.put(&account("a", 5)).await.unwrap();
    let item = raw(&plain, "a").await;
    assert!(HISTORY.iter().all(|a| !item.contains_key(*a)), "{item:?}");
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", None);
    let e = faulty.without_write_tokens().update(Account::key("a")).add(Account::BALANCE, &1).send().await.unwrap_err();
    assert_eq!(faults.counts().requests, 1, "not sent again");
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::CannotTell);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 6);
}

/// The first attempt of `operation` is applied and its answer held for 400 ms, then lost.
fn held(faults: &FaultInjector, operation: &str) {
    faults.clear_rules();
    faults.reset_records();
    faults.add(
        FaultRule::new(Fault::InternalServerErrorAfterApplying)
            .on(operation)
            .times(1)
            .answer_after(std::time::Duration::from_millis(400)),
    );
}

/// Waits until `plain` holds `want` for account `id`.
async fn until(plain: &Table, id: &str, want: impl Fn(Option<Account>) -> bool) {
    while !want(stored(plain, id).await) {
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

/// Whether `e` is an unknown outcome whose source is the lost attempt's `InternalServerError`.
fn lost_to_a_server_error(e: &Error) -> bool {
    matches!(e, Error::OutcomeUnknown { source, .. } if matches!(**source, aws_sdk_dynamodb::Error::InternalServerError(_)))
}

/// Another writer's put or delete between a write's applied first attempt and its resend: the
/// resend neither applies the write again nor reports it as failed; it says it cannot tell.
#[tokio::test]
async fn a_put_or_delete_by_another_writer_before_the_resend_is_an_unknown_outcome() {
    let (plain, faulty, faults) = tables("once_races").await;

    // A lost delete, then another writer creates the item again: the new item stays.
    plain.put(&account("a", 100)).await.unwrap();
    held(&faults, "DeleteItem");
    let other = tokio::spawn({
        let plain = plain.clone();
        async move {
            until(&plain, "a", |a| a.is_none()).await;
            plain.create(&account("a", 999)).await.unwrap();
        }
    });
    let e = faulty.delete(Account::key("a")).await.unwrap_err();
    other.await.unwrap();
    assert!(lost_to_a_server_error(&e), "{e:?}");
    assert_eq!(stored(&plain, "a").await, Some(account("a", 999)));
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::CannotTell);

    // A lost debit, then another writer deletes the item: not NotFound.
    plain.put(&account("b", 100)).await.unwrap();
    held(&faults, "UpdateItem");
    let other = tokio::spawn({
        let plain = plain.clone();
        async move {
            until(&plain, "b", |b| b.is_some_and(|b| b.balance == 70)).await;
            plain.delete(Account::key("b")).await.unwrap();
        }
    });
    let e = faulty.update(Account::key("b")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    other.await.unwrap();
    assert!(
        matches!(&e, Error::OutcomeUnknown { operation: "UpdateItem", entity: "Account", key, .. } if key == "PK=ACCOUNT#b SK=META"),
        "{e:?}"
    );
    assert!(lost_to_a_server_error(&e), "{e:?}");
    assert_eq!(stored(&plain, "b").await, None);
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::CannotTell);

    // A lost debit, then another writer deletes the item and creates it again: the resend does
    // not debit the new item too.
    plain.put(&account("d", 100)).await.unwrap();
    held(&faults, "UpdateItem");
    let other = tokio::spawn({
        let plain = plain.clone();
        async move {
            until(&plain, "d", |d| d.is_some_and(|d| d.balance == 70)).await;
            plain.delete(Account::key("d")).await.unwrap();
            plain.create(&account("d", 500)).await.unwrap();
        }
    });
    let e = faulty.update(Account::key("d")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    other.await.unwrap();
    assert!(lost_to_a_server_error(&e), "{e:?}");
    assert_eq!(stored(&plain, "d").await, Some(account("d", 500)));
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::CannotTell);

    // A lost versioned put (version 1 to 2), then another writer reads version 2 and puts 3:
    // not a VersionConflict, which would have the change made again.
    plain.put(&Doc { id: "f".into(), body: "v1".into(), version: 0 }).await.unwrap();
    held(&faults, "PutItem");
    let other = tokio::spawn({
        let plain = plain.clone();
        async move {
            loop {
                let doc = plain.get_consistent(Doc::key("f")).await.unwrap().unwrap();
                if doc.version == 2 {
                    plain.put(&Doc { body: "theirs".into(), ..doc }).await.unwrap();
                    break;
                }
                tokio::time::sleep(std::time::Duration::from_millis(5)).await;
            }
        }
    });
    let e = faulty.put(&Doc { id: "f".into(), body: "mine".into(), version: 1 }).await.unwrap_err();
    other.await.unwrap();
    assert!(matches!(&e, Error::OutcomeUnknown { operation: "PutItem", entity: "Doc", .. }), "{e:?}");
    let doc = plain.get_consistent(Doc::key("f")).await.unwrap().unwrap();
    assert_eq!((doc.body.as_str(), doc.version), ("theirs", 3));
}

/// A write whose answer is lost within the margin of another handle's put or create cannot be
/// told from one the put replaced (or one applied to an item deleted and created again): the
/// resend says so, even when nothing was applied. A write the same handle got an answer for
/// before is known to have come first: a write right after it is judged as usual.
#[tokio::test]
async fn a_resend_right_after_another_writers_put_is_unknown_and_after_its_own_is_judged() {
    let (plain, faulty, faults) = tables("once_after_put").await;
    plain.put(&account("a", 100)).await.unwrap();
    lose(&faults, Fault::InternalServerError, "UpdateItem", Some(1));
    let e = faulty.update(Account::key("a")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    assert!(lost_to_a_server_error(&e), "{e:?}");
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::CannotTell);
    assert_eq!(stored(&plain, "a").await.unwrap().balance, 100, "not applied");
    plain.create(&account("b", 100)).await.unwrap();
    lose(&faults, Fault::InternalServerError, "UpdateItem", Some(1));
    let e = faulty.update(Account::key("b")).add(Account::BALANCE, &-30).send().await.unwrap_err();
    assert!(lost_to_a_server_error(&e), "{e:?}");

    // The faulty handle's own create, answered: its update right after is resent and applied.
    faults.clear_rules();
    faulty.create(&account("c", 100)).await.unwrap();
    lose(&faults, Fault::InternalServerError, "UpdateItem", Some(1));
    let debited = faulty.update(Account::key("c")).add(Account::BALANCE, &-30).send().await.unwrap();
    assert_eq!(debited.unwrap().balance, 70);
    // A second create of the same key, its answer lost: AlreadyExists, as without a fault.
    lose(&faults, Fault::InternalServerError, "PutItem", Some(1));
    let e = faulty.create(&account("c", 5)).await.unwrap_err();
    assert!(matches!(&e, Error::AlreadyExists { entity: "Account", key } if key == "PK=ACCOUNT#c SK=META"), "{e:?}");
    assert_eq!(stored(&plain, "c").await.unwrap().balance, 70);
}

#[tokio::test]
async fn resolve_takes_a_handle_of_the_table_written() {
    let (plain, faulty, faults) = tables("once_resolve_table").await;
    plain.put(&account("e", 1)).await.unwrap();
    lose(&faults, Fault::InternalServerErrorAfterApplying, "UpdateItem", None);
    let e = faulty.update(Account::key("e")).add(Account::BALANCE, &1).send().await.unwrap_err();
    assert_eq!(pending(&e).table(), plain.name());
    let other = common::table("once_resolve_other", &[Account::schema()]).await;
    let err = other.resolve(pending(&e)).await.unwrap_err();
    let expected = format!(
        "the UpdateItem of Account PK=ACCOUNT#e SK=META was sent to table {}: resolve it with a handle of that table, \
         not of {}",
        plain.name(),
        other.name()
    );
    assert!(matches!(&err, Error::Invalid { reason } if *reason == expected), "{err:?}");
    assert_eq!(plain.resolve(pending(&e)).await.unwrap(), Resolved::Applied);
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

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUNTER#<id>", sk = "META")]
struct Counter {
    id: u32,
    count: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "LOG#<task>", sk = "META")]
struct Log {
    task: u32,
    entries: Vec<String>,
}

/// What one kind of write came to under load, for one item.
#[derive(Debug, Default, Clone)]
struct Tally {
    /// Applied for sure: `Ok`, or `resolve` said `Applied`.
    applied: i64,
    /// `resolve` said `CannotTell`: applied or not.
    unsure: i64,
}

/// How long `Fault::ArrivesLate` holds a request in the load test.
const LATE: std::time::Duration = std::time::Duration::from_millis(150);

/// The load test of issue 30: 128 tasks write counters (`add`), accounts (a debit on the
/// condition `balance >= amount`), per-task logs (`append`) and new receipts (`create`, which
/// must never answer `AlreadyExists`) through a client that loses 3% of
/// the answers after DynamoDB applied the write, fails 1% before it, holds 1% back until after
/// the resend ([`Fault::ArrivesLate`]), and throttles 5%. Every
/// `OutcomeUnknown` is resolved at once. Afterwards the stored counters, balances and logs are
/// exactly what the `Ok`s and the `Applied` resolutions say (within the `CannotTell` ones, which
/// are counted and reported), and no log holds an entry twice. `ONCE_LOAD_SECS` (default 5)
/// sets the duration; BENCHMARKS.md runs it for 30 s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_load_with_lost_answers_every_write_is_applied_once() {
    use std::collections::BTreeMap;
    use std::sync::{Arc, Mutex};
    let secs: u64 = std::env::var("ONCE_LOAD_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let (tasks, counters, accounts) = (128u32, 256u32, 64u32);
    let plain =
        common::table("once_load", &[Counter::schema(), Account::schema(), Log::schema(), Note::schema()]).await;
    for id in 0..counters {
        plain.put(&Counter { id, count: 0 }).await.unwrap();
    }
    for id in 0..accounts {
        plain.put(&account(&id.to_string(), 1_000_000)).await.unwrap();
    }
    for task in 0..tasks {
        plain.put(&Log { task, entries: vec![] }).await.unwrap();
    }
    let faults = FaultInjector::new(30);
    for op in ["UpdateItem", "PutItem"] {
        faults.add(FaultRule::new(Fault::InternalServerErrorAfterApplying).on(op).rate(0.03));
        faults.add(FaultRule::new(Fault::InternalServerError).on(op).rate(0.01));
        // Held by the network and forwarded after the resend: refused once a newer write is in.
        faults.add(FaultRule::new(Fault::ArrivesLate(LATE)).on(op).rate(0.01));
        faults.add(FaultRule::new(Fault::Throttling).on(op).rate(0.05));
    }
    let faulty = Table::new(faults.client(plain.client()), plain.name());

    #[derive(Default)]
    struct Seen {
        counters: BTreeMap<u32, Tally>,
        accounts: BTreeMap<u32, Tally>,
        logs: BTreeMap<u32, (Vec<String>, Vec<String>)>,
        receipts: (Vec<String>, Vec<String>),
        outcomes: BTreeMap<String, u64>,
    }
    let seen = Arc::new(Mutex::new(Seen::default()));
    let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
    let mut handles = Vec::new();
    for task in 0..tasks {
        let (faulty, plain, seen) = (faulty.clone(), plain.clone(), Arc::clone(&seen));
        handles.push(tokio::spawn(async move {
            let mut rng = fastrand::Rng::with_seed(u64::from(task));
            let mut n = 0u32;
            while std::time::Instant::now() < until {
                n += 1;
                let pick = rng.u32(0..10);
                let (result, kind, target, amount, entry) = if pick == 9 {
                    // A create of a new receipt: applied once, never AlreadyExists.
                    let id = format!("R{task}-{n}");
                    let r = faulty.create(&Note { id: id.clone(), body: String::new() }).await;
                    (r, 3, task, 0, id)
                } else if pick < 4 {
                    let id = rng.u32(0..counters);
                    let r = faulty.update(Counter::key(&id)).add(Counter::COUNT, &1).send().await.map(drop);
                    (r, 0, id, 1, String::new())
                } else if pick < 7 {
                    let id = rng.u32(0..accounts);
                    let amount = i64::from(rng.u32(1..10));
                    let r = faulty
                        .update(Account::key(&id.to_string()))
                        .add(Account::BALANCE, &-amount)
                        .condition(Account::BALANCE.ge(&amount))
                        .send()
                        .await
                        .map(drop);
                    (r, 1, id, amount, String::new())
                } else {
                    let entry = format!("{task}-{n}");
                    let r = faulty
                        .update(Log::key(&task))
                        .append(Log::ENTRIES, std::slice::from_ref(&entry))
                        .send()
                        .await
                        .map(drop);
                    (r, 2, task, 0, entry)
                };
                let outcome = match &result {
                    Ok(()) => "ok",
                    Err(e @ Error::OutcomeUnknown { .. }) => match plain.resolve(e.pending().unwrap()).await.unwrap() {
                        Resolved::Applied => "unknown, resolved applied",
                        Resolved::NotApplied => "unknown, resolved not applied",
                        _ => "unknown, cannot tell",
                    },
                    Err(Error::Throttled { .. }) => "throttled (not applied)",
                    Err(Error::ConditionFailed { .. }) => "condition failed (not applied)",
                    Err(Error::Contended { .. }) => "contended (not applied)",
                    Err(other) => panic!("an error that is neither 'not applied' nor unknown: {other}"),
                };
                let mut seen = seen.lock().unwrap();
                let name = ["counter", "debit", "append", "create"][kind];
                *seen.outcomes.entry(format!("{name}: {outcome}")).or_default() += 1;
                let applied = matches!(outcome, "ok" | "unknown, resolved applied");
                let unsure = outcome == "unknown, cannot tell";
                let tally = match kind {
                    0 => seen.counters.entry(target).or_default(),
                    1 => seen.accounts.entry(target).or_default(),
                    3 => {
                        let receipts = &mut seen.receipts;
                        if applied {
                            receipts.0.push(entry);
                        } else if unsure {
                            receipts.1.push(entry);
                        }
                        continue;
                    }
                    _ => {
                        let log = seen.logs.entry(target).or_default();
                        if applied {
                            log.0.push(entry);
                        } else if unsure {
                            log.1.push(entry);
                        }
                        continue;
                    }
                };
                if applied {
                    tally.applied += amount;
                } else if unsure {
                    tally.unsure += amount;
                }
            }
        }));
    }
    for handle in handles {
        handle.await.unwrap();
    }
    // The late attempts still held arrive.
    tokio::time::sleep(LATE * 3).await;
    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let within = |stored: i64, tally: &Tally, what: &str| {
        assert!(
            (tally.applied..=tally.applied + tally.unsure).contains(&stored),
            "{what}: stored {stored}, applied {} (+{} cannot tell)",
            tally.applied,
            tally.unsure
        );
    };
    for (id, tally) in &seen.counters {
        let count = plain.get_consistent(Counter::key(id)).await.unwrap().unwrap().count;
        within(count as i64, tally, &format!("counter {id}"));
    }
    for (id, tally) in &seen.accounts {
        let balance = stored(&plain, &id.to_string()).await.unwrap().balance;
        within(1_000_000 - balance, tally, &format!("account {id}"));
    }
    for (task, (applied, unsure)) in &seen.logs {
        let entries = plain.get_consistent(Log::key(task)).await.unwrap().unwrap().entries;
        let mut distinct = entries.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), entries.len(), "log {task}: an entry appended twice");
        let mut certain: Vec<String> = entries.iter().filter(|e| !unsure.contains(e)).cloned().collect();
        let mut expected = applied.clone();
        certain.sort();
        expected.sort();
        assert_eq!(certain, expected, "log {task}");
    }
    let (receipts, unsure) = &seen.receipts;
    let mut stored_receipts: Vec<String> =
        plain.scan::<Note>().all().await.unwrap().into_iter().map(|r| r.id).collect();
    stored_receipts.retain(|id| !unsure.contains(id));
    stored_receipts.sort();
    let mut expected = receipts.clone();
    expected.sort();
    assert_eq!(stored_receipts, expected, "receipts");
    let counts = faults.counts();
    let total: u64 = seen.outcomes.values().sum();
    eprintln!(
        "exactly-once load, {tasks} tasks, {secs} s: {total} writes {:?}; faults: {} lost after applying or before, {} throttled, of {} requests",
        seen.outcomes, counts.server_errors, counts.throttling, counts.requests
    );
    assert!(counts.server_errors > 0 && total > 0);
}

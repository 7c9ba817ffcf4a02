//! Exactly once for `TransactWriteItems` (transactions and the writes of entities with unique
//! fields) and what a batch says of its writes when answers are lost. Each write loses its
//! answer once after DynamoDB applied it (the resend carries the same `ClientRequestToken`,
//! DynamoDB answers it as the first success: `Ok`, applied once), on every attempt
//! (`Error::OutcomeUnknown`; `Table::resolve` sends it again with the token: `Applied`, still
//! once), or is not applied on every attempt (plain HTTP 500: `OutcomeUnknown`; `resolve`
//! completes it, or answers `NotApplied` when its conditions no longer hold). The faults are
//! injected at the SDK's HTTP layer by `dynamo_entity_local::fault`; every stored state is read
//! back through a client without faults, as the whole table's content.

use crate::common;
use dynamo_entity_local::Divergence;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use aws_sdk_dynamodb::config::interceptors::BeforeTransmitInterceptorContextRef;
use aws_sdk_dynamodb::config::retry::RetryConfig;
use aws_sdk_dynamodb::config::{ConfigBag, Intercept, RuntimeComponents};
use aws_sdk_dynamodb::error::BoxError;
use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::batch::{RetryPolicy, UnprocessedReason};
use dynamo_entity::error::Returned;
use dynamo_entity::write_token::{Pending, Resolved};
use dynamo_entity::{Entity, Error, Table};
use dynamo_entity_local::fault::{Fault, FaultInjector, FaultRule, Pick};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "META")]
struct Account {
    id: String,
    balance: i64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "RECEIPT#<id>", sk = "META")]
struct Receipt {
    id: String,
    account: String,
    amount: i64,
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
#[entity(pk = "PART#<id>", sk = "META")]
struct Part {
    id: String,
    n: u32,
}

fn user(id: &str, email: &str) -> User {
    User { id: id.into(), email: email.into(), name: format!("user {id}") }
}

fn receipt(id: &str) -> Receipt {
    Receipt { id: id.into(), account: "a".into(), amount: 30 }
}

/// The `ClientRequestToken` of every `TransactWriteItems` the client sends, in order (`None`
/// for a request without one): read from the body DynamoDB receives.
#[derive(Debug, Clone, Default)]
struct Tokens(Arc<Mutex<Vec<Option<String>>>>);

impl Tokens {
    fn take(&self) -> Vec<Option<String>> {
        std::mem::take(&mut *self.0.lock().unwrap())
    }
}

impl Intercept for Tokens {
    fn name(&self) -> &'static str {
        "exactly_once_tx::Tokens"
    }

    fn read_before_transmit(
        &self,
        context: &BeforeTransmitInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        _cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        let request = context.request();
        let target = request.headers().get("x-amz-target").unwrap_or_default();
        if target.ends_with(".TransactWriteItems") {
            let body: serde_json::Value = serde_json::from_slice(request.body().bytes().unwrap_or_default())?;
            let token = body.get("ClientRequestToken").and_then(|t| t.as_str()).map(str::to_owned);
            self.0.lock().unwrap().push(token);
        }
        Ok(())
    }
}

/// A fresh table, a handle on it without faults, one whose requests go through `faults` (the
/// SDK's default of 3 attempts), and the tokens that handle's transactions carry.
async fn tables(test: &str) -> (Table, Table, FaultInjector, Tokens) {
    let plain = common::table(test, &[Account::schema(), Receipt::schema(), User::schema()]).await;
    let faults = FaultInjector::new(11);
    let tokens = Tokens::default();
    let config = faults.config_builder(plain.client().config()).interceptor(tokens.clone()).build();
    let faulty = Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name());
    (plain, faulty, faults, tokens)
}

use crate::common::lose;

/// The whole table: `PK` to the item's attributes that say what it is (an account's balance, a
/// receipt's amount, a user's e-mail, a guard's owner), write histories left out.
async fn content(plain: &Table) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for item in common::scan_all(plain).await {
        let text = |name: &str| match item.get(name) {
            Some(AttributeValue::S(s)) => s.clone(),
            Some(AttributeValue::N(n)) => n.clone(),
            _ => "-".to_owned(),
        };
        let what = match text("_type").as_str() {
            "Account" => format!("balance {}", text("balance")),
            "Receipt" => format!("receipt {}", text("amount")),
            "User" => format!("user {}", text("email")),
            "_unique" => format!("guard of {}", text("ownerPK")),
            other => format!("{other}?"),
        };
        assert!(out.insert(text("PK"), what).is_none(), "two items with one PK");
    }
    out
}

fn table_of(entries: &[(&str, &str)]) -> BTreeMap<String, String> {
    entries.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect()
}

fn pending(e: &Error) -> &Pending {
    e.pending().unwrap_or_else(|| panic!("expected OutcomeUnknown, got {e:?}"))
}

/// The debit of 30 from account `a` (on the condition that its balance is at least 30) and
/// the put of receipt `r1`: an `add` that must not count twice, and a put.
fn debit(table: &Table) -> dynamo_entity::transact::TransactWrite {
    table
        .transact()
        .update(table.update(Account::key("a")).add(Account::BALANCE, &-30).condition(Account::BALANCE.ge(&30)))
        .put(&receipt("r1"))
}

/// The tokens a call's requests carried: all one library-made token (32 hexadecimal digits).
fn one_token(tokens: &[Option<String>], requests: usize) -> String {
    assert_eq!(tokens.len(), requests, "{tokens:?}");
    let first = tokens[0].clone().expect("every TransactWriteItems carries a token");
    assert!(tokens.iter().all(|t| t.as_deref() == Some(first.as_str())), "{tokens:?}");
    first
}

#[tokio::test]
async fn a_transaction_whose_answer_is_lost_once_is_applied_once() {
    let (plain, faulty, faults, tokens) = tables("tx_once").await;
    plain.put(&Account { id: "a".into(), balance: 100 }).await.unwrap();

    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", Some(1));
    let consumed = faulty.metered();
    debit(&consumed).send().await.unwrap();
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 70"), ("RECEIPT#r1", "receipt 30")]));
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (2, 2, 1));
    let token = one_token(&tokens.take(), 2);
    assert_eq!(token.len(), 32);
    assert!(token.chars().all(|c| c.is_ascii_hexdigit()), "{token}");
    // Only the resend's answer was received: DynamoDB reports the read units of its replay, no
    // write units (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/transaction-apis.html#transaction-apis-idempotency);
    // DynamoDB Local reports the transaction's 2.0 write units (it reports 2.0 for any small
    // transaction, see `capacity`).
    let two_units = common::diverges(Divergence::SmallTransactionsReportTwoUnits).await;
    assert_eq!(consumed.consumed().write(), if two_units { 2.0 } else { 0.0 });

    // Without faults: the same transaction (DynamoDB charges 2 units per item of under 1 KB: 4).
    plain.put(&Account { id: "b".into(), balance: 100 }).await.unwrap();
    let once = plain.metered();
    once.transact()
        .update(once.update(Account::key("b")).add(Account::BALANCE, &-30).condition(Account::BALANCE.ge(&30)))
        .put(&receipt("r2"))
        .send()
        .await
        .unwrap();
    assert_eq!(once.consumed().write(), if two_units { 2.0 } else { 4.0 });
}

#[tokio::test]
async fn a_transaction_whose_answer_is_lost_on_every_attempt_is_unknown_and_resolve_finds_it_applied() {
    let (plain, faulty, faults, tokens) = tables("tx_lost").await;
    plain.put(&Account { id: "a".into(), balance: 100 }).await.unwrap();

    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", None);
    let err = debit(&faulty).send().await.unwrap_err();
    let Error::OutcomeUnknown { operation, entity, key, .. } = &err else { panic!("{err:?}") };
    assert_eq!((*operation, *entity, key.as_str()), ("TransactWriteItems", "Account", "PK=ACCOUNT#a SK=META"));
    assert!(err.to_string().contains("the answer was lost and the write may have been applied"), "{err}");
    // Three attempts reached DynamoDB, with one token: the first applied it, the others were
    // answered from the token.
    let counts = faults.counts();
    assert_eq!((counts.requests, counts.forwarded, counts.server_errors), (3, 3, 3));
    let token = one_token(&tokens.take(), 3);
    let p = pending(&err);
    assert_eq!((p.operation(), p.entity(), p.key()), ("TransactWriteItems", "Account", "PK=ACCOUNT#a SK=META"));
    assert_eq!(p.request_token(), Some(token.as_str()));
    assert_eq!(p.token(), None);
    let applied = table_of(&[("ACCOUNT#a", "balance 70"), ("RECEIPT#r1", "receipt 30")]);
    assert_eq!(content(&plain).await, applied);

    // resolve sends it again with its token: the first success, not a second debit.
    faults.clear_rules();
    assert_eq!(faulty.resolve(p).await.unwrap(), Resolved::Applied);
    assert_eq!(faulty.resolve(p).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, applied);
    assert_eq!(tokens.take(), vec![Some(token.clone()), Some(token)]);
}

#[tokio::test]
async fn a_transaction_never_applied_is_unknown_and_resolve_completes_it_or_finds_it_canceled() {
    let (plain, faulty, faults, tokens) = tables("tx_not_applied").await;
    plain.put(&Account { id: "a".into(), balance: 100 }).await.unwrap();

    // Plain 500s: nothing reaches DynamoDB, but the library cannot know it.
    lose(&faults, Fault::InternalServerError, "TransactWriteItems", None);
    let err = debit(&faulty).send().await.unwrap_err();
    let p = pending(&err).clone();
    assert_eq!(faults.counts().forwarded, 0);
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 100")]));
    let token = one_token(&tokens.take(), 3);
    // Within the window, resolve sends it with its token: applied now, once.
    faults.clear_rules();
    assert_eq!(faulty.resolve(&p).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 70"), ("RECEIPT#r1", "receipt 30")]));
    assert_eq!(faulty.resolve(&p).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 70"), ("RECEIPT#r1", "receipt 30")]));
    assert_eq!(tokens.take(), vec![Some(token.clone()), Some(token)]);

    // Not applied, and the balance falls under 30 before resolve: canceled, nothing applied.
    plain.put(&Account { id: "a".into(), balance: 100 }).await.unwrap();
    plain.delete(Receipt::key("r1")).await.unwrap();
    lose(&faults, Fault::InternalServerError, "TransactWriteItems", None);
    let err = debit(&faulty).send().await.unwrap_err();
    plain.put(&Account { id: "a".into(), balance: 10 }).await.unwrap();
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::NotApplied);
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 10")]));
}

#[tokio::test]
async fn a_transaction_keeps_its_token_over_conflicts_and_your_token_over_calls() {
    let (plain, faulty, faults, tokens) = tables("tx_tokens").await;
    plain.put(&Account { id: "a".into(), balance: 130 }).await.unwrap();

    // Canceled by a conflict (not applied), then lost after applying: one token throughout.
    faults.clear_rules();
    faults.add(FaultRule::new(Fault::TransactionConflict).on("TransactWriteItems").times(1));
    faults.add(FaultRule::new(Fault::InternalServerErrorAfterApplying).on("TransactWriteItems").times(1));
    debit(&faulty).retry_conflicts(2).send().await.unwrap();
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 100"), ("RECEIPT#r1", "receipt 30")]));
    one_token(&tokens.take(), 3);

    // Your token: every attempt lost, then a second call with the same token and actions is
    // answered from the first success (from another process, it would be the same). DynamoDB
    // Local shares tokens between the tables of a server: this one is the run's.
    let mine = format!("debit-{}", &plain.name()[plain.name().len() - 19..]);
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", None);
    let err = debit(&faulty).client_request_token(&mine).send().await.unwrap_err();
    assert_eq!(pending(&err).request_token(), Some(mine.as_str()));
    faults.clear_rules();
    debit(&faulty).client_request_token(&mine).send().await.unwrap();
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 70"), ("RECEIPT#r1", "receipt 30")]));
    assert_eq!(tokens.take(), vec![Some(mine); 4]);
    // Two calls without a token of yours are two debits.
    debit(&faulty).send().await.unwrap();
    debit(&faulty).send().await.unwrap();
    assert_eq!(content(&plain).await, table_of(&[("ACCOUNT#a", "balance 10"), ("RECEIPT#r1", "receipt 30")]));
    let two = tokens.take();
    assert_eq!(two.len(), 2);
    assert_ne!(two[0], two[1]);
}

#[tokio::test]
async fn a_unique_create_is_applied_once_whatever_answers_are_lost() {
    let (plain, faulty, faults, tokens) = tables("tx_unique_create").await;

    // Lost once: Ok, not AlreadyExists; one user, one guard.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", Some(1));
    let op = faulty.metered();
    op.create(&user("u1", "ann@x")).await.unwrap();
    println!("unique create lost once: {:?}", op.consumed());
    let ann = [("USER#u1", "user ann@x"), ("UNIQUE#User#email#ann@x", "guard of USER#u1")];
    assert_eq!(content(&plain).await, table_of(&ann));
    one_token(&tokens.take(), 2);

    // Lost on every attempt: OutcomeUnknown naming the user; applied once; resolve agrees.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", None);
    let err = faulty.create(&user("u2", "bob@x")).await.unwrap_err();
    let Error::OutcomeUnknown { entity: "User", key, .. } = &err else { panic!("{err:?}") };
    assert_eq!(key, "PK=USER#u2 SK=PROFILE");
    let bob = [("USER#u2", "user bob@x"), ("UNIQUE#User#email#bob@x", "guard of USER#u2")];
    let both: Vec<_> = ann.iter().chain(&bob).copied().collect();
    assert_eq!(content(&plain).await, table_of(&both));
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, table_of(&both));
    one_token(&tokens.take(), 4);

    // Never applied: resolve completes it.
    let op = plain.metered();
    op.create(&user("u9", "zed@x")).await.unwrap();
    println!("unique create: {:?}", op.consumed());
    op.delete(User::key("u9")).await.unwrap();
    lose(&faults, Fault::InternalServerError, "TransactWriteItems", None);
    let err = faulty.create(&user("u3", "cy@x")).await.unwrap_err();
    assert_eq!(content(&plain).await, table_of(&both));
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::Applied);
    let cy = [("USER#u3", "user cy@x"), ("UNIQUE#User#email#cy@x", "guard of USER#u3")];
    let three: Vec<_> = both.iter().chain(&cy).copied().collect();
    assert_eq!(content(&plain).await, table_of(&three));

    // Never applied, and another user takes the e-mail first: canceled, one owner.
    lose(&faults, Fault::InternalServerError, "TransactWriteItems", None);
    let err = faulty.create(&user("u4", "dee@x")).await.unwrap_err();
    plain.create(&user("u5", "dee@x")).await.unwrap();
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::NotApplied);
    let dee = [("USER#u5", "user dee@x"), ("UNIQUE#User#email#dee@x", "guard of USER#u5")];
    let four: Vec<_> = three.iter().chain(&dee).copied().collect();
    assert_eq!(content(&plain).await, table_of(&four));
}

#[tokio::test]
async fn a_unique_update_put_and_delete_are_applied_once_whatever_answers_are_lost() {
    let (plain, faulty, faults, tokens) = tables("tx_unique_moves").await;
    plain.create(&user("u1", "ann@x")).await.unwrap();

    // set_unique, lost once: the guard moved once.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", Some(1));
    faulty.update(User::key("u1")).set_unique(User::EMAIL, &"ann@y".to_owned()).send().await.unwrap();
    assert_eq!(
        content(&plain).await,
        table_of(&[("USER#u1", "user ann@y"), ("UNIQUE#User#email#ann@y", "guard of USER#u1")])
    );
    one_token(&tokens.take(), 2);

    // set_unique, lost on every attempt: unknown, applied once, resolve agrees.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", None);
    let err = faulty.update(User::key("u1")).set_unique(User::EMAIL, &"ann@z".to_owned()).send().await.unwrap_err();
    assert_eq!((pending(&err).entity(), pending(&err).key()), ("User", "PK=USER#u1 SK=PROFILE"));
    let moved = table_of(&[("USER#u1", "user ann@z"), ("UNIQUE#User#email#ann@z", "guard of USER#u1")]);
    assert_eq!(content(&plain).await, moved);
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, moved);
    one_token(&tokens.take(), 4);

    // put (replace) of a new e-mail, lost once: the guard moved once, the old one released.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", Some(1));
    faulty.put(&user("u1", "ann@w")).await.unwrap();
    assert_eq!(
        content(&plain).await,
        table_of(&[("USER#u1", "user ann@w"), ("UNIQUE#User#email#ann@w", "guard of USER#u1")])
    );
    one_token(&tokens.take(), 2);

    // delete, lost once: the item it deleted, and nothing left.
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", Some(1));
    let old = faulty.delete(User::key("u1")).await.unwrap();
    assert!(matches!(&old, Returned::Decoded(Some(u)) if *u == user("u1", "ann@w")), "{old:?}");
    assert_eq!(content(&plain).await, table_of(&[]));

    // delete, lost on every attempt: unknown; deleted once; resolve agrees.
    plain.create(&user("u2", "bob@x")).await.unwrap();
    lose(&faults, Fault::InternalServerErrorAfterApplying, "TransactWriteItems", None);
    let err = faulty.delete(User::key("u2")).await.unwrap_err();
    assert_eq!((pending(&err).entity(), pending(&err).key()), ("User", "PK=USER#u2 SK=PROFILE"));
    assert_eq!(content(&plain).await, table_of(&[]));
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, table_of(&[]));

    // delete, never applied: resolve completes it.
    plain.create(&user("u3", "cy@x")).await.unwrap();
    lose(&faults, Fault::InternalServerError, "TransactWriteItems", None);
    let err = faulty.delete(User::key("u3")).await.unwrap_err();
    assert_eq!(content(&plain).await.len(), 2);
    faults.clear_rules();
    assert_eq!(faulty.resolve(pending(&err)).await.unwrap(), Resolved::Applied);
    assert_eq!(content(&plain).await, table_of(&[]));
}

/// A table of `Part`s and a handle whose requests go through `faults`, with the SDK's retries
/// as the batch tests configure them (3 attempts, 2 ms).
async fn parts_tables(test: &str, seed: u64) -> (Table, Table, FaultInjector) {
    let plain = common::table(test, &[Part::schema()]).await;
    let faults = FaultInjector::new(seed);
    let config = faults
        .config_builder(plain.client().config())
        .retry_config(RetryConfig::standard().with_max_attempts(3).with_initial_backoff(Duration::from_millis(2)))
        .build();
    (plain.clone(), Table::new(aws_sdk_dynamodb::Client::from_conf(config), plain.name()), faults)
}

fn parts(n: u32) -> Vec<Part> {
    (0..n).map(|i| Part { id: format!("p{i:03}"), n: i }).collect()
}

/// The ids of the `Part`s stored.
async fn stored_parts(plain: &Table) -> Vec<String> {
    common::scan_all(plain)
        .await
        .iter()
        .map(|i| Part::from_item(i).unwrap().id)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect()
}

#[tokio::test]
async fn a_batch_says_which_writes_an_attempt_that_lost_its_answer_may_have_written() {
    let (plain, faulty, faults) = parts_tables("batch_lost", 3).await;
    let policy = RetryPolicy::default().max_attempts(2).base_delay(Duration::from_millis(2));

    // Applied, the answer lost once: sent again (by the SDK), acknowledged, written once.
    faults.add(FaultRule::new(Fault::InternalServerErrorAfterApplying).on("BatchWriteItem").times(1));
    let five = parts(5);
    let outcome = faulty.batch_write().put_all(&five).retry(policy).send().await.unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len(), outcome.requests), (5, 0, 1));
    assert_eq!(stored_parts(&plain).await, ["p000", "p001", "p002", "p003", "p004"]);
    let c = faults.counts();
    assert_eq!((c.requests, c.forwarded, c.server_errors), (2, 2, 1));
    faults.clear_rules();
    faults.reset_records();
    plain.batch_write().delete_all(five.iter().map(|p| Part::key(&p.id))).send().await.unwrap().check().unwrap();

    // Applied, the answer lost; the SDK sends it again and every later answer says
    // "unprocessed": not acknowledged, but stored, and the outcome says it may be.
    faults.add(FaultRule::new(Fault::InternalServerErrorAfterApplying).on("BatchWriteItem").times(1));
    faults.add(FaultRule::new(Fault::Unprocessed(Pick::All)).on("BatchWriteItem"));
    let ten = parts(10);
    let outcome = faulty.batch_write().put_all(&ten).retry(policy).send().await.unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len(), outcome.maybe_written()), (0, 10, 10));
    assert!(
        outcome
            .unprocessed
            .iter()
            .all(|u| u.maybe_written && matches!(u.reason, UnprocessedReason::Unprocessed { attempts: 2 }))
    );
    assert_eq!(
        outcome.unprocessed[0].to_string(),
        "put Part PK=PART#p000 SK=META (position 0): returned unprocessed by DynamoDB 2 times; an attempt that \
         carried it lost its answer, so it may have been written"
    );
    assert_eq!(stored_parts(&plain).await.len(), 10);
    let err = outcome.check().unwrap_err();
    assert!(err.to_string().starts_with("batch write incomplete: 0 written, 10 not written (10 of them may have been: an attempt lost its answer); first: put Part PK=PART#p000"), "{err}");

    // Unprocessed on every attempt, no answer lost: not stored, and the outcome says so.
    let table2 = common::table("batch_lost_2", &[Part::schema()]).await;
    let faults2 = FaultInjector::new(3);
    faults2.add(FaultRule::new(Fault::Unprocessed(Pick::All)).on("BatchWriteItem"));
    let faulty2 = Table::new(faults2.client(table2.client()), table2.name());
    let outcome = faulty2.batch_write().put_all(&ten).retry(policy).send().await.unwrap();
    assert_eq!((outcome.written, outcome.unprocessed.len(), outcome.maybe_written()), (0, 10, 0));
    assert_eq!(stored_parts(&table2).await.len(), 0);
    // The first request: applied, its answer lost; the SDK's resend and the batch's second
    // request: every write unprocessed.
    let c = faults.counts();
    assert_eq!((c.requests, c.forwarded, c.server_errors, c.unprocessed_responses), (3, 1, 1, 2));
}

#[tokio::test]
async fn a_batch_under_a_storm_of_throttling_unprocessed_items_and_lost_answers_says_what_is_stored() {
    let (plain, faulty, faults) = parts_tables("batch_storm", 30).await;
    faults.add(FaultRule::new(Fault::Throttling).rate(0.5));
    faults.add(FaultRule::new(Fault::Unprocessed(Pick::Rate(0.8))).rate(0.8));
    faults.add(FaultRule::new(Fault::InternalServerErrorAfterApplying).rate(0.2));
    let policy = RetryPolicy::default().base_delay(Duration::from_millis(2)).max_delay(Duration::from_millis(20));
    let all = parts(600);
    let outcome = faulty.batch_write().put_all(&all).retry(policy).send().await.unwrap();
    let stored = stored_parts(&plain).await;
    let left: BTreeMap<String, bool> =
        outcome.unprocessed.iter().map(|u| (all[u.position].id.clone(), u.maybe_written)).collect();
    assert_eq!(outcome.written + left.len(), 600);
    // Every write acknowledged is stored; every write left is stored only if the outcome says it
    // may have been.
    for p in &all {
        let is_stored = stored.binary_search(&p.id).is_ok();
        match left.get(&p.id) {
            None => assert!(is_stored, "{} was acknowledged and is not stored", p.id),
            Some(false) => assert!(!is_stored, "{} is stored but reported as not written", p.id),
            Some(true) => {}
        }
    }
    let maybe_stored = left.iter().filter(|(id, maybe)| **maybe && stored.binary_search(id).is_ok()).count();
    assert_eq!(stored.len(), outcome.written + maybe_stored);
    let mut reasons = BTreeMap::new();
    for u in &outcome.unprocessed {
        let reason = match &u.reason {
            UnprocessedReason::Unprocessed { attempts } => format!("unprocessed {attempts}"),
            UnprocessedReason::Failed { attempts, error } => {
                format!("failed {attempts}: {}", error.to_string().split(':').next().unwrap_or_default())
            }
            other => format!("{other}"),
        };
        *reasons.entry((reason, u.maybe_written)).or_insert(0) += 1;
    }
    // The report: writes "returned unprocessed by DynamoDB 8 times" and stored. They
    // were applied by an attempt whose answer was lost (the SDK sent it again, and the fault
    // layer, like DynamoDB, answered that resend with those writes unprocessed): the fault
    // layer told the truth of each answer, the batch's accounting did not say that an earlier
    // attempt may have applied them. Now it does, for exactly those 13.
    let expected: BTreeMap<(String, bool), usize> = [
        ("failed 8: DynamoDB throttled BatchWriteItem (ThrottlingException", false, 6),
        ("unprocessed 8", false, 17),
        ("unprocessed 8", true, 13),
    ]
    .into_iter()
    .map(|(r, m, n)| ((r.to_owned(), m), n))
    .collect();
    assert_eq!(reasons, expected);
    // The faults are a function of the seed and the requests' contents: the same on every run.
    assert_eq!(
        (outcome.written, left.len(), outcome.maybe_written(), maybe_stored, stored.len()),
        (564, 36, 13, 13, 577)
    );
    let c = faults.counts();
    assert_eq!(
        (c.requests, c.forwarded, c.unprocessed_responses, c.unprocessed_items, c.throttling, c.server_errors),
        (223, 121, 107, 1250, 93, 7)
    );
}

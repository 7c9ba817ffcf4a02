//! Transactions (`TransactWriteItems`, `TransactGetItems`) against DynamoDB Local: case K10,
//! every action kind, the checks made before sending, idempotent retries, typed reads, and the
//! Skill Exchange purchase under 50 concurrent attempts.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::limits::Limit;
use dynamo_entity::transact::{ActionKind, CancellationCode, CancellationReason};
use dynamo_entity::{Entity, Error, Timestamp};
use dynamo_entity_examples::skill_exchange::{self, Purchase, Skill, SkillId, SkillStatus, User, UserId};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>")]
struct Order {
    user_id: String,
    order_id: String,
    total: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "META")]
struct Account {
    id: String,
    balance: i64,
    status: String,
}

fn order(order_id: &str, total: u32) -> Order {
    Order { user_id: "u1".into(), order_id: order_id.into(), total }
}

fn account(id: &str, balance: i64) -> Account {
    Account { id: id.into(), balance, status: "open".into() }
}

fn canceled(err: Error) -> Vec<CancellationReason> {
    match err {
        Error::TransactionCanceled { reasons } => reasons,
        other => panic!("expected a canceled transaction, got {other:?}"),
    }
}

// K10 ----------------------------------------------------------------------------------------

#[tokio::test]
async fn case_k10_transaction_cancellation_reasons() {
    let table = common::table("k10", &[Order::schema()]).await;
    let existing = order("2", 20);
    table.create(&existing).await.unwrap();

    let err = table.transact().create(&order("1", 10)).create(&order("2", 99)).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "transaction canceled: action 1 (create Order PK=USER#u1 SK=ORDER#2): ConditionalCheckFailed"
    );
    let reasons = canceled(err);
    assert_eq!(reasons.len(), 1, "only the failed action is listed: {reasons:?}");
    let r = &reasons[0];
    assert_eq!(r.index, 1);
    assert_eq!(r.action, ActionKind::Create);
    assert_eq!(r.entity, "Order");
    assert_eq!(r.key, "PK=USER#u1 SK=ORDER#2");
    assert_eq!(r.code, CancellationCode::ConditionalCheckFailed);
    assert_eq!(r.message.as_deref(), Some("The conditional request failed"));
    // The item that made the condition fail comes with the reason.
    assert_eq!(Order::from_item(r.item.as_ref().unwrap()).unwrap(), existing);

    // Nothing written: the first item is still absent, the second unchanged.
    assert_eq!(common::raw_item(&table, "USER#u1", "ORDER#1").await, None);
    assert_eq!(table.get_consistent(Order::key("u1", "2")).await.unwrap(), Some(existing));
}

// Every action kind --------------------------------------------------------------------------

#[tokio::test]
async fn every_action_kind_applies_together() {
    let table = common::table("tx_kinds", &[Account::schema(), Order::schema()]).await;
    table.create(&account("a", 100)).await.unwrap();
    table.create(&account("b", 5)).await.unwrap();
    table.create(&account("gone", 0)).await.unwrap();
    table.create(&account("frozen", 1)).await.unwrap();
    table.create(&account("d", 0)).await.unwrap();

    let tx = table
        .transact()
        .update(table.update(Account::key("a")).subtract(Account::BALANCE, &30).condition(Account::BALANCE.ge(&30)))
        .update(table.update(Account::key("b")).add(Account::BALANCE, &30))
        .create(&order("7", 30))
        .put(&account("c", 1))
        .replace(&Account { id: "frozen".into(), balance: 1, status: "frozen".into() })
        .delete(Account::key("gone"))
        .condition_check(Account::key("d"), Account::STATUS.eq(&"open".to_owned()));
    assert_eq!(tx.len(), 7);
    tx.send().await.unwrap();

    let get = |id: &'static str| table.get_consistent(Account::key(id));
    assert_eq!(get("a").await.unwrap().unwrap().balance, 70);
    assert_eq!(get("b").await.unwrap().unwrap().balance, 35);
    assert_eq!(get("c").await.unwrap(), Some(account("c", 1)));
    assert_eq!(get("frozen").await.unwrap().unwrap().status, "frozen");
    assert_eq!(get("gone").await.unwrap(), None);
    assert_eq!(table.get_consistent(Order::key("u1", "7")).await.unwrap(), Some(order("7", 30)));
}

#[tokio::test]
async fn any_failed_action_cancels_all_and_is_named() {
    let table = common::table("tx_cancel", &[Account::schema()]).await;
    table.create(&account("a", 10)).await.unwrap();
    table.create(&account("b", 10)).await.unwrap();

    // The update's own condition (index 0), a condition check on a missing item (index 2) and a
    // replace of a missing item (index 3) fail; the add (index 1) alone would succeed.
    let err = table
        .transact()
        .update(table.update(Account::key("a")).subtract(Account::BALANCE, &50).condition(Account::BALANCE.ge(&50)))
        .update(table.update(Account::key("b")).add(Account::BALANCE, &50))
        .condition_check(Account::key("nobody"), Account::STATUS.exists())
        .replace(&account("missing", 1))
        .send()
        .await
        .unwrap_err();
    let reasons = canceled(err);
    let summary: Vec<(usize, ActionKind, &str, &str)> =
        reasons.iter().map(|r| (r.index, r.action, r.entity, r.key.as_str())).collect();
    assert_eq!(
        summary,
        vec![
            (0, ActionKind::Update, "Account", "PK=ACCOUNT#a SK=META"),
            (2, ActionKind::ConditionCheck, "Account", "PK=ACCOUNT#nobody SK=META"),
            (3, ActionKind::Replace, "Account", "PK=ACCOUNT#missing SK=META"),
        ]
    );
    assert!(reasons.iter().all(|r| r.code == CancellationCode::ConditionalCheckFailed));
    // The stored item comes with a failed condition on an existing item, none for a missing one.
    assert_eq!(Account::from_item(reasons[0].item.as_ref().unwrap()).unwrap(), account("a", 10));
    assert_eq!(reasons[1].item, None);

    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap().unwrap().balance, 10);
    assert_eq!(table.get_consistent(Account::key("b")).await.unwrap().unwrap().balance, 10);
    assert_eq!(table.get_consistent(Account::key("missing")).await.unwrap(), None);

    // An update of a missing item cancels too (every update requires the item to exist).
    let err = table.transact().update(table.update(Account::key("nobody")).add(Account::BALANCE, &1)).send().await;
    let reasons = canceled(err.unwrap_err());
    assert_eq!((reasons[0].index, reasons[0].item.as_ref()), (0, None));
    assert_eq!(table.get_consistent(Account::key("nobody")).await.unwrap(), None);

    // A conditional delete.
    let err = table.transact().delete_if(Account::key("a"), Account::BALANCE.eq(&0)).send().await.unwrap_err();
    assert_eq!(canceled(err)[0].action, ActionKind::Delete);
    table.transact().delete_if(Account::key("a"), Account::BALANCE.eq(&10)).send().await.unwrap();
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap(), None);
}

/// A split counter's shard: only the key and the count, so an increment creates it.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ACCOUNT#<id>", sk = "SALES#<shard>")]
struct SalesShard {
    id: String,
    shard: u8,
    sales: u64,
}

#[tokio::test]
async fn transactions_upsert_and_increment_with_only_the_fields_they_write() {
    let table = common::table("tx_upsert", &[Account::schema(), SalesShard::schema(), Order::schema()]).await;
    table.create(&account("a", 10)).await.unwrap();
    // An order, a counter shard that does not exist yet (the increment creates it) and an
    // existing Account, whose other fields are not Options: its increment needs only `balance`.
    table
        .transact()
        .create(&order("o1", 30))
        .increment(SalesShard::key("a", &3), SalesShard::SALES, 1)
        .increment(Account::key("a"), Account::BALANCE, 30)
        .send()
        .await
        .unwrap();
    let shard = |n: u8| table.get_consistent(SalesShard::key("a", &n));
    assert_eq!(shard(3).await.unwrap(), Some(SalesShard { id: "a".into(), shard: 3, sales: 1 }));
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap(), Some(account("a", 40)));
    assert_eq!(table.get_consistent(Order::key("u1", "o1")).await.unwrap(), Some(order("o1", 30)));

    // An upsert action with its own changes.
    table
        .transact()
        .upsert(table.upsert(SalesShard::key("a", &3)).add(SalesShard::SALES, &2))
        .upsert(table.upsert(Account::key("a")).subtract(Account::BALANCE, &5).set(Account::STATUS, &"held".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(shard(3).await.unwrap().unwrap().sales, 3);
    let a = table.get_consistent(Account::key("a")).await.unwrap().unwrap();
    assert_eq!((a.balance, a.status.as_str()), (35, "held"));

    // An absent Account cannot be created from its balance alone: the transaction is canceled
    // for that action, with no item, and nothing is written (the new shard neither).
    let err = table
        .transact()
        .increment(SalesShard::key("a", &4), SalesShard::SALES, 1)
        .increment(Account::key("nobody"), Account::BALANCE, 1)
        .send()
        .await
        .unwrap_err();
    let reasons = canceled(err);
    let summary: Vec<(usize, ActionKind, &str, &str, CancellationCode, bool)> = reasons
        .iter()
        .map(|r| (r.index, r.action, r.entity, r.key.as_str(), r.code.clone(), r.item.is_some()))
        .collect();
    assert_eq!(
        summary,
        vec![(
            1,
            ActionKind::Update,
            "Account",
            "PK=ACCOUNT#nobody SK=META",
            CancellationCode::ConditionalCheckFailed,
            false
        )]
    );
    assert_eq!(shard(4).await.unwrap(), None);
    assert_eq!(table.get_consistent(Account::key("nobody")).await.unwrap(), None);
}

// Checks before sending ----------------------------------------------------------------------

#[tokio::test]
async fn two_actions_on_one_item_are_rejected_before_sending() {
    let table = common::table("tx_dup", &[Account::schema(), Order::schema()]).await;
    let err = table
        .transact()
        .create(&account("a", 1))
        .create(&order("1", 1))
        .update(table.update(Account::key("a")).add(Account::BALANCE, &1))
        .send()
        .await
        .unwrap_err();
    let Error::Invalid { reason } = err else { panic!("{err:?}") };
    assert!(
        reason.starts_with(&format!(
            "actions 0 (create Account) and 2 (update Account) of this transaction are on the same item \
             PK=ACCOUNT#a SK=META of table {}",
            table.name()
        )),
        "{reason}"
    );
    assert!(reason.ends_with("DynamoDB allows one action per item in a transaction"), "{reason}");
    // Nothing was sent (DynamoDB Local would even have accepted it).
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap(), None);
    assert_eq!(table.get_consistent(Order::key("u1", "1")).await.unwrap(), None);
}

#[tokio::test]
async fn at_most_100_actions() {
    let table = common::table("tx_limit", &[Order::schema()]).await;
    let orders: Vec<Order> = (0..101).map(|i| order(&format!("{i:03}"), i)).collect();
    let tx = orders.iter().fold(table.transact(), |tx, o| tx.create(o));
    let err = tx.send().await.unwrap_err();
    let Error::LimitExceeded { limit: Limit::TransactionActions, measured: 101, max: 100, operation, entity, .. } = err
    else {
        panic!("{err:?}")
    };
    assert_eq!((operation, entity), ("TransactWriteItems", "Order"));
    assert!(matches!(table.transact().send().await, Err(Error::Invalid { .. })));

    // 100 is fine, and so is reading them back in one transactional read of 100 keys.
    let tx = orders[..100].iter().fold(table.transact(), |tx, o| tx.create(o));
    tx.send().await.unwrap();
    let keys = orders[..100].iter().map(|o| Order::key(&o.user_id, &o.order_id));
    let back = table.transact_get_many(keys).await.unwrap();
    assert_eq!(back, orders[..100].iter().cloned().map(Some).collect::<Vec<_>>());
    let keys = orders.iter().map(|o| Order::key(&o.user_id, &o.order_id));
    assert!(matches!(
        table.transact_get_many(keys).await,
        Err(Error::LimitExceeded {
            limit: Limit::TransactionActions,
            measured: 101,
            operation: "TransactGetItems",
            ..
        })
    ));
}

#[tokio::test]
async fn mistakes_while_building_are_returned_by_send() {
    let table = common::table("tx_build", &[Order::schema()]).await;
    // An empty key part: the key's error, nothing sent.
    let err = table.transact().create(&order("1", 1)).delete(Order::key("u1", "")).send().await.unwrap_err();
    assert!(matches!(err, Error::Key(_)), "{err:?}");
    // An update that changes nothing.
    let err = table.transact().update(table.update(Order::key("u1", "1"))).send().await.unwrap_err();
    assert!(matches!(err, Error::Invalid { .. }), "{err:?}");
    // A client request token of 37 characters.
    let err = table.transact().create(&order("1", 1)).client_request_token("x".repeat(37)).send().await.unwrap_err();
    let Error::Invalid { reason } = err else { panic!("{err:?}") };
    assert!(reason.starts_with("a client request token has 1 to 36 characters"), "{reason}");
    assert_eq!(table.get_consistent(Order::key("u1", "1")).await.unwrap(), None);
}

// Idempotency --------------------------------------------------------------------------------

#[tokio::test]
async fn a_client_request_token_makes_a_retry_idempotent() {
    let table = common::table("tx_token", &[Account::schema()]).await;
    table.create(&account("a", 0)).await.unwrap();
    let deposit = || table.transact().update(table.update(Account::key("a")).add(Account::BALANCE, &25));
    // Tokens are shared by every table of the account (and of the DynamoDB Local server): make
    // them unique to this run.
    let run = {
        use std::hash::{BuildHasher, Hasher};
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write(table.name().as_bytes());
        format!("{:016x}", h.finish())
    };
    let token = |n: u32| format!("{run}-deposit-{n}");

    deposit().client_request_token(token(1)).send().await.unwrap();
    // The retry (say, after a timeout) succeeds without adding again.
    deposit().client_request_token(token(1)).send().await.unwrap();
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap().unwrap().balance, 25);
    // Another token is another deposit.
    deposit().client_request_token(token(2)).send().await.unwrap();
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap().unwrap().balance, 50);
    // The same token with another request is refused.
    let other = table.transact().update(table.update(Account::key("a")).add(Account::BALANCE, &1));
    let err = other.client_request_token(token(1)).send().await.unwrap_err();
    let Error::Sdk { source, .. } = &err else { panic!("{err:?}") };
    assert!(matches!(**source, aws_sdk_dynamodb::Error::IdempotentParameterMismatchException(_)), "{err:?}");
    assert_eq!(table.get_consistent(Account::key("a")).await.unwrap().unwrap().balance, 50);
}

// TransactGetItems ---------------------------------------------------------------------------

#[tokio::test]
async fn transactional_reads_are_typed() {
    let table = common::table("tx_get", &[Account::schema(), Order::schema()]).await;
    table.create(&account("a", 1)).await.unwrap();
    table.create(&order("1", 10)).await.unwrap();

    let (a, o): (Option<Account>, Option<Order>) =
        table.transact_get().get(Account::key("a")).get(Order::key("u1", "1")).send().await.unwrap();
    assert_eq!((a, o), (Some(account("a", 1)), Some(order("1", 10))));

    let (a, missing, o, again) = table
        .transact_get()
        .get(Account::key("a"))
        .get(Account::key("nobody"))
        .get(Order::key("u1", "1"))
        .get(Order::key("u1", "2"))
        .send()
        .await
        .unwrap();
    assert_eq!((a.unwrap().id, missing, o.unwrap().total, again), ("a".to_owned(), None, 10, None));

    let (single,) = table.transact_get().get(Order::key("u1", "1")).send().await.unwrap();
    assert_eq!(single, Some(order("1", 10)));

    let many = table.transact_get_many([Account::key("x"), Account::key("a")]).await.unwrap();
    assert_eq!(many, vec![None, Some(account("a", 1))]);

    // One key twice: rejected before sending, naming both positions.
    let err = table.transact_get().get(Account::key("a")).get(Account::key("a")).send().await.unwrap_err();
    let Error::Invalid { reason } = err else { panic!("{err:?}") };
    assert!(reason.starts_with("actions 0 (get Account) and 1 (get Account)"), "{reason}");
    // An item of another type under the key asked for is a typed error, not a silent None.
    let mut raw = Account::key("a").into_encoded().unwrap().to_item();
    raw.insert("_type".into(), AttributeValue::S("Order".into()));
    table.client().put_item().table_name(table.name()).set_item(Some(raw)).send().await.unwrap();
    let err = table.transact_get().get(Account::key("a")).send().await.unwrap_err();
    assert!(matches!(err, Error::WrongEntity { expected: "Account", .. }), "{err:?}");
}

// The Skill Exchange purchase ----------------------------------------------------------------

fn ts(s: &str) -> Timestamp {
    Timestamp::parse(s).unwrap()
}

/// A purchase as one transaction: record it (create-if-absent), count a download on the skill
/// (GSI1 is keyed on `downloads` itself, so this moves the skill inside GSI1) and a sale on the
/// seller.
async fn purchase(table: &dynamo_entity::Table, p: &Purchase, seller: &UserId) -> Result<(), Error> {
    table
        .transact()
        .create(p)
        .update(table.update(Skill::key(&p.skill_id)).add(Skill::DOWNLOADS, &1))
        .update(table.update(User::key(seller)).add(User::SALES, &1))
        .retry_conflicts(5)
        .send()
        .await
}

#[tokio::test]
async fn a_purchase_is_one_transaction_even_under_50_concurrent_attempts() {
    let table = common::table("tx_purchase", &skill_exchange::schemas()).await;
    let seller = User {
        id: UserId("u0001".into()),
        name: "Seller".into(),
        email: "seller@example.test".into(),
        verified: true,
        sales: 3,
        created_at: ts("2024-01-01T00:00:00.000Z"),
    };
    let skill = Skill {
        id: SkillId("s00042".into()),
        title: "Invoice parser".into(),
        category: "documents".into(),
        seller_id: seller.id.clone(),
        status: SkillStatus::Approved,
        downloads: 7,
        price_cents: 500,
        created_at: ts("2024-01-02T00:00:00.000Z"),
        submitted_at: Some(ts("2024-01-03T00:00:00.000Z")),
        seller_verified: true,
        tags: vec!["pdf".into()],
    };
    table.create(&seller).await.unwrap();
    table.create(&skill).await.unwrap();
    let p = Purchase {
        skill_id: skill.id.clone(),
        buyer_id: UserId("u0002".into()),
        price_cents: 500,
        purchased_at: ts("2024-02-01T12:00:00.000Z"),
    };

    let attempts = (0..50).map(|_| {
        let (table, p, seller) = (table.clone(), p.clone(), seller.id.clone());
        tokio::spawn(async move { purchase(&table, &p, &seller).await })
    });
    let results: Vec<Result<(), Error>> =
        futures::future::join_all(attempts).await.into_iter().map(Result::unwrap).collect();
    assert_eq!(results.iter().filter(|r| r.is_ok()).count(), 1, "exactly one attempt records the purchase");
    for err in results.into_iter().filter_map(Result::err) {
        let reasons = canceled(err);
        // The purchase already exists (action 0); conflicts are retried, so none is left.
        assert_eq!(reasons.len(), 1, "{reasons:?}");
        assert_eq!((reasons[0].index, reasons[0].action, reasons[0].entity), (0, ActionKind::Create, "Purchase"));
        assert_eq!(reasons[0].code, CancellationCode::ConditionalCheckFailed);
        assert_eq!(reasons[0].key, "PK=PURCHASE#s00042#u0002 SK=META");
    }

    // Recorded once, each counter bumped once, and the skill moved inside GSI1 with its
    // `downloads` (the index's own sort key attribute: no GSI1PK / GSI1SK on the item).
    assert_eq!(table.get_consistent(Purchase::key(&p.skill_id, &p.buyer_id)).await.unwrap(), Some(p.clone()));
    let library = table.query(Purchase::gsi3(&p.buyer_id)).all().await.unwrap();
    assert_eq!(library, vec![p.clone()]);
    let (stored_skill, stored_seller) =
        table.transact_get().get(Skill::key(&skill.id)).get(User::key(&seller.id)).send().await.unwrap();
    assert_eq!(stored_skill.unwrap().downloads, 8);
    assert_eq!(stored_seller.unwrap().sales, 4);
    let raw = common::raw_item(&table, "SKILL#s00042", "META").await.unwrap();
    assert_eq!(raw["downloads"], AttributeValue::N("8".into()));
    assert!(!raw.contains_key("GSI1PK") && !raw.contains_key("GSI1SK"), "{raw:?}");
    let top = table.query(Skill::gsi1("documents")).all().await.unwrap();
    assert_eq!(top.iter().map(|s| s.downloads).collect::<Vec<_>>(), vec![8]);
    let at_8 = table.query(Skill::gsi1("documents").downloads_eq(&8)).all().await.unwrap();
    assert_eq!(at_8.iter().map(|s| s.id.0.as_str()).collect::<Vec<_>>(), ["s00042"]);
    assert!(table.query(Skill::gsi1("documents").downloads_eq(&7)).all().await.unwrap().is_empty());

    // A later retry of the same purchase changes nothing either.
    let err = purchase(&table, &p, &seller.id).await.unwrap_err();
    assert_eq!(canceled(err)[0].index, 0);
    assert_eq!(table.get_consistent(Skill::key(&skill.id)).await.unwrap().unwrap().downloads, 8);
}

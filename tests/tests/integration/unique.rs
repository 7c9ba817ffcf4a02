//! Unique fields (`#[entity(unique)]`) against DynamoDB Local: guard items written, moved and
//! deleted with their entity, typed violations, and a race of 20 sign-ups for one e-mail.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::transact::ActionKind;
use dynamo_entity::{Entity, Error, Item, Table};

/// A member with a unique e-mail address and an optional unique handle, which is also the
/// partition key of GSI1 (a handle lookup that needs no guard).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "MEMBER#<id>", sk = "PROFILE", gsi1 = "HANDLE#<handle>", gsi1_sk = "MEMBER")]
struct Member {
    id: String,
    #[entity(unique)]
    email: String,
    #[entity(unique)]
    handle: Option<String>,
    name: String,
    logins: u32,
}

fn member(id: &str, email: &str, handle: Option<&str>) -> Member {
    Member {
        id: id.into(),
        email: email.into(),
        handle: handle.map(Into::into),
        name: format!("Member {id}"),
        logins: 0,
    }
}

const ANN: &str = "ann@example.test";

/// Every guard item of the table, from a raw (strongly consistent) Scan: (PK, owner PK).
async fn guards(table: &Table) -> BTreeSet<(String, String)> {
    let mut out = BTreeSet::new();
    let mut start: Option<Item> = None;
    loop {
        let resp = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .filter_expression("#t = :t")
            .expression_attribute_names("#t", "_type")
            .expression_attribute_values(":t", AttributeValue::S("_unique".into()))
            .set_exclusive_start_key(start.take())
            .send()
            .await
            .unwrap();
        for item in resp.items() {
            out.insert((item["PK"].as_s().unwrap().clone(), item["ownerPK"].as_s().unwrap().clone()));
        }
        match resp.last_evaluated_key {
            Some(k) => start = Some(k),
            None => return out,
        }
    }
}

fn set(pairs: &[(&str, &str)]) -> BTreeSet<(String, String)> {
    pairs.iter().map(|(a, b)| ((*a).to_owned(), (*b).to_owned())).collect()
}

fn email_guard(email: &str) -> String {
    format!("UNIQUE#Member#email#{email}")
}

#[tokio::test]
async fn create_writes_the_entity_and_one_guard_per_present_value() {
    let table = common::table("unique_create", &[Member::schema()]).await;
    let ann = member("u1", ANN, None);
    table.create(&ann).await.unwrap();
    assert_eq!(table.get_consistent(Member::key("u1")).await.unwrap(), Some(ann.clone()));

    // The guard item, attribute by attribute.
    let guard = common::raw_item(&table, &email_guard(ANN), "UNIQUE").await.unwrap();
    let expected: Item = [
        ("PK", AttributeValue::S(email_guard(ANN))),
        ("SK", AttributeValue::S("UNIQUE".into())),
        ("_type", AttributeValue::S("_unique".into())),
        ("entity", AttributeValue::S("Member".into())),
        ("field", AttributeValue::S("email".into())),
        ("value", AttributeValue::S(ANN.into())),
        ("ownerPK", AttributeValue::S("MEMBER#u1".into())),
        ("ownerSK", AttributeValue::S("PROFILE".into())),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(guard, expected);
    // `handle` is None: no guard for it.
    assert_eq!(guards(&table).await, set(&[(&email_guard(ANN), "MEMBER#u1")]));

    // A value with the delimiter is escaped in the guard key.
    table.create(&member("u2", "odd#one%@example.test", Some("bo"))).await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[
            (&email_guard(ANN), "MEMBER#u1"),
            ("UNIQUE#Member#email#odd%23one%25@example.test", "MEMBER#u2"),
            ("UNIQUE#Member#handle#bo", "MEMBER#u2"),
        ])
    );
    // The owner is found from the value.
    assert_eq!(table.get_by_unique(Member::EMAIL, &ANN.to_owned()).await.unwrap(), Some(ann));
    assert_eq!(table.get_by_unique(Member::HANDLE, &Some("bo".to_owned())).await.unwrap().unwrap().id, "u2");
    assert_eq!(table.get_by_unique(Member::EMAIL, &"nobody@example.test".to_owned()).await.unwrap(), None);
}

#[tokio::test]
async fn a_taken_value_is_a_typed_violation_and_nothing_is_written() {
    let table = common::table("unique_violation", &[Member::schema()]).await;
    table.create(&member("u1", ANN, Some("ann"))).await.unwrap();

    let err = table.create(&member("u2", ANN, None)).await.unwrap_err();
    assert!(
        matches!(&err, Error::UniqueViolation { entity: "Member", field: "email", value } if value == ANN),
        "{err:?}"
    );
    assert_eq!(err.to_string(), "Member.email must be unique, and \"ann@example.test\" belongs to another Member");
    // The second handle is free, but nothing of the second member was written.
    let err = table.create(&member("u2", "bob@example.test", Some("ann"))).await.unwrap_err();
    assert!(matches!(&err, Error::UniqueViolation { field: "handle", value, .. } if value == "ann"), "{err:?}");
    assert_eq!(table.get_consistent(Member::key("u2")).await.unwrap(), None);
    assert_eq!(
        guards(&table).await,
        set(&[(&email_guard(ANN), "MEMBER#u1"), ("UNIQUE#Member#handle#ann", "MEMBER#u1")])
    );

    // The entity itself existing is AlreadyExists, whatever its values.
    let err = table.create(&member("u1", ANN, Some("ann"))).await.unwrap_err();
    assert!(
        matches!(&err, Error::AlreadyExists { entity: "Member", key } if key == "PK=MEMBER#u1 SK=PROFILE"),
        "{err:?}"
    );
    let err = table.create(&member("u1", "new@example.test", None)).await.unwrap_err();
    assert!(matches!(err, Error::AlreadyExists { .. }), "{err:?}");
    assert_eq!(guards(&table).await.len(), 2);
}

#[tokio::test]
async fn changing_a_unique_value_moves_its_guard() {
    let table = common::table("unique_update", &[Member::schema()]).await;
    table.create(&member("u1", ANN, None)).await.unwrap();
    table.create(&member("u2", "bob@example.test", Some("bob"))).await.unwrap();

    // A new e-mail and a first handle, with an ordinary field in the same update.
    let new = "ann@example.org".to_owned();
    table
        .update(Member::key("u1"))
        .set_unique(Member::EMAIL, &new)
        .set_unique(Member::HANDLE, &Some("ann".to_owned()))
        .add(Member::LOGINS, &1)
        .send()
        .await
        .unwrap();
    let stored = table.get_consistent(Member::key("u1")).await.unwrap().unwrap();
    assert_eq!((stored.email.as_str(), stored.handle.as_deref(), stored.logins), ("ann@example.org", Some("ann"), 1));
    assert_eq!(
        guards(&table).await,
        set(&[
            (&email_guard("ann@example.org"), "MEMBER#u1"),
            ("UNIQUE#Member#handle#ann", "MEMBER#u1"),
            (&email_guard("bob@example.test"), "MEMBER#u2"),
            ("UNIQUE#Member#handle#bob", "MEMBER#u2"),
        ])
    );
    // The old value is free again; the GSI key followed the handle.
    table.create(&member("u3", ANN, None)).await.unwrap();
    let raw = common::raw_item(&table, "MEMBER#u1", "PROFILE").await.unwrap();
    assert_eq!(raw["GSI1PK"], AttributeValue::S("HANDLE#ann".into()));

    // A taken value: a typed error, and nothing changes (not even the ordinary field).
    let err = table
        .update(Member::key("u1"))
        .set_unique(Member::EMAIL, &"bob@example.test".to_owned())
        .set(Member::NAME, &"Renamed".to_owned())
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::UniqueViolation { field: "email", value, .. } if value == "bob@example.test"),
        "{err:?}"
    );
    assert_eq!(table.get_consistent(Member::key("u1")).await.unwrap(), Some(stored.clone()));

    // Setting the same value again keeps the guard; the update's own condition still applies.
    let err = table
        .update(Member::key("u1"))
        .set_unique(Member::EMAIL, &new)
        .condition(Member::LOGINS.eq(&5))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(&err, Error::ConditionFailed { entity: "Member", .. }), "{err:?}");
    table
        .update(Member::key("u1"))
        .set_unique(Member::EMAIL, &new)
        .condition(Member::LOGINS.eq(&1))
        .send()
        .await
        .unwrap();

    // None releases the handle's guard and takes the member out of GSI1.
    table.update(Member::key("u1")).set_unique(Member::HANDLE, &None).send().await.unwrap();
    let raw = common::raw_item(&table, "MEMBER#u1", "PROFILE").await.unwrap();
    assert!(!raw.contains_key("handle") && !raw.contains_key("GSI1PK") && !raw.contains_key("GSI1SK"), "{raw:?}");
    assert_eq!(
        guards(&table).await,
        set(&[
            (&email_guard("ann@example.org"), "MEMBER#u1"),
            (&email_guard(ANN), "MEMBER#u3"),
            (&email_guard("bob@example.test"), "MEMBER#u2"),
            ("UNIQUE#Member#handle#bob", "MEMBER#u2"),
        ])
    );

    // A missing member.
    let err = table.update(Member::key("nobody")).set_unique(Member::EMAIL, &"x@example.test".to_owned()).send().await;
    assert!(matches!(err, Err(Error::NotFound { entity: "Member", .. })), "{err:?}");
    assert_eq!(guards(&table).await.len(), 4);
}

#[tokio::test]
async fn put_and_replace_move_guards_too() {
    let table = common::table("unique_put", &[Member::schema()]).await;
    // put of a new member claims its values.
    table.put(&member("u1", ANN, Some("ann"))).await.unwrap();
    table.put(&member("u2", "bob@example.test", None)).await.unwrap();
    // put over it moves the changed one and keeps the other.
    let mut ann = member("u1", "ann@example.org", Some("ann"));
    table.put(&ann).await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[
            (&email_guard("ann@example.org"), "MEMBER#u1"),
            ("UNIQUE#Member#handle#ann", "MEMBER#u1"),
            (&email_guard("bob@example.test"), "MEMBER#u2"),
        ])
    );
    // put with a value another member holds.
    let err = table.put(&member("u1", "bob@example.test", Some("ann"))).await.unwrap_err();
    assert!(matches!(&err, Error::UniqueViolation { field: "email", .. }), "{err:?}");
    assert_eq!(table.get_consistent(Member::key("u1")).await.unwrap(), Some(ann.clone()));
    // replace returns the old item; a missing one is NotFound and claims nothing.
    ann.handle = None;
    let old = table.replace(&ann).await.unwrap().unwrap();
    assert_eq!(old.handle.as_deref(), Some("ann"));
    let err = table.replace(&member("u9", "nine@example.test", None)).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Member", .. }), "{err:?}");
    assert_eq!(
        guards(&table).await,
        set(&[(&email_guard("ann@example.org"), "MEMBER#u1"), (&email_guard("bob@example.test"), "MEMBER#u2")])
    );
}

#[tokio::test]
async fn delete_removes_the_guards_with_the_entity() {
    let table = common::table("unique_delete", &[Member::schema()]).await;
    let ann = member("u1", ANN, Some("ann"));
    table.create(&ann).await.unwrap();
    table.create(&member("u2", "bob@example.test", None)).await.unwrap();

    assert_eq!(table.delete(Member::key("u1")).await.unwrap(), Some(ann));
    assert_eq!(table.get_consistent(Member::key("u1")).await.unwrap(), None);
    assert_eq!(guards(&table).await, set(&[(&email_guard("bob@example.test"), "MEMBER#u2")]));
    assert_eq!(table.delete(Member::key("u1")).await.unwrap(), None);
    // The values can be taken again.
    table.create(&member("u3", ANN, Some("ann"))).await.unwrap();
    assert_eq!(guards(&table).await.len(), 3);
}

#[tokio::test]
async fn twenty_concurrent_sign_ups_with_one_email_have_one_winner() {
    let table = common::table("unique_race", &[Member::schema()]).await;
    let email = "race@example.test";
    let sign_ups = (0..20).map(|i| {
        let table = table.clone();
        tokio::spawn(async move { table.create(&member(&format!("u{i:02}"), email, None)).await })
    });
    let results: Vec<Result<(), Error>> =
        futures::future::join_all(sign_ups).await.into_iter().map(Result::unwrap).collect();

    let winners: Vec<usize> = results.iter().enumerate().filter(|(_, r)| r.is_ok()).map(|(i, _)| i).collect();
    assert_eq!(winners.len(), 1, "{results:?}");
    let losers: Vec<&Error> = results.iter().filter_map(|r| r.as_ref().err()).collect();
    assert_eq!(losers.len(), 19);
    for err in losers {
        assert!(
            matches!(err, Error::UniqueViolation { entity: "Member", field: "email", value } if value == email),
            "{err:?}"
        );
    }
    // Exactly one guard, owned by the winner, and exactly one member.
    let winner = format!("MEMBER#u{:02}", winners[0]);
    assert_eq!(guards(&table).await, set(&[(&email_guard(email), &winner)]));
    let members = table
        .client()
        .scan()
        .table_name(table.name())
        .consistent_read(true)
        .filter_expression("#t = :t")
        .expression_attribute_names("#t", "_type")
        .expression_attribute_values(":t", AttributeValue::S("Member".into()))
        .send()
        .await
        .unwrap();
    let ids: Vec<&str> = members.items().iter().map(|i| i["PK"].as_s().unwrap().as_str()).collect();
    assert_eq!(ids, vec![winner.as_str()]);
}

#[tokio::test]
async fn transactions_claim_guards_on_create_and_refuse_blind_writes() {
    let table = common::table("unique_tx", &[Member::schema()]).await;
    table.transact().create(&member("u1", ANN, Some("ann"))).send().await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[(&email_guard(ANN), "MEMBER#u1"), ("UNIQUE#Member#handle#ann", "MEMBER#u1")])
    );

    // A taken value cancels the transaction on its claim action, which follows the entity's.
    let err = table.transact().create(&member("u2", ANN, None)).send().await.unwrap_err();
    let Error::TransactionCanceled { reasons } = err else { panic!("{err:?}") };
    assert_eq!(reasons.len(), 1);
    assert_eq!(reasons[0].index, 1);
    assert_eq!(reasons[0].action, ActionKind::ClaimUnique { field: "email" });
    assert_eq!(reasons[0].key, format!("PK={} SK=UNIQUE", email_guard(ANN)));

    // Two new members with one value in one transaction: the same guard twice.
    let err = table
        .transact()
        .create(&member("u3", "same@example.test", None))
        .create(&member("u4", "same@example.test", None))
        .send()
        .await
        .unwrap_err();
    let Error::Invalid { reason } = err else { panic!("{err:?}") };
    assert!(
        reason.starts_with("actions 1 (claim unique email of Member) and 3 (claim unique email of Member)"),
        "{reason}"
    );

    // Writes that would need the stored values are refused before sending.
    for tx in [
        table.transact().put(&member("u1", "x@example.test", None)),
        table.transact().replace(&member("u1", "x@example.test", None)),
        table.transact().delete(Member::key("u1")),
    ] {
        let err = tx.send().await.unwrap_err();
        let Error::Invalid { reason } = err else { panic!("{err:?}") };
        assert!(reason.starts_with("Member has unique fields (`email`, `handle`)"), "{reason}");
    }
    // Updates of other fields are fine.
    table.transact().update(table.update(Member::key("u1")).add(Member::LOGINS, &1)).send().await.unwrap();
    assert_eq!(guards(&table).await.len(), 2);
}

#[tokio::test]
async fn concurrent_changes_of_one_member_leave_exactly_its_guards() {
    let table = common::table("unique_concurrent", &[Member::schema()]).await;
    table.create(&member("u1", ANN, Some("ann"))).await.unwrap();
    // Eight updates and four puts race on one member, each with another e-mail address: each
    // reads the stored value, and retries when another one moved it first.
    let updates = (0..8).map(|i| {
        let table = table.clone();
        tokio::spawn(async move {
            let email = format!("update{i}@example.test");
            table.update(Member::key("u1")).set_unique(Member::EMAIL, &email).send().await
        })
    });
    let puts = (0..4).map(|i| {
        let table = table.clone();
        tokio::spawn(async move { table.put(&member("u1", &format!("put{i}@example.test"), Some("ann"))).await })
    });
    let (updates, puts) =
        futures::future::join(futures::future::join_all(updates), futures::future::join_all(puts)).await;
    let results: Vec<Result<(), Error>> = updates.into_iter().chain(puts).map(Result::unwrap).collect();
    for r in &results {
        // Only a write that lost the race ten times in a row may give up, with the typed error.
        assert!(matches!(r, Ok(()) | Err(Error::TransactionCanceled { .. })), "{r:?}");
    }
    assert!(results.iter().any(Result::is_ok));
    // Whatever the order: one e-mail guard, the stored value's, and the handle's.
    let stored = table.get_consistent(Member::key("u1")).await.unwrap().unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[(&email_guard(&stored.email), "MEMBER#u1"), ("UNIQUE#Member#handle#ann", "MEMBER#u1")])
    );
    // And deleting it leaves nothing behind.
    table.delete(Member::key("u1")).await.unwrap();
    assert_eq!(guards(&table).await, BTreeSet::new());
}

#[tokio::test]
async fn entities_stored_without_guards_get_them_on_the_next_put() {
    let table = common::table("unique_backfill", &[Member::schema()]).await;
    // Two members stored before `email` was unique (raw PutItem, no guards), sharing a value.
    for id in ["u1", "u2"] {
        let item = member(id, ANN, None).to_item().unwrap();
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    assert_eq!(guards(&table).await, BTreeSet::new());
    // Updating other fields and deleting work without guards.
    table.update(Member::key("u1")).add(Member::LOGINS, &1).send().await.unwrap();
    // Putting one again claims its value; the other one then holds a taken value.
    let mut ann = member("u1", ANN, None);
    ann.logins = 1;
    table.put(&ann).await.unwrap();
    assert_eq!(guards(&table).await, set(&[(&email_guard(ANN), "MEMBER#u1")]));
    let err = table.put(&member("u2", ANN, None)).await.unwrap_err();
    assert!(matches!(&err, Error::UniqueViolation { field: "email", .. }), "{err:?}");
    // Moved to a value of its own, it gets its guard and leaves the owner's alone; a put of an
    // unchanged owner changes nothing.
    table.put(&member("u2", "bob@example.test", None)).await.unwrap();
    table.put(&ann).await.unwrap();
    assert_eq!(
        guards(&table).await,
        set(&[(&email_guard(ANN), "MEMBER#u1"), (&email_guard("bob@example.test"), "MEMBER#u2")])
    );
    // The same for an update and a delete of a third member that shared the value.
    for id in ["u3", "u4"] {
        let item = member(id, ANN, None).to_item().unwrap();
        table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
    }
    table.update(Member::key("u3")).set_unique(Member::EMAIL, &"cy@example.test".to_owned()).send().await.unwrap();
    assert_eq!(table.delete(Member::key("u4")).await.unwrap().unwrap().unwrap().email, ANN);
    assert_eq!(
        guards(&table).await,
        set(&[
            (&email_guard(ANN), "MEMBER#u1"),
            (&email_guard("bob@example.test"), "MEMBER#u2"),
            (&email_guard("cy@example.test"), "MEMBER#u3"),
        ])
    );
}

#[tokio::test]
async fn batches_refuse_entities_with_unique_fields() {
    let table = common::table("unique_batch", &[Member::schema()]).await;
    let err = table.batch_write().put(&member("m1", "a@example.test", None)).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: a batch cannot put Member: it has unique fields, whose guard items only a transaction keeps \
         in step; use Table::create, Table::put or Table::delete"
    );
    let err = table.batch_write().delete(Member::key("m1")).send().await.unwrap_err();
    assert!(err.to_string().starts_with("invalid request: a batch cannot delete Member"), "{err}");
    assert!(guards(&table).await.is_empty(), "nothing was written");
}

/// A login re-keyed into its team's partition, in a table without a type attribute.
mod typeless_rekey {
    use dynamo_entity::{Entity, TableDef};

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(name = "Login", pk = "LOGIN#<id>", sk = "META", table = Bank)]
    pub struct LoginV1 {
        pub id: String,
        pub team: String,
        #[entity(unique)]
        pub email: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(name = "Login", pk = "TEAM#<team>", sk = "LOGIN#<id>", table = Bank)]
    pub struct Login {
        pub id: String,
        pub team: String,
        #[entity(unique)]
        pub email: String,
    }

    impl From<LoginV1> for Login {
        fn from(l: LoginV1) -> Login {
            Login { id: l.id, team: l.team, email: l.email }
        }
    }

    #[derive(TableDef)]
    #[table(entities(Login), entity_type = none)]
    pub struct Bank;
}

#[tokio::test]
async fn a_rekeying_in_a_table_without_a_type_attribute_writes_guards_without_one() {
    use dynamo_entity::TableDef;
    use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
    use typeless_rekey::{Bank, Login, LoginV1};

    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("unique_rekey_typeless"));
    table.create_table_from(&Bank::layout().unwrap()).await.unwrap();
    let old = LoginV1 { id: "l1".into(), team: "t1".into(), email: "ann@example.test".into() };
    table.put(&old).await.unwrap();
    let report = table.rekey::<LoginV1, Login>("logins-into-teams", Login::from).run().await.unwrap();
    // The login moves; the scan of a type-less table also reads the guard and the migration's
    // own records, which do not decode as LoginV1 (reported failed, left alone).
    assert_eq!(report.updated, 1, "{report}");
    assert_eq!(table.get(Login::key("t1", "l1")).await.unwrap(), Some(Login::from(old)));

    let s = |v: &str| AttributeValue::S(v.to_owned());
    let guard = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", s("UNIQUE#Login#email#ann@example.test"))
        .key("SK", s("UNIQUE"))
        .send()
        .await
        .unwrap()
        .item
        .unwrap();
    // Before: the guard carried an attribute named "" (the absent type attribute's name).
    let expected: Item = [
        ("PK", s("UNIQUE#Login#email#ann@example.test")),
        ("SK", s("UNIQUE")),
        ("entity", s("Login")),
        ("field", s("email")),
        ("value", s("ann@example.test")),
        ("ownerPK", s("TEAM#t1")),
        ("ownerSK", s("LOGIN#l1")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(guard, expected);
}

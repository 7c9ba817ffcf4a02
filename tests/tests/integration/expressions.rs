//! Condition expressions, query filters and every update action, against DynamoDB Local.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::expr::Comparison;
use dynamo_entity::{Entity, Error};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META", gsi1 = "OWNER#<owner>", gsi1_sk = "<score>")]
struct Note {
    id: String,
    owner: String,
    score: i64,
    // Reserved words and awkward names go through placeholders.
    #[entity(rename = "name")]
    title: String,
    #[entity(rename = "data.status-v2")]
    status: String,
    labels: BTreeSet<String>,
    history: Vec<String>,
    pinned: Option<bool>,
    views: u32,
}

fn note(id: &str, score: i64) -> Note {
    Note {
        id: id.into(),
        owner: "o".into(),
        score,
        title: format!("title {id}"),
        status: if score % 2 == 0 { "even".into() } else { "odd".into() },
        labels: ["a".to_owned()].into(),
        history: vec!["created".into()],
        pinned: None,
        views: 0,
    }
}

#[tokio::test]
async fn query_filters_use_every_condition_form() {
    let table = common::table("filters", &[Note::schema()]).await;
    for i in 0..10 {
        table.put(&note(&format!("n{i}"), i)).await.unwrap();
    }
    let ids = |v: Vec<Note>| v.into_iter().map(|n| n.score).collect::<Vec<_>>();
    let q = || table.query(Note::gsi1("o"));
    assert_eq!(ids(q().filter(Note::STATUS.eq(&"even".to_owned())).all().await.unwrap()), vec![0, 2, 4, 6, 8]);
    assert_eq!(ids(q().filter(Note::SCORE.between(&3, &5)).all().await.unwrap()), vec![3, 4, 5]);
    assert_eq!(ids(q().filter(Note::SCORE.is_in(&[1, 7, 42])).all().await.unwrap()), vec![1, 7]);
    assert_eq!(ids(q().filter(Note::TITLE.begins_with("title n1")).all().await.unwrap()), vec![1]);
    assert_eq!(ids(q().filter(Note::TITLE.contains(&"n9".to_owned())).all().await.unwrap()), vec![9]);
    assert_eq!(ids(q().filter(Note::LABELS.contains(&"a".to_owned())).all().await.unwrap()).len(), 10);
    assert_eq!(ids(q().filter(Note::TITLE.size(Comparison::Gt, 8)).all().await.unwrap()), Vec::<i64>::new());
    assert_eq!(ids(q().filter(Note::TITLE.size(Comparison::Eq, 8)).all().await.unwrap()).len(), 10);
    assert_eq!(ids(q().filter(Note::PINNED.not_exists()).all().await.unwrap()).len(), 10);
    assert_eq!(
        ids(q()
            .filter(Note::SCORE.lt(&2).or(Note::SCORE.ge(&8)).and(Note::STATUS.ne(&"odd".to_owned())))
            .all()
            .await
            .unwrap()),
        vec![0, 8]
    );
    assert_eq!(ids(q().filter(Note::SCORE.gt(&6).not()).max_items(3).send().await.unwrap().items), vec![0, 1, 2]);
    let err = q().filter(Note::SCORE.is_in(&[])).all().await.unwrap_err();
    assert!(matches!(err, Error::Encode { field: "score", .. }), "{err:?}");
}

#[tokio::test]
async fn every_update_action() {
    let table = common::table("update_actions", &[Note::schema()]).await;
    let n = note("n1", 5);
    table.put(&n).await.unwrap();
    let key = || Note::key("n1");

    let after = table
        .update(key())
        .append(Note::HISTORY, &["edited".to_owned()])
        .prepend(Note::HISTORY, &["imported".to_owned()])
        .insert_into(Note::LABELS, &["b".to_owned(), "c".to_owned()].into())
        .set_if_absent(Note::PINNED, &Some(true))
        .subtract(Note::SCORE, &7)
        .add(Note::VIEWS, &3)
        .set(Note::TITLE, &"renamed".to_owned())
        .send()
        .await;
    // Two actions on one attribute: DynamoDB would reject the request; caught before sending.
    assert_eq!(
        after.unwrap_err().to_string(),
        "invalid request: this update of Note changes `history` twice; DynamoDB refuses two actions on one attribute"
    );

    let after = table
        .update(key())
        .append(Note::HISTORY, &["edited".to_owned()])
        .insert_into(Note::LABELS, &["b".to_owned(), "c".to_owned()].into())
        .set_if_absent(Note::PINNED, &Some(true))
        .subtract(Note::SCORE, &7)
        .add(Note::VIEWS, &3)
        .set(Note::TITLE, &"renamed".to_owned())
        .send()
        .await
        .unwrap();
    let expected = Note {
        score: -2,
        title: "renamed".into(),
        labels: ["a".to_owned(), "b".to_owned(), "c".to_owned()].into(),
        history: vec!["created".into(), "edited".into()],
        pinned: Some(true),
        views: 3,
        ..n.clone()
    };
    assert_eq!(after, expected);
    // GSI1SK follows the score.
    let item = common::raw_item(&table, "NOTE#n1", "META").await.unwrap();
    assert_eq!(item["GSI1SK"], AttributeValue::N("-2".into()));
    assert_eq!(item["data.status-v2"], AttributeValue::S("odd".into()));

    let before = table
        .update(key())
        .prepend(Note::HISTORY, &["imported".to_owned()])
        .delete_from(Note::LABELS, &["a".to_owned(), "zzz".to_owned()].into())
        .set_if_absent(Note::PINNED, &Some(false))
        .remove(Note::PINNED)
        .send_returning_old()
        .await;
    assert_eq!(
        before.unwrap_err().to_string(),
        "invalid request: this update of Note changes `pinned` twice; DynamoDB refuses two actions on one attribute"
    );

    let before = table
        .update(key())
        .prepend(Note::HISTORY, &["imported".to_owned()])
        .delete_from(Note::LABELS, &["a".to_owned(), "zzz".to_owned()].into())
        .remove(Note::PINNED)
        .send_returning_old()
        .await
        .unwrap();
    assert_eq!(before, expected);
    let now = table.get(key()).await.unwrap().unwrap();
    assert_eq!(now.history, vec!["imported".to_owned(), "created".into(), "edited".into()]);
    assert_eq!(now.labels, ["b".to_owned(), "c".to_owned()].into());
    assert_eq!(now.pinned, None);

    // Deleting the last elements removes the attribute; it reads back as an empty set.
    let emptied = table
        .update(key())
        .delete_from(Note::LABELS, &["b".to_owned(), "c".to_owned()].into())
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(emptied.labels, BTreeSet::new());

    // set_if_absent on a GSI key field is refused before sending.
    let err = table.update(key()).set_if_absent(Note::SCORE, &1).send().await.unwrap_err();
    assert_eq!(err.to_string(), "invalid request: Note.score is part of a GSI key; set it instead of set_if_absent");
    let err = table.update(key()).send().await.unwrap_err();
    assert_eq!(err.to_string(), "invalid request: an update of Note must change at least one field");
}

#[tokio::test]
async fn replace_requires_the_item() {
    let table = common::table("replace", &[Note::schema()]).await;
    let err = table.replace(&note("n1", 1)).await.unwrap_err();
    assert!(matches!(err, Error::NotFound { entity: "Note", ref key } if key == "PK=NOTE#n1 SK=META"), "{err:?}");
    assert_eq!(table.get(Note::key("n1")).await.unwrap(), None);
    table.put(&note("n1", 1)).await.unwrap();
    let old = table.replace(&note("n1", 2)).await.unwrap();
    assert_eq!(old, note("n1", 1));
    assert_eq!(table.get(Note::key("n1")).await.unwrap(), Some(note("n1", 2)));
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "BOOK#<id>", sk = "META", gsi1 = "SHELF#<shelf>", gsi1_sk = "<borrowed_at>")]
struct Loan {
    id: String,
    shelf: Option<String>,
    borrowed_at: Option<dynamo_entity::Timestamp>,
    copies: u8,
    stock: u32,
}

fn loan() -> Loan {
    Loan {
        id: "b1".into(),
        shelf: Some("A".into()),
        borrowed_at: Some(dynamo_entity::Timestamp::parse("2025-06-01T00:00:00.000Z").unwrap()),
        copies: 250,
        stock: 2,
    }
}

#[tokio::test]
async fn a_none_part_removes_the_gsi_keys_without_the_other_parts() {
    let table = common::table("none_part", &[Loan::schema()]).await;
    table.put(&loan()).await.unwrap();
    assert_eq!(table.query(Loan::gsi1("A")).all().await.unwrap().len(), 1);
    // Returning the book: only borrowed_at is known, and that is enough to leave the index.
    let back = table.update(Loan::key("b1")).set(Loan::BORROWED_AT, &None).send().await.unwrap();
    assert_eq!(back, Loan { borrowed_at: None, ..loan() });
    let item = common::raw_item(&table, "BOOK#b1", "META").await.unwrap();
    assert!(!item.contains_key("GSI1PK") && !item.contains_key("GSI1SK"), "{item:?}");
    assert_eq!(table.query(Loan::gsi1("A")).all().await.unwrap(), vec![]);
    // Comparing with None means "absent".
    let found = table.update(Loan::key("b1")).set(Loan::STOCK, &3).condition(Loan::BORROWED_AT.eq(&None)).send().await;
    assert_eq!(found.unwrap().unwrap().stock, 3);
    let err = table
        .update(Loan::key("b1"))
        .set(Loan::STOCK, &4)
        .condition(Loan::BORROWED_AT.ne(&None))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");
}

#[tokio::test]
async fn counters_stay_within_their_type() {
    let table = common::table("counters", &[Loan::schema()]).await;
    table.put(&loan()).await.unwrap();
    let err = table.update(Loan::key("b1")).add(Loan::COPIES, &10).send().await.unwrap_err();
    assert_eq!(err.to_string(), "Loan PK=BOOK#b1 SK=META: copies = 250 + 10 would leave the field's range");
    let err = table.update(Loan::key("b1")).subtract(Loan::STOCK, &3).send().await.unwrap_err();
    assert!(
        matches!(&err, Error::OutOfRange { field: "stock", stored, op: '-', amount, .. } if stored == "2" && amount == "3"),
        "{err:?}"
    );
    assert_eq!(table.get(Loan::key("b1")).await.unwrap(), Some(loan()), "nothing changed");
    let ok =
        table.update(Loan::key("b1")).add(Loan::COPIES, &5).subtract(Loan::STOCK, &2).send().await.unwrap().unwrap();
    assert_eq!((ok.copies, ok.stock), (255, 0));
    // Two actions on one field are caught before sending.
    let err = table.update(Loan::key("b1")).add(Loan::STOCK, &1).set(Loan::STOCK, &9).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: this update of Loan changes `stock` twice; DynamoDB refuses two actions on one attribute"
    );
}

#[tokio::test]
async fn updates_and_deletes_never_touch_another_entitys_item() {
    let table = common::table("other_entity", &[Loan::schema()]).await;
    // A Note stored under the key a Loan would use.
    let mut item = note("x", 1).to_item().unwrap();
    item.insert("PK".into(), AttributeValue::S("BOOK#b1".into()));
    item.remove("GSI1PK");
    item.remove("GSI1SK");
    table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    let err = table.update(Loan::key("b1")).set(Loan::STOCK, &1).send().await.unwrap_err();
    assert_eq!(err.to_string(), "item PK=BOOK#b1 SK=META has entity type Note, expected Loan");
    let err = table.delete(Loan::key("b1")).await.unwrap_err();
    assert_eq!(err.to_string(), "item PK=BOOK#b1 SK=META has entity type Note, expected Loan");
    let err = table.put(&loan()).await.unwrap_err();
    assert_eq!(err.to_string(), "item PK=BOOK#b1 SK=META has entity type Note, expected Loan");
    assert_eq!(common::raw_item(&table, "BOOK#b1", "META").await.unwrap(), item, "unchanged");
    // Where there is no item, or one of this entity, put and delete work as ever.
    table.put(&Loan { id: "b2".into(), ..loan() }).await.unwrap();
    table.put(&Loan { id: "b2".into(), stock: 9, ..loan() }).await.unwrap();
    assert_eq!(table.delete(Loan::key("b2")).await.unwrap(), Some(Loan { id: "b2".into(), stock: 9, ..loan() }));
    assert_eq!(table.delete(Loan::key("b2")).await.unwrap(), None);
}

#[tokio::test]
async fn items_over_400_kb_are_refused_before_sending() {
    let table = common::table("item_size", &[Note::schema()]).await;
    let mut big = note("big", 1);
    // Everything but the title comes to a fixed size, and the write history the put adds
    // (`_w1`, 19 bytes) counts too; make the item exactly 1 byte too large.
    let base = dynamo_entity::value::size::item_size(&big.to_item().unwrap()) - big.title.len();
    big.title = "x".repeat(409_600 - base - 19 + 1);
    let err = table.put(&big).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Note PK=NOTE#big SK=META is 409601 bytes, 1 over DynamoDB's item size limit of 409600 bytes"
    );
    big.title.pop();
    table.put(&big).await.unwrap();
    assert_eq!(table.get(Note::key("big")).await.unwrap().map(|n| n.title.len()), Some(big.title.len()));
}

#[tokio::test]
async fn cursors_and_ranges_are_checked_before_sending() {
    let table = common::table("cursor_scope", &[Note::schema()]).await;
    for i in 0..6 {
        table.put(&note(&format!("n{i}"), i)).await.unwrap();
    }
    let page = table.query(Note::gsi1("o")).page_items(2).send().await.unwrap();
    let cursor = page.cursor.unwrap();
    let err = table.query(Note::gsi1("o")).descending().page_items(2).after(cursor.clone()).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid cursor: it belongs to a query of Note on GSI1 partition S:OWNER#o with another sort order or sort-key condition"
    );
    let err = table.query(Note::gsi1("o")).sk_ge(&3).after(cursor.clone()).send().await.unwrap_err();
    assert!(matches!(err, Error::Cursor { .. }), "{err:?}");
    let next = table.query(Note::gsi1("o")).page_items(2).after(cursor).send().await.unwrap();
    assert_eq!(next.items.iter().map(|n| n.score).collect::<Vec<_>>(), vec![2, 3]);

    let err = table.query(Note::gsi1("o")).sk_between(&5, &1).all().await.unwrap_err();
    assert_eq!(err.to_string(), "invalid request: sk_between: the low bound sorts after the high bound");
    let err = table.query(Note::gsi1("o")).sk_gt(()).all().await.unwrap_err();
    assert_eq!(err.to_string(), "invalid request: a sort-key range (>) needs at least one part of `<score>`");
}

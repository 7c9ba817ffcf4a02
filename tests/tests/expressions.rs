//! Condition expressions, query filters and every update action, against DynamoDB Local.

mod common;

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
    assert_eq!(ids(q().filter(Note::SCORE.gt(&6).not()).limit(3).send().await.unwrap().items), vec![0, 1, 2]);
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
    // list_append twice on one attribute is one path used twice: DynamoDB rejects it.
    assert!(matches!(after, Err(Error::Sdk { .. })), "{after:?}");

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
    // set_if_absent and remove on one attribute overlap: DynamoDB rejects the request.
    assert!(matches!(before, Err(Error::Sdk { .. })), "{before:?}");

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
    let emptied =
        table.update(key()).delete_from(Note::LABELS, &["b".to_owned(), "c".to_owned()].into()).send().await.unwrap();
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

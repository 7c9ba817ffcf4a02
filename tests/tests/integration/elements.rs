//! Updates and conditions on one part of a collection field: `HashSet` elements, map entries,
//! list elements; and a bare first part as a partial sort-key argument.

use crate::common;

use std::collections::{BTreeMap, HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::limits::Limit;
use dynamo_entity::value::ValueError;
use dynamo_entity::{Entity, Error};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "BOARD#<id>", sk = "META")]
struct Board {
    id: String,
    tags: HashSet<String>,
    scores: HashSet<u32>,
    limits: HashMap<String, u32>,
    notes: BTreeMap<String, Option<String>>,
    lanes: Vec<String>,
    logo: Vec<u8>,
}

fn board() -> Board {
    Board {
        id: "b1".into(),
        tags: ["red".to_owned()].into(),
        scores: HashSet::new(),
        limits: [("api".to_owned(), 100), ("a.b#c".to_owned(), 1)].into(),
        notes: BTreeMap::new(),
        lanes: vec!["todo".into(), "doing".into(), "done".into()],
        logo: vec![1, 2],
    }
}

#[tokio::test]
async fn hash_set_elements_are_added_and_deleted() {
    let table = common::table("elements_sets", &[Board::schema()]).await;
    table.create(&board()).await.unwrap();
    let b = table
        .update(Board::key("b1"))
        .insert_into(Board::TAGS, &["blue".to_owned(), "green".to_owned()].into())
        .insert_into(Board::SCORES, &[7, 9].into())
        .send()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(b.tags, ["red".to_owned(), "blue".to_owned(), "green".to_owned()].into());
    assert_eq!(b.scores, [7, 9].into());
    let b = table
        .update(Board::key("b1"))
        .delete_from(Board::TAGS, &["red".to_owned(), "absent".to_owned()].into())
        .delete_from(Board::SCORES, &[7, 9].into())
        .send()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(b.tags, ["blue".to_owned(), "green".to_owned()].into());
    // The last element deleted: no attribute, read back as an empty set.
    assert_eq!(b.scores, HashSet::new());
    let raw = common::raw_item(&table, "BOARD#b1", "META").await.unwrap();
    assert_eq!(raw.get("scores"), None);
}

#[tokio::test]
async fn map_entries_are_set_removed_and_compared_one_by_one() {
    let table = common::table("elements_maps", &[Board::schema()]).await;
    table.create(&board()).await.unwrap();
    let b = table
        .update(Board::key("b1"))
        .set_entry(Board::LIMITS, "api", &250)
        .set_entry(Board::LIMITS, "new key", &3)
        .remove_entry(Board::LIMITS, "a.b#c")
        .set_entry(Board::NOTES, "x", &Some("kept".to_owned()))
        .condition(Board::LIMITS.entry("api").eq(&100))
        .condition(Board::LIMITS.entry("a.b#c").exists())
        .condition(Board::LIMITS.entry("missing").not_exists())
        .send()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(b.limits, [("api".to_owned(), 250), ("new key".to_owned(), 3)].into());
    assert_eq!(b.notes, [("x".to_owned(), Some("kept".to_owned()))].into());
    // A None value removes the entry, as a whole-map write leaves it out.
    let b = table.update(Board::key("b1")).set_entry(Board::NOTES, "x", &None).send().await.unwrap().ok().unwrap();
    assert_eq!(b.notes, BTreeMap::new());
    // A condition on an entry that does not hold: nothing changes.
    let err = table
        .update(Board::key("b1"))
        .set_entry(Board::LIMITS, "api", &1)
        .condition(Board::LIMITS.entry("api").lt(&250))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(&err, Error::ConditionFailed { entity: "Board", key } if key == "PK=BOARD#b1 SK=META"), "{err:?}");
    assert_eq!(table.get(Board::key("b1")).await.unwrap().unwrap().limits["api"], 250);

    // The path is written with a placeholder for the field and for the key.
    let request = table.update(Board::key("b1")).set_entry(Board::LIMITS, "a.b#c", &5).render().unwrap();
    let names = request.expression_attribute_names().unwrap();
    let text = request.update_expression().unwrap();
    let field = names.iter().find(|(_, v)| v.as_str() == "limits").unwrap().0;
    let key = names.iter().find(|(_, v)| v.as_str() == "a.b#c").unwrap().0;
    let value =
        request.expression_attribute_values().unwrap().iter().find(|(_, v)| **v == AttributeValue::N("5".into()));
    assert_eq!(text, format!("SET {field}.{key} = {}", value.unwrap().0));
}

#[tokio::test]
async fn list_elements_are_replaced_removed_and_compared() {
    let table = common::table("elements_lists", &[Board::schema()]).await;
    table.create(&board()).await.unwrap();
    let b = table
        .update(Board::key("b1"))
        .set_element(Board::LANES, 1, &"in progress".to_owned())
        .condition(Board::LANES.element(1).eq(&"doing".to_owned()))
        .condition(Board::LANES.element(5).not_exists())
        .send()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(b.lanes, ["todo", "in progress", "done"]);
    let b = table.update(Board::key("b1")).remove_element(Board::LANES, 0).send().await.unwrap().ok().unwrap();
    assert_eq!(b.lanes, ["in progress", "done"]);
    // Past the end: DynamoDB alone would append; the size guard refuses it instead.
    let err = table.update(Board::key("b1")).set_element(Board::LANES, 2, &"late".to_owned()).send().await.unwrap_err();
    assert!(matches!(&err, Error::ConditionFailed { entity: "Board", .. }), "{err:?}");
    assert_eq!(table.get(Board::key("b1")).await.unwrap().unwrap().lanes, ["in progress", "done"]);
    // Removing past the end removes nothing.
    let b = table.update(Board::key("b1")).remove_element(Board::LANES, 9).send().await.unwrap().ok().unwrap();
    assert_eq!(b.lanes, ["in progress", "done"]);
}

#[tokio::test]
async fn parts_of_fields_are_checked_before_sending() {
    let table = common::table("elements_checks", &[Board::schema()]).await;
    // An empty map key: DynamoDB requires non-empty names.
    let err = table.update(Board::key("b1")).set_entry(Board::LIMITS, "", &1).render().unwrap_err();
    assert!(
        matches!(&err, Error::Encode { entity: "Board", field: "limits", source: ValueError::NotRepresentable { value, .. }, .. }
            if value == "the map key \"\""),
        "{err:?}"
    );
    let err = table
        .update(Board::key("b1"))
        .set_entry(Board::LIMITS, "a", &1)
        .condition(Board::LIMITS.entry("").exists())
        .render()
        .unwrap_err();
    assert!(matches!(&err, Error::Encode { field: "limits", .. }), "{err:?}");
    // `Vec<u8>` is binary, not a list.
    let err = table.update(Board::key("b1")).set_element(Board::LOGO, 0, &7).render().unwrap_err();
    assert!(
        matches!(&err, Error::Encode { field: "logo", source: ValueError::Invalid(m), .. }
            if m == "`logo` is binary (B), not a list: it has no elements to update"),
        "{err:?}"
    );
    // One path twice, or a field and one of its parts: DynamoDB refuses overlapping paths.
    let err = table
        .update(Board::key("b1"))
        .set_entry(Board::LIMITS, "a", &1)
        .remove_entry(Board::LIMITS, "a")
        .render()
        .unwrap_err();
    assert!(
        matches!(&err, Error::Invalid { reason } if reason == "this update of Board changes `limits`[\"a\"] twice; DynamoDB refuses two actions on one attribute"),
        "{err:?}"
    );
    let err = table
        .update(Board::key("b1"))
        .set(Board::LIMITS, &HashMap::new())
        .set_entry(Board::LIMITS, "a", &1)
        .render()
        .unwrap_err();
    assert!(
        matches!(&err, Error::Invalid { reason } if reason.starts_with("this update of Board changes `limits`[\"a\"] twice")),
        "{err:?}"
    );
    // Two entries of one map are two paths.
    table
        .update(Board::key("b1"))
        .set_entry(Board::LIMITS, "a", &1)
        .set_entry(Board::LIMITS, "b", &2)
        .render()
        .unwrap();
    // DynamoDB's 4 KB limit on the update expression, checked when the request is built.
    let mut update = table.update(Board::key("b1"));
    for i in 0..400 {
        update = update.set_entry(Board::LIMITS, &format!("k{i}"), &i);
    }
    let err = update.render().unwrap_err();
    assert!(
        matches!(&err, Error::LimitExceeded { limit: Limit::ExpressionLength, part, max: 4096, operation: "UpdateItem", .. }
            if part == "UpdateExpression"),
        "{err:?}"
    );
}

/// Events by day and sequence: a two-part sort key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "LOG#<log>", sk = "E#<day>#<seq>")]
struct Entry {
    log: String,
    day: String,
    seq: u32,
}

#[tokio::test]
async fn a_bare_first_part_is_a_partial_sort_key() {
    let table = common::table("elements_bare_sk", &[Entry::schema()]).await;
    let entries: Vec<Entry> = [("2024-01-01", 1), ("2024-01-01", 2), ("2024-01-02", 1), ("2024-01-010", 1)]
        .into_iter()
        .map(|(day, seq)| Entry { log: "l".into(), day: day.into(), seq })
        .collect();
    table.batch_put(&entries).await.unwrap().check().unwrap();
    let bare = table.query(Entry::query("l")).sk_begins_with("2024-01-01").all().await.unwrap();
    let tuple = table.query(Entry::query("l")).sk_begins_with(("2024-01-01",)).all().await.unwrap();
    // `2024-01-010` is another day: the prefix ends at a delimiter.
    assert_eq!(bare, entries[..2].to_vec());
    assert_eq!(bare, tuple);
    let after = table.query(Entry::query("l")).sk_gt("2024-01-01").all().await.unwrap();
    assert_eq!(after, [entries[3].clone(), entries[2].clone()]);
    let between = table.query(Entry::query("l")).sk_between("2024-01-01", ("2024-01-02", &1)).all().await.unwrap();
    // `2024-01-010` sorts between the two days.
    assert_eq!(between, [entries[0].clone(), entries[1].clone(), entries[3].clone(), entries[2].clone()]);
}

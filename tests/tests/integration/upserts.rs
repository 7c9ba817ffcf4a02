//! Upserts (`Table::upsert`, `Table::increment`): updates that create the item when it is
//! absent, with index keys, versions and unique fields, against DynamoDB Local.

use crate::common;
use dynamo_entity_local::Divergence;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::error::Returned;
use dynamo_entity::{Entity, Error, Timestamp};

/// A counter whose only other field is the count.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUNTER#<name>", sk = "TOTAL")]
struct PageViews {
    name: String,
    count: u64,
}

/// An entity with a GSI built from a field the upsert gives only to a new item, and one built
/// from a counter.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "PLAYER#<id>",
    sk = "STATS",
    gsi1 = "LEAGUE#<league>",
    gsi1_sk = "<points>",
    gsi2 = "ALL",
    gsi2_sk = "<id>"
)]
struct Player {
    id: String,
    league: String,
    points: u32,
    motto: Option<String>,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Doc {
    id: String,
    views: u32,
    #[entity(version)]
    version: u64,
    #[entity(created_at)]
    created_at: Timestamp,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct Account {
    id: String,
    #[entity(unique)]
    email: String,
    logins: u32,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct Visitor {
    id: String,
    #[entity(unique)]
    handle: Option<String>,
    visits: u32,
}

/// A GSI with an optional part: a new item's key from `set_if_absent` could go stale.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CARD#<id>", sk = "META", gsi1 = "DECK#<deck>", gsi1_sk = "<slot>")]
struct Card {
    id: String,
    deck: String,
    slot: Option<u32>,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}
fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

#[tokio::test]
async fn concurrent_increments_of_an_absent_counter_count_every_one() {
    let table = common::table("upsert_counter", &[PageViews::schema()]).await;
    const N: u64 = 24;
    let tasks: Vec<_> = (0..N)
        .map(|_| {
            let table = table.clone();
            tokio::spawn(async move {
                table
                    .increment(PageViews::key("home"), PageViews::COUNT, 1)
                    .send()
                    .await
                    .unwrap()
                    .into_result()
                    .unwrap()
            })
        })
        .collect();
    let mut seen = Vec::new();
    for t in tasks {
        seen.push(t.await.unwrap().count);
    }
    seen.sort_unstable();
    // Every increment saw its own count: no two created the item, none was lost.
    assert_eq!(seen, (1..=N).collect::<Vec<_>>());
    let stored = table.get(PageViews::key("home")).await.unwrap().unwrap();
    assert_eq!(stored, PageViews { name: "home".into(), count: N });
    let raw = common::raw_item(&table, "COUNTER#home", "TOTAL").await.unwrap();
    assert_eq!(
        raw,
        [
            ("PK", s("COUNTER#home")),
            ("SK", s("TOTAL")),
            ("_type", s("PageViews")),
            ("name", s("home")),
            ("count", n(&N.to_string())),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect()
    );
    // An increment by more, chained with nothing else; and a decrement.
    let after = table.increment(PageViews::key("home"), PageViews::COUNT, 10).send().await.unwrap().ok().unwrap();
    assert_eq!(after.count, N + 10);
    let down = table.upsert(PageViews::key("home")).subtract(PageViews::COUNT, &4).send().await.unwrap().ok().unwrap();
    assert_eq!(down.count, N + 6);
}

#[tokio::test]
async fn an_upsert_writes_the_index_keys_of_a_new_item_and_keeps_those_of_an_existing_one() {
    let table = common::table("upsert_indexes", &[Player::schema()]).await;
    let first = table
        .upsert(Player::key("p1"))
        .set_if_absent(Player::LEAGUE, &"gold".to_owned())
        .add(Player::POINTS, &3)
        .send_returning_old()
        .await
        .unwrap();
    // Nothing was there before: `ALL_OLD` returns no attributes
    // (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/WorkingWithItems.html#WorkingWithItems.ReturnValues).
    if common::diverges(Divergence::AllOldOfAbsentItemIsItsKey).await {
        let Returned::Undecodable(e) = first else { panic!("{first:?}") };
        assert_eq!(e.item, [("PK", s("PLAYER#p1")), ("SK", s("STATS"))].map(|(k, v)| (k.to_owned(), v)).into());
    } else {
        assert_eq!(first.ok(), Some(None));
    }
    let raw = common::raw_item(&table, "PLAYER#p1", "STATS").await.unwrap();
    let expected: dynamo_entity::Item = [
        ("PK", s("PLAYER#p1")),
        ("SK", s("STATS")),
        ("_type", s("Player")),
        ("id", s("p1")),
        ("league", s("gold")),
        ("points", n("3")),
        ("GSI1PK", s("LEAGUE#gold")),
        ("GSI1SK", n("3")),
        ("GSI2PK", s("ALL")),
        ("GSI2SK", s("p1")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(raw, expected);

    // The existing item keeps its league (and its GSI1 partition); its points move GSI1SK.
    let second = table
        .upsert(Player::key("p1"))
        .set_if_absent(Player::LEAGUE, &"silver".to_owned())
        .add(Player::POINTS, &4)
        .set(Player::MOTTO, &Some("onwards".to_owned()))
        .send_returning_old()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(second, Some(Player { id: "p1".into(), league: "gold".into(), points: 3, motto: None }));
    let in_gold = table.query(Player::gsi1("gold")).all().await.unwrap();
    assert_eq!(in_gold, [Player { id: "p1".into(), league: "gold".into(), points: 7, motto: Some("onwards".into()) }]);
    assert_eq!(table.query(Player::gsi1("silver")).all().await.unwrap(), []);
    let raw = common::raw_item(&table, "PLAYER#p1", "STATS").await.unwrap();
    assert_eq!(raw.get("GSI1SK"), Some(&n("7")));
    assert_eq!(raw.len(), expected.len() + 1);

    // The request: every attribute of the new item that the update does not write itself is
    // written `if_not_exists`, in attribute order; the item may be absent or a Player.
    let request = table
        .upsert(Player::key("p2"))
        .set_if_absent(Player::LEAGUE, &"gold".to_owned())
        .add(Player::POINTS, &1)
        .render()
        .unwrap();
    let names = request.expression_attribute_names().unwrap();
    let name_of = |p: &str| names[p].clone();
    let values = request.expression_attribute_values().unwrap();
    let mut text = request.update_expression().unwrap().to_owned();
    let mut placeholders: Vec<&String> = names.keys().chain(values.keys()).collect();
    // Longest first, so that `#n10` is not read as `#n1` and `0`.
    placeholders.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for p in placeholders {
        let shown = match names.get(p) {
            Some(name) => name.clone(),
            None => match &values[p] {
                AttributeValue::S(v) => format!("'{v}'"),
                AttributeValue::N(v) => v.clone(),
                other => format!("{other:?}"),
            },
        };
        text = text.replace(p.as_str(), &shown);
    }
    assert_eq!(
        text,
        "SET league = if_not_exists(league, 'gold'), points = if_not_exists(points, 0) + 1, \
         GSI1SK = if_not_exists(points, 0) + 1, GSI1PK = if_not_exists(GSI1PK, 'LEAGUE#gold'), \
         GSI2PK = if_not_exists(GSI2PK, 'ALL'), GSI2SK = if_not_exists(GSI2SK, 'p2'), \
         _type = if_not_exists(_type, 'Player'), id = if_not_exists(id, 'p2')"
    );
    let condition = request.condition_expression().unwrap();
    let pk = names.iter().find(|(_, v)| v.as_str() == "PK").unwrap().0;
    let ty = names.iter().find(|(_, v)| v.as_str() == "_type").unwrap().0;
    assert!(condition.starts_with(&format!("(attribute_not_exists({pk}) OR {ty} = :v")), "{condition}");
    assert_eq!(name_of(pk), "PK");
}

#[tokio::test]
async fn an_upsert_refuses_what_it_cannot_create_or_guard() {
    let table =
        common::table("upsert_refusals", &[Player::schema(), Account::schema(), Card::schema(), PageViews::schema()])
            .await;
    // A new Player needs a league: the upsert cannot create one, so it changes an existing
    // Player only. None is there: `CannotCreate`, naming the field, and nothing written.
    let request = table.upsert(Player::key("p1")).add(Player::POINTS, &1).render().unwrap();
    assert!(request.condition_expression().unwrap().starts_with("attribute_exists("), "{request:?}");
    assert!(!request.update_expression().unwrap().contains("if_not_exists(league"), "{request:?}");
    let err = table.upsert(Player::key("p1")).add(Player::POINTS, &1).send().await.unwrap_err();
    let Error::CannotCreate { entity: "Player", key, reason } = &err else { panic!("{err:?}") };
    assert_eq!(key, "PK=PLAYER#p1 SK=STATS");
    assert!(reason.starts_with("the item it would create is not a valid Player: "), "{reason}");
    assert!(reason.contains("league"), "{reason}");
    assert!(reason.ends_with("give every field that is not an Option a value (set, set_if_absent, add)"), "{reason}");
    assert_eq!(common::raw_item(&table, "PLAYER#p1", "STATS").await, None);
    // An existing Player: the increment needs only the field it writes, and keeps the GSI sort
    // key built from it in step.
    let p1 = Player { id: "p1".into(), league: "gold".into(), points: 4, motto: None };
    table.put(&p1).await.unwrap();
    let after = table.increment(Player::key("p1"), Player::POINTS, 3).send().await.unwrap().ok().unwrap();
    assert_eq!(after, Player { points: 7, ..p1.clone() });
    let raw = common::raw_item(&table, "PLAYER#p1", "STATS").await.unwrap();
    assert_eq!(raw["GSI1SK"], AttributeValue::N("7".to_owned()));
    assert_eq!(raw["GSI1PK"], AttributeValue::S("LEAGUE#gold".to_owned()));
    // A field of an index key with an optional part, given only for a new item: an existing
    // item's key could not be kept right. Refused as for every update.
    let err = table.upsert(Card::key("c1")).set_if_absent(Card::DECK, &"d".to_owned()).render().unwrap_err();
    assert!(
        matches!(&err, Error::Invalid { reason } if reason == "Card.deck is part of a GSI key; set it instead of set_if_absent"),
        "{err:?}"
    );
    // Set with the index's other field, it is fine: the new item is out of the sparse GSI1.
    let card = table
        .upsert(Card::key("c1"))
        .set(Card::DECK, &"d".to_owned())
        .set(Card::SLOT, &None)
        .send()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(card, Card { id: "c1".into(), deck: "d".into(), slot: None });
    // Subtracting from an absent unsigned counter would go below zero: the range guard refuses,
    // reported as the out-of-range subtraction from 0 it is.
    let err = table.upsert(PageViews::key("p")).subtract(PageViews::COUNT, &1).send().await.unwrap_err();
    assert_eq!(err.to_string(), "PageViews PK=COUNTER#p SK=TOTAL: count = 0 - 1 would leave the field's range");
    assert!(
        matches!(&err, Error::OutOfRange { entity: "PageViews", key, field: "count", stored, op: '-', amount }
            if key == "PK=COUNTER#p SK=TOTAL" && stored == "0" && amount == "1"),
        "{err:?}"
    );
    assert_eq!(table.get(PageViews::key("p")).await.unwrap(), None);
    // A unique field that is not an Option: no upsert can give it a value, so the increment
    // cannot create the item (it would have no guard item); it changes an existing one only.
    let err = table.increment(Account::key("a1"), Account::LOGINS, 1).send().await.unwrap_err();
    let Error::CannotCreate { entity: "Account", key, reason } = &err else { panic!("{err:?}") };
    assert_eq!(key, "PK=USER#a1 SK=PROFILE");
    assert!(reason.contains("email"), "{reason}");
    // Only the player (put above) and the card were written.
    assert_eq!(common::scan_all(&table).await.len(), 2);
    // An existing Account: the increment needs only `logins`; its guard item stays as it is.
    table.create(&Account { id: "a1".into(), email: "a1@example.test".into(), logins: 2 }).await.unwrap();
    let before = common::scan_all(&table).await.len();
    let after = table.increment(Account::key("a1"), Account::LOGINS, 1).send().await.unwrap().ok().unwrap();
    assert_eq!(after, Account { id: "a1".into(), email: "a1@example.test".into(), logins: 3 });
    assert_eq!(common::scan_all(&table).await.len(), before);

    // Another entity's item under the same key is not taken over.
    let visitor_table = common::table("upsert_other_entity", &[Visitor::schema(), Account::schema()]).await;
    visitor_table.create(&Account { id: "u1".into(), email: "u1@example.test".into(), logins: 0 }).await.unwrap();
    let before = common::scan_all(&visitor_table).await;
    let err = visitor_table.increment(Visitor::key("u1"), Visitor::VISITS, 1).send().await.unwrap_err();
    assert!(
        matches!(&err, Error::WrongEntity { expected: "Visitor", found: Some(found), key }
            if found == "Account" && key == "PK=USER#u1 SK=PROFILE"),
        "{err:?}"
    );
    assert_eq!(common::scan_all(&visitor_table).await.len(), before.len());
}

#[tokio::test]
async fn an_upsert_of_an_entity_with_an_optional_unique_field_creates_no_guard() {
    let table = common::table("upsert_optional_unique", &[Visitor::schema()]).await;
    let v = table.increment(Visitor::key("v1"), Visitor::VISITS, 2).send().await.unwrap().ok().unwrap();
    assert_eq!(v, Visitor { id: "v1".into(), handle: None, visits: 2 });
    // The one item, no guard item.
    let items = common::scan_all(&table).await;
    assert_eq!(items.len(), 1);
    assert_eq!(items[0]["PK"], s("USER#v1"));
}

#[tokio::test]
async fn an_upsert_of_a_versioned_entity_checks_and_bumps_the_version() {
    let table = common::table("upsert_versioned", &[Doc::schema()]).await;
    // The version must be said, as for every update.
    let err = table.upsert(Doc::key("d1")).add(Doc::VIEWS, &1).send().await.unwrap_err();
    assert!(
        matches!(&err, Error::Invalid { reason } if reason.starts_with("Doc is versioned for optimistic locking (field `version`)")),
        "{err:?}"
    );
    // Version 0: no item yet. The new item is at version 1, with its creation time.
    let before = Timestamp::now();
    let d = table.upsert(Doc::key("d1")).add(Doc::VIEWS, &1).if_version(0).send().await.unwrap().ok().unwrap();
    assert_eq!((d.id.as_str(), d.views, d.version), ("d1", 1, 1));
    assert!(d.created_at >= before, "{:?} < {before:?}", d.created_at);
    // Version 0 again: the item is now at 1.
    let err = table.upsert(Doc::key("d1")).add(Doc::VIEWS, &1).if_version(0).send().await.unwrap_err();
    assert!(matches!(err, Error::VersionConflict { entity: "Doc", expected: 0, found: Some(1), .. }), "{err:?}");
    let d2 = table.upsert(Doc::key("d1")).add(Doc::VIEWS, &1).if_version(1).send().await.unwrap().ok().unwrap();
    assert_eq!((d2.views, d2.version, d2.created_at), (2, 2, d.created_at));
    // The counter call takes any version.
    let d3 = table.increment(Doc::key("d1"), Doc::VIEWS, 5).send().await.unwrap().ok().unwrap();
    assert_eq!((d3.views, d3.version, d3.created_at), (7, 3, d.created_at));
    // A version above 0 requires the item.
    let err = table.upsert(Doc::key("d2")).add(Doc::VIEWS, &1).if_version(3).send().await.unwrap_err();
    assert!(
        matches!(&err, Error::VersionConflict { entity: "Doc", expected: 3, found: None, key } if key == "PK=DOC#d2 SK=META"),
        "{err:?}"
    );
    assert_eq!(table.get(Doc::key("d2")).await.unwrap(), None);
}

#[tokio::test]
async fn an_upsert_condition_holds_on_the_absent_item_or_the_stored_one() {
    let table = common::table("upsert_condition", &[Player::schema()]).await;
    let gold = "gold".to_owned();
    // `not_exists` holds on an absent item: created.
    let p = table
        .upsert(Player::key("p1"))
        .set_if_absent(Player::LEAGUE, &gold)
        .add(Player::POINTS, &1)
        .condition(Player::MOTTO.not_exists())
        .send()
        .await
        .unwrap()
        .ok()
        .unwrap();
    assert_eq!(p.points, 1);
    // A comparison with an absent attribute is false: refused, nothing created.
    let err = table
        .upsert(Player::key("p2"))
        .set_if_absent(Player::LEAGUE, &gold)
        .add(Player::POINTS, &1)
        .condition(Player::POINTS.gt(&0))
        .send()
        .await
        .unwrap_err();
    assert!(
        matches!(&err, Error::ConditionFailed { entity: "Player", key } if key == "PK=PLAYER#p2 SK=STATS"),
        "{err:?}"
    );
    assert_eq!(table.get(Player::key("p2")).await.unwrap(), None);
    let by_league: BTreeMap<String, u32> =
        table.query(Player::gsi1("gold")).all().await.unwrap().into_iter().map(|p| (p.id, p.points)).collect();
    assert_eq!(by_league, [("p1".to_owned(), 1)].into());
}

/// Version 1 of a versioned counter: a label every item had.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "METER#<id>", sk = "META", name = "Meter", schema(version = 1))]
struct MeterV1 {
    id: String,
    label: String,
    hits: u64,
}

/// Version 2, the struct the program uses: the label became optional.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "METER#<id>", sk = "META", schema(version = 2, from = MeterV1))]
struct Meter {
    id: String,
    label: Option<String>,
    hits: u64,
}

impl From<MeterV1> for Meter {
    fn from(v1: MeterV1) -> Meter {
        Meter { id: v1.id, label: Some(v1.label), hits: v1.hits }
    }
}

fn item_of(pairs: &[(&str, AttributeValue)]) -> dynamo_entity::Item {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
}

#[tokio::test]
async fn an_upsert_of_a_versioned_schema_stamps_its_version_and_refuses_an_older_item() {
    let table = common::table("upsert_schema_version", &[Meter::schema()]).await;

    // A new item is stamped with the struct's own version, 2.
    let created = table.increment(Meter::key("a"), Meter::HITS, 5).send().await.unwrap().ok().unwrap();
    assert_eq!(created, Meter { id: "a".into(), label: None, hits: 5 });
    let raw = common::raw_item(&table, "METER#a", "META").await.unwrap();
    assert_eq!(
        raw,
        item_of(&[
            ("PK", s("METER#a")),
            ("SK", s("META")),
            ("_type", s("Meter")),
            ("_schema", n("2")),
            ("id", s("a")),
            ("hits", n("5"))
        ])
    );

    // An item of version 2 is upserted as any item: its version stays 2.
    let again = table.increment(Meter::key("a"), Meter::HITS, 2).send().await.unwrap().ok().unwrap();
    assert_eq!(again, Meter { id: "a".into(), label: None, hits: 7 });
    assert_eq!(common::raw_item(&table, "METER#a", "META").await.unwrap().get("_schema"), Some(&n("2")));

    // An item of version 1, as another client wrote it (no version attribute: the oldest
    // declared version). Upserting version-2 fields onto it would leave an item still read
    // as version 1: refused, typed, and nothing written.
    let v1 = item_of(&[
        ("PK", s("METER#b")),
        ("SK", s("META")),
        ("_type", s("Meter")),
        ("id", s("b")),
        ("label", s("front door")),
        ("hits", n("40")),
    ]);
    table.client().put_item().table_name(table.name()).set_item(Some(v1.clone())).send().await.unwrap();
    let refused = table.increment(Meter::key("b"), Meter::HITS, 1).send().await.unwrap_err();
    assert_eq!(
        refused.to_string(),
        "Meter PK=METER#b SK=META is stored at schema version 1, older than version 2 this upsert writes; nothing \
         was written: upgrade the item first (Table::upgrade_key), then upsert again"
    );
    assert!(
        matches!(&refused, Error::UpgradeRequired { operation: "upsert", entity: "Meter", key, stored: 1, current: 2 } if key == "PK=METER#b SK=META"),
        "{refused:?}"
    );
    assert_eq!(common::raw_item(&table, "METER#b", "META").await.unwrap(), v1);
    // The same for an item stamped `_schema = 1` explicitly.
    let mut v1_stamped = v1.clone();
    v1_stamped.insert("_schema".into(), n("1"));
    table.client().put_item().table_name(table.name()).set_item(Some(v1_stamped.clone())).send().await.unwrap();
    let refused = table.upsert(Meter::key("b")).set(Meter::LABEL, &None).add(Meter::HITS, &1).send().await.unwrap_err();
    assert!(matches!(refused, Error::UpgradeRequired { stored: 1, current: 2, .. }), "{refused:?}");
    assert_eq!(common::raw_item(&table, "METER#b", "META").await.unwrap(), v1_stamped);

    // A version newer than the program knows is refused the same way, and nothing is written.
    let mut v3 = v1.clone();
    v3.insert("_schema".into(), n("3"));
    v3.insert("PK".into(), s("METER#c"));
    v3.insert("id".into(), s("c"));
    table.client().put_item().table_name(table.name()).set_item(Some(v3.clone())).send().await.unwrap();
    let newer = table.increment(Meter::key("c"), Meter::HITS, 1).send().await.unwrap_err();
    assert!(
        matches!(&newer, Error::UpgradeRequired { operation: "upsert", entity: "Meter", key, stored: 3, current: 2 } if key == "PK=METER#c SK=META"),
        "{newer:?}"
    );
    assert_eq!(
        newer.to_string(),
        "Meter PK=METER#c SK=META is stored at schema version 3, newer than version 2 this upsert writes; nothing was \
         written: write it from a program that knows version 3"
    );
    assert_eq!(common::raw_item(&table, "METER#c", "META").await.unwrap(), v3);

    // Upgraded first, the item takes the upsert.
    let up = table.upgrade_key(Meter::key("b")).await.unwrap().unwrap();
    assert_eq!(up.write_back, dynamo_entity::migrate::upgrade::WriteBack::Written);
    let after = table.increment(Meter::key("b"), Meter::HITS, 1).send().await.unwrap().ok().unwrap();
    assert_eq!(after, Meter { id: "b".into(), label: Some("front door".into()), hits: 41 });
    assert_eq!(
        common::raw_item(&table, "METER#b", "META").await.unwrap(),
        item_of(&[
            ("PK", s("METER#b")),
            ("SK", s("META")),
            ("_type", s("Meter")),
            ("_schema", n("2")),
            ("id", s("b")),
            ("label", s("front door")),
            ("hits", n("41"))
        ])
    );

    // The condition: absent, or this entity type, and absent or of version 2.
    let request = table.increment(Meter::key("d"), Meter::HITS, 1).render().unwrap();
    let names = request.expression_attribute_names().unwrap();
    let values = request.expression_attribute_values().unwrap();
    let mut cond = request.condition_expression().unwrap().to_owned();
    let mut placeholders: Vec<&String> = names.keys().chain(values.keys()).collect();
    placeholders.sort_by_key(|p| std::cmp::Reverse(p.len()));
    for p in placeholders {
        let shown = match names.get(p) {
            Some(name) => name.clone(),
            None => match &values[p] {
                AttributeValue::S(v) => format!("'{v}'"),
                AttributeValue::N(v) => v.clone(),
                other => format!("{other:?}"),
            },
        };
        cond = cond.replace(p.as_str(), &shown);
    }
    assert_eq!(
        cond,
        "(attribute_not_exists(PK) OR _type = 'Meter') AND (attribute_not_exists(PK) OR _schema = 2) AND (NOT hits > \
         18446744073709551614)"
    );
    // Version 1 alone is the oldest: an item without the attribute is of it.
    let request = table
        .increment(MeterV1::key("d"), MeterV1::HITS, 1)
        .set_if_absent(MeterV1::LABEL, &"x".into())
        .render()
        .unwrap();
    assert!(request.condition_expression().unwrap().contains(" OR attribute_not_exists("), "{request:?}");
}

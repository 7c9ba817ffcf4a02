//! The inverted index (`#[entity(inverted)]`): a GSI keyed on `SK` / `PK`, which reads a
//! many-to-many relationship stored as an adjacency list from its other end.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::{AttributeValue, KeyType, ProjectionType};
use dynamo_entity::key::KeyError;
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Index, Table};
use serde_json::json;

/// A user's profile: in the user's partition, not an edge.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct User {
    id: String,
    name: String,
}

/// A product on a user's wishlist: an edge between a user and a product, stored in the user's
/// partition and keyed on the product.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "WISH#<product_id>", inverted)]
struct Wish {
    user_id: String,
    product_id: String,
    note: String,
}

/// A membership of a user in a team of an organization: a two-part partition key, so the
/// reverse side has a leading part to condition on.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ORG#<org>#TEAM#<team>", sk = "MEMBER#<user>", inverted)]
struct Membership {
    org: String,
    team: u16,
    user: String,
    role: String,
}

fn schemas() -> Vec<&'static dynamo_entity::schema::EntitySchema> {
    vec![User::schema(), Wish::schema(), Membership::schema()]
}

fn wish(user: usize, product: usize) -> Wish {
    Wish { user_id: format!("u{user}"), product_id: format!("p{product}"), note: format!("u{user} wants p{product}") }
}

/// Users 0..6 and products 0..5; user `u` wants product `p` when `(u + p) % 3 != 0`.
fn edges() -> Vec<Wish> {
    (0..6).flat_map(|u| (0..5).filter(move |p| (u + p) % 3 != 0).map(move |p| wish(u, p))).collect()
}

async fn load(table: &Table) -> Vec<Wish> {
    let wishes = edges();
    let users: Vec<User> = (0..6).map(|u| User { id: format!("u{u}"), name: format!("User {u}") }).collect();
    table.batch_write().put_all(&users).put_all(&wishes).send().await.unwrap().check().unwrap();
    wishes
}

#[tokio::test]
async fn a_many_to_many_relationship_is_read_from_both_ends() {
    let table = common::table("inverted_both_ends", &schemas()).await;
    let wishes = load(&table).await;
    assert_eq!(wishes.len(), 20);

    // From the user's end: the primary index, the user's partition (the profile is left out).
    let of_u1 = table.query(Wish::query("u1")).all().await.unwrap();
    assert_eq!(of_u1, vec![wish(1, 0), wish(1, 1), wish(1, 3), wish(1, 4)]);

    // From the product's end: the inverted index, partition SK = WISH#p2, sorted by PK.
    let of_p2 = table.query(Wish::inverted("p2")).all().await.unwrap();
    assert_eq!(of_p2, vec![wish(0, 2), wish(2, 2), wish(3, 2), wish(5, 2)]);
    let of_p2_desc = table.query(Wish::inverted("p2")).descending().all().await.unwrap();
    assert_eq!(of_p2_desc, vec![wish(5, 2), wish(3, 2), wish(2, 2), wish(0, 2)]);

    // Every product's wishers, from the index, equal the edges the data set holds.
    for p in 0..5 {
        let got: Vec<String> =
            table.query(Wish::inverted(&format!("p{p}"))).all().await.unwrap().into_iter().map(|w| w.user_id).collect();
        let expect: Vec<String> = (0..6).filter(|u| (u + p) % 3 != 0).map(|u| format!("u{u}")).collect();
        assert_eq!(got, expect, "p{p}");
    }

    // Sort-key conditions on the reverse side take the partition key's part (the user).
    let one = table.query(Wish::inverted("p2")).sk_eq("u3").all().await.unwrap();
    assert_eq!(one, vec![wish(3, 2)]);
    let after = table.query(Wish::inverted("p2")).sk_gt("u2").all().await.unwrap();
    assert_eq!(after, vec![wish(3, 2), wish(5, 2)]);
    let between = table.query(Wish::inverted("p2")).sk_between("u1", "u3").all().await.unwrap();
    assert_eq!(between, vec![wish(2, 2), wish(3, 2)]);

    // A product nobody wants: an empty partition of the index.
    assert_eq!(table.query(Wish::inverted("p9")).all().await.unwrap(), vec![]);

    // Removing an edge removes it from both ends (the index follows the item).
    table.delete(Wish::key("u3", "p2")).await.unwrap();
    let of_p2 = table.query(Wish::inverted("p2")).all().await.unwrap();
    assert_eq!(of_p2, vec![wish(0, 2), wish(2, 2), wish(5, 2)]);

    // The whole index partition as a collection: every item whose SK is WISH#p2.
    let collection = table.collection(Wish::inverted("p1")).send().await.unwrap();
    let all: Vec<Wish> = collection.all().unwrap();
    assert_eq!(all, vec![wish(0, 1), wish(1, 1), wish(3, 1), wish(4, 1)]);
}

#[tokio::test]
async fn pagination_through_the_inverted_index() {
    let table = common::table("inverted_pages", &schemas()).await;
    // 25 users want p7; some also want p8, which must not leak into p7's pages.
    let wishes: Vec<Wish> = (0..25).map(|u| wish(100 + u, 7)).chain((0..5).map(|u| wish(100 + u, 8))).collect();
    table.batch_write().put_all(&wishes).send().await.unwrap().check().unwrap();

    for descending in [false, true] {
        let mut pages = Vec::new();
        let mut cursor = None;
        loop {
            let mut q = table.query(Wish::inverted("p7")).page_items(7).after(cursor);
            if descending {
                q = q.descending();
            }
            let page = q.send().await.unwrap();
            pages.push(page.items.iter().map(|w| w.user_id.clone()).collect::<Vec<_>>());
            match page.cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        let mut expect: Vec<String> = (100..125).map(|u| format!("u{u}")).collect();
        if descending {
            expect.reverse();
        }
        let sizes: Vec<usize> = pages.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![7, 7, 7, 4], "descending: {descending}");
        assert_eq!(pages.concat(), expect, "descending: {descending}");
    }

    // A cursor of p7's partition does not open p8's.
    let first = table.query(Wish::inverted("p7")).page_items(3).send().await.unwrap();
    let err = table.query(Wish::inverted("p8")).after(first.cursor.clone()).send().await.unwrap_err();
    assert!(matches!(err, Error::Cursor { .. }), "{err:?}");
    // Nor the primary-index query of the same entity.
    let err = table.query(Wish::query("u100")).after(first.cursor).send().await.unwrap_err();
    assert!(matches!(err, Error::Cursor { .. }), "{err:?}");
}

#[tokio::test]
async fn sort_key_conditions_on_the_reverse_side() {
    let table = common::table("inverted_conditions", &schemas()).await;
    let member = |org: &str, team: u16, user: &str| Membership {
        org: org.into(),
        team,
        user: user.into(),
        role: format!("{user} in {org}/{team}"),
    };
    let all = vec![
        member("acme", 1, "ann"),
        member("acme", 2, "ann"),
        member("acme", 10, "ann"),
        member("acme", 2, "bob"),
        member("bolt", 3, "ann"),
        member("acme#x", 1, "ann"), // a `#` in a part cannot fake another org's prefix
    ];
    table.batch_write().put_all(&all).send().await.unwrap().check().unwrap();

    // Every team of ann, across organizations, in PK order (team numbers are zero-padded).
    let anns = table.query(Membership::inverted("ann")).all().await.unwrap();
    let teams: Vec<(String, u16)> = anns.iter().map(|m| (m.org.clone(), m.team)).collect();
    assert_eq!(
        teams,
        vec![("acme".into(), 1), ("acme".into(), 2), ("acme".into(), 10), ("acme#x".into(), 1), ("bolt".into(), 3)]
    );
    // A leading part: ann's teams in acme only (begins_with `ORG#acme#TEAM#`).
    let in_acme = table.query(Membership::inverted("ann")).sk_begins_with(("acme",)).all().await.unwrap();
    assert_eq!(in_acme.iter().map(|m| m.team).collect::<Vec<_>>(), vec![1, 2, 10]);
    // Both parts: exactly one membership; ranges on the second part compare numerically.
    let exact = table.query(Membership::inverted("ann")).sk_eq(("acme", &2)).all().await.unwrap();
    assert_eq!(exact, vec![member("acme", 2, "ann")]);
    let from_2 = table.query(Membership::inverted("ann")).sk_between(("acme", &2), ("acme", &10)).all().await.unwrap();
    assert_eq!(from_2.iter().map(|m| m.team).collect::<Vec<_>>(), vec![2, 10]);
    let after_acme = table.query(Membership::inverted("ann")).sk_gt(("acme",)).all().await.unwrap();
    assert_eq!(
        after_acme.iter().map(|m| (m.org.as_str(), m.team)).collect::<Vec<_>>(),
        vec![("acme#x", 1), ("bolt", 3)]
    );
    // bob is in one team.
    let bobs = table.query(Membership::inverted("bob")).all().await.unwrap();
    assert_eq!(bobs, vec![member("acme", 2, "bob")]);
}

#[tokio::test]
async fn the_index_writes_no_attributes_and_the_table_has_it() {
    let table = common::table("inverted_layout", &schemas()).await;
    table.put(&wish(1, 2)).await.unwrap();
    let raw = common::raw_item(&table, "USER#u1", "WISH#p2").await.unwrap();
    let names: BTreeSet<&str> = raw.keys().map(String::as_str).collect();
    assert_eq!(names, BTreeSet::from(["PK", "SK", "_type", "note", "product_id", "user_id"]));

    let description = table.client().describe_table().table_name(table.name()).send().await.unwrap();
    let gsis = description.table.unwrap().global_secondary_indexes.unwrap();
    assert_eq!(gsis.len(), 1);
    let g = &gsis[0];
    assert_eq!(g.index_name(), Some("INVERTED"));
    let keys: Vec<(&str, &KeyType)> = g.key_schema().iter().map(|k| (k.attribute_name(), k.key_type())).collect();
    assert_eq!(keys, vec![("SK", &KeyType::Hash), ("PK", &KeyType::Range)]);
    assert_eq!(g.projection().and_then(|p| p.projection_type()), Some(&ProjectionType::All));

    // The index is the table's: it has every item, a profile too (not sparse).
    table.put(&User { id: "u1".into(), name: "One".into() }).await.unwrap();
    let resp = table
        .client()
        .query()
        .table_name(table.name())
        .index_name("INVERTED")
        .key_condition_expression("SK = :sk")
        .expression_attribute_values(":sk", AttributeValue::S("PROFILE".into()))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.count, 1);
}

#[test]
fn the_layout_exports_the_inverted_index() {
    let layout = TableLayout::new(&schemas()).unwrap();
    assert!(layout.has_inverted());
    assert_eq!(layout.indexes(), vec![Index::Inverted]);
    assert_eq!(layout.key_attributes(), vec!["PK", "SK"]);
    let cfn = layout.cloudformation("wishes");
    let props = &cfn["Resources"]["WishesTable"]["Properties"];
    assert_eq!(
        props["GlobalSecondaryIndexes"],
        json!([{
            "IndexName": "INVERTED",
            "KeySchema": [{ "AttributeName": "SK", "KeyType": "HASH" }, { "AttributeName": "PK", "KeyType": "RANGE" }],
            "Projection": { "ProjectionType": "ALL" }
        }])
    );
    assert_eq!(
        props["AttributeDefinitions"],
        json!([{ "AttributeName": "PK", "AttributeType": "S" }, { "AttributeName": "SK", "AttributeType": "S" }])
    );
    let patterns = layout.access_patterns();
    let inverted: Vec<_> = patterns.iter().filter(|p| p.index == Index::Inverted).collect();
    assert_eq!(inverted.len(), 2);
    assert_eq!(inverted[0].name, "Wish::inverted");
    assert_eq!(inverted[0].partition, "SK = WISH#<product_id>");
    assert_eq!(inverted[0].sort, "PK `USER#<user_id>` (S)");
    assert!(!inverted[0].sparse);
    assert_eq!(inverted[1].name, "Membership::inverted");
    assert_eq!(inverted[1].sort, "PK `ORG#<org>#TEAM#<team>` (S)");
    let md = layout.markdown("Wishes");
    assert!(md.contains("| `PK` | S | table; sort key of INVERTED |"), "{md}");
    assert!(md.contains("| `SK` | S | table; partition key of INVERTED |"), "{md}");
    assert!(
        md.contains("| `Wish::inverted` | INVERTED | `SK = WISH#<product_id>` | PK `USER#<user_id>` (S) | Wish |  |")
    );
    assert!(md.contains("    inverted[(\"INVERTED: SK / PK\")]"));
    assert!(md.contains("    Wish -.->|\"WISH#{product_id} / USER#{user_id}\"| inverted"));

    // A table without an inverted entity has no such index.
    let plain = TableLayout::new(&[User::schema()]).unwrap();
    assert!(!plain.has_inverted() && plain.indexes().is_empty());
}

#[tokio::test]
async fn a_partition_key_over_the_index_sort_key_limit_is_refused_before_sending() {
    // The PK is the inverted index's sort key: 1,024 bytes at most, not 2,048.
    let table = common::table("inverted_limit", &schemas()).await;
    let long = "x".repeat(1100);
    let err =
        table.put(&Wish { user_id: long.clone(), product_id: "p1".into(), note: String::new() }).await.unwrap_err();
    match err {
        Error::Key(KeyError::TooLong { entity, attribute, bytes, limit, .. }) => {
            assert_eq!((entity, attribute, bytes, limit), ("Wish", "PK", 1105, 1024));
        }
        other => panic!("expected a key error, got {other:?}"),
    }
    // The same length fits a partition key of an entity in a table without the index.
    assert!(User { id: long, name: String::new() }.to_item().is_ok());
}

/// An episode of a series: the sort key is one number, stored as `N`, so the inverted index's
/// partition key is a number too (in a table whose sort keys are all numbers).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SERIES#<series>", sk = "<episode>", inverted)]
struct Episode {
    series: String,
    episode: u32,
    title: String,
}

#[tokio::test]
async fn a_numeric_sort_key_gives_a_numeric_index_partition() {
    let table = common::table("inverted_numeric", &[Episode::schema()]).await;
    let ep =
        |series: &str, episode: u32| Episode { series: series.into(), episode, title: format!("{series} {episode}") };
    let all = vec![ep("alpha", 1), ep("alpha", 2), ep("beta", 1), ep("gamma", 1), ep("gamma", 10)];
    table.batch_write().put_all(&all).send().await.unwrap().check().unwrap();
    let key = Episode::key("alpha", &1).into_encoded().unwrap();
    assert_eq!(key.sk, AttributeValue::N("1".into()));
    let firsts = table.query(Episode::inverted(&1)).all().await.unwrap();
    assert_eq!(firsts, vec![ep("alpha", 1), ep("beta", 1), ep("gamma", 1)]);
    let tenths = table.query(Episode::inverted(&10)).all().await.unwrap();
    assert_eq!(tenths, vec![ep("gamma", 10)]);
    let after_beta = table.query(Episode::inverted(&1)).sk_gt("beta").all().await.unwrap();
    assert_eq!(after_beta, vec![ep("gamma", 1)]);
    let layout = TableLayout::new(&[Episode::schema()]).unwrap();
    assert_eq!(layout.key_type("SK"), dynamo_entity::key::KeyType::N);
}

/// The cost the docs state: every write is also a write in the inverted index.
#[tokio::test]
async fn each_write_is_also_a_write_in_the_index() {
    use aws_sdk_dynamodb::types::ReturnConsumedCapacity;
    let with = common::table("inverted_cost", &schemas()).await;
    let without = common::table("inverted_cost_plain", &[User::schema()]).await;
    let user = User { id: "u1".into(), name: "One".into() };
    let mut units = Vec::new();
    for table in [&with, &without] {
        let out = table
            .client()
            .put_item()
            .table_name(table.name())
            .set_item(Some(user.to_item().unwrap()))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send()
            .await
            .unwrap();
        let c = out.consumed_capacity.unwrap();
        let index: Vec<(String, f64)> = c
            .global_secondary_indexes
            .unwrap_or_default()
            .into_iter()
            .map(|(name, cap)| (name, cap.capacity_units.unwrap_or_default()))
            .collect();
        units.push((c.capacity_units, c.table.and_then(|t| t.capacity_units), index));
    }
    assert_eq!(units, vec![(Some(2.0), Some(1.0), vec![("INVERTED".to_owned(), 1.0)]), (Some(1.0), Some(1.0), vec![])]);
}

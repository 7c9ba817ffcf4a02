//! `#[derive(TableDef)]`: the table a declaration creates (checked with `DescribeTable` against
//! DynamoDB Local), its CloudFormation export, the generated entity enum, and the run-time form
//! of the compile-time checks ([`TableLayout::declared`]).

use crate::common;

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::{KeyType as SdkKeyType, ProjectionType, ScalarAttributeType};
use dynamo_entity::key::KeyType;
use dynamo_entity::schema::EntitySchema;
use dynamo_entity::schema::{GsiDecl, Projection, TableLayout};
use dynamo_entity::{Entity, Index, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use serde_json::json;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "LEADERBOARD", gsi1_sk = "<sales>")]
pub struct User {
    pub id: String,
    pub name: String,
    pub sales: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "BADGE#<badge>")]
pub struct Badge {
    pub user_id: String,
    pub badge: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", gsi2 = "SHOP#<shop>", gsi2_sk = "<order_id>")]
pub struct Order {
    pub user_id: String,
    pub order_id: u32,
    pub shop: String,
    #[entity(rename = "totalCents")]
    pub total_cents: u64,
}

/// The declaration under test: three projections, one index that no entity writes.
#[derive(TableDef)]
#[table(
    entities(User, Badge, Order),
    gsi1(projection = all),
    gsi2(projection = include(totalCents)),
    gsi3(projection = keys_only, sk = N),
    item(derive(Debug, Clone, PartialEq)),
)]
pub struct Shop;

/// A GSI as `DescribeTable` reports it: name, key schema, projection type, non-key attributes.
type GsiShape = (String, Vec<(String, SdkKeyType)>, ProjectionType, Vec<String>);

async fn table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Shop::layout().unwrap()).await.expect("the table is created");
    table
}

#[tokio::test]
async fn create_table_from_a_declaration_has_its_projections() {
    let table = table("decl_create").await;
    let (desc, defs) = common::describe(&table).await;
    let s = ScalarAttributeType::S;
    let n = ScalarAttributeType::N;
    let expected: BTreeMap<String, ScalarAttributeType> = [
        ("PK", &s),
        ("SK", &s),
        ("GSI1PK", &s),
        ("GSI1SK", &n),
        ("GSI2PK", &s),
        ("GSI2SK", &n),
        ("GSI3PK", &s),
        ("GSI3SK", &n),
    ]
    .into_iter()
    .map(|(a, t)| (a.to_owned(), t.clone()))
    .collect();
    assert_eq!(defs, expected);

    let mut gsis: Vec<GsiShape> = desc
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let p = g.projection().unwrap();
            (
                g.index_name().unwrap().to_owned(),
                g.key_schema().iter().map(|k| (k.attribute_name().to_owned(), k.key_type().clone())).collect(),
                p.projection_type().unwrap().clone(),
                p.non_key_attributes().to_vec(),
            )
        })
        .collect();
    gsis.sort_by(|a, b| a.0.cmp(&b.0));
    let keys = |n: u8| vec![(format!("GSI{n}PK"), SdkKeyType::Hash), (format!("GSI{n}SK"), SdkKeyType::Range)];
    assert_eq!(
        gsis,
        vec![
            ("GSI1".to_owned(), keys(1), ProjectionType::All, vec![]),
            ("GSI2".to_owned(), keys(2), ProjectionType::Include, vec!["_type".to_owned(), "totalCents".to_owned()]),
            ("GSI3".to_owned(), keys(3), ProjectionType::KeysOnly, vec![]),
        ]
    );
    table.delete_table().await.unwrap();
}

#[tokio::test]
async fn the_generated_enum_decodes_a_mixed_item_collection() {
    let table = table("decl_enum").await;
    let user = User { id: "u1".into(), name: "Ada".into(), sales: 7 };
    let badge = Badge { user_id: "u1".into(), badge: "collector".into() };
    let orders: Vec<Order> = (1..=2)
        .map(|i| Order { user_id: "u1".into(), order_id: i, shop: "s1".into(), total_cents: 100 * u64::from(i) })
        .collect();
    table.put(&user).await.unwrap();
    table.put(&badge).await.unwrap();
    table.batch_put(&orders).await.unwrap().check().unwrap();
    // Another partition, which the query must not return.
    table.put(&User { id: "u2".into(), name: "Bob".into(), sales: 1 }).await.unwrap();

    let items: Vec<ShopItem> = table.collection(User::query("u1")).send().await.unwrap().decode_each().unwrap();
    // Sort-key order: BADGE#…, ORDER#…1, ORDER#…2, PROFILE.
    assert_eq!(
        items,
        vec![
            ShopItem::Badge(badge),
            ShopItem::Order(orders[0].clone()),
            ShopItem::Order(orders[1].clone()),
            ShopItem::User(user),
        ]
    );
    table.delete_table().await.unwrap();
}

#[test]
fn the_declaration_lists_entities_and_indexes_in_order() {
    assert_eq!(Shop::NAME, "Shop");
    let names: Vec<&str> = Shop::ENTITIES.iter().map(|e| e.name).collect();
    assert_eq!(names, ["User", "Badge", "Order"]);
    assert_eq!(
        Shop::INDEXES,
        [
            GsiDecl { index: Index::Gsi(1), projection: Projection::All, pk: None, sk: None },
            GsiDecl {
                index: Index::Gsi(2),
                projection: Projection::Include(&["_type", "totalCents"]),
                pk: None,
                sk: None
            },
            GsiDecl { index: Index::Gsi(3), projection: Projection::KeysOnly, pk: None, sk: Some(KeyType::N) },
        ]
    );
}

#[test]
fn cloudformation_carries_the_projections() {
    let cfn = Shop::layout().unwrap().cloudformation("shop");
    let props = &cfn["Resources"]["ShopTable"]["Properties"];
    let projections: Vec<(&str, &serde_json::Value)> = props["GlobalSecondaryIndexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["IndexName"].as_str().unwrap(), &g["Projection"]))
        .collect();
    assert_eq!(
        projections,
        [
            ("GSI1", &json!({ "ProjectionType": "ALL" })),
            ("GSI2", &json!({ "ProjectionType": "INCLUDE", "NonKeyAttributes": ["_type", "totalCents"] })),
            ("GSI3", &json!({ "ProjectionType": "KEYS_ONLY" })),
        ]
    );
    let defs = props["AttributeDefinitions"].as_array().unwrap();
    assert!(defs.contains(&json!({ "AttributeName": "GSI3SK", "AttributeType": "N" })));
    assert!(defs.contains(&json!({ "AttributeName": "GSI3PK", "AttributeType": "S" })));
}

// The run-time form of the checks, for declarations built by hand (a `#[derive(TableDef)]` with
// these entities does not compile; see `tests/ui/table_*.rs`).

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "PROFILE")]
pub struct Profile {
    pub user_id: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "BADGE#<badge>#<year>")]
pub struct DatedBadge {
    pub user_id: String,
    pub badge: String,
    pub year: u16,
}

#[derive(Entity)]
#[entity(pk = "GUIDE#<id>", sk = "META", gsi1 = "LEADERBOARD", gsi1_sk = "<title>")]
pub struct Guide {
    pub id: String,
    pub title: String,
}

const ALL: GsiDecl = GsiDecl { index: Index::Gsi(1), projection: Projection::All, pk: None, sk: None };

fn declared(entities: &[&'static EntitySchema], gsis: &[GsiDecl]) -> String {
    TableLayout::declared(entities, gsis).unwrap_err().to_string()
}

#[test]
fn declared_layouts_run_the_same_checks() {
    assert_eq!(
        declared(&[User::SCHEMA, Profile::SCHEMA], &[ALL]),
        "invalid request: entities User and Profile can produce the same primary key (PK `USER#<id>` / SK `PROFILE` \
         and PK `USER#<user_id>` / SK `PROFILE`): one item would overwrite the other"
    );
    assert_eq!(
        declared(&[Badge::SCHEMA, DatedBadge::SCHEMA], &[]),
        "invalid request: the query of entity Badge on primary index adds begins_with(SK, \"BADGE#\"), which also \
         matches the sort keys of entity DatedBadge in a partition both can share"
    );
    assert_eq!(
        declared(&[User::SCHEMA, Order::SCHEMA], &[ALL]),
        "invalid request: entity Order writes GSI2, which the table does not declare"
    );
    let gsi1_s = GsiDecl { sk: Some(KeyType::S), ..ALL };
    assert_eq!(
        declared(&[User::SCHEMA], &[gsi1_s]),
        "invalid request: entity User stores GSI1SK as N but the table declares it S"
    );
    assert_eq!(
        declared(&[User::SCHEMA, Guide::SCHEMA], &[ALL]),
        "invalid request: key attribute GSI1SK is S in Guide but N in User; a table stores one type per key attribute"
    );
    assert_eq!(declared(&[User::SCHEMA], &[ALL, ALL]), "invalid request: GSI1 is declared twice");
    // The entities of the declaration above pass, and so does the example's table.
    assert!(TableLayout::declared(&[User::SCHEMA, Badge::SCHEMA, Order::SCHEMA], &Shop::INDEXES[..2]).is_ok());
}

/// An adjacency list read from the other end through the inverted index (`SK` / `PK`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "WISH#<product>", inverted)]
pub struct Wish {
    pub user_id: String,
    pub product: String,
}

/// The inverted index projects exactly what `Wish` stores, so its queries decode.
#[derive(TableDef)]
#[table(entities(User, Wish), gsi1, inverted(projection = include(user_id, product)))]
pub struct Wishes;

#[tokio::test]
async fn an_include_projection_on_the_inverted_index_serves_its_queries() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("decl_inverted"));
    table.create_table_from(&Wishes::layout().unwrap()).await.unwrap();
    let desc = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let inverted = desc.global_secondary_indexes().iter().find(|g| g.index_name() == Some("INVERTED")).unwrap();
    let keys: Vec<(&str, SdkKeyType)> =
        inverted.key_schema().iter().map(|k| (k.attribute_name(), k.key_type().clone())).collect();
    assert_eq!(keys, [("SK", SdkKeyType::Hash), ("PK", SdkKeyType::Range)]);
    let projection = inverted.projection().unwrap();
    assert_eq!(projection.projection_type(), Some(&ProjectionType::Include));
    assert_eq!(projection.non_key_attributes(), ["_type", "user_id", "product"]);

    let wishes: Vec<Wish> = ["u2", "u1", "u3"]
        .into_iter()
        .map(|u| Wish { user_id: u.to_owned(), product: "p1".to_owned() })
        .chain([Wish { user_id: "u1".to_owned(), product: "p2".to_owned() }])
        .collect();
    table.batch_put(&wishes).await.unwrap().check().unwrap();
    table.put(&User { id: "u1".into(), name: "Ada".into(), sales: 0 }).await.unwrap();
    // Everyone who wishes for p1, sorted by their PK, decoded from the projected attributes.
    let fans: Vec<Wish> = table.query(Wish::inverted("p1")).all().await.unwrap();
    let users: Vec<&str> = fans.iter().map(|w| w.user_id.as_str()).collect();
    assert_eq!(users, ["u1", "u2", "u3"]);
    assert!(fans.iter().all(|w| w.product == "p1"));
    table.delete_table().await.unwrap();
}

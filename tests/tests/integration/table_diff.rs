//! The table against its declaration (`Table::diff`, `TableDiff::plan`, `Table::apply`): a
//! table created with an older layout (fewer GSIs, another projection, another key type, an
//! index since dropped, no TTL) differs from the current declaration by exactly those changes;
//! applying them one index at a time makes `DescribeTable` match a table created from the
//! current declaration, and a second diff is empty.

use crate::common;

use std::time::Duration;

use dynamo_entity::key::KeyType;
use dynamo_entity::migrate::{Change, Step, Wait};
use dynamo_entity::schema::{GsiDecl, Projection, TableLayout};
use dynamo_entity::{Entity, Error, Index, Table, TableDef, Timestamp};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "LEADERBOARD", gsi1_sk = "<sales>")]
pub struct User {
    pub id: String,
    pub sales: u64,
    #[entity(ttl)]
    pub expires_at: Option<Timestamp>,
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

/// The current declaration.
#[derive(TableDef)]
#[table(
    entities(User, Order),
    gsi1(projection = all),
    gsi2(projection = include(totalCents)),
    gsi3(projection = keys_only, sk = N)
)]
pub struct Shop;

/// The user as it was at launch: no leaderboard.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct UserV1 {
    pub id: String,
    pub sales: u64,
}

/// The layout at launch: GSI1 keys only, GSI3 with a string sort key, GSI4 (since dropped), no
/// GSI2, no TTL.
fn launch_layout() -> TableLayout {
    let decl = |n, projection, sk| GsiDecl { index: Index::Gsi(n), projection, pk: None, sk };
    TableLayout::declared(
        &[UserV1::SCHEMA],
        &[
            decl(1, Projection::KeysOnly, Some(KeyType::N)),
            decl(3, Projection::KeysOnly, None),
            decl(4, Projection::All, None),
        ],
    )
    .unwrap()
}

/// The GSIs as `DescribeTable` reports them: name, key attributes with types, projection.
async fn gsi_shapes(table: &Table) -> Vec<(String, Vec<(String, String, String)>, String, Vec<String>)> {
    let (desc, defs) = common::describe(table).await;
    let mut out: Vec<_> = desc
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let keys = g
                .key_schema()
                .iter()
                .map(|k| {
                    let a = k.attribute_name().to_owned();
                    (a.clone(), k.key_type().as_str().to_owned(), defs[&a].as_str().to_owned())
                })
                .collect();
            let p = g.projection().unwrap();
            let mut non_key = p.non_key_attributes().to_vec();
            non_key.sort();
            (g.index_name().unwrap().to_owned(), keys, p.projection_type().unwrap().as_str().to_owned(), non_key)
        })
        .collect();
    out.sort();
    out
}

#[tokio::test]
async fn a_table_of_an_older_layout_is_brought_to_its_declaration_one_index_at_a_time() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("diff_apply"));
    table.create_table_from(&launch_layout()).await.unwrap();
    let layout = Shop::layout().unwrap();

    let diff = table.diff(&layout).await.unwrap();
    let kinds: Vec<String> = diff
        .changes
        .iter()
        .map(|c| match c {
            Change::MissingIndex(s) => format!("missing {}", s.name),
            Change::ExtraIndex(s) => format!("extra {}", s.name),
            Change::KeySchema { declared, actual } => {
                format!("keys {} {:?} -> {:?}", declared.name, actual.sk.first(), declared.sk.first())
            }
            Change::Projection { declared, actual } => {
                format!("projection {} {} -> {}", declared.name, actual.projection, declared.projection)
            }
            Change::Ttl { declared, actual } => format!("ttl {actual:?} -> {declared:?}"),
            Change::Stream { declared, actual } => format!("stream {actual:?} -> {declared:?}"),
            Change::TableKey { .. } => "table key".to_owned(),
            other => other.to_string(),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "projection GSI1 KEYS_ONLY -> ALL",
            "missing GSI2",
            "keys GSI3 Some((\"GSI3SK\", S)) -> Some((\"GSI3SK\", N))",
            "extra GSI4",
            "ttl None -> Some(\"expires_at\")",
        ]
    );
    assert_eq!(
        diff.to_string().replace(table.name(), "<table>"),
        "table <table>: 5 difference(s)\n\
         \x20 index GSI1 projection: declared ALL, table has KEYS_ONLY\n\
         \x20 missing index: GSI GSI2 on GSI2PK (S) / GSI2SK (N), projection INCLUDE(_type, totalCents)\n\
         \x20 index GSI3 key schema: declared GSI3PK (S) / GSI3SK (N), table has GSI3PK (S) / GSI3SK (S)\n\
         \x20 extra index: GSI GSI4 on GSI4PK (S) / GSI4SK (S), projection ALL\n\
         \x20 time to live: declared expires_at, table has disabled\n"
    );

    // Plan mode: what apply would do, and nothing changes.
    let plan = diff.plan();
    assert_eq!(
        plan.to_string().replace(table.name(), "<table>"),
        "table <table>: 7 step(s)\n\
         \x20 1. UpdateTable: delete GSI GSI1, wait until it is gone\n\
         \x20 2. UpdateTable: delete GSI GSI3, wait until it is gone\n\
         \x20 3. UpdateTable: delete GSI GSI4, wait until it is gone\n\
         \x20 4. UpdateTable: create GSI GSI1 on GSI1PK (S) / GSI1SK (N), projection ALL, wait until it is ACTIVE\n\
         \x20 5. UpdateTable: create GSI GSI2 on GSI2PK (S) / GSI2SK (N), projection INCLUDE(_type, totalCents), wait until it is ACTIVE\n\
         \x20 6. UpdateTable: create GSI GSI3 on GSI3PK (S) / GSI3SK (N), projection KEYS_ONLY, wait until it is ACTIVE\n\
         \x20 7. UpdateTimeToLive: enable time to live on expires_at\n"
    );
    assert_eq!(table.diff(&layout).await.unwrap(), diff, "planning changed nothing");

    // Some items, so that the new indexes have something to fill from.
    table.put(&UserV1 { id: "u1".into(), sales: 3 }).await.unwrap();

    let steps = table.apply(&diff, Wait { timeout: Duration::from_secs(120), poll: Duration::from_millis(100) }).await;
    assert_eq!(steps.unwrap(), plan.steps);

    // The same diff applied again is older than the table: refused whole, nothing sent.
    let shapes = gsi_shapes(&table).await;
    let stale = table.apply(&diff, Wait::default()).await;
    match stale {
        Err(e @ Error::Invalid { .. }) => assert_eq!(
            e.to_string(),
            format!(
                "invalid request: table {}: nothing applied; the diff is older than the table (it deletes GSI4, which \
                 the table no longer has): run Table::diff again",
                table.name()
            )
        ),
        other => panic!("{other:?}"),
    }
    assert_eq!(gsi_shapes(&table).await, shapes);
    // Stale parts of it: the changed GSI3 (delete, then create as declared, which the table
    // now has) and the time to live.
    let name = table.name().to_owned();
    for (keep, why) in [
        (
            (|c: &Change| matches!(c, Change::KeySchema { declared, .. } if declared.name == "GSI3"))
                as fn(&Change) -> bool,
            "it creates GSI3, which the table already has as declared",
        ),
        (
            |c: &Change| matches!(c, Change::Ttl { .. }),
            "it enables time to live on expires_at, which the table already has",
        ),
    ] {
        let mut part = diff.clone();
        part.changes.retain(keep);
        assert_eq!(part.changes.len(), 1, "{part}");
        match table.apply(&part, Wait::default()).await {
            Err(e @ Error::Invalid { .. }) => assert_eq!(
                e.to_string(),
                format!(
                    "invalid request: table {name}: nothing applied; the diff is older than the table ({why}): run \
                     Table::diff again"
                )
            ),
            other => panic!("{why}: {other:?}"),
        }
    }
    assert_eq!(gsi_shapes(&table).await, shapes);

    let again = table.diff(&layout).await.unwrap();
    assert!(again.is_empty(), "{again}");
    assert_eq!(again.to_string(), format!("table {} matches its declaration\n", table.name()));
    assert_eq!(again.plan().steps, Vec::<Step>::new());

    let fresh = Table::new(server.client(), unique_table_name("diff_fresh"));
    fresh.create_table_from(&layout).await.unwrap();
    assert_eq!(
        gsi_shapes(&table).await,
        gsi_shapes(&fresh).await,
        "DescribeTable matches a table created from the declaration"
    );
    assert!(fresh.diff(&layout).await.unwrap().is_empty());
    assert_eq!(table.get(UserV1::key("u1")).await.unwrap(), Some(UserV1 { id: "u1".into(), sales: 3 }));
}

#[tokio::test]
async fn differences_only_a_new_table_resolves_are_refused_before_anything_is_sent() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("diff_manual"));
    let with_lsi = TableLayout::declared(
        &[UserV1::SCHEMA],
        &[GsiDecl { index: Index::Lsi(1), projection: Projection::All, pk: None, sk: Some(KeyType::N) }],
    )
    .unwrap();
    table.create_table_from(&with_lsi).await.unwrap();
    let layout = TableLayout::new(&[UserV1::SCHEMA]).unwrap();
    let diff = table.diff(&layout).await.unwrap();
    assert_eq!(diff.changes.len(), 1, "{diff}");
    assert!(matches!(&diff.changes[0], Change::ExtraIndex(s) if s.local && s.name == "LSI1"));
    let plan = diff.plan();
    assert_eq!(plan.manual().count(), 1);
    let err = table.apply(&diff, Wait::default()).await;
    assert!(matches!(&err, Err(Error::Invalid { reason }) if reason.contains("nothing applied")), "{err:?}");
    assert_eq!(table.diff(&layout).await.unwrap(), diff);
    assert!(common::describe(&table).await.0.local_secondary_indexes().len() == 1);
}

//! Native multi-attribute GSI keys (`#[entity(gsi6(pk(tenant, region), sk(status, created_at,
//! priority)))]`): the table's key schema as DynamoDB describes it, every key condition shape the
//! typed builder accepts with exact results, both orders, pagination with cursors, sparse items,
//! a key attribute updated in place moving the item inside the index, a keys-only projection,
//! two entities sharing one index, and a template GSI beside them.

use crate::common;
use dynamo_entity_local::Divergence;

use aws_sdk_dynamodb::types::{KeyType as SdkKeyType, ProjectionType, ScalarAttributeType};
use dynamo_entity::key::KeyError;
use dynamo_entity::{Entity, Error, KeyPart, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};
use futures::TryStreamExt;

/// A ticket's state; stored as `open` / `closed`.
#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Open,
    Closed,
}

/// A support ticket: GSI6 on its own attributes (tenant and region, then status, creation time
/// and priority), GSI7 on tenant then priority (keys only), and the template GSI1 beside them.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "TICKET#<id>",
    sk = "META",
    rename_all = "camelCase",
    gsi1 = "TENANT#<tenant>",
    gsi1_sk = "<created_at>",
    gsi6(pk(tenant, region), sk(status, created_at, priority)),
    gsi7(pk(tenant), sk(priority))
)]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub region: String,
    /// `None`: not in GSI6 (sparse).
    pub status: Option<Status>,
    pub created_at: u64,
    pub priority: u32,
    pub title: String,
}

/// An alert, sharing GSI6 and GSI7 with the tickets (same attribute names and types). It must
/// declare GSI7: it stores both of its key attributes, so DynamoDB indexes its items there
/// anyway, and the table's checks refuse an entity that would enter an index undeclared.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "ALERT#<id>",
    sk = "META",
    gsi6(pk(tenant, region), sk(status, created_at, priority)),
    gsi7(pk(tenant), sk(priority))
)]
pub struct Alert {
    pub id: u32,
    pub tenant: String,
    pub region: String,
    pub status: Status,
    #[entity(rename = "createdAt")]
    pub created_at: u64,
    pub priority: u32,
}

/// The declaration under test: a template GSI and two multi-attribute GSIs.
#[derive(TableDef)]
#[table(entities(Ticket, Alert), gsi1(projection = all), gsi6(projection = all), gsi7(projection = keys_only))]
pub struct Desk;

async fn table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&Desk::layout().unwrap()).await.expect("the table is created");
    table
}

fn ticket(id: &str, region: &str, status: Option<Status>, created_at: u64, priority: u32) -> Ticket {
    Ticket {
        id: id.to_owned(),
        tenant: "acme".to_owned(),
        region: region.to_owned(),
        status,
        created_at,
        priority,
        title: format!("ticket {id}"),
    }
}

/// Eight tickets in acme/eu (one without a status), two in acme/us, and an alert in acme/eu.
async fn seeded(test: &str) -> Table {
    let table = table(test).await;
    let open = Some(Status::Open);
    let closed = Some(Status::Closed);
    for t in [
        ticket("t1", "eu", open, 100, 1),
        ticket("t2", "eu", open, 200, 2),
        ticket("t3", "eu", open, 200, 3),
        ticket("t4", "eu", open, 300, 1),
        ticket("t5", "eu", closed, 150, 2),
        ticket("t6", "eu", closed, 250, 1),
        ticket("t7", "eu", None, 120, 1),
        ticket("t8", "eu", open, 400, 5),
        ticket("u1", "us", open, 100, 1),
        ticket("u2", "us", closed, 100, 1),
    ] {
        table.put(&t).await.unwrap();
    }
    let alert =
        Alert { id: 1, tenant: "acme".into(), region: "eu".into(), status: Status::Open, created_at: 250, priority: 9 };
    table.put(&alert).await.unwrap();
    table
}

fn ids(tickets: &[Ticket]) -> Vec<&str> {
    tickets.iter().map(|t| t.id.as_str()).collect()
}

/// A GSI as DescribeTable shows it: name, key schema, projection type.
type Gsi = (String, Vec<(String, SdkKeyType)>, ProjectionType);

#[tokio::test]
async fn describe_table_shows_the_declared_key_schemas() {
    let table = table("mk_describe").await;
    let (desc, defs) = common::describe(&table).await;
    let mut gsis: Vec<Gsi> = desc
        .global_secondary_indexes()
        .iter()
        .map(|g| {
            let keys = g.key_schema().iter().map(|k| (k.attribute_name().to_owned(), k.key_type().clone())).collect();
            let projection = g.projection().and_then(|p| p.projection_type()).cloned().unwrap();
            (g.index_name().unwrap().to_owned(), keys, projection)
        })
        .collect();
    gsis.sort_by(|a, b| a.0.cmp(&b.0));
    let k = |name: &str, kt: SdkKeyType| (name.to_owned(), kt);
    assert_eq!(
        gsis,
        vec![
            (
                "GSI1".to_owned(),
                vec![k("GSI1PK", SdkKeyType::Hash), k("GSI1SK", SdkKeyType::Range)],
                ProjectionType::All
            ),
            (
                "GSI6".to_owned(),
                vec![
                    k("tenant", SdkKeyType::Hash),
                    k("region", SdkKeyType::Hash),
                    k("status", SdkKeyType::Range),
                    k("createdAt", SdkKeyType::Range),
                    k("priority", SdkKeyType::Range),
                ],
                ProjectionType::All
            ),
            (
                "GSI7".to_owned(),
                vec![k("tenant", SdkKeyType::Hash), k("priority", SdkKeyType::Range)],
                ProjectionType::KeysOnly
            ),
        ]
    );
    let s = ScalarAttributeType::S;
    let n = ScalarAttributeType::N;
    let expected: std::collections::BTreeMap<String, ScalarAttributeType> = [
        ("PK", s.clone()),
        ("SK", s.clone()),
        ("GSI1PK", s.clone()),
        ("GSI1SK", n.clone()),
        ("tenant", s.clone()),
        ("region", s.clone()),
        ("status", s.clone()),
        ("createdAt", n.clone()),
        ("priority", n.clone()),
    ]
    .into_iter()
    .map(|(a, t)| (a.to_owned(), t))
    .collect();
    assert_eq!(defs, expected);
    let layout = Desk::layout().unwrap();
    // The table as created is the table as declared: no change to apply.
    let diff = table.diff(&layout).await.unwrap();
    assert!(diff.is_empty(), "{:?}", diff.changes);
    assert_eq!(layout.gsis(), &[1]);
    let multi: Vec<String> = layout.multi_gsis().iter().map(|g| g.describe()).collect();
    assert_eq!(
        multi,
        vec![
            "tenant (S), region (S) | status (S), createdAt (N), priority (N)".to_owned(),
            "tenant (S) | priority (N)".to_owned()
        ]
    );
}

#[tokio::test]
async fn every_accepted_key_condition_returns_exactly_its_items() {
    let table = seeded("mk_conditions").await;
    let q = || Ticket::gsi6("acme", "eu");
    // Partition only: every ticket with a status, by status then time then priority; the
    // alert in the same partition is another entity's and left out.
    assert_eq!(ids(&table.query(q()).all().await.unwrap()), ["t5", "t6", "t1", "t2", "t3", "t4", "t8"]);
    assert_eq!(ids(&table.query(q()).descending().all().await.unwrap()), ["t8", "t4", "t3", "t2", "t1", "t6", "t5"]);
    let open = Status::Open;
    assert_eq!(ids(&table.query(q().status_eq(&open)).all().await.unwrap()), ["t1", "t2", "t3", "t4", "t8"]);
    assert_eq!(ids(&table.query(q().status_eq(&open).created_at_eq(&200)).all().await.unwrap()), ["t2", "t3"]);
    assert_eq!(
        ids(&table.query(q().status_eq(&open).created_at_eq(&200).priority_eq(&3)).all().await.unwrap()),
        ["t3"]
    );
    assert_eq!(
        ids(&table.query(q().status_eq(&open).created_at_eq(&200).priority_gt(&2)).all().await.unwrap()),
        ["t3"]
    );
    assert_eq!(ids(&table.query(q().status_eq(&open).created_at_gt(&200)).all().await.unwrap()), ["t4", "t8"]);
    assert_eq!(
        ids(&table.query(q().status_eq(&open).created_at_ge(&200)).all().await.unwrap()),
        ["t2", "t3", "t4", "t8"]
    );
    assert_eq!(ids(&table.query(q().status_eq(&open).created_at_lt(&200)).all().await.unwrap()), ["t1"]);
    assert_eq!(ids(&table.query(q().status_eq(&open).created_at_le(&200)).all().await.unwrap()), ["t1", "t2", "t3"]);
    assert_eq!(
        ids(&table.query(q().status_eq(&open).created_at_between(&150, &300)).all().await.unwrap()),
        ["t2", "t3", "t4"]
    );
    assert_eq!(ids(&table.query(q().status_begins_with("clo")).all().await.unwrap()), ["t5", "t6"]);
    assert_eq!(ids(&table.query(q().status_gt(&Status::Closed)).all().await.unwrap()), ["t1", "t2", "t3", "t4", "t8"]);
    assert_eq!(
        ids(&table.query(q().status_between(&Status::Closed, &Status::Open)).descending().all().await.unwrap()),
        ["t8", "t4", "t3", "t2", "t1", "t6", "t5"]
    );
    // Another partition (region) is another partition.
    assert_eq!(ids(&table.query(Ticket::gsi6("acme", "us")).all().await.unwrap()), ["u2", "u1"]);
    // The alert shares the index.
    let alerts = table.query(Alert::gsi6("acme", "eu").status_eq(&Status::Open)).all().await.unwrap();
    assert_eq!(alerts.iter().map(|a| a.id).collect::<Vec<_>>(), [1]);
    // The template GSI beside them.
    let by_time = table.query(Ticket::gsi1("acme")).sk_gt(&300).all().await.unwrap();
    assert_eq!(ids(&by_time), ["t8"]);
    // The handle bound to the declaration takes the same key conditions.
    let desk = table.clone().declared::<Desk>();
    assert_eq!(ids(&desk.query(q().status_eq(&open).created_at_gt(&200)).all().await.unwrap()), ["t4", "t8"]);
    assert_eq!(ids(&desk.query(q()).descending().max_items(2).send().await.unwrap().items), ["t8", "t4"]);
}

#[tokio::test]
async fn the_key_condition_is_rendered_as_dynamodb_takes_it() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), "desk");
    let req = table.query(Ticket::gsi6("acme", "eu").status_eq(&Status::Open).created_at_between(&1, &9)).max_items(3);
    let input = req.render().unwrap();
    assert_eq!(input.index_name(), Some("GSI6"));
    assert_eq!(
        input.key_condition_expression(),
        Some("#p0 = :p0 AND #p1 = :p1 AND #s0 = :s0 AND #s1 BETWEEN :lo AND :hi")
    );
    let names = input.expression_attribute_names().unwrap();
    let mut names: Vec<(&str, &str)> = names.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    names.sort_unstable();
    assert_eq!(names, [("#p0", "tenant"), ("#p1", "region"), ("#s0", "status"), ("#s1", "createdAt")]);
    assert_eq!(input.limit(), Some(3));
    let begins = table.query(Ticket::gsi6("acme", "eu").status_begins_with("op")).render().unwrap();
    assert_eq!(begins.key_condition_expression(), Some("#p0 = :p0 AND #p1 = :p1 AND begins_with(#s0, :s0)"));
    // An empty partition value is refused before sending, naming the attribute.
    match table.query(Ticket::gsi6("", "eu")).render().unwrap_err() {
        Error::Key(KeyError::EmptyKeyAttribute {
            entity: "Ticket",
            index: "GSI6",
            attribute: "tenant",
            field: "tenant",
        }) => {}
        other => panic!("unexpected {other:?}"),
    }
}

#[tokio::test]
async fn pages_resume_with_cursors_bound_to_their_query() {
    let table = seeded("mk_pages").await;
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page =
            table.query(Ticket::gsi6("acme", "eu")).descending().page_items(3).after(cursor).send().await.unwrap();
        pages += 1;
        seen.extend(page.items.iter().map(|t| t.id.clone()));
        match page.cursor {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    assert_eq!(seen, ["t8", "t4", "t3", "t2", "t1", "t6", "t5"]);
    assert_eq!(pages, 3);
    // pages() gives the same in pages of at most 2 evaluated items.
    let streamed: Vec<Vec<String>> = table
        .query(Ticket::gsi6("acme", "eu").status_eq(&Status::Open))
        .page_size(2)
        .pages()
        .map_ok(|p| p.items.into_iter().map(|t| t.id).collect())
        .try_collect()
        .await
        .unwrap();
    let flat: Vec<String> = streamed.concat();
    assert_eq!(flat, ["t1", "t2", "t3", "t4", "t8"]);
    let stream: Vec<Ticket> =
        table.query(Ticket::gsi6("acme", "eu")).max_items(4).stream().try_collect().await.unwrap();
    assert_eq!(ids(&stream), ["t5", "t6", "t1", "t2"]);
    // A cursor of one query is refused by another (other partition, other condition).
    let first = table.query(Ticket::gsi6("acme", "eu")).page_items(2).send().await.unwrap();
    let c = first.cursor.unwrap();
    let other = table.query(Ticket::gsi6("acme", "us")).after(c.clone()).send().await.unwrap_err();
    assert!(matches!(other, Error::Cursor { .. }), "{other:?}");
    let cond = table.query(Ticket::gsi6("acme", "eu").status_eq(&Status::Open)).after(c.clone()).send().await;
    assert!(matches!(cond, Err(Error::Cursor { .. })), "{cond:?}");
    let next = table.query(Ticket::gsi6("acme", "eu")).page_items(2).after(c).send().await.unwrap();
    assert_eq!(ids(&next.items), ["t1", "t2"]);
}

#[tokio::test]
async fn sparse_items_and_updates_move_items_inside_the_index() {
    let table = seeded("mk_sparse").await;
    let open = || Ticket::gsi6("acme", "eu").status_eq(&Status::Open);
    // t7 has no status: in the table, not in GSI6.
    assert!(table.get(Ticket::key("t7")).await.unwrap().is_some());
    let all = table.query(Ticket::gsi6("acme", "eu")).all().await.unwrap();
    assert!(!ids(&all).contains(&"t7"));
    let raw = common::raw_item(&table, "TICKET#t7", "META").await.unwrap();
    assert!(!raw.contains_key("status"), "{raw:?}");
    // Giving it a status by an update puts it in the index, with no key to rewrite.
    table.update(Ticket::key("t7")).set(Ticket::STATUS, &Some(Status::Open)).send().await.unwrap();
    assert_eq!(ids(&table.query(open()).all().await.unwrap()), ["t1", "t7", "t2", "t3", "t4", "t8"]);
    // Changing a sort key attribute moves it inside the index.
    table.update(Ticket::key("t7")).set(Ticket::CREATED_AT, &350).send().await.unwrap();
    assert_eq!(ids(&table.query(open()).all().await.unwrap()), ["t1", "t2", "t3", "t4", "t7", "t8"]);
    // Changing a partition key attribute moves it to another partition.
    table.update(Ticket::key("t7")).set(Ticket::REGION, &"us".to_owned()).send().await.unwrap();
    assert_eq!(ids(&table.query(open()).all().await.unwrap()), ["t1", "t2", "t3", "t4", "t8"]);
    assert_eq!(ids(&table.query(Ticket::gsi6("acme", "us")).all().await.unwrap()), ["u2", "u1", "t7"]);
    // Removing the status takes it out again.
    table.update(Ticket::key("t7")).set(Ticket::STATUS, &None).send().await.unwrap();
    assert_eq!(ids(&table.query(Ticket::gsi6("acme", "us")).all().await.unwrap()), ["u2", "u1"]);
}

#[tokio::test]
async fn a_keys_only_index_returns_whole_items() {
    let table = seeded("mk_keys_only").await;
    let top = table.query(Ticket::gsi7("acme").priority_ge(&3)).descending().all().await.unwrap();
    assert_eq!(ids(&top), ["t8", "t3"]);
    assert_eq!(top[0], ticket("t8", "eu", Some(Status::Open), 400, 5));
    // Raw index items hold the keys only.
    let raw = table
        .client()
        .query()
        .table_name(table.name())
        .index_name("GSI7")
        .key_condition_expression("tenant = :t AND priority = :p")
        .expression_attribute_values(":t", aws_sdk_dynamodb::types::AttributeValue::S("acme".into()))
        .expression_attribute_values(":p", aws_sdk_dynamodb::types::AttributeValue::N("5".into()))
        .send()
        .await
        .unwrap();
    let mut keys: Vec<String> = raw.items()[0].keys().cloned().collect();
    keys.sort();
    assert_eq!(keys, ["PK", "SK", "priority", "tenant"]);
}

#[tokio::test]
async fn an_empty_key_attribute_is_refused_before_sending() {
    let table = table("mk_empty").await;
    let mut t = ticket("e1", "", Some(Status::Open), 1, 1);
    match table.put(&t).await.unwrap_err() {
        Error::Key(KeyError::EmptyKeyAttribute {
            entity: "Ticket",
            index: "GSI6",
            attribute: "region",
            field: "region",
        }) => {}
        other => panic!("unexpected {other:?}"),
    }
    t.region = "eu".into();
    table.put(&t).await.unwrap();
    assert_eq!(ids(&table.query(Ticket::gsi6("acme", "eu")).all().await.unwrap()), ["e1"]);
}

/// The exports of the table: the CloudFormation template (multi-attribute key schemas with
/// several HASH and RANGE elements), the Markdown design document, the NoSQL Workbench note.
#[test]
fn the_exports_describe_the_multi_attribute_indexes() {
    use crate::common::insta;
    let layout = Desk::layout().unwrap();
    insta::assert_json_snapshot!("desk_cloudformation", layout.cloudformation("desk"));
    insta::assert_snapshot!("desk_markdown", layout.markdown("Desk"));
    assert_eq!(
        layout.workbench_note().as_deref(),
        Some(
            "Not in this model: the multi-attribute GSI GSI6 (tenant (S), region (S) | status (S), createdAt (N), \
             priority (N)), whose keys NoSQL Workbench's format (one partition and one sort key attribute per index) \
             cannot hold; see the CloudFormation export."
        )
    );
    // GSI7, keyed on one partition and one sort key attribute, is in the model like a template
    // GSI (GSI1), on its own attributes.
    let sample = ticket("w1", "eu", Some(Status::Open), 5, 2);
    let model = dynamo_entity::design::workbench::WorkbenchModel::new("Desk", "desk")
        .dated(dynamo_entity::Timestamp::EPOCH)
        // `id` is a string in Ticket and a number in Alert.
        .mixed_types(true)
        .samples([&sample, &ticket("w2", "us", None, 6, 1)])
        .unwrap()
        .sample(&Alert {
            id: 1,
            tenant: "acme".into(),
            region: "eu".into(),
            status: Status::Open,
            created_at: 1,
            priority: 1,
        })
        .unwrap();
    let json = layout.workbench(&model).unwrap();
    let gsis = &json["DataModel"][0]["GlobalSecondaryIndexes"];
    assert_eq!(
        gsis,
        &serde_json::json!([
            {
                "IndexName": "GSI1",
                "KeyAttributes": {
                    "PartitionKey": { "AttributeName": "GSI1PK", "AttributeType": "S" },
                    "SortKey": { "AttributeName": "GSI1SK", "AttributeType": "N" }
                },
                "Projection": { "ProjectionType": "ALL" }
            },
            {
                "IndexName": "GSI7",
                "KeyAttributes": {
                    "PartitionKey": { "AttributeName": "tenant", "AttributeType": "S" },
                    "SortKey": { "AttributeName": "priority", "AttributeType": "N" }
                },
                "Projection": { "ProjectionType": "KEYS_ONLY" }
            }
        ])
    );
    assert!(
        json["ModelMetadata"]["Description"]
            .as_str()
            .unwrap()
            .starts_with("Not in this model: the multi-attribute GSI GSI6 (")
    );
    // The lint of the table finds nothing. Only Ticket writes the template GSI1, but native keys
    // on `tenant` / `createdAt` are not suggested: Alert stores both attributes, so its items
    // would enter the index (the table's check refuses that).
    let lints: Vec<String> = layout.lint().iter().map(ToString::to_string).collect();
    assert_eq!(lints, Vec::<String>::new());
    // Without Alert, the suggestion stands.
    let alone = dynamo_entity::schema::TableLayout::new(&[Ticket::schema()]).unwrap();
    let lints: Vec<String> = alone.lint().iter().map(ToString::to_string).collect();
    assert_eq!(
        lints,
        ["Ticket GSI1 multi-attribute key suggested: only Ticket writes GSI1, so its templates `TENANT#<tenant>` / \
          `<created_at>` overload it for no other entity: key it on the fields themselves, `gsi1(pk(tenant), \
          sk(created_at))`, and the item's own attributes are the key (no GSI1PK / GSI1SK to write, and none to \
          rewrite when a key field changes)"]
    );
    let patterns: Vec<(String, String, String, bool)> = layout
        .access_patterns()
        .into_iter()
        .filter(|p| p.index == dynamo_entity::Index::Gsi(6))
        .map(|p| (p.name, p.partition, p.sort, p.sparse))
        .collect();
    assert_eq!(
        patterns,
        [
            (
                "Ticket::gsi6".to_owned(),
                "tenant = <tenant> AND region = <region>".to_owned(),
                "status (S), createdAt (N), priority (N)".to_owned(),
                true
            ),
            (
                "Alert::gsi6".to_owned(),
                "tenant = <tenant> AND region = <region>".to_owned(),
                "status (S), createdAt (N), priority (N)".to_owned(),
                false
            ),
        ]
    );
}

/// `cfn-lint` (pinned in tests/interop/requirements.txt, installed by scripts/interop-setup)
/// accepts the exported template, and refuses it without the multi-attribute GSIs (their key
/// attributes are then defined for no key schema: rule E3039).
#[test]
fn cfn_lint_accepts_the_cloudformation_export() {
    use std::process::Command;
    let repo = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().unwrap().to_owned();
    let out = Command::new(repo.join("scripts/interop-setup")).output().expect("scripts/interop-setup runs");
    assert!(out.status.success(), "scripts/interop-setup failed: {}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let python = text.lines().find_map(|l| l.strip_prefix("PYTHON=")).expect("PYTHON= in the setup's output");
    let cfn_lint = std::path::Path::new(python).with_file_name("cfn-lint");
    let lint = |template: &serde_json::Value, name: &str| {
        let path = std::env::temp_dir().join(format!("{}-{name}.json", unique_table_name("cfn")));
        std::fs::write(&path, serde_json::to_vec_pretty(template).unwrap()).unwrap();
        let out = Command::new(&cfn_lint).arg("--").arg(&path).output().expect("cfn-lint runs");
        let _ = std::fs::remove_file(&path);
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let template = Desk::layout().unwrap().cloudformation("desk");
    let (code, report) = lint(&template, "desk");
    assert_eq!(code, Some(0), "cfn-lint refused the export:\n{report}");
    let mut dropped = template.clone();
    let gsis = dropped["Resources"]["DeskTable"]["Properties"]["GlobalSecondaryIndexes"].as_array_mut().unwrap();
    gsis.truncate(1);
    let (code, report) = lint(&dropped, "dropped");
    assert_eq!(code, Some(2), "{report}");
    assert!(report.starts_with("E3039 The set of Attributes in AttributeDefinitions"), "{report}");
}

/// Sets `title` of ticket `id` to a number, as another writer might: the item no longer decodes.
async fn corrupt_title(table: &Table, id: &str) {
    use aws_sdk_dynamodb::types::AttributeValue as V;
    table
        .client()
        .update_item()
        .table_name(table.name())
        .key("PK", V::S(format!("TICKET#{id}")))
        .key("SK", V::S("META".into()))
        .update_expression("SET title = :n")
        .expression_attribute_values(":n", V::N("5".into()))
        .send()
        .await
        .unwrap();
}

/// The encoded primary keys of `keys`.
fn encoded(keys: &[dynamo_entity::Key<Ticket>]) -> Vec<dynamo_entity::PrimaryKey> {
    keys.iter().map(|k| k.encoded().unwrap().clone()).collect()
}

fn key_of(id: &str) -> dynamo_entity::PrimaryKey {
    Ticket::key(id).encoded().unwrap().clone()
}

/// `lenient()` reports the items of the entity that do not decode in `Page::skipped` beside
/// the ones that do, page by page with cursors, as on template indexes; `send_keys()` returns
/// the typed primary keys in index order without decoding any item (so the undecodable one is
/// among them), and the same cursor as `send()`.
#[tokio::test]
async fn lenient_queries_and_keys_only_pages() {
    let table = seeded("mk_lenient").await;
    corrupt_title(&table, "t3").await;
    let open = || Ticket::gsi6("acme", "eu").status_eq(&Status::Open);
    // Strict: the page fails on t3, naming its key.
    match table.query(open()).send().await.unwrap_err() {
        Error::Decode { entity: "Ticket", attribute: "title", key, .. } => assert_eq!(key, "PK=TICKET#t3 SK=META"),
        other => panic!("unexpected {other:?}"),
    }
    // Lenient: the four that decode, and t3 skipped.
    let page = table.query(open()).lenient().send().await.unwrap();
    assert_eq!(ids(&page.items), ["t1", "t2", "t4", "t8"]);
    let skipped: Vec<(&str, bool)> = page
        .skipped
        .iter()
        .map(|e| (e.key.as_str(), matches!(e.error, Error::Decode { attribute: "title", .. })))
        .collect();
    assert_eq!(skipped, [("PK=TICKET#t3 SK=META", true)]);
    assert_eq!(page.cursor, None);
    // Two decoded items a page: t3 is reported once, on the page that read it.
    let first = table.query(open()).page_items(2).lenient().send().await.unwrap();
    assert_eq!((ids(&first.items), first.skipped.len()), (vec!["t1", "t2"], 0));
    let second = table.query(open()).page_items(2).after(first.cursor.clone()).lenient().send().await.unwrap();
    assert_eq!(ids(&second.items), ["t4", "t8"]);
    assert_eq!(second.skipped.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), ["PK=TICKET#t3 SK=META"]);
    let pages: Vec<_> = table.query(open()).max_items(2).lenient().pages().try_collect().await.unwrap();
    assert_eq!(pages.len(), 1);
    let all = table.query(open()).lenient().all().await.unwrap();
    assert_eq!((ids(&all.items), all.skipped.len(), all.cursor), (vec!["t1", "t2", "t4", "t8"], 1, None));
    let streamed: Vec<Result<Ticket, dynamo_entity::error::ItemError>> =
        table.query(open()).lenient().stream().try_collect().await.unwrap();
    let shape: Vec<String> = streamed
        .iter()
        .map(|r| match r {
            Ok(t) => t.id.clone(),
            Err(e) => format!("skipped {}", e.key),
        })
        .collect();
    assert_eq!(shape, ["t1", "t2", "t4", "t8", "skipped PK=TICKET#t3 SK=META"]);

    // Keys: every item in index order, none decoded.
    let keys = table.query(open()).send_keys().await.unwrap();
    assert_eq!(encoded(&keys.items), ["t1", "t2", "t3", "t4", "t8"].map(key_of));
    assert_eq!((keys.skipped.len(), keys.cursor), (0, None));
    // Through the keys-only GSI7: the keys of the index items, no second read.
    let keys = table.query(Ticket::gsi7("acme").priority_eq(&2)).send_keys().await.unwrap();
    let mut got = encoded(&keys.items);
    got.sort_by(|a, b| format!("{a:?}").cmp(&format!("{b:?}")));
    assert_eq!(got, ["t2", "t5"].map(key_of));
    // The same cursor as `send` where both read the same items.
    let us = || table.query(Ticket::gsi6("acme", "us")).max_items(1);
    let keys = us().send_keys().await.unwrap();
    let items = us().send().await.unwrap();
    assert_eq!(encoded(&keys.items), [key_of(&items.items[0].id)]);
    assert!(keys.cursor.is_some());
    assert_eq!(keys.cursor, items.cursor);
    assert_eq!(encoded(&keys.items), [key_of("u2")]);
    let rest = us().after(keys.cursor.clone()).send_keys().await.unwrap();
    assert_eq!(encoded(&rest.items), [key_of("u1")]);
}

/// An empty string is no key attribute value: setting one in an update, an upsert or
/// `set_if_absent` is refused before sending with the entity, index and attribute named, and
/// nothing is written. Removing a key attribute is allowed: the item leaves the sparse index
/// (and stays in the table and in the indexes whose key attributes it still has).
#[tokio::test]
async fn empty_key_attributes_are_refused_in_updates_and_removed_ones_leave_the_index() {
    let table = seeded("mk_update_empty").await;
    let expected =
        KeyError::EmptyKeyAttribute { entity: "Ticket", index: "GSI6", attribute: "region", field: "region" };
    let check = |e: Error| match e {
        Error::Key(k) => assert_eq!(k, expected),
        other => panic!("unexpected {other:?}"),
    };
    let err = table.update(Ticket::key("t1")).set(Ticket::REGION, &String::new()).send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Ticket.region is an empty string, which region, a key attribute of GSI6, cannot hold: \
         DynamoDB refuses an empty key attribute value"
    );
    check(err);
    check(table.update(Ticket::key("t1")).set(Ticket::REGION, &String::new()).render().unwrap_err());
    check(table.upsert(Ticket::key("t9")).set(Ticket::REGION, &String::new()).send().await.unwrap_err());
    check(table.upsert(Ticket::key("t9")).set_if_absent(Ticket::REGION, &String::new()).send().await.unwrap_err());
    // Nothing was written.
    assert_eq!(table.get(Ticket::key("t1")).await.unwrap().unwrap().region, "eu");
    assert_eq!(table.get(Ticket::key("t9")).await.unwrap(), None);
    // A non-empty value is fine.
    table.update(Ticket::key("t1")).set(Ticket::REGION, &"ap".to_owned()).send().await.unwrap();
    assert_eq!(ids(&table.query(Ticket::gsi6("acme", "ap")).all().await.unwrap()), ["t1"]);

    // Removing a key attribute: t2 leaves GSI6 but stays in the table and in GSI7.
    let open = || Ticket::gsi6("acme", "eu").status_eq(&Status::Open);
    table.update(Ticket::key("t2")).remove(Ticket::STATUS).send().await.unwrap();
    assert_eq!(ids(&table.query(open()).all().await.unwrap()), ["t3", "t4", "t8"]); // t1 moved to ap above
    assert_eq!(table.get(Ticket::key("t2")).await.unwrap().unwrap().status, None);
    let raw = common::raw_item(&table, "TICKET#t2", "META").await.unwrap();
    assert!(!raw.contains_key("status"), "{raw:?}");
    let mut in_gsi7 = ids(&table.query(Ticket::gsi7("acme").priority_eq(&2)).all().await.unwrap())
        .into_iter()
        .map(str::to_owned)
        .collect::<Vec<_>>();
    in_gsi7.sort();
    assert_eq!(in_gsi7, ["t2", "t5"]);
}

/// An older shape of the desk's tickets: GSI6 keyed on `zone` where the declaration now says
/// `region` (its 2nd partition key attribute), GSI7 with a 2nd sort key attribute the
/// declaration has not.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "TICKET#<id>",
    sk = "META",
    rename_all = "camelCase",
    gsi1 = "TENANT#<tenant>",
    gsi1_sk = "<created_at>",
    gsi6(pk(tenant, zone), sk(status, created_at, priority)),
    gsi7(pk(tenant), sk(priority, created_at))
)]
pub struct OldTicket {
    pub id: String,
    pub tenant: String,
    pub zone: String,
    pub status: Option<Status>,
    pub created_at: u64,
    pub priority: u32,
}

/// The table as it was created before the declaration changed.
#[derive(TableDef)]
#[table(entities(OldTicket), gsi1(projection = all), gsi6(projection = all), gsi7(projection = keys_only))]
pub struct OldDesk;

/// `Table::diff` compares every attribute of a multi-attribute GSI's key schema, in order and
/// with its type: an index differing only in its 2nd partition key attribute, or in a sort key
/// attribute after the first, is a key schema change, shown in full; `apply` then recreates
/// the two indexes and the table matches its declaration.
#[tokio::test]
async fn diff_compares_the_whole_multi_attribute_key_schema() {
    use dynamo_entity::migrate::{Change, Wait};
    use std::time::Duration;
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("mk_diff"));
    table.create_table_from(&OldDesk::layout().unwrap()).await.unwrap();
    let layout = Desk::layout().unwrap();
    let diff = table.diff(&layout).await.unwrap();
    type Side = Vec<(String, dynamo_entity::key::KeyType)>;
    let keys: Vec<(String, Side, Side)> = diff
        .changes
        .iter()
        .map(|c| match c {
            Change::KeySchema { declared, actual } => (declared.name.clone(), actual.pk.clone(), actual.sk.clone()),
            other => panic!("unexpected change {other}"),
        })
        .collect();
    use dynamo_entity::key::KeyType::{N, S};
    let a = |name: &str, t| (name.to_owned(), t);
    assert_eq!(
        keys,
        [
            (
                "GSI6".to_owned(),
                vec![a("tenant", S), a("zone", S)],
                vec![a("status", S), a("createdAt", N), a("priority", N)]
            ),
            ("GSI7".to_owned(), vec![a("tenant", S)], vec![a("priority", N), a("createdAt", N)]),
        ]
    );
    assert_eq!(
        diff.to_string().replace(table.name(), "<table>"),
        "table <table>: 2 difference(s)\n\
         \x20 index GSI6 key schema: declared tenant (S), region (S) / status (S), createdAt (N), priority (N), table \
         has tenant (S), zone (S) / status (S), createdAt (N), priority (N)\n\
         \x20 index GSI7 key schema: declared tenant (S) / priority (N), table has tenant (S) / priority (N), \
         createdAt (N)\n"
    );
    assert_eq!(
        diff.plan().to_string().replace(table.name(), "<table>"),
        "table <table>: 4 step(s)\n\
         \x20 1. UpdateTable: delete GSI GSI6, wait until it is gone\n\
         \x20 2. UpdateTable: delete GSI GSI7, wait until it is gone\n\
         \x20 3. UpdateTable: create GSI GSI6 on tenant (S), region (S) / status (S), createdAt (N), priority (N), \
         projection ALL, wait until it is ACTIVE\n\
         \x20 4. UpdateTable: create GSI GSI7 on tenant (S) / priority (N), projection KEYS_ONLY, wait until it is \
         ACTIVE\n"
    );
    table.apply(&diff, Wait { timeout: Duration::from_secs(120), poll: Duration::from_millis(100) }).await.unwrap();
    let again = table.diff(&layout).await.unwrap();
    assert!(again.is_empty(), "{again}");
    table.put(&ticket("n1", "eu", Some(Status::Open), 10, 1)).await.unwrap();
    assert_eq!(ids(&table.query(Ticket::gsi6("acme", "eu")).all().await.unwrap()), ["n1"]);
}

/// A ticket whose item is exactly `size` bytes by DynamoDB's rules.
fn sized(id: &str, status: Option<Status>, size: usize) -> Ticket {
    use dynamo_entity::capacity::item_size;
    let mut t = ticket(id, "eu", status, 10, 1);
    t.title = "x".into();
    let base = item_size(&t.to_item().unwrap());
    t.title = "x".repeat(size - base + 1);
    assert_eq!(item_size(&t.to_item().unwrap()), size);
    t
}

/// `TableLayout::write_capacity` counts the multi-attribute GSIs as DynamoDB Local charges
/// them, beside the template GSI: an entry while the item holds every key attribute of the
/// index, a delete and a put when a key attribute changes, nothing once it left the index.
/// `TableLayout::storage` counts their entries (100 bytes of overhead each) the same way.
#[tokio::test]
async fn write_and_storage_estimates_count_multi_attribute_gsis() {
    use dynamo_entity::Index;
    use dynamo_entity::capacity::{Capacity, Units, WriteMode};
    // Sizes at the 1 KB boundary: without the write history.
    let table = table("mk_capacity").await.without_write_tokens();
    let layout = Desk::layout().unwrap();
    let units = |t: f64, g1: f64, g6: f64, g7: f64| {
        let mut c = Capacity::table(Units::writes(t));
        for (i, u) in [(1, g1), (6, g6), (7, g7)] {
            if u > 0.0 {
                c = c.with_index(Index::Gsi(i), Units::writes(u));
            }
        }
        c
    };
    let raw = || common::raw_item(&table, "TICKET#c1", "META");
    let estimate = |b: Option<&dynamo_entity::Item>, a: Option<&dynamo_entity::Item>| {
        layout.write_capacity(b, a, WriteMode::Standard)
    };

    // A put of 1,025 bytes: 2 units in the table and in GSI1 and GSI6, which hold the whole
    // item; 1 in GSI7, whose entry holds the keys only.
    let op = table.metered();
    op.put(&sized("c1", Some(Status::Open), 1025)).await.unwrap();
    let first = raw().await.unwrap();
    assert_eq!((op.consumed(), estimate(None, Some(&first))), (units(2.0, 2.0, 2.0, 1.0), units(2.0, 2.0, 2.0, 1.0)));

    // A sort key attribute of GSI6 (and of GSI1's template) changes: a delete and a put there;
    // GSI7's entry (its keys) is unchanged: no write there.
    let op = table.metered();
    op.update(Ticket::key("c1")).set(Ticket::CREATED_AT, &20).send().await.unwrap();
    let moved = raw().await.unwrap();
    let want = units(2.0, 4.0, 4.0, 0.0);
    assert_eq!((op.consumed(), estimate(Some(&first), Some(&moved))), (want.clone(), want));

    // The status goes: the item leaves GSI6 (the old entry's delete).
    let op = table.metered();
    op.update(Ticket::key("c1")).remove(Ticket::STATUS).send().await.unwrap();
    let sparse = raw().await.unwrap();
    let want = units(2.0, 2.0, 2.0, 0.0);
    assert_eq!((op.consumed(), estimate(Some(&moved), Some(&sparse))), (want.clone(), want));

    // Out of GSI6, a write costs nothing there (the item, 1,015 bytes without its status, now
    // takes 1 unit a KB block).
    let op = table.metered();
    op.update(Ticket::key("c1")).set(Ticket::TITLE, &"short".to_owned()).send().await.unwrap();
    let small = raw().await.unwrap();
    assert_eq!(dynamo_entity::capacity::item_size(&sparse), 1015);
    let want = units(1.0, 1.0, 0.0, 0.0);
    assert_eq!((op.consumed(), estimate(Some(&sparse), Some(&small))), (want.clone(), want));

    // Storage: the table and GSI1 and GSI6 (projection ALL) hold whole items, GSI7 (keys only)
    // PK, SK, tenant and priority; the sparse item is not in GSI6.
    let other = sized("c2", Some(Status::Open), 500).to_item().unwrap();
    let shown: Vec<(&str, usize, usize)> =
        layout.storage(&[small.clone(), other]).iter().map(|s| (s.name, s.items, s.bytes)).collect();
    let small_size = dynamo_entity::capacity::item_size(&small);
    // PK `TICKET#c1` 2 + 9, SK `META` 2 + 4, tenant `acme` 6 + 4, priority 1: 8 + 2 bytes.
    let keys_only = 11 + 6 + 10 + 10;
    assert_eq!(
        shown,
        [
            ("table", 2, small_size + 100 + 500 + 100),
            ("GSI1", 2, small_size + 100 + 500 + 100),
            ("GSI6", 1, 500 + 100),
            ("GSI7", 2, 2 * (keys_only + 100)),
        ]
    );
}

/// Sample items of the design page: three tickets and an alert in acme/eu, a ticket without a
/// status (not in GSI6), one in acme/us.
pub fn design_samples() -> Vec<dynamo_entity::Item> {
    let open = Some(Status::Open);
    let alert =
        Alert { id: 1, tenant: "acme".into(), region: "eu".into(), status: Status::Open, created_at: 95, priority: 9 };
    vec![
        ticket("t1", "eu", open, 100, 1).to_item().unwrap(),
        ticket("t2", "eu", open, 90, 2).to_item().unwrap(),
        ticket("t3", "eu", Some(Status::Closed), 50, 3).to_item().unwrap(),
        ticket("t7", "eu", None, 120, 4).to_item().unwrap(),
        ticket("u1", "us", open, 100, 5).to_item().unwrap(),
        alert.to_item().unwrap(),
    ]
}

/// The SVG diagram, the index views and the HTML design page show each multi-attribute GSI with
/// its key attributes and their types: the index boxes, the entities' edges in the words of
/// their declarations, one view per index (partitions by the partition key attributes' values,
/// items in the order of the sort key attributes', sparse items left out), the key attributes'
/// roles and the access-pattern matrix.
#[test]
fn the_design_page_shows_the_multi_attribute_indexes() {
    use dynamo_entity::design::diagram::overlaps;
    let layout = Desk::layout().unwrap();
    let diagram = layout.diagram();
    let labels: Vec<&str> = diagram.labels.iter().map(|l| l.text.as_str()).collect();
    assert_eq!(
        labels,
        [
            "Ticket",
            "table: TICKET#<id> / META",
            "GSI1: TENANT#<tenant> / <created_at>",
            "GSI6: pk(tenant, region) sk(status, created_at, priority)",
            "GSI7: pk(tenant) sk(priority)",
            "Alert",
            "table: ALERT#<id> / META",
            "GSI6: pk(tenant, region) sk(status, created_at, priority)",
            "GSI7: pk(tenant) sk(priority)",
            "table: PK / SK",
            "GSI1: GSI1PK / GSI1SK",
            "GSI6: tenant (S), region (S) / status (S), createdAt (N), priority (N)",
            "GSI7: tenant (S) / priority (N)",
        ]
    );
    let rects: Vec<_> = diagram.labels.iter().map(|l| l.rect).collect();
    assert_eq!(overlaps(&rects), Vec::<(usize, usize)>::new());
    // The index box text is fitted to its reserved width.
    assert!(diagram.svg.contains(
        "textLength=\"546.0\">GSI6: tenant (S), region (S) / status (S), createdAt (N), priority (N)</text>"
    ));

    let views = layout.item_collections(&design_samples());
    let names: Vec<&str> = views.iter().map(|v| v.name).collect();
    assert_eq!(names, ["table", "GSI1", "GSI6", "GSI7"]);
    let gsi6 = &views[2];
    assert_eq!(
        (gsi6.partition_key.as_str(), gsi6.sort_key.as_str(), gsi6.entities.clone()),
        ("tenant (S), region (S)", "status (S), createdAt (N), priority (N)", vec!["Ticket", "Alert"])
    );
    let partitions: Vec<(&str, Vec<(&str, &str)>)> = gsi6
        .partitions
        .iter()
        .map(|p| (p.key.as_str(), p.items.iter().map(|i| (i.sort_key.as_str(), i.entity.as_str())).collect()))
        .collect();
    assert_eq!(
        partitions,
        [
            (
                "tenant = acme, region = eu",
                vec![
                    ("closed, 50, 3", "Ticket"),
                    ("open, 90, 2", "Ticket"),
                    ("open, 95, 9", "Alert"),
                    ("open, 100, 1", "Ticket")
                ]
            ),
            ("tenant = acme, region = us", vec![("open, 100, 5", "Ticket")]),
        ]
    );
    let reads: Vec<(&str, usize, usize)> =
        gsi6.partitions[0].reads.iter().map(|r| (r.pattern.as_str(), r.read, r.returned)).collect();
    assert_eq!(reads, [("Ticket::gsi6", 4, 3), ("Alert::gsi6", 4, 1)]);
    assert_eq!(gsi6.absent, [("Ticket".to_owned(), "TICKET#t7 / META".to_owned())]);
    // The key attributes are the view's key columns, not among the attributes shown.
    assert_eq!(
        gsi6.partitions[1].items[0].attributes.iter().map(|(a, _)| a.as_str()).collect::<Vec<_>>(),
        ["id", "title"]
    );
    // GSI7 projects the keys only: no other attribute; t7 (no status) and the alert are in it.
    let gsi7 = &views[3];
    let order: Vec<(&str, &str)> =
        gsi7.partitions[0].items.iter().map(|i| (i.sort_key.as_str(), i.table_key.as_str())).collect();
    assert_eq!(gsi7.partitions.iter().map(|p| p.key.as_str()).collect::<Vec<_>>(), ["tenant = acme"]);
    assert_eq!(
        order,
        [
            ("1", "TICKET#t1 / META"),
            ("2", "TICKET#t2 / META"),
            ("3", "TICKET#t3 / META"),
            ("4", "TICKET#t7 / META"),
            ("5", "TICKET#u1 / META"),
            ("9", "ALERT#0000000001 / META")
        ]
    );
    assert!(gsi7.partitions[0].items.iter().all(|i| i.attributes.is_empty()));
    assert!(gsi7.absent.is_empty());
    // In the table's view the key attributes are the items' fields, shown like any other.
    let first = &views[0].partitions[0].items[0];
    assert_eq!(
        first.attributes.iter().map(|(a, _)| a.as_str()).take(3).collect::<Vec<_>>(),
        ["id", "tenant", "region"]
    );

    let html = layout.html("Desk", &design_samples());
    for expected in [
        "<h3 id=\"view-gsi6\">GSI6: <code>tenant (S), region (S)</code> / <code>status (S), createdAt (N), priority (N)\
         </code>, projection ALL</h3>\n<p>Written by: Ticket, Alert.</p>",
        "<thead><tr><th>status (S), createdAt (N), priority (N)</th><th>entity</th><th>table key</th>",
        "<tbody class=\"partition\"><tr><th class=\"pk\" colspan=\"5\">tenant = acme, region = eu <span class=\"count\">(4 \
         items)</span><ul class=\"reads\"><li><code>Ticket::gsi6</code>: one Query on <code>tenant = acme, region = \
         eu</code>, returns 3 of 4,",
        "<p class=\"absent\">Left out (sparse: a key attribute is absent): Ticket <code>TICKET#t7 / META</code>.</p>",
        "<tr><td><code>tenant</code></td><td>S</td><td>GSI6 (partition key attribute 1 of 2), GSI7 (partition key)</td></tr>",
        "<tr><td><code>priority</code></td><td>N</td><td>GSI6 (sort key attribute 3 of 3), GSI7 (sort key)</td></tr>",
        "GSI6 on its attributes <code>tenant</code> (S), <code>region</code> (S) / <code>status</code> (S), \
         <code>createdAt</code> (N), <code>priority</code> (N)<br>GSI7 on its attributes <code>tenant</code> (S) / \
         <code>priority</code> (N)</td></tr>",
        "<tr class=\"pattern\"><td><code>Ticket::gsi6</code></td><td>GSI6</td><td><code>tenant = &lt;tenant&gt; AND \
         region = &lt;region&gt;</code></td><td>status (S), createdAt (N), priority (N)</td><td>Ticket</td><td>yes</td>\
         <td>2</td>",
        "<tr class=\"pattern\"><td><code>Ticket::gsi7</code></td><td>GSI7</td><td><code>tenant = &lt;tenant&gt;</code>\
         </td><td>priority (N)</td><td>Ticket</td><td></td><td>1</td>",
    ] {
        assert!(html.contains(expected), "not on the page: {expected}");
    }
}

/// Two string attributes on each side of GSI6, to reach DynamoDB's aggregate key-size limits.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META", gsi6(pk(a, z), sk(b, c)))]
pub struct Wide {
    pub id: String,
    pub a: String,
    pub z: String,
    pub b: String,
    pub c: String,
}

#[derive(TableDef)]
#[table(entities(Wide), gsi6(projection = all))]
pub struct WideTable;

async fn wide_table(test: &str) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(&WideTable::layout().unwrap()).await.expect("the table is created");
    table
}

fn wide(id: &str, a: usize, z: usize, b: usize, c: usize) -> Wide {
    let x = |n: usize| "x".repeat(n);
    Wide { id: id.to_owned(), a: x(a), z: x(z), b: x(b), c: x(c) }
}

const SORT_OVER: &str = "Wide: the sort key attributes of GSI6 (b (600 bytes), c (600 bytes)) are 1200 bytes \
                         together, 176 over DynamoDB's aggregate limit of 1024 bytes";
const PARTITION_OVER: &str = "Wide: the partition key attributes of GSI6 (a (1500 bytes), z (1500 bytes)) are 3000 \
                              bytes together, 952 over DynamoDB's aggregate limit of 2048 bytes";

fn aggregate(e: Error, side: &'static str, bytes: usize, limit: usize) -> String {
    match &e {
        Error::Key(KeyError::AggregateTooLong {
            entity: "Wide", index: "GSI6", side: s, bytes: b, limit: l, ..
        }) if *s == side && *b == bytes && *l == limit => {}
        other => panic!("expected AggregateTooLong on the {side} side, got {other:?}"),
    }
    e.to_string()
}

#[tokio::test]
async fn aggregate_key_sizes_are_refused_before_sending_on_every_write() {
    let table = wide_table("mk_aggregate").await;
    // At the limits exactly: DynamoDB takes them, so the library measures as it does.
    table.put(&wide("edge", 1024, 1024, 512, 512)).await.unwrap();
    assert_eq!(table.get(Wide::key("edge")).await.unwrap(), Some(wide("edge", 1024, 1024, 512, 512)));
    // One byte more, sent around the library: DynamoDB refuses it.
    {
        use aws_sdk_dynamodb::types::AttributeValue as AV;
        let x = |n: usize| AV::S("x".repeat(n));
        let sent = table
            .client()
            .put_item()
            .table_name(table.name())
            .item("PK", AV::S("DOC#raw".into()))
            .item("SK", AV::S("META".into()))
            .item("a", x(1))
            .item("z", x(1))
            .item("b", x(513))
            .item("c", x(512))
            .send()
            .await;
        // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-partition-sort-keys
        let taken = common::diverges(Divergence::MultiAttributeSortKeyOver1024Bytes).await;
        assert_eq!(sent.is_ok(), taken, "the engine's answer to 1025 bytes of sort key attributes: {sent:?}");
    }

    let sort_big = wide("s", 1, 1, 600, 600);
    let part_big = wide("p", 1500, 1500, 1, 1);
    assert_eq!(aggregate(table.put(&sort_big).await.unwrap_err(), "sort", 1200, 1024), SORT_OVER);
    assert_eq!(aggregate(table.put(&part_big).await.unwrap_err(), "partition", 3000, 2048), PARTITION_OVER);
    assert_eq!(aggregate(table.create(&sort_big).await.unwrap_err(), "sort", 1200, 1024), SORT_OVER);
    assert_eq!(aggregate(table.replace(&part_big).await.unwrap_err(), "partition", 3000, 2048), PARTITION_OVER);
    let err = table.transact().put(&wide("ok", 1, 1, 1, 1)).put(&sort_big).send().await.unwrap_err();
    assert_eq!(aggregate(err, "sort", 1200, 1024), SORT_OVER);
    let err = table.batch_write().put(&wide("ok", 1, 1, 1, 1)).put(&part_big).send().await.unwrap_err();
    assert_eq!(aggregate(err, "partition", 3000, 2048), PARTITION_OVER);
    // Nothing of those was written.
    for id in ["s", "p", "ok"] {
        assert_eq!(table.get(Wide::key(id)).await.unwrap(), None, "{id}");
    }

    // An update setting both sort key attributes is checked whole.
    table.put(&wide("u", 1, 1, 600, 1)).await.unwrap();
    let x = |n: usize| "x".repeat(n);
    let both = || table.update(Wide::key("u")).set(Wide::B, &x(600)).set(Wide::C, &x(600));
    assert_eq!(aggregate(both().send().await.unwrap_err(), "sort", 1200, 1024), SORT_OVER);
    assert_eq!(aggregate(both().render().unwrap_err(), "sort", 1200, 1024), SORT_OVER);
    let err = table.transact().update(both()).send().await.unwrap_err();
    assert_eq!(aggregate(err, "sort", 1200, 1024), SORT_OVER);
    // One attribute alone cannot be checked without the stored item (the module docs say so);
    // DynamoDB Local 3.3.0 accepts such an update, so it is not exercised here.
    // Within the limit, the update moves the item inside the index.
    table.update(Wide::key("u")).set(Wide::C, &x(424)).send().await.unwrap();
    let found = table.query(Wide::gsi6("x", "x").b_eq(&x(600))).all().await.unwrap();
    assert_eq!(found, [wide("u", 1, 1, 600, 424)]);

    // One attribute over its own limit names the field and the index.
    let err = table.put(&wide("one", 1, 1, 1025, 1)).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Wide.b (key attribute `b` of GSI6) is 1025 bytes, 1 over DynamoDB's limit of 1024 bytes"
    );
    assert!(matches!(
        err,
        Error::Key(KeyError::KeyAttributeTooLong {
            entity: "Wide",
            index: "GSI6",
            attribute: "b",
            field: "b",
            bytes: 1025,
            over: 1,
            limit: 1024
        })
    ));
}

#[tokio::test]
async fn query_conditions_dynamodb_refuses_are_refused_before_sending() {
    let table = seeded("mk_query_checks").await;
    let open = || Ticket::gsi6("acme", "eu").status_eq(&Status::Open);
    // Numbers compare numerically: 9 <= 10, though "9" > "10" as text.
    let q = open().created_at_between(&9, &100);
    assert_eq!(ids(&table.query(q).all().await.unwrap()), ["t1"]);
    assert_eq!(ids(&table.query(open().created_at_between(&200, &200)).all().await.unwrap()), ["t2", "t3"]);
    let reversed = "Ticket: a query of GSI6 asks for `createdAt` BETWEEN 300 AND 200, whose lower bound is above its \
                    upper bound: DynamoDB requires low <= high";
    let err = table.query(open().created_at_between(&300, &200)).all().await.unwrap_err();
    assert_eq!(err.to_string(), reversed);
    let Error::Key(key) = err else { panic!("not a key error: {err:?}") };
    assert_eq!(
        key,
        KeyError::ReversedBetween {
            entity: "Ticket",
            index: "GSI6",
            attribute: "createdAt",
            low: "300".into(),
            high: "200".into(),
        }
    );
    assert_eq!(table.query(open().created_at_between(&300, &200)).render().unwrap_err().to_string(), reversed);

    // Strings compare by their bytes; sizes add up over the equalities and the range value.
    let wide_table = wide_table("mk_query_checks_wide").await;
    wide_table.put(&wide("w", 1, 1, 600, 400)).await.unwrap();
    let x = |n: usize| "x".repeat(n);
    let w = || Wide::gsi6("x", "x");
    let err = wide_table.query(w().b_between("b", "a")).all().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Wide: a query of GSI6 asks for `b` BETWEEN \"b\" AND \"a\", whose lower bound is above its upper bound: \
         DynamoDB requires low <= high"
    );
    // "x" < "xxx…" (600 bytes) < "y", byte by byte.
    assert_eq!(wide_table.query(w().b_between("x", "y")).all().await.unwrap().len(), 1);
    assert_eq!(wide_table.query(w().b_between("a", "x")).all().await.unwrap().len(), 0);
    assert_eq!(wide_table.query(w().b_between(&x(600), &x(600))).all().await.unwrap().len(), 1);
    let sort_over = |c: usize| {
        format!(
            "Wide: the sort key attributes of GSI6 (b (600 bytes), c ({c} bytes)) are {} bytes together, {} over \
             DynamoDB's aggregate limit of 1024 bytes",
            600 + c,
            600 + c - 1024
        )
    };
    let b = x(600);
    let over = x(500);
    let err = wide_table.query(w().b_eq(&b).c_eq(&over)).all().await.unwrap_err();
    assert_eq!(aggregate(err, "sort", 1100, 1024), sort_over(500));
    let err = wide_table.query(w().b_eq(&b).c_begins_with(over.as_str())).all().await.unwrap_err();
    assert_eq!(aggregate(err, "sort", 1100, 1024), sort_over(500));
    let err = wide_table.query(w().b_eq(&b).c_gt(&over)).all().await.unwrap_err();
    assert_eq!(aggregate(err, "sort", 1100, 1024), sort_over(500));
    let err = wide_table.query(w().b_eq(&b).c_between("x", &over)).render().unwrap_err();
    assert_eq!(aggregate(err, "sort", 1100, 1024), sort_over(500));
    let err = wide_table.query(Wide::gsi6(&x(1500), &x(1500))).all().await.unwrap_err();
    assert_eq!(aggregate(err, "partition", 3000, 2048), PARTITION_OVER);
    // At the limit, the query is sent and finds the item.
    let found = wide_table.query(w().b_eq(&b).c_begins_with(x(400).as_str())).all().await.unwrap();
    assert_eq!(found, [wide("w", 1, 1, 600, 400)]);
    let found = wide_table.query(w().b_eq(&b).c_le(&x(424))).all().await.unwrap();
    assert_eq!(found, [wide("w", 1, 1, 600, 400)]);
}

#[tokio::test]
async fn begins_with_takes_a_string_reference_as_eq_does() {
    let table = wide_table("mk_begins_string").await;
    let mut item = wide("w", 1, 1, 1, 1);
    item.b = "alpha".to_owned();
    table.put(&item).await.unwrap();
    let mut other = wide("v", 1, 1, 1, 1);
    other.b = "beta".to_owned();
    table.put(&other).await.unwrap();
    let prefix: String = "al".to_owned();
    let found = table.query(Wide::gsi6("x", "x").b_begins_with(&prefix)).all().await.unwrap();
    assert_eq!(found, [item.clone()]);
    let whole: String = "alpha".to_owned();
    assert_eq!(table.query(Wide::gsi6("x", "x").b_eq(&whole)).all().await.unwrap(), [item]);
}

/// A shift of a team on a day: GSI3 is keyed natively on the team and the day (a `Date`,
/// stored as `YYYY-MM-DD` text, which sorts as the days do).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SHIFT#<id>", sk = "META", gsi3(pk(team), sk(day, id)))]
pub struct Shift {
    pub id: String,
    pub team: String,
    pub day: dynamo_entity::value::time::Date,
}

#[tokio::test]
async fn a_date_is_a_key_attribute_ordered_by_day() {
    use dynamo_entity::value::time::Date;
    let table = common::table("mk_date", &[Shift::schema()]).await;
    let day = |s: &str| s.parse::<Date>().unwrap();
    for (id, d) in [("a", "2026-05-28"), ("b", "2025-12-31"), ("c", "2026-01-02"), ("d", "2026-05-28")] {
        table.put(&Shift { id: id.into(), team: "ops".into(), day: day(d) }).await.unwrap();
    }
    let ids = |v: Vec<Shift>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(ids(table.query(Shift::gsi3("ops")).all().await.unwrap()), ["b", "c", "a", "d"]);
    let q = Shift::gsi3("ops").day_between(&day("2026-01-01"), &day("2026-05-28"));
    assert_eq!(ids(table.query(q).all().await.unwrap()), ["c", "a", "d"]);
    let q = Shift::gsi3("ops").day_eq(&day("2026-05-28")).id_gt("a");
    assert_eq!(ids(table.query(q).all().await.unwrap()), ["d"]);
    let raw = common::raw_item(&table, "SHIFT#a", "META").await.unwrap();
    assert_eq!(raw["day"], aws_sdk_dynamodb::types::AttributeValue::S("2026-05-28".into()));
}

/// A note that stores GSI6's `tenant` as a number and declares no GSI: no `TableDef` may list it
/// beside `Ticket` (see `ui/table_multi_key_undeclared_attr.rs`), so it is checked here through a
/// declaration built by hand.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "NOTE#<id>", sk = "META")]
pub struct TenantNote {
    pub id: String,
    pub tenant: u64,
}

/// A number constant in GSI6's string key attribute `tenant`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "FLAG#<id>", sk = "META", constant(tenant = 7))]
pub struct TenantFlag {
    pub id: String,
}

/// Every key attribute of GSI7 (`tenant`, `priority`) with its types, and no GSI declared.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "RANK#<id>", sk = "META")]
pub struct Rank {
    pub id: String,
    pub tenant: String,
    pub priority: u32,
    pub title: String,
}

/// `TableLayout::declared` runs the compile-time check that no entity meets a multi-attribute
/// GSI it does not declare: a key attribute of another type (every write would be refused), or
/// all of them (its items would enter the index). Some of them with the index's types pass.
#[test]
fn a_declaration_built_by_hand_refuses_undeclared_multi_attribute_keys() {
    use dynamo_entity::schema::{GsiDecl, Projection, TableLayout};
    let decl = |n: u8| GsiDecl { index: dynamo_entity::Index::Gsi(n), projection: Projection::All, pk: None, sk: None };
    let indexes = [decl(1), decl(6), decl(7)];
    let err = TableLayout::declared(&[Ticket::schema(), TenantNote::schema()], &indexes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: entity `TenantNote` stores attribute `tenant` as N, but `tenant` is a key attribute of \
         GSI6, of type S, as `Ticket` keys it (`gsi6(pk(...), sk(...))`): DynamoDB refuses every write of an item \
         whose index key attribute has another type (\"Type mismatch for Index Key\"); store the field under \
         another name with `#[entity(rename = \"...\")]`"
    );
    let err = TableLayout::declared(&[Ticket::schema(), Rank::schema()], &indexes).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: entity `Rank` stores every key attribute of GSI7 (`tenant`, `priority`), which `Ticket` \
         keys on them, but does not declare the index: its items would enter GSI7 and the index's queries would \
         read them as another entity's; declare `gsi7(pk(...), sk(...))` on `Rank` with the same key attributes, \
         or store one of these fields under another name with `#[entity(rename = \"...\")]`"
    );
    // Alert declares both multi-attribute GSIs; the declaration passes.
    assert!(TableLayout::declared(&[Ticket::schema(), Alert::schema()], &indexes).is_ok());
    // The layout without declared indexes (`create_table`'s) runs the same check.
    let err = TableLayout::new(&[Ticket::schema(), Rank::schema()]).unwrap_err();
    assert!(err.to_string().starts_with("invalid request: entity `Rank` stores every key attribute of GSI7"), "{err}");
    // A constant is stored with its literal's type: a number under the string `tenant`.
    let err = TableLayout::new(&[Ticket::schema(), TenantFlag::schema()]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: entity `TenantFlag` stores attribute `tenant` as N, but `tenant` is a key attribute of \
         GSI6, of type S, as `Ticket` keys it (`gsi6(pk(...), sk(...))`): DynamoDB refuses every write of an item \
         whose index key attribute has another type (\"Type mismatch for Index Key\"); give the constant another \
         attribute name"
    );
}

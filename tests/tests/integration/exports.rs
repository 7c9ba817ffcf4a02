//! The exports of the examples' table layouts, pinned as snapshots (CloudFormation, NoSQL
//! Workbench, Markdown), and the NoSQL Workbench data model checked against the schema of the
//! format that Workbench imports.
//!
//! After an intended change: `INSTA_UPDATE=always cargo test -p dynamo-entity-tests --test integration -- exports::`
//! and review the diff of `tests/tests/snapshots/`.

use crate::common;
use crate::common::insta;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use dynamo_entity::design::workbench::WorkbenchModel;
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Item, Timestamp};
use dynamo_entity_examples::skill_exchange::{self, AnyItem, schemas};
use serde_json::{Value, json};

fn layout() -> TableLayout {
    TableLayout::new(&schemas()).unwrap()
}

// ---------------------------------------------------------------------------------------------
// Snapshots

#[test]
fn skill_exchange_cloudformation() {
    insta::assert_json_snapshot!("skill_exchange_cloudformation", layout().cloudformation("skill-exchange"));
}

#[test]
fn skill_exchange_markdown() {
    insta::assert_snapshot!("skill_exchange_markdown", layout().markdown("Skill Exchange"));
}

#[test]
fn skill_exchange_workbench() {
    insta::assert_json_snapshot!("skill_exchange_workbench", skill_exchange::workbench_json().unwrap());
}

fn vault_commerce() -> TableLayout {
    TableLayout::new(&dynamo_entity_examples::vault_commerce::schemas()).unwrap()
}

/// Vault Commerce as a NoSQL Workbench model: two samples per entity from its data set.
fn vault_commerce_workbench() -> Value {
    use dynamo_entity_examples::vault_commerce::{Dataset, Sizes};
    let data = Dataset::generate(7, Sizes::SMALL);
    let model = WorkbenchModel::new("Vault Commerce", "vault-commerce")
        .dated(Timestamp::from_millis(1_767_225_600_000).unwrap())
        .samples(data.users.iter().take(2))
        .and_then(|m| m.samples(data.orders.iter().take(2)))
        .and_then(|m| m.samples(data.wishes.iter().take(2)))
        .and_then(|m| m.samples(data.products.iter().take(2)))
        .unwrap();
    vault_commerce().workbench(&model).unwrap()
}

#[test]
fn vault_commerce_cloudformation() {
    insta::assert_json_snapshot!("vault_commerce_cloudformation", vault_commerce().cloudformation("vault-commerce"));
}

#[test]
fn vault_commerce_markdown() {
    insta::assert_snapshot!("vault_commerce_markdown", vault_commerce().markdown("Vault Commerce"));
}

#[test]
fn vault_commerce_workbench_model() {
    let model = vault_commerce_workbench();
    assert_eq!(complaints(&model), Vec::<String>::new());
    assert_eq!(cross_check(&model), Vec::<String>::new());
    insta::assert_json_snapshot!("vault_commerce_workbench", model);
}

/// Orders, from its table declaration (`#[derive(TableDef)]`).
fn orders() -> TableLayout {
    dynamo_entity_examples::orders::layout().unwrap()
}

#[test]
fn orders_cloudformation() {
    insta::assert_json_snapshot!("orders_cloudformation", orders().cloudformation("orders"));
}

#[test]
fn orders_markdown() {
    insta::assert_snapshot!("orders_markdown", orders().markdown("Orders"));
}

#[test]
fn orders_workbench_model() {
    use dynamo_entity_examples::orders::data::{Dataset, Sizes, base_time};
    let data = Dataset::generate(11, Sizes::SMALL);
    let model = WorkbenchModel::new("Orders", "orders")
        .dated(base_time())
        .samples(data.users.iter().take(2))
        .and_then(|m| m.samples(data.orders.iter().take(2)))
        .and_then(|m| m.samples(data.products.iter().take(2)))
        .unwrap();
    let model = orders().workbench(&model).unwrap();
    assert_eq!(complaints(&model), Vec::<String>::new());
    assert_eq!(cross_check(&model), Vec::<String>::new());
    insta::assert_json_snapshot!("orders_workbench", model);
}

// ---------------------------------------------------------------------------------------------
// The NoSQL Workbench format

const SCHEMA: &str = include_str!("../../../dynamo-entity/schemas/nosql-workbench-model.schema.json");

fn validator() -> jsonschema::Validator {
    let schema: Value = serde_json::from_str(SCHEMA).unwrap();
    jsonschema::validator_for(&schema).unwrap()
}

/// The schema's complaints about `model`, as `path: message` lines.
fn complaints(model: &Value) -> Vec<String> {
    validator().iter_errors(model).map(|e| format!("{}: {e}", e.instance_path())).collect()
}

/// What JSON Schema cannot say: every facet's attributes and every GSI key are declared by the
/// table with one type, every sample item has the table's keys, and the facets' items are the
/// table's items.
fn cross_check(model: &Value) -> Vec<String> {
    cross_check_mixed(model, &[])
}

/// As [`cross_check`], but the attributes `mixed` may hold values of another type than the
/// table declares (`WorkbenchModel::mixed_types`).
fn cross_check_mixed(model: &Value, mixed: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for table in model["DataModel"].as_array().unwrap() {
        let declared: Vec<(&str, &str)> = table["NonKeyAttributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| (a["AttributeName"].as_str().unwrap(), a["AttributeType"].as_str().unwrap()))
            .collect();
        let keys = &table["KeyAttributes"];
        let pk = keys["PartitionKey"]["AttributeName"].as_str().unwrap();
        let sk = keys["SortKey"]["AttributeName"].as_str();
        let type_of = |name: &str| -> Option<&str> {
            for k in [&keys["PartitionKey"], &keys["SortKey"]] {
                if k["AttributeName"] == name {
                    return k["AttributeType"].as_str();
                }
            }
            declared.iter().find(|(n, _)| *n == name).map(|(_, t)| *t)
        };
        let mut names: Vec<&str> = declared.iter().map(|(n, _)| *n).collect();
        names.sort_unstable();
        if names.windows(2).any(|w| w[0] == w[1]) {
            out.push(format!("{}: an attribute is declared twice", table["TableName"]));
        }
        let check_item = |where_: &str, item: &Value, out: &mut Vec<String>| {
            for required in std::iter::once(pk).chain(sk) {
                if item.get(required).is_none() {
                    out.push(format!("{where_}: an item lacks key attribute {required}"));
                }
            }
            for (name, value) in item.as_object().unwrap() {
                let found = value.as_object().unwrap().keys().next().unwrap().as_str();
                match type_of(name) {
                    Some(t) if t == found || mixed.contains(&name.as_str()) => {}
                    Some(t) => out.push(format!("{where_}: attribute {name} is {found}, declared {t}")),
                    None => out.push(format!("{where_}: attribute {name} is not declared")),
                }
            }
        };
        let data = table["TableData"].as_array().unwrap();
        for item in data {
            check_item("TableData", item, &mut out);
        }
        for g in table["GlobalSecondaryIndexes"].as_array().unwrap() {
            for k in [&g["KeyAttributes"]["PartitionKey"], &g["KeyAttributes"]["SortKey"]] {
                let name = k["AttributeName"].as_str().unwrap();
                if type_of(name) != k["AttributeType"].as_str() {
                    out.push(format!(
                        "GSI {}: key {name} is not declared with type {}",
                        g["IndexName"], k["AttributeType"]
                    ));
                }
            }
        }
        for g in table["GlobalSecondaryIndexes"].as_array().unwrap() {
            for a in g["Projection"]["NonKeyAttributes"].as_array().into_iter().flatten() {
                if type_of(a.as_str().unwrap()).is_none() {
                    out.push(format!("GSI {}: projected attribute {a} is not declared", g["IndexName"]));
                }
            }
        }
        for f in table["TableFacets"].as_array().unwrap() {
            let facet = f["FacetName"].as_str().unwrap();
            for a in f["NonKeyAttributes"].as_array().unwrap() {
                if type_of(a.as_str().unwrap()).is_none() {
                    out.push(format!("facet {facet}: attribute {a} is not declared by the table"));
                }
            }
            for item in f["TableData"].as_array().unwrap() {
                check_item(&format!("facet {facet}"), item, &mut out);
                if !data.contains(item) {
                    out.push(format!("facet {facet}: an item is not in TableData"));
                }
                let listed = |name: &str| {
                    name == pk
                        || Some(name) == sk
                        || f["NonKeyAttributes"].as_array().unwrap().iter().any(|a| a == name)
                };
                for name in item.as_object().unwrap().keys() {
                    if !listed(name) {
                        out.push(format!("facet {facet}: an item has attribute {name}, which the facet does not list"));
                    }
                }
            }
        }
    }
    out
}

#[test]
fn the_workbench_model_follows_the_format() {
    let model = skill_exchange::workbench_json().unwrap();
    assert_eq!(complaints(&model), Vec::<String>::new());
    assert_eq!(cross_check_mixed(&model, &["id"]), Vec::<String>::new());
    // `id` is declared a string; the reviews' numeric ids are kept as numbers.
    assert_eq!(
        cross_check(&model),
        vec![
            "TableData: attribute id is N, declared S".to_owned(),
            "TableData: attribute id is N, declared S".to_owned(),
            "TableData: attribute id is N, declared S".to_owned(),
            "facet Review: attribute id is N, declared S".to_owned(),
            "facet Review: attribute id is N, declared S".to_owned(),
            "facet Review: attribute id is N, declared S".to_owned(),
        ]
    );
    let table = &model["DataModel"][0];
    let facets: Vec<&str> =
        table["TableFacets"].as_array().unwrap().iter().map(|f| f["FacetName"].as_str().unwrap()).collect();
    assert_eq!(facets, ["User", "Badge", "Skill", "Review", "Purchase", "Coupon", "Redemption"]);
    // Three samples per entity, all of them in TableData.
    for f in table["TableFacets"].as_array().unwrap() {
        assert_eq!(f["TableData"].as_array().unwrap().len(), 3, "{}", f["FacetName"]);
    }
    assert_eq!(table["TableData"].as_array().unwrap().len(), 21);
    let gsis: Vec<(&str, &str)> = table["GlobalSecondaryIndexes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| (g["IndexName"].as_str().unwrap(), g["KeyAttributes"]["SortKey"]["AttributeType"].as_str().unwrap()))
        .collect();
    // GSI1, keyed on the skills' own `category` / `downloads`, after the template GSIs.
    assert_eq!(gsis, [("GSI2", "S"), ("GSI3", "S"), ("GSI4", "S"), ("GSI5", "N"), ("GSI1", "N")]);
    assert_eq!(table["GlobalSecondaryIndexes"][4]["KeyAttributes"]["PartitionKey"]["AttributeName"], "category");
    assert_eq!(table["GlobalSecondaryIndexes"][4]["KeyAttributes"]["SortKey"]["AttributeName"], "downloads");
    // Every index fits the model: nothing to note.
    assert!(!model["ModelMetadata"]["Description"].as_str().unwrap().contains("Not in this model"));
    assert_eq!(table["BillingMode"], "PAY_PER_REQUEST");
    assert_eq!(model["ModelMetadata"]["Version"], "3.0");
    assert_eq!(model["ModelMetadata"]["DateCreated"], "Jan 01, 2026, 12:00 AM");
    // The skill facet's aliases are its key templates.
    let skill = &table["TableFacets"][2];
    assert_eq!(skill["KeyAttributeAlias"], json!({ "PartitionKeyAlias": "SKILL#<id>", "SortKeyAlias": "META" }));
    // The draft sample is left out of the sparse GSI4: no GSI4 keys.
    let drafts: Vec<&Value> =
        skill["TableData"].as_array().unwrap().iter().filter(|i| i["status"] == json!({ "S": "draft" })).collect();
    assert_eq!(drafts.len(), 1);
    assert!(drafts[0].get("GSI4PK").is_none() && drafts[0].get("GSI4SK").is_none());
}

/// A change that breaks a model.
type Break = Box<dyn Fn(&mut Value)>;

/// Each mutation breaks one rule of the format; the schema (or the cross-check) must notice.
#[test]
fn the_schema_rejects_broken_models() {
    let good = skill_exchange::workbench_json().unwrap();
    let breaks: Vec<(&str, Break)> = vec![
        ("no ModelName", Box::new(|m| _ = m.as_object_mut().unwrap().remove("ModelName"))),
        ("unknown top-level property", Box::new(|m| m["Models"] = json!([]))),
        ("unknown format version", Box::new(|m| m["ModelMetadata"]["Version"] = json!("4.0"))),
        ("no table", Box::new(|m| m["DataModel"] = json!([]))),
        ("table name too short", Box::new(|m| m["DataModel"][0]["TableName"] = json!("ab"))),
        ("table name with a space", Box::new(|m| m["DataModel"][0]["TableName"] = json!("skill exchange"))),
        (
            "no partition key",
            Box::new(|m| _ = m["DataModel"][0]["KeyAttributes"].as_object_mut().unwrap().remove("PartitionKey")),
        ),
        ("a BOOL key", Box::new(|m| m["DataModel"][0]["KeyAttributes"]["SortKey"]["AttributeType"] = json!("BOOL"))),
        (
            "an unknown attribute type",
            Box::new(|m| m["DataModel"][0]["NonKeyAttributes"][0]["AttributeType"] = json!("STRING")),
        ),
        (
            "a facet without aliases",
            Box::new(|m| _ = m["DataModel"][0]["TableFacets"][0].as_object_mut().unwrap().remove("KeyAttributeAlias")),
        ),
        (
            "a facet listing an attribute twice",
            Box::new(|m| m["DataModel"][0]["TableFacets"][0]["NonKeyAttributes"] = json!(["_type", "_type"])),
        ),
        (
            "a GSI without projection",
            Box::new(|m| {
                _ = m["DataModel"][0]["GlobalSecondaryIndexes"][0].as_object_mut().unwrap().remove("Projection")
            }),
        ),
        (
            "an INCLUDE projection without attributes",
            Box::new(|m| {
                m["DataModel"][0]["GlobalSecondaryIndexes"][0]["Projection"] = json!({ "ProjectionType": "INCLUDE" })
            }),
        ),
        (
            "21 GSIs",
            Box::new(|m| {
                let g = m["DataModel"][0]["GlobalSecondaryIndexes"][0].clone();
                m["DataModel"][0]["GlobalSecondaryIndexes"] = Value::Array(vec![g; 21]);
            }),
        ),
        ("an unknown billing mode", Box::new(|m| m["DataModel"][0]["BillingMode"] = json!("ON_DEMAND"))),
        ("provisioned without capacity", Box::new(|m| m["DataModel"][0]["BillingMode"] = json!("PROVISIONED"))),
        ("a value that is plain JSON", Box::new(|m| m["DataModel"][0]["TableData"][0]["name"] = json!("Ann"))),
        (
            "a value with two types",
            Box::new(|m| m["DataModel"][0]["TableData"][0]["name"] = json!({ "S": "a", "N": "1" })),
        ),
        ("a number that is not one", Box::new(|m| m["DataModel"][0]["TableData"][0]["sales"] = json!({ "N": "12a" }))),
        (
            "a number given as a JSON number",
            Box::new(|m| m["DataModel"][0]["TableData"][0]["sales"] = json!({ "N": 12 })),
        ),
        (
            "binary that is not base64",
            Box::new(|m| m["DataModel"][0]["TableData"][0]["x"] = json!({ "B": "not base64!" })),
        ),
        ("an empty set", Box::new(|m| m["DataModel"][0]["TableData"][0]["x"] = json!({ "SS": [] }))),
        ("a set with a duplicate", Box::new(|m| m["DataModel"][0]["TableData"][0]["x"] = json!({ "NS": ["1", "1"] }))),
        ("NULL false", Box::new(|m| m["DataModel"][0]["TableData"][0]["x"] = json!({ "NULL": false }))),
        (
            "a nested value that is plain JSON",
            Box::new(|m| m["DataModel"][0]["TableData"][0]["x"] = json!({ "M": { "a": 1 } })),
        ),
        // Rules only the cross-check sees.
        (
            "an undeclared attribute in an item",
            Box::new(|m| m["DataModel"][0]["TableData"][0]["undeclared"] = json!({ "S": "x" })),
        ),
        (
            "an item whose type disagrees",
            Box::new(|m| m["DataModel"][0]["TableData"][0]["_type"] = json!({ "N": "1" })),
        ),
        (
            "an item without its sort key",
            Box::new(|m| _ = m["DataModel"][0]["TableData"][0].as_object_mut().unwrap().remove("SK")),
        ),
        (
            "a facet attribute the table does not declare",
            Box::new(|m| m["DataModel"][0]["TableFacets"][0]["NonKeyAttributes"] = json!(["ghost"])),
        ),
        (
            "a GSI key of another type",
            Box::new(|m| {
                // GSI1, keyed on the skills' `downloads` (N), after the four template GSIs.
                m["DataModel"][0]["GlobalSecondaryIndexes"][4]["KeyAttributes"]["SortKey"]["AttributeType"] = json!("S")
            }),
        ),
    ];
    for (what, break_it) in &breaks {
        let mut m = good.clone();
        break_it(&mut m);
        assert!(
            !complaints(&m).is_empty() || !cross_check_mixed(&m, &["id"]).is_empty(),
            "the broken model ({what}) passed both checks"
        );
    }
    // The first group breaks the schema itself.
    let schema_only = breaks.len() - 5;
    for (what, break_it) in &breaks[..schema_only] {
        let mut m = good.clone();
        break_it(&mut m);
        assert!(!complaints(&m).is_empty(), "the schema accepts a model with {what}");
    }
}

#[test]
fn the_committed_workbench_model_is_current() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/skill_exchange/skill_exchange.workbench.json");
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    let current = serde_json::to_string_pretty(&skill_exchange::workbench_json().unwrap()).unwrap() + "\n";
    assert!(
        committed == current,
        "examples/skill_exchange/skill_exchange.workbench.json is stale: run `cargo run -p dynamo-entity-examples --example skill_exchange -- --design`"
    );
}

/// DynamoDB JSON back to an attribute value.
fn attribute(v: &Value) -> AttributeValue {
    let (tag, inner) = v.as_object().unwrap().iter().next().unwrap();
    let strings = || inner.as_array().unwrap().iter().map(|s| s.as_str().unwrap().to_owned()).collect::<Vec<_>>();
    match tag.as_str() {
        "S" => AttributeValue::S(inner.as_str().unwrap().into()),
        "N" => AttributeValue::N(inner.as_str().unwrap().into()),
        "B" => AttributeValue::B(Blob::new(STANDARD.decode(inner.as_str().unwrap()).unwrap())),
        "BOOL" => AttributeValue::Bool(inner.as_bool().unwrap()),
        "NULL" => AttributeValue::Null(true),
        "M" => AttributeValue::M(inner.as_object().unwrap().iter().map(|(k, v)| (k.clone(), attribute(v))).collect()),
        "L" => AttributeValue::L(inner.as_array().unwrap().iter().map(attribute).collect()),
        "SS" => AttributeValue::Ss(strings()),
        "NS" => AttributeValue::Ns(strings()),
        "BS" => AttributeValue::Bs(strings().iter().map(|s| Blob::new(STANDARD.decode(s).unwrap())).collect()),
        other => panic!("unknown DynamoDB JSON type {other}"),
    }
}

/// The sample items of the export, written to a table and read back, decode into the values
/// they were made from.
#[tokio::test]
async fn the_sample_items_load_into_dynamodb_and_decode() {
    let model = skill_exchange::workbench_json().unwrap();
    let table = common::table("workbench_samples", &schemas()).await;
    let items: Vec<Item> = model["DataModel"][0]["TableData"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_object().unwrap().iter().map(|(k, v)| (k.clone(), attribute(v))).collect())
        .collect();
    for item in &items {
        table.client().put_item().table_name(table.name()).set_item(Some(item.clone())).send().await.unwrap();
    }
    let mut decoded = Vec::new();
    for item in &items {
        let back = common::raw_item(&table, item["PK"].as_s().unwrap(), item["SK"].as_s().unwrap()).await.unwrap();
        assert_eq!(&back, item);
        decoded.push(<AnyItem as dynamo_entity::EntityEnum>::decode(&back).unwrap().unwrap());
    }
    let data = skill_exchange::Dataset::generate(42, skill_exchange::Sizes::SMALL);
    assert_eq!(decoded[0], AnyItem::User(data.users[0].clone()));
    assert_eq!(decoded[3], AnyItem::Badge(data.badges[0].clone()));
}

#[test]
fn samples_must_show_every_attribute_with_one_type() {
    use dynamo_entity_examples::skill_exchange::{Coupon, Redemption, User, UserId};
    let layout = TableLayout::new(&[User::schema(), Coupon::schema(), Redemption::schema()]).unwrap();
    let at = Timestamp::EPOCH;
    let user = User {
        id: UserId("u1".into()),
        name: "Ann".into(),
        email: "ann@example.test".into(),
        verified: true,
        sales: 3,
        created_at: at,
    };
    let coupon = Coupon { code: "C".into(), percent_off: 10, expires_at: at };
    let redemption = Redemption { code: "C".into(), user_id: UserId("u1".into()), redeemed_at: at };
    let model = || WorkbenchModel::new("m", "table-name").dated(at);

    // An entity without samples: its attributes have no known type.
    let err = layout.workbench(&model().sample(&user).unwrap().sample(&coupon).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: NoSQL Workbench export: no sample item shows the type of attribute `user_id` of Redemption; \
         add a sample Redemption in which it is present"
    );
    // An item of an entity the layout does not hold.
    let mut stray = user.to_item().unwrap();
    stray.insert("_type".into(), AttributeValue::S("Ghost".into()));
    let mut m = model().sample(&user).unwrap().sample(&coupon).unwrap().sample(&redemption).unwrap();
    m = m.item(stray);
    let err = layout.workbench(&m).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: NoSQL Workbench export: sample item PK=USER#u1 SK=PROFILE has entity type Ghost, which is no entity of the table"
    );
    // Two types for one attribute name.
    let mut odd = redemption.to_item().unwrap();
    odd.insert("code".into(), AttributeValue::N("7".into()));
    let m = model().sample(&coupon).unwrap().sample(&user).unwrap().item(odd);
    let err = layout.workbench(&m).unwrap_err();
    assert!(matches!(err, Error::Invalid { .. }));
    assert_eq!(
        err.to_string(),
        "invalid request: NoSQL Workbench export: attribute `code` is N in Redemption PK=COUPON#C SK=USED#u1 but S in \
         Coupon PK=COUPON#C SK=META; a NoSQL Workbench model gives each attribute one type (see \
         WorkbenchModel::mixed_types)"
    );
    // Allowed, the table declares the type of the first entity of the layout (User before
    // Coupon before Redemption).
    let mut odd = redemption.to_item().unwrap();
    odd.insert("code".into(), AttributeValue::N("7".into()));
    let m = model().mixed_types(true).sample(&coupon).unwrap().sample(&user).unwrap().item(odd);
    let mixed = layout.workbench(&m).unwrap();
    let declared: Vec<&Value> = mixed["DataModel"][0]["NonKeyAttributes"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["AttributeName"] == "code")
        .collect();
    assert_eq!(declared, [&json!({ "AttributeName": "code", "AttributeType": "S" })]);
    assert_eq!(mixed["DataModel"][0]["TableFacets"][2]["TableData"][0]["code"], json!({ "N": "7" }));
    // A table name DynamoDB would refuse.
    let full = || model().sample(&user).unwrap().sample(&coupon).unwrap().sample(&redemption).unwrap();
    let err = layout.workbench(&WorkbenchModel::new("m", "my table").dated(at).sample(&user).unwrap()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: NoSQL Workbench export: table name \"my table\" is not a DynamoDB table name (3 to 255 \
         characters of a-z, A-Z, 0-9, `_`, `-`, `.`)"
    );
    assert!(layout.workbench(&full()).is_ok());
    // With every entity shown, the export is valid.
    let ok = layout
        .workbench(&model().sample(&user).unwrap().sample(&coupon).unwrap().sample(&redemption).unwrap())
        .unwrap();
    assert_eq!(complaints(&ok), Vec::<String>::new());
    assert_eq!(cross_check(&ok), Vec::<String>::new());
}

//! Shared set-up of the integration tests: one DynamoDB Local per run (from
//! `DYNAMODB_ENDPOINT`, or started by the harness), one fresh table per test.

#![allow(dead_code)]

use dynamo_entity::Table;
use dynamo_entity::schema::EntitySchema;
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

/// A new, empty table named after the test, created for `entities`.
pub async fn table(test: &str, entities: &[&'static EntitySchema]) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table(entities).await.expect("the table is created");
    table
}

/// True if the engine of this run (`DYNAMO_ENTITY_ENGINE`) departs from DynamoDB's documented
/// behaviour as `divergence` says: tests assert DynamoDB's behaviour, or the engine's where it
/// diverges (`dynamo_entity_local::DIVERGENCES`).
pub async fn diverges(divergence: dynamo_entity_local::Divergence) -> bool {
    LocalDynamoDb::shared().await.expect("DynamoDB Local is available").diverges(divergence)
}

/// `item` with the elements of every set (`SS`, `NS`, `BS`), at any depth, in one order, and
/// every number in one form (`1.5E-3` and `0.0015` alike): DynamoDB keeps a set, not the order
/// of its elements ("The order of the values within a set is not preserved",
/// https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/HowItWorks.NamingRulesDataTypes.html#HowItWorks.DataTypes.SetTypes),
/// and a number, not the text it was sent as (engines answer `1.5E-3` or `0.0015`).
pub fn sets_sorted(item: dynamo_entity::Item) -> dynamo_entity::Item {
    item.into_iter().map(|(name, value)| (name, value_sets_sorted(value))).collect()
}

/// `value` with the elements of its sets sorted, at any depth (see [`sets_sorted`]).
pub fn value_sets_sorted(value: aws_sdk_dynamodb::types::AttributeValue) -> aws_sdk_dynamodb::types::AttributeValue {
    use aws_sdk_dynamodb::types::AttributeValue as AV;
    match value {
        AV::Ss(mut v) => {
            v.sort();
            AV::Ss(v)
        }
        AV::Ns(v) => {
            let mut v: Vec<String> = v.into_iter().map(number_form).collect();
            v.sort();
            AV::Ns(v)
        }
        AV::N(n) => AV::N(number_form(n)),
        AV::Bs(mut v) => {
            v.sort_by(|a, b| a.as_ref().cmp(b.as_ref()));
            AV::Bs(v)
        }
        AV::L(v) => AV::L(v.into_iter().map(value_sets_sorted).collect()),
        AV::M(m) => AV::M(sets_sorted(m)),
        other => other,
    }
}

/// A number's text in one form (exact decimal, no exponent, no trailing zeros) when it fits a
/// `rust_decimal::Decimal`; otherwise as it is.
fn number_form(text: String) -> String {
    use std::str::FromStr;
    let parsed = rust_decimal::Decimal::from_str(&text).or_else(|_| rust_decimal::Decimal::from_scientific(&text));
    parsed.map_or(text, |n| n.normalize().to_string())
}

/// `item` without the write history the library adds to what it writes (`_w1` to `_w4`, see
/// `dynamo_entity::write_token`): the tests of stored items compare what the entity wrote;
/// `exactly_once` tests the history.
pub fn without_history(mut item: dynamo_entity::Item) -> dynamo_entity::Item {
    for attribute in dynamo_entity::write_token::HISTORY {
        item.remove(attribute);
    }
    item
}

/// The raw item stored under `pk` / `sk`, read with the SDK alone, without the write history.
pub async fn raw_item(table: &Table, pk: &str, sk: &str) -> Option<dynamo_entity::Item> {
    use aws_sdk_dynamodb::types::AttributeValue;
    table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", AttributeValue::S(pk.to_owned()))
        .key("SK", AttributeValue::S(sk.to_owned()))
        .consistent_read(true)
        .send()
        .await
        .expect("GetItem succeeds")
        .item
        .map(without_history)
}

/// Every item of the table, read with the SDK alone: strongly consistent `Scan` pages until
/// `LastEvaluatedKey` is absent, in the order DynamoDB returns them; without the write history.
pub async fn scan_all(table: &Table) -> Vec<dynamo_entity::Item> {
    let mut items = Vec::new();
    let mut start = None;
    loop {
        let page = table
            .client()
            .scan()
            .table_name(table.name())
            .consistent_read(true)
            .set_exclusive_start_key(start)
            .send()
            .await
            .expect("Scan succeeds");
        items.extend(page.items.unwrap_or_default().into_iter().map(without_history));
        match page.last_evaluated_key {
            Some(key) => start = Some(key),
            None => return items,
        }
    }
}

/// The table's description (`DescribeTable`) and its attribute definitions, name to type.
pub async fn describe(
    table: &Table,
) -> (
    aws_sdk_dynamodb::types::TableDescription,
    std::collections::BTreeMap<String, aws_sdk_dynamodb::types::ScalarAttributeType>,
) {
    let desc = table.client().describe_table().table_name(table.name()).send().await.unwrap().table.unwrap();
    let defs = desc
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name().to_owned(), d.attribute_type().clone()))
        .collect();
    (desc, defs)
}

/// insta's snapshot macros as the snapshot tests call them (`insta::assert_snapshot!(name, ...)`,
/// `insta::assert_json_snapshot!(name, ...)`, imported with `use crate::common::insta;`), with
/// the snapshot files named as when each module was a test binary of its own:
/// `tests/tests/snapshots/<module>__<name>.snap`. insta's own would prefix the whole module path
/// (`integration__render__`) and look in a `snapshots/` folder beside the module's file.
pub mod rolling;

pub mod insta {
    macro_rules! named {
        ($assert:ident, $name:expr, $($rest:tt)+) => {{
            let module = module_path!().rsplit("::").next().unwrap_or_default();
            let mut settings = ::insta::Settings::clone_current();
            settings.set_prepend_module_to_snapshot(false);
            settings.set_snapshot_path("../snapshots");
            let _settings = settings.bind_to_scope();
            ::insta::$assert!(format!("{module}__{}", $name), $($rest)+);
        }};
    }
    macro_rules! assert_snapshot {
        ($($args:tt)+) => { $crate::common::insta::named!(assert_snapshot, $($args)+) };
    }
    macro_rules! assert_json_snapshot {
        ($($args:tt)+) => { $crate::common::insta::named!(assert_json_snapshot, $($args)+) };
    }
    pub(crate) use {assert_json_snapshot, assert_snapshot, named};
}

/// Clears `faults`' rules and records, then puts `fault` on every `operation` request from now
/// on (`times`: only the first ones). For the exactly-once tests.
pub fn lose(
    faults: &dynamo_entity_local::fault::FaultInjector,
    fault: dynamo_entity_local::fault::Fault,
    operation: &str,
    times: Option<u64>,
) {
    faults.clear_rules();
    faults.reset_records();
    let rule = dynamo_entity_local::fault::FaultRule::new(fault).on(operation);
    faults.add(match times {
        Some(n) => rule.times(n),
        None => rule,
    });
}

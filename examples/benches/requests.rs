//! Request building: a complete `PutItem`, `UpdateItem` (with a GSI key rewrite) and `Query`
//! for the Skill entity, from the library's typed builders (rendered without sending, by the
//! code that sends them) against the same request built by hand with the SDK's fluent
//! builders, in one run.
//!
//! * `put`: `Table::put` of a Skill: the item (11 fields, `PK`/`SK`, the GSI2 and GSI4 key
//!   pairs, the type attribute; GSI1 is keyed on the fields `category` / `downloads` themselves)
//!   with the condition that no item of another entity type has its key.
//! * `update`: approving a skill: `status` and `submitted_at` set, the GSI4 key pair rebuilt
//!   from them (`SKILL#approved`, the new submission time), the item must exist and be a
//!   Skill, `ReturnValues = ALL_NEW`.
//! * `query`: GSI1 of one category, by downloads descending, 20 items (the key condition on the
//!   item's own attribute, `category = :p0`).
//!
//! Each way builds the SDK's `...Input` (what `render()` returns) with its plain input builder
//! (`PutItemInput::builder()` ... `.build()`), which `build()` consumes: neither copies the
//! input (the library's `send` moves the same builder into the client; a fluent builder's
//! `as_input().clone()` would copy it). The benchmark asserts that both inputs are equal before
//! measuring. No request is sent; no server is needed.
//!
//! Criterion measures each of the six, one after the other; the ratios come from a second
//! measurement that times the library and the hand-written code in alternation (40 rounds of
//! about 20 ms of the thread's CPU time each, medians), so that a busy machine's load weighs
//! on neither.
//! The last line is `ratio put_vs_hand=A update_vs_hand=B query_vs_hand=C`, the library's time
//! over the hand-written code's (below 1: the library is faster).
//!
//! `cargo bench -p dynamo-entity-examples --bench requests` (add `-- --quick` for a short run).

use std::collections::HashMap;
use std::hint::black_box;
use std::time::Duration;

use aws_sdk_dynamodb::Client;
use aws_sdk_dynamodb::config::{BehaviorVersion, Region};
use aws_sdk_dynamodb::types::{
    AttributeValue, ReturnConsumedCapacity, ReturnValue, ReturnValuesOnConditionCheckFailure,
};
use criterion::Criterion;
use dynamo_entity::{Item, Table, Timestamp};
use dynamo_entity_examples::skill_exchange::{Dataset, Sizes, Skill, SkillId, SkillStatus};

mod common;
use common::{hand_encode_skill, interleaved, key1, skill_gsi4pk, status_text};

const TABLE: &str = "skill-exchange";

fn hand_key(id: &SkillId) -> Item {
    HashMap::from([
        ("PK".to_owned(), AttributeValue::S(key1("SKILL#", &id.0))),
        ("SK".to_owned(), AttributeValue::S("META".to_owned())),
    ])
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

// ---------------------------------------------------------------------------------------------
// The library.

fn lib_put(t: &Table, skill: &Skill) -> aws_sdk_dynamodb::operation::put_item::PutItemInput {
    let mut requests = t.render().put(skill).expect("renders");
    requests.pop().and_then(|r| r.into_put_item()).expect("one PutItem")
}

fn lib_update(t: &Table, id: &SkillId, at: Timestamp) -> aws_sdk_dynamodb::operation::update_item::UpdateItemInput {
    t.update(Skill::key(id))
        .set(Skill::STATUS, &SkillStatus::Approved)
        .set(Skill::SUBMITTED_AT, &Some(at))
        .render()
        .expect("renders")
}

fn lib_query(t: &Table, category: &str) -> aws_sdk_dynamodb::operation::query::QueryInput {
    t.query(Skill::gsi1(category)).descending().max_items(20).render().expect("renders")
}

// ---------------------------------------------------------------------------------------------
// By hand with the SDK's fluent builders.

fn hand_put(skill: &Skill) -> aws_sdk_dynamodb::operation::put_item::PutItemInput {
    aws_sdk_dynamodb::operation::put_item::PutItemInput::builder()
        .table_name(TABLE)
        .set_item(Some(hand_encode_skill(skill)))
        .condition_expression("(attribute_not_exists(#n0) OR #n1 = :v0)")
        .expression_attribute_names("#n0", "PK")
        .expression_attribute_names("#n1", "_type")
        .expression_attribute_values(":v0", s("Skill"))
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .build()
        .expect("builds")
}

fn hand_update(id: &SkillId, at: Timestamp) -> aws_sdk_dynamodb::operation::update_item::UpdateItemInput {
    let status = status_text(SkillStatus::Approved);
    let at = at.to_string();
    let gsi4pk = skill_gsi4pk(SkillStatus::Approved, &id.0);
    aws_sdk_dynamodb::operation::update_item::UpdateItemInput::builder()
        .table_name(TABLE)
        .set_key(Some(hand_key(id)))
        .update_expression("SET #n0 = :v0, #n1 = :v1, #n2 = :v2, #n3 = :v3")
        .condition_expression("attribute_exists(#n4) AND #n5 = :v4")
        .expression_attribute_names("#n0", "status")
        .expression_attribute_names("#n1", "submitted_at")
        .expression_attribute_names("#n2", "GSI4PK")
        .expression_attribute_names("#n3", "GSI4SK")
        .expression_attribute_names("#n4", "PK")
        .expression_attribute_names("#n5", "_type")
        .expression_attribute_values(":v0", s(status))
        .expression_attribute_values(":v1", AttributeValue::S(at.clone()))
        .expression_attribute_values(":v2", AttributeValue::S(gsi4pk))
        .expression_attribute_values(":v3", AttributeValue::S(at))
        .expression_attribute_values(":v4", s("Skill"))
        .return_values(ReturnValue::AllNew)
        .return_values_on_condition_check_failure(ReturnValuesOnConditionCheckFailure::AllOld)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .build()
        .expect("builds")
}

fn hand_query(category: &str) -> aws_sdk_dynamodb::operation::query::QueryInput {
    aws_sdk_dynamodb::operation::query::QueryInput::builder()
        .table_name(TABLE)
        .index_name("GSI1")
        .key_condition_expression("#p0 = :p0")
        .expression_attribute_names("#p0", "category")
        .expression_attribute_values(":p0", AttributeValue::S(category.to_owned()))
        .scan_index_forward(false)
        .limit(20)
        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
        .build()
        .expect("builds")
}

// ---------------------------------------------------------------------------------------------

fn main() {
    let quick = std::env::args().any(|a| a == "--quick" || a == "--test");
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .build();
    let client = Client::from_conf(config);
    let table = Table::new(client.clone(), TABLE);

    let data = Dataset::generate(7, Sizes::SMALL);
    let skills: Vec<Skill> = data.skills.iter().take(32).cloned().collect();
    let at = Timestamp::from_millis(1_800_000_000_000).expect("in range");
    let categories: Vec<&str> = skills.iter().map(|s| s.category.as_str()).collect();

    // Both ways build the same requests.
    for sk in &skills {
        assert_eq!(lib_put(&table, sk), hand_put(sk), "PutItem of {}", sk.id.0);
        assert_eq!(lib_update(&table, &sk.id, at), hand_update(&sk.id, at), "UpdateItem of {}", sk.id.0);
        assert_eq!(lib_query(&table, &sk.category), hand_query(&sk.category), "Query of {}", sk.category);
    }

    // `REQUESTS_PROFILE=put|update|query`: only build that request with the library, for 5 s,
    // then exit: for a profiler (`perf record --call-graph dwarf target/release/deps/requests-…`).
    // `hand-put`, `hand-update`, `hand-query`: the same with the hand-written code, to compare.
    // `REQUESTS_PROFILE_PASSES=N`: N passes over the 32 skills instead of 5 s, for an exact
    // count of instructions (`valgrind --tool=callgrind`; subtract a run with N = 0).
    if let Ok(op) = std::env::var("REQUESTS_PROFILE") {
        let passes: Option<usize> = std::env::var("REQUESTS_PROFILE_PASSES").ok().and_then(|n| n.parse().ok());
        let end = std::time::Instant::now() + Duration::from_secs(5);
        let mut pass = 0;
        while passes.map_or(std::time::Instant::now() < end, |n| pass < n) {
            pass += 1;
            for sk in &skills {
                match op.as_str() {
                    "put" => drop(black_box(lib_put(&table, sk))),
                    "update" => drop(black_box(lib_update(&table, &sk.id, at))),
                    "hand-put" => drop(black_box(hand_put(sk))),
                    "hand-update" => drop(black_box(hand_update(&sk.id, at))),
                    "hand-query" => drop(black_box(hand_query(&sk.category))),
                    _ => drop(black_box(lib_query(&table, &sk.category))),
                }
            }
        }
        return;
    }

    let mut c = Criterion::default().configure_from_args();
    c = if quick {
        c.warm_up_time(Duration::from_millis(100)).measurement_time(Duration::from_millis(300)).sample_size(10)
    } else {
        c.warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(4)).sample_size(50)
    };
    let mut g = c.benchmark_group("requests");
    g.bench_function("put_library", |b| b.iter(|| skills.iter().for_each(|s| drop(black_box(lib_put(&table, s))))));
    g.bench_function("put_hand", |b| b.iter(|| skills.iter().for_each(|s| drop(black_box(hand_put(s))))));
    g.bench_function("update_library", |b| {
        b.iter(|| skills.iter().for_each(|s| drop(black_box(lib_update(&table, &s.id, at)))))
    });
    g.bench_function("update_hand", |b| b.iter(|| skills.iter().for_each(|s| drop(black_box(hand_update(&s.id, at))))));
    g.bench_function("query_library", |b| {
        b.iter(|| categories.iter().for_each(|cat| drop(black_box(lib_query(&table, cat)))))
    });
    g.bench_function("query_hand", |b| b.iter(|| categories.iter().for_each(|cat| drop(black_box(hand_query(cat))))));
    g.finish();
    c.final_summary();

    let est = |name: &str| read_estimate(&format!("requests/{name}"));
    let per = |name: &str| est(name) / skills.len() as f64;
    // The ratios: library and hand-written timed in alternation (see common::interleaved), so
    // that the machine's load during the run weighs on both alike.
    let (rounds, slice) = if quick { (6, Duration::from_millis(5)) } else { (40, Duration::from_millis(20)) };
    let pass = |f: &dyn Fn(&Skill)| skills.iter().for_each(f);
    let put = interleaved(
        || pass(&|s| drop(black_box(lib_put(&table, s)))),
        || pass(&|s| drop(black_box(hand_put(s)))),
        rounds,
        slice,
    );
    let update = interleaved(
        || pass(&|s| drop(black_box(lib_update(&table, &s.id, at)))),
        || pass(&|s| drop(black_box(hand_update(&s.id, at)))),
        rounds,
        slice,
    );
    let query = interleaved(
        || categories.iter().for_each(|cat| drop(black_box(lib_query(&table, cat)))),
        || categories.iter().for_each(|cat| drop(black_box(hand_query(cat)))),
        rounds,
        slice,
    );
    let n = skills.len() as f64;
    for (op, (lib, hand)) in [("put", put), ("update", update), ("query", query)] {
        println!(
            "{op:<6} library {:7.0} ns, hand-written {:7.0} ns per request (interleaved medians); criterion means \
             {:7.0} / {:7.0} ns",
            lib / n,
            hand / n,
            per(&format!("{op}_library")),
            per(&format!("{op}_hand"))
        );
    }
    println!(
        "ratio put_vs_hand={:.3} update_vs_hand={:.3} query_vs_hand={:.3}",
        put.0 / put.1,
        update.0 / update.1,
        query.0 / query.1,
    );
}

/// The mean point estimate (ns) criterion wrote for `id` in this run.
fn read_estimate(id: &str) -> f64 {
    let dir = std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/../target").to_owned());
    let path = format!("{dir}/criterion/{id}/new/estimates.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    v["mean"]["point_estimate"].as_f64().unwrap_or_else(|| panic!("{path}: no mean"))
}

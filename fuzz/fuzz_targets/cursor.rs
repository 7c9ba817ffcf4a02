//! Cursor decoding, through the public query API: a query of a Skill Exchange entity is sent
//! with `.after(cursor)` for a cursor that is arbitrary text, base64 of arbitrary bytes, or a
//! genuine cursor of that query with its fields edited (version, entity, index, partition,
//! query fingerprint, key attributes and their types and values).
//!
//! The SDK client's HTTP layer is a stub on this thread (no network): it answers every Query
//! with no items and a `LastEvaluatedKey`, and checks what the library sent. The oracle: the
//! query returns `Ok` or `Error::Cursor`, never panics; and when a cursor is accepted, the
//! `ExclusiveStartKey` holds only the index's key attributes and lies in the queried partition.
#![no_main]

use std::sync::LazyLock;

use arbitrary::Arbitrary;
use aws_sdk_dynamodb::config::{BehaviorVersion, Credentials, Region};
use aws_smithy_runtime_api::client::http::{
    HttpClient, HttpConnector, HttpConnectorFuture, HttpConnectorSettings, SharedHttpConnector,
};
use aws_smithy_runtime_api::client::orchestrator::{HttpRequest, HttpResponse};
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_runtime_api::http::StatusCode;
use aws_smithy_types::body::SdkBody;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use dynamo_entity::{Cursor, Error, Table};
use dynamo_entity_examples::skill_exchange::{Badge, Purchase, Skill, SkillStatus, UserId};
use dynamo_entity_fuzz::Name;
use libfuzzer_sys::fuzz_target;
use serde_json::{Value, json};

/// The key attributes (partition, sort) of the Skill Exchange table and of its indexes, with a
/// sort-key value of the attribute's type: GSI1 is a native multi-attribute index keyed on the
/// items' own `category` and `downloads`; the other GSIs are template indexes `GSI<n>PK` /
/// `GSI<n>SK`.
fn key_attributes(index: Option<&str>) -> (String, String, Value) {
    match index {
        None => ("PK".into(), "SK".into(), json!({ "S": "SORT#1" })),
        Some("GSI1") => ("category".into(), "downloads".into(), json!({ "N": "7" })),
        Some(i) => (format!("{i}PK"), format!("{i}SK"), json!({ "S": "SORT#1" })),
    }
}

/// Answers a Query: no items, and a `LastEvaluatedKey` in the queried partition. Panics when
/// the request's `ExclusiveStartKey` breaks the cursor contract. A template query names its
/// partition key `#pk` = `:pk`; a multi-attribute query `#p0` = `:p0`.
fn answer(body: &[u8]) -> Value {
    let request: Value = serde_json::from_slice(body).expect("the SDK sends JSON");
    let index = request["IndexName"].as_str();
    let (pk_attribute, sk_attribute, sort_value) = key_attributes(index);
    let names = &request["ExpressionAttributeNames"];
    let placeholder = if names.get("#pk").is_some() { ":pk" } else { ":p0" };
    let named = names.get("#pk").or_else(|| names.get("#p0")).and_then(Value::as_str);
    assert_eq!(named, Some(pk_attribute.as_str()), "the partition key is named: {names}");
    let pk_value = request["ExpressionAttributeValues"][placeholder].clone();
    let mut allowed = vec!["PK".to_owned(), "SK".to_owned()];
    if index.is_some() {
        allowed.extend([pk_attribute.clone(), sk_attribute.clone()]);
    }
    if let Some(start) = request.get("ExclusiveStartKey").and_then(Value::as_object) {
        let mut names: Vec<&String> = start.keys().collect();
        names.sort();
        let mut expected: Vec<&String> = allowed.iter().collect();
        expected.sort();
        expected.dedup();
        assert_eq!(names, expected, "an accepted cursor named other attributes: {start:?}");
        assert_eq!(start[&pk_attribute], pk_value, "an accepted cursor left the partition: {start:?}");
    }
    let mut last = json!({ "PK": { "S": "P" }, "SK": { "S": "S" } });
    last[&sk_attribute] = sort_value;
    last[&pk_attribute] = pk_value;
    json!({ "Items": [], "Count": 0, "ScannedCount": 0, "LastEvaluatedKey": last })
}

#[derive(Debug)]
struct Stub;

impl HttpClient for Stub {
    fn http_connector(&self, _: &HttpConnectorSettings, _: &RuntimeComponents) -> SharedHttpConnector {
        SharedHttpConnector::new(StubConnector)
    }
}

#[derive(Debug)]
struct StubConnector;

impl HttpConnector for StubConnector {
    fn call(&self, request: HttpRequest) -> HttpConnectorFuture {
        let body = serde_json::to_vec(&answer(request.body().bytes().unwrap_or_default())).unwrap_or_default();
        let mut response = HttpResponse::new(StatusCode::try_from(200u16).expect("200"), SdkBody::from(body));
        response.headers_mut().insert("content-type", "application/x-amz-json-1.0");
        HttpConnectorFuture::ready(Ok(response))
    }
}

struct World {
    runtime: tokio::runtime::Runtime,
    table: Table,
    /// A genuine cursor of each query, as JSON.
    cursors: Vec<Value>,
}

const QUERIES: usize = 6;

/// Runs query `n` after `cursor`; returns the next cursor.
fn run(world: &World, n: usize, cursor: Option<Cursor>) -> Result<Option<Cursor>, Error> {
    let t = &world.table;
    world.runtime.block_on(async {
        Ok(match n {
            0 => t.query(Skill::gsi1("documents")).after(cursor).send().await?.cursor,
            1 => t.query(Skill::gsi1("documents")).descending().after(cursor).send().await?.cursor,
            2 => t.query(Skill::gsi1("code").downloads_ge(&5u64)).after(cursor).send().await?.cursor,
            3 => t.query(Skill::gsi4(&SkillStatus::Pending)).after(cursor).send().await?.cursor,
            4 => t.query(Purchase::gsi3(&UserId("u0001".into()))).descending().after(cursor).send().await?.cursor,
            _ => t.query(Badge::query(&UserId("u#1%".into()))).after(cursor).send().await?.cursor,
        })
    })
}

fn unwrap_cursor(text: &str) -> Value {
    serde_json::from_slice(&URL_SAFE_NO_PAD.decode(text).expect("base64")).expect("JSON")
}

static WORLD: LazyLock<World> = LazyLock::new(|| {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("a runtime");
    let config = aws_sdk_dynamodb::Config::builder()
        .behavior_version(BehaviorVersion::latest())
        .region(Region::new("us-east-1"))
        .credentials_provider(Credentials::new("fuzz", "fuzz", None, None, "fuzz"))
        .endpoint_url("http://127.0.0.1:9")
        .http_client(Stub)
        .build();
    let table = Table::new(aws_sdk_dynamodb::Client::from_conf(config), "fuzz");
    let mut world = World { runtime, table, cursors: Vec::new() };
    for n in 0..QUERIES {
        let cursor = run(&world, n, None).expect("a first page").expect("a cursor");
        // A genuine cursor is accepted by its own query and gives the next one.
        let next = run(&world, n, Some(cursor.clone())).expect("the genuine cursor is accepted");
        assert!(next.is_some());
        world.cursors.push(unwrap_cursor(cursor.as_str()));
    }
    world
});

/// A JSON value to put in a cursor field.
#[derive(Debug, Arbitrary)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<String>),
    /// The same field of another query's genuine cursor.
    Borrowed(u8),
}

/// The fields of a cursor's JSON.
const FIELDS: [&str; 6] = ["v", "e", "i", "p", "q", "k"];

#[derive(Debug, Arbitrary)]
enum Edit {
    /// Set field `FIELDS[n % 6]`.
    Set(u8, Json),
    /// Remove it.
    Remove(u8),
    /// Replace key entry `n` (name, type tag, value text).
    Key(u8, Name, u8, String),
    /// Append a key entry.
    Push(Name, u8, String),
    /// Remove key entry `n`.
    Drop(u8),
    /// Add an unknown field.
    Extra(String, Json),
}

#[derive(Debug, Arbitrary)]
enum Input {
    /// Any text as the cursor.
    Text(u8, String),
    /// Base64 of any bytes.
    Bytes(u8, Vec<u8>),
    /// A genuine cursor of query `n`, edited, for query `m`.
    Edited { of: u8, on: u8, edits: Vec<Edit> },
}

fn tag(t: u8) -> String {
    match t % 6 {
        0 => "S".into(),
        1 => "N".into(),
        2 => "B".into(),
        3 => "".into(),
        4 => "SS".into(),
        _ => char::from(t).to_string(),
    }
}

impl Json {
    fn value(&self, field: &str, world: &World) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => json!(b),
            Json::Int(i) => json!(i),
            Json::Float(f) => json!(f),
            Json::Str(s) => json!(s),
            Json::Arr(a) => json!(a),
            Json::Borrowed(n) => world.cursors[usize::from(*n) % QUERIES][field].clone(),
        }
    }
}

fn edit(cursor: &mut Value, e: &Edit, world: &World) {
    let Some(object) = cursor.as_object_mut() else { return };
    match e {
        Edit::Set(f, v) => {
            let field = FIELDS[usize::from(*f) % FIELDS.len()];
            object.insert(field.to_owned(), v.value(field, world));
        }
        Edit::Remove(f) => {
            object.remove(FIELDS[usize::from(*f) % FIELDS.len()]);
        }
        Edit::Key(n, name, t, text) => {
            if let Some(keys) = object.get_mut("k").and_then(Value::as_array_mut)
                && !keys.is_empty()
            {
                let i = usize::from(*n) % keys.len();
                keys[i] = json!([name.text(), tag(*t), text]);
            }
        }
        Edit::Push(name, t, text) => {
            if let Some(keys) = object.get_mut("k").and_then(Value::as_array_mut) {
                keys.push(json!([name.text(), tag(*t), text]));
            }
        }
        Edit::Drop(n) => {
            if let Some(keys) = object.get_mut("k").and_then(Value::as_array_mut)
                && !keys.is_empty()
            {
                keys.remove(usize::from(*n) % keys.len());
            }
        }
        Edit::Extra(name, v) => {
            object.insert(name.clone(), v.value("k", world));
        }
    }
}

fuzz_target!(|input: Input| {
    let world = &*WORLD;
    let (query, text) = match &input {
        Input::Text(n, text) => (usize::from(*n), text.clone()),
        Input::Bytes(n, bytes) => (usize::from(*n), URL_SAFE_NO_PAD.encode(bytes)),
        Input::Edited { of, on, edits } => {
            let mut cursor = world.cursors[usize::from(*of) % QUERIES].clone();
            for e in edits {
                edit(&mut cursor, e, world);
            }
            (usize::from(*on), URL_SAFE_NO_PAD.encode(serde_json::to_vec(&cursor).expect("JSON")))
        }
    };
    match run(world, query % QUERIES, Some(Cursor::from(text.as_str()))) {
        Ok(_) | Err(Error::Cursor { .. }) => {}
        Err(other) => panic!("a cursor gave an error other than Error::Cursor: {other}"),
    }
});

//! Pagination cursors: a query's `LastEvaluatedKey`, bound to the query that produced it.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::entity::{Index, Item, PK, SK};
use crate::error::Error;

const VERSION: u8 = 1;

/// What a cursor is bound to: the entity type, the index and the partition key value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Scope {
    #[serde(rename = "e")]
    pub entity: String,
    #[serde(rename = "i")]
    pub index: String,
    #[serde(rename = "p")]
    pub partition: String,
    /// A fingerprint of the sort order and the sort-key condition.
    #[serde(rename = "q")]
    pub query: String,
}

/// FNV-1a (64 bits) of `text`, as hex: a short, stable fingerprint.
pub(crate) fn fingerprint(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[derive(Serialize, Deserialize)]
struct Wire {
    v: u8,
    #[serde(flatten)]
    scope: Scope,
    /// Key attributes: name -> (type tag, value; B as base64).
    k: Vec<(String, char, String)>,
}

pub(crate) fn index_label(index: Index) -> String {
    index.name().unwrap_or("primary").to_owned()
}

pub(crate) fn scalar_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => format!("S:{s}"),
        AttributeValue::N(n) => format!("N:{n}"),
        AttributeValue::B(b) => format!("B:{}", URL_SAFE_NO_PAD.encode(b.as_ref())),
        _ => "?".to_owned(),
    }
}

/// Encodes `key` (a `LastEvaluatedKey`, or the key attributes of the last item returned)
/// as an opaque URL-safe string.
pub(crate) fn encode(scope: &Scope, key: &Item) -> String {
    let mut k: Vec<(String, char, String)> = key
        .iter()
        .filter_map(|(name, v)| {
            let (tag, text) = match v {
                AttributeValue::S(s) => ('S', s.clone()),
                AttributeValue::N(n) => ('N', n.clone()),
                AttributeValue::B(b) => ('B', URL_SAFE_NO_PAD.encode(b.as_ref())),
                _ => return None,
            };
            Some((name.clone(), tag, text))
        })
        .collect();
    k.sort();
    let wire = Wire { v: VERSION, scope: scope.clone(), k };
    let json = serde_json::to_vec(&wire).unwrap_or_default();
    URL_SAFE_NO_PAD.encode(json)
}

/// Decodes a cursor for the query `scope` on `index`, checking that it belongs to that query
/// and names only the key attributes DynamoDB expects in an `ExclusiveStartKey`.
pub(crate) fn decode(text: &str, scope: &Scope, index: Index) -> Result<Item, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| bad("not a cursor of this library (bad encoding)".into()))?;
    let wire: Wire =
        serde_json::from_slice(&bytes).map_err(|_| bad("not a cursor of this library (bad contents)".into()))?;
    if wire.v != VERSION {
        return Err(bad(format!("cursor version {} is not supported", wire.v)));
    }
    if wire.scope.entity == scope.entity
        && wire.scope.index == scope.index
        && wire.scope.partition == scope.partition
        && wire.scope.query != scope.query
    {
        return Err(bad(format!(
            "it belongs to a query of {} on {} partition {} with another sort order or sort-key condition",
            scope.entity, scope.index, scope.partition
        )));
    }
    if wire.scope != *scope {
        return Err(bad(format!(
            "it belongs to a query of {} on {} partition {}, not of {} on {} partition {}",
            wire.scope.entity, wire.scope.index, wire.scope.partition, scope.entity, scope.index, scope.partition
        )));
    }
    let mut allowed = vec![PK, SK];
    if index != Index::Primary {
        allowed.push(index.pk_attribute());
        allowed.push(index.sk_attribute());
    }
    let mut item = HashMap::with_capacity(wire.k.len());
    for (name, tag, text) in wire.k {
        if !allowed.contains(&name.as_str()) {
            return Err(bad(format!("it names attribute `{name}`, which is not a key of {}", scope.index)));
        }
        let v = match tag {
            'S' => AttributeValue::S(text),
            'N' => AttributeValue::N(text),
            'B' => AttributeValue::B(Blob::new(
                URL_SAFE_NO_PAD.decode(text).map_err(|_| bad("a binary key value is malformed".into()))?,
            )),
            _ => return Err(bad(format!("unknown value type `{tag}`"))),
        };
        item.insert(name, v);
    }
    for required in &allowed {
        if !item.contains_key(*required) {
            return Err(bad(format!("it lacks the key attribute `{required}`")));
        }
    }
    // The cursor must stay inside the query's partition.
    let pk = item.get(index.pk_attribute()).map(scalar_text).unwrap_or_default();
    if pk != scope.partition {
        return Err(bad(format!("its key lies in partition {pk}, outside the query's partition {}", scope.partition)));
    }
    Ok(item)
}

//! Pagination cursors: a query's `LastEvaluatedKey`, bound to the query that produced it.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};

use crate::error::Error;
use crate::schema::{AttributeNames, Index, Item};

/// A pagination cursor, bound to the query (entity, index, partition, sort order and sort-key
/// condition) that returned it; its text is [`Cursor::as_str`] / [`Cursor::from`]. A cursor
/// used with another query, or altered by accident (it carries a checksum of its contents), is
/// rejected with [`Error::Cursor`].
///
/// This is the unsealed form: base64 of the key attributes of the item it resumes at, so
/// anyone holding it can read them (another user's id, an e-mail address in a GSI key), and
/// the checksum is no secret (a cursor forged with it can only point inside the query's own
/// partition). Before handing a cursor to clients, seal it with the application's
/// [`CursorKeys`](crate::query::CursorKeys) (authenticated encryption: opaque and unforgeable), and open what they send
/// back with the same keys.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cursor(pub(crate) String);

impl Cursor {
    /// The cursor's text (URL-safe base64).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for Cursor {
    fn from(s: String) -> Cursor {
        Cursor(s)
    }
}

impl From<&str> for Cursor {
    fn from(s: &str) -> Cursor {
        Cursor(s.to_owned())
    }
}

impl std::fmt::Display for Cursor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

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

/// The checksum field `c` of a cursor: FNV-1a (64 bits) of the cursor's JSON without it. It
/// makes a cursor tamper-evident (a flipped, dropped or replaced byte is refused with
/// [`Error::Cursor`]). It is not a secret: a client who recomputes it can still forge a cursor,
/// which the checks of the query's scope and partition then bound to a position inside the
/// query's own partition.
fn checksum<T: Serialize>(wire: &T) -> String {
    fnv_hex(&serde_json::to_vec(wire).unwrap_or_default())
}

/// FNV-1a (64 bits) of `bytes`, as 16 hex digits.
fn fnv_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

const ALTERED: &str = "it was altered: its checksum is missing or does not match its contents";

#[derive(Serialize, Deserialize)]
struct Wire {
    v: u8,
    #[serde(flatten)]
    scope: Scope,
    /// Key attributes: name -> (type tag, value; B as base64).
    k: Vec<(String, char, String)>,
    /// The checksum ([`checksum`]); absent while it is computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    c: Option<String>,
}

pub(crate) fn index_label(names: &AttributeNames, index: Index) -> String {
    names.index_name(index).unwrap_or("primary").to_owned()
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
    let k = key_to_wire(key);
    let wire = WireOut { v: VERSION, e: &scope.entity, i: &scope.index, p: &scope.partition, q: &scope.query, k: &k };
    // The JSON of `Wire` without `c`, which the checksum covers; then `c` appended as its last
    // field: the same bytes as serializing `Wire` with `c` (one serialization instead of two).
    let mut json = serde_json::to_vec(&wire).unwrap_or_default();
    let c = fnv_hex(&json);
    json.pop();
    json.extend_from_slice(b",\"c\":\"");
    json.extend_from_slice(c.as_bytes());
    json.extend_from_slice(b"\"}");
    URL_SAFE_NO_PAD.encode(json)
}

/// [`Wire`] without its checksum, borrowing the scope, serialized field for field as `Wire`
/// is (its flattened scope's fields in their place): what [`encode`] writes. Serializing it
/// needs neither a copy of the scope nor serde's buffering of a flattened field.
#[derive(Serialize)]
struct WireOut<'a> {
    v: u8,
    e: &'a str,
    i: &'a str,
    p: &'a str,
    q: &'a str,
    k: &'a [(String, char, String)],
}

/// Key attributes as (name, type tag, text) triples, sorted by name.
fn key_to_wire(key: &Item) -> Vec<(String, char, String)> {
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
    // A key has at most four attributes (the table's and an index's): sorted in place by
    // insertion, with a few bytes of code where a library sort adds kilobytes. The names are
    // a map's, all different, so there is one order.
    for i in 1..k.len() {
        let mut j = i;
        while j > 0 && k[j - 1] > k[j] {
            k.swap(j - 1, j);
            j -= 1;
        }
    }
    k
}

/// The wire form `W` of cursor `text` at this library's version; a cursor of the other kind
/// `O` (plain vs sharded) is refused with `other_kind`.
fn unwrap<W: serde::de::DeserializeOwned, O: serde::de::DeserializeOwned>(
    text: &str,
    other_kind: &str,
    version: impl FnOnce(&W) -> u8,
) -> Result<W, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| bad("not a cursor of this library (bad encoding)".into()))?;
    let wire: W = serde_json::from_slice(&bytes).map_err(|_| {
        bad(if serde_json::from_slice::<O>(&bytes).is_ok() {
            other_kind.to_owned()
        } else {
            "not a cursor of this library (bad contents)".into()
        })
    })?;
    let v = version(&wire);
    if v != VERSION {
        return Err(bad(format!("cursor version {v} is not supported")));
    }
    Ok(wire)
}

/// Decodes a cursor for the query `scope` on `index`, checking that it belongs to that query
/// and names only the key attributes DynamoDB expects in an `ExclusiveStartKey`.
pub(crate) fn decode(text: &str, scope: &Scope, names: &AttributeNames, index: Index) -> Result<Item, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let mut wire: Wire = unwrap::<Wire, ShardedWire>(
        text,
        "it is the cursor of a sharded query, not of a query of one partition",
        |w| w.v,
    )?;
    // Checked last, so that a cursor of another query gets the precise reason.
    let sealed = wire.c.take().is_some_and(|c| c == checksum(&wire));
    check_scope(&wire.scope, scope)?;
    let key = key_from_wire(wire.k, scope, names, index, Some(&scope.partition))?;
    if !sealed {
        return Err(bad(ALTERED.into()));
    }
    Ok(key)
}

/// Decodes a cursor for the query `scope`, checking that it belongs to that query and names
/// exactly the key attributes `allowed` (a multi-attribute GSI's: the table's and the index's);
/// the caller checks the partition.
pub(crate) fn decode_keys(text: &str, scope: &Scope, allowed: &[&str]) -> Result<Item, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let mut wire: Wire = unwrap::<Wire, ShardedWire>(
        text,
        "it is the cursor of a sharded query, not of a query of one partition",
        |w| w.v,
    )?;
    let sealed = wire.c.take().is_some_and(|c| c == checksum(&wire));
    check_scope(&wire.scope, scope)?;
    let mut item = HashMap::with_capacity(wire.k.len());
    for (name, tag, text) in wire.k {
        if !allowed.contains(&name.as_str()) {
            return Err(bad(format!("it names attribute `{name}`, which is not a key of {}", scope.index)));
        }
        let v = match tag {
            'S' => AttributeValue::S(text),
            'N' => AttributeValue::N(text),
            _ => return Err(bad(format!("unknown value type `{tag}`"))),
        };
        item.insert(name, v);
    }
    if let Some(missing) = allowed.iter().find(|a| !item.contains_key(**a)) {
        return Err(bad(format!("it lacks the key attribute `{missing}`")));
    }
    if !sealed {
        return Err(bad(ALTERED.into()));
    }
    Ok(item)
}

/// Decodes the cursor of a scan (or of one segment of it) for the scan `scope`: it must
/// belong to that scan and name exactly the table's primary key attributes. A scan has no
/// partition to stay in; its scope names the segment instead.
pub(crate) fn decode_scan(text: &str, scope: &Scope, names: &AttributeNames, index: Index) -> Result<Item, Error> {
    let mut wire: Wire =
        unwrap::<Wire, ShardedWire>(text, "it is the cursor of a sharded query, not of a scan", |w| w.v)?;
    let sealed = wire.c.take().is_some_and(|c| c == checksum(&wire));
    check_scope(&wire.scope, scope)?;
    let key = key_from_wire(wire.k, scope, names, index, None)?;
    if !sealed {
        return Err(Error::Cursor { reason: ALTERED.into() });
    }
    Ok(key)
}

/// Checks that a cursor's scope is the query's.
fn check_scope(wire: &Scope, scope: &Scope) -> Result<(), Error> {
    let bad = |reason: String| Error::Cursor { reason };
    if wire.entity == scope.entity
        && wire.index == scope.index
        && wire.partition == scope.partition
        && wire.query != scope.query
    {
        return Err(bad(if scope.index.starts_with("scan") {
            format!(
                "it belongs to a {} of {} ({}) with another filter or consistency",
                scope.index, scope.entity, scope.partition
            )
        } else {
            format!(
                "it belongs to a query of {} on {} partition {} with another sort order or sort-key condition",
                scope.entity, scope.index, scope.partition
            )
        }));
    }
    if *wire != *scope {
        // A scan's scope names the scan (`scan`, `scan of GSI1`) and its segment, not an index
        // and a partition.
        let show = |s: &Scope| {
            if s.index.starts_with("scan") {
                format!("a {} of {} ({})", s.index, s.entity, s.partition)
            } else {
                format!("a query of {} on {} partition {}", s.entity, s.index, s.partition)
            }
        };
        if !wire.index.starts_with("scan") && !scope.index.starts_with("scan") {
            return Err(bad(format!(
                "it belongs to a query of {} on {} partition {}, not of {} on {} partition {}",
                wire.entity, wire.index, wire.partition, scope.entity, scope.index, scope.partition
            )));
        }
        return Err(bad(format!("it belongs to {}, not to {}", show(wire), show(scope))));
    }
    Ok(())
}

/// A key from its wire form, checked to name exactly the key attributes of `index` and to lie
/// in the partition `partition` (as [`scalar_text`]).
fn key_from_wire(
    k: Vec<(String, char, String)>,
    scope: &Scope,
    names: &AttributeNames,
    index: Index,
    partition: Option<&str>,
) -> Result<Item, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let mut allowed = vec![names.pk, names.sk];
    if index != Index::Primary {
        allowed.push(names.pk_of(index));
        allowed.push(names.sk_of(index));
    }
    let mut item = HashMap::with_capacity(k.len());
    for (name, tag, text) in k {
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
    let pk = item.get(names.pk_of(index)).map(scalar_text).unwrap_or_default();
    if let Some(partition) = partition.filter(|p| pk != *p) {
        return Err(bad(format!("its key lies in partition {pk}, outside the query's partition {partition}")));
    }
    Ok(item)
}

/// Where one shard of a sharded query stands.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Position {
    /// Not read yet: the shard starts at its first item.
    Start,
    /// Resume after this key (`ExclusiveStartKey`).
    After(Item),
    /// Exhausted.
    Done,
}

/// The wire form of a sharded query's cursor: one entry per shard, `null` for an exhausted
/// shard, `[]` for one not read yet, the key attributes to resume after otherwise.
#[derive(Serialize, Deserialize)]
struct ShardedWire {
    v: u8,
    #[serde(flatten)]
    scope: Scope,
    s: Vec<Option<Vec<(String, char, String)>>>,
    /// The checksum ([`checksum`]); absent while it is computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    c: Option<String>,
}

/// Encodes the positions of every shard of a sharded query as one opaque URL-safe string.
pub(crate) fn encode_sharded(scope: &Scope, positions: &[Position]) -> String {
    let s = positions
        .iter()
        .map(|p| match p {
            Position::Start => Some(Vec::new()),
            Position::After(key) => Some(key_to_wire(key)),
            Position::Done => None,
        })
        .collect();
    let mut wire = ShardedWire { v: VERSION, scope: scope.clone(), s, c: None };
    wire.c = Some(checksum(&wire));
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(&wire).unwrap_or_default())
}

/// Decodes a sharded query's cursor for the query `scope` on `index`, whose shards have the
/// partition keys `shards`: it must belong to that query, have one position per shard, and
/// each position must name the key attributes of `index` inside that shard's partition.
pub(crate) fn decode_sharded(
    text: &str,
    scope: &Scope,
    names: &AttributeNames,
    index: Index,
    shards: &[AttributeValue],
) -> Result<Vec<Position>, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let mut wire: ShardedWire = unwrap::<ShardedWire, Wire>(
        text,
        "it is the cursor of a query of one partition, not of a sharded query",
        |w| w.v,
    )?;
    // Checked last, so that a cursor of another query gets the precise reason.
    let sealed = wire.c.take().is_some_and(|c| c == checksum(&wire));
    check_scope(&wire.scope, scope)?;
    if wire.s.len() != shards.len() {
        return Err(bad(format!("it has {} shard positions, but the query has {} shards", wire.s.len(), shards.len())));
    }
    wire.s
        .into_iter()
        .zip(shards)
        .map(|(p, pk)| match p {
            None => Ok(Position::Done),
            Some(k) if k.is_empty() => Ok(Position::Start),
            Some(k) => key_from_wire(k, scope, names, index, Some(&scalar_text(pk))).map(Position::After),
        })
        .collect::<Result<Vec<_>, Error>>()
        .and_then(|positions| if sealed { Ok(positions) } else { Err(bad(ALTERED.into())) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cursor as `Wire` serializes it, checksum computed on the JSON without `c`: what
    /// `encode` wrote before it wrote the JSON itself.
    fn encoded_by_serde(scope: &Scope, key: &Item) -> String {
        let mut wire = Wire { v: VERSION, scope: scope.clone(), k: key_to_wire(key), c: None };
        wire.c = Some(checksum(&wire));
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&wire).expect("serializes"))
    }

    #[test]
    fn encode_writes_the_bytes_of_the_wire_form() {
        let scope = Scope {
            entity: "Skill".to_owned(),
            index: "GSI1".to_owned(),
            partition: "category=\"docs\" \\ é #1".to_owned(),
            query: fingerprint("desc|[]|None"),
        };
        let key: Item = [
            ("PK".to_owned(), AttributeValue::S("SKILL#a\"b".to_owned())),
            ("SK".to_owned(), AttributeValue::S("META".to_owned())),
            ("downloads".to_owned(), AttributeValue::N("42".to_owned())),
            ("bin".to_owned(), AttributeValue::B(Blob::new(vec![0, 255, 7]))),
        ]
        .into();
        for key in [key, Item::new()] {
            let text = encode(&scope, &key);
            assert_eq!(text, encoded_by_serde(&scope, &key));
            let names = ["PK", "SK", "downloads"];
            if !key.is_empty() {
                let mut expected = key.clone();
                expected.remove("bin");
                let text = encode(&scope, &expected);
                assert_eq!(decode_keys(&text, &scope, &names).expect("decodes"), expected);
            }
        }
    }
}

//! Pagination cursors: a query's `LastEvaluatedKey`, bound to the query that produced it.

use std::collections::HashMap;

use aws_sdk_dynamodb::primitives::Blob;
use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::Error;
use crate::schema::{AttributeNames, Index, Item};

mod wire;

pub(crate) use wire::Scope;
use wire::{Positions, Triple};

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

/// FNV-1a (64 bits) of `text`, as hex: a short, stable fingerprint.
pub(crate) fn fingerprint(text: &str) -> String {
    wire::fnv_hex(text.as_bytes())
}

const ALTERED: &str = "it was altered: its checksum is missing or does not match its contents";

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
/// as an opaque URL-safe string, sealed with its checksum (see [`wire`]).
pub(crate) fn encode(scope: &Scope, key: &Item) -> String {
    wire::seal(VERSION, scope, Positions::Key(&key_to_wire(key)))
}

/// Key attributes as (name, type tag, text) triples, sorted by name.
fn key_to_wire(key: &Item) -> Vec<Triple> {
    let mut k: Vec<Triple> = key
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

/// The members of cursor `text` at this library's version, with its positions as `own` reads
/// them; a cursor whose positions only `other` reads (a sharded one for a query of one
/// partition, or the reverse) is refused with `other_kind`.
fn unwrap<T>(
    text: &str,
    own: fn(&wire::Fields) -> Option<T>,
    other: fn(&wire::Fields) -> bool,
    other_kind: &str,
) -> Result<(wire::Fields, T), Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let bad_contents = || bad("not a cursor of this library (bad contents)".into());
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| bad("not a cursor of this library (bad encoding)".into()))?;
    let fields = wire::read(&bytes).ok_or_else(bad_contents)?;
    let Some(positions) = own(&fields) else {
        return Err(if other(&fields) { bad(other_kind.to_owned()) } else { bad_contents() });
    };
    if fields.v != VERSION {
        return Err(bad(format!("cursor version {} is not supported", fields.v)));
    }
    Ok((fields, positions))
}

/// [`unwrap`] of a cursor of one partition; `other_kind` refuses a sharded query's. With
/// whether its checksum holds.
fn unwrap_key(text: &str, other_kind: &str) -> Result<(Scope, Vec<Triple>, bool), Error> {
    let (wire, k) = unwrap(text, wire::Fields::key, |f| f.shards().is_some(), other_kind)?;
    let sealed = wire.sealed(Positions::Key(&k));
    Ok((wire.scope, k, sealed))
}

/// Decodes a cursor for the query `scope` on `index`, checking that it belongs to that query
/// and names only the key attributes DynamoDB expects in an `ExclusiveStartKey`.
pub(crate) fn decode(text: &str, scope: &Scope, names: &AttributeNames, index: Index) -> Result<Item, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    // The checksum is checked last, so that a cursor of another query gets the precise reason.
    let (wire, k, sealed) = unwrap_key(text, "it is the cursor of a sharded query, not of a query of one partition")?;
    check_scope(&wire, scope)?;
    let key = key_from_wire(k, scope, names, index, Some(&scope.partition))?;
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
    let (wire, k, sealed) = unwrap_key(text, "it is the cursor of a sharded query, not of a query of one partition")?;
    check_scope(&wire, scope)?;
    let item = key_item(k, allowed, &scope.index, false)?;
    if !sealed {
        return Err(bad(ALTERED.into()));
    }
    Ok(item)
}

/// Decodes the cursor of a scan (or of one segment of it) for the scan `scope`: it must
/// belong to that scan and name exactly the table's primary key attributes. A scan has no
/// partition to stay in; its scope names the segment instead.
pub(crate) fn decode_scan(text: &str, scope: &Scope, names: &AttributeNames, index: Index) -> Result<Item, Error> {
    let (wire, k, sealed) = unwrap_key(text, "it is the cursor of a sharded query, not of a scan")?;
    check_scope(&wire, scope)?;
    let key = key_from_wire(k, scope, names, index, None)?;
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
    k: Vec<Triple>,
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
    let item = key_item(k, &allowed, &scope.index, true)?;
    // The cursor must stay inside the query's partition.
    let pk = item.get(names.pk_of(index)).map(scalar_text).unwrap_or_default();
    if let Some(partition) = partition.filter(|p| pk != *p) {
        return Err(bad(format!("its key lies in partition {pk}, outside the query's partition {partition}")));
    }
    Ok(item)
}

/// The key of `k`: every attribute one of `allowed` (the key attributes of the index labelled
/// `index`) and each of them there; a `B` value (base64) only when `binary`.
fn key_item(k: Vec<Triple>, allowed: &[&str], index: &str, binary: bool) -> Result<Item, Error> {
    let bad = |reason: String| Error::Cursor { reason };
    let mut item = HashMap::with_capacity(k.len());
    for (name, tag, text) in k {
        if !allowed.contains(&name.as_str()) {
            return Err(bad(format!("it names attribute `{name}`, which is not a key of {index}")));
        }
        let v = match tag {
            'S' => AttributeValue::S(text),
            'N' => AttributeValue::N(text),
            'B' if binary => AttributeValue::B(Blob::new(
                URL_SAFE_NO_PAD.decode(text).map_err(|_| bad("a binary key value is malformed".into()))?,
            )),
            _ => return Err(bad(format!("unknown value type `{tag}`"))),
        };
        item.insert(name, v);
    }
    if let Some(missing) = allowed.iter().find(|a| !item.contains_key(**a)) {
        return Err(bad(format!("it lacks the key attribute `{missing}`")));
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

/// Encodes the positions of every shard of a sharded query as one opaque URL-safe string.
pub(crate) fn encode_sharded(scope: &Scope, positions: &[Position]) -> String {
    let s: Vec<Option<Vec<Triple>>> = positions
        .iter()
        .map(|p| match p {
            Position::Start => Some(Vec::new()),
            Position::After(key) => Some(key_to_wire(key)),
            Position::Done => None,
        })
        .collect();
    wire::seal(VERSION, scope, Positions::Shards(&s))
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
    // The checksum is checked last, so that a cursor of another query gets the precise reason.
    let other_kind = "it is the cursor of a query of one partition, not of a sharded query";
    let (wire, s) = unwrap(text, wire::Fields::shards, |f| f.key().is_some(), other_kind)?;
    let sealed = wire.sealed(Positions::Shards(&s));
    check_scope(&wire.scope, scope)?;
    if s.len() != shards.len() {
        return Err(bad(format!("it has {} shard positions, but the query has {} shards", s.len(), shards.len())));
    }
    s.into_iter()
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

    /// Cursors the previous version (`847becc`, cursors by serde_json) wrote for `scope` and
    /// `key` below: the same text now, and they decode.
    const PLAIN_847BECC: &str = "eyJ2IjoxLCJlIjoiU2tpbGwiLCJpIjoiR1NJMiIsInAiOiJTOlVTRVIjdSBcIjFcIlxcw6kiLCJxIjoiM2Y1ZTAzNjM1ZGIzMTU1MCIsImsiOltbIkdTSTJQSyIsIlMiLCJVU0VSI3UgXCIxXCJcXMOpIl0sWyJHU0kyU0siLCJCIiwiQUFILV93Il0sWyJQSyIsIlMiLCJTS0lMTCNzMSJdLFsiU0siLCJTIiwiTUVUQSJdXSwiYyI6IjBiZTk2ZWU5NTEzNjQ4YjYifQ";
    const SHARDED_847BECC: &str = "eyJ2IjoxLCJlIjoiU2tpbGwiLCJpIjoiR1NJMiIsInAiOiJTOlVTRVIjdSBcIjFcIlxcw6kiLCJxIjoiM2Y1ZTAzNjM1ZGIzMTU1MCIsInMiOltudWxsLFtdLFtbIkdTSTJQSyIsIlMiLCJVU0VSI3UgXCIxXCJcXMOpIl0sWyJHU0kyU0siLCJCIiwiQUFILV93Il0sWyJQSyIsIlMiLCJTS0lMTCNzMSJdLFsiU0siLCJTIiwiTUVUQSJdXV0sImMiOiJiOGViNzFjMzE4YTgwNDNkIn0";

    #[test]
    fn cursors_of_the_previous_version_are_written_and_read_alike() {
        let partition = "USER#u \"1\"\\é";
        let scope = Scope {
            entity: "Skill".to_owned(),
            index: "GSI2".to_owned(),
            partition: format!("S:{partition}"),
            query: fingerprint("asc|[]|None"),
        };
        let key: Item = [
            ("PK".to_owned(), AttributeValue::S("SKILL#s1".to_owned())),
            ("SK".to_owned(), AttributeValue::S("META".to_owned())),
            ("GSI2PK".to_owned(), AttributeValue::S(partition.to_owned())),
            ("GSI2SK".to_owned(), AttributeValue::B(Blob::new(vec![0, 1, 254, 255]))),
        ]
        .into();
        let positions = [Position::Done, Position::Start, Position::After(key.clone())];
        assert_eq!(encode(&scope, &key), PLAIN_847BECC);
        assert_eq!(encode_sharded(&scope, &positions), SHARDED_847BECC);
        let names = AttributeNames::DEFAULT;
        assert_eq!(decode(PLAIN_847BECC, &scope, &names, Index::Gsi(2)).expect("decodes"), key);
        let shards = [
            AttributeValue::S("a".to_owned()),
            AttributeValue::S("b".to_owned()),
            AttributeValue::S(partition.to_owned()),
        ];
        assert_eq!(
            decode_sharded(SHARDED_847BECC, &scope, &names, Index::Gsi(2), &shards).expect("decodes"),
            positions
        );
    }

    #[test]
    fn a_cursor_decodes_to_the_key_it_encodes() {
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
        ]
        .into();
        let text = encode(&scope, &key);
        assert_eq!(decode_keys(&text, &scope, &["PK", "SK", "downloads"]).expect("decodes"), key);
        let sharded = encode_sharded(&scope, &[Position::Done]);
        let refused = |e: Result<Item, Error>| match e {
            Err(Error::Cursor { reason }) => reason,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            refused(decode_keys(&sharded, &scope, &["PK"])),
            "it is the cursor of a sharded query, not of a query of one partition"
        );
        assert_eq!(refused(decode_keys("e30", &scope, &["PK"])), "not a cursor of this library (bad contents)");
        assert_eq!(refused(decode_keys("!", &scope, &["PK"])), "not a cursor of this library (bad encoding)");
    }
}

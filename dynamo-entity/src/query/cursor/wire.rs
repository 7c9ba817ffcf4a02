//! A cursor's wire form: the JSON its text is URL-safe base64 of, written and read by the
//! crate's own JSON code ([`plain`](crate::value::json::plain)). The bytes are the ones
//! `serde_json` wrote for this form in earlier versions, field for field, so a cursor handed
//! out before an upgrade keeps its checksum after it.
//!
//! | member | holds |
//! |---|---|
//! | `v` | the form's version (1) |
//! | `e`, `i`, `p`, `q` | the scope ([`Scope`]): entity, index (or scan), partition (or segment), the query's fingerprint |
//! | `k` | a cursor of one partition: the key to resume after, `[name, type, value]` for each attribute (`B` as base64), sorted by name |
//! | `s` | a sharded query's cursor: for each shard `null` (exhausted), `[]` (not read yet) or a key as in `k` |
//! | `c` | the checksum: FNV-1a (64 bits) of the JSON without `c`, as 16 hex digits; the last member |
//!
//! Members are written in this order. When read, they may come in any order, and any other
//! member is ignored, as are `s` in a cursor of one partition and `k` in a sharded one. A
//! member the cursor reads written twice or of the wrong type makes the text no cursor.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::value::json::plain::{Plain, read_plain, write_string};

/// What a cursor is bound to: the entity type, the index and the partition key value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Scope {
    pub entity: String,
    pub index: String,
    pub partition: String,
    /// A fingerprint of the sort order and the sort-key condition.
    pub query: String,
}

/// A key attribute as a cursor writes it: its name, its type (`S`, `N` or `B`) and its value's
/// text (`B` as base64).
pub(super) type Triple = (String, char, String);

/// Where a cursor resumes: the key of a query of one partition, or each shard's position.
#[derive(Clone, Copy)]
pub(super) enum Positions<'a> {
    Key(&'a [Triple]),
    Shards(&'a [Option<Vec<Triple>>]),
}

/// The cursor's JSON without its checksum `c`.
fn json(v: u8, scope: &Scope, positions: Positions<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(128);
    out.extend_from_slice(b"{\"v\":");
    out.extend_from_slice(v.to_string().as_bytes());
    for (name, text) in [("e", &scope.entity), ("i", &scope.index), ("p", &scope.partition), ("q", &scope.query)] {
        out.extend_from_slice(b",\"");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        write_string(&mut out, text);
    }
    match positions {
        Positions::Key(k) => {
            out.extend_from_slice(b",\"k\":");
            write_key(&mut out, k);
        }
        Positions::Shards(s) => {
            out.extend_from_slice(b",\"s\":[");
            for (n, shard) in s.iter().enumerate() {
                if n > 0 {
                    out.push(b',');
                }
                match shard {
                    Some(k) => write_key(&mut out, k),
                    None => out.extend_from_slice(b"null"),
                }
            }
            out.push(b']');
        }
    }
    out.push(b'}');
    out
}

fn write_key(out: &mut Vec<u8>, k: &[Triple]) {
    out.push(b'[');
    for (n, (name, tag, text)) in k.iter().enumerate() {
        if n > 0 {
            out.push(b',');
        }
        out.push(b'[');
        write_string(out, name);
        out.push(b',');
        write_string(out, tag.encode_utf8(&mut [0; 4]));
        out.push(b',');
        write_string(out, text);
        out.push(b']');
    }
    out.push(b']');
}

/// The text of the cursor of `scope` at `positions`: its JSON with the checksum appended as `c`,
/// in URL-safe base64.
pub(super) fn seal(v: u8, scope: &Scope, positions: Positions<'_>) -> String {
    let mut json = json(v, scope, positions);
    let c = fnv_hex(&json);
    json.pop();
    json.extend_from_slice(b",\"c\":\"");
    json.extend_from_slice(c.as_bytes());
    json.extend_from_slice(b"\"}");
    URL_SAFE_NO_PAD.encode(json)
}

/// FNV-1a (64 bits) of `bytes`, as 16 hex digits.
pub(super) fn fnv_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// A cursor's members, as read.
pub(super) struct Fields {
    pub(super) v: u8,
    pub(super) scope: Scope,
    /// Each `k` and each `s` as written: a cursor reads the one of its kind, and the other
    /// kind's is no member of it (it only names the kind of a cursor refused).
    k: Vec<Plain>,
    s: Vec<Plain>,
    c: Option<String>,
}

impl Fields {
    /// The key of a cursor of one partition (`k`): written once, well formed.
    pub(super) fn key(&self) -> Option<Vec<Triple>> {
        once(&self.k).and_then(key)
    }

    /// Each shard's position in a sharded query's cursor (`s`): written once, well formed.
    pub(super) fn shards(&self) -> Option<Vec<Option<Vec<Triple>>>> {
        once(&self.s).and_then(shards)
    }

    /// Whether `c` is the checksum of the scope and `positions`.
    pub(super) fn sealed(&self, positions: Positions<'_>) -> bool {
        self.c.as_deref().is_some_and(|c| c == fnv_hex(&json(self.v, &self.scope, positions)))
    }
}

fn once(values: &[Plain]) -> Option<Plain> {
    match values {
        [one] => Some(one.clone()),
        _ => None,
    }
}

/// The members of the cursor JSON `bytes`; `None` when it is not a cursor's: not JSON, not an
/// object, a member of the scope or `v` missing, or one of them or `c` written twice or of the
/// wrong type. `k` and `s` are read by the cursor's kind ([`Fields::key`], [`Fields::shards`]).
pub(super) fn read(bytes: &[u8]) -> Option<Fields> {
    let Ok(Plain::Object(members)) = read_plain(bytes) else { return None };
    let (mut v, mut c, mut k, mut s) = (None, None, Vec::new(), Vec::new());
    let (mut e, mut i, mut p, mut q): (Option<String>, Option<String>, Option<String>, Option<String>) =
        Default::default();
    for (name, value) in members {
        let fresh = match name.as_str() {
            "v" => v.replace(version(value)?).is_none(),
            "e" => e.replace(text(value)?).is_none(),
            "i" => i.replace(text(value)?).is_none(),
            "p" => p.replace(text(value)?).is_none(),
            "q" => q.replace(text(value)?).is_none(),
            "k" => {
                k.push(value);
                true
            }
            "s" => {
                s.push(value);
                true
            }
            "c" => c.replace(checksum(value)?).is_none(),
            _ => true,
        };
        if !fresh {
            return None;
        }
    }
    Some(Fields { v: v?, scope: Scope { entity: e?, index: i?, partition: p?, query: q? }, k, s, c: c.flatten() })
}

fn version(value: Plain) -> Option<u8> {
    match value {
        Plain::Number(n) => n.parse().ok(),
        _ => None,
    }
}

fn text(value: Plain) -> Option<String> {
    match value {
        Plain::String(s) => Some(s),
        _ => None,
    }
}

/// `c`: a string, or `null` (no checksum; the cursor is then refused as altered).
fn checksum(value: Plain) -> Option<Option<String>> {
    match value {
        Plain::String(s) => Some(Some(s)),
        Plain::Null => Some(None),
        _ => None,
    }
}

fn key(value: Plain) -> Option<Vec<Triple>> {
    let Plain::Array(attributes) = value else { return None };
    attributes
        .into_iter()
        .map(|a| match a {
            Plain::Array(parts) => match <[Plain; 3]>::try_from(parts) {
                Ok([Plain::String(name), Plain::String(tag), Plain::String(text)]) => {
                    let mut chars = tag.chars();
                    match (chars.next(), chars.next()) {
                        (Some(tag), None) => Some((name, tag, text)),
                        _ => None,
                    }
                }
                _ => None,
            },
            _ => None,
        })
        .collect()
}

fn shards(value: Plain) -> Option<Vec<Option<Vec<Triple>>>> {
    let Plain::Array(shards) = value else { return None };
    shards
        .into_iter()
        .map(|shard| match shard {
            Plain::Null => Some(None),
            shard => key(shard).map(Some),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use serde::Serialize;

    use super::*;

    /// The wire form as earlier versions declared it for `serde_json`.
    #[derive(Serialize)]
    struct Serde<'a> {
        v: u8,
        e: &'a str,
        i: &'a str,
        p: &'a str,
        q: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        k: Option<&'a [Triple]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        s: Option<&'a [Option<Vec<Triple>>]>,
        #[serde(skip_serializing_if = "Option::is_none")]
        c: Option<String>,
    }

    /// The cursor as earlier versions wrote it: the checksum of the JSON without `c`, then the
    /// JSON with it.
    fn by_serde(scope: &Scope, k: Option<&[Triple]>, s: Option<&[Option<Vec<Triple>>]>) -> String {
        let (e, i, p, q) = (&*scope.entity, &*scope.index, &*scope.partition, &*scope.query);
        let mut wire = Serde { v: 1, e, i, p, q, k, s, c: None };
        wire.c = Some(fnv_hex(&serde_json::to_vec(&wire).unwrap()));
        URL_SAFE_NO_PAD.encode(serde_json::to_vec(&wire).unwrap())
    }

    fn scope() -> Scope {
        Scope {
            entity: "Skill".to_owned(),
            index: "GSI1".to_owned(),
            partition: "S:category=\"docs\" \\ é #1\n\u{1}".to_owned(),
            query: "00ff00ff00ff00ff".to_owned(),
        }
    }

    fn key_of(values: &[&str]) -> Vec<Triple> {
        let mut k = vec![("PK".to_owned(), 'S', "SKILL#a\"b".to_owned()), ("SK".to_owned(), 'S', "META".to_owned())];
        k.extend(values.iter().map(|v| ("downloads".to_owned(), 'N', (*v).to_owned())));
        k
    }

    #[test]
    fn cursors_are_the_bytes_earlier_versions_wrote() {
        let scope = scope();
        for k in [key_of(&[]), key_of(&["42"]), Vec::new()] {
            assert_eq!(seal(1, &scope, Positions::Key(&k)), by_serde(&scope, Some(&k), None));
        }
        let s = [None, Some(Vec::new()), Some(key_of(&["-1.5"]))];
        assert_eq!(seal(1, &scope, Positions::Shards(&s)), by_serde(&scope, None, Some(&s)));
        assert_eq!(seal(1, &scope, Positions::Shards(&[])), by_serde(&scope, None, Some(&[])));
    }

    #[test]
    fn a_written_cursor_reads_back_sealed() {
        let scope = scope();
        let k = key_of(&["7"]);
        let bytes = URL_SAFE_NO_PAD.decode(seal(1, &scope, Positions::Key(&k))).unwrap();
        let fields = read(&bytes).unwrap();
        assert_eq!((fields.v, &fields.scope, fields.key(), fields.shards()), (1, &scope, Some(k.clone()), None));
        assert!(fields.sealed(Positions::Key(&k)));
        assert!(!fields.sealed(Positions::Key(&key_of(&["8"]))));
        let s = vec![None, Some(key_of(&[]))];
        let bytes = URL_SAFE_NO_PAD.decode(seal(1, &scope, Positions::Shards(&s))).unwrap();
        let fields = read(&bytes).unwrap();
        assert_eq!((fields.shards(), fields.key()), (Some(s.clone()), None));
        assert!(fields.sealed(Positions::Shards(&s)));
        assert!(!fields.sealed(Positions::Key(&[])));
    }

    #[test]
    fn members_read_in_any_order_and_others_are_ignored() {
        let text =
            br#"{ "k": [["PK", "S", "a"]], "q": "f", "x": {"y": [1e400]}, "p": "S:a", "i": "primary", "e": "E", "v": 1 }"#;
        let fields = read(text).unwrap();
        assert_eq!(fields.key(), Some(vec![("PK".to_owned(), 'S', "a".to_owned())]));
        assert_eq!(fields.c, None);
        // Another member of 126 arrays, 127 with the cursor's object: as many as serde_json reads.
        let deep = format!("{}1{}", "[".repeat(126), "]".repeat(126));
        let text = format!(r#"{{"v":1,"e":"E","i":"primary","p":"S:a","q":"f","k":[],"x":{deep}}}"#);
        assert_eq!(read(text.as_bytes()).and_then(|f| f.key()), Some(Vec::new()));
        // The other kind's member is no member of a cursor: read only by its kind.
        let scope = r#""v":1,"e":"E","i":"primary","p":"S:a","q":"f""#;
        let text = format!(r#"{{{scope},"k":[],"s":5,"s":[]}}"#);
        let fields = read(text.as_bytes()).unwrap();
        assert_eq!((fields.key(), fields.shards()), (Some(Vec::new()), None));
        let text = format!(r#"{{{scope},"s":[null],"k":[["PK","SS","a"]]}}"#);
        let fields = read(text.as_bytes()).unwrap();
        assert_eq!((fields.key(), fields.shards()), (None, Some(vec![None])));
        // Its own member twice: none.
        let text = format!(r#"{{{scope},"k":[],"k":[]}}"#);
        assert_eq!(read(text.as_bytes()).map(|f| f.key()), Some(None));
    }

    #[test]
    fn what_is_not_a_cursor_reads_as_none() {
        let scope = r#""e":"E","i":"primary","p":"S:a","q":"f""#;
        for members in [
            r#""k":[]"#.to_owned(),
            format!(r#""v":1,"v":1,{scope},"k":[]"#),
            format!(r#""v":256,{scope},"k":[]"#),
            format!(r#""v":"1",{scope},"k":[]"#),
            format!(r#""v":1.0,{scope},"k":[]"#),
            format!(r#""v":1,{scope},"k":[],"c":1"#),
            format!(r#""v":1,{scope},"k":[],"c":"a","c":"a""#),
            r#""v":1,"e":1,"i":"primary","p":"S:a","q":"f","k":[]"#.to_owned(),
        ] {
            let text = format!("{{{members}}}");
            assert!(read(text.as_bytes()).is_none(), "{text}");
        }
        assert!(read(b"[]").is_none());
        assert!(read(b"{").is_none());
        assert!(read(format!(r#"{{"v":1,{scope},"c":null}}"#).as_bytes()).is_some());
        // Positions that are not a key's or shards': no key, no shards.
        for positions in [r#""k":[["PK","SS","a"]]"#, r#""k":[["PK","S"]]"#, r#""k":{}"#, r#""s":[1]"#, r#""s":{}"#] {
            let text = format!(r#"{{"v":1,{scope},{positions}}}"#);
            let fields = read(text.as_bytes()).unwrap();
            assert_eq!((fields.key(), fields.shards()), (None, None), "{text}");
        }
    }
}

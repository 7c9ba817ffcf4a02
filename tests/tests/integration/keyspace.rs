//! Key-space security: no value of a key part (any Unicode, `#`, `%`, escape sequences such as
//! `%23`, very long text) can make one item's key equal another entity's or another
//! partition's, or make a `begins_with` query of one value reach the items of another; an
//! over-long part is a typed key error; and a cursor a client altered is refused.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use dynamo_entity::key::{KeyError, escape_into};
use dynamo_entity::{Cursor, Entity, Error, PrimaryKey, Table};
use proptest::prelude::*;

/// A member of an organization: `ORG#<org>` / `USER#<user>#ROLE#<role>`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ORG#<org>", sk = "USER#<user>#ROLE#<role>")]
struct Member {
    org: String,
    user: String,
    role: String,
}

/// A user of an organization: `ORG#<org>` / `USER#<user>`, a prefix of [`Member`]'s sort key.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ORG#<org>", sk = "USER#<user>")]
struct Account {
    org: String,
    user: String,
}

/// A team: `ORG#<org>#TEAM#<team>` / `META`, a partition that extends [`Member`]'s.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "ORG#<org>#TEAM#<team>", sk = "META")]
struct Team {
    org: String,
    team: String,
}

/// A document: `DOC#<a>#<b>` / `DOC`, two free parts side by side.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<a>#<b>", sk = "DOC")]
struct Doc {
    a: String,
    b: String,
}

fn key<E: Entity>(e: &E) -> PrimaryKey {
    e.primary_key().unwrap()
}

fn text(v: &AttributeValue) -> &str {
    v.as_s().unwrap()
}

fn esc(part: &str) -> String {
    let mut out = String::new();
    escape_into(part, &mut out);
    out
}

/// Adversarial key parts: the delimiter, the escape character, escape sequences, the literal
/// segments of the templates, and any Unicode.
fn part() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(
            prop_oneof![
                Just("#"), Just("%"), Just("%23"), Just("%25"), Just("%2"), Just("a"), Just("ROLE"), Just("USER"),
                Just("TEAM"), Just("META"), Just("#ROLE#"), Just("#TEAM#"), Just("\u{0}"), Just("\u{10FFFF}"), Just("é"),
            ],
            1..6,
        ).prop_map(|v| v.concat()),
        1 => ".{1,12}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    #[test]
    fn distinct_parts_give_distinct_keys(a in (part(), part(), part()), b in (part(), part(), part())) {
        let (x, y) = (
            Member { org: a.0.clone(), user: a.1.clone(), role: a.2.clone() },
            Member { org: b.0.clone(), user: b.1.clone(), role: b.2.clone() },
        );
        prop_assert_eq!(key(&x) == key(&y), a == b);
        let (p, q) = (Doc { a: a.0.clone(), b: a.1.clone() }, Doc { a: b.0.clone(), b: b.1.clone() });
        prop_assert_eq!(key(&p) == key(&q), (&a.0, &a.1) == (&b.0, &b.1));
    }

    #[test]
    fn no_key_of_one_entity_is_another_entitys(a in (part(), part(), part()), b in (part(), part())) {
        let m = key(&Member { org: a.0.clone(), user: a.1.clone(), role: a.2.clone() });
        let u = key(&Account { org: b.0.clone(), user: b.1.clone() });
        let t = key(&Team { org: b.0.clone(), team: b.1.clone() });
        // Same partition shape, but a member's sort key is never an account's.
        prop_assert_ne!(text(&m.sk), text(&u.sk));
        // A team's partition is never a member's or an account's.
        prop_assert_ne!(text(&t.pk), text(&m.pk));
        prop_assert_ne!(text(&t.pk), text(&u.pk));
    }

    #[test]
    fn a_prefix_query_reaches_only_its_own_value(u1 in part(), u2 in part(), role in part()) {
        // `Member::query(org).sk_begins_with((&u1,))` asks for `begins_with(SK, "USER#<u1>#ROLE#")`.
        let prefix = format!("USER#{}#ROLE#", esc(&u1));
        let member = key(&Member { org: "o".into(), user: u2.clone(), role });
        prop_assert_eq!(text(&member.sk).starts_with(&prefix), u1 == u2);
        // And an account's key never matches any member prefix.
        let account = key(&Account { org: "o".into(), user: u2 });
        prop_assert!(!text(&account.sk).starts_with(&prefix));
        let user_prefix = format!("USER#{}#", esc(&u1));
        prop_assert!(!text(&account.sk).starts_with(&user_prefix), "{} starts with {}", text(&account.sk), user_prefix);
    }

    #[test]
    fn keys_parse_back_into_their_parts(org in part(), user in part(), role in part()) {
        let k = key(&Member { org: org.clone(), user: user.clone(), role: role.clone() });
        let t = Member::schema().primary.sk;
        prop_assert_eq!(t.parse(text(&k.sk)).unwrap(), vec![user, role]);
        prop_assert_eq!(Member::schema().primary.pk.parse(text(&k.pk)).unwrap(), vec![org]);
    }
}

#[test]
fn over_long_parts_are_typed_key_errors() {
    // 2,048 bytes for a partition key, 1,024 for a sort key, counted after escaping.
    let org = "#".repeat(681); // 2,043 bytes escaped, 2,047 with `ORG#`
    assert!(Member { org: org.clone(), user: "u".into(), role: "r".into() }.primary_key().is_ok());
    let err = Member { org: format!("{org}#"), user: "u".into(), role: "r".into() }.to_item().unwrap_err();
    match err {
        Error::Key(KeyError::TooLong { entity, attribute, template, bytes, over, limit }) => {
            assert_eq!((entity, attribute, template, bytes, over, limit), ("Member", "PK", "ORG#<org>", 2050, 2, 2048));
        }
        other => panic!("expected Error::Key(TooLong), got {other:?}"),
    }
    let err = Member { org: "o".into(), user: "é".repeat(600), role: "r".into() }.primary_key().unwrap_err();
    match err {
        Error::Key(KeyError::TooLong { attribute: "SK", bytes, over, limit: 1024, .. }) => {
            assert_eq!((bytes, over), (5 + 1200 + 7, 5 + 1200 + 7 - 1024));
        }
        other => panic!("expected Error::Key(TooLong) on SK, got {other:?}"),
    }
    // The typed key functions give the same error before any request is sent.
    let err = Member::key("o", &"x".repeat(1020), "r").into_encoded().unwrap_err();
    assert!(
        matches!(err, Error::Key(KeyError::TooLong { entity: "Member", attribute: "SK", limit: 1024, .. })),
        "{err:?}"
    );
}

#[tokio::test]
async fn adversarial_values_stay_in_their_own_partition_and_prefix() {
    let table = common::table("keyspace_prefix", &[Member::schema(), Account::schema(), Team::schema()]).await;
    let users = ["a", "a#ROLE#x", "a%23ROLE%23x", "a#", "a%", "a%23", "a%2", "ab", "a#ROLE", "%", "#"];
    for u in users {
        for role in ["x", "y#z"] {
            table.put(&Member { org: "o".into(), user: u.into(), role: role.into() }).await.unwrap();
        }
        table.put(&Account { org: "o".into(), user: u.into() }).await.unwrap();
    }
    table.put(&Team { org: "o".into(), team: "t".into() }).await.unwrap();
    table.put(&Member { org: "o#TEAM#t".into(), user: "a".into(), role: "x".into() }).await.unwrap();

    for u in users {
        let page = table.query(Member::query("o")).sk_begins_with((u,)).consistent_read().send().await.unwrap();
        let got: Vec<(&str, &str)> = page.items.iter().map(|m| (m.user.as_str(), m.role.as_str())).collect();
        assert_eq!(got, vec![(u, "x"), (u, "y#z")], "prefix query of user {u:?}");
    }
    // The whole partition holds exactly what was written to it.
    let all = table.query(Member::query("o")).consistent_read().send().await.unwrap().items;
    assert_eq!(all.len(), users.len() * 2);
    assert!(all.iter().all(|m| m.org == "o"));
    let raw = common::raw_item(&table, "ORG#o%23TEAM%23t", "USER#a#ROLE#x").await.unwrap();
    assert_eq!(raw.get("org"), Some(&AttributeValue::S("o#TEAM#t".into())));
    assert!(common::raw_item(&table, "ORG#o#TEAM#t", "META").await.is_some());
    assert_eq!(
        table.get_consistent(Team::key("o", "t")).await.unwrap(),
        Some(Team { org: "o".into(), team: "t".into() })
    );
}

// ---------------------------------------------------------------------------------------------
// Cursors

async fn paged_table(name: &str) -> Table {
    let table = common::table(name, &[Member::schema()]).await;
    for org in ["o", "p"] {
        for i in 0..4 {
            table.put(&Member { org: org.into(), user: format!("u{i}"), role: "r".into() }).await.unwrap();
        }
    }
    table
}

fn is_cursor_error(r: &Result<dynamo_entity::Page<Member>, Error>) -> bool {
    matches!(r, Err(Error::Cursor { .. }))
}

#[tokio::test]
async fn a_cursor_of_another_query_is_refused() {
    let table = paged_table("keyspace_cursor_swap").await;
    let first = table.query(Member::query("o")).page_items(1).send().await.unwrap();
    let cursor = first.cursor.clone().unwrap();
    // It works for its own query.
    let next = table.query(Member::query("o")).page_items(1).after(cursor.clone()).send().await.unwrap();
    assert_eq!(next.items[0].user, "u1");
    // Another partition, another order, another sort-key condition, another entity: refused.
    let other_partition = table.query(Member::query("p")).page_items(1).after(cursor.clone()).send().await;
    assert!(is_cursor_error(&other_partition), "{other_partition:?}");
    let other_order = table.query(Member::query("o")).descending().page_items(1).after(cursor.clone()).send().await;
    assert!(is_cursor_error(&other_order), "{other_order:?}");
    let other_condition =
        table.query(Member::query("o")).sk_begins_with(("u0",)).page_items(1).after(cursor.clone()).send().await;
    assert!(is_cursor_error(&other_condition), "{other_condition:?}");
    let other_entity = table.query(Account::query("o")).page_items(1).after(cursor.clone()).send().await;
    assert!(matches!(other_entity, Err(Error::Cursor { .. })), "{other_entity:?}");
}

#[tokio::test]
async fn an_altered_cursor_is_refused() {
    let table = paged_table("keyspace_cursor_flip").await;
    let query = || table.query(Member::query("o")).max_items(1);
    let cursor = query().send().await.unwrap().cursor.unwrap();
    let original = cursor.as_str().to_owned();

    // Truncated at every length.
    for len in 0..original.len() {
        let r = query().after(Cursor::from(&original[..len])).send().await;
        assert!(is_cursor_error(&r), "truncated to {len}: {r:?}");
    }
    // Every byte of the decoded content flipped, one bit at a time (the low bit and the
    // high bit), re-encoded so that only the content changes.
    let bytes = URL_SAFE_NO_PAD.decode(&original).unwrap();
    for i in 0..bytes.len() {
        for bit in [0x01u8, 0x20, 0x80] {
            let mut b = bytes.clone();
            b[i] ^= bit;
            let r = query().after(Cursor::from(URL_SAFE_NO_PAD.encode(&b))).send().await;
            assert!(is_cursor_error(&r), "byte {i} ^ {bit:#04x} ({:?}): {r:?}", String::from_utf8_lossy(&b));
        }
    }
    // Characters of the text replaced, and text appended.
    for i in 0..original.len() {
        let mut t = original.clone().into_bytes();
        t[i] = if t[i] == b'A' { b'B' } else { b'A' };
        let r = query().after(Cursor::from(String::from_utf8(t).unwrap())).send().await;
        assert!(is_cursor_error(&r), "character {i} replaced: {r:?}");
    }
    for extra in ["A", "AA", "=", "%", "#"] {
        let r = query().after(Cursor::from(format!("{original}{extra}"))).send().await;
        assert!(is_cursor_error(&r), "{extra:?} appended: {r:?}");
    }
}

//! Key fields that live only inside the keys, as other clients write them: decoding takes a key
//! field without an attribute of its own from the key that holds it (`PK`, `SK`, a GSI or LSI
//! key); `#[entity(key_fields = "keys")]` writes key fields only there; `rename_all` names the
//! attributes. Items are written raw (with the SDK alone) the way the seed write-up
//! `004_fca20cf2a3c23bd2` shows them, and read through `get`, `query` and GSI queries.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::value::ValueError;
use dynamo_entity::{Entity, Error, Item, Table};

/// A user as the write-up stores it: the id only inside `PK` and `GSI1SK`, the e-mail both as
/// an attribute and inside `GSI1PK`.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "USER#<id>",
    sk = "PROFILE",
    gsi1 = "EMAIL#<email>",
    gsi1_sk = "USER#<id>",
    name = "USER",
    rename_all = "camelCase"
)]
struct User {
    id: String,
    name: String,
    email: String,
    created_at: String,
    order_count: u32,
}

/// A user's order, keyed by date and order id, written only inside its keys.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "USER#<user_id>",
    sk = "ORDER#<day>#<order_id>",
    lsi1 = "ST#<status>#<total_cents>",
    name = "ORDER",
    key_fields = "keys"
)]
struct UserOrder {
    user_id: String,
    day: String,
    order_id: String,
    status: String,
    total_cents: u64,
    note: Option<String>,
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

async fn put_raw(table: &Table, pairs: &[(&str, AttributeValue)]) {
    let item: Item = pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

fn alice() -> User {
    User {
        id: "alice".into(),
        name: "Alice".into(),
        email: "alice@example.com".into(),
        created_at: "2026-05-01T12:34:56.000Z".into(),
        order_count: 45,
    }
}

#[tokio::test]
async fn key_fields_are_read_from_the_keys() {
    let table = common::table("key_fields_read", &[User::schema(), UserOrder::schema()]).await;
    put_raw(
        &table,
        &[
            ("PK", s("USER#alice")),
            ("SK", s("PROFILE")),
            ("GSI1PK", s("EMAIL#alice@example.com")),
            ("GSI1SK", s("USER#alice")),
            ("name", s("Alice")),
            ("email", s("alice@example.com")),
            ("createdAt", s("2026-05-01T12:34:56.000Z")),
            ("orderCount", n("45")),
            ("_type", s("USER")),
        ],
    )
    .await;
    assert_eq!(table.get_consistent(User::key("alice")).await.unwrap(), Some(alice()));
    let by_email = table.query(User::gsi1("alice@example.com")).all().await.unwrap();
    assert_eq!(by_email, vec![alice()]);

    // Every part of a composite sort key, the partition key's part, and an escaped `#`.
    for (day, id) in [("2026-05-15", "abc123"), ("2026-05-16", "x#1")] {
        let sk = format!("ORDER#{day}#{}", id.replace('#', "%23"));
        put_raw(
            &table,
            &[
                ("PK", s("USER#alice")),
                ("SK", s(&sk)),
                ("status", s("shipped")),
                ("total_cents", n("8999")),
                ("_type", s("ORDER")),
            ],
        )
        .await;
    }
    let orders = table.query(UserOrder::query("alice")).consistent_read().all().await.unwrap();
    let order = |day: &str, id: &str| UserOrder {
        user_id: "alice".into(),
        day: day.into(),
        order_id: id.into(),
        status: "shipped".into(),
        total_cents: 8999,
        note: None,
    };
    assert_eq!(orders, vec![order("2026-05-15", "abc123"), order("2026-05-16", "x#1")]);

    // An attribute of its own wins over the key (the key check then compares them).
    put_raw(
        &table,
        &[
            ("PK", s("USER#bob")),
            ("SK", s("PROFILE")),
            ("id", s("bob")),
            ("name", s("Bob")),
            ("email", s("bob@example.com")),
            ("createdAt", s("2026-01-01T00:00:00.000Z")),
            ("orderCount", n("0")),
            ("_type", s("USER")),
        ],
    )
    .await;
    let bob = table.get_consistent(User::key("bob")).await.unwrap().unwrap();
    assert_eq!((bob.id.as_str(), bob.email.as_str()), ("bob", "bob@example.com"));
}

#[tokio::test]
async fn keys_only_entities_write_no_duplicate_attributes() {
    let table = common::table("key_fields_write", &[User::schema(), UserOrder::schema()]).await;
    let order = UserOrder {
        user_id: "alice".into(),
        day: "2026-05-15".into(),
        order_id: "abc123".into(),
        status: "shipped".into(),
        total_cents: 8999,
        note: Some("gift".into()),
    };
    table.put(&order).await.unwrap();
    let raw = common::raw_item(&table, "USER#alice", "ORDER#2026-05-15#abc123").await.unwrap();
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    // The user, day and order id are held by the primary key; `status` and `total_cents` by
    // LSI1SK, whose parts are never absent; `note` by no key.
    assert_eq!(names, ["LSI1SK", "PK", "SK", "_type", "note"]);
    assert_eq!(raw["LSI1SK"], s("ST#shipped#00000000000000008999"));
    assert_eq!(
        table.get_consistent(UserOrder::key("alice", "2026-05-15", "abc123")).await.unwrap(),
        Some(order.clone())
    );

    // An update of a field held only by a key rewrites the key, and no attribute.
    let key = UserOrder::key("alice", "2026-05-15", "abc123");
    let update = table.update(key).set(UserOrder::STATUS, &"delivered".to_owned()).set(UserOrder::TOTAL_CENTS, &8999);
    update.send().await.unwrap();
    let raw = common::raw_item(&table, "USER#alice", "ORDER#2026-05-15#abc123").await.unwrap();
    assert_eq!(raw["LSI1SK"], s("ST#delivered#00000000000000008999"));
    assert!(!raw.contains_key("status"));
    let got = table.get_consistent(UserOrder::key("alice", "2026-05-15", "abc123")).await.unwrap().unwrap();
    assert_eq!(got, UserOrder { status: "delivered".into(), ..order.clone() });
    // Adding to a number stored only in a key is refused before sending.
    let key = UserOrder::key("alice", "2026-05-15", "abc123");
    let err = table.update(key).add(UserOrder::TOTAL_CENTS, &1).send().await.unwrap_err();
    assert!(matches!(&err, Error::Invalid { reason } if reason.contains("stored only inside its keys")), "{err}");

    // The default (`key_fields = "attributes"`) writes key fields as attributes too.
    table.put(&alice()).await.unwrap();
    let raw = common::raw_item(&table, "USER#alice", "PROFILE").await.unwrap();
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["GSI1PK", "GSI1SK", "PK", "SK", "_type", "createdAt", "email", "id", "name", "orderCount"]);
}

#[tokio::test]
async fn a_field_in_no_key_on_the_item_is_an_error_naming_the_keys() {
    let table = common::table("key_fields_errors", &[User::schema(), UserOrder::schema()]).await;
    // The LSI sort key is the only place `status` lives: without it the error names
    // the entity, the attribute, the item's key and the key that would hold the field.
    put_raw(&table, &[("PK", s("USER#carol")), ("SK", s("ORDER#2026-05-15#o1")), ("_type", s("ORDER"))]).await;
    let err = table.get_consistent(UserOrder::key("carol", "2026-05-15", "o1")).await.unwrap_err();
    let Error::Decode { entity, attribute, key, source } = &err else { panic!("{err:?}") };
    assert_eq!(
        (*entity, *attribute, key.as_str()),
        ("UserOrder (type ORDER)", "status", "PK=USER#carol SK=ORDER#2026-05-15#o1")
    );
    assert_eq!(
        source,
        &ValueError::Invalid(
            "the attribute is missing, and no key that holds `status` is on the item (LSI1SK (`ST#<status>#<total_cents>`))"
                .into()
        )
    );
    // A key that does not have its template's shape.
    put_raw(
        &table,
        &[
            ("PK", s("USER#carol")),
            ("SK", s("ORDER#2026-05-15#o2")),
            ("LSI1SK", s("ST#paid#12")),
            ("_type", s("ORDER")),
        ],
    )
    .await;
    let err = table.get_consistent(UserOrder::key("carol", "2026-05-15", "o2")).await.unwrap_err();
    let Error::Decode { attribute, source, .. } = &err else { panic!("{err:?}") };
    assert_eq!(*attribute, "total_cents");
    assert_eq!(
        source,
        &ValueError::Invalid(
            "the attribute is missing, and part `total_cents` of LSI1SK (`ST#<status>#<total_cents>`) is not valid: `12` is not a valid u64 key part"
                .into()
        )
    );
}

/// [`User`] declared with `key_fields = "keys"`: `id` and `email` are written only inside the
/// keys (`PK`, `GSI1PK`, `GSI1SK`).
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "USER#<id>",
    sk = "PROFILE",
    gsi1 = "EMAIL#<email>",
    gsi1_sk = "USER#<id>",
    name = "USER",
    rename_all = "camelCase",
    key_fields = "keys"
)]
struct KeyUser {
    id: String,
    name: String,
    email: String,
    created_at: String,
    order_count: u32,
}

/// The item another client (the Node service of issue 11) writes for `ann`: the e-mail both
/// inside `GSI1PK` and as an attribute of its own.
fn ann_raw() -> Vec<(&'static str, AttributeValue)> {
    vec![
        ("PK", s("USER#u1")),
        ("SK", s("PROFILE")),
        ("GSI1PK", s("EMAIL#ann@x.com")),
        ("GSI1SK", s("USER#u1")),
        ("name", s("Ann")),
        ("email", s("ann@x.com")),
        ("createdAt", s("2026-05-01T12:34:56.000Z")),
        ("orderCount", n("3")),
        ("_type", s("USER")),
    ]
}

#[tokio::test]
async fn a_keys_only_field_is_read_from_its_key_not_a_stale_attribute() {
    let table = common::table("key_fields_stale", &[KeyUser::schema()]).await;
    put_raw(&table, &ann_raw()).await;
    let ann = |email: &str| KeyUser {
        id: "u1".into(),
        name: "Ann".into(),
        email: email.into(),
        created_at: "2026-05-01T12:34:56.000Z".into(),
        order_count: 3,
    };
    assert_eq!(table.get_consistent(KeyUser::key("u1")).await.unwrap(), Some(ann("ann@x.com")));

    // The update rewrites the key that holds `email`; it cannot set the foreign attribute only
    // where it exists (DynamoDB has no such update action), so that attribute keeps the old
    // value, and every read takes the field from the key.
    let returned = table.update(KeyUser::key("u1")).set(KeyUser::EMAIL, &"ann2@x.com".to_owned()).send().await.unwrap();
    assert_eq!(returned.decoded(), Some(&ann("ann2@x.com")));
    let raw = common::raw_item(&table, "USER#u1", "PROFILE").await.unwrap();
    assert_eq!(raw["GSI1PK"], s("EMAIL#ann2@x.com"));
    assert_eq!(raw["GSI1SK"], s("USER#u1"));
    assert_eq!(raw["email"], s("ann@x.com"));
    assert_eq!(table.get_consistent(KeyUser::key("u1")).await.unwrap(), Some(ann("ann2@x.com")));
    assert_eq!(table.query(KeyUser::gsi1("ann2@x.com")).all().await.unwrap(), vec![ann("ann2@x.com")]);
    assert_eq!(table.query(KeyUser::gsi1("ann@x.com")).all().await.unwrap(), vec![]);

    // An item without the key that holds the field (here without GSI1) falls back to the
    // attribute.
    put_raw(&table, &ann_raw().into_iter().filter(|(a, _)| !a.starts_with("GSI1")).collect::<Vec<_>>()).await;
    assert_eq!(table.get_consistent(KeyUser::key("u1")).await.unwrap(), Some(ann("ann@x.com")));
}

#[tokio::test]
async fn updating_a_key_field_stored_as_an_attribute_rewrites_key_and_attribute() {
    let table = common::table("key_fields_update_attr", &[User::schema()]).await;
    put_raw(&table, &ann_raw()).await;
    let returned = table.update(User::key("u1")).set(User::EMAIL, &"ann2@x.com".to_owned()).send().await.unwrap();
    let ann2 = User {
        id: "u1".into(),
        name: "Ann".into(),
        email: "ann2@x.com".into(),
        created_at: "2026-05-01T12:34:56.000Z".into(),
        order_count: 3,
    };
    assert_eq!(returned.decoded(), Some(&ann2));
    let raw = common::raw_item(&table, "USER#u1", "PROFILE").await.unwrap();
    assert_eq!(raw["GSI1PK"], s("EMAIL#ann2@x.com"));
    assert_eq!(raw["GSI1SK"], s("USER#u1"));
    assert_eq!(raw["email"], s("ann2@x.com"));
    assert_eq!(table.get_consistent(User::key("u1")).await.unwrap(), Some(ann2.clone()));
    assert_eq!(table.query(User::gsi1("ann2@x.com")).all().await.unwrap(), vec![ann2]);
}

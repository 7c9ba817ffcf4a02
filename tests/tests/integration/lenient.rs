//! Lenient reads: a query, an item collection and the table enum report each item that does
//! not decode as an `ItemError` (with its key) beside the items that do, when asked; the
//! default stays strict (the first such item fails the read, naming its key). And the time and
//! number forms other clients write (RFC 3339 with any fraction and offset, lists for sets,
//! epoch numbers), read from items written with the raw SDK.

use crate::common;

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::error::ItemError;
use dynamo_entity::query::Decoded;
use dynamo_entity::value::ValueError;
use dynamo_entity::value::time::{Date, EpochMillis, EpochSeconds};
use dynamo_entity::{Collection, Entity, EntityEnum, Error, Item, Page, Table, Timestamp};
use futures::TryStreamExt;

/// A user's order, sorted by day inside the user's partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user>", sk = "ORDER#<day>#<id>")]
struct Order {
    user: String,
    day: Date,
    id: String,
    total: u64,
    placed_at: Timestamp,
    tags: BTreeSet<String>,
    counts: BTreeSet<u32>,
    expires: Option<EpochSeconds>,
    seen: Option<EpochMillis>,
}

/// The user's profile, in the same partition.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user>", sk = "PROFILE")]
struct Profile {
    user: String,
    name: String,
}

#[derive(Collection, Debug, PartialEq)]
struct Account {
    profile: Profile,
    orders: Vec<Order>,
}

#[derive(EntityEnum, Debug, PartialEq)]
enum AnyItem {
    Order(Order),
    Profile(Profile),
}

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

fn day(text: &str) -> Date {
    Date::parse(text).unwrap()
}

fn order(user: &str, i: u32) -> Order {
    // Days 2026-05-01 + i, so that the sort key order is i's order.
    let d = Date::from_days_since_epoch(day("2026-05-01").days_since_epoch() + i as i32).unwrap();
    Order {
        user: user.into(),
        day: d,
        id: format!("o{i:02}"),
        total: u64::from(i) * 10,
        placed_at: d.midnight().add_millis(3_600_000),
        tags: BTreeSet::new(),
        counts: BTreeSet::new(),
        expires: None,
        seen: None,
    }
}

async fn raw_put(table: &Table, item: Item) {
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

/// 30 orders of `u1`; those of `bad` get `total` as a string, so they do not decode.
async fn fill(table: &Table, bad: &[u32]) {
    table.put(&Profile { user: "u1".into(), name: "Ann".into() }).await.unwrap();
    for i in 0..30 {
        let mut item = order("u1", i).to_item().unwrap();
        if bad.contains(&i) {
            item.insert("total".into(), s("lots"));
        }
        raw_put(table, item).await;
    }
}

fn key_of(i: u32) -> String {
    let o = order("u1", i);
    format!("PK=USER#u1 SK=ORDER#{}#{}", o.day, o.id)
}

fn assert_skipped(skipped: &[ItemError], expected: &[u32]) {
    let keys: Vec<&str> = skipped.iter().map(|e| e.key.as_str()).collect();
    let want: Vec<String> = expected.iter().map(|&i| key_of(i)).collect();
    assert_eq!(keys, want);
    for (e, &i) in skipped.iter().zip(expected) {
        match &e.error {
            Error::Decode { entity, attribute, key, source } => {
                assert_eq!((*entity, *attribute, key.as_str()), ("Order", "total", key_of(i).as_str()));
                assert_eq!(*source, ValueError::WrongType { expected: "N", found: "S" });
            }
            other => panic!("expected a decode error, got {other}"),
        }
        assert_eq!(e.item["total"], s("lots"));
    }
}

const BAD: [u32; 3] = [4, 5, 17];

#[tokio::test]
async fn a_strict_query_fails_on_the_first_undecodable_item_naming_its_key() {
    let table = common::table("lenient_strict", &[Order::schema(), Profile::schema()]).await;
    fill(&table, &BAD).await;
    let err = table.query(Order::query("u1")).consistent_read().send().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        format!("cannot decode Order {}: attribute `total`: expected type N, found S", key_of(4))
    );
    let err = table.query(Order::query("u1")).consistent_read().all().await.unwrap_err();
    assert!(matches!(err, Error::Decode { ref key, .. } if *key == key_of(4)), "{err}");
}

#[tokio::test]
async fn lenient_pages_report_each_undecodable_item_once() {
    let table = common::table("lenient_pages", &[Order::schema(), Profile::schema()]).await;
    fill(&table, &BAD).await;
    // Pages of 10 decoded items, each from the cursor of the one before: 0-9 less 4,5 then
    // 10,11; the cursor resumes after the last.
    let mut pages = Vec::new();
    let mut after = None;
    loop {
        let query = table.query(Order::query("u1")).consistent_read().page_items(10).after(after.take());
        let page = query.lenient().send().await.unwrap();
        after = page.cursor.clone();
        pages.push(page);
        if after.is_none() {
            break;
        }
    }
    // `max_items` is a total for `pages()` too: one page of 10.
    let limited: Vec<_> =
        table.query(Order::query("u1")).consistent_read().max_items(10).lenient().pages().try_collect().await.unwrap();
    assert_eq!(limited.len(), 1);
    assert_eq!(limited[0].items, pages[0].items);
    assert_skipped(&limited[0].skipped, &[4, 5]);
    let ids: Vec<Vec<u32>> =
        pages.iter().map(|p| p.items.iter().map(|o| o.id[1..].parse().unwrap()).collect()).collect();
    assert_eq!(
        ids,
        vec![
            vec![0, 1, 2, 3, 6, 7, 8, 9, 10, 11],
            vec![12, 13, 14, 15, 16, 18, 19, 20, 21, 22],
            vec![23, 24, 25, 26, 27, 28, 29],
        ]
    );
    assert_skipped(&pages[0].skipped, &[4, 5]);
    assert_skipped(&pages[1].skipped, &[17]);
    assert_skipped(&pages[2].skipped, &[]);
    assert!(pages[2].cursor.is_none());
    assert_eq!(pages[0].items[4], order("u1", 6));

    // all(): every decoded item, every skipped one.
    let all = table.query(Order::query("u1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(all.items.len(), 27);
    assert_eq!(all.items, (0..30).filter(|i| !BAD.contains(i)).map(|i| order("u1", i)).collect::<Vec<_>>());
    assert_skipped(&all.skipped, &BAD);
    assert!(all.cursor.is_none());

    // `max_items` counts decoded items.
    let first = table.query(Order::query("u1")).consistent_read().max_items(5).lenient().all().await.unwrap();
    assert_eq!(first.items, [0, 1, 2, 3, 6].map(|i| order("u1", i)).to_vec());
    assert_skipped(&first.skipped, &[4, 5]);

    let limited: Vec<Result<Order, ItemError>> =
        table.query(Order::query("u1")).consistent_read().max_items(5).lenient().stream().try_collect().await.unwrap();
    assert_eq!(limited.iter().filter(|r| r.is_ok()).count(), 5);
    assert_skipped(&limited.into_iter().filter_map(Result::err).collect::<Vec<_>>(), &[4, 5]);

    // stream(): 27 Ok(Ok), 3 Ok(Err), descending too.
    let streamed: Vec<Result<Order, ItemError>> = table
        .query(Order::query("u1"))
        .consistent_read()
        .descending()
        .page_size(7)
        .lenient()
        .stream()
        .try_collect()
        .await
        .unwrap();
    let (good, bad): (Vec<_>, Vec<_>) = streamed.into_iter().partition(Result::is_ok);
    assert_eq!(good.len(), 27);
    assert_eq!(good[0].as_ref().unwrap(), &order("u1", 29));
    let bad: Vec<ItemError> = bad.into_iter().map(Result::unwrap_err).collect();
    assert_skipped(&bad, &[17, 5, 4]);
}

#[tokio::test]
async fn collections_and_the_table_enum_report_undecodable_items_beside_the_rest() {
    let table = common::table("lenient_collections", &[Order::schema(), Profile::schema()]).await;
    fill(&table, &BAD).await;
    let items = table.collection(Order::query("u1")).consistent_read().send().await.unwrap();
    assert_eq!(items.items().len(), 31);

    // Strict: the first undecodable item fails, naming its key.
    assert!(matches!(items.all::<Order>(), Err(Error::Decode { ref key, .. }) if *key == key_of(4)));
    assert!(matches!(items.decode::<Account>(), Err(Error::Decode { ref key, .. }) if *key == key_of(4)));
    assert!(matches!(items.decode_each::<AnyItem>(), Err(Error::Decode { ref key, .. }) if *key == key_of(4)));

    let decoded: Vec<Order> = (0..30).filter(|i| !BAD.contains(i)).map(|i| order("u1", i)).collect();
    let Page { items: orders, skipped, .. } = items.lenient().all::<Order>();
    assert_eq!(orders, decoded);
    assert_skipped(&skipped, &BAD);

    let Decoded { value: account, skipped } = items.lenient().decode::<Account>().unwrap();
    assert_eq!(
        account,
        Account { profile: Profile { user: "u1".into(), name: "Ann".into() }, orders: decoded.clone() }
    );
    assert_skipped(&skipped, &BAD);

    let Page { items: any, skipped, .. } = items.lenient().decode_each::<AnyItem>();
    assert_eq!(any.len(), 28);
    assert_eq!(any.iter().filter(|a| matches!(a, AnyItem::Profile(_))).count(), 1);
    assert_eq!(any[0], AnyItem::Order(order("u1", 0)));
    assert_skipped(&skipped, &BAD);

    // An item of a type AnyItem has no variant for, and one typed as the library's guard items
    // but not at a guard's key (`UNIQUE#…`): no guard, so reported too. Skipped with a warning
    // by decode_each, refused by strict().decode_each, reported by lenient().decode_each after the
    // undecodable ones, in sort-key order.
    let mut other: Item = [("PK", "USER#u1"), ("SK", "WISHLIST#1"), ("_type", "Wishlist")]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), s(v)))
        .collect();
    raw_put(&table, other.clone()).await;
    let guard = [("PK", "USER#u1"), ("SK", "UNIQUE"), ("_type", "_unique")];
    raw_put(&table, guard.into_iter().map(|(k, v)| (k.to_owned(), s(v))).collect()).await;
    let items = table.collection(Order::query("u1")).consistent_read().send().await.unwrap();
    assert_eq!(items.items().len(), 33);
    let Page { items: any, skipped, .. } = items.lenient().decode_each::<AnyItem>();
    assert_eq!(any.len(), 28);
    assert_skipped(&skipped[..3], &BAD);
    assert_eq!(skipped.len(), 5);
    assert_eq!(skipped[3].key, "PK=USER#u1 SK=UNIQUE");
    assert_eq!(
        skipped[3].error.to_string(),
        "AnyItem does not hold items of entity type `_unique`: PK=USER#u1 SK=UNIQUE"
    );
    let skipped = [&skipped[..3], &skipped[4..]].concat();
    assert_eq!(skipped[3].key, "PK=USER#u1 SK=WISHLIST#1");
    assert_eq!(skipped[3].item, other);
    assert_eq!(
        skipped[3].error.to_string(),
        "AnyItem does not hold items of entity type `Wishlist`: PK=USER#u1 SK=WISHLIST#1"
    );
    let strict = items.strict().decode_each::<AnyItem>();
    assert!(matches!(strict, Err(Error::Decode { ref key, .. }) if *key == key_of(4)), "{strict:?}");
    other.remove("_type");
    raw_put(&table, other).await;
    let items = table.collection(Order::query("u1")).consistent_read().send().await.unwrap();
    let Page { items: _, skipped, .. } = items.lenient().decode_each::<AnyItem>();
    assert_eq!(
        skipped[4].error.to_string(),
        "AnyItem does not hold items without an entity type: PK=USER#u1 SK=WISHLIST#1"
    );

    // A required item that does not decode: the collection cannot be built.
    let mut profile = Profile { user: "u1".into(), name: "Ann".into() }.to_item().unwrap();
    profile.insert("name".into(), n("1"));
    raw_put(&table, profile).await;
    let items = table.collection(Order::query("u1")).consistent_read().send().await.unwrap();
    assert!(matches!(
        items.lenient().decode::<Account>(),
        Err(Error::MissingItem { collection: "Account", field: "profile", .. })
    ));
}

#[tokio::test]
async fn times_numbers_and_sets_as_other_clients_write_them() {
    let table = common::table("lenient_forms", &[Order::schema(), Profile::schema()]).await;
    // Written out of order; each with another RFC 3339 spelling of 2026-05-0xT12:34:56.5Z, a
    // JavaScript array for the sets, and epoch numbers.
    let spellings = [
        (3, "2026-05-04T12:34:56.5Z"),
        (1, "2026-05-02T14:34:56.500+02:00"),
        (0, "2026-05-01T07:04:56.500000-05:30"),
        (2, "2026-05-03T12:34:56.500000000+00:00"),
    ];
    for (i, text) in spellings {
        let mut item = order("u1", i).to_item().unwrap();
        item.insert("placed_at".into(), s(text));
        item.insert("tags".into(), AttributeValue::L(vec![s("gift"), s("eu"), s("gift")]));
        item.insert("counts".into(), AttributeValue::L(vec![n("2"), n("1")]));
        item.insert("expires".into(), n("1780000000"));
        item.insert("seen".into(), n("1780000000123"));
        raw_put(&table, item).await;
    }
    let got = table.query(Order::query("u1")).consistent_read().all().await.unwrap();
    let want: Vec<Order> = (0..4)
        .map(|i| {
            let mut o = order("u1", i);
            o.placed_at = o.day.midnight().add_millis(12 * 3_600_000 + 34 * 60_000 + 56_500);
            o.tags = ["eu".to_owned(), "gift".to_owned()].into();
            o.counts = [1, 2].into();
            o.expires = Some(EpochSeconds(Timestamp::from_secs(1_780_000_000).unwrap()));
            o.seen = Some(EpochMillis(Timestamp::from_millis(1_780_000_000_123).unwrap()));
            o
        })
        .collect();
    // In day order (the Date key part sorts by day), every time at its instant.
    assert_eq!(got, want);
    assert_eq!(got[1].placed_at.to_string(), "2026-05-02T12:34:56.500Z");

    // A query on the day range: the Date part encodes bounds as stored.
    let mid =
        table.query(Order::query("u1")).sk_between((&day("2026-05-02"),), (&day("2026-05-03"),)).all().await.unwrap();
    assert_eq!(mid, want[1..3].to_vec());

    // Writes stay canonical: a put stores the fixed-width UTC text, sets and epoch numbers.
    table.put(&got[0]).await.unwrap();
    let raw = common::raw_item(&table, "USER#u1", "ORDER#2026-05-01#o00").await.unwrap();
    assert_eq!(raw["placed_at"], s("2026-05-01T12:34:56.500Z"));
    assert_eq!(raw["tags"], AttributeValue::Ss(vec!["eu".into(), "gift".into()]));
    assert_eq!(raw["expires"], n("1780000000"));
    assert_eq!(raw["seen"], n("1780000000123"));
    assert!(matches!(&raw["counts"], AttributeValue::Ns(v) if v.len() == 2));
}

#[tokio::test]
async fn a_lenient_scan_reports_each_undecodable_item_beside_the_rest() {
    let table = common::table("lenient_scan", &[Order::schema(), Profile::schema()]).await;
    fill(&table, &BAD).await;
    // Strict: the scan fails on an undecodable order.
    let err = table.scan::<Order>().consistent_read().all().await.unwrap_err();
    assert!(matches!(&err, Error::Decode { entity: "Order", attribute: "total", .. }), "{err}");
    // Lenient, in pages of 7 items read: the 27 orders that decode, the 3 that do not, once each.
    let dynamo_entity::Page { mut items, skipped: mut undecodable, .. } =
        table.scan::<Order>().consistent_read().page_size(7).lenient().all().await.unwrap();
    items.sort_by(|a, b| a.id.cmp(&b.id));
    let want: Vec<Order> = (0..30).filter(|i| !BAD.contains(i)).map(|i| order("u1", i)).collect();
    assert_eq!(items, want);
    undecodable.sort_by(|a, b| a.key.cmp(&b.key));
    assert_skipped(&undecodable, &BAD);
    // A parallel lenient scan finds the same.
    let dynamo_entity::Page { items, skipped: undecodable, .. } =
        table.scan::<Order>().consistent_read().parallel(3).lenient().all().await.unwrap();
    assert_eq!((items.len(), undecodable.len()), (27, 3));
    // One page: the undecodable items it read are in the page.
    let page = table.scan::<Order>().consistent_read().lenient().send().await.unwrap();
    assert_eq!((page.items.len(), page.skipped.len(), page.cursor.is_none()), (27, 3, true));
    // Strict stream() and all() fail on an undecodable item rather than drop it; the lenient
    // stream yields each item read, decoded or reported.
    let err = table.scan::<Order>().consistent_read().stream().try_collect::<Vec<Order>>().await.unwrap_err();
    assert!(matches!(&err, Error::Decode { entity: "Order", attribute: "total", .. }), "{err}");
    let streamed: Vec<Result<Order, ItemError>> =
        table.scan::<Order>().consistent_read().lenient().stream().try_collect().await.unwrap();
    assert_eq!(streamed.iter().filter(|r| r.is_ok()).count(), 27);
    let mut reported: Vec<ItemError> = streamed.into_iter().filter_map(Result::err).collect();
    reported.sort_by(|a, b| a.key.cmp(&b.key));
    assert_skipped(&reported, &BAD);
}

/// A strict batch get fails on an undecodable item, naming its key; a lenient one returns the
/// other items in key order, `None` in the undecodable ones' slots, and reports each of them
/// with its position among the keys. A missing key stays `None` and is not reported.
#[tokio::test]
async fn a_lenient_batch_get_keeps_the_items_that_decode() {
    let table = common::table("lenient_batch_get", &[Order::schema(), Profile::schema()]).await;
    fill(&table, &BAD).await;
    // Keys of orders 3, 4, 5, 6, a missing one, and 17, in that order.
    let key = |i: u32| {
        let o = order("u1", i);
        Order::key("u1", &o.day, &o.id)
    };
    let keys = || [key(3), key(4), key(5), key(6), Order::key("u1", &day("2030-01-01"), "none"), key(17)];
    let err = table.batch_get(keys()).consistent_read().send().await.unwrap_err();
    assert!(matches!(err, Error::Decode { entity: "Order", attribute: "total", .. }), "{err}");

    let mut outcome = table.batch_get(keys()).consistent_read().lenient().send().await.unwrap();
    let undecodable = std::mem::take(&mut outcome.skipped);
    assert!(outcome.is_complete());
    assert_eq!(outcome.items, vec![Some(order("u1", 3)), None, None, Some(order("u1", 6)), None, None]);
    assert_eq!(undecodable.iter().map(|(position, _)| *position).collect::<Vec<_>>(), [1, 2, 5]);
    let errors: Vec<ItemError> = undecodable.into_iter().map(|(_, e)| e).collect();
    assert_skipped(&errors, &[4, 5, 17]);
}

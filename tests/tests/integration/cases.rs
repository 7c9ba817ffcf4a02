//! The reported failures of other libraries (`shared/cases/README.md`), each as a test against
//! DynamoDB Local with the expected values of the case.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Error, KeyPart, Timestamp};
use futures::TryStreamExt;

// K01 ----------------------------------------------------------------------------------------

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>")]
struct Order {
    user_id: String,
    order_id: String,
    total: u32,
}

#[tokio::test]
async fn case_k01_full_sort_key_uses_equality() {
    let table = common::table("k01", &[Order::schema()]).await;
    for (order_id, total) in [("1", 10), ("10", 100)] {
        table.put(&Order { user_id: "u1".into(), order_id: order_id.into(), total }).await.unwrap();
    }
    let got = table.query(Order::query("u1")).sk_eq("1").all().await.unwrap();
    assert_eq!(got, vec![Order { user_id: "u1".into(), order_id: "1".into(), total: 10 }]);
    // The whole partition still holds both.
    let all = table.query(Order::query("u1")).all().await.unwrap();
    assert_eq!(all.iter().map(|o| o.order_id.as_str()).collect::<Vec<_>>(), vec!["1", "10"]);
}

// K02 ----------------------------------------------------------------------------------------

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<created_at>#<order_id>")]
struct DatedOrder {
    user_id: String,
    created_at: String,
    order_id: String,
}

#[tokio::test]
async fn case_k02_delimiter_inside_a_key_part() {
    let table = common::table("k02", &[DatedOrder::schema()]).await;
    let a = DatedOrder { user_id: "u1".into(), created_at: "2024".into(), order_id: "x#y".into() };
    let b = DatedOrder { user_id: "u1".into(), created_at: "2024#x".into(), order_id: "y".into() };
    table.create(&a).await.unwrap();
    table.create(&b).await.unwrap();

    assert_eq!(table.get(DatedOrder::key("u1", "2024", "x#y")).await.unwrap(), Some(a.clone()));
    assert_eq!(table.get(DatedOrder::key("u1", "2024#x", "y")).await.unwrap(), Some(b.clone()));

    let items = table.collection(DatedOrder::query("u1")).send().await.unwrap();
    assert_eq!(items.items().len(), 2);
    let template = DatedOrder::schema().primary.sk;
    let mut parsed: Vec<Vec<String>> = items
        .items()
        .iter()
        .map(|item| {
            let sk = item["SK"].as_s().unwrap();
            template.parse(sk).unwrap().into_iter().map(|p| p.into_owned()).collect()
        })
        .collect();
    parsed.sort();
    assert_eq!(parsed, vec![vec!["2024".to_owned(), "x#y".to_owned()], vec!["2024#x".to_owned(), "y".to_owned()]]);
    // The stored sort keys are distinct and escaped.
    let mut sks: Vec<&str> = items.items().iter().map(|i| i["SK"].as_s().unwrap().as_str()).collect();
    sks.sort();
    assert_eq!(sks, vec!["ORDER#2024#x%23y", "ORDER#2024%23x#y"]);
}

// K03 ----------------------------------------------------------------------------------------

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<doc>", sk = "VER#<n>")]
struct Version {
    doc: String,
    n: u32,
}

#[tokio::test]
async fn case_k03_numbers_in_string_keys_sort_as_numbers() {
    let table = common::table("k03", &[Version::schema()]).await;
    for n in [1, 2, 9, 10, 100] {
        table.put(&Version { doc: "d".into(), n }).await.unwrap();
    }
    let latest = table.query(Version::query("d")).descending().max_items(1).send().await.unwrap();
    assert_eq!(latest.items, vec![Version { doc: "d".into(), n: 100 }]);
    assert!(latest.cursor.is_some());

    let from_nine = table.query(Version::query("d")).sk_ge(&9).all().await.unwrap();
    assert_eq!(from_nine.iter().map(|v| v.n).collect::<Vec<_>>(), vec![9, 10, 100]);

    let stored = common::raw_item(&table, "DOC#d", "VER#0000000009").await;
    assert!(stored.is_some(), "n = 9 is stored zero-padded to u32's 10 digits");
}

// K04 / K05 -----------------------------------------------------------------------------------

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER#<id>")]
struct Member {
    id: String,
    email: Option<String>,
    name: String,
}

#[tokio::test]
async fn case_k04_sparse_gsi_with_a_missing_part() {
    let table = common::table("k04", &[Member::schema()]).await;
    let m = Member { id: "m1".into(), email: None, name: "Ann".into() };
    table.put(&m).await.unwrap();

    let item = common::raw_item(&table, "USER#m1", "PROFILE").await.unwrap();
    assert!(!item.contains_key("GSI1PK"), "GSI1PK must not be stored: {item:?}");
    assert!(!item.contains_key("GSI1SK"), "GSI1SK must not be stored: {item:?}");
    assert!(!item.contains_key("email"));

    let scan = table.client().scan().table_name(table.name()).index_name("GSI1").send().await.unwrap();
    assert_eq!(scan.count, 0, "nothing is in GSI1");
    assert_eq!(table.get(Member::key("m1")).await.unwrap(), Some(m));
}

#[tokio::test]
async fn case_k05_optional_gsi_field_set_to_none_by_an_update() {
    let table = common::table("k05", &[Member::schema()]).await;
    let m = Member { id: "m1".into(), email: Some("a@example.test".into()), name: "Ann".into() };
    table.put(&m).await.unwrap();
    assert_eq!(table.query(Member::gsi1("a@example.test")).all().await.unwrap(), vec![m.clone()]);

    let updated = table.update(Member::key("m1")).set(Member::EMAIL, &None).send().await.unwrap();
    assert_eq!(updated, Member { email: None, ..m.clone() });
    let item = common::raw_item(&table, "USER#m1", "PROFILE").await.unwrap();
    assert!(!item.contains_key("GSI1PK") && !item.contains_key("GSI1SK"), "GSI keys removed, not NULL: {item:?}");
    assert!(!item.contains_key("email"));
    assert_eq!(table.query(Member::gsi1("a@example.test")).all().await.unwrap(), vec![]);

    let back = table.update(Member::key("m1")).set(Member::EMAIL, &Some("a@example.test".into())).send().await.unwrap();
    assert_eq!(back, m);
    assert_eq!(table.query(Member::gsi1("a@example.test")).all().await.unwrap(), vec![m]);
    let item = common::raw_item(&table, "USER#m1", "PROFILE").await.unwrap();
    assert_eq!(item["GSI1PK"], AttributeValue::S("EMAIL#a@example.test".into()));
    assert_eq!(item["GSI1SK"], AttributeValue::S("USER#m1".into()));
}

// K06 ----------------------------------------------------------------------------------------

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
enum TicketStatus {
    Open,
    Closed,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", gsi1 = "QUEUE#<queue>", gsi1_sk = "STATUS#<status>#<created_at>")]
struct Ticket {
    id: String,
    queue: String,
    status: TicketStatus,
    created_at: Timestamp,
}

#[tokio::test]
async fn case_k06_one_part_of_a_composite_gsi_key_changes() {
    let table = common::table("k06", &[Ticket::schema()]).await;
    let created_at = Timestamp::parse("2024-05-01T10:00:00.000Z").unwrap();
    let t = Ticket { id: "t1".into(), queue: "q".into(), status: TicketStatus::Open, created_at };
    table.create(&t).await.unwrap();

    // Rendered, changing status alone cannot rebuild STATUS#<status>#<created_at>: refused.
    // (Sent, the update reads `created_at` from the item first: see `key_rebuild`.)
    let err = table.update(Ticket::key("t1")).set(Ticket::STATUS, &TicketStatus::Closed).render().unwrap_err();
    match &err {
        Error::Invalid { reason } => {
            assert_eq!(
                reason,
                "this update of Ticket sets `status`, which GSI1SK `STATUS#<status>#<created_at>` is built from; \
                 set `created_at` in the same update so the key can be rebuilt"
            );
        }
        other => panic!("expected Error::Invalid, got {other:?}"),
    }
    assert_eq!(table.get(Ticket::key("t1")).await.unwrap(), Some(t.clone()), "nothing was written");

    // With every part given, the GSI key is rebuilt in the same request.
    let closed = table
        .update(Ticket::key("t1"))
        .set(Ticket::STATUS, &TicketStatus::Closed)
        .set(Ticket::CREATED_AT, &created_at)
        .send()
        .await
        .unwrap()
        .unwrap();
    assert_eq!(closed.status, TicketStatus::Closed);
    let item = common::raw_item(&table, "TICKET#t1", "META").await.unwrap();
    assert_eq!(item["GSI1SK"], AttributeValue::S("STATUS#closed#2024-05-01T10:00:00.000Z".into()));
    let open = table.query(Ticket::gsi1("q")).sk_begins_with((&TicketStatus::Open,)).all().await.unwrap();
    assert_eq!(open, vec![]);
    let closed_now = table.query(Ticket::gsi1("q")).sk_begins_with((&TicketStatus::Closed,)).all().await.unwrap();
    assert_eq!(closed_now, vec![Ticket { status: TicketStatus::Closed, ..t }]);
}

// K07 ----------------------------------------------------------------------------------------

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "SHOP#<shop>", sk = "ORDER#<n>")]
struct ShopOrder {
    shop: String,
    n: u32,
    flagged: bool,
}

#[tokio::test]
async fn case_k07_limit_counts_matching_items_not_evaluated_ones() {
    let table = common::table("k07", &[ShopOrder::schema()]).await;
    for n in 1..=10 {
        table.put(&ShopOrder { shop: "s".into(), n, flagged: n >= 8 }).await.unwrap();
    }
    let query = || table.query(ShopOrder::query("s")).filter(ShopOrder::FLAGGED.eq(&true)).page_size(3);
    let first = query().page_items(2).send().await.unwrap();
    assert_eq!(first.items.iter().map(|o| o.n).collect::<Vec<_>>(), vec![8, 9]);
    let cursor = first.cursor.expect("more items may follow");
    let rest = query().page_items(2).after(cursor).send().await.unwrap();
    assert_eq!(rest.items.iter().map(|o| o.n).collect::<Vec<_>>(), vec![10]);
    assert_eq!(rest.cursor, None);

    // Without a limit, pages follow DynamoDB's: the first ones are empty but carry a cursor,
    // and the iteration goes on through them.
    let pages: Vec<Vec<u32>> =
        query().pages().map_ok(|p| p.items.into_iter().map(|o| o.n).collect()).try_collect().await.unwrap();
    assert_eq!(pages, vec![vec![], vec![], vec![8, 9], vec![10]]);
    let all: Vec<u32> = query().stream().map_ok(|o| o.n).try_collect().await.unwrap();
    assert_eq!(all, vec![8, 9, 10]);
}

// K08 ----------------------------------------------------------------------------------------

#[tokio::test]
async fn case_k08_gsi_cursor_keeps_the_table_key_and_is_bound_to_its_query() {
    let table = common::table("k08", &[Member::schema()]).await;
    for i in 0..5 {
        table
            .put(&Member { id: format!("m{i}"), email: Some("same@example.test".into()), name: format!("n{i}") })
            .await
            .unwrap();
    }
    let mut seen = Vec::new();
    let mut cursor = None;
    let mut gsi_cursor = None;
    loop {
        let page = table.query(Member::gsi1("same@example.test")).page_items(2).after(cursor).send().await.unwrap();
        assert!(page.items.len() <= 2);
        seen.extend(page.items.into_iter().map(|m| m.id));
        match page.cursor {
            Some(c) => {
                gsi_cursor.get_or_insert(c.clone());
                cursor = Some(c);
            }
            None => break,
        }
    }
    assert_eq!(seen, vec!["m0", "m1", "m2", "m3", "m4"]);

    // A GSI1 cursor on a primary-index query is rejected before sending.
    let foreign = gsi_cursor.unwrap();
    let err = table.query(Member::query("m0")).after(foreign.clone()).send().await.unwrap_err();
    match err {
        Error::Cursor { reason } => assert!(reason.contains("GSI1") && reason.contains("primary"), "{reason}"),
        other => panic!("expected Error::Cursor, got {other:?}"),
    }
    // And on the same index with another partition.
    let err = table.query(Member::gsi1("other@example.test")).after(foreign).send().await.unwrap_err();
    assert!(matches!(err, Error::Cursor { .. }), "{err:?}");
}

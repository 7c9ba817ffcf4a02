//! DynamoDB's request limits, checked when a request is built: at each boundary the largest
//! request is accepted by DynamoDB Local, and one more is refused by the library with
//! `Error::LimitExceeded` before anything is sent (counted through the fault layer, which
//! injects nothing here and only records the requests). And the one meaning of a query's
//! `limit`: the most items returned in all, whichever way the query is read.

use crate::common;

use dynamo_entity::limits::Limit;
use dynamo_entity::{Condition, Entity, Error, Table};
use dynamo_entity_local::fault::FaultInjector;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "COUNTER#<id>", sk = "META", gsi1 = "ALL", gsi1_sk = "<id>")]
struct Counter {
    id: String,
    score: i64,
    hits: u64,
    big: Option<String>,
}

fn counter(id: &str) -> Counter {
    Counter { id: id.into(), score: 0, hits: 0, big: None }
}

/// A table handle whose requests go through `injector` (which only records them).
async fn recorded(test: &str) -> (Table, FaultInjector) {
    let plain = common::table(test, &[Counter::schema()]).await;
    let injector = FaultInjector::new(0);
    let table = Table::new(injector.client(plain.client()), plain.name());
    (table, injector)
}

/// `score = 0 OR score = 1 OR … OR score = n-1`: 2n-1 operators.
fn any_score(n: i64) -> Condition {
    (1..n).fold(Counter::SCORE.eq(&0), |c, i| c.or(Counter::SCORE.eq(&i)))
}

#[tokio::test]
async fn update_condition_at_300_operators_with_the_library_guards_named() {
    let (table, injector) = recorded("limits_operators").await;
    table.put(&counter("c")).await.unwrap();
    // The library writes 6 operators: `attribute_exists(PK) AND type = :t` and the range guard
    // of `add` on a u64, `AND (NOT hits > :max)`. Joining the caller's condition takes one
    // `AND`; 147 comparisons joined by OR are 293: 300 in all, which DynamoDB Local accepts.
    let at_limit = table.update(Counter::key("c")).add(Counter::HITS, &1).condition(any_score(147));
    let condition = at_limit.render().unwrap().condition_expression.unwrap();
    assert!(condition.starts_with("attribute_exists(#n1) AND #n2 = :v3 AND (NOT #n0 > :v1) AND ("), "{condition}");
    let updated =
        table.update(Counter::key("c")).add(Counter::HITS, &1).condition(any_score(147)).send().await.unwrap();
    assert_eq!(updated.hits, 1);

    // One more operator (a NOT) is refused before sending, naming the library's share.
    injector.reset_records();
    let err = table.update(Counter::key("c")).add(Counter::HITS, &1).condition(any_score(147).not().not()).send().await;
    let err = err.unwrap_err();
    let Error::LimitExceeded { limit, ref part, measured, max, library, operation, entity, ref key } = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (limit, part.as_str(), measured, max, library, operation, entity, key.as_str()),
        (Limit::Operators, "ConditionExpression", 302, 300, 6, "UpdateItem", "Counter", "PK=COUNTER#c SK=META")
    );
    assert_eq!(
        err.to_string(),
        "UpdateItem of Counter PK=COUNTER#c SK=META: ConditionExpression has 302 operators and functions, over \
         DynamoDB's limit of 300 (operators per expression), of which the library's own guards (entity type, ranges \
         of add/subtract, version) account for 6 operators and functions; nothing was sent"
    );
    assert_eq!(injector.counts().requests, 0, "{:?}", injector.requests());
    assert_eq!(table.get(Counter::key("c")).await.unwrap().unwrap().hits, 1);
}

#[tokio::test]
async fn filter_in_takes_100_operands() {
    let (table, injector) = recorded("limits_in").await;
    for i in 0..3 {
        table.put(&Counter { score: i, ..counter(&format!("c{i}")) }).await.unwrap();
    }
    let scores: Vec<i64> = (0..101).map(|i| i * 2).collect();
    let hundred = table.query(Counter::gsi1()).filter(Counter::SCORE.is_in(&scores[..100])).all().await.unwrap();
    assert_eq!(hundred.iter().map(|c| c.score).collect::<Vec<_>>(), vec![0, 2]);

    injector.reset_records();
    let err = table.query(Counter::gsi1()).filter(Counter::SCORE.is_in(&scores)).all().await.unwrap_err();
    let Error::LimitExceeded { limit, ref part, measured, max, operation, entity, ref key, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (limit, part.as_str(), measured, max, operation, entity, key.as_str()),
        (Limit::InOperands, "FilterExpression", 101, 100, "Query", "Counter", "GSI1PK=ALL")
    );
    assert_eq!(injector.counts().requests, 0);
}

/// A filter of `n` values in IN lists of at most 100 joined by OR (few operators, long text).
fn long_filter(n: usize) -> Condition {
    let values: Vec<i64> = (0..n as i64).collect();
    let mut chunks = values.chunks(100);
    let first = Counter::SCORE.is_in(chunks.next().unwrap());
    chunks.fold(first, |c, chunk| c.or(Counter::SCORE.is_in(chunk)))
}

#[tokio::test]
async fn filter_expression_at_4096_bytes() {
    let (table, injector) = recorded("limits_length").await;
    table.put(&Counter { score: 7, ..counter("c") }).await.unwrap();
    let length = |n: usize| {
        let input = table.query(Counter::gsi1()).filter(long_filter(n)).render();
        input.map(|i| i.filter_expression.unwrap().len())
    };
    // The most values whose filter is at most 4,096 bytes.
    let n = (1..1000).take_while(|n| length(*n).is_ok()).last().unwrap();
    let fits = length(n).unwrap();
    assert!(fits <= 4096 && fits > 4096 - 8, "{fits}");
    let got = table.query(Counter::gsi1()).filter(long_filter(n)).all().await.unwrap();
    assert_eq!(got.iter().map(|c| c.score).collect::<Vec<_>>(), vec![7]);

    injector.reset_records();
    let err = table.query(Counter::gsi1()).filter(long_filter(n + 1)).all().await.unwrap_err();
    let Error::LimitExceeded { limit, measured, max, library, .. } = err else { panic!("{err:?}") };
    assert_eq!((limit, max, library), (Limit::ExpressionLength, 4096, 0));
    assert!(measured > 4096 && measured <= fits + 8, "{measured}");
    assert_eq!(injector.counts().requests, 0);
}

#[tokio::test]
async fn condition_with_values_substituted_at_1_mb() {
    let (table, injector) = recorded("limits_substituted").await;
    table.put(&counter("c")).await.unwrap();
    // The expression's length, each name used and each value used (by the item-size rules):
    // measured on the request with an empty value, the rest is the value's room.
    let update = |n: usize| {
        table.update(Counter::key("c")).set(Counter::SCORE, &1).condition(Counter::BIG.eq(&Some("x".repeat(n))))
    };
    let probe = update(0).render().unwrap();
    let condition = probe.condition_expression.unwrap();
    let names = probe.expression_attribute_names.unwrap();
    let values = probe.expression_attribute_values.unwrap();
    let mut used = condition.len();
    for (placeholder, name) in &names {
        used += condition.matches(placeholder.as_str()).count() * name.len();
    }
    for (placeholder, value) in &values {
        // `:v1` is a prefix of `:v10`: count whole placeholders only.
        let uses = condition
            .match_indices(placeholder.as_str())
            .filter(|(i, _)| !condition[i + placeholder.len()..].starts_with(|c: char| c.is_ascii_digit()))
            .count();
        used += uses * dynamo_entity::value::size::value_size(value);
    }
    let room = 1024 * 1024 - used;
    // Accepted: the condition is false (no `big`), so DynamoDB Local evaluated it.
    let err = update(room).send().await.unwrap_err();
    assert!(matches!(err, Error::ConditionFailed { .. }), "{err:?}");

    injector.reset_records();
    let err = update(room + 1).send().await.unwrap_err();
    let Error::LimitExceeded { limit, ref part, measured, max, .. } = err else { panic!("{err:?}") };
    assert_eq!(
        (limit, part.as_str(), measured, max),
        (Limit::SubstitutedSize, "ConditionExpression", 1024 * 1024 + 1, 1024 * 1024)
    );
    assert_eq!(injector.counts().requests, 0);
}

#[tokio::test]
async fn transaction_items_at_most_4_mb() {
    let (table, injector) = recorded("limits_tx_size").await;
    // Eleven items of 390,000 bytes are over 4 MB; ten are not, and DynamoDB Local takes them.
    let big = |i: usize| Counter { big: Some("y".repeat(390_000)), ..counter(&format!("c{i:02}")) };
    let items: Vec<Counter> = (0..11).map(big).collect();
    let tx = items.iter().fold(table.transact(), |tx, c| tx.put(c));
    injector.reset_records();
    let err = tx.send().await.unwrap_err();
    let Error::LimitExceeded { limit, measured, max, operation, entity, .. } = err else { panic!("{err:?}") };
    assert_eq!(
        (limit, max, operation, entity),
        (Limit::TransactionSize, 4 * 1024 * 1024, "TransactWriteItems", "Counter")
    );
    let one = dynamo_entity::value::size::item_size(&items[0].to_item().unwrap());
    assert_eq!(measured, 11 * one);
    assert_eq!(injector.counts().requests, 0);

    let tx = items[..10].iter().fold(table.transact(), |tx, c| tx.put(c));
    tx.send().await.unwrap();
    assert_eq!(table.query(Counter::gsi1()).all().await.unwrap().len(), 10);
}

/// `limit` is one figure whichever way a query is read: the most items returned in all.
#[tokio::test]
async fn limit_is_a_total_for_send_pages_stream_and_all() {
    use futures::TryStreamExt;
    let table = common::table("limits_limit", &[Counter::schema()]).await;
    for i in 0..7 {
        table.put(&counter(&format!("c{i}"))).await.unwrap();
    }
    let ids = |items: Vec<Counter>| items.into_iter().map(|c| c.id).collect::<Vec<_>>();
    let q = || table.query(Counter::gsi1()).limit(5);
    let page = q().send().await.unwrap();
    assert_eq!(ids(page.items), vec!["c0", "c1", "c2", "c3", "c4"]);
    // Pages of 2 evaluated items each (`page_size`), 5 items in all.
    let pages: Vec<Vec<String>> = q().page_size(2).pages().map_ok(|p| ids(p.items)).try_collect().await.unwrap();
    assert_eq!(pages.concat(), vec!["c0", "c1", "c2", "c3", "c4"]);
    let pages: Vec<Vec<String>> = q().pages().map_ok(|p| ids(p.items)).try_collect().await.unwrap();
    assert_eq!(pages, vec![vec!["c0", "c1", "c2", "c3", "c4"]]);
    assert_eq!(ids(q().stream().try_collect().await.unwrap()), vec!["c0", "c1", "c2", "c3", "c4"]);
    assert_eq!(ids(q().all().await.unwrap()), vec!["c0", "c1", "c2", "c3", "c4"]);
    // Past the limit's page, the cursor resumes: the next 5 are the 2 left.
    let page = q().send().await.unwrap();
    let rest = q().after(page.cursor).send().await.unwrap();
    assert_eq!(ids(rest.items), vec!["c5", "c6"]);
    assert_eq!(rest.cursor, None);
}

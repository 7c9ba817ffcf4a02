//! DynamoDB's request limits, checked when a request is built: at each boundary the largest
//! request is accepted by DynamoDB Local, and one more is refused by the library with
//! `Error::LimitExceeded` before anything is sent (counted through the fault layer, which
//! injects nothing here and only records the requests). And the one meaning of a query's
//! `limit`: the most items returned in all, whichever way the query is read.

use crate::common;
use dynamo_entity_local::Divergence;

use dynamo_entity::limits::Limit;
use dynamo_entity::update::UpdateRequest;
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
    // Without write tokens, the library writes 6 operators: `attribute_exists(PK) AND type = :t`
    // and the range guard of `add` on a u64, `AND (NOT hits > :max)`. Joining the caller's
    // condition takes one `AND`; 147 comparisons joined by OR are 293: 300 in all, which
    // DynamoDB Local accepts.
    let bare = table.without_write_tokens();
    let at_limit = bare.update(Counter::key("c")).add(Counter::HITS, &1).condition(any_score(147));
    let condition = at_limit.render().unwrap().condition_expression.unwrap();
    assert!(condition.starts_with("attribute_exists(#n1) AND #n2 = :v3 AND (NOT #n0 > :v1) AND ("), "{condition}");
    let updated =
        bare.update(Counter::key("c")).add(Counter::HITS, &1).condition(any_score(147)).send().await.unwrap().unwrap();
    assert_eq!(updated.hits, 1);

    // One more operator (a NOT) is refused before sending, naming the library's share.
    injector.reset_records();
    let err = bare.update(Counter::key("c")).add(Counter::HITS, &1).condition(any_score(147).not().not()).send().await;
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
         of add/subtract, version, write history) account for 6 operators and functions; nothing was sent"
    );
    assert_eq!(injector.counts().requests, 0, "{:?}", injector.requests());

    // With write tokens, a resend's guard on the history takes 56 more: the condition is checked
    // as the largest attempt sends it, 62 operators the library's. 119 comparisons that all
    // fail are 237: 300 in all.
    let no_score = |n: i64| (1..n).fold(Counter::SCORE.eq(&1000), |c, i| c.or(Counter::SCORE.eq(&(1000 + i))));
    let with_history = |condition| table.update(Counter::key("c")).add(Counter::HITS, &1).condition(condition);
    let updated = with_history(no_score(119)).send().await;
    assert!(matches!(updated, Err(Error::ConditionFailed { .. })), "sent and evaluated: {updated:?}");
    injector.reset_records();
    let err = with_history(no_score(119).not()).send().await.unwrap_err();
    let Error::LimitExceeded { limit, measured, library, .. } = err else { panic!("{err:?}") };
    assert_eq!((limit, measured, library), (Limit::Operators, 301, 62));
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
    // measured on the request with an empty value, the rest is the value's room. Without write
    // tokens: the rendered request is what is sent.
    let bare = table.without_write_tokens();
    let update = |n: usize| {
        bare.update(Counter::key("c")).set(Counter::SCORE, &1).condition(Counter::BIG.eq(&Some("x".repeat(n))))
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
    // With write tokens, the history's guard counts too: the request that fitted is refused
    // before sending.
    let err = table
        .update(Counter::key("c"))
        .set(Counter::SCORE, &1)
        .condition(Counter::BIG.eq(&Some("x".repeat(room))))
        .send()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::LimitExceeded { limit: Limit::SubstitutedSize, .. }), "{err:?}");
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

    // Reading the eleven back in one transaction asks for more than 4 MB of answer: DynamoDB
    // refuses it, which no check before sending can know (the sizes are the stored items').
    table.put(&items[10]).await.unwrap();
    let keys = || items.iter().map(|c| Counter::key(&c.id));
    if common::diverges(Divergence::TransactGetOver4MbAnswered).await {
        let all = table.transact_get_many(keys()).await.unwrap();
        assert_eq!(all, items.iter().cloned().map(Some).collect::<Vec<_>>());
        return;
    }
    // https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html#limits-dynamodb-transactions
    let err = table.transact_get_many(keys()).await.unwrap_err();
    let text = err.to_string();
    let Error::ResponseTooLarge { operation, entity, keys: asked, max, .. } = err else { panic!("{err:?}") };
    assert_eq!((operation, entity, asked, max), ("TransactGetItems", "Counter", 11, 4 * 1024 * 1024));
    assert!(
        text.starts_with(
            "DynamoDB TransactGetItems of 11 Counter items refused to answer: their total size is over the 4194304 \
             bytes one response may hold; read fewer keys at a time (ValidationException: "
        ),
        "{text}"
    );
    // Ten fit, and the eleventh reads alone.
    let back = table.transact_get_many(keys().take(10)).await.unwrap();
    assert_eq!(back, items[..10].iter().cloned().map(Some).collect::<Vec<_>>());
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
    let q = || table.query(Counter::gsi1()).max_items(5);
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

macro_rules! wide {
    ($($f:ident $F:ident),*) => {
        /// An entity of 100 list fields, for an update expression near 4 KB.
        #[derive(Entity, Debug, Clone, PartialEq, Default)]
        #[entity(pk = "WIDE#<id>", sk = "META")]
        struct Wide {
            id: String,
            $($f: Vec<String>,)*
        }

        /// `update` appending one element to each of the first `n` fields.
        fn append_to(update: UpdateRequest<Wide>, n: usize) -> UpdateRequest<Wide> {
            let fields = [$(Wide::$F),*];
            fields.into_iter().take(n).fold(update, |u, f| u.append(f, &["x".to_owned()]))
        }
    };
}

wide!(f0 F0, f1 F1, f2 F2, f3 F3, f4 F4, f5 F5, f6 F6, f7 F7, f8 F8, f9 F9, f10 F10, f11 F11, f12 F12, f13 F13, f14 F14, f15 F15, f16 F16, f17 F17, f18 F18, f19 F19, f20 F20, f21 F21, f22 F22, f23 F23, f24 F24, f25 F25, f26 F26, f27 F27, f28 F28, f29 F29, f30 F30, f31 F31, f32 F32, f33 F33, f34 F34, f35 F35, f36 F36, f37 F37, f38 F38, f39 F39, f40 F40, f41 F41, f42 F42, f43 F43, f44 F44, f45 F45, f46 F46, f47 F47, f48 F48, f49 F49, f50 F50, f51 F51, f52 F52, f53 F53, f54 F54, f55 F55, f56 F56, f57 F57, f58 F58, f59 F59, f60 F60, f61 F61, f62 F62, f63 F63, f64 F64, f65 F65, f66 F66, f67 F67, f68 F68, f69 F69, f70 F70, f71 F71, f72 F72, f73 F73, f74 F74, f75 F75, f76 F76, f77 F77, f78 F78, f79 F79, f80 F80, f81 F81, f82 F82, f83 F83, f84 F84, f85 F85, f86 F86, f87 F87, f88 F88, f89 F89, f90 F90, f91 F91, f92 F92, f93 F93, f94 F94, f95 F95, f96 F96, f97 F97, f98 F98, f99 F99);

/// The finding: enough actions make an UpdateExpression over 4 KB, which DynamoDB
/// refused with a raw ValidationException; now the largest one is sent and accepted, and one
/// action more is refused before sending.
#[tokio::test]
async fn update_expression_at_4096_bytes() {
    let plain = common::table("limits_update_length", &[Wide::schema()]).await;
    let injector = FaultInjector::new(0);
    // Without the write history, which `render` leaves out (`exactly_once` tests its length).
    let table = Table::new(injector.client(plain.client()), plain.name()).without_write_tokens();
    table.put(&Wide { id: "w".into(), ..Wide::default() }).await.unwrap();
    let length =
        |n: usize| append_to(table.update(Wide::key("w")), n).render().map(|r| r.update_expression.unwrap().len());
    let n = (1..=100).take_while(|n| length(*n).is_ok()).last().unwrap();
    assert!(n < 100, "{n}");
    let fits = length(n).unwrap();
    assert!(fits <= 4096 && fits > 4096 - 60, "{fits}");
    let updated = append_to(table.update(Wide::key("w")), n).send().await.unwrap().unwrap();
    assert_eq!((updated.f0.clone(), updated.f1.len()), (vec!["x".to_owned()], 1));

    injector.reset_records();
    let err = append_to(table.update(Wide::key("w")), n + 1).send().await.unwrap_err();
    let Error::LimitExceeded { limit, ref part, measured, max, operation, entity, ref key, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (limit, part.as_str(), max, operation, entity, key.as_str()),
        (Limit::ExpressionLength, "UpdateExpression", 4096, "UpdateItem", "Wide", "PK=WIDE#w SK=META")
    );
    assert!(measured > 4096 && measured <= fits + 60, "{measured}");
    assert_eq!(injector.counts().requests, 0);
}

/// A document whose map's keys are attribute names too.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Doc {
    id: String,
    fields: std::collections::BTreeMap<String, String>,
}

#[tokio::test]
async fn a_map_key_is_an_attribute_name_of_at_most_64_kb() {
    let plain = common::table("limits_map_key", &[Doc::schema()]).await;
    let injector = FaultInjector::new(0);
    let table = Table::new(injector.client(plain.client()), plain.name());
    let doc = |key_len: usize| Doc { id: "d".into(), fields: [("k".repeat(key_len), "v".to_owned())].into() };
    let err = table.put(&doc(65_536)).await.unwrap_err();
    let Error::LimitExceeded { limit, ref part, measured, max, operation, entity, ref key, .. } = err else {
        panic!("{err:?}")
    };
    assert_eq!(
        (limit, part.as_str(), measured, max, operation, entity, key.as_str()),
        (
            Limit::AttributeNameLength,
            "a map key in attribute `fields`",
            65_536,
            65_535,
            "write",
            "Doc",
            "PK=DOC#d SK=META"
        )
    );
    assert_eq!(injector.counts().requests, 0);
    // A long map key under the limit goes through. (DynamoDB Local 3.3.0 fails with an
    // `InternalFailure` above 50,000 bytes, below DynamoDB's documented 65,535, so the limit
    // itself is not sent here.)
    table.put(&doc(50_000)).await.unwrap();
    assert_eq!(table.get(Doc::key("d")).await.unwrap(), Some(doc(50_000)));
}

/// An essay whose body alone can be most of an item.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "DOC#<id>", sk = "SEC#<section>")]
struct Essay {
    id: String,
    section: String,
    body: String,
}

/// The finding: an update whose own values are over the 400 KB item limit reached
/// DynamoDB and came back as a raw `ValidationException` ("Item size to update has exceeded the
/// maximum allowed size"). Now its key, type attribute and the values it sets are measured when
/// it is built, and over 400 KB it is refused with the `ItemTooLarge` of `put`, for an update,
/// an upsert and a transaction's update alike; nothing is sent or written.
#[tokio::test]
async fn an_update_whose_values_are_over_400_kb_is_refused_before_sending() {
    let plain = common::table("limits_update_size", &[Essay::schema()]).await;
    let injector = FaultInjector::new(0);
    // Without the write history, which `render` leaves out (`exactly_once` tests its bytes).
    let table = Table::new(injector.client(plain.client()), plain.name()).without_write_tokens();
    let doc = Essay { id: "a".into(), section: "s".into(), body: "x".into() };
    table.put(&doc).await.unwrap();
    injector.reset_records();

    // `PK` + `DOC#a` + `SK` + `SEC#s` (14 bytes), `_type` + `Essay` (10) and `body` (4): 28 bytes
    // besides the body's value.
    let big = "x".repeat(410_000);
    let expected = "Essay PK=DOC#a SK=SEC#s is 410028 bytes, 428 over DynamoDB's item size limit of 409600 bytes";
    let update = || table.update(Essay::key("a", "s")).set(Essay::BODY, &big);
    assert_eq!(update().render().unwrap_err().to_string(), expected);
    let err = update().send().await.unwrap_err();
    let Error::ItemTooLarge { entity, ref key, size, limit } = err else { panic!("{err:?}") };
    assert_eq!((entity, key.as_str(), size, limit), ("Essay", "PK=DOC#a SK=SEC#s", 410_028, 409_600));
    let upsert = table.upsert(Essay::key("b", "s")).set(Essay::BODY, &big).send().await.unwrap_err();
    assert_eq!(
        upsert.to_string(),
        "Essay PK=DOC#b SK=SEC#s is 410028 bytes, 428 over DynamoDB's item size limit of 409600 bytes"
    );
    let tx = table.transact().put(&Essay { id: "c".into(), ..doc.clone() }).update(update()).send().await.unwrap_err();
    assert_eq!(tx.to_string(), expected);
    // At the boundary: 409,600 bytes pass the check, one more does not.
    let at = |n: usize| table.update(Essay::key("a", "s")).set(Essay::BODY, &"y".repeat(n));
    assert!(at(409_572).render().is_ok());
    let err = at(409_573).send().await.unwrap_err();
    assert!(matches!(err, Error::ItemTooLarge { size: 409_601, limit: 409_600, .. }), "{err:?}");
    assert_eq!(injector.counts().requests, 0, "{:?}", injector.requests());
    assert_eq!(table.get(Essay::key("a", "s")).await.unwrap(), Some(doc.clone()));
    assert_eq!(table.get(Essay::key("b", "s")).await.unwrap(), None);
    assert_eq!(table.get(Essay::key("c", "s")).await.unwrap(), None);

    // The bound leaves out what the item keeps (`id` + `a`, `section` + `s`: 11 bytes): the
    // largest body DynamoDB Local takes is 11 bytes under the check's, and it is written.
    let updated = at(409_561).send().await.unwrap().unwrap();
    assert_eq!(updated.body.len(), 409_561);
    let stored = common::raw_item(&table, "DOC#a", "SEC#s").await.unwrap();
    assert_eq!(dynamo_entity::value::size::item_size(&stored), 409_600);
}

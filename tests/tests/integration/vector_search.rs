//! Vector search (`SearchVectors`) of an entity's vector index: the nearest items in order with
//! their scores, filters on the search schema, pages by cursor, the checks made before sending,
//! and the vector index in `DescribeTable` (`Table::diff`).
//!
//! DynamoDB's behaviour (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/vector-search.html):
//! `SearchVectors` returns the `TopK` items nearest the query vector, nearest first, each with
//! its score (`EUCLIDEAN`: the straight-line distance). DynamoDB Local has no vector search
//! (`Divergence::NoVectorSearch`): there each search is `Error::Unsupported`, and the table
//! has no vector index.

use crate::common;

use dynamo_entity::migrate::Change;
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Table};
use dynamo_entity_local::Divergence;

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "VDOC#<id>", sk = "META")]
pub struct VecDoc {
    pub id: String,
    pub tenant: String,
    pub lang: String,
    #[entity(vector(index = "VecDocsByPoint", dimensions = 2, distance = euclidean, hash = tenant, filters(lang)))]
    pub point: Vec<f32>,
}

fn doc(id: &str, tenant: &str, lang: &str, point: [f32; 2]) -> VecDoc {
    VecDoc { id: id.into(), tenant: tenant.into(), lang: lang.into(), point: point.to_vec() }
}

/// A table with six documents of tenant `acme` at distances 1, 2, 5, 10 and 13 from the
/// origin (one at 2 in German), and one of tenant `other` at the origin itself.
async fn table(test: &str) -> Table {
    // DynamoDB Local refuses the vector index's search schema attributes in
    // `AttributeDefinitions` (it drops the index that uses them): the items go to a table
    // without it there.
    let entities: &[&'static dynamo_entity::schema::EntitySchema] =
        if common::diverges(Divergence::NoVectorSearch).await { &[] } else { &[VecDoc::schema()] };
    let table = common::table(test, entities).await;
    for d in [
        doc("a", "acme", "en", [1.0, 0.0]),
        doc("b", "acme", "en", [0.0, 2.0]),
        doc("g", "acme", "de", [-2.0, 0.0]),
        doc("c", "acme", "en", [3.0, 4.0]),
        doc("d", "acme", "de", [6.0, 8.0]),
        doc("e", "acme", "en", [5.0, 12.0]),
        doc("z", "other", "en", [0.0, 0.0]),
    ] {
        table.create(&d).await.expect("the document is written");
    }
    table
}

fn unsupported<T: std::fmt::Debug>(result: Result<T, Error>) {
    match result {
        Err(Error::Unsupported { operation, .. }) => assert_eq!(operation, "SearchVectors"),
        other => panic!("expected Error::Unsupported, got {other:?}"),
    }
}

fn ids_and_scores(page: &dynamo_entity::query::vector::SearchPage<VecDoc>) -> Vec<(String, f64)> {
    page.hits.iter().map(|h| (h.item.id.clone(), h.score)).collect()
}

#[tokio::test]
async fn nearest_items_in_order_with_scores() {
    let table = table("vector_nearest").await;
    let search = table
        .search(VecDoc::search_point(vec![0.0, 0.0]))
        .filter(VecDoc::TENANT, &"acme".to_owned())
        .page_items(4)
        .send()
        .await;
    if common::diverges(Divergence::NoVectorSearch).await {
        return unsupported(search);
    }
    let page = search.expect("the search is answered");
    // `b` and `g` are both at 2: DynamoDB orders equal scores in no fixed order.
    let mut got = ids_and_scores(&page);
    got[1..3].sort_by(|x, y| x.0.cmp(&y.0));
    assert_eq!(got, [("a".to_owned(), 1.0), ("b".to_owned(), 2.0), ("g".to_owned(), 2.0), ("c".to_owned(), 5.0)]);
    // The entity decodes whole, its vector included.
    assert_eq!(page.hits[0].item, doc("a", "acme", "en", [1.0, 0.0]));
    assert_eq!(page.passed_over, 0);
    assert!(page.cursor.is_some(), "four asked, four returned: more may follow");
}

#[tokio::test]
async fn filters_keep_equal_values() {
    let table = table("vector_filters").await;
    let search = table
        .search(VecDoc::search_point(vec![0.0, 0.0]))
        .filter(VecDoc::TENANT, &"acme".to_owned())
        .filter(VecDoc::LANG, &"de".to_owned())
        .page_items(10)
        .send()
        .await;
    if common::diverges(Divergence::NoVectorSearch).await {
        return unsupported(search);
    }
    let page = search.expect("the search is answered");
    assert_eq!(ids_and_scores(&page), [("g".to_owned(), 2.0), ("d".to_owned(), 10.0)]);
    assert_eq!(page.cursor, None, "two of ten returned: the search is over");
    // The other tenant's document at the origin is not among them: the hash scopes the search.
    let other = table
        .search(VecDoc::search_point(vec![0.0, 0.0]))
        .filter(VecDoc::TENANT, &"other".to_owned())
        .send()
        .await
        .expect("the search is answered");
    assert_eq!(ids_and_scores(&other), [("z".to_owned(), 0.0)]);
}

#[tokio::test]
async fn pages_follow_the_cursor() {
    let table = table("vector_pages").await;
    let search = |after: Option<dynamo_entity::Cursor>| {
        table
            .search(VecDoc::search_point(vec![0.0, 0.0]))
            .filter(VecDoc::TENANT, &"acme".to_owned())
            .filter(VecDoc::LANG, &"en".to_owned())
            .page_items(2)
            .after(after)
            .send()
    };
    let first = search(None).await;
    if common::diverges(Divergence::NoVectorSearch).await {
        return unsupported(first);
    }
    let first = first.expect("the first page");
    assert_eq!(ids_and_scores(&first), [("a".to_owned(), 1.0), ("b".to_owned(), 2.0)]);
    let second = search(first.cursor.clone()).await.expect("the second page");
    assert_eq!(ids_and_scores(&second), [("c".to_owned(), 5.0), ("e".to_owned(), 13.0)]);
    let third = search(second.cursor.clone()).await.expect("the third page");
    assert_eq!(ids_and_scores(&third), []);
    assert_eq!(third.cursor, None);
    // A cursor of this search given to another is refused before sending.
    let other = table
        .search(VecDoc::search_point(vec![1.0, 1.0]))
        .filter(VecDoc::TENANT, &"acme".to_owned())
        .after(first.cursor)
        .send()
        .await;
    assert!(matches!(other, Err(Error::Cursor { .. })), "{other:?}");
}

#[tokio::test]
async fn mistakes_are_refused_before_sending() {
    // A handle on a table that does not exist: nothing is sent, so no engine answers.
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("an engine");
    let table = Table::new(server.client(), "no-such-table-vector");
    let invalid = |r: Result<dynamo_entity::query::vector::SearchPage<VecDoc>, Error>| match r {
        Err(Error::Invalid { reason }) => reason,
        other => panic!("expected Error::Invalid, got {other:?}"),
    };
    let reason = invalid(
        table.search(VecDoc::search_point(vec![0.0, 0.0, 0.0])).filter(VecDoc::TENANT, &"acme".to_owned()).send().await,
    );
    assert_eq!(
        reason,
        "SearchVectors of VecDoc on VecDocsByPoint: the query vector has 3 elements and the index 2 dimensions; \
         DynamoDB searches with a vector of exactly the index's dimensions"
    );
    let reason = invalid(table.search(VecDoc::search_point(vec![0.0, 0.0])).send().await);
    assert_eq!(
        reason,
        "SearchVectors of VecDoc on VecDocsByPoint: the index's HASH attribute tenant is not filtered; DynamoDB \
         searches an index with a HASH attribute one value of it at a time: add .filter(TENANT, &value)"
    );
    let reason = invalid(
        table
            .search(VecDoc::search_point(vec![0.0, 0.0]))
            .filter(VecDoc::TENANT, &"acme".to_owned())
            .filter(VecDoc::ID, &"a".to_owned())
            .send()
            .await,
    );
    assert_eq!(
        reason,
        "SearchVectors of VecDoc on VecDocsByPoint: id is not in the index's search schema (tenant, lang); DynamoDB \
         filters a vector search on its search schema attributes only"
    );
    let reason = invalid(
        table.search(VecDoc::search_point(vec![0.0, f32::NAN])).filter(VecDoc::TENANT, &"acme".to_owned()).send().await,
    );
    assert_eq!(
        reason,
        "SearchVectors of VecDoc on VecDocsByPoint: element 1 of the query vector is NaN; DynamoDB takes finite \
         32-bit numbers only"
    );
    let reason = invalid(
        table
            .search(VecDoc::search_point(vec![0.0, 0.0]))
            .filter(VecDoc::TENANT, &"acme".to_owned())
            .page_items(101)
            .send()
            .await,
    );
    assert_eq!(
        reason,
        "SearchVectors of VecDoc on VecDocsByPoint: page_items(101): DynamoDB returns 1 to 100 results a search (TopK)"
    );
}

#[tokio::test]
async fn the_table_has_the_declared_vector_index() {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("an engine");
    let table = Table::new(server.client(), dynamo_entity_local::unique_table_name("vector_diff"));
    let created = table.create_table(&[VecDoc::schema()]).await;
    let layout = TableLayout::new(&[VecDoc::schema()]).expect("the layout");
    if common::diverges(Divergence::NoVectorSearch).await {
        // DynamoDB Local drops `VectorIndexes` and then finds `tenant` and `lang` defined but
        // not in a key schema.
        assert!(matches!(&created, Err(Error::Sdk { operation: "CreateTable", .. })), "{created:?}");
        // Without the index's search schema, it takes the table and leaves the index out.
        let bare = Table::new(server.client(), dynamo_entity_local::unique_table_name("vector_diff_bare"));
        bare.create_table(&[]).await.expect("a table without indexes");
        let diff = bare.diff(&layout).await.expect("the diff");
        assert_eq!(diff.changes.len(), 1, "{diff}");
        assert!(matches!(&diff.changes[0], Change::MissingVectorIndex(s) if s.name == "VecDocsByPoint"), "{diff}");
        return;
    }
    created.expect("the table is created");
    let diff = table.diff(&layout).await.expect("the diff");
    assert!(diff.is_empty(), "{diff}");
}

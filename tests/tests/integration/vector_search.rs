//! Vector search (`SearchVectors`) of an entity's vector index: the nearest items in order with
//! their scores, filters on the search schema, pages by cursor, the checks made before sending,
//! and the vector index in `DescribeTable` (`Table::diff`).
//!
//! DynamoDB's behaviour (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/VectorSearchWorkingWith.html):
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
    // On DynamoDB Local, the table is created without the vector index.
    let table = common::table(test, &[VecDoc::schema()]).await;
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
         searches an index with a HASH attribute one value of it at a time: add .filter(VecDoc::TENANT, &value)"
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
        // The table is created without the vector index, which the diff reports missing.
        created.expect("the table, without its vector index");
        let diff = table.diff(&layout).await.expect("the diff");
        assert_eq!(diff.changes.len(), 1, "{diff}");
        assert!(matches!(&diff.changes[0], Change::MissingVectorIndex(s) if s.name == "VecDocsByPoint"), "{diff}");
        return;
    }
    created.expect("the table is created");
    let diff = table.diff(&layout).await.expect("the diff");
    assert!(diff.is_empty(), "{diff}");
}

/// `Table::apply` creates a declared vector index on a table without it (`UpdateTable` with
/// `VectorIndexUpdates`), after which `Table::diff` finds nothing. DynamoDB Local, which has no
/// vector indexes (`Divergence::NoVectorSearch`), refuses the table's search schema attribute
/// definitions, and the diff stays as it was.
#[tokio::test]
async fn apply_adds_a_declared_vector_index() {
    use dynamo_entity::migrate::Wait;
    use std::time::Duration;

    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("an engine");
    let table = Table::new(server.client(), dynamo_entity_local::unique_table_name("vector_apply"));
    table.create_table(&[]).await.expect("a table without indexes");
    let layout = TableLayout::new(&[VecDoc::schema()]).expect("the layout");
    let diff = table.diff(&layout).await.expect("the diff");
    assert_eq!(diff.changes.len(), 1, "{diff}");
    assert!(matches!(&diff.changes[0], Change::MissingVectorIndex(s) if s.name == "VecDocsByPoint"), "{diff}");

    let applied =
        table.apply(&diff, Wait { timeout: Duration::from_secs(120), poll: Duration::from_millis(100) }).await;
    if common::diverges(Divergence::NoVectorSearch).await {
        assert!(matches!(&applied, Err(Error::Sdk { operation: "UpdateTable", .. })), "{applied:?}");
        assert_eq!(table.diff(&layout).await.expect("the diff"), diff, "nothing changed");
        return;
    }
    let steps = applied.expect("the index is created");
    assert_eq!(steps.len(), 1, "{steps:?}");
    let after = table.diff(&layout).await.expect("the diff");
    assert!(after.is_empty(), "{after}");
}

fn encode_error<T: std::fmt::Debug>(result: Result<T, Error>) -> String {
    match result {
        Err(e @ Error::Encode { entity: "VecDoc", field: "point", attribute: "point", .. }) => e.to_string(),
        other => panic!("expected Error::Encode of VecDoc.point, got {other:?}"),
    }
}

/// A written vector has exactly the index's dimensions, each element finite: DynamoDB refuses
/// the write of another (its developer guide, "Writing items with vector data"). Checked before
/// sending, for a put and for an update's `SET`, naming the item's key.
#[tokio::test]
async fn writes_check_the_vector() {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("an engine");
    // Nothing is sent: the table need not exist.
    let table = Table::new(server.client(), dynamo_entity_local::unique_table_name("vector_writes"));
    let mut long = doc("x", "acme", "en", [1.0, 2.0]);
    long.point.push(3.0);
    assert_eq!(
        encode_error(table.render().put(&long)),
        "cannot encode VecDoc.point (attribute `point`): item PK=VDOC#x SK=META: a vector of 3 elements, but vector \
         index `VecDocsByPoint` has 2 dimensions (DynamoDB refuses the write)"
    );
    assert_eq!(
        encode_error(table.put(&long).await),
        "cannot encode VecDoc.point (attribute `point`): item PK=VDOC#x SK=META: a vector of 3 elements, but vector \
         index `VecDocsByPoint` has 2 dimensions (DynamoDB refuses the write)"
    );
    let infinite = doc("y", "acme", "en", [f32::INFINITY, 0.0]);
    assert_eq!(
        encode_error(table.render().create(&infinite)),
        "cannot encode VecDoc.point (attribute `point`): item PK=VDOC#y SK=META: element 0 is inf; a vector's \
         elements are finite 32-bit numbers"
    );
    assert_eq!(
        encode_error(table.update(VecDoc::key("z")).set(VecDoc::POINT, &vec![1.0]).render()),
        "cannot encode VecDoc.point (attribute `point`): item PK=VDOC#z SK=META: a vector of 1 element, but vector \
         index `VecDocsByPoint` has 2 dimensions (DynamoDB refuses the write)"
    );
    // A NaN element gets one message from a put and from an update's SET: entity, field,
    // attribute, the item's key and the element's index.
    let nan_message = "cannot encode VecDoc.point (attribute `point`): item PK=VDOC#z SK=META: element 1 is NaN; a \
                       vector's elements are finite 32-bit numbers";
    let nan = table.update(VecDoc::key("z")).set(VecDoc::POINT, &vec![0.0, f32::NAN]).render();
    assert_eq!(encode_error(nan), nan_message);
    assert_eq!(encode_error(table.render().put(&doc("z", "acme", "en", [0.0, f32::NAN]))), nan_message);
    let upsert = table.upsert(VecDoc::key("z")).set(VecDoc::POINT, &vec![0.0, f32::NAN]).render();
    assert_eq!(encode_error(upsert), nan_message);
    let absent = table.update(VecDoc::key("z")).set_if_absent(VecDoc::POINT, &vec![0.0, f32::NAN]).render();
    assert_eq!(encode_error(absent), nan_message);
    // The right length and finite elements pass.
    assert!(table.render().put(&doc("w", "acme", "en", [0.5, -0.5])).is_ok());
}

/// A vector index with `COSINE` and no search schema, for the edge values of a query vector.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "CDOC#<id>", sk = "META")]
pub struct CosDoc {
    pub id: String,
    #[entity(vector(index = "CosDocsByMeaning", dimensions = 2, distance = cosine))]
    pub meaning: Vec<f32>,
}

/// DynamoDB documents a query vector's elements as 32-bit IEEE-754 floats (API reference,
/// `SearchVectors`) and a number as finite; it documents nothing about a zero vector under
/// `COSINE` or the largest floats. So NaN and infinities are refused before sending, and a zero
/// vector and `f32::MAX` are sent as they are (what DynamoDB answers is its own).
#[tokio::test]
async fn edge_values_of_the_query_vector() {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("an engine");
    let table = Table::new(server.client(), "no-such-table-cosine");
    let sent = |vector: Vec<f32>| {
        let input = table.search(CosDoc::search_meaning(vector)).render().expect("the search is sent");
        input.search_vector.expect("a search vector")
    };
    let n = |text: &str| aws_sdk_dynamodb::types::AttributeValue::N(text.to_owned());
    assert_eq!(sent(vec![0.0, 0.0]), [n("0"), n("0")]);
    assert_eq!(sent(vec![-0.0, 0.0]), [n("-0"), n("0")]);
    assert_eq!(
        sent(vec![f32::MAX, f32::MIN]),
        [n("340282350000000000000000000000000000000"), n("-340282350000000000000000000000000000000")]
    );
    let refused = |vector: Vec<f32>| match table.search(CosDoc::search_meaning(vector)).render() {
        Err(Error::Invalid { reason }) => reason,
        other => panic!("expected Error::Invalid, got {other:?}"),
    };
    assert_eq!(
        refused(vec![f32::INFINITY, 0.0]),
        "SearchVectors of CosDoc on CosDocsByMeaning: element 0 of the query vector is inf; DynamoDB takes finite \
         32-bit numbers only"
    );
    assert_eq!(
        refused(vec![0.0, f32::NEG_INFINITY]),
        "SearchVectors of CosDoc on CosDocsByMeaning: element 1 of the query vector is -inf; DynamoDB takes finite \
         32-bit numbers only"
    );
    assert_eq!(
        refused(vec![1.0]),
        "SearchVectors of CosDoc on CosDocsByMeaning: the query vector has 1 element and the index 2 dimensions; \
         DynamoDB searches with a vector of exactly the index's dimensions"
    );
}

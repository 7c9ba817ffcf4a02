//! The Orders example's access patterns and stream handler against DynamoDB Local, on the
//! small data set.

use dynamo_entity_examples::orders::{self, Dataset, Line, Order, OrderId, OrderStatus, Sizes, User, UserId, scenario};
use dynamo_entity_local::LocalDynamoDb;

/// A new, empty table created from the example's `#[derive(TableDef)]` declaration.
async fn table(test: &str) -> dynamo_entity::Table {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = dynamo_entity::Table::new(server.client(), dynamo_entity_local::unique_table_name(test));
    table.create_table_from(&orders::layout().unwrap()).await.expect("the table is created");
    table
}

#[tokio::test]
async fn every_access_pattern_answers_as_the_data_set_says() {
    let data = Dataset::generate(4, Sizes::SMALL);
    // The generator's own invariants, which the patterns rely on.
    assert_eq!((data.users.len(), data.products.len()), (25, 10));
    assert_eq!(data.orders_of(&data.users[0].id).len(), 45);
    let counted: u32 = data.users.iter().map(|u| u.order_count).sum();
    assert_eq!(counted as usize, data.orders.len());
    assert!(
        data.orders
            .iter()
            .all(|o| o.total_cents == o.lines.iter().map(|l| u64::from(l.quantity) * l.unit_cents).sum::<u64>())
    );
    let times: std::collections::BTreeSet<_> = data.orders.iter().map(|o| o.created_at).collect();
    assert_eq!(times.len(), data.orders.len(), "order times are distinct");

    let table = table("orders").await;
    let load = scenario::load(&table, &data, 8).await.unwrap();
    assert_eq!(load.items, data.item_count());
    let server = LocalDynamoDb::shared().await.unwrap();
    let reports = orders::run(&table, &server.streams_client(), &data).await.unwrap();
    let names: Vec<&str> = reports.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        vec![
            "get a user (GetItem USER#<id> / PROFILE)",
            "user by e-mail (GSI1 EMAIL#<email>)",
            "create a user only if absent (PutItem, attribute_not_exists)",
            "get a product (GetItem PRODUCT#<id> / DETAILS)",
            "order lookup by id (GetItem ORDER#<id> / DETAILS)",
            "a user's orders, newest first, 20 a page (GSI2 USER#<id>)",
            "a user's orders between two times (GSI2 sort-key BETWEEN)",
            "place an order with the user's order counter (one TransactWriteItems)",
            "stream handler: new orders decoded by entity type and confirmed",
        ]
    );
    let history = reports.iter().find(|r| r.name.starts_with("a user's orders, newest")).unwrap();
    assert_eq!(history.items, 45);
    // 11 stream records: the newcomer's INSERT, 5 order INSERTs, 5 counter MODIFYs.
    assert_eq!(reports.last().unwrap().items, 11);
}

#[tokio::test]
async fn checkout_for_a_missing_user_changes_nothing() {
    let table = table("orders_missing_user").await;
    let order = Order {
        id: OrderId("o1".into()),
        user_id: UserId("ghost".into()),
        lines: vec![Line { product: orders::ProductId("prod0001".into()), quantity: 2, unit_cents: 150 }],
        total_cents: 300,
        status: OrderStatus::Placed,
        created_at: orders::data::base_time(),
    };
    let err = scenario::place_order(&table, &order).await.unwrap_err();
    match &err {
        dynamo_entity::Error::TransactionCanceled { reasons } => {
            let failed: Vec<(usize, &str)> = reasons.iter().map(|r| (r.index, r.code.as_str())).collect();
            assert_eq!(failed, vec![(1, "ConditionalCheckFailed")], "{err}");
        }
        other => panic!("expected a canceled transaction, got {other:?}"),
    }
    assert_eq!(table.get(Order::key(&order.id)).await.unwrap(), None);
    assert_eq!(table.get(User::key(&order.user_id)).await.unwrap(), None);
}

#[tokio::test]
async fn a_mismatch_is_reported() {
    // Run the patterns against a data set that differs from what was loaded.
    let data = Dataset::generate(4, Sizes::SMALL);
    let table = table("orders_mismatch").await;
    scenario::load(&table, &data, 8).await.unwrap();
    let mut changed = data.clone();
    let middle = changed.orders.len() / 2;
    changed.orders[middle].total_cents += 1;
    let server = LocalDynamoDb::shared().await.unwrap();
    let err = orders::run(&table, &server.streams_client(), &changed).await.unwrap_err();
    assert_eq!(err.pattern, "order lookup by id (GetItem ORDER#<id> / DETAILS)");
}

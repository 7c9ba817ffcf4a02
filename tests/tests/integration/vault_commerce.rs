//! The Vault Commerce example's access patterns against DynamoDB Local, on the small data set.

use dynamo_entity_examples::vault_commerce::{
    self, Dataset, Order, Propagation, Sizes, UserId, WishlistItem, scenario,
};

/// A new, empty table created from the example's `#[derive(TableDef)]` declaration.
async fn table(test: &str) -> dynamo_entity::Table {
    let server = dynamo_entity_local::LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = dynamo_entity::Table::new(server.client(), dynamo_entity_local::unique_table_name(test));
    table.create_table_from(&vault_commerce::layout().unwrap()).await.expect("the table is created");
    table
}

#[tokio::test]
async fn every_access_pattern_answers_as_the_data_set_says() {
    let data = Dataset::generate(7, Sizes::SMALL);
    // The generator's own invariants, which the patterns rely on.
    assert_eq!((data.users.len(), data.products.len()), (30, 12));
    assert_eq!(data.orders_of(&UserId("0000".into())).len(), 120);
    assert!(data.orders.iter().all(|o| data.users.iter().any(|u| u.id == o.user_id && u.name == o.customer_name)));
    // Every odd user wishes the first product.
    assert!(data.wishers_of(&data.products[0].sku).len() >= 15);

    let table = table("vault_commerce").await;
    let load = scenario::load(&table, &data, 8).await.unwrap();
    assert_eq!(load.items, data.item_count());
    let reports = vault_commerce::run(&table, &data).await.unwrap();
    let names: Vec<&str> = reports.iter().map(|r| r.name).collect();
    assert_eq!(
        names,
        vec![
            "user profile (GetItem USER#<id> / PROFILE)",
            "product detail (GetItem PRODUCT#<sku> / METADATA)",
            "account page: profile, orders, wishlist (one Query of USER#<id>)",
            "a customer's orders, newest first, 20 a page by cursor",
            "login by e-mail (GSI1 EMAIL#<email>)",
            "paid orders, newest 10 (GSI1 STATUS#paid)",
            "who wishes a product (inverted index SK = WISHLIST#<sku>), 10 a page",
            "a product's wishers among users 0010 to 0019 (inverted, PK BETWEEN)",
            "rename a customer with few orders (one TransactWriteItems)",
            "rename the big customer (profile, then a reconcile pass)",
        ]
    );
    let wishers = reports.iter().find(|r| r.name.starts_with("who wishes")).unwrap();
    assert_eq!(wishers.items, data.wishers_of(&data.products[0].sku).len());
    let history = reports.iter().find(|r| r.name.starts_with("a customer's orders")).unwrap();
    assert_eq!(history.items, 120);
}

#[tokio::test]
async fn a_rename_takes_the_transaction_up_to_99_orders() {
    let data = Dataset::generate(7, Sizes::SMALL);
    let table = table("vault_commerce_rename").await;
    scenario::load(&table, &data, 8).await.unwrap();
    // Bring the big customer down to 99 orders: the profile and 99 orders are 100 actions, one
    // transaction.
    let big = UserId("0000".into());
    let extra: Vec<&Order> = data.orders_of(&big).into_iter().skip(99).collect();
    assert_eq!(extra.len(), 21);
    for o in extra {
        table.delete(Order::key(&big, &o.order_id)).await.unwrap();
    }
    let outcome = scenario::rename_customer(&table, &big, "Big Spender").await.unwrap();
    assert_eq!(outcome, Propagation::Transaction { orders: 99 });
    let orders = table.query(Order::query(&big)).all().await.unwrap();
    assert_eq!(orders.len(), 99);
    assert!(orders.iter().all(|o| o.customer_name == "Big Spender"));

    // A reconcile pass for a user that does not exist names the missing profile.
    let err = scenario::reconcile_customer_name(&table, &UserId("9999".into())).await.unwrap_err();
    assert_eq!(err.to_string(), "User PK=USER#9999 SK=PROFILE does not exist");
    // An order whose name went stale behind the profile's back is repaired by the pass.
    let first = &data.orders_of(&big)[0];
    table
        .update(Order::key(&big, &first.order_id))
        .set(Order::CUSTOMER_NAME, &"stale".to_owned())
        .send()
        .await
        .unwrap();
    assert_eq!(scenario::reconcile_customer_name(&table, &big).await.unwrap(), 1);
    let repaired = table.get(Order::key(&big, &first.order_id)).await.unwrap().unwrap();
    assert_eq!(repaired.customer_name, "Big Spender");
}

#[tokio::test]
async fn a_mismatch_is_reported() {
    let data = Dataset::generate(7, Sizes::SMALL);
    let table = table("vault_commerce_mismatch").await;
    scenario::load(&table, &data, 8).await.unwrap();
    // A wishlist item the data set does not have, in a partition no other pattern reads: the
    // inverted-index pattern must notice the extra wisher.
    let stray = WishlistItem { user_id: UserId("zzzz".into()), ..data.wishes[0].clone() };
    let stray = WishlistItem { sku: data.products[0].sku.clone(), ..stray };
    table.put(&stray).await.unwrap();
    let err = vault_commerce::run(&table, &data).await.unwrap_err();
    assert_eq!(err.pattern, "who wishes a product (inverted index SK = WISHLIST#<sku>), 10 a page");
    assert!(err.detail.contains("UserId(\"zzzz\")"), "{}", err.detail);
}

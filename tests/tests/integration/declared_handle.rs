//! A table handle bound to its declaration (`Table<Store>`), against DynamoDB Local: it writes,
//! reads, queries, updates, scans and deletes the declaration's entities under the declared
//! attribute names and type attribute. (That it refuses other entities is a compile error:
//! `tests/ui/declared_handle_other_entity.rs`.)

use std::collections::BTreeSet;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::{Entity, Item, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

/// A product of a store, listed by shelf through GSI1.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Store, pk = "PRODUCT#<id>", sk = "INFO", gsi1 = "SHELF#<shelf>", gsi1_sk = "<id>")]
pub struct Product {
    pub id: String,
    pub shelf: String,
    pub stock: u32,
}

#[derive(TableDef)]
#[table(
    entities(Product),
    pk = "pk",
    sk = "sk",
    entity_type = "kind",
    gsi1(name = "ByShelf", pk = "shelfpk", sk = "shelfsk", projection = all),
)]
pub struct Store;

fn product(id: &str, shelf: &str, stock: u32) -> Product {
    Product { id: id.to_owned(), shelf: shelf.to_owned(), stock }
}

/// The raw item under `pk` / `sk`, read with the SDK alone by the declared key names.
async fn raw(table: &Table<Store>, pk: &str) -> Option<Item> {
    table
        .client()
        .get_item()
        .table_name(table.name())
        .key("pk", AttributeValue::S(pk.to_owned()))
        .key("sk", AttributeValue::S("INFO".to_owned()))
        .consistent_read(true)
        .send()
        .await
        .unwrap()
        .item
}

#[tokio::test]
async fn a_declared_handle_writes_and_reads_with_the_declarations_names() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table: Table<Store> = Table::new(server.client(), unique_table_name("declared_handle")).declared();
    table.untyped().create_table_from(&Store::layout().unwrap()).await.expect("the table is created");

    let (a, b) = (product("a", "tea", 3), product("b", "tea", 0));
    table.create(&a).await.unwrap();
    table.put(&b).await.unwrap();

    let item = raw(&table, "PRODUCT#a").await.unwrap();
    let names: BTreeSet<&str> = item.keys().map(String::as_str).collect();
    assert_eq!(names, BTreeSet::from(["pk", "sk", "kind", "shelfpk", "shelfsk", "id", "shelf", "stock"]));
    assert_eq!(item["kind"], AttributeValue::S("Product".to_owned()));
    assert_eq!(item["shelfpk"], AttributeValue::S("SHELF#tea".to_owned()));
    assert_eq!(item["shelfsk"], AttributeValue::S("a".to_owned()));

    assert_eq!(table.get(Product::key("a")).await.unwrap(), Some(a.clone()));
    assert_eq!(table.query(Product::gsi1("tea")).all().await.unwrap(), [a.clone(), b.clone()]);

    let updated = table.update(Product::key("b")).set(Product::STOCK, &7).send().await.unwrap().ok();
    assert_eq!(updated, Some(product("b", "tea", 7)));
    assert_eq!(raw(&table, "PRODUCT#b").await.unwrap()["stock"], AttributeValue::N("7".to_owned()));

    let mut scanned: Vec<Product> = table
        .scan_table()
        .all()
        .await
        .unwrap()
        .into_iter()
        .map(|item| match item {
            StoreItem::Product(p) => p,
        })
        .collect();
    scanned.sort_by(|x, y| x.id.cmp(&y.id));
    assert_eq!(scanned, [a.clone(), product("b", "tea", 7)]);

    assert_eq!(table.delete(Product::key("a")).await.unwrap().ok(), Some(Some(a)));
    assert_eq!(raw(&table, "PRODUCT#a").await, None);
    table.untyped().delete_table().await.unwrap();
}

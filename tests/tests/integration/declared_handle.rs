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
        .map(crate::common::without_history)
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

    // Upserts and counters, with the declaration's names on the created item.
    let counted = table
        .increment(Product::key("b"), Product::STOCK, 2)
        .set_if_absent(Product::SHELF, &"tea".to_owned())
        .send()
        .await
        .unwrap()
        .ok();
    assert_eq!(counted, Some(product("b", "tea", 9)));
    let created =
        table.upsert(Product::key("c")).set(Product::SHELF, &"tea".to_owned()).add(Product::STOCK, &4).send().await;
    assert_eq!(created.unwrap().ok(), Some(product("c", "tea", 4)));
    let item = raw(&table, "PRODUCT#c").await.unwrap();
    assert_eq!(
        (&item["kind"], &item["shelfpk"], &item["stock"]),
        (
            &AttributeValue::S("Product".to_owned()),
            &AttributeValue::S("SHELF#tea".to_owned()),
            &AttributeValue::N("4".to_owned())
        )
    );

    assert_eq!(table.delete(Product::key("a")).await.unwrap().ok(), Some(Some(a)));
    assert_eq!(raw(&table, "PRODUCT#a").await, None);
    table.untyped().delete_table().await.unwrap();
}

/// A parcel of a depot: one of the two entities of `Depot`, for the builders that mix entities.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Depot, pk = "PARCEL#<id>", sk = "PARCEL")]
pub struct Parcel {
    pub id: String,
    pub grams: u32,
}

/// A pallet of a depot.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(table = Depot, pk = "PALLET#<id>", sk = "PALLET")]
pub struct Pallet {
    pub id: String,
    pub slots: u32,
}

#[derive(TableDef)]
#[table(entities(Parcel, Pallet), pk = "pk", sk = "sk", entity_type = "kind")]
pub struct Depot;

fn parcel(id: &str, grams: u32) -> Parcel {
    Parcel { id: id.to_owned(), grams }
}

fn pallet(id: &str, slots: u32) -> Pallet {
    Pallet { id: id.to_owned(), slots }
}

/// The transactions, transactional reads, mixed batches and renders of a `Table<Depot>` take
/// both of its entities and write them under `Depot`'s names. (That they refuse other entities
/// is a compile error: `tests/ui/declared_handle_builders.rs`.)
#[tokio::test]
async fn a_declared_handles_mixed_builders_take_its_entities() {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table: Table<Depot> = Table::new(server.client(), unique_table_name("declared_builders")).declared();
    table.untyped().create_table_from(&Depot::layout().unwrap()).await.expect("the table is created");

    // A transaction of both entities, one of them through a declared update.
    table.put(&pallet("p1", 4)).await.unwrap();
    table
        .transact()
        .create(&parcel("c1", 250))
        .update(table.update(Pallet::key("p1")).set(Pallet::SLOTS, &3))
        .send()
        .await
        .unwrap();
    let read = table.transact_get().get(Parcel::key("c1")).get(Pallet::key("p1")).send().await.unwrap();
    assert_eq!(read, (Some(parcel("c1", 250)), Some(pallet("p1", 3))));

    // A mixed batch write and get.
    let written = table
        .batch_write()
        .put(&parcel("c2", 900))
        .put(&pallet("p2", 8))
        .delete(Parcel::key("c1"))
        .send()
        .await
        .unwrap();
    assert_eq!((written.written, written.unprocessed.len()), (3, 0));
    let got = table
        .batch_get_mixed()
        .key(Parcel::key("c2"))
        .key(Pallet::key("p2"))
        .key(Parcel::key("c1"))
        .send()
        .await
        .unwrap()
        .into_result()
        .unwrap();
    assert_eq!(got.len(), 3);
    assert_eq!(Parcel::from_item(got[0].as_ref().unwrap()).unwrap(), parcel("c2", 900));
    assert_eq!(Pallet::from_item(got[1].as_ref().unwrap()).unwrap(), pallet("p2", 8));
    assert_eq!(got[2], None);
    assert_eq!(got[1].as_ref().unwrap()["kind"], AttributeValue::S("Pallet".to_owned()));

    // A render of a put: the declared names, the table's name.
    let requests = table.render().put(&parcel("c3", 10)).unwrap();
    assert_eq!(requests.len(), 1);
    let put = requests.into_iter().next().unwrap().into_put_item().unwrap();
    assert_eq!(put.table_name(), Some(table.name()));
    let item = put.item().unwrap();
    assert_eq!(item["pk"], AttributeValue::S("PARCEL#c3".to_owned()));
    assert_eq!(item["sk"], AttributeValue::S("PARCEL".to_owned()));
    assert_eq!(item["kind"], AttributeValue::S("Parcel".to_owned()));
    assert_eq!(item["grams"], AttributeValue::N("10".to_owned()));
    assert_eq!(table.get(Parcel::key("c3")).await.unwrap(), None);
    table.untyped().delete_table().await.unwrap();
}

//! Entities told apart by their key templates: two entities sharing one type value (`ORDER`
//! for an order's details and a user's order line, as the seed write-up
//! `004_fca20cf2a3c23bd2` stores them), and a table without any type attribute
//! (`#[table(entity_type = none)]`), read through gets, queries, item collections and the
//! table's item enum. Items are written raw (with the SDK alone) as another client writes them.

use crate::common;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::collection::Items;
use dynamo_entity::query::Decoded;
use dynamo_entity::{Entity, EntityEnum, Item, Page, Table, TableDef};
use dynamo_entity_local::{LocalDynamoDb, unique_table_name};

fn s(v: &str) -> AttributeValue {
    AttributeValue::S(v.to_owned())
}

fn n(v: &str) -> AttributeValue {
    AttributeValue::N(v.to_owned())
}

async fn put_raw(table: &Table, pairs: &[(&str, AttributeValue)]) {
    let item: Item = pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect();
    table.client().put_item().table_name(table.name()).set_item(Some(item)).send().await.unwrap();
}

async fn create(test: &str, layout: &dynamo_entity::schema::TableLayout) -> Table {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(layout).await.expect("the table is created");
    table
}

mod shared {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "ORDER#<id>",
        sk = "DETAILS",
        gsi1 = "USER#<user_id>",
        gsi1_sk = "ORDER#<id>",
        name = "ORDER",
        table = Typed,
        rename_all = "camelCase"
    )]
    pub struct Order {
        pub id: String,
        pub user_id: String,
        pub total: f64,
        pub status: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER#<user_id>",
        sk = "ORDER#<day>#<order_id>",
        gsi1 = "USER#<user_id>",
        gsi1_sk = "LINE#<day>#<order_id>",
        name = "ORDER",
        table = Typed,
        key_fields = "keys"
    )]
    pub struct UserOrder {
        pub user_id: String,
        pub day: String,
        pub order_id: String,
        pub status: String,
        pub total: f64,
    }

    /// A user's orders and order lines, as one item collection: both are in the user's
    /// partition of GSI1 (`#[derive(Collection)]` refuses entities that share no partition).
    #[derive(dynamo_entity::Collection, Debug, PartialEq)]
    pub struct AliceLines {
        pub orders: Vec<Order>,
        pub lines: Vec<UserOrder>,
    }

    /// Both entities store `entityType = "ORDER"`; their key templates cannot collide.
    #[derive(TableDef)]
    #[table(
        entities(Order, UserOrder),
        gsi1(projection = all),
        entity_type = "entityType",
        item(derive(Debug, Clone, PartialEq))
    )]
    pub struct Typed;
}

mod untyped {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<id>", sk = "PROFILE", table = Untyped, key_fields = "keys")]
    pub struct Profile {
        pub id: String,
        pub email: String,
        pub tier: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", table = Untyped, key_fields = "keys")]
    pub struct Order {
        pub user_id: String,
        pub order_id: String,
        pub total: f64,
        pub status: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "PRODUCT#<sku>", sk = "METADATA", table = Untyped, key_fields = "keys")]
    pub struct Product {
        pub sku: String,
        pub title: String,
        pub price: u32,
    }

    /// No type attribute at all: items are told apart by their keys.
    #[derive(TableDef)]
    #[table(entities(Profile, Order, Product), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Untyped;
}

#[tokio::test]
async fn entities_sharing_a_type_value_are_told_apart_by_key() {
    use shared::*;
    let table = create("dispatch_shared", &Typed::layout().unwrap()).await;
    put_raw(
        &table,
        &[
            ("PK", s("ORDER#abc123")),
            ("SK", s("DETAILS")),
            ("userId", s("alice")),
            ("total", n("89.99")),
            ("status", s("shipped")),
            ("entityType", s("ORDER")),
        ],
    )
    .await;
    put_raw(
        &table,
        &[
            ("PK", s("USER#alice")),
            ("SK", s("ORDER#2026-05-15#abc123")),
            ("status", s("shipped")),
            ("total", n("89.99")),
            ("entityType", s("ORDER")),
        ],
    )
    .await;
    let order = Order { id: "abc123".into(), user_id: "alice".into(), total: 89.99, status: "shipped".into() };
    let line = UserOrder {
        user_id: "alice".into(),
        day: "2026-05-15".into(),
        order_id: "abc123".into(),
        status: "shipped".into(),
        total: 89.99,
    };
    assert_eq!(table.get_consistent(Order::key("abc123")).await.unwrap(), Some(order.clone()));
    assert_eq!(table.query(UserOrder::query("alice")).consistent_read().all().await.unwrap(), vec![line.clone()]);
    // The item enum: the same type value, dispatched by key shape.
    let mut decoded: Vec<TypedItem> =
        common::scan_all(&table).await.iter().map(|i| TypedItem::decode(i).unwrap().unwrap()).collect();
    decoded.sort_by_key(|i| matches!(i, TypedItem::UserOrder(_)));
    assert_eq!(decoded, vec![TypedItem::Order(order.clone()), TypedItem::UserOrder(line.clone())]);

    // Written by the library: both carry the shared type value.
    table.put(&Order { id: "o2".into(), ..order }).await.unwrap();
    table.put(&UserOrder { order_id: "o2".into(), ..line }).await.unwrap();
    for (pk, sk) in [("ORDER#o2", "DETAILS"), ("USER#alice", "ORDER#2026-05-15#o2")] {
        let raw = common::raw_item(&table, pk, sk).await.unwrap();
        assert_eq!(raw["entityType"], s("ORDER"), "{pk}");
    }
    assert_eq!(common::scan_all(&table).await.iter().filter_map(|i| TypedItem::decode(i).unwrap()).count(), 4);
    // `Items::all` / `one` pick each entity's items by type value and key shape: the two
    // entities' items share `entityType = ORDER`, and neither is decoded as the other.
    let items = Items::with_type_attribute(common::scan_all(&table).await, "entityType");
    let mut orders: Vec<String> = items.all::<Order>().unwrap().into_iter().map(|o| o.id).collect();
    orders.sort();
    assert_eq!(orders, ["abc123", "o2"]);
    let mut lines: Vec<String> = items.all::<UserOrder>().unwrap().into_iter().map(|o| o.order_id).collect();
    lines.sort();
    assert_eq!(lines, ["abc123", "o2"]);
    let Page { items: decoded, skipped, .. } = items.lenient().all::<UserOrder>();
    assert_eq!((decoded.len(), skipped.len()), (2, 0));
    let one = Items::with_type_attribute(common::scan_all(&table).await, "entityType");
    assert!(one.one::<Order>().unwrap_err().to_string().starts_with("invalid request: expected one ORDER"));

    // A scan of one entity keeps the items of its key shape: the handle knows from the layout
    // that the two share `ORDER`.
    let mut scanned: Vec<String> = table.scan::<Order>().all().await.unwrap().into_iter().map(|o| o.id).collect();
    scanned.sort();
    assert_eq!(scanned, ["abc123", "o2"]);
    let mut scanned: Vec<String> =
        table.scan::<UserOrder>().all().await.unwrap().into_iter().map(|o| o.order_id).collect();
    scanned.sort();
    assert_eq!(scanned, ["abc123", "o2"]);
    let declared = Table::new(table.client().clone(), table.name()).declared::<Typed>();
    assert_eq!(declared.scan::<UserOrder>().all().await.unwrap().len(), 2);
    // A handle not given the layout learns it from the table each entity names
    // (`table = Typed`): the other entity's items are passed over there too.
    let plain = Table::new(table.client().clone(), table.name());
    let mut scanned: Vec<String> = plain.scan::<Order>().all().await.unwrap().into_iter().map(|o| o.id).collect();
    scanned.sort();
    assert_eq!(scanned, ["abc123", "o2"]);
    assert_eq!(plain.query(UserOrder::query("alice")).consistent_read().all().await.unwrap().len(), 2);

    // An item of the shared type value that no entity's templates fit (another writer's older
    // key form): a query or scan that reads it reports it, strict or lenient, never passes over
    // it as another entity's.
    put_raw(
        &table,
        &[("PK", s("USER#alice")), ("SK", s("ORDER#2026-05-29")), ("status", s("old")), ("entityType", s("ORDER"))],
    )
    .await;
    // The error names every entity of the type value, with its templates.
    let misfit = "an item of entity type `ORDER` fits the key templates of none of its entities, Order (PK \
                  `ORDER#<id>`, SK `DETAILS`); UserOrder (PK `USER#<user_id>`, SK `ORDER#<day>#<order_id>`): \
                  PK=USER#alice SK=ORDER#2026-05-29";
    let err = table.query(UserOrder::query("alice")).consistent_read().all().await.unwrap_err();
    assert!(matches!(err, dynamo_entity::Error::KeyFitsNoEntity { .. }), "{err:?}");
    assert_eq!(err.to_string(), misfit);
    let page = table.query(UserOrder::query("alice")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items.len(), 2);
    assert_eq!(page.skipped.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), ["PK=USER#alice SK=ORDER#2026-05-29"]);
    assert_eq!(page.skipped[0].error.to_string(), misfit);
    for handle in [&table, &plain] {
        let err = handle.scan::<UserOrder>().all().await.unwrap_err();
        assert_eq!(err.to_string(), misfit);
        let err = handle.query(UserOrder::query("alice")).consistent_read().all().await.unwrap_err();
        assert_eq!(err.to_string(), misfit);
    }
    let dynamo_entity::Page { items: lines, skipped: undecodable, .. } =
        table.scan::<Order>().lenient().all().await.unwrap();
    assert_eq!((lines.len(), undecodable.len()), (2, 1));
    assert_eq!(undecodable[0].key, "PK=USER#alice SK=ORDER#2026-05-29");
    assert_eq!(undecodable[0].error.to_string(), misfit);
    // The table's item enum and a collection's `Items` report it the same way.
    let raw = common::raw_item(&table, "USER#alice", "ORDER#2026-05-29").await.unwrap();
    assert_eq!(TypedItem::decode(&raw).unwrap_err().to_string(), misfit);
    let items = plain.collection(UserOrder::query("alice")).consistent_read().send().await.unwrap();
    assert_eq!(items.all::<UserOrder>().unwrap_err().to_string(), misfit);
    assert_eq!(items.one::<Order>().unwrap_err().to_string(), misfit);
    let Page { items: lines, skipped, .. } = items.lenient().all::<UserOrder>();
    assert_eq!((lines.len(), skipped.len()), (2, 1));
    assert_eq!(skipped[0].error.to_string(), misfit);
    let Decoded { value: one, skipped } = items.lenient().one::<Order>().unwrap();
    assert_eq!((one, skipped.len()), (None, 1));
    // A collection of both entities of the type value reports it as the enum does.
    assert_eq!(items.decode::<AliceLines>().unwrap_err().to_string(), misfit);
    let Decoded { value: lines, skipped } = items.lenient().decode::<AliceLines>().unwrap();
    assert_eq!((lines.orders.len(), lines.lines.len()), (0, 2));
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);
    let Page { items: decoded, skipped, .. } = items.lenient().decode_each::<TypedItem>();
    assert_eq!(decoded.len(), 2);
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);
}

#[tokio::test]
async fn a_table_without_a_type_attribute_dispatches_by_key() {
    use untyped::*;
    let table = create("dispatch_untyped", &Untyped::layout().unwrap()).await;
    // The seed write-up 002 (VaultCommerce) items, exactly: no type attribute.
    put_raw(
        &table,
        &[("PK", s("USER#42")), ("SK", s("PROFILE")), ("email", s("alice@vault.test")), ("tier", s("GOLD"))],
    )
    .await;
    put_raw(
        &table,
        &[("PK", s("USER#42")), ("SK", s("ORDER#2026-0042")), ("total", n("129.99")), ("status", s("PAID"))],
    )
    .await;
    put_raw(
        &table,
        &[("PK", s("PRODUCT#SKU-8842")), ("SK", s("METADATA")), ("title", s("Trail Pack")), ("price", n("89"))],
    )
    .await;
    let profile = Profile { id: "42".into(), email: "alice@vault.test".into(), tier: "GOLD".into() };
    let order = Order { user_id: "42".into(), order_id: "2026-0042".into(), total: 129.99, status: "PAID".into() };
    let product = Product { sku: "SKU-8842".into(), title: "Trail Pack".into(), price: 89 };
    assert_eq!(table.get_consistent(Profile::key("42")).await.unwrap(), Some(profile.clone()));
    assert_eq!(table.get_consistent(Product::key("SKU-8842")).await.unwrap(), Some(product.clone()));
    assert_eq!(table.query(Order::query("42")).consistent_read().all().await.unwrap(), vec![order.clone()]);
    // The account page: one query of the partition, every item decoded by its key.
    let page: Vec<UntypedItem> =
        table.collection(Profile::query("42")).consistent_read().send().await.unwrap().decode_each().unwrap();
    assert_eq!(page, vec![UntypedItem::Order(order.clone()), UntypedItem::Profile(profile.clone())]);
    assert_eq!(
        table
            .collection(Profile::query("42"))
            .consistent_read()
            .send()
            .await
            .unwrap()
            .strict()
            .decode_each::<UntypedItem>()
            .unwrap(),
        page
    );
    // An item whose key matches no entity's templates: `decode_each` skips it (with a warning),
    // `strict().decode_each` refuses it, naming its key.
    put_raw(&table, &[("PK", s("USER#42")), ("SK", s("NOTE#1")), ("text", s("call back"))]).await;
    let items = table.collection(Profile::query("42")).consistent_read().send().await.unwrap();
    assert_eq!(items.decode_each::<UntypedItem>().unwrap(), page);
    let err = items.strict().decode_each::<UntypedItem>().unwrap_err();
    assert_eq!(err.to_string(), "UntypedItem does not hold items without an entity type: PK=USER#42 SK=NOTE#1");
    // An entity query passes over the note (of no declared kind), and reports an item that
    // begins as an order's key but does not fit its template.
    assert_eq!(table.query(Order::query("42")).consistent_read().all().await.unwrap(), vec![order.clone()]);
    put_raw(&table, &[("PK", s("USER#42")), ("SK", s("ORDER#2026-0042#line1")), ("total", n("1"))]).await;
    let err = table.query(Order::query("42")).consistent_read().all().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "an item without an entity type fits the key templates of none of its entities, Order (PK \
         `USER#<user_id>`, SK `ORDER#<order_id>`): PK=USER#42 SK=ORDER#2026-0042#line1"
    );
    let page = table.query(Order::query("42")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items, vec![order.clone()]);
    assert_eq!(
        page.skipped.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(),
        ["PK=USER#42 SK=ORDER#2026-0042#line1"]
    );
    let line = [("PK".to_owned(), s("USER#42")), ("SK".to_owned(), s("ORDER#2026-0042#line1"))];
    table.client().delete_item().table_name(table.name()).set_key(Some(line.into())).send().await.unwrap();
    let note = [("PK".to_owned(), s("USER#42")), ("SK".to_owned(), s("NOTE#1"))];
    table.client().delete_item().table_name(table.name()).set_key(Some(note.into())).send().await.unwrap();
    let mut all: Vec<UntypedItem> =
        common::scan_all(&table).await.iter().map(|i| UntypedItem::decode(i).unwrap().unwrap()).collect();
    all.sort_by_key(|i| format!("{i:?}"));
    assert_eq!(all.len(), 3);
    assert!(all.contains(&UntypedItem::Product(product.clone())));

    // Writes store no type attribute and no key field attribute; conditional writes and
    // deletes work without one.
    let p2 = Product { sku: "SKU-1".into(), title: "Mug".into(), price: 12 };
    table.create(&p2).await.unwrap();
    let raw = common::raw_item(&table, "PRODUCT#SKU-1", "METADATA").await.unwrap();
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["PK", "SK", "price", "title"]);
    assert!(matches!(table.create(&p2).await, Err(dynamo_entity::Error::AlreadyExists { .. })));
    table.update(Product::key("SKU-1")).set(Product::PRICE, &13).send().await.unwrap();
    let deleted = table.delete(Product::key("SKU-1")).await.unwrap();
    assert_eq!(deleted, Some(Product { price: 13, ..p2 }));
    assert_eq!(common::raw_item(&table, "PRODUCT#SKU-1", "METADATA").await, None);
}

#[tokio::test]
async fn items_one_lenient_reports_the_item_that_does_not_decode() {
    use untyped::*;
    let table = create("dispatch_one_lenient", &Untyped::layout().unwrap()).await;
    put_raw(&table, &[("PK", s("USER#7")), ("SK", s("PROFILE")), ("email", s("x@y.z")), ("tier", n("3"))]).await;
    put_raw(&table, &[("PK", s("USER#7")), ("SK", s("ORDER#o1")), ("total", n("1.5")), ("status", s("PAID"))]).await;
    let items = table.collection(Profile::query("7")).consistent_read().send().await.unwrap();
    assert!(matches!(items.one::<Profile>(), Err(dynamo_entity::Error::Decode { .. })));
    let Decoded { value: profile, skipped } = items.lenient().one::<Profile>().unwrap();
    assert_eq!(profile, None);
    assert_eq!(skipped.len(), 1);
    assert_eq!(skipped[0].key, "PK=USER#7 SK=PROFILE");
    let order = Order { user_id: "7".into(), order_id: "o1".into(), total: 1.5, status: "PAID".into() };
    let Decoded { value: found, skipped } = items.lenient().one::<Order>().unwrap();
    assert_eq!((found, skipped.len()), (Some(order), 0));
}

#[test]
fn a_workbench_export_of_a_table_without_a_type_attribute() {
    use dynamo_entity::design::workbench::WorkbenchModel;
    use untyped::*;
    let profile = Profile { id: "42".into(), email: "a@b.c".into(), tier: "GOLD".into() };
    let order = Order { user_id: "42".into(), order_id: "o1".into(), total: 1.5, status: "PAID".into() };
    let product = Product { sku: "S-1".into(), title: "Mug".into(), price: 12 };
    let model = WorkbenchModel::new("m", "untyped-table")
        .dated(dynamo_entity::Timestamp::EPOCH)
        .sample(&profile)
        .unwrap()
        .sample(&order)
        .unwrap()
        .sample(&product)
        .unwrap();
    let json = Untyped::layout().unwrap().workbench(&model).unwrap();
    let text = json.to_string();
    // No type attribute anywhere, and no attribute for the fields written only in keys.
    assert!(!text.contains("\"_type\""), "{text}");
    let non_key = &json["DataModel"][0]["NonKeyAttributes"];
    let mut names: Vec<&str> =
        non_key.as_array().unwrap().iter().map(|d| d["AttributeName"].as_str().unwrap()).collect();
    names.sort_unstable();
    assert_eq!(names, ["email", "price", "status", "tier", "title", "total"]);
    assert_eq!(json["DataModel"][0]["TableData"].as_array().unwrap().len(), 3);
}

mod untyped_unique {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<id>", sk = "PROFILE", table = Accounts, key_fields = "keys")]
    pub struct Account {
        pub id: String,
        #[entity(unique)]
        pub email: String,
        pub name: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", table = Accounts, key_fields = "keys")]
    pub struct Order {
        pub user_id: String,
        pub order_id: String,
        pub total: u32,
    }

    /// No type attribute, and a unique field: guard items carry no type either.
    #[derive(TableDef)]
    #[table(entities(Account, Order), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Accounts;
}

#[tokio::test]
async fn unique_fields_in_a_table_without_a_type_attribute() {
    use untyped_unique::*;
    let table = create("dispatch_untyped_unique", &Accounts::layout().unwrap()).await;
    let ann = Account { id: "u1".into(), email: "ann@example.test".into(), name: "Ann".into() };
    table.create(&ann).await.unwrap();
    let order = Order { user_id: "u1".into(), order_id: "o1".into(), total: 12 };
    table.put(&order).await.unwrap();

    // The guard, attribute by attribute: keyed as in a typed table, without any type attribute.
    let guard = common::raw_item(&table, "UNIQUE#Account#email#ann@example.test", "UNIQUE").await.unwrap();
    let expected: Item = [
        ("PK", s("UNIQUE#Account#email#ann@example.test")),
        ("SK", s("UNIQUE")),
        ("entity", s("Account")),
        ("field", s("email")),
        ("value", s("ann@example.test")),
        ("ownerPK", s("USER#u1")),
        ("ownerSK", s("PROFILE")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_owned(), v))
    .collect();
    assert_eq!(guard, expected);
    // The entity itself carries no type attribute either.
    let stored = common::raw_item(&table, "USER#u1", "PROFILE").await.unwrap();
    let mut names: Vec<&str> = stored.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["PK", "SK", "email", "name"]);

    // A second owner of the value is refused, typed, and writes nothing.
    let bob = Account { id: "u2".into(), email: "ann@example.test".into(), name: "Bob".into() };
    match table.create(&bob).await {
        Err(dynamo_entity::Error::UniqueViolation { entity, field, value, .. }) => {
            assert_eq!((entity, field, value.as_str()), ("Account", "email", "ann@example.test"));
        }
        other => panic!("expected a unique violation, got {other:?}"),
    }
    assert_eq!(common::raw_item(&table, "USER#u2", "PROFILE").await, None);
    assert_eq!(table.get_by_unique(Account::EMAIL, &"ann@example.test".to_owned()).await.unwrap(), Some(ann.clone()));

    // The whole table, read through the item enum: the guard is nobody's item and is skipped.
    let mut all = table.scan_table::<AccountsItem>().all().await.unwrap();
    all.sort_by_key(|i| matches!(i, AccountsItem::Order(_)));
    assert_eq!(all, vec![AccountsItem::Account(ann.clone()), AccountsItem::Order(order.clone())]);
    let mut decoded = Vec::new();
    for item in common::scan_all(&table).await {
        if let Some(v) = AccountsItem::decode(&item).unwrap() {
            decoded.push(v);
        } else {
            assert!(dynamo_entity::owner::is_library_item(&item, Account::NAMES), "only the guard is nobody's");
        }
    }
    assert_eq!(decoded.len(), 2);

    // Moving the value moves the guard; deleting the owner releases it.
    table.update(Account::key("u1")).set_unique(Account::EMAIL, &"ann@example.org".to_owned()).send().await.unwrap();
    assert_eq!(common::raw_item(&table, "UNIQUE#Account#email#ann@example.test", "UNIQUE").await, None);
    assert!(common::raw_item(&table, "UNIQUE#Account#email#ann@example.org", "UNIQUE").await.is_some());
    table.create(&bob).await.unwrap();
    table.delete(Account::key("u1")).await.unwrap();
    assert_eq!(common::raw_item(&table, "UNIQUE#Account#email#ann@example.org", "UNIQUE").await, None);
    let guards: Vec<Item> = common::scan_all(&table)
        .await
        .into_iter()
        .filter(|i| dynamo_entity::owner::is_library_item(i, Account::NAMES))
        .collect();
    assert_eq!(guards.len(), 1, "only bob's guard is left");
    assert_eq!(guards[0]["ownerPK"], s("USER#u2"));
}

mod folded {
    use super::*;
    use dynamo_entity::Timestamp;

    /// Keys lowercased as ElectroDB writes them, ids and times only inside the keys: `user_id`
    /// and `placed_at` are read back in the key's case (`#[entity(folded)]`); the integer `n`
    /// is not changed by folding.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "$shop#user_<user_id>", sk = "$order_1#<placed_at>#n_<n:raw>", table = Folded,
        key_case = "lower", key_values = "verbatim", key_fields = "keys"
    )]
    pub struct Order {
        #[entity(folded)]
        pub user_id: String,
        #[entity(folded)]
        pub placed_at: Timestamp,
        pub n: u32,
        pub total: f64,
    }

    #[derive(TableDef)]
    #[table(entities(Order), entity_type = none)]
    pub struct Folded;
}

#[tokio::test]
async fn key_only_fields_of_case_folded_keys_read_back_folded() {
    use folded::*;
    let table = create("dispatch_folded", &Folded::layout().unwrap()).await;
    // As another client writes it: the whole key lowercased, no id or time attribute.
    put_raw(
        &table,
        &[("PK", s("$shop#user_ann")), ("SK", s("$order_1#2026-05-01t12:30:00.250z#n_7")), ("total", n("9.5"))],
    )
    .await;
    let placed = dynamo_entity::Timestamp::parse("2026-05-01T12:30:00.250Z").unwrap();
    let ann = Order { user_id: "ann".into(), placed_at: placed, n: 7, total: 9.5 };
    // Queried with any case: the values are folded before the key is written.
    assert_eq!(table.get_consistent(Order::key("Ann", &placed, &7)).await.unwrap(), Some(ann.clone()));
    assert_eq!(table.query(Order::query("ANN")).consistent_read().all().await.unwrap(), vec![ann.clone()]);

    // Written by the library: only the folded keys hold the id, so it reads back folded.
    let bob = Order { user_id: "Bob".into(), placed_at: placed, n: 12, total: 1.0 };
    table.put(&bob).await.unwrap();
    let raw = common::raw_item(&table, "$shop#user_bob", "$order_1#2026-05-01t12:30:00.250z#n_12").await.unwrap();
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["PK", "SK", "total"]);
    assert_eq!(
        table.get_consistent(Order::key("Bob", &placed, &12)).await.unwrap(),
        Some(Order { user_id: "bob".into(), ..bob })
    );
}

mod plain {
    use super::*;

    /// No `table = ...`: the library's default names, and no table declaration to learn the
    /// table's entities from.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "NOTE#<n>", name = "NOTE", key_fields = "keys")]
    pub struct Note {
        pub user_id: String,
        pub n: String,
        pub text: String,
    }
}

mod parts {
    use super::*;

    /// Keys with literal text inside their only segment, in a table without a type attribute.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "o<num:raw>", sk = "line_<line:raw>", table = Lines, key_fields = "keys")]
    pub struct Line {
        pub num: u32,
        pub line: u32,
        pub qty: u32,
    }

    #[derive(TableDef)]
    #[table(entities(Line), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Lines;
}

/// Items that no entity describes, found by reads of an entity or of the table enum: each is
/// reported (strict: the error; lenient: an `ItemError`), never passed over.
#[tokio::test]
async fn reads_report_items_that_no_entity_describes() {
    // An item of the entity's type value whose key does not fit its templates, read through
    // a collection of an entity without a table declaration: it is taken as the only entity of
    // its type value.
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    let table = Table::new(server.client(), unique_table_name("dispatch_report_plain"));
    table.create_table(&[plain::Note::SCHEMA]).await.unwrap();
    put_raw(&table, &[("PK", s("USER#u1")), ("SK", s("NOTE#a")), ("text", s("ok")), ("_type", s("NOTE"))]).await;
    put_raw(&table, &[("PK", s("USER#u1")), ("SK", s("NOTE#a#b")), ("text", s("bad")), ("_type", s("NOTE"))]).await;
    let fresh = Table::new(table.client().clone(), table.name());
    let items = fresh.collection(plain::Note::query("u1")).consistent_read().send().await.unwrap();
    let misfit = "an item of entity type `NOTE` fits the key templates of none of its entities, Note (PK \
                  `USER#<user_id>`, SK `NOTE#<n>`): PK=USER#u1 SK=NOTE#a#b";
    assert_eq!(items.all::<plain::Note>().unwrap_err().to_string(), misfit);
    let Page { items: notes, skipped, .. } = items.lenient().all::<plain::Note>();
    assert_eq!(notes, [plain::Note { user_id: "u1".into(), n: "a".into(), text: "ok".into() }]);
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);

    // An item without a type attribute in a typed table, with a user order's key: a get
    // refuses it, and so do a query, a collection's `Items::all` and the lenient reads.
    use shared::*;
    let table = create("dispatch_report_typeless", &Typed::layout().unwrap()).await;
    put_raw(
        &table,
        &[
            ("PK", s("USER#alice")),
            ("SK", s("ORDER#2026-05-15#abc123")),
            ("status", s("shipped")),
            ("total", n("1")),
            ("entityType", s("ORDER")),
        ],
    )
    .await;
    put_raw(
        &table,
        &[("PK", s("USER#alice")), ("SK", s("ORDER#2026-05-20#o9")), ("status", s("new")), ("total", n("2"))],
    )
    .await;
    let wrong = "item PK=USER#alice SK=ORDER#2026-05-20#o9 has entity type <none>, expected ORDER";
    let plain = Table::new(table.client().clone(), table.name());
    assert_eq!(plain.get_consistent(UserOrder::key("alice", "2026-05-20", "o9")).await.unwrap_err().to_string(), wrong);
    let err = plain.query(UserOrder::query("alice")).consistent_read().all().await.unwrap_err();
    assert!(matches!(err, dynamo_entity::Error::WrongEntity { .. }), "{err:?}");
    assert_eq!(err.to_string(), wrong);
    let page = plain.query(UserOrder::query("alice")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items.iter().map(|o| o.order_id.as_str()).collect::<Vec<_>>(), ["abc123"]);
    assert_eq!(page.skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [wrong]);
    let items = plain.collection(UserOrder::query("alice")).consistent_read().send().await.unwrap();
    assert_eq!(items.all::<UserOrder>().unwrap_err().to_string(), wrong);
    let Page { items: lines, skipped, .. } = items.lenient().all::<UserOrder>();
    assert_eq!((lines.len(), skipped.len()), (1, 1));
    // The table enum takes it for the entity whose key it has, and says why it is not one.
    let raw = common::raw_item(&plain, "USER#alice", "ORDER#2026-05-20#o9").await.unwrap();
    assert_eq!(TypedItem::decode(&raw).unwrap_err().to_string(), wrong);
    assert_eq!(items.decode_each::<TypedItem>().unwrap_err().to_string(), wrong);
    let Page { items: decoded, skipped, .. } = items.lenient().decode_each::<TypedItem>();
    assert_eq!(decoded.len(), 1);
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [wrong]);
    // An entity scan lets items without a type attribute through its filter, and reports it.
    assert_eq!(plain.scan::<UserOrder>().all().await.unwrap_err().to_string(), wrong);
    let dynamo_entity::Page { items: lines, skipped: undecodable, .. } =
        plain.scan::<UserOrder>().lenient().all().await.unwrap();
    assert_eq!((lines.len(), undecodable.len()), (1, 1));
    assert_eq!(undecodable[0].error.to_string(), wrong);

    // Keys with literal text around a placeholder, in a table without a type attribute: an
    // item whose keys begin as the entity's but do not fit them is reported by a query, a
    // collection and the table enum.
    use parts::*;
    let table = create("dispatch_report_parts", &Lines::layout().unwrap()).await;
    put_raw(&table, &[("PK", s("o7")), ("SK", s("line_1")), ("qty", n("3"))]).await;
    put_raw(&table, &[("PK", s("o7")), ("SK", s("line_2#x")), ("qty", n("1"))]).await;
    let misfit = "an item without an entity type fits the key templates of none of its entities, Line (PK \
                  `o<num:raw>`, SK `line_<line:raw>`): PK=o7 SK=line_2#x";
    let plain = Table::new(table.client().clone(), table.name());
    let err = plain.query(Line::query(&7)).consistent_read().all().await.unwrap_err();
    assert_eq!(err.to_string(), misfit);
    let page = plain.query(Line::query(&7)).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items, [Line { num: 7, line: 1, qty: 3 }]);
    assert_eq!(page.skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);
    let dynamo_entity::Page { items: _, skipped: undecodable, .. } =
        plain.scan::<Line>().lenient().all().await.unwrap();
    assert_eq!(undecodable.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);
    let items = plain.collection(Line::query(&7)).consistent_read().send().await.unwrap();
    assert_eq!(items.all::<Line>().unwrap_err().to_string(), misfit);
    assert_eq!(items.decode_each::<LinesItem>().unwrap_err().to_string(), misfit);
    let Page { items: decoded, skipped, .. } = items.lenient().decode_each::<LinesItem>();
    assert_eq!(decoded, [LinesItem::Line(Line { num: 7, line: 1, qty: 3 })]);
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);

    // The same in the table without a type attribute whose templates begin with literal
    // segments: the table enum names the entity the item was meant for.
    use untyped::*;
    let table = create("dispatch_report_untyped", &Untyped::layout().unwrap()).await;
    put_raw(&table, &[("PK", s("USER#42")), ("SK", s("ORDER#o2#x")), ("total", n("1"))]).await;
    let raw = common::raw_item(&table, "USER#42", "ORDER#o2#x").await.unwrap();
    assert_eq!(
        UntypedItem::decode(&raw).unwrap_err().to_string(),
        "an item without an entity type fits the key templates of none of its entities, Order (PK \
         `USER#<user_id>`, SK `ORDER#<order_id>`): PK=USER#42 SK=ORDER#o2#x"
    );
}

mod keys_only {
    use super::*;

    /// Two entities without a table declaration on the handle (`Table::new`), one `KEYS_ONLY`
    /// index: the index items carry no type attribute.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", gsi1 = "T#<tenant>", gsi1_sk = "<order_id>")]
    pub struct GOrder {
        pub user_id: String,
        pub order_id: String,
        pub tenant: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>#<region>", sk = "ORDER#<order_id>", gsi1 = "T#<tenant>", gsi1_sk = "<order_id>")]
    pub struct GLine {
        pub user_id: String,
        pub region: String,
        pub order_id: String,
        pub tenant: String,
    }

    #[derive(TableDef)]
    #[table(entities(GOrder, GLine), gsi1(projection = keys_only))]
    pub struct G;
}

/// A handle that knows no entities: index items of another entity (no type attribute in a
/// `KEYS_ONLY` index) are not reported, and an item without a type on the table is.
#[tokio::test]
async fn a_handle_without_the_layout_reports_only_what_it_can_tell() {
    use keys_only::*;
    let created = create("dispatch_keys_only", &G::layout().unwrap()).await;
    let order = GOrder { user_id: "u1".into(), order_id: "o1".into(), tenant: "acme".into() };
    created.put(&order).await.unwrap();
    let line = GLine { user_id: "u1".into(), region: "us".into(), order_id: "o2".into(), tenant: "acme".into() };
    created.put(&line).await.unwrap();
    let plain = Table::new(created.client().clone(), created.name());
    assert_eq!(plain.query(GOrder::gsi1("acme")).all().await.unwrap(), std::slice::from_ref(&order));
    assert_eq!(plain.query(GLine::gsi1("acme")).all().await.unwrap(), [line]);

    put_raw(&created, &[("PK", s("USER#u1")), ("SK", s("ORDER#o9#x"))]).await;
    let misfit = "an item without an entity type fits the key templates of none of its entities, GOrder (PK \
                  `USER#<user_id>`, SK `ORDER#<order_id>`): PK=USER#u1 SK=ORDER#o9#x";
    let err = plain.query(GOrder::query("u1")).consistent_read().all().await.unwrap_err();
    assert_eq!(err.to_string(), misfit);
    let page = plain.query(GOrder::query("u1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items, [order]);
    assert_eq!(page.skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);
    let dynamo_entity::Page { items: _, skipped: undecodable, .. } =
        plain.scan::<GOrder>().lenient().all().await.unwrap();
    assert_eq!(undecodable.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), [misfit]);
}

mod docs {
    use super::*;

    /// Every version of a document, `V#<version>` (a `u64`: always 20 digits).
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "DOC#<id>", sk = "V#<version>", name = "DOC", table = Docs, key_fields = "keys")]
    pub struct DocVersion {
        pub id: String,
        pub version: u64,
        pub body: String,
    }

    /// The latest version, `V#LATEST`, under the same type value: the table's compile-time
    /// check knows that a `u64` part never writes `LATEST`.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "DOC#<id>", sk = "V#LATEST", name = "DOC", table = Docs, key_fields = "keys")]
    pub struct DocLatest {
        pub id: String,
        pub body: String,
        pub latest: u64,
    }

    #[derive(TableDef)]
    #[table(entities(DocVersion, DocLatest), entity_type = "entityType", item(derive(Debug, Clone, PartialEq)))]
    pub struct Docs;

    /// A thread's messages, sorted by time, beside the thread's own item, in a table without
    /// a type attribute.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "THREAD#<id>", sk = "META", table = Chat, key_fields = "keys")]
    pub struct Thread {
        pub id: String,
        pub title: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "THREAD#<thread_id>", sk = "<sent_at>", table = Chat, key_fields = "keys")]
    pub struct Message {
        pub thread_id: String,
        pub sent_at: dynamo_entity::Timestamp,
        pub body: String,
    }

    #[derive(TableDef)]
    #[table(entities(Thread, Message), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Chat;
}

/// Reads tell entities apart by the same part shapes as the table's compile-time collision
/// checks: `V#LATEST` is not a `V#<version>` of a `u64`, nor `META` a `Timestamp`. Every item
/// the library wrote reads back through every path, nothing reported.
#[tokio::test]
async fn reads_tell_entities_apart_by_the_shapes_of_their_key_parts() {
    use docs::*;
    let table = create("dispatch_docs", &Docs::layout().unwrap()).await;
    let versions: Vec<DocVersion> =
        (1..=3).map(|v| DocVersion { id: "d1".into(), version: v, body: format!("v{v}") }).collect();
    for v in &versions {
        table.put(v).await.unwrap();
    }
    let latest = DocLatest { id: "d1".into(), body: "v3".into(), latest: 3 };
    table.put(&latest).await.unwrap();
    assert_eq!(table.query(DocVersion::query("d1")).consistent_read().all().await.unwrap(), versions);
    // The item collection: the partition's four items, each read as its own entity's.
    let items = table.collection(DocVersion::query("d1")).consistent_read().send().await.unwrap();
    assert_eq!(items.items().len(), 4);
    assert_eq!(items.all::<DocVersion>().unwrap(), versions);
    assert_eq!(items.one::<DocLatest>().unwrap(), Some(latest.clone()));
    let everything = Items::with_type_attribute(common::scan_all(&table).await, "entityType");
    assert_eq!(everything.all::<DocVersion>().unwrap(), versions);
    assert_eq!(everything.one::<DocLatest>().unwrap(), Some(latest.clone()));
    let mut each = everything.decode_each::<DocsItem>().unwrap();
    each.sort_by_key(|i| matches!(i, DocsItem::DocLatest(_)));
    let mut want: Vec<DocsItem> = versions.iter().cloned().map(DocsItem::DocVersion).collect();
    want.push(DocsItem::DocLatest(latest.clone()));
    assert_eq!(each, want);
    assert_eq!(table.scan_table::<DocsItem>().consistent_read().all().await.unwrap().len(), 4);
    let mut scanned = table.scan::<DocVersion>().consistent_read().all().await.unwrap();
    scanned.sort_by_key(|v| v.version);
    assert_eq!(scanned, versions);
    assert_eq!(table.scan::<DocLatest>().consistent_read().all().await.unwrap(), [latest]);

    let chat = create("dispatch_chat", &Chat::layout().unwrap()).await;
    chat.put(&Thread { id: "t1".into(), title: "Hello".into() }).await.unwrap();
    let messages: Vec<Message> = (0..3)
        .map(|i| Message {
            thread_id: "t1".into(),
            sent_at: dynamo_entity::Timestamp::parse(&format!("2026-05-01T12:00:0{i}.000Z")).unwrap(),
            body: format!("hi {i}"),
        })
        .collect();
    for m in &messages {
        chat.put(m).await.unwrap();
    }
    assert_eq!(chat.query(Message::query("t1")).consistent_read().all().await.unwrap(), messages);
    let page = chat.query(Message::query("t1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!((page.items.len(), page.skipped.len()), (3, 0));
    let newest = chat.query(Message::query("t1")).consistent_read().descending().max_items(2).send().await.unwrap();
    assert_eq!(newest.items, [messages[2].clone(), messages[1].clone()]);
    assert!(newest.cursor.is_some());
    let mut scanned = chat.scan::<Message>().consistent_read().all().await.unwrap();
    scanned.sort_by_key(|m| m.sent_at);
    assert_eq!(scanned, messages);
    let thread = chat.collection(Message::query("t1")).consistent_read().send().await.unwrap();
    assert_eq!(thread.all::<Message>().unwrap(), messages);
    assert_eq!(thread.strict().decode_each::<ChatItem>().unwrap().len(), 4);
    assert_eq!(chat.scan_table::<ChatItem>().consistent_read().all().await.unwrap().len(), 4);

    // Two messages as other writers form the time (Python's `isoformat()`, JavaScript without
    // milliseconds): not a `Timestamp` key part, so no entity's key; reported, not passed over.
    for sk in ["2026-05-01T12:00:03.123456+00:00", "2026-05-01T12:00:04Z"] {
        put_raw(&chat, &[("PK", s("THREAD#t1")), ("SK", s(sk)), ("body", s("hi"))]).await;
    }
    let misfit = |sk: &str| {
        format!(
            "an item without an entity type fits the key templates of none of its entities, Message (PK \
             `THREAD#<thread_id>`, SK `<sent_at>`): PK=THREAD#t1 SK={sk}"
        )
    };
    let want = [misfit("2026-05-01T12:00:03.123456+00:00"), misfit("2026-05-01T12:00:04Z")];
    let page = chat.query(Message::query("t1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items, messages);
    assert_eq!(page.skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), want);
    let err = chat.query(Message::query("t1")).consistent_read().all().await.unwrap_err();
    assert_eq!(err.to_string(), want[0]);
    let dynamo_entity::Page { items: scanned, skipped: undecodable, .. } =
        chat.scan::<Message>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(scanned.len(), 3);
    let mut reported: Vec<String> = undecodable.iter().map(|e| e.error.to_string()).collect();
    reported.sort();
    assert_eq!(reported, want);
    let thread = chat.collection(Message::query("t1")).consistent_read().send().await.unwrap();
    let Page { items: decoded, skipped, .. } = thread.lenient().decode_each::<ChatItem>();
    assert_eq!(decoded.len(), 4);
    assert_eq!(skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), want);
    let Page { items: lines, skipped, .. } = thread.lenient().all::<Message>();
    assert_eq!((lines, skipped.len()), (messages, 2));
}

mod shop {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<id>", sk = "PROFILE", name = "USER", table = Shop, key_fields = "keys")]
    pub struct User {
        pub id: String,
        pub name: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "ORDER#<day>#<order_id>", name = "ORDER", table = Shop, key_fields = "keys")]
    pub struct UserOrder {
        pub user_id: String,
        pub day: String,
        pub order_id: String,
        pub total: u32,
    }

    #[derive(TableDef)]
    #[table(entities(User, UserOrder), entity_type = "entityType", item(derive(Debug, Clone, PartialEq)))]
    pub struct Shop;
}

/// Items at an entity's keys whose type value is not the entity's (a JavaScript `null`, a
/// number, a value no entity has, another entity's) are reported by entity queries and scans,
/// as a get of their keys reports them; the other entity's own items are passed over.
#[tokio::test]
async fn queries_and_scans_report_items_at_the_entitys_keys_typed_otherwise() {
    use shop::*;
    let table = create("dispatch_typed_otherwise", &Shop::layout().unwrap()).await;
    table.put(&User { id: "u1".into(), name: "Ann".into() }).await.unwrap();
    for i in 0..3 {
        let line = UserOrder { user_id: "u1".into(), day: "2026-06-01".into(), order_id: format!("o{i}"), total: i };
        table.put(&line).await.unwrap();
    }
    let odd = [
        ("oN", AttributeValue::Null(true), "a value of type NULL"),
        ("o7", n("1"), "the number 1"),
        ("oL", s("order"), "order"),
        ("oU", s("USER"), "USER"),
    ];
    for (id, ty, _) in &odd {
        let sk = format!("ORDER#2026-06-02#{id}");
        put_raw(&table, &[("PK", s("USER#u1")), ("SK", s(&sk)), ("total", n("5")), ("entityType", ty.clone())]).await;
    }
    let expected: Vec<(String, String)> = odd
        .iter()
        .map(|(id, _, found)| {
            let key = format!("PK=USER#u1 SK=ORDER#2026-06-02#{id}");
            (key.clone(), format!("item {key} has entity type {found}, expected ORDER"))
        })
        .collect();
    let reported = |errors: &[dynamo_entity::error::ItemError]| -> Vec<(String, String)> {
        let mut r: Vec<(String, String)> = errors.iter().map(|e| (e.key.clone(), e.error.to_string())).collect();
        r.sort();
        r
    };
    let mut sorted = expected.clone();
    sorted.sort();
    // A get says so for each key.
    for (id, _, _) in &odd {
        let err = table.get(UserOrder::key("u1", "2026-06-02", id)).await.unwrap_err();
        assert!(matches!(err, dynamo_entity::Error::WrongEntity { .. }), "{err:?}");
    }
    let page = table.query(UserOrder::query("u1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items.len(), 3);
    assert_eq!(reported(&page.skipped), sorted);
    let err = table.query(UserOrder::query("u1")).consistent_read().all().await.unwrap_err();
    assert!(matches!(err, dynamo_entity::Error::WrongEntity { .. }), "{err:?}");
    let dynamo_entity::Page { items: lines, skipped: undecodable, .. } =
        table.scan::<UserOrder>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(lines.len(), 3);
    assert_eq!(reported(&undecodable), sorted);
    assert!(table.scan::<UserOrder>().consistent_read().all().await.is_err());
    // The table's item enum over the item collection: each decoded as its key and type say,
    // a type no entity has at an entity's key reported as a get reports it.
    let items = table.collection(UserOrder::query("u1")).consistent_read().send().await.unwrap();
    let err = items.decode_each::<ShopItem>().unwrap_err();
    assert_eq!(err.to_string(), expected[1].1, "the first in sort key order");
    let Page { items: decoded, skipped, .. } = items.lenient().decode_each::<ShopItem>();
    assert_eq!(decoded.len(), 4, "the user and three lines");
    let mut want = sorted[..3].to_vec();
    let user_typed = "PK=USER#u1 SK=ORDER#2026-06-02#oU";
    want.push((
        user_typed.to_owned(),
        format!("cannot decode User (type USER) {user_typed}: attribute `name`: the attribute is missing"),
    ));
    assert_eq!(reported(&skipped), want);

    // A user's scan passes over those typed otherwise (their keys are not a user's), and
    // reports the one typed as a user, which does not decode as one.
    let dynamo_entity::Page { items: users, skipped: undecodable, .. } =
        table.scan::<User>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(users.len(), 1);
    assert_eq!(
        reported(&undecodable),
        [(
            "PK=USER#u1 SK=ORDER#2026-06-02#oU".to_owned(),
            "cannot decode User (type USER) PK=USER#u1 SK=ORDER#2026-06-02#oU: attribute `name`: the attribute is missing"
                .to_owned()
        )]
    );
}

mod folded_shapes {
    use super::*;

    /// A thread and its messages in lowercased keys (`thread#t1` / `meta`,
    /// `2026-05-01t12:00:00.000z`), in a table without a type attribute.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "THREAD#<id>", sk = "META", table = Low, key_case = "lower")]
    pub struct Thread {
        pub id: String,
        pub title: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "THREAD#<thread_id>", sk = "<sent_at>", table = Low, key_case = "lower")]
    pub struct Message {
        pub thread_id: String,
        pub sent_at: dynamo_entity::Timestamp,
        pub body: String,
    }

    #[derive(dynamo_entity::KeyPart, Debug, Clone, Copy, PartialEq)]
    pub enum Kind {
        Open,
        Close,
    }

    /// A desk's events by kind, beside its summary (`ALL`), folded.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "DESK#<desk>", sk = "<kind>", table = Low, key_case = "lower")]
    pub struct Event {
        pub desk: String,
        pub kind: Kind,
        pub note: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "DESK#<desk>", sk = "ALL", table = Low, key_case = "lower")]
    pub struct Summary {
        pub desk: String,
        pub count: u32,
    }

    #[derive(TableDef)]
    #[table(entities(Thread, Message, Event, Summary), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Low;

    /// The thread and messages of `Chat` in a typed table.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "THREAD#<id>", sk = "META", name = "THREAD", table = TypedChat)]
    pub struct TThread {
        pub id: String,
        pub title: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "THREAD#<thread_id>", sk = "<sent_at>", name = "MESSAGE", table = TypedChat)]
    pub struct TMessage {
        pub thread_id: String,
        pub sent_at: dynamo_entity::Timestamp,
        pub body: String,
    }

    #[derive(TableDef)]
    #[table(entities(TThread, TMessage), entity_type = "entityType")]
    pub struct TypedChat;
}

/// In case-folded keys, parts are compared without their letters' case: `meta` is not a
/// folded `Timestamp`, `all` not a folded `Kind`; the library's own items read back through
/// every path.
#[tokio::test]
async fn case_folded_keys_tell_entities_apart_by_their_parts_shapes() {
    use folded_shapes::*;
    let table = create("dispatch_folded_shapes", &Low::layout().unwrap()).await;
    let thread = Thread { id: "t1".into(), title: "Hello".into() };
    table.put(&thread).await.unwrap();
    let message = Message {
        thread_id: "t1".into(),
        sent_at: dynamo_entity::Timestamp::parse("2026-05-01T12:00:00.000Z").unwrap(),
        body: "hi".into(),
    };
    table.put(&message).await.unwrap();
    let events = [
        Event { desk: "d".into(), kind: Kind::Open, note: "opened".into() },
        Event { desk: "d".into(), kind: Kind::Close, note: "closed".into() },
    ];
    for e in &events {
        table.put(e).await.unwrap();
    }
    let summary = Summary { desk: "d".into(), count: 2 };
    table.put(&summary).await.unwrap();
    assert!(common::raw_item(&table, "thread#t1", "2026-05-01t12:00:00.000z").await.is_some(), "folded");

    assert_eq!(
        table.query(Message::query("t1")).consistent_read().all().await.unwrap(),
        std::slice::from_ref(&message)
    );
    assert_eq!(table.scan::<Message>().consistent_read().all().await.unwrap(), [message]);
    assert_eq!(table.scan::<Thread>().consistent_read().all().await.unwrap(), [thread]);
    let mut kinds: Vec<String> =
        table.scan::<Event>().consistent_read().all().await.unwrap().into_iter().map(|e| e.note).collect();
    kinds.sort();
    assert_eq!(kinds, ["closed", "opened"]);
    assert_eq!(table.scan::<Summary>().consistent_read().all().await.unwrap(), std::slice::from_ref(&summary));
    let dynamo_entity::Page { items: all, skipped: undecodable, .. } =
        table.scan_table::<LowItem>().consistent_read().lenient().all().await.unwrap();
    assert_eq!((all.len(), undecodable.len()), (5, 0));
    let desk = table.collection(Summary::query("d")).consistent_read().send().await.unwrap();
    assert_eq!(desk.decode_each::<LowItem>().unwrap().len(), 3);
    assert_eq!(desk.one::<Summary>().unwrap(), Some(summary));
}

/// In a typed table, items at the keys of an entity whose sort key begins with a placeholder
/// (`<sent_at>`), typed as another entity, without a type, or with a type no entity has, are
/// reported by the entity's queries and scans.
#[tokio::test]
async fn items_at_keys_that_begin_with_a_placeholder_are_reported_whatever_their_type() {
    use folded_shapes::*;
    let table = create("dispatch_placeholder_first", &TypedChat::layout().unwrap()).await;
    table.put(&TThread { id: "t1".into(), title: "Hello".into() }).await.unwrap();
    let message = TMessage {
        thread_id: "t1".into(),
        sent_at: dynamo_entity::Timestamp::parse("2026-05-01T12:00:00.000Z").unwrap(),
        body: "hi".into(),
    };
    table.put(&message).await.unwrap();
    let odd = [
        ("2026-05-01T12:00:07.000Z", s("THREAD"), "THREAD"),
        ("2026-05-01T12:00:08.000Z", AttributeValue::Null(true), "a value of type NULL"),
        ("2026-05-01T12:00:09.000Z", s("bogus"), "bogus"),
    ];
    for (sk, ty, _) in &odd {
        put_raw(&table, &[("PK", s("THREAD#t1")), ("SK", s(sk)), ("body", s("x")), ("entityType", ty.clone())]).await;
    }
    let want: Vec<String> = odd
        .iter()
        .map(|(sk, _, found)| format!("item PK=THREAD#t1 SK={sk} has entity type {found}, expected MESSAGE"))
        .collect();
    let page = table.query(TMessage::query("t1")).consistent_read().lenient().all().await.unwrap();
    assert_eq!(page.items, std::slice::from_ref(&message));
    assert_eq!(page.skipped.iter().map(|e| e.error.to_string()).collect::<Vec<_>>(), want);
    let dynamo_entity::Page { items: scanned, skipped: undecodable, .. } =
        table.scan::<TMessage>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(scanned, [message]);
    let mut reported: Vec<String> = undecodable.iter().map(|e| e.error.to_string()).collect();
    reported.sort();
    assert_eq!(reported, want);
}

mod stored_forms {
    use super::*;

    #[derive(dynamo_entity::KeyPart, Debug, Clone, Copy, PartialEq)]
    pub enum Stage {
        #[key_part(rename = "Über")]
        Uber,
        Plain,
    }

    /// A variant whose name lowercases beyond ASCII (`über`), in a lowercased key.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "S#<id>", sk = "<stage>", table = Stages, key_case = "lower")]
    pub struct Step {
        pub id: String,
        pub stage: Stage,
        pub note: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "S#<id>", sk = "ALL", table = Stages, key_case = "lower")]
    pub struct StepAll {
        pub id: String,
        pub count: u32,
    }

    #[derive(TableDef)]
    #[table(entities(Step, StepAll), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Stages;

    #[derive(dynamo_entity::KeyPart, Debug, Clone, Copy, PartialEq)]
    pub enum Route {
        #[key_part(rename = "a|b")]
        Ab,
        Cd,
    }

    /// A variant whose name holds the key's delimiter, stored escaped (`a%7Cb`).
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "R|<id>", sk = "<route>", table = Routes, delimiter = "|")]
    pub struct Hop {
        pub id: String,
        pub route: Route,
        pub note: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "R|<id>", sk = "ALL", table = Routes, delimiter = "|")]
    pub struct HopAll {
        pub id: String,
        pub count: u32,
    }

    #[derive(TableDef)]
    #[table(entities(Hop, HopAll), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Routes;

    /// Documents and notes, read from their sort keys through a `KEYS_ONLY` inverted index.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "DOC#<id>", sk = "V#<version>", table = Inv, inverted)]
    pub struct DocV {
        pub id: String,
        pub version: u64,
        pub body: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "NOTE#<id>", sk = "V#<tag>", table = Inv, inverted)]
    pub struct Note {
        pub id: String,
        pub tag: String,
        pub text: String,
    }

    #[derive(TableDef)]
    #[table(entities(DocV, Note), entity_type = none, inverted(projection = keys_only), item(derive(Debug, Clone, PartialEq)))]
    pub struct Inv;

    /// Users under a tenant-first partition key, beside organisations.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "<tenant>#USER#<id>", sk = "PROFILE", name = "TUSER", table = Ten)]
    pub struct TUser {
        pub tenant: String,
        pub id: String,
        pub name: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "ORG#<org>", sk = "META", name = "ORG", table = Ten)]
    pub struct Org {
        pub org: String,
        pub title: String,
    }

    #[derive(TableDef)]
    #[table(entities(TUser, Org), entity_type = "entityType")]
    pub struct Ten;
}

/// Variant names are compared as keys store them: folded by Unicode's case rules, and escaped.
#[tokio::test]
async fn variant_names_are_compared_as_keys_store_them() {
    use stored_forms::*;
    let table = create("dispatch_stages", &Stages::layout().unwrap()).await;
    let steps = vec![
        Step { id: "x".into(), stage: Stage::Uber, note: "u".into() },
        Step { id: "x".into(), stage: Stage::Plain, note: "p".into() },
    ];
    for st in &steps {
        table.put(st).await.unwrap();
    }
    table.put(&StepAll { id: "x".into(), count: 2 }).await.unwrap();
    assert!(common::raw_item(&table, "s#x", "über").await.is_some());
    let page = table.query(Step::query("x")).consistent_read().lenient().all().await.unwrap();
    assert_eq!((page.items.len(), page.skipped.len()), (2, 0));
    let dynamo_entity::Page { items: scanned, skipped: undecodable, .. } =
        table.scan::<Step>().consistent_read().lenient().all().await.unwrap();
    assert_eq!((scanned.len(), undecodable.len()), (2, 0));
    assert_eq!(table.scan_table::<StagesItem>().consistent_read().all().await.unwrap().len(), 3);
    let items = table.collection(Step::query("x")).consistent_read().send().await.unwrap();
    assert_eq!(items.strict().decode_each::<StagesItem>().unwrap().len(), 3);

    let table = create("dispatch_routes", &Routes::layout().unwrap()).await;
    let hops = vec![
        Hop { id: "x".into(), route: Route::Ab, note: "u".into() },
        Hop { id: "x".into(), route: Route::Cd, note: "p".into() },
    ];
    for h in &hops {
        table.put(h).await.unwrap();
    }
    table.put(&HopAll { id: "x".into(), count: 2 }).await.unwrap();
    assert!(common::raw_item(&table, "R|x", "a%7Cb").await.is_some());
    let page = table.query(Hop::query("x")).consistent_read().lenient().all().await.unwrap();
    assert_eq!((page.items.len(), page.skipped.len()), (2, 0));
    let dynamo_entity::Page { items: scanned, skipped: undecodable, .. } =
        table.scan::<Hop>().consistent_read().lenient().all().await.unwrap();
    assert_eq!((scanned.len(), undecodable.len()), (2, 0));
    assert_eq!(table.scan_table::<RoutesItem>().consistent_read().all().await.unwrap().len(), 3);
    let items = table.collection(Hop::query("x")).consistent_read().send().await.unwrap();
    assert_eq!(items.strict().decode_each::<RoutesItem>().unwrap().len(), 3);
}

/// An item collection read through a `KEYS_ONLY` index of a table without a type attribute
/// reads the whole items: each decodes as its entity.
#[tokio::test]
async fn a_collection_through_a_keys_only_index_of_an_untyped_table_reads_whole_items() {
    use stored_forms::*;
    let table = create("dispatch_inverted_untyped", &Inv::layout().unwrap()).await;
    let docs = vec![
        DocV { id: "d1".into(), version: 7, body: "b1".into() },
        DocV { id: "d2".into(), version: 7, body: "b2".into() },
    ];
    for d in &docs {
        table.put(d).await.unwrap();
    }
    let note = Note { id: "n1".into(), tag: "00000000000000000007".into(), text: "t".into() };
    table.put(&note).await.unwrap();
    table.put(&Note { id: "n2".into(), tag: "x".into(), text: "t".into() }).await.unwrap();
    for handle in [table.clone(), Table::new(table.client().clone(), table.name())] {
        let items = handle.collection(Note::inverted("00000000000000000007")).send().await.unwrap();
        let mut all = items.all::<DocV>().unwrap();
        all.sort_by(|a, b| a.id.cmp(&b.id));
        assert_eq!(all, docs);
        assert_eq!(items.all::<Note>().unwrap(), std::slice::from_ref(&note));
        assert_eq!(items.strict().decode_each::<InvItem>().unwrap().len(), 3);
        let Page { items: decoded, skipped, .. } = items.lenient().decode_each::<InvItem>();
        assert_eq!((decoded.len(), skipped.len()), (3, 0));
    }
}

/// A scan of an entity whose partition key begins with a placeholder reports the items of
/// other types at its keys: nothing tells them apart on the server.
#[tokio::test]
async fn a_scan_reports_items_typed_otherwise_at_keys_that_begin_with_a_placeholder() {
    use stored_forms::*;
    let table = create("dispatch_tenants", &Ten::layout().unwrap()).await;
    table.put(&TUser { tenant: "t1".into(), id: "u0".into(), name: "a".into() }).await.unwrap();
    table.put(&Org { org: "o".into(), title: "t".into() }).await.unwrap();
    let odd = [
        ("u1", s("ORG"), "ORG"),
        ("u2", s("bogus"), "bogus"),
        ("u3", AttributeValue::Null(true), "a value of type NULL"),
    ];
    for (id, ty, _) in &odd {
        let pk = format!("t1#USER#{id}");
        put_raw(&table, &[("PK", s(&pk)), ("SK", s("PROFILE")), ("name", s("x")), ("entityType", ty.clone())]).await;
    }
    let want: Vec<String> = odd
        .iter()
        .map(|(id, _, found)| format!("item PK=t1#USER#{id} SK=PROFILE has entity type {found}, expected TUSER"))
        .collect();
    let dynamo_entity::Page { items: users, skipped: undecodable, .. } =
        table.scan::<TUser>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(users.len(), 1);
    let mut reported: Vec<String> = undecodable.iter().map(|e| e.error.to_string()).collect();
    reported.sort();
    assert_eq!(reported, want);
    // The organisation's scan reports the one typed as an organisation, which does not decode
    // as one, and passes over the others.
    let dynamo_entity::Page { items: orgs, skipped: undecodable, .. } =
        table.scan::<Org>().consistent_read().lenient().all().await.unwrap();
    assert_eq!(orgs.len(), 1);
    assert_eq!(undecodable.iter().map(|e| e.key.as_str()).collect::<Vec<_>>(), ["PK=t1#USER#u1 SK=PROFILE"]);
    assert!(
        undecodable[0].error.to_string().starts_with("cannot decode Org (type ORG) PK=t1#USER#u1"),
        "{}",
        undecodable[0].error
    );
}

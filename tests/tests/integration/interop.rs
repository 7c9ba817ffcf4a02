//! Tables written by other clients, read by entities declared for them, and the reverse.
//!
//! The designs of the seed write-ups `002_1f76cf4367ac7bc7` (VaultCommerce, written by Python's
//! `boto3`) and `004_fca20cf2a3c23bd2` (written by the AWS SDK for JavaScript v3,
//! `@aws-sdk/lib-dynamodb` with its default marshalling) are written exactly as the write-ups
//! show them by `tests/interop/seed00{2,4}.*`; the Rust side reads every item with exact values:
//! gets, pages of 20 with cursors, GSI queries, and every item of a scan decoded through the
//! table's item enum. Then the Rust side writes, and the JavaScript and Python readers' view
//! (attribute names, their types after default unmarshalling, key strings) is compared exactly.
//!
//! The clients are installed by `scripts/interop-setup` (pinned npm packages and boto3 in a
//! virtual environment, under `~/.cache/dynamo-entity/`), which these tests run themselves; the
//! scripts reach DynamoDB Local through `DYNAMODB_ENDPOINT` with the harness's access key id and
//! region, so both sides see one database.

use crate::common;

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use dynamo_entity::{Entity, EntityEnum, Table, TableDef, Timestamp};
use dynamo_entity_local::{DEFAULT_ACCESS_KEY_ID, DEFAULT_REGION, LocalDynamoDb, unique_table_name};
use serde_json::{Value, json};

/// `NODE_MODULES` and `PYTHON` of `scripts/interop-setup`.
struct Clients {
    node_modules: String,
    python: String,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root").to_owned()
}

fn clients() -> &'static Clients {
    static CLIENTS: OnceLock<Clients> = OnceLock::new();
    CLIENTS.get_or_init(|| {
        let out = Command::new(repo().join("scripts/interop-setup")).output().expect("scripts/interop-setup runs");
        assert!(out.status.success(), "scripts/interop-setup failed: {}", String::from_utf8_lossy(&out.stderr));
        let text = String::from_utf8(out.stdout).unwrap();
        let get = |k: &str| {
            text.lines().find_map(|l| l.strip_prefix(k)).unwrap_or_else(|| panic!("no {k} in {text}")).to_owned()
        };
        Clients { node_modules: get("NODE_MODULES="), python: get("PYTHON=") }
    })
}

/// Runs `program script args` in `tests/interop` against the shared DynamoDB Local, with the
/// harness's credentials; its standard output.
fn run(program: &str, script: &str, args: &[&str], endpoint: &str) -> String {
    let c = clients();
    let out = Command::new(program)
        .arg(script)
        .args(args)
        .current_dir(repo().join("tests/interop"))
        .env("DYNAMODB_ENDPOINT", endpoint)
        .env("NODE_PATH", &c.node_modules)
        .env("AWS_ACCESS_KEY_ID", DEFAULT_ACCESS_KEY_ID)
        .env("AWS_SECRET_ACCESS_KEY", DEFAULT_ACCESS_KEY_ID)
        .env("AWS_REGION", DEFAULT_REGION)
        .output()
        .unwrap_or_else(|e| panic!("{program} {script} runs: {e}"));
    assert!(out.status.success(), "{program} {script} {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

pub(crate) fn node(script: &str, args: &[&str], endpoint: &str) -> Value {
    serde_json::from_str(&run("node", script, args, endpoint)).expect("the script prints JSON")
}

fn python(script: &str, args: &[&str], endpoint: &str) -> Value {
    let python = clients().python.clone();
    serde_json::from_str(&run(&python, script, args, endpoint)).expect("the script prints JSON")
}

async fn create(test: &str, layout: &dynamo_entity::schema::TableLayout) -> (Table, &'static str) {
    let server = LocalDynamoDb::shared().await.expect("DynamoDB Local is available");
    // The other clients read what the library writes, attribute for attribute: a table shared
    // with them is written without the library's write history (`Table::without_write_tokens`).
    let table = Table::new(server.client(), unique_table_name(test));
    table.create_table_from(layout).await.expect("the table is created");
    (table.without_write_tokens(), server.endpoint())
}

/// The seed write-up 004, as its JavaScript writes it.
mod seed004 {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER#<id>",
        table = MainTable, rename_all = "camelCase"
    )]
    pub struct User {
        /// Only in the keys, as the write-up's `createUser` writes it (no `id` attribute); the
        /// e-mail is in GSI1PK and an attribute of its own.
        #[entity(key_fields = "keys")]
        pub id: String,
        pub name: String,
        pub email: String,
        pub created_at: Timestamp,
        pub order_count: u32,
        pub entity_type: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "ORDER#<id>", sk = "DETAILS", table = MainTable, rename_all = "camelCase", key_fields = "keys")]
    pub struct Order {
        pub id: String,
        pub user_id: String,
        /// A JavaScript number such as 11.99.
        pub total: f64,
        pub status: String,
        pub entity_type: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER#<user_id>", sk = "ORDER#<day>#<order_id>",
        table = MainTable, rename_all = "camelCase", key_fields = "keys"
    )]
    pub struct UserOrder {
        pub user_id: String,
        pub day: String,
        pub order_id: String,
        pub status: String,
        pub total: f64,
        pub entity_type: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "PRODUCT#<id>", sk = "DETAILS", table = MainTable, key_fields = "keys")]
    pub struct Product {
        pub id: String,
        pub name: String,
        pub price: f64,
    }

    /// The write-up's table: its items carry `entityType` on users and orders only, so the
    /// key templates tell the entities apart (`entity_type = none`); `entityType` is a field.
    #[derive(TableDef)]
    #[table(entities(User, Order, UserOrder, Product), entity_type = none, gsi1, item(derive(Debug, Clone, PartialEq)))]
    pub struct MainTable;

    pub const STATUSES: [&str; 3] = ["pending", "shipped", "delivered"];

    pub fn orders_of(i: usize) -> usize {
        if i == 0 { 45 } else { 12 }
    }

    pub fn user(i: usize) -> User {
        User {
            id: format!("user{i}"),
            name: format!("User {i}"),
            email: format!("user{i}@example.com"),
            created_at: Timestamp::parse(&format!("2026-01-{:02}T12:00:00.000Z", i + 1)).unwrap(),
            order_count: orders_of(i) as u32,
            entity_type: "USER".into(),
        }
    }

    pub fn order(i: usize, j: usize) -> (Order, UserOrder) {
        let (id, total, status) = (format!("o{i}x{j}"), j as f64 + 1.99, STATUSES[j % 3].to_owned());
        let order = Order {
            id: id.clone(),
            user_id: format!("user{i}"),
            total,
            status: status.clone(),
            entity_type: "ORDER".into(),
        };
        let line = UserOrder {
            user_id: format!("user{i}"),
            day: format!("2026-05-{:02}", j % 28 + 1),
            order_id: id,
            status,
            total,
            entity_type: "ORDER".into(),
        };
        (order, line)
    }

    pub fn product(k: usize) -> Product {
        Product { id: format!("prod{k}"), name: format!("Product {k}"), price: 79.99 + k as f64 }
    }
}

#[tokio::test]
async fn seed004_written_by_the_javascript_sdk_reads_back() {
    use seed004::*;
    let (table, endpoint) = create("interop_js004", &MainTable::layout().unwrap()).await;
    run("node", "seed004.cjs", &["write", table.name()], endpoint);

    // Gets: every item of every entity.
    let mut expected_items = Vec::new();
    for i in 0..5 {
        let u = user(i);
        assert_eq!(table.get_consistent(User::key(&u.id)).await.unwrap().as_ref(), Some(&u));
        // Login by e-mail through GSI1.
        assert_eq!(table.query(User::gsi1(&u.email)).all().await.unwrap(), vec![u.clone()]);
        expected_items.push(MainTableItem::User(u));
        for j in 0..orders_of(i) {
            let (o, l) = order(i, j);
            assert_eq!(table.get_consistent(Order::key(&o.id)).await.unwrap().as_ref(), Some(&o));
            let key = UserOrder::key(&l.user_id, &l.day, &l.order_id);
            assert_eq!(table.get_consistent(key).await.unwrap().as_ref(), Some(&l));
            expected_items.push(MainTableItem::Order(o));
            expected_items.push(MainTableItem::UserOrder(l));
        }
    }
    for k in 0..3 {
        assert_eq!(table.get_consistent(Product::key(&format!("prod{k}"))).await.unwrap(), Some(product(k)));
        expected_items.push(MainTableItem::Product(product(k)));
    }
    assert_eq!(expected_items.len(), 194);

    // A user's orders newest first, 20 a page, with cursors.
    let mut lines: Vec<UserOrder> = (0..45).map(|j| order(0, j).1).collect();
    lines.sort_by(|a, b| (&b.day, &b.order_id).cmp(&(&a.day, &a.order_id)));
    let mut pages = Vec::new();
    let mut cursor = None;
    loop {
        let page =
            table.query(UserOrder::query("user0")).descending().page_items(20).after(cursor).send().await.unwrap();
        pages.push(page.items);
        cursor = page.cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(pages.iter().map(Vec::len).collect::<Vec<_>>(), [20, 20, 5]);
    assert_eq!(pages.concat(), lines);

    // Every item of the table, decoded by its keys through the item enum.
    let scanned = common::scan_all(&table).await;
    assert_eq!(scanned.len(), 194);
    let mut decoded: Vec<String> =
        scanned.iter().map(|i| format!("{:?}", MainTableItem::decode(i).unwrap().expect("a known item"))).collect();
    let mut expected: Vec<String> = expected_items.iter().map(|i| format!("{i:?}")).collect();
    decoded.sort();
    expected.sort();
    assert_eq!(decoded, expected);

    // Written again by the library into a table of its own, every item is the JavaScript's,
    // attribute for attribute (the user without an `id` attribute, the orders' ids only in
    // their keys).
    let (copy, _) = create("interop_js004_copy", &MainTable::layout().unwrap()).await;
    for item in &expected_items {
        match item {
            MainTableItem::User(u) => copy.put(u).await.unwrap(),
            MainTableItem::Order(o) => copy.put(o).await.unwrap(),
            MainTableItem::UserOrder(l) => copy.put(l).await.unwrap(),
            MainTableItem::Product(p) => copy.put(p).await.unwrap(),
        }
    }
    let by_key = |mut items: Vec<dynamo_entity::Item>| {
        items.sort_by_key(|i| format!("{:?} {:?}", i.get("PK"), i.get("SK")));
        items
    };
    let (theirs, ours) = (by_key(scanned), by_key(common::scan_all(&copy).await));
    assert_eq!(ours.len(), 194);
    for (theirs, ours) in theirs.iter().zip(&ours) {
        assert_eq!(ours, theirs);
    }
}

#[tokio::test]
async fn seed004_written_by_rust_reads_in_javascript() {
    use seed004::*;
    let (table, endpoint) = create("interop_rust004", &MainTable::layout().unwrap()).await;
    let u = User { id: "user9".into(), order_count: 2, ..user(8) };
    table.create(&u).await.unwrap();
    for j in [3, 30] {
        let (o, l) = order(9, j);
        table.create(&o).await.unwrap();
        table.create(&l).await.unwrap();
    }
    table.create(&product(7)).await.unwrap();

    let seen = node("seed004.cjs", &["read", table.name(), "user9"], endpoint);
    let s = |v: &str| json!(["string", v]);
    let num = |v: f64| json!(["number", v]);
    let user_seen = json!(["Object", {
        "GSI1PK": s("EMAIL#user8@example.com"),
        "GSI1SK": s("USER#user9"),
        "PK": s("USER#user9"),
        "SK": s("PROFILE"),
        "createdAt": s("2026-01-09T12:00:00.000Z"),
        "email": s("user8@example.com"),
        "entityType": s("USER"),
        "name": s("User 8"),
        "orderCount": ["number", 2],
    }]);
    let line = |day: &str, id: &str, status: &str, total: f64| {
        json!(["Object", {
            "PK": s("USER#user9"),
            "SK": s(&format!("ORDER#{day}#{id}")),
            "entityType": s("ORDER"),
            "status": s(status),
            "total": num(total),
        }])
    };
    assert_eq!(
        seen,
        json!(["Object", {
            "byEmail": user_seen,
            "nextKey": ["null", null],
            "orders": ["Array", [
                line("2026-05-04", "o9x3", "pending", 3.0 + 1.99),
                line("2026-05-03", "o9x30", "pending", 30.0 + 1.99),
            ]],
            "user": user_seen,
        }])
    );
}

/// The seed write-up 002 (VaultCommerce), as its Python writes it.
mod seed002 {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<id>", sk = "PROFILE", table = VaultCommerce, key_fields = "keys")]
    pub struct Profile {
        /// `USER#42`: an unpadded number, read as text.
        pub id: String,
        pub email: String,
        pub tier: String,
    }

    /// Two shapes in the write-up: `total` + `status`, or the `put_item` with `GSI1PK =
    /// STATUS#<status>`, `GSI1SK = created_at`, `customerName` and no `status` attribute.
    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER#<user_id>", sk = "ORDER#<order_id>", gsi1 = "STATUS#<status>", gsi1_sk = "<created_at>",
        table = VaultCommerce, rename_all = "camelCase", key_fields = "keys"
    )]
    pub struct Order {
        pub user_id: String,
        pub order_id: String,
        pub status: String,
        /// Python's `isoformat()` with `+00:00`: a string until `Timestamp` reads that form.
        pub created_at: Option<String>,
        pub customer_name: Option<String>,
        pub total: f64,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "WISHLIST#<sku>", table = VaultCommerce, rename_all = "camelCase", key_fields = "keys")]
    pub struct Wish {
        pub user_id: String,
        pub sku: String,
        /// A date (`2026-04-01`).
        pub added_at: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "PRODUCT#<sku>", sk = "METADATA", table = VaultCommerce, key_fields = "keys")]
    pub struct Product {
        pub sku: String,
        pub title: String,
        pub price: u32,
    }

    /// No type attribute in the write-up's items (`entityType` is "optional").
    #[derive(TableDef)]
    #[table(entities(Profile, Order, Wish, Product), entity_type = none, gsi1, item(derive(Debug, Clone, PartialEq)))]
    pub struct VaultCommerce;

    pub const USERS: [&str; 3] = ["42", "43", "44"];

    pub fn profile(i: usize) -> Profile {
        let id = USERS[i];
        Profile { id: id.into(), email: format!("user{id}@vault.test"), tier: ["GOLD", "SILVER", "GOLD"][i].into() }
    }

    pub fn orders_of(user: &str) -> usize {
        if user == "42" { 25 } else { 6 }
    }

    pub fn order(user: &str, j: usize) -> Order {
        let odd = j % 2 == 1;
        Order {
            user_id: user.into(),
            order_id: format!("2026-{j:04}"),
            status: if j % 4 < 2 { "PAID" } else { "SHIPPED" }.into(),
            created_at: odd.then(|| format!("2026-04-{:02}T10:00:00+00:00", j % 28 + 1)),
            customer_name: odd.then(|| format!("Customer {user}")),
            total: format!("{}.99", j + 100).parse().unwrap(),
        }
    }

    pub fn wish(user: &str, k: usize) -> Wish {
        Wish { user_id: user.into(), sku: format!("SKU-884{k}"), added_at: format!("2026-04-0{}", k + 1) }
    }

    pub fn product(k: usize) -> Product {
        Product { sku: format!("SKU-884{k}"), title: format!("Product {k}"), price: 89 + k as u32 }
    }
}

#[tokio::test]
async fn seed002_written_by_boto3_reads_back() {
    use seed002::*;
    let (table, endpoint) = create("interop_py002", &VaultCommerce::layout().unwrap()).await;
    run(&clients().python, "seed002.py", &["write", table.name()], endpoint);

    let mut expected = Vec::new();
    for (i, &uid) in USERS.iter().enumerate() {
        assert_eq!(table.get_consistent(Profile::key(uid)).await.unwrap(), Some(profile(i)));
        expected.push(VaultCommerceItem::Profile(profile(i)));
        for j in 0..orders_of(uid) {
            let o = order(uid, j);
            assert_eq!(table.get_consistent(Order::key(uid, &o.order_id)).await.unwrap().as_ref(), Some(&o));
            expected.push(VaultCommerceItem::Order(o));
        }
        for k in 0..2 {
            assert_eq!(table.get_consistent(Wish::key(uid, &wish(uid, k).sku)).await.unwrap(), Some(wish(uid, k)));
            expected.push(VaultCommerceItem::Wish(wish(uid, k)));
        }
    }
    for k in 0..4 {
        assert_eq!(table.get_consistent(Product::key(&product(k).sku)).await.unwrap(), Some(product(k)));
        expected.push(VaultCommerceItem::Product(product(k)));
    }
    assert_eq!(expected.len(), 50);

    // User 42's orders, 20 a page: the query reads only orders (`begins_with(SK, "ORDER#")`).
    let first = table.query(Order::query("42")).page_items(20).send().await.unwrap();
    let second = table.query(Order::query("42")).page_items(20).after(first.cursor.clone()).send().await.unwrap();
    let all: Vec<Order> = (0..25).map(|j| order("42", j)).collect();
    assert_eq!((first.items.as_slice(), second.items.as_slice(), second.cursor), (&all[..20], &all[20..], None));

    // Paid orders through GSI1, by created_at; only the put_item shape is in the index.
    let paid = table.query(Order::gsi1("PAID")).all().await.unwrap();
    let mut want: Vec<Order> = USERS
        .iter()
        .flat_map(|&u| (0..orders_of(u)).map(move |j| order(u, j)))
        .filter(|o| o.created_at.is_some() && o.status == "PAID")
        .collect();
    want.sort_by(|a, b| (&a.created_at, &a.user_id, &a.order_id).cmp(&(&b.created_at, &b.user_id, &b.order_id)));
    let mut got = paid.clone();
    got.sort_by(|a, b| (&a.created_at, &a.user_id, &a.order_id).cmp(&(&b.created_at, &b.user_id, &b.order_id)));
    assert_eq!(got, want);
    assert!(paid.windows(2).all(|w| w[0].created_at <= w[1].created_at), "GSI1 is in created_at order");

    let scanned = common::scan_all(&table).await;
    assert_eq!(scanned.len(), 50);
    let mut decoded: Vec<String> =
        scanned.iter().map(|i| format!("{:?}", VaultCommerceItem::decode(i).unwrap().expect("a known item"))).collect();
    let mut expected: Vec<String> = expected.iter().map(|i| format!("{i:?}")).collect();
    decoded.sort();
    expected.sort();
    assert_eq!(decoded, expected);
}

#[tokio::test]
async fn seed002_written_by_rust_reads_in_python() {
    use seed002::*;
    let (table, endpoint) = create("interop_rust002", &VaultCommerce::layout().unwrap()).await;
    table.create(&Profile { id: "99".into(), ..profile(0) }).await.unwrap();
    table.create(&order("99", 0)).await.unwrap();
    table.create(&order("99", 1)).await.unwrap();
    table.create(&wish("99", 0)).await.unwrap();

    let seen = python("seed002.py", &["read", table.name(), "99"], endpoint);
    let s = |v: &str| json!(["str", v]);
    let d = |v: &str| json!(["Decimal", v]);
    assert_eq!(
        seen,
        json!(["dict", {
            "orders": ["list", [
                ["dict", {"PK": s("USER#99"), "SK": s("ORDER#2026-0000"), "status": s("PAID"), "total": d("100.99")}],
                ["dict", {
                    "GSI1PK": s("STATUS#PAID"),
                    "GSI1SK": s("2026-04-02T10:00:00+00:00"),
                    "PK": s("USER#99"),
                    "SK": s("ORDER#2026-0001"),
                    "customerName": s("Customer 99"),
                    // A `status` attribute too: GSI1 is sparse (created_at is an Option), so
                    // only the attribute always holds it.
                    "status": s("PAID"),
                    "total": d("101.99"),
                }],
            ]],
            "profile": ["dict", {"PK": s("USER#99"), "SK": s("PROFILE"), "email": s("user42@vault.test"), "tier": s("GOLD")}],
        }])
    );
}

/// A table written by DynamoDB Toolbox v2 with its defaults (`tests/interop/toolbox.cjs`).
mod toolbox {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "PROFILE", name = "USER", table = Toolbox, rename_all = "camelCase")]
    pub struct User {
        pub user_id: String,
        pub name: String,
        pub age: u32,
        pub tags: BTreeSet<String>,
        /// Toolbox's creation time, `_ct`.
        #[entity(rename = "_ct")]
        pub created: Timestamp,
        /// Toolbox's last-modified time, `_md`.
        #[entity(rename = "_md")]
        pub modified: Timestamp,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<user_id>", sk = "SESSION#<session_id>", name = "SESSION", table = Toolbox, rename_all = "camelCase")]
    pub struct Session {
        pub user_id: String,
        pub session_id: String,
        pub device: String,
        #[entity(rename = "_ct")]
        pub created: Timestamp,
        #[entity(rename = "_md")]
        pub modified: Timestamp,
    }

    /// Toolbox's entity attribute is `_et`.
    #[derive(TableDef)]
    #[table(entities(User, Session), entity_type = "_et", item(derive(Debug, Clone, PartialEq)))]
    pub struct Toolbox;
}

#[tokio::test]
async fn a_dynamodb_toolbox_v2_table_reads_back() {
    use toolbox::*;
    let (table, endpoint) = create("interop_toolbox", &Toolbox::layout().unwrap()).await;
    let before = Timestamp::now();
    run("node", "toolbox.cjs", &["write", table.name()], endpoint);
    let after = Timestamp::now();
    let written = |t: &Timestamp| {
        // Toolbox writes milliseconds; `before` may be later within its millisecond.
        t.as_millis() + 1 >= before.as_millis() && *t <= after
    };
    for i in 0..3u32 {
        let id = format!("u{i}");
        let user = table.get_consistent(User::key(&id)).await.unwrap().expect("the user");
        assert_eq!(
            (user.user_id.as_str(), user.name.as_str(), user.age, &user.tags),
            (id.as_str(), format!("User {i}").as_str(), 30 + i, &BTreeSet::from(["a".to_owned(), format!("b{i}")]))
        );
        assert!(written(&user.created) && written(&user.modified) && user.created <= user.modified, "{user:?}");
        // The user's partition: the profile and i + 1 sessions, each decoded by `_et`.
        let items: Vec<ToolboxItem> =
            table.collection(User::query(&id)).consistent_read().send().await.unwrap().decode_each().unwrap();
        assert_eq!(items.len(), i as usize + 2);
        let sessions: Vec<(String, String)> = items
            .iter()
            .filter_map(|item| match item {
                ToolboxItem::Session(s) => {
                    assert!(written(&s.created), "{s:?}");
                    Some((s.session_id.clone(), s.device.clone()))
                }
                ToolboxItem::User(u) => {
                    assert_eq!(u, &user);
                    None
                }
            })
            .collect();
        let want: Vec<(String, String)> =
            (0..=i).map(|k| (format!("s{k}"), if k % 2 == 1 { "phone" } else { "laptop" }.to_owned())).collect();
        assert_eq!(sessions, want);
    }
}

/// A table written by ElectroDB 3 with its default key format (`tests/interop/electrodb.cjs`):
/// `$service#field_value` partition keys, `$entity_version#field_value...` sort keys, the whole
/// key lowercased, values never escaped, numbers unpadded, `__edb_e__` / `__edb_v__` attributes.
mod electro {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "$app#userid_<user_id>", sk = "$user_1",
        gsi1 = "$app#email_<email>", gsi1_sk = "$user_1#userid_<user_id>",
        name = "user", table = Electro, rename_all = "camelCase", key_case = "lower", key_values = "verbatim",
        constant(__edb_v__ = "1"), // ElectroDB's model version, which its reads check
    )]
    pub struct User {
        pub user_id: String,
        pub name: String,
        pub email: String,
        pub visits: u32,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "$app#userid_<user_id>", sk = "$order_1#orderid_<order_id>#line_<line:raw>",
        name = "order", table = Electro, rename_all = "camelCase", key_case = "lower", key_values = "verbatim",
        constant(__edb_v__ = "1")
    )]
    pub struct Order {
        pub user_id: String,
        pub order_id: String,
        pub line: u32,
        pub total: f64,
    }

    /// ElectroDB's entity attribute is `__edb_e__`.
    #[derive(TableDef)]
    #[table(entities(User, Order), entity_type = "__edb_e__", gsi1, item(derive(Debug, Clone, PartialEq)))]
    pub struct Electro;
}

#[tokio::test]
async fn an_electrodb_3_table_reads_back_and_electrodb_reads_ours() {
    use electro::*;
    let (table, endpoint) = create("interop_electrodb", &Electro::layout().unwrap()).await;
    run("node", "electrodb.cjs", &["write", table.name()], endpoint);

    // The keys as ElectroDB wrote them.
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", av("$app#userid_ann"))
        .key("SK", av("$order_1#orderid_o-1#line_10"))
        .send()
        .await
        .unwrap();
    let raw = raw.item.expect("ElectroDB's order item");
    assert_eq!(raw.get("__edb_e__"), Some(&av("order")));

    let ann = User { user_id: "Ann".into(), name: "Ann Lee".into(), email: "Ann@Example.com".into(), visits: 3 };
    // A get: the key is folded as ElectroDB folds it, whatever the case of the id given.
    assert_eq!(table.get_consistent(User::key("Ann")).await.unwrap(), Some(ann.clone()));
    assert_eq!(table.get_consistent(User::key("ANN")).await.unwrap(), Some(ann.clone()));
    let order =
        |order_id: &str, line: u32, total: f64| Order { user_id: "Ann".into(), order_id: order_id.into(), line, total };
    assert_eq!(table.get_consistent(Order::key("Ann", "O-1", &10)).await.unwrap(), Some(order("O-1", 10, 5.0)));

    // The user's item collection, in sort key order: unpadded `line_10` sorts before `line_2`.
    let items: Vec<ElectroItem> =
        table.collection(User::query("Ann")).consistent_read().send().await.unwrap().decode_each().unwrap();
    assert_eq!(
        items,
        vec![
            ElectroItem::Order(order("O-1", 10, 5.0)),
            ElectroItem::Order(order("O-1", 2, 11.99)),
            ElectroItem::Order(order("O-2", 1, 0.5)),
            ElectroItem::User(ann.clone()),
        ]
    );
    // The orders of one order id: `begins_with(SK, "$order_1#orderid_o-1#")`.
    let o1 = table.query(Order::query("Ann")).sk_begins_with(("O-1",)).all().await.unwrap();
    assert_eq!(o1, vec![order("O-1", 10, 5.0), order("O-1", 2, 11.99)]);
    // A range over an unpadded integer would compare text: refused before sending.
    let err = table.query(Order::query("Ann")).sk_gt(("O-1", &3)).all().await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "invalid request: a sort-key range (>) over `line` of `$order_1#orderid_<order_id>#line_<line:raw>`: the part \
         is written without zero padding (`<line:raw>`), so string order is not numeric order and the range would \
         return the wrong items"
    );
    // The GSI: by email, folded.
    let by_email = table.query(User::gsi1("ann@example.com")).all().await.unwrap();
    assert_eq!(by_email, vec![ann.clone()]);
    let bob = table.query(User::gsi1("BOB@example.com")).all().await.unwrap();
    assert_eq!(bob.iter().map(|u| u.user_id.as_str()).collect::<Vec<_>>(), ["bob"]);

    // A value holding the delimiter cannot be written verbatim: refused before sending.
    let mut bad = ann.clone();
    bad.user_id = "a#b".into();
    let err = table.put(&bad).await.unwrap_err();
    assert_eq!(err.to_string(), table.put(&bad).await.unwrap_err().to_string(), "the same typed error every time");
    assert!(err.to_string().contains("`a#b` holds the delimiter `#`, which this entity's keys do not escape"), "{err}");

    // The reverse: the Rust side writes, ElectroDB's get, query and GSI query return the items.
    let cara = User { user_id: "Cara".into(), name: "Cara Diaz".into(), email: "Cara@Example.com".into(), visits: 7 };
    table.put(&cara).await.unwrap();
    for (order_id, line, total) in [("X-9", 3, 2.25), ("X-9", 12, 100.0)] {
        let o = Order { user_id: "Cara".into(), order_id: order_id.into(), line, total };
        table.put(&o).await.unwrap();
    }
    let seen = node("electrodb.cjs", &["read", table.name(), "Cara"], endpoint);
    let s = |v: &str| json!(["string", v]);
    let n = |v: Value| json!(["number", v]);
    let user_seen = json!(["Object", {
        "email": s("Cara@Example.com"), "name": s("Cara Diaz"), "userId": s("Cara"), "visits": n(json!(7))
    }]);
    let order_seen = |line: u32, total: Value| json!(["Object", { "line": n(json!(line)), "orderId": s("X-9"), "total": n(total), "userId": s("Cara") }]);
    assert_eq!(
        seen,
        json!(["Object", {
            "user": user_seen,
            "orders": ["Array", [order_seen(12, json!(100)), order_seen(3, json!(2.25))]],
            "byEmail": ["Array", [user_seen]],
        }])
    );
    // The keys the Rust side wrote are ElectroDB's, byte for byte.
    let raw = table
        .client()
        .get_item()
        .table_name(table.name())
        .key("PK", av("$app#userid_cara"))
        .key("SK", av("$user_1"))
        .send()
        .await
        .unwrap()
        .item
        .expect("the user item");
    assert_eq!(
        (raw.get("GSI1PK"), raw.get("GSI1SK"), raw.get("__edb_e__"), raw.get("__edb_v__")),
        (Some(&av("$app#email_cara@example.com")), Some(&av("$user_1#userid_cara")), Some(&av("user")), Some(&av("1")))
    );
    // Every attribute the Rust side wrote: the fields, the keys, the type and the constant.
    let mut names: Vec<&str> = raw.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["GSI1PK", "GSI1SK", "PK", "SK", "__edb_e__", "__edb_v__", "email", "name", "userId", "visits"]);

    // The constant is checked on read: an item of another model version does not decode.
    let mut v2 = raw.clone();
    v2.insert("__edb_v__".into(), av("2"));
    table.client().put_item().table_name(table.name()).set_item(Some(v2)).send().await.unwrap();
    let err = table.get_consistent(User::key("Cara")).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot decode User (type user) PK=$app#userid_cara SK=$user_1: attribute `__edb_v__`: the constant attribute holds \"2\", \
         expected \"1\""
    );
    let mut unversioned = raw.clone();
    unversioned.remove("__edb_v__");
    table.client().put_item().table_name(table.name()).set_item(Some(unversioned)).send().await.unwrap();
    match table.get_consistent(User::key("Cara")).await {
        Err(dynamo_entity::Error::Decode { entity: "User (type user)", attribute: "__edb_v__", source, .. }) => {
            assert_eq!(source, dynamo_entity::value::ValueError::Missing);
        }
        other => panic!("expected a decode error of __edb_v__, got {other:?}"),
    }
}

fn av(s: &str) -> aws_sdk_dynamodb::types::AttributeValue {
    aws_sdk_dynamodb::types::AttributeValue::S(s.to_owned())
}

/// The seed write-up 002 as its Python writes it, with the user ids declared as the numbers they
/// are (`USER#42`): `<id:raw>` writes and reads an integer without zero padding.
mod seed002_numeric {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "USER#<id:raw>", sk = "PROFILE", table = NumericVault, key_fields = "keys")]
    pub struct Profile {
        pub id: u64,
        pub email: String,
        pub tier: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER#<user_id:raw>", sk = "ORDER#<order_id>", table = NumericVault, rename_all = "camelCase",
        key_fields = "keys"
    )]
    pub struct Order {
        pub user_id: u64,
        pub order_id: String,
        pub status: Option<String>,
        pub total: f64,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(pk = "PRODUCT#<sku>", sk = "METADATA", table = NumericVault, key_fields = "keys")]
    pub struct Product {
        pub sku: String,
        pub title: String,
        /// A Python `int`, stored as a number (N).
        pub price: u32,
    }

    #[derive(TableDef)]
    #[table(entities(Profile, Order, Product), entity_type = none, gsi1)]
    pub struct NumericVault;
}

#[tokio::test]
async fn seed002_numeric_ids_read_and_write_as_python_does() {
    use seed002_numeric::*;
    let (table, endpoint) = create("interop_numeric002", &NumericVault::layout().unwrap()).await;
    run(&clients().python, "seed002.py", &["write", table.name()], endpoint);
    for (i, id) in [42u64, 43, 44].into_iter().enumerate() {
        let profile = table.get_consistent(Profile::key(&id)).await.unwrap();
        let tier = ["GOLD", "SILVER", "GOLD"][i];
        assert_eq!(profile, Some(Profile { id, email: format!("user{id}@vault.test"), tier: tier.into() }));
        let orders = table.query(Order::query(&id)).consistent_read().all().await.unwrap();
        assert_eq!(orders.len(), if id == 42 { 25 } else { 6 });
        assert!(orders.iter().all(|o| o.user_id == id), "{orders:?}");
        let first = Order { user_id: id, order_id: "2026-0000".into(), status: Some("PAID".into()), total: 100.99 };
        assert_eq!(orders[0], first);
        assert_eq!(orders[1].status, None, "the second shape has no status attribute");
    }
    assert_eq!(
        table.get_consistent(Product::key("SKU-8843")).await.unwrap(),
        Some(Product { sku: "SKU-8843".into(), title: "Product 3".into(), price: 92 })
    );
    // A padded key would be `USER#00000000000000000042`: no such item.
    let raw = table.client().get_item().table_name(table.name()).key("PK", av("USER#42")).key("SK", av("PROFILE"));
    assert!(raw.send().await.unwrap().item.is_some());

    // The reverse: Python reads what the Rust side writes under a numeric id.
    table.create(&Profile { id: 7, email: "seven@vault.test".into(), tier: "GOLD".into() }).await.unwrap();
    table
        .create(&Order { user_id: 7, order_id: "2026-0100".into(), status: Some("PAID".into()), total: 5.5 })
        .await
        .unwrap();
    let seen = python("seed002.py", &["read", table.name(), "7"], endpoint);
    let s = |v: &str| json!(["str", v]);
    assert_eq!(
        seen,
        json!(["dict", {
            "orders": ["list", [
                ["dict", {"PK": s("USER#7"), "SK": s("ORDER#2026-0100"), "status": s("PAID"), "total": json!(["Decimal", "5.5"])}],
            ]],
            "profile": ["dict", {"PK": s("USER#7"), "SK": s("PROFILE"), "email": s("seven@vault.test"), "tier": s("GOLD")}],
        }])
    );
}

/// A table whose keys use `|` as their delimiter, written by the AWS SDK for JavaScript v3
/// (`tests/interop/pipes.cjs`): ids only inside the keys, values never escaped.
mod pipes {
    use super::*;

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER|<id>", sk = "PROFILE", table = Pipes,
        delimiter = "|", key_values = "verbatim", key_fields = "keys"
    )]
    pub struct User {
        pub id: String,
        pub name: String,
        pub email: String,
    }

    #[derive(Entity, Debug, Clone, PartialEq)]
    #[entity(
        pk = "USER|<user_id>", sk = "ORDER|<day>|<order_id>", table = Pipes,
        delimiter = "|", key_values = "verbatim", key_fields = "keys"
    )]
    pub struct Order {
        pub user_id: String,
        pub day: String,
        pub order_id: String,
        pub total: f64,
        pub status: String,
    }

    /// No type attribute: the JavaScript writer stores none.
    #[derive(TableDef)]
    #[table(entities(User, Order), entity_type = none, item(derive(Debug, Clone, PartialEq)))]
    pub struct Pipes;
}

#[tokio::test]
async fn a_table_with_pipe_delimited_keys_reads_back_and_javascript_reads_ours() {
    use dynamo_entity::key::{KeyError, KeyPartError};
    use pipes::*;
    let (table, endpoint) = create("interop_pipes", &Pipes::layout().unwrap()).await;
    run("node", "pipes.cjs", &["write", table.name()], endpoint);

    let user = |id: &str, name: &str, email: &str| User { id: id.into(), name: name.into(), email: email.into() };
    let order = |day: &str, order_id: &str, total: f64, status: &str| Order {
        user_id: "u1".into(),
        day: day.into(),
        order_id: order_id.into(),
        total,
        status: status.into(),
    };
    // Gets: the key fields come from the keys, split at `|`; a `#` is plain text.
    assert_eq!(table.get_consistent(User::key("u1")).await.unwrap(), Some(user("u1", "Ann", "ann@example.com")));
    assert_eq!(
        table.get_consistent(User::key("team#7")).await.unwrap(),
        Some(user("team#7", "Team 7", "team7@example.com"))
    );
    assert_eq!(
        table.get_consistent(Order::key("u1", "2026-05-02", "A-2")).await.unwrap(),
        Some(order("2026-05-02", "A-2", 7.25, "shipped"))
    );
    // The user's orders, in sort key order (`2026-05-010|` sorts before `2026-05-01|`).
    let all = table.query(Order::query("u1")).consistent_read().all().await.unwrap();
    assert_eq!(
        all,
        vec![
            order("2026-05-010", "C-1", 1.0, "paid"),
            order("2026-05-01", "A-1", 12.5, "paid"),
            order("2026-05-01", "A-10", 3.0, "paid"),
            order("2026-05-02", "A-2", 7.25, "shipped"),
            order("2026-06-01", "B-1", 99.99, "shipped"),
        ]
    );
    // `begins_with(SK, "ORDER|2026-05-01|")`: the prefix ends at the delimiter, so the day
    // `2026-05-010` is not among them.
    let day = table.query(Order::query("u1")).consistent_read().sk_begins_with(("2026-05-01",)).all().await.unwrap();
    assert_eq!(day, vec![order("2026-05-01", "A-1", 12.5, "paid"), order("2026-05-01", "A-10", 3.0, "paid")]);
    // A range of days: from `ORDER|2026-05-01|` to `ORDER|2026-05-02}` (`}` follows `|`).
    let range = table
        .query(Order::query("u1"))
        .consistent_read()
        .sk_between(("2026-05-01",), ("2026-05-02",))
        .all()
        .await
        .unwrap();
    assert_eq!(
        range,
        vec![
            order("2026-05-01", "A-1", 12.5, "paid"),
            order("2026-05-01", "A-10", 3.0, "paid"),
            order("2026-05-02", "A-2", 7.25, "shipped"),
        ]
    );
    // Every item of the table through the item enum, told apart by key shape.
    let mut items = table.scan_table::<PipesItem>().consistent_read().all().await.unwrap();
    items.sort_by_key(|i| format!("{i:?}"));
    assert_eq!(items.iter().filter(|i| matches!(i, PipesItem::User(_))).count(), 2);
    assert_eq!(items.iter().filter(|i| matches!(i, PipesItem::Order(_))).count(), 5);

    // A value holding `|` would change the key's structure: refused, typed, before sending.
    let mut bad = order("2026-07-01", "x|y", 1.0, "paid");
    let refused = |e: dynamo_entity::Error| match e {
        dynamo_entity::Error::Key(KeyError::Part { entity, attribute, field, reason, .. }) => {
            (entity, attribute, field, reason)
        }
        other => panic!("expected a key part error, got {other:?}"),
    };
    assert_eq!(
        refused(table.put(&bad).await.unwrap_err()),
        ("Order", "SK", "order_id", KeyPartError::Delimiter { text: "x|y".into(), delimiter: '|' })
    );
    assert_eq!(
        table.put(&bad).await.unwrap_err().to_string(),
        "Order.order_id cannot be a part of SK (`ORDER|<day>|<order_id>`): `x|y` holds the delimiter `|`, which this \
         entity's keys do not escape"
    );
    bad.order_id = "x".into();
    bad.user_id = "a|b".into();
    assert_eq!(
        refused(table.put(&bad).await.unwrap_err()),
        ("Order", "PK", "user_id", KeyPartError::Delimiter { text: "a|b".into(), delimiter: '|' })
    );
    assert_eq!(
        refused(table.query(Order::query("a|b")).all().await.unwrap_err()),
        ("Order", "PK", "user_id", KeyPartError::Delimiter { text: "a|b".into(), delimiter: '|' })
    );
    assert_eq!(common::scan_all(&table).await.len(), 7, "nothing was written");

    // The reverse: the Rust side writes, the JavaScript reader sees `|` keys and no id attributes.
    table.put(&User { id: "u9".into(), name: "Zed".into(), email: "zed@example.com".into() }).await.unwrap();
    for (day, id, total) in [("2026-07-04", "Z-1", 5.5), ("2026-07-04", "Z#2", 20.0)] {
        let o = Order { user_id: "u9".into(), day: day.into(), order_id: id.into(), total, status: "paid".into() };
        table.put(&o).await.unwrap();
    }
    let seen = node("pipes.cjs", &["read", table.name(), "u9"], endpoint);
    let s = |v: &str| json!(["string", v]);
    let n = |v: Value| json!(["number", v]);
    let order_seen = |sk: &str, total: Value| json!(["Object", { "PK": s("USER|u9"), "SK": s(sk), "status": s("paid"), "total": n(total) }]);
    assert_eq!(
        seen,
        json!(["Object", {
            "profile": ["Object", { "PK": s("USER|u9"), "SK": s("PROFILE"), "email": s("zed@example.com"), "name": s("Zed") }],
            "orders": ["Array", [order_seen("ORDER|2026-07-04|Z#2", json!(20)), order_seen("ORDER|2026-07-04|Z-1", json!(5.5))]],
        }])
    );
}

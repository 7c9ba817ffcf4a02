//! A table declaration: entities sharing item collections and GSIs, projections, declared key
//! types, the generated enum with extra derives.

use dynamo_entity::schema::{GsiDecl, Projection};
use dynamo_entity::key::KeyType;
use dynamo_entity::{Entity, Index, TableDef};

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "LEADERBOARD", gsi1_sk = "<sales>")]
pub struct User {
    pub id: String,
    pub sales: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "BADGE#<badge>")]
pub struct Badge {
    pub user_id: String,
    pub badge: String,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<order_id>", gsi2 = "ORDERS", gsi2_sk = "<order_id>")]
pub struct Order {
    pub user_id: String,
    pub order_id: u32,
    #[entity(rename = "totalCents")]
    pub total_cents: u64,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDERLINE#<order_id>#<line>")]
pub struct Line {
    pub user_id: String,
    pub order_id: u32,
    pub line: u32,
}

#[derive(TableDef)]
#[table(
    entities(User, Badge, Order, Line),
    gsi1(projection = all, sk = N),
    gsi2(projection = include(totalCents, "user_id")),
    gsi3(projection = keys_only, pk = S, sk = N),
    item(name = AnyItem, derive(Debug, Clone, PartialEq)),
    pk = "PK",
    sk = "SK",
    type_attribute = "_type",
)]
pub struct Shop;

#[derive(TableDef)]
#[table(entities(User, Badge), gsi1)]
struct Small;

fn main() {
    assert_eq!(<Shop as TableDef>::NAME, "Shop");
    let names: Vec<&str> = Shop::ENTITIES.iter().map(|e| e.name).collect();
    assert_eq!(names, ["User", "Badge", "Order", "Line"]);
    assert_eq!(
        Shop::INDEXES,
        [
            GsiDecl { index: Index::Gsi(1), projection: Projection::All, pk: None, sk: Some(KeyType::N) },
            GsiDecl {
                index: Index::Gsi(2),
                projection: Projection::Include(&["_type", "totalCents", "user_id"]),
                pk: None,
                sk: None
            },
            GsiDecl {
                index: Index::Gsi(3),
                projection: Projection::KeysOnly,
                pk: Some(KeyType::S),
                sk: Some(KeyType::N)
            },
        ]
    );
    let layout = Shop::layout().unwrap();
    assert_eq!(layout.gsis(), [1, 2, 3]);
    assert_eq!(layout.key_type("GSI3SK"), KeyType::N);
    assert_eq!(layout.projection(Index::Gsi(3)), Projection::KeysOnly);
    let item = AnyItem::User(User { id: "u1".into(), sales: 3 });
    assert_eq!(item.clone(), item);
    assert_eq!(<Small as TableDef>::INDEXES.len(), 1);
    let _: Option<SmallItem> = None;
}

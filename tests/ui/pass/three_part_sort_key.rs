//! A three-part sort key: typed sort-key conditions take the parts in order.

use dynamo_entity::{Entity, KeyPart, Timestamp};

#[derive(KeyPart, Debug, Clone, PartialEq)]
pub struct UserId(String);

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<created_at>#<order_id>#<line>")]
pub struct OrderLine {
    pub user_id: UserId,
    pub created_at: Timestamp,
    pub order_id: String,
    pub line: u16,
    pub quantity: u32,
}

fn main() {
    let line = OrderLine {
        user_id: UserId("u#1".into()),
        created_at: Timestamp::from_millis(1_700_000_000_000).unwrap(),
        order_id: "o-9".into(),
        line: 7,
        quantity: 2,
    };
    let key = OrderLine::key(&UserId("u#1".into()), &line.created_at, "o-9", &7)
        .into_encoded()
        .unwrap();
    assert_eq!(key.pk.as_s().unwrap(), "USER#u%231");
    assert_eq!(
        key.sk.as_s().unwrap(),
        "ORDER#2023-11-14T22:13:20.000Z#o-9#00007"
    );
    assert_eq!(key, line.primary_key().unwrap());
    let _: dynamo_entity::query::QuerySpec<OrderLine, (Timestamp, String, u16)> =
        OrderLine::query(&line.user_id);
    assert!(OrderLine::CREATED_AT.part.is_some());
    let item = line.to_item().unwrap();
    assert_eq!(OrderLine::from_item(&item).unwrap(), line);
    // An empty key part is an error kept in the key, not a panic.
    assert!(
        OrderLine::key(&UserId(String::new()), &line.created_at, "o", &1)
            .into_encoded()
            .is_err()
    );
}

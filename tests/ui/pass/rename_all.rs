use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "PROFILE", rename_all = "camelCase", key_fields = "keys")]
pub struct User {
    pub user_id: String,
    pub created_at: String,
    #[entity(rename = "n")]
    pub display_name: String,
}

#[derive(Entity)]
#[entity(pk = "ITEM#<id>", sk = "X", rename_all = "SCREAMING_SNAKE_CASE")]
pub struct Item {
    pub id: String,
    pub unit_price: u32,
}

fn main() {
    assert_eq!(User::CREATED_AT.attribute, "createdAt");
    assert_eq!(User::DISPLAY_NAME.attribute, "n");
    assert_eq!(User::USER_ID.attribute, "userId");
    assert_eq!(Item::UNIT_PRICE.attribute, "UNIT_PRICE");
    let user = User { user_id: "u1".into(), created_at: "2026".into(), display_name: "Ann".into() };
    let item = dynamo_entity::Entity::to_item(&user).unwrap();
    let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(names, ["PK", "SK", "_type", "createdAt", "n"]);
    assert_eq!(<User as dynamo_entity::Entity>::from_item(&item).unwrap().user_id, "u1");
}

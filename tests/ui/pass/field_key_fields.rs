use dynamo_entity::Entity;

// The write-up 004's user: `id` only inside its keys, `email` in GSI1PK and as an attribute.
#[derive(Entity, Debug, PartialEq)]
#[entity(pk = "USER#<id>", sk = "PROFILE", gsi1 = "EMAIL#<email>", gsi1_sk = "USER#<id>")]
pub struct User {
    #[entity(key_fields = "keys")]
    pub id: String,
    pub email: String,
    pub name: String,
}

// The other way round: key fields only in keys, but `day` keeps its attribute too.
#[derive(Entity, Debug, PartialEq)]
#[entity(pk = "ORDER#<id>", sk = "DAY#<day>", key_fields = "keys")]
pub struct Order {
    pub id: String,
    #[entity(key_fields = "attributes")]
    pub day: String,
    pub total: u32,
}

fn names(item: &dynamo_entity::Item) -> Vec<&str> {
    let mut names: Vec<&str> = item.keys().map(String::as_str).collect();
    names.sort_unstable();
    names
}

fn main() {
    let user = User { id: "alice".into(), email: "alice@example.com".into(), name: "Alice".into() };
    let item = user.to_item().unwrap();
    assert_eq!(names(&item), ["GSI1PK", "GSI1SK", "PK", "SK", "_type", "email", "name"]);
    assert_eq!(User::from_item(&item).unwrap(), user);
    let order = Order { id: "o1".into(), day: "2026-05-15".into(), total: 9 };
    let item = order.to_item().unwrap();
    assert_eq!(names(&item), ["PK", "SK", "_type", "day", "total"]);
    assert_eq!(Order::from_item(&item).unwrap(), order);
}

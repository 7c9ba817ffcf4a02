use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    pub name: String,
}

async fn rename(table: &Table) {
    // A primary key field has no setter: DynamoDB cannot change an item's key.
    let _ = table.update(User::key("u1")).set(User::ID, &"u2".to_owned()).send().await;
}

fn main() {
    let _ = rename;
}

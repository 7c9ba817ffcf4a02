// The update methods name the fix when given a handle they do not write: a unique field is
// written by `set_unique`, a primary key field by writing the item under its new key, a
// maintained field by the library.
use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    #[entity(unique)]
    pub email: String,
    pub logins: u64,
    #[entity(version)]
    pub version: u64,
}

async fn edit(table: &Table) {
    let _ = table.update(User::key("u1")).set(User::EMAIL, &"a@example.test".to_owned()).send().await;
    let _ = table.update(User::key("u1")).set(User::ID, &"u2".to_owned()).send().await;
    let _ = table.update(User::key("u1")).add(User::VERSION, &1).send().await;
    // Fine: a plain field.
    let _ = table.update(User::key("u1")).add(User::LOGINS, &1).send().await;
}

fn main() {
    let _ = edit;
}

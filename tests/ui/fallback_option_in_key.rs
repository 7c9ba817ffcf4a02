// An `Option` in the primary key is one error, at the field's type: the key function, the
// queries and the field handles still exist, so their use sites report nothing more.
use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug)]
#[entity(pk = "USER#<id>", sk = "EMAIL#<email>", gsi1 = "TEAM#<team>", gsi1_sk = "<email>")]
pub struct User {
    pub id: String,
    pub email: Option<String>,
    pub team: String,
}

async fn use_it(table: &Table) {
    let _ = table.get(User::key("u1", "a@example.test")).await;
    let _ = table.query(User::query("u1")).all().await;
    let _ = table.query(User::gsi1("red")).all().await;
    let _ = table.delete(User::key("u1", "a@example.test")).await;
    let _ = table.update(User::key("u1", "a@example.test")).set(User::TEAM, &"blue".to_owned()).send().await;
}

fn main() {
    let _ = use_it;
}

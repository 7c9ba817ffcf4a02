// A unique field cannot be changed by `UpdateRequest::set`, which would bypass its guard item:
// its handle is `Field<E, T, Unique>`, which only `set_unique` takes.
use dynamo_entity::{Entity, Table};

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct User {
    id: String,
    #[entity(unique)]
    email: String,
}

fn change(table: &Table) {
    let _ = table.update(User::key("u1")).set(User::EMAIL, &"a@example.test".to_owned());
    // The guarded path compiles.
    let _ = table.update(User::key("u1")).set_unique(User::EMAIL, &"a@example.test".to_owned());
}

fn main() {}

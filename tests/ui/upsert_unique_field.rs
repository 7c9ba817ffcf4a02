// An upsert takes no unique field: the item it may create would hold a value that no guard
// item claims. `UpsertRequest` has no `set_unique`, and `set` takes `Field<E, T, Mutable>` only.
use dynamo_entity::{Entity, Table};

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
struct User {
    id: String,
    #[entity(unique)]
    handle: Option<String>,
    visits: u32,
}

fn change(table: &Table) {
    let _ = table.upsert(User::key("u1")).set(User::HANDLE, &Some("ann".to_owned()));
    let _ = table.upsert(User::key("u1")).set_unique(User::HANDLE, &Some("ann".to_owned()));
    // A counter of the same entity compiles.
    let _ = table.increment(User::key("u1"), User::VISITS, 1);
}

fn main() {}

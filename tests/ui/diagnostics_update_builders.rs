// The update methods besides `set` (`set_if_absent`, `remove`, `append`, `prepend`, the element
// updates; the set operations take the same bound, though no set field can be unique, a key or
// maintained) name the fix when given a handle they do not write, as `set` does: a unique field
// is written by `set_unique`, a primary key field by writing the item under its new key, a
// maintained field by the library. One error per call, at the handle.
use dynamo_entity::{Entity, Table, Timestamp};

#[derive(Entity, Debug)]
#[entity(pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
    #[entity(unique)]
    pub email: String,
    #[entity(unique)]
    pub handle: Option<String>,
    #[entity(unique)]
    pub badge: Vec<u8>,
    pub notes: Vec<String>,
    #[entity(version)]
    pub version: u64,
    #[entity(created_at)]
    pub created_at: Timestamp,
}

async fn edit(table: &Table) {
    let u = || table.update(User::key("u1"));
    let _ = u().set_if_absent(User::EMAIL, &"a@example.test".to_owned()).send().await;
    let _ = u().set_if_absent(User::ID, &"u2".to_owned()).send().await;
    let _ = u().set_if_absent(User::CREATED_AT, &Timestamp::EPOCH).send().await;
    let _ = u().remove(User::HANDLE).send().await;
    let _ = u().append(User::BADGE, &[1u8]).send().await;
    let _ = u().prepend(User::BADGE, &[1u8]).send().await;
    let _ = u().set_element(User::BADGE, 0, &1u8).send().await;
    // Fine: a plain field.
    let _ = u().append(User::NOTES, &["n".to_owned()]).any_version().send().await;
}

fn main() {
    let _ = edit;
}

// The builders of a handle bound to a table declaration (transactions, transactional reads,
// mixed batches, renders) accept only the entities it lists, as its item operations do: an
// entity of another declaration is one error, at the argument, naming the table and the entity.
use dynamo_entity::{Entity, Table, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(User), pk = "pk", sk = "sk", entity_type = "kind")]
pub struct Shop;

#[derive(Entity)]
#[entity(table = Archive, pk = "NOTE#<id>", sk = "NOTE")]
pub struct Note {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Note), pk = "pk", sk = "sk", entity_type = "type")]
pub struct Archive;

async fn build(shop: Table<Shop>, user: User, note: Note) {
    let _ = shop.transact().put(&user).put(&note).send().await;
    let _ = shop.transact().create(&user).delete(Note::key("n")).send().await;
    let _ = shop.transact_get().get(User::key("u")).get(Note::key("n")).send().await;
    let _ = shop.batch_write().put(&user).put(&note).send().await;
    let _ = shop.batch_get_mixed().key(User::key("u")).key(Note::key("n")).send().await;
    let _ = shop.render().put(&note);
    // Fine: the entities of `Shop`, and any entity through the untyped handle.
    let _ = shop.render().get(User::key("u"));
    let _ = shop.untyped().transact().put(&note).send().await;
}

fn main() {
    let _ = build;
}

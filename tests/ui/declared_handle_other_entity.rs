// A handle bound to a table declaration accepts only the entities it lists: an entity of
// another declaration (same key names, another type attribute) and an entity of no declaration
// are compile errors naming the table and the entity, each one error at the offending argument
// (not again at the future and its `.await`).
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

#[derive(Entity)]
#[entity(pk = "LOOSE#<id>", sk = "LOOSE")]
pub struct Loose {
    pub id: String,
}

async fn writes(shop: Table<Shop>, note: Note, loose: Loose) {
    shop.put(&User { id: "u".into() }).await.unwrap();
    shop.put(&note).await.unwrap();
    let _ = shop.get(Loose::key("x")).await;
    let _ = shop.query(Note::query("n"));
    let _ = loose;
}

fn main() {
    let _ = writes;
}

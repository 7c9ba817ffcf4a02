// A handle bound to a table declaration scans the table into the declaration's own item enum:
// another entity enum (here the item enum of another declaration) is one error, at the call,
// naming the declaration, the enum and the fix.
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

async fn scans(shop: Table<Shop>) {
    let _ = shop.scan_table::<ArchiveItem>().all().await;
    // Fine: the declaration's own enum, named or not, and any enum through the untyped handle.
    let _ = shop.scan_table::<ShopItem>().all().await;
    let _ = shop.scan_table().all().await;
    let _ = shop.untyped().scan_table::<ArchiveItem>().all().await;
}

fn main() {
    let _ = scans;
}

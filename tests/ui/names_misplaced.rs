//! Key attribute names an index cannot have: the inverted index is keyed on the table's own
//! sort and partition key, an LSI on the table's partition key.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "ID#<id>", inverted)]
pub struct User {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(User), inverted(pk = "ipk"), lsi1(pk = "lpk", sk = "lsi1sk"))]
pub struct Shop;

fn main() {}

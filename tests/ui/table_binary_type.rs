//! Key types with binary (B) keys: an entity whose `GSI1PK` is B beside one whose `GSI1PK` is
//! S, and an entity whose `GSI2SK` is B where the table declares N. Each is one error.
use dynamo_entity::{Entity, TableDef};

/// `GSI1PK` is `B` (one `Vec<u8>` placeholder), `GSI2SK` too.
#[derive(Entity)]
#[entity(pk = "BLOB#<id>", sk = "META", gsi1 = "<digest>", gsi1_sk = "<id>", gsi2 = "ALL", gsi2_sk = "<digest>")]
pub struct Blob {
    pub id: String,
    pub digest: Vec<u8>,
}

/// `GSI1PK` is `S` here.
#[derive(Entity)]
#[entity(pk = "NOTE#<id>", sk = "META", gsi1 = "NOTE#<id>", gsi1_sk = "<id>")]
pub struct Note {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Blob, Note), gsi1(projection = all), gsi2(projection = all, sk = N))]
pub struct Store;

fn main() {}

//! A stream view type `#[table(stream = ...)]` does not know.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META")]
pub struct Apple {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Apple), stream = both_images)]
pub struct Orchard;

fn main() {}

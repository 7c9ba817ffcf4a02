//! `entity_type = none`: the only bare word `entity_type` takes.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META", table = Fruit)]
pub struct Apple {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Apple), entity_type = nothing)]
pub struct Fruit;

fn main() {}

//! A listed type that is not an entity: one error, at the type.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META")]
pub struct Apple {
    pub id: String,
}

pub struct Pear;

#[derive(TableDef)]
#[table(entities(Apple, Pear))]
pub struct Orchard;

fn main() {}

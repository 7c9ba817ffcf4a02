//! Two entities with the same entity type name.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META", name = "Thing")]
pub struct Apple {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "B#<id>", sk = "META", name = "Thing")]
pub struct Banana {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Apple, Banana))]
pub struct Fruit;

fn main() {}

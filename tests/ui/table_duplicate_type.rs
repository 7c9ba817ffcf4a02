//! Two entities with the same entity type name whose keys can collide: a shared type name is
//! allowed only where the key templates tell the items apart.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "FRUIT#<id>", sk = "META", name = "Thing", table = Fruit)]
pub struct Apple {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "FRUIT#<name>", sk = "META", name = "Thing", table = Fruit)]
pub struct Banana {
    pub name: String,
}

// Same type name, disjoint keys: accepted.
#[derive(Entity)]
#[entity(pk = "FRUIT#<id>", sk = "PRICE", name = "Thing", table = Fruit)]
pub struct Cherry {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(Apple, Banana, Cherry))]
pub struct Fruit;

fn main() {}

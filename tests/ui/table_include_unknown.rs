//! An INCLUDE projection of an attribute that no entity writing the index stores.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi4 = "STATUS#<status>", gsi4_sk = "<id>")]
pub struct Skill {
    pub id: String,
    pub status: String,
    pub title: String,
    #[entity(rename = "priceCents")]
    pub price_cents: u32,
}

#[derive(TableDef)]
#[table(entities(Skill), gsi4(projection = include(title, priceCents, price_cents)))]
pub struct Market;

fn main() {}

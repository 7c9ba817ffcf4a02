//! GSI key types that differ between entities, or from the declaration.
use dynamo_entity::{Entity, TableDef};

/// `GSI1SK` is `N` (one numeric placeholder).
#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<downloads>")]
pub struct Skill {
    pub id: String,
    pub category: String,
    pub downloads: u64,
}

/// `GSI1SK` is `S` here.
#[derive(Entity)]
#[entity(pk = "GUIDE#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<title>")]
pub struct Guide {
    pub id: String,
    pub category: String,
    pub title: String,
}

/// Agrees with `Skill` on `GSI1SK`; its `GSI2SK` is `S` but the table declares it `N`.
#[derive(Entity)]
#[entity(pk = "KIT#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<rank>",
         gsi2 = "OWNER#<owner>", gsi2_sk = "<id>")]
pub struct Kit {
    pub id: String,
    pub category: String,
    pub rank: u32,
    pub owner: String,
}

#[derive(TableDef)]
#[table(entities(Skill, Guide, Kit), gsi1(projection = all), gsi2(projection = keys_only, sk = N))]
pub struct Catalog;

fn main() {}

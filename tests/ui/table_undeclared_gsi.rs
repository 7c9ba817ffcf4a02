//! An entity writes a GSI (and queries the inverted index) that the table does not declare.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<downloads>",
         gsi3 = "SELLER#<seller>", gsi3_sk = "<id>")]
pub struct Skill {
    pub id: String,
    pub category: String,
    pub seller: String,
    pub downloads: u64,
}

#[derive(Entity)]
#[entity(pk = "TAG#<skill>", sk = "NAME#<name>", inverted)]
pub struct Tag {
    pub skill: String,
    pub name: String,
}

#[derive(TableDef)]
#[table(entities(Skill, Tag), gsi1(projection = all))]
pub struct Market;

fn main() {}

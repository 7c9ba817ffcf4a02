//! Entities sharing a multi-attribute GSI agree on its key attributes, and an index is keyed
//! either by templates or by attributes.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", gsi6(pk(tenant), sk(created_at)))]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub created_at: u64,
}

/// `created_at` is a string here.
#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META", gsi6(pk(tenant), sk(created_at)))]
pub struct Alert {
    pub id: String,
    pub tenant: String,
    pub created_at: String,
}

/// GSI6 by templates.
#[derive(Entity)]
#[entity(pk = "N#<id>", sk = "META", gsi6 = "T#<tenant>", gsi6_sk = "<id>")]
pub struct Note {
    pub id: String,
    pub tenant: String,
}

#[derive(TableDef)]
#[table(entities(Ticket, Alert, Note), gsi6(projection = all))]
pub struct Desk;

fn main() {}

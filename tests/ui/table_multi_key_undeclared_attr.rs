//! An entity that does not declare a multi-attribute GSI must not store its key attributes: one
//! of another type makes DynamoDB refuse every write of the item, all of them put its items in
//! the index. Storing some of them with the same type, or one whose type the field's type does
//! not tell (serde), is allowed.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(
    pk = "T#<id>",
    sk = "META",
    rename_all = "camelCase",
    gsi6(pk(tenant, region), sk(status, created_at))
)]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub region: String,
    pub status: String,
    pub created_at: u64,
}

/// `tenant` is a number here: every put would be refused.
#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META")]
pub struct Alert {
    pub id: String,
    pub tenant: u64,
}

/// `region` is a boolean, which no key attribute can be.
#[derive(Entity)]
#[entity(pk = "F#<id>", sk = "META")]
pub struct Flag {
    pub id: String,
    pub region: Option<bool>,
}

/// Every key attribute, with the index's types, but no `gsi6(...)`: its items would enter GSI6.
#[derive(Entity)]
#[entity(pk = "U#<id>", sk = "META")]
pub struct Audit {
    pub id: String,
    pub tenant: String,
    pub region: String,
    pub status: Option<String>,
    #[entity(rename = "createdAt")]
    pub created_at: u64,
}

/// Two key attributes with the index's types: never in the index, and allowed.
#[derive(Entity)]
#[entity(pk = "M#<id>", sk = "META")]
pub struct Memo {
    pub id: String,
    pub tenant: String,
    pub status: String,
}

/// A serde field whose stored type its Rust type does not tell: not checked.
#[derive(Entity)]
#[entity(pk = "L#<id>", sk = "META")]
pub struct Log {
    pub id: String,
    #[entity(serde)]
    pub region: Vec<String>,
}

#[derive(TableDef)]
#[table(entities(Ticket, Alert, Flag, Audit, Memo, Log), gsi6(projection = all))]
pub struct Desk;

fn main() {}

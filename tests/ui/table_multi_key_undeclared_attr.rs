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
    gsi6(pk(tenant, region), sk(status, created_at)),
    gsi7(pk(region), sk(priority))
)]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub region: String,
    pub status: String,
    pub created_at: u64,
    pub priority: u32,
}

/// `tenant` is a number here: every put would be refused.
#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META")]
pub struct Alert {
    pub id: String,
    pub tenant: u64,
}

/// `region` is a boolean, which no key attribute can be: one error, though `region` is a key
/// attribute of GSI6 and GSI7.
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

/// A constant is stored with its literal's type: a number under the string `tenant`.
#[derive(Entity)]
#[entity(pk = "C#<id>", sk = "META", constant(tenant = 5))]
pub struct Tagged {
    pub id: String,
}

/// A number constant under the number `priority`, and not every key attribute of GSI7: allowed.
#[derive(Entity)]
#[entity(pk = "R#<id>", sk = "META", constant(priority = 3))]
pub struct Ranked {
    pub id: String,
}

/// A renamed field whose writes keep its earlier attribute `tenant` (`write_alias`), a number:
/// every put would be refused, as for a field stored there.
#[derive(Entity)]
#[entity(pk = "S#<id>", sk = "META")]
pub struct Score {
    pub id: String,
    #[entity(alias = "tenant", write_alias)]
    pub points: u64,
}

/// The same alias, read only: this program never writes `tenant`, so it is allowed.
#[derive(Entity)]
#[entity(pk = "O#<id>", sk = "META")]
pub struct OldScore {
    pub id: String,
    #[entity(alias = "tenant")]
    pub points: u64,
}

#[derive(TableDef)]
#[table(
    entities(Ticket, Alert, Flag, Audit, Memo, Log, Tagged, Ranked, Score, OldScore),
    gsi6(projection = all),
    gsi7(projection = all)
)]
pub struct Desk;

fn main() {}

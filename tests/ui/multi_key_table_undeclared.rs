//! An entity writes a native multi-attribute GSI that the table does not declare: the same
//! compile error as for a template GSI.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", table = Desk, gsi6(pk(tenant), sk(created_at)))]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub created_at: u64,
}

#[derive(TableDef)]
#[table(entities(Ticket))]
pub struct Desk;

fn main() {}

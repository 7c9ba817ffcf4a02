//! `#[entity(table = ...)]` naming a type that is no `#[derive(TableDef)]` declaration: one error,
//! on that path.
use dynamo_entity::Entity;

pub struct NotATable;

#[derive(Entity)]
#[entity(table = NotATable, pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

fn main() {}

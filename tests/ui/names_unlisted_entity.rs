// An entity that names a table must be listed in that table's `entities(...)`, or its keys
// escape the table's collision checks.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE")]
pub struct Shadow {
    pub id: String,
}

#[derive(TableDef)]
#[table(entities(User), pk = "pk", sk = "sk")]
pub struct Shop;

fn main() {}

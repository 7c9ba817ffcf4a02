//! A declared key attribute name that is empty: DynamoDB's key attribute names are 1 to 255
//! bytes.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE", gsi1 = "TEAM#<team>", gsi1_sk = "<id>")]
pub struct User {
    pub id: String,
    pub team: String,
}

#[derive(TableDef)]
#[table(entities(User), pk = "", gsi1(pk = "gsi1pk", sk = ""))]
pub struct Shop;

fn main() {}

//! Index names DynamoDB refuses (3 to 255 characters of a-z, A-Z, 0-9, `_`, `-`, `.`), and two
//! indexes of one table with one name.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "ID#<id>", gsi1 = "TEAM#<team>", gsi1_sk = "<id>",
         gsi2 = "CITY#<city>", gsi2_sk = "<id>", inverted)]
pub struct User {
    pub id: String,
    pub team: String,
    pub city: String,
}

#[derive(TableDef)]
#[table(
    entities(User),
    gsi1(name = "By Team"),
    gsi2(name = "ByCity"),
    lsi1(name = "ByCity"),
    gsi3(name = "ix"),
    gsi4(projection = all),
    inverted(name = "GSI4"),
)]
pub struct Shop;

fn main() {}

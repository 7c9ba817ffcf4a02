//! Two roles that share one attribute name: writing one would overwrite the other. Each
//! clash is reported at the name that repeats an earlier one, all at once.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE", gsi1 = "TEAM#<team>", gsi1_sk = "<id>",
         gsi2 = "CITY#<city>", gsi2_sk = "<id>")]
pub struct User {
    pub id: String,
    pub team: String,
    pub city: String,
}

#[derive(TableDef)]
#[table(
    entities(User),
    pk = "key",
    sk = "key",
    entity_type = "kind",
    gsi1(pk = "kind", sk = "gsi1sk"),
    gsi2(pk = "gsi2pk", sk = "gsi2pk"),
    lsi1(sk = "GSI3PK"),
    gsi3(projection = keys_only),
)]
pub struct Shop;

fn main() {}

//! Mistakes in `#[table(...)]` itself, all reported at once.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META", gsi1 = "ALL", gsi1_sk = "<id>")]
pub struct Apple {
    pub id: String,
}

mod other {
    #[derive(dynamo_entity::Entity)]
    #[entity(pk = "O#<id>", sk = "META")]
    pub struct Apple {
        pub id: String,
    }
}

#[derive(TableDef)]
#[table(
    entities(Apple, other::Apple, Apple),
    gsi1(projection = include(price, SK, price)),
    gsi2(projection = everything),
    gsi21(projection = all),
    gsi1(projection = all),
    lsi1(projection = all),
    pk = "",
    type_attribute = "",
    gsi3(sk = Number, projektion = all),
    entitys(Apple),
)]
pub struct Orchard;

fn main() {}

//! Entities that share a type value must name their table (`table = ...`): reads tell their
//! items apart by key shape, for which they need the table's entities. `Return` names it;
//! `Order` does not, and is the one error.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "ORDER#<order_id>", name = "ORDER")]
pub struct Order {
    pub id: String,
    pub order_id: String,
}

#[derive(Entity)]
#[entity(pk = "USER#<id>", sk = "RETURN#<order_id>", name = "ORDER", table = Shop)]
pub struct Return {
    pub id: String,
    pub order_id: String,
}

#[derive(TableDef)]
#[table(entities(Order, Return))]
pub struct Shop;

fn main() {}

//! A float in a GSI sort key is one error, at its field: the conditions a query writes for the
//! intended type (`&f64`) report nothing more, since the failed derive's `gsi1` takes any
//! sort-key argument. The fix the message asks for, an integer, is `pass/gsi_integer_price.rs`.
use dynamo_entity::{Entity, Table};

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "PRICED", gsi1_sk = "<price>")]
pub struct Skill {
    pub id: String,
    pub price: f64,
}

async fn cheap(table: &Table) {
    let _ = table.query(Skill::gsi1()).sk_lt(&9.5).all().await;
    let _ = table.query(Skill::gsi1()).sk_between(&1.0, &2.5).max_items(10).all().await;
    let _ = table.query(Skill::gsi1()).sk_eq(&3.0f64).all().await;
}

fn main() {
    let _ = cheap;
}

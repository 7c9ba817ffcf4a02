//! The fix the message of `ui/key_part_type_float_gsi_query.rs` asks for: an integer (an
//! amount in cents) in the GSI sort key, queried with the integer.
use dynamo_entity::{Entity, Table};

#[derive(Entity)]
#[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "PRICED", gsi1_sk = "<price_cents>")]
pub struct Skill {
    pub id: String,
    pub price_cents: u64,
}

async fn cheap(table: &Table) {
    let _ = table.query(Skill::gsi1()).sk_lt(&950u64).all().await;
    let _ = table.query(Skill::gsi1()).sk_between(&100u64, &250u64).max_items(10).all().await;
    let _ = table.query(Skill::gsi1()).sk_eq(&300u64).all().await;
}

fn main() {
    let _ = cheap;
    let item = Skill { id: "s1".into(), price_cents: 950 }.to_item().unwrap();
    assert_eq!(item["GSI1SK"].as_n().unwrap(), "950");
}

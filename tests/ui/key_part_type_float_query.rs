//! A float in a sort key is one error, at its field; a correct query of the entity's other
//! sort-key part reports nothing more (the failed derive's `query` takes `String` for the
//! refused part).
use dynamo_entity::{Entity, Table};

#[derive(Entity)]
#[entity(pk = "ORDER#<id>", sk = "<year>#<price>")]
pub struct Order {
    pub id: String,
    pub year: u64,
    pub price: f64,
}

async fn by_year(table: &Table) {
    let _ = table.query(Order::query("a")).sk_begins_with(&2026u64).all().await;
}

fn main() {
    let _ = by_year;
}

use dynamo_entity::Entity;

// Three mistakes: a misspelled placeholder, a float in a key, a GSI without a sort key.
#[derive(Entity)]
#[entity(
    pk = "ORDER#<order_ids>", sk = "LINE#<line>#<price>",
    gsi2 = "ORDER#<order_id>",
)]
pub struct OrderLine {
    pub order_id: String,
    pub line: u32,
    pub price: f64,
}

fn main() {}

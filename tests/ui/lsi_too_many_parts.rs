//! An LSI sort key template has at most six placeholders, as any sort key.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "USER#<user_id>", sk = "ORDER#<id>", lsi1 = "<a>#<b>#<c>#<d>#<e>#<f>#<g>")]
pub struct Order {
    pub user_id: String,
    pub id: u32,
    pub a: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
    pub e: u8,
    pub f: u8,
    pub g: u8,
}

fn main() {}

//! A multi-attribute GSI key attribute is a string, a number or binary: a `bool`, a float or a list
//! field cannot be one (the error is on the field's type).
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", gsi6(pk(tenant), sk(active, score)))]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub active: bool,
    pub score: f64,
}

fn main() {}

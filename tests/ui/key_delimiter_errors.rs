//! `#[entity(delimiter = "...")]` values that cannot separate the segments of a key, and a
//! template that the chosen delimiter leaves with an empty segment.
use dynamo_entity::Entity;

// Empty.
#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "A", delimiter = "")]
pub struct A {
    pub id: String,
}

// Two characters.
#[derive(Entity)]
#[entity(pk = "B||<id>", sk = "B", delimiter = "||")]
pub struct B {
    pub id: String,
}

// A letter could be part of any value or literal.
#[derive(Entity)]
#[entity(pk = "CxC", sk = "C", delimiter = "x")]
pub struct C {
    pub id: String,
}

// `_` belongs to field names (`<user_id>`).
#[derive(Entity)]
#[entity(pk = "D_<id>", sk = "D", delimiter = "_")]
pub struct D {
    pub id: String,
}

// `%` is the escape character.
#[derive(Entity)]
#[entity(pk = "E#<id>", sk = "E", delimiter = "%")]
pub struct E {
    pub id: String,
}

// Not ASCII.
#[derive(Entity)]
#[entity(pk = "F§<id>", sk = "F", delimiter = "§")]
pub struct F {
    pub id: String,
}

// A valid delimiter, and a template with an empty segment under it.
#[derive(Entity)]
#[entity(pk = "USER||<id>", sk = "G", delimiter = "|")]
pub struct G {
    pub id: String,
}

fn main() {}

//! `#[entity(constant(...))]` mistakes: a name given twice, a name a field already stores, a
//! reserved key attribute, a value that is no string, number or boolean, and no list at all.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "A", constant(version = "1", kind = "a", kind = "b", PK = "x"))]
pub struct A {
    pub id: String,
    pub version: u32,
}

#[derive(Entity)]
#[entity(pk = "B#<id>", sk = "B", constant(v = b'x'))]
pub struct B {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "C#<id>", sk = "C", constant = "1")]
pub struct C {
    pub id: String,
}

fn main() {}

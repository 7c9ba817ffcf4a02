use dynamo_entity::{Entity, KeyPart};

// Derives `KeyPart` for `Region` only: `Location` is a plain struct.
#[derive(KeyPart)]
pub enum Region {
    Eu,
    Us,
}

pub struct Location {
    pub lat: i32,
    pub lon: i32,
}

#[derive(Entity)]
#[entity(pk = "STORE#<region>", sk = "AT#<location>")]
pub struct Store {
    pub region: Region,
    pub location: Location,
}

fn main() {}

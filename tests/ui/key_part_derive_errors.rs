use dynamo_entity::KeyPart;

#[derive(KeyPart)]
#[key_part(rename_all = "snake")]
pub enum Status {
    Draft,
}

#[derive(KeyPart)]
pub enum Shape {
    Circle(u32),
    #[key_part(rename = "a#b")]
    Square,
    #[key_part(rename = "square")]
    Box,
}

#[derive(KeyPart)]
pub struct Pair(String, String);

#[derive(KeyPart)]
pub struct Price(f64);

fn main() {}

use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "T#<t>", sk = "<a>#<b>#<c>#<d>#<e>#<f>#<g>")]
pub struct Wide {
    pub t: String,
    pub a: u8,
    pub b: u8,
    pub c: u8,
    pub d: u8,
    pub e: u8,
    pub f: u8,
    pub g: u8,
}

fn main() {}

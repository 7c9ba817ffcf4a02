use dynamo_entity::Entity;

// `<field:raw>` on a field that is not an integer.
#[derive(Entity)]
#[entity(pk = "USER#<id:raw>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

// An unknown placeholder option.
#[derive(Entity)]
#[entity(pk = "ORDER#<id:pad>", sk = "DETAILS")]
pub struct Order {
    pub id: u64,
}

// Unknown `key_case` and `key_values` values.
#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "A", key_case = "camel", key_values = "raw")]
pub struct A {
    pub id: String,
}

// Key fields stored only in keys whose case is folded could not be read back.
#[derive(Entity)]
#[entity(pk = "$app#b_<id>", sk = "$b_1", key_case = "lower", key_fields = "keys")]
pub struct B {
    pub id: String,
    pub n: u32,
}

fn main() {}

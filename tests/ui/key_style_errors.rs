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

// Key fields stored only in keys whose case is folded come back folded: `id` must say it
// takes its value so (`#[entity(folded)]`); the integer `n` is not changed by folding.
#[derive(Entity)]
#[entity(pk = "$app#b_<id>", sk = "$b_1#n_<n:raw>", key_case = "lower", key_fields = "keys")]
pub struct B {
    pub id: String,
    pub n: u32,
}

// `folded` on a key that keeps its case, and on a field no key holds.
#[derive(Entity)]
#[entity(pk = "C#<id>", sk = "C")]
pub struct C {
    #[entity(folded)]
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "$d#<id>", sk = "$d", key_case = "upper")]
pub struct D {
    #[entity(folded)]
    pub id: String,
    #[entity(folded)]
    pub note: String,
}

fn main() {}

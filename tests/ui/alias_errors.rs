//! `#[entity(alias = "...")]` mistakes: an alias that is another field's attribute or the
//! field's own, `write_alias` without `alias`, `read_alias` without `write_alias`, an alias on
//! a field written only inside its keys, two fields with one alias, and a reserved attribute.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "A")]
pub struct A {
    pub id: String,
    pub title: String,
    #[entity(alias = "title")]
    pub subject: String,
    #[entity(rename = "body", alias = "body")]
    pub text: String,
    #[entity(write_alias)]
    pub note: String,
    #[entity(alias = "old_label", read_alias)]
    pub label: String,
}

#[derive(Entity)]
#[entity(pk = "B#<id>", sk = "B", key_fields = "keys")]
pub struct B {
    #[entity(alias = "old_id")]
    pub id: String,
    #[entity(alias = "old")]
    pub first: String,
    #[entity(alias = "old")]
    pub second: String,
    #[entity(alias = "PK")]
    pub third: String,
}

fn main() {}

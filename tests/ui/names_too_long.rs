//! A declared key attribute name over DynamoDB's 255-byte limit for key attribute names.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(table = Shop, pk = "USER#<id>", sk = "PROFILE")]
pub struct User {
    pub id: String,
}

#[derive(TableDef)]
#[table(
    entities(User),
    sk = "a_sort_key_attribute_name_that_goes_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on_and_on",
)]
pub struct Shop;

fn main() {}

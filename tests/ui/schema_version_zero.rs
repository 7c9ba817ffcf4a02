// Schema versions start at 1 (an item without a version reads as the oldest one); `from` on
// version 1 names a version that cannot exist; `version` is required.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "A#<id>", sk = "META", schema(version = 0))]
pub struct Zero {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "B#<id>", sk = "META", schema(version = 1, from = Zero))]
pub struct First {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "C#<id>", sk = "META", schema(from = First))]
pub struct Unnumbered {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "D#<id>", sk = "META", schema(version = "2", versions = 3), schema(version = 1))]
pub struct Malformed {
    pub id: String,
}

fn main() {}

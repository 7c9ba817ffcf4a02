// `hierarchy(...)` allows a parent's query to read its children's items, nothing more: keys
// that can be equal still collide, a child the parent's query cannot read is refused, an entity
// left out of the hierarchy is still a prefix collision, and every name must be listed.
use dynamo_entity::{Entity, TableDef};

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "V#<name>")]
pub struct Named {
    pub id: String,
    pub name: String,
}

/// `<name>` is a `String`: it can write `LATEST`, so the keys collide, declared or not.
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "V#LATEST")]
pub struct Latest {
    pub id: String,
}

/// `W#...` does not start with `V#`: `Named`'s query never reads it.
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "W#<n>")]
pub struct Elsewhere {
    pub id: String,
    pub n: u32,
}

/// Read by `Named`'s `begins_with(SK, "V#")`, and not declared.
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "V#<name>#NOTE#<n>")]
pub struct Note {
    pub id: String,
    pub name: String,
    pub n: u32,
}

#[derive(TableDef)]
#[table(entities(Named, Latest, Elsewhere, Note), hierarchy(Named(Latest, Elsewhere)))]
pub struct Docs;

#[derive(TableDef)]
#[table(entities(Named), hierarchy(Named(Missing), Named(Named)))]
pub struct Unlisted;

/// `V#<version>` (a u64): its query reads only 20-digit segments after `V#`, so `V#LATEST` is
/// no child of it.
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "V#<version>")]
pub struct Version {
    pub id: String,
    pub version: u64,
}

#[derive(TableDef)]
#[table(entities(Version, Latest), hierarchy(Version(Latest)))]
pub struct Narrowed;

fn main() {}

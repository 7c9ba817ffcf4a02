// `#[entity(version)]`: one integer field per entity, not part of a key, not `unique` or
// `serde`, and no other maintained role on the same field.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META", version)]
struct OnTheStruct {
    id: String,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "V#<rev>", gsi1 = "DOC#<id>", gsi1_sk = "<version>")]
struct Doc {
    id: String,
    #[entity(version)]
    version: u64,
    #[entity(version)]
    rev: u32,
    #[entity(version = 1)]
    other: u64,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Types {
    id: String,
    #[entity(version)]
    version: String,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Optional {
    id: String,
    #[entity(version)]
    version: Option<u64>,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Combined {
    id: String,
    #[entity(version, unique)]
    version: u64,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct WithSerde {
    id: String,
    #[entity(serde, version)]
    version: u64,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct TwoRoles {
    id: String,
    #[entity(version, ttl)]
    version: u64,
}

fn main() {}

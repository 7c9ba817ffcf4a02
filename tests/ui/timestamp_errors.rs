// `#[entity(created_at)]` and `#[entity(updated_at)]`: one `Timestamp` field each; `created_at`
// may be part of a GSI key but not of the primary key; `updated_at` is part of no key.
use dynamo_entity::{Entity, Timestamp};

#[derive(Entity)]
#[entity(pk = "LOG#<created_at>", sk = "META", gsi1 = "LOG", gsi1_sk = "<updated_at>")]
struct Log {
    #[entity(created_at)]
    created_at: Timestamp,
    #[entity(updated_at)]
    updated_at: Timestamp,
}

#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META")]
struct Doc {
    id: String,
    #[entity(created_at)]
    created: String,
    #[entity(updated_at)]
    updated: Option<Timestamp>,
    #[entity(created_at)]
    also_created: Timestamp,
    #[entity(updated_at = "now")]
    touched: Timestamp,
}

// Fine: the creation time in a GSI key (a create writes the key from the time it sets).
#[derive(Entity)]
#[entity(pk = "DOC#<id>", sk = "META", gsi1 = "AUTHOR#<author>", gsi1_sk = "<created_at>")]
struct Listed {
    id: String,
    author: String,
    #[entity(created_at)]
    created_at: Timestamp,
}

fn main() {}

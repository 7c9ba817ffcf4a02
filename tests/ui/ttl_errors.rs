// `#[entity(ttl)]`: one `Timestamp` or `Option<Timestamp>` field, stored as epoch seconds, so
// not part of a key, and not `unique` or `serde`.
use dynamo_entity::{Entity, Timestamp};

#[derive(Entity)]
#[entity(pk = "SESSION#<id>", sk = "META", gsi1 = "EXPIRY", gsi1_sk = "<expires_at>")]
struct Session {
    id: String,
    #[entity(ttl)]
    expires_at: Timestamp,
    #[entity(ttl)]
    purge_at: Option<Timestamp>,
}

#[derive(Entity)]
#[entity(pk = "SESSION#<id>", sk = "META")]
struct Seconds {
    id: String,
    #[entity(ttl)]
    expires_at: u64,
}

#[derive(Entity)]
#[entity(pk = "SESSION#<id>", sk = "META")]
struct Unique {
    id: String,
    #[entity(ttl, unique)]
    expires_at: Timestamp,
}

fn main() {}

//! A collection is read by one query of one partition: an entity whose partition key can never
//! equal the first entity's, on the table or on any index both write, would leave its field
//! always empty. The fix, keying it under the first entity's partition, is
//! `pass/collection_partition.rs`.
use dynamo_entity::{Collection, Entity};

#[derive(Entity)]
#[entity(pk = "POST#<id>", sk = "META")]
pub struct Post {
    pub id: String,
}

#[derive(Entity)]
#[entity(pk = "POST#<post>", sk = "COMMENT#<id>")]
pub struct Comment {
    pub post: String,
    pub id: u32,
}

/// Another partition: `USER#...` is never `POST#...`.
#[derive(Entity)]
#[entity(pk = "USER#<post>", sk = "LIKE#<user>")]
pub struct Like {
    pub post: String,
    pub user: String,
}

/// A `u64` never writes `LATEST`: `V#<version>` is never `V#LATEST`.
#[derive(Entity)]
#[entity(pk = "V#<version>", sk = "META")]
pub struct Release {
    pub version: u64,
}

#[derive(Entity)]
#[entity(pk = "V#LATEST", sk = "POINTER")]
pub struct Pointer {
    pub to: u64,
}

#[derive(Collection)]
pub struct Thread {
    pub post: Post,
    pub comments: Vec<Comment>,
    pub likes: Vec<Like>,
}

#[derive(Collection)]
pub struct Releases {
    pub release: Option<Release>,
    pub pointer: Option<Pointer>,
}

fn main() {}

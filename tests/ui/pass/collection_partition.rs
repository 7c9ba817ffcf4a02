//! The fix the message of `ui/collection_other_partition.rs` asks for: each collected entity
//! keyed under the partition of the first (the same template, its placeholders named as its
//! own fields), on the table or on a GSI both write.
use dynamo_entity::{Collection, Entity};

#[derive(Entity, Debug)]
#[entity(pk = "POST#<id>", sk = "META")]
pub struct Post {
    pub id: String,
}

#[derive(Entity, Debug)]
#[entity(pk = "POST#<post>", sk = "COMMENT#<id>")]
pub struct Comment {
    pub post: String,
    pub id: u32,
}

/// Keyed under `POST#<post>` as the message says.
#[derive(Entity, Debug)]
#[entity(pk = "POST#<post>", sk = "LIKE#<user>")]
pub struct Like {
    pub post: String,
    pub user: String,
}

/// In the post's partition of GSI1 only.
#[derive(Entity, Debug)]
#[entity(pk = "USER#<user>", sk = "SHARE#<post>", gsi1 = "POST#<post>", gsi1_sk = "SHARE#<user>")]
pub struct Share {
    pub user: String,
    pub post: String,
}

#[derive(Entity, Debug)]
#[entity(pk = "P#<id>", sk = "META", gsi1 = "POST#<id>", gsi1_sk = "META")]
pub struct Indexed {
    pub id: String,
}

#[derive(Collection, Debug)]
pub struct Thread {
    pub post: Post,
    pub comments: Vec<Comment>,
    pub likes: Vec<Like>,
}

#[derive(Collection, Debug)]
pub struct Shares {
    pub post: Indexed,
    pub shares: Vec<Share>,
}

fn main() {
    assert_eq!(<Thread as Collection>::TYPES, ["Post", "Comment", "Like"]);
    assert_eq!(<Shares as Collection>::TYPES, ["Indexed", "Share"]);
}

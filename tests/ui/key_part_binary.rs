//! A binary field (`Vec<u8>`) fills a key template only as the whole of it (`<digest>`, a key
//! attribute of type B). Each placeholder elsewhere is one error, at its template: inside a
//! composite key, beside literal text in its segment, and as a shard source. The whole-key
//! templates (`sk`, `gsi1_sk`) and the use sites compile.
use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(
    pk = "FILE#<digest>",
    sk = "<digest>",
    gsi1 = "v<hash>",
    gsi1_sk = "<hash>",
    gsi2 = "JOBS#<shard(hash, 4)>",
    gsi2_sk = "<size>"
)]
pub struct File {
    pub digest: Vec<u8>,
    pub hash: Vec<u8>,
    pub size: u64,
}

fn main() {
    let _ = File::key(&[1, 2]);
    let _ = File::gsi1(&[3]);
}

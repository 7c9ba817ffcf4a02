use dynamo_entity::Entity;

// A shard suffix is `<shard(field, N)>`: each malformed one is reported on its own template.
#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(id)>", gsi1_sk = "<at>")]
pub struct MissingCount {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(id, eight)>", gsi1_sk = "<at>")]
pub struct CountNotANumber {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<hash(id, 8)>", gsi1_sk = "<at>")]
pub struct UnknownFunction {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#S<shard(id, 8)>", gsi1_sk = "<at>")]
pub struct NotAWholeSegment {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<shard(id, 4)>#<shard(at, 4)>", gsi1_sk = "<at>")]
pub struct TwoShards {
    pub id: String,
    pub at: u32,
}

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(stage, 8)>", gsi1_sk = "<at>")]
pub struct SourceInTheSameKey {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

fn main() {}

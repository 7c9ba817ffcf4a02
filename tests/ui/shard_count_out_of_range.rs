use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(id, 1)>", gsi1_sk = "<at>")]
pub struct OneShard {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(id, 101)>", gsi1_sk = "<at>")]
pub struct TooManyShards {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

fn main() {}

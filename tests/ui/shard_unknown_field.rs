use dynamo_entity::Entity;

#[derive(Entity)]
#[entity(pk = "JOB#<id>", sk = "META", gsi1 = "JOBS#<stage>#<shard(ids, 8)>", gsi1_sk = "<at>")]
pub struct Job {
    pub id: String,
    pub stage: String,
    pub at: u32,
}

fn main() {}

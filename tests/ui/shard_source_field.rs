use dynamo_entity::Entity;

// The shard source must always be present and keep its value between writes.
#[derive(Entity)]
#[entity(
    pk = "JOB#<id>",
    sk = "META",
    gsi1 = "JOBS#<stage>#<shard(owner, 8)>",
    gsi1_sk = "<at>",
    gsi2 = "BY_VERSION#<stage>#<shard(version, 8)>",
    gsi2_sk = "<at>",
    gsi3 = "BY_RATIO#<shard(ratio, 8)>",
    gsi3_sk = "<at>"
)]
pub struct Job {
    pub id: String,
    pub owner: Option<String>,
    pub stage: String,
    pub at: u32,
    #[entity(version)]
    pub version: u64,
    pub ratio: f64,
}

fn main() {}

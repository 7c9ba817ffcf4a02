use dynamo_entity::Entity;

// Both mistakes are reported at once: a shard in the primary key and in a GSI sort key.
#[derive(Entity)]
#[entity(
    pk = "JOB#<id>#<shard(owner, 4)>",
    sk = "META",
    gsi1 = "JOBS#<stage>",
    gsi1_sk = "<at>#<shard(id, 4)>"
)]
pub struct Job {
    pub id: String,
    pub owner: String,
    pub stage: String,
    pub at: u32,
}

fn main() {}

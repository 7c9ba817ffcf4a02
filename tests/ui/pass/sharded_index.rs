use dynamo_entity::{Entity, KeyPart};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
pub enum Stage {
    Queued,
    Done,
}

#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(
    pk = "JOB#<id>",
    sk = "META",
    gsi1 = "JOBS#<stage>#<shard(id, 8)>",
    gsi1_sk = "<at>",
    gsi2 = "<shard( owner , 16 )>#OWNER",
    gsi2_sk = "<at>"
)]
pub struct Job {
    pub id: String,
    pub owner: String,
    pub stage: Stage,
    pub at: u32,
}

fn main() {
    use dynamo_entity::key::{Cardinality, Segment};
    let schema = Job::schema();
    let gsi1 = schema.gsis[0].pk;
    assert_eq!(
        gsi1.segments,
        &[Segment::Literal("JOBS"), Segment::Field("stage"), Segment::Shard { field: "id", count: 8 }]
    );
    assert_eq!(gsi1.cardinality, Cardinality::Low);
    assert_eq!(schema.gsis[1].pk.shard(), Some(("owner", 16)));
    let job = Job { id: "foobar".into(), owner: "foobar".into(), stage: Stage::Queued, at: 7 };
    let keys = job.gsi_keys().unwrap();
    let text = |a: &str| keys.iter().find(|(n, _)| *n == a).and_then(|(_, v)| v.as_s().ok()).cloned();
    // FNV-1a 64 of "foobar" is 0x85944171f73967e8: shard 0 of 8, shard 8 of 16.
    assert_eq!(text("GSI1PK").as_deref(), Some("JOBS#queued#0"));
    assert_eq!(text("GSI2PK").as_deref(), Some("08#OWNER"));
    let _ = Job::gsi1(&Stage::Done);
    let _ = Job::gsi2();
}

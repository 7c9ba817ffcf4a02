// A sort-key condition on a `Timestamp` part takes a `&Timestamp`: text is refused. (Since a bare
// first part is accepted, rustc reports it as a type mismatch, E0271: issue 12, still open.)
use dynamo_entity::{Entity, Table, Timestamp};

#[derive(Entity, Debug)]
#[entity(pk = "LOG#<source>", sk = "AT#<at>#<seq>")]
pub struct Log {
    pub source: String,
    pub at: Timestamp,
    pub seq: u32,
}

async fn read(table: &Table) {
    let _ = table.query(Log::query("s")).sk_gt("2024-05-01").send().await;
    let _ = table.query(Log::query("s")).sk_begins_with("2024-05-01").send().await;
    let _ = table.query(Log::query("s")).sk_eq((&Timestamp::EPOCH,)).send().await;
    // Fine: the parts as the key function takes them.
    let _ = table.query(Log::query("s")).sk_gt(&Timestamp::EPOCH).send().await;
}

fn main() {
    let _ = read;
}

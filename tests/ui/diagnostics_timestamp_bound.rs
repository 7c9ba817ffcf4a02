// A sort-key condition on a `Timestamp` part takes a `&Timestamp`: text is refused, bare or in a
// tuple, with a message that names the part's type and how to give it.
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
    let _ = table.query(Log::query("s")).sk_lt(("2024-05-01", &7u32)).send().await;
    let _ = table.query(Log::query("s")).sk_eq((&Timestamp::EPOCH,)).send().await;
    // Fine: the parts as the key function takes them.
    let _ = table.query(Log::query("s")).sk_gt(&Timestamp::EPOCH).send().await;
    let _ = table.query(Log::query("s")).sk_eq((&Timestamp::EPOCH, &7)).send().await;
}

fn main() {
    let _ = read;
}

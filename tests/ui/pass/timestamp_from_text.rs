// The fix the sort-key diagnostics suggest for text where a `Timestamp` part is expected
// (`ui/diagnostics_timestamp_bound.rs`, `ui/sk_bare_value.rs`) compiles, and parses the text
// it shows.
use dynamo_entity::{Entity, Table, Timestamp};

#[derive(Entity, Debug)]
#[entity(pk = "LOG#<source>", sk = "AT#<at>#<seq>")]
pub struct Log {
    pub source: String,
    pub at: Timestamp,
    pub seq: u32,
}

async fn read(table: &Table) -> Result<(), Box<dyn std::error::Error>> {
    let _ = table.query(Log::query("s")).sk_gt(&"2024-05-01T00:00:00Z".parse::<Timestamp>()?).send().await;
    let _ = table.query(Log::query("s")).sk_begins_with(&"2024-05-01T00:00:00Z".parse::<Timestamp>()?).send().await;
    Ok(())
}

fn main() {
    let _ = read;
    let at: Timestamp = "2024-05-01T00:00:00Z".parse().unwrap();
    assert_eq!(at, Timestamp::parse("2024-05-01T00:00:00.000Z").unwrap());
}

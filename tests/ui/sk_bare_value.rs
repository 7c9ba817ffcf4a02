// A bare value stands for the first part of a sort key (`sk_begins_with("2024")`); it must be
// of that part's type, and a range or prefix needs the parts in order.
use dynamo_entity::{Entity, Table};

#[derive(Entity)]
#[entity(pk = "LOG#<log>", sk = "E#<day>#<seq>")]
struct Entry {
    log: String,
    day: String,
    seq: u32,
}

fn read(table: &Table) {
    let _ = table.query(Entry::query("l")).sk_begins_with("2024");
    let _ = table.query(Entry::query("l")).sk_gt("2024");
    // The second part alone is not a prefix of the key.
    let _ = table.query(Entry::query("l")).sk_begins_with(&7u32);
    // The whole key needs both parts.
    let _ = table.query(Entry::query("l")).sk_eq("2024");
}

fn main() {}

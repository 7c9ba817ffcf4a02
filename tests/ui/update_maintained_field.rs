use dynamo_entity::{Entity, Table, Timestamp};

#[derive(Entity, Debug)]
#[entity(pk = "DOC#<id>", sk = "META")]
pub struct Doc {
    pub id: String,
    #[entity(version)]
    pub version: u64,
    #[entity(created_at)]
    pub created_at: Timestamp,
    #[entity(ttl)]
    pub expires_at: Option<Timestamp>,
}

async fn edit(table: &Table) {
    // The library maintains the version and the timestamps: no update can set them.
    let _ = table.update(Doc::key("d1")).set(Doc::VERSION, &7).any_version().send().await;
    let _ = table.update(Doc::key("d1")).set(Doc::CREATED_AT, &Timestamp::EPOCH).any_version().send().await;
    // A TTL field's handle takes epoch seconds, not the `Timestamp` text form.
    let _ = table.update(Doc::key("d1")).set(Doc::EXPIRES_AT, &Some(Timestamp::EPOCH)).any_version().send().await;
}

fn main() {
    let _ = edit;
}

// A failed derive still gives a multi-attribute GSI its query function and typed builder, so
// the code that queries the index reports nothing more than the one mistake (the placeholder
// naming no field).
use dynamo_entity::{Entity, Table};

#[derive(Entity, Debug)]
#[entity(pk = "TICKET#<idd>", sk = "META", gsi6(pk(tenant, region), sk(status, created_at)))]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub region: String,
    pub status: String,
    pub created_at: u64,
}

async fn use_it(table: &Table) {
    let _ = table.query(Ticket::gsi6("acme", "eu")).send().await;
    let _ = table.query(Ticket::gsi6("acme", "eu").status_eq("open").created_at_gt(&5)).max_items(2).send().await;
    let _ = table.query(Ticket::gsi6("acme", "eu").status_begins_with("op")).lenient().all().await;
    let _ = table.query(Ticket::gsi6("acme", "eu").status_eq("open").created_at_between(&1, &9)).send_keys().await;
}

fn main() {
    let _ = use_it;
}

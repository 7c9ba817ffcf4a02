//! Key conditions DynamoDB refuses do not compile: a range before an equality, a second range
//! (each says that a range condition is the last), a condition skipping a sort key attribute,
//! `begins_with` on a number.
use dynamo_entity::{Entity, KeyPart};

#[derive(KeyPart, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Open,
    Closed,
}

#[derive(Entity)]
#[entity(pk = "T#<id>", sk = "META", gsi6(pk(tenant, region), sk(status, created_at, priority)))]
pub struct Ticket {
    pub id: String,
    pub tenant: String,
    pub region: String,
    pub status: Status,
    pub created_at: u64,
    pub priority: u32,
}

fn main() {
    // A range on `status`, then an equality on `created_at`.
    let _ = Ticket::gsi6("acme", "eu").status_gt(&Status::Closed).created_at_eq(&5);
    // A second range on `status`.
    let _ = Ticket::gsi6("acme", "eu").status_gt(&Status::Closed).status_lt(&Status::Open);
    // Skipping `status`.
    let _ = Ticket::gsi6("acme", "eu").created_at_eq(&5);
    // Skipping `created_at`.
    let _ = Ticket::gsi6("acme", "eu").status_eq(&Status::Open).priority_gt(&1);
    // `begins_with` on a number.
    let _ = Ticket::gsi6("acme", "eu").status_eq(&Status::Open).created_at_begins_with("1");
    // Every partition key attribute is required.
    let _ = Ticket::gsi6("acme");
}

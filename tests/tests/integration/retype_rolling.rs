//! A field's type changed under rolling deploys, with schema versions: a ticket's `priority`
//! (1 to 3) becomes `due_in_hours` (8 hours a priority step) at schema version 2, while two
//! versions of the code serve one table at once in every phase (the guide's chapter 8, "A change
//! of shape, with schema versions").
//!
//! | phase | serving together | creates at | updates |
//! |---|---|---|---|
//! | expand | `Launch` (knows version 1 only) and `Expand` | version 1 | through the struct of the version stored |
//! | switch | `Expand` and `Switch` | `Switch`: version 2 | through the struct of the version stored |
//! | migrate | `Switch`, and the upgrade step | version 2 | through the struct of the version stored |
//! | contract | `Switch` and `Contract` | version 2 | `Contract`: version 2 only |
//!
//! An update through one struct is refused, writing nothing, when the item is stored at the
//! other version, with [`Error::UpgradeRequired`]: through `TicketV1` on a version-2 item
//! (`stored: 2`), through `TicketV2` on a version-1 item (`stored: 1`). The code of deploys 1 and 2 then
//! sends the same change through the other struct. In each phase 8 tasks of each version
//! create tickets, set the priority of the tickets they own in the phase, count views (`add`)
//! on any ticket and read tickets of the other version. Afterwards: no request failed, and
//! every version serving the phase reads, for every ticket, the last acknowledged priority and
//! the acknowledged view count. After the upgrade step every ticket is stored at version 2.

use std::sync::Arc;

use aws_sdk_dynamodb::types::AttributeValue;
use dynamo_entity::migrate::Migrations;
use dynamo_entity::schema::TableLayout;
use dynamo_entity::{Entity, Error, Table};

use crate::common;
use crate::common::rolling::{self, CREATES, Shared, TASKS, phase};

/// The ticket as the launch code stores it: version 1.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", name = "Ticket", schema(version = 1))]
pub struct TicketV1 {
    pub id: String,
    pub priority: u8,
    pub views: u64,
}

/// Version 2: a due time in hours instead of a priority.
#[derive(Entity, Debug, Clone, PartialEq)]
#[entity(pk = "TICKET#<id>", sk = "META", name = "Ticket", schema(version = 2, from = TicketV1))]
pub struct TicketV2 {
    pub id: String,
    pub due_in_hours: u32,
    pub views: u64,
}

impl From<TicketV1> for TicketV2 {
    fn from(v1: TicketV1) -> TicketV2 {
        TicketV2 { id: v1.id, due_in_hours: hours(v1.priority), views: v1.views }
    }
}

/// A priority's due time.
fn hours(priority: u8) -> u32 {
    8 * u32::from(priority)
}

/// Where a version creates, and which structs it updates through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Version {
    /// The launch code: version 1 only.
    Launch,
    /// Deploy 1: reads both versions; creates version 1; updates through the stored version's struct.
    Expand,
    /// Deploy 2: as deploy 1, but creates version 2.
    Switch,
    /// Deploy 3: version 2 only.
    Contract,
}

/// Whether `e` says the item is stored at the other version, so the same change must go
/// through the other struct: nothing was written.
fn other_version(e: &Error) -> bool {
    matches!(
        e,
        Error::UpgradeRequired { stored: 2, current: 1, .. } | Error::UpgradeRequired { stored: 1, current: 2, .. }
    )
}

impl rolling::Version for Version {
    type Value = u8;

    fn value(_id: &str, n: usize, k: usize) -> u8 {
        ((n + k) % 3 + 1) as u8
    }

    fn label(self) -> &'static str {
        match self {
            Version::Launch => "launch",
            Version::Expand => "expand",
            Version::Switch => "switch",
            Version::Contract => "contract",
        }
    }

    async fn create(self, table: &Table, id: &str, priority: &u8) -> Result<(), Error> {
        let (id, priority) = (id.to_owned(), *priority);
        match self {
            Version::Launch | Version::Expand => table.create(&TicketV1 { id, priority, views: 0 }).await?,
            Version::Switch | Version::Contract => {
                table.create(&TicketV2 { id, due_in_hours: hours(priority), views: 0 }).await?
            }
        };
        Ok(())
    }

    async fn get(self, table: &Table, id: &str) -> Result<Option<(u8, u64)>, Error> {
        Ok(if self == Version::Launch {
            table.get(TicketV1::key(id)).await?.map(|t| (t.priority, t.views))
        } else {
            // Version 1 is upgraded in memory.
            table.get(TicketV2::key(id)).await?.map(|t| ((t.due_in_hours / 8) as u8, t.views))
        })
    }

    async fn set(self, table: &Table, id: &str, priority: &u8) -> Result<(), Error> {
        self.send(table, id, Change::Priority(*priority)).await
    }

    async fn count(self, table: &Table, id: &str) -> Result<(), Error> {
        self.send(table, id, Change::View).await
    }
}

impl Version {
    /// The struct a version sends an update through first: `true` for `TicketV1`.
    fn tries_v1_first(self) -> bool {
        matches!(self, Version::Launch | Version::Expand)
    }

    /// Sends `change` through the struct of the version the ticket is stored at: the one the
    /// version writes first, then the other when the first was refused for the stored version.
    /// An item only moves from version 1 to 2 (the upgrade step), so a third try, with the
    /// first struct again, is the last one needed.
    async fn send(self, table: &Table, id: &str, change: Change) -> Result<(), Error> {
        match self {
            Version::Launch => return change.send(table, id, true).await,
            Version::Contract => return change.send(table, id, false).await,
            Version::Expand | Version::Switch => {}
        }
        let mut through_v1 = self.tries_v1_first();
        for _ in 0..2 {
            match change.send(table, id, through_v1).await {
                Err(e) if other_version(&e) => through_v1 = !through_v1,
                other => return other,
            }
        }
        change.send(table, id, through_v1).await
    }
}

/// A change to a ticket, as either struct writes it.
#[derive(Debug, Clone, Copy)]
enum Change {
    /// Sets the priority (`due_in_hours` at version 2).
    Priority(u8),
    /// Counts a view.
    View,
}

impl Change {
    /// Sends the change through `TicketV1` or `TicketV2`.
    async fn send(self, table: &Table, id: &str, through_v1: bool) -> Result<(), Error> {
        match (self, through_v1) {
            (Change::Priority(p), true) => {
                table.update(TicketV1::key(id)).set(TicketV1::PRIORITY, &p).send().await.map(drop)
            }
            (Change::Priority(p), false) => {
                table.update(TicketV2::key(id)).set(TicketV2::DUE_IN_HOURS, &hours(p)).send().await.map(drop)
            }
            (Change::View, true) => table.update(TicketV1::key(id)).add(TicketV1::VIEWS, &1).send().await.map(drop),
            (Change::View, false) => table.update(TicketV2::key(id)).add(TicketV2::VIEWS, &1).send().await.map(drop),
        }
    }
}

/// The raw `Ticket` items by stored schema version: `(version 1, version 2)`.
async fn versions_stored(table: &Table) -> (usize, usize) {
    rolling::split_items(table, "Ticket", |i| i.get("_schema") != Some(&AttributeValue::N("2".into()))).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_field_retyped_under_rolling_deploys_loses_no_write() {
    let table = common::table("retype_rolling", &[TicketV2::SCHEMA]).await;
    let ledger: Shared<u8> = Arc::default();

    // Launch: tickets written by the launch code only.
    rolling::launch(Version::Launch, &table, &ledger, 32).await;

    // Expand: the launch code and deploy 1; every ticket is at version 1.
    phase(Version::Launch, Version::Expand, &table, &ledger, "expand", 0).await;
    let count = ledger.lock().unwrap().value.len();
    assert_eq!(versions_stored(&table).await, (count, 0));

    // Switch: deploy 1 and deploy 2 (creates version 2); each updates the other's tickets.
    phase(Version::Expand, Version::Switch, &table, &ledger, "switch", 1).await;
    let (v1, v2) = versions_stored(&table).await;
    assert_eq!(v2, TASKS * CREATES, "deploy 2 created {} tickets at version 2", TASKS * CREATES);
    assert_eq!(v1 + v2, ledger.lock().unwrap().value.len());

    // Migrate: deploy 2 alone (deploy 1 is gone), the upgrade step beside it.
    let migrations = Arc::new(
        Migrations::new(TableLayout::new(&[TicketV2::SCHEMA]).unwrap())
            .upgrade::<TicketV2>("0001-ticket-v2", |b| b.segments(2)),
    );
    let run = rolling::apply_beside(&migrations, &table);
    phase(Version::Switch, Version::Switch, &table, &ledger, "migrate", 0).await;
    assert_eq!(run.await.unwrap().unwrap(), 1, "the step ran");
    assert!(migrations.verify(&table, None).await.unwrap()[0].is_clean());
    let count = ledger.lock().unwrap().value.len();
    assert_eq!(versions_stored(&table).await, (0, count));

    // Contract: deploy 2 and deploy 3 (version 2 only).
    phase(Version::Switch, Version::Contract, &table, &ledger, "contract", 1).await;
    let l = ledger.lock().unwrap().clone();
    assert_eq!(versions_stored(&table).await, (0, l.value.len()));
    assert_eq!(l.value.len(), 32 + 4 * 2 * TASKS * CREATES);
    assert!(l.requests > 1000, "{} requests", l.requests);
}

//! Index backfills: after an entity gains or changes a secondary index template, write the new
//! key attributes of every item of that entity already in the table.
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "MEMBER#<id>", sk = "META", gsi2 = "TEAM#<team>", gsi2_sk = "<rank>")]
//! pub struct Member { pub id: String, pub team: String, pub rank: u32 }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! // Member gained `gsi2 = "TEAM#<team>", gsi2_sk = "<rank>"`: fill GSI2PK / GSI2SK of the
//! // members written before, 8 segments, 4 at a time, at most 500 read units a second.
//! let report = table.backfill::<Member>("member-gsi2").segments(8).concurrency(4).read_rate(500.0).run().await?;
//! println!("{report}");
//! # Ok(())
//! # }
//! ```
//!
//! # The pass and its steps
//! A backfill is a pass over the items of one entity: a resumable parallel scan that hands each
//! item to its step, checkpoints each page, and counts what the step did ([`BackfillReport`]).
//! The step of an index backfill writes the item's secondary index keys; the same pass, with
//! another step, moves items to a new primary key ([`Table::rekey`]), writes items back at
//! their current schema version ([`Table::upgrade_all`]) and fills the keys of a native
//! multi-attribute index ([`Table::native_keys`]). Progress, resumption, workers and reports
//! (below) are the same for each.
//!
//! # How an index backfill works
//! A parallel scan ([`query::scan`](crate::query::scan)) reads the entity's items, segment by
//! segment. For each item, the entity's key templates give the secondary index keys it should
//! have ([`Entity::from_item`], then [`Entity::gsi_keys`]): every GSI key pair and LSI sort key
//! the entity declares. An item that already has exactly those (and none it should not) is
//! skipped without a write. Any other item gets one `UpdateItem` (`SET` of the keys it lacks or
//! has wrong, `REMOVE` of the sparse keys it should not have), with a condition that the item
//! is still as read: it exists, has the entity's type, and every attribute the keys are built
//! from, and every key attribute written, still has the value read (or is still absent). A
//! field that the primary key fixes (it fills a placeholder of `PK` or `SK`, in a key that keeps
//! case, with one of the library's one-to-one part writers) is not checked: the update is
//! addressed to that key, and an item whose fields disagree with its keys does not decode. An
//! item stored at an earlier schema version of a versioned entity is read as that version and
//! upgraded in memory, so its keys may come from attributes the current struct no longer names
//! (a field renamed since, or an optional field the upgrade reads, which code of that version
//! may still write): its condition checks every attribute that any declared version of the
//! entity writes, each still as read or still absent
//! ([`evolve::written_attributes`]). So
//!
//! * a write the application made meanwhile is never overwritten: the condition fails, DynamoDB
//!   returns the item as it now is (`ReturnValuesOnConditionCheckFailure = ALL_OLD`), and the
//!   backfill computes its keys again from that (counted in [`BackfillReport::changed`]); the
//!   application's own writes of the new code already carry the right keys, and are then
//!   skipped;
//! * an item deleted meanwhile never comes back (an update of an absent item would create it;
//!   the condition refuses it, and the item is counted in [`BackfillReport::vanished`]).
//!
//! # Progress and resumption
//! The backfill records its progress in the table itself, under the partition
//! `_MIGRATION#<id>` (the table's partition key attribute; entity type `_migration`, which no
//! entity scan or query returns): an item `RUN` (the run number, the number of segments,
//! `running` or `completed`) and an item `SEGMENT#<n>` per segment, holding its
//! `LastEvaluatedKey` and counters, written after each page is done (every item of the page
//! updated or skipped). A run stopped at any point, a killed process included, resumes with
//! [`Backfill::run`] from the last page recorded of each segment; the items of the page that
//! was in progress are read again, and those it already updated are then skipped. Running a
//! completed backfill again returns its report without reading anything; [`Backfill::rerun`]
//! starts a new run (which, on a table already backfilled, skips every item).
//!
//! # Several workers
//! A backfill can be spread over several processes or machines, each running it with its own
//! [`Backfill::worker`] name: a worker claims a segment by writing its checkpoint item with
//! itself as owner and a lease expiry, on the condition that the item is the one it read (a
//! write counter `v`) and that the segment is free, its own, or its lease expired; every
//! checkpoint renews the lease, on the condition that the worker still holds it. The segments
//! of a worker that dies are taken over by the others once its lease expires, from its last
//! checkpoint; nothing else coordinates the workers. Start the run once (or let the first
//! worker start it), and call [`Backfill::rerun`] from one place only.
//!
//! [`Table::rekey`]: crate::Table::rekey
//! [`Table::upgrade_all`]: crate::Table::upgrade_all
//! [`Table::native_keys`]: crate::Table::native_keys
//! [`Entity::from_item`]: crate::Entity::from_item
//! [`Entity::gsi_keys`]: crate::Entity::gsi_keys
//! [`evolve::written_attributes`]: crate::schema::evolve::written_attributes

// The builder and report keep the public name they have always had; they are the pass's
// (`migrate/pass/`), which names none of its steps (`migrate/steps/`).

pub use crate::migrate::pass::{Backfill, BackfillReport, MIGRATION_TYPE, PageDone, PageObserver};

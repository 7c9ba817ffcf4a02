//! Schema evolution: the table against its declaration ([`diff`]: [`Table::diff`],
//! [`Table::apply`]) and index backfills ([`backfill`]: the new GSI keys of an entity's items,
//! written by a resumable parallel scan) and re-keying ([`rekey`]: each item moved to a new
//! primary key template, in one transaction), writing items of an earlier schema version
//! back upgraded ([`upgrade`]: [`Table::upgrade`], see [`evolve`](crate::schema::evolve)),
//! a template GSI replaced by a native multi-attribute one ([`native`]: [`Table::native_keys`]),
//! bulk upgrades of every item of an entity ([`Table::upgrade_all`]), and
//! the [`runner`] that applies a table's declared migrations in order and records each.
//!
//! Inside, the engine is named for what it is: the pass over an entity's items (segments,
//! checkpoints, leases, the report: the folder `pass/`, whose builder and report [`backfill`]
//! names) apart from its
//! steps (`steps/`: the index keys, [`rekey`], [`upgrade`], [`native`]), each a file of its own.
//!
//! This room sits above [`table`](crate::table) and [`query`](crate::query): it uses the scans
//! of [`query::scan`](crate::query::scan) and sends every request through the table's one
//! executor.
//!
//! [`Table::diff`]: crate::Table::diff
//! [`Table::apply`]: crate::Table::apply
//! [`Table::upgrade`]: crate::Table::upgrade
//! [`Table::native_keys`]: crate::Table::native_keys
//! [`Table::upgrade_all`]: crate::Table::upgrade_all

pub mod backfill;
pub mod diff;
mod pass;
pub mod runner;
mod steps;
pub mod vector_diff;

// The steps keep the public paths they have always had.
pub use steps::{native, rekey, upgrade};

pub use diff::{Change, IndexShape, Plan, Step, TableDiff, Wait};
pub use native::{NativeKeys, NativeKeysReport};
pub(crate) use pass::Checkpoints;
pub use pass::{Backfill, BackfillReport, PageDone, PageObserver, VERIFY_EXAMPLES, VerifyReport};
pub use runner::{
    Applied, Kind, MigrationStatus, Migrations, Observer, RunOptions, Status, Verification, Verified, default_worker,
};
pub use vector_diff::VectorIndexShape;

//! What a pass reports: its counts per segment and in total ([`BackfillReport`]), and each
//! page done ([`PageDone`]).

use std::fmt;
use std::sync::Arc;

/// At most this many failures are kept, with their keys, in a report.
pub(super) const KEPT_FAILURES: usize = 100;

/// What a backfill did, over all the segments of its run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BackfillReport {
    /// The migration id.
    pub id: String,
    /// The run number (1 for the first run; [`Backfill::rerun`](super::Backfill::rerun) adds
    /// one).
    pub run: u64,
    /// The number of scan segments.
    pub segments: u32,
    /// Whether every segment is done.
    pub completed: bool,
    /// Items of the entity read (an item read again after a resumption counts again).
    pub scanned: u64,
    /// Items whose keys were written.
    pub updated: u64,
    /// Items that already had the right keys (no write).
    pub skipped: u64,
    /// Items that could not be backfilled: they do not decode, their keys do not encode, or
    /// their condition kept failing. The first ones are in [`failures`](Self::failures).
    pub failed: u64,
    /// Items deleted between the scan and their update (not written back).
    pub vanished: u64,
    /// Updates whose condition failed because the item changed after it was read; each was
    /// computed again from the item as it then was (and is counted once more in
    /// `updated`, `skipped`, `vanished` or `failed`).
    pub changed: u64,
    /// Read units of the scan.
    pub read_units: f64,
    /// Write units of the updates (the checkpoint writes, one a page, are not counted).
    pub write_units: f64,
    /// The first failures: the item's key (`PK=… SK=…`) and why.
    pub failures: Vec<(String, String)>,
}

impl fmt::Display for BackfillReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "backfill {} run {} ({} segments, {}): {} scanned, {} updated, {} skipped, {} failed, {} vanished, {} \
             changed meanwhile; {} RCU, {} WCU",
            self.id,
            self.run,
            self.segments,
            if self.completed { "completed" } else { "in progress" },
            self.scanned,
            self.updated,
            self.skipped,
            self.failed,
            self.vanished,
            self.changed,
            self.read_units,
            self.write_units
        )
    }
}

/// The counts of a segment, or of a whole run: the fields of [`BackfillReport`] but its
/// identity.
#[derive(Debug, Clone, Default)]
pub(super) struct Counts {
    pub(super) scanned: u64,
    pub(super) updated: u64,
    pub(super) skipped: u64,
    pub(super) failed: u64,
    pub(super) vanished: u64,
    pub(super) changed: u64,
    pub(super) read_units: f64,
    pub(super) write_units: f64,
    pub(super) failures: Vec<(String, String)>,
}

impl Counts {
    /// Adds `o`, keeping at most [`KEPT_FAILURES`] failures.
    pub(super) fn add(&mut self, o: &Counts) {
        self.scanned += o.scanned;
        self.updated += o.updated;
        self.skipped += o.skipped;
        self.failed += o.failed;
        self.vanished += o.vanished;
        self.changed += o.changed;
        self.read_units += o.read_units;
        self.write_units += o.write_units;
        for f in &o.failures {
            if self.failures.len() < KEPT_FAILURES {
                self.failures.push(f.clone());
            }
        }
    }

    /// The report of run `run` of the pass `id` over `segments` segments, with these counts.
    pub(super) fn into_report(self, id: String, run: u64, segments: u32, completed: bool) -> BackfillReport {
        BackfillReport {
            id,
            run,
            segments,
            completed,
            scanned: self.scanned,
            updated: self.updated,
            skipped: self.skipped,
            failed: self.failed,
            vanished: self.vanished,
            changed: self.changed,
            read_units: self.read_units,
            write_units: self.write_units,
            failures: self.failures,
        }
    }
}

/// One page of a backfill done and checkpointed: what
/// [`Backfill::on_page`](super::Backfill::on_page) observers are told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageDone {
    /// The scan segment.
    pub segment: u32,
    /// Items DynamoDB read for the page (`ScannedCount`: items of every entity type, the
    /// measure of progress through the table).
    pub examined: u64,
    /// Items of the entity in the page.
    pub scanned: u64,
    /// Of those, items written (updated or moved).
    pub updated: u64,
    /// Whether the segment is done.
    pub segment_done: bool,
}

/// An observer of a backfill's pages; see [`Backfill::on_page`](super::Backfill::on_page).
pub type PageObserver = Arc<dyn Fn(&PageDone) + Send + Sync>;

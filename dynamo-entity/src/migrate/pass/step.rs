//! What a pass does with each item it reads: the one thing in which its steps differ.

use crate::error::Error;
use crate::schema::Item;
use crate::table::Table;

/// How many times one item is read again after its condition failed (a write of the
/// application in between) before it counts as failed.
pub(crate) const ATTEMPTS: u32 = 8;

/// The retries of an update or move that failed with throttling or a server error.
pub(crate) const RETRY: crate::retry::RetryPolicy = crate::retry::RetryPolicy::DEFAULT;

/// What happened to one item.
pub(crate) enum Outcome {
    Updated,
    Skipped,
    Vanished,
    Failed(String),
}

/// What a pass over the items of entity `E` does with each item read: the one thing in which
/// a backfill of secondary index keys ([`Table::backfill`], `steps/gsi_keys.rs`), a re-keying
/// ([`Table::rekey`], `steps/rekey.rs`), a bulk upgrade ([`Table::upgrade_all`],
/// `steps/upgrade.rs`) and a native-key migration ([`Table::native_keys`], `steps/native.rs`)
/// differ. Each implements it in its own file; the pass (scan, checkpoints, leases, counts)
/// names none of them.
pub(crate) trait Step<E>: Send + Sync {
    /// The error that refuses the pass before anything is read, if any.
    fn refusal(&self) -> Option<Error> {
        None
    }

    /// Handles one item read: its outcome, how many conditions failed because the item
    /// changed meanwhile, and the write units consumed.
    ///
    /// # Errors
    /// A request DynamoDB refused for another reason than its condition, after retries; it
    /// stops the pass (the item's page is read again when the pass resumes).
    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>>;

    /// What the step would still do to `item` (as read), without a request: the check of a
    /// verification, which a late writer's item (written after the step ran, by code that
    /// does not know it) fails.
    fn check(&self, item: &Item) -> Check;
}

/// What a [`Step`] would still do to one item, judged from the item as read without writing
/// anything: what a verification ([`Backfill::verify`](super::Backfill::verify)) counts.
pub(crate) enum Check {
    /// The step would leave the item as it is.
    Clean,
    /// The step would change the item: what it would change, in a few words.
    Drift(String),
    /// The step cannot judge the item (it does not decode, or its keys do not encode): why.
    Undecodable(String),
}

/// What a [`Step`] did with one item: its outcome, how many conditions failed because the item
/// changed meanwhile, and the write units consumed.
pub(crate) type ItemDone = (Outcome, u64, f64);

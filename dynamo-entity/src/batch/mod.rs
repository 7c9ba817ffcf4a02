//! Batch writes and batch gets of any number of items: [`BatchWrite`] (from
//! [`Table::batch_write`]), [`BatchGet`] (from [`Table::batch_get`]) and [`BatchGetMixed`] (from
//! [`Table::batch_get_mixed`]).
//!
//! # What a batch does
//!
//! - **Checks everything before sending anything.** Every key and item is encoded when it is
//!   added; the first encoding error ([`Error::Key`], [`Error::Encode`]) is returned by `send`
//!   before any request. So is an item over DynamoDB's 400 KB item size limit
//!   ([`Error::ItemTooLarge`], measured with [`item_size`]), and two entries naming the same item
//!   (same `PK` and `SK`, whatever their entity types: [`Error::DuplicateKey`]), which DynamoDB
//!   would reject as a whole request.
//! - **Splits** the entries into requests of at most [`MAX_WRITE_ITEMS`] (25) writes
//!   (`BatchWriteItem`) or [`MAX_GET_KEYS`] (100) keys (`BatchGetItem`), in the order they were
//!   added, and sends up to [`concurrency`](BatchWrite::concurrency) requests at a time (4 by
//!   default). A `BatchWriteItem` request also stays within DynamoDB's 16 MB limit on its body
//!   ([`MAX_REQUEST_BYTES`], measured on the request's JSON, which can be much larger than the
//!   items' sizes as DynamoDB counts them); a single write whose request would be over it is
//!   refused before anything is sent ([`Error::LimitExceeded`]). A `BatchGetItem` response over
//!   16 MB is cut short by DynamoDB itself, which returns the rest as `UnprocessedKeys`.
//! - **Retries what DynamoDB did not process.** A `BatchWriteItem` or `BatchGetItem` answered
//!   with `UnprocessedItems` / `UnprocessedKeys` (a successful, HTTP 200 response) is sent again
//!   with just those entries, after an exponential backoff with full jitter, up to the bound of
//!   the [`RetryPolicy`] (8 attempts, 50 ms doubling to at most 2 s, by default). A request that
//!   fails with a retryable error (throttling, HTTP 5xx, timeout, connection failure) *after the
//!   SDK's own retries* is retried the same way.
//! - **Never drops nor over-counts.** Whatever is still not written (or read) when the bound is
//!   reached is returned with its entity type, key, position and reason
//!   ([`UnprocessedWrite`], [`UnprocessedKey`]); the written count only includes writes that
//!   DynamoDB acknowledged. A request that fails with an error that retrying cannot fix (such as
//!   `ResourceNotFoundException`) stops the batch: requests not yet started are not sent, and a
//!   batch write returns [`Error::BatchWrite`] carrying the full [`BatchWriteOutcome`].
//!
//! Positions are 0-based: the order in which entries were added to the batch.
//!
//! # Lost answers: what a batch guarantees
//!
//! DynamoDB may apply a request and lose its answer (an HTTP 5xx, a timeout). `BatchWriteItem`
//! takes no condition, so a batch's writes carry no write token (see
//! [`write_token`](crate::write_token)); what makes sending one again safe is that each put
//! and each delete is idempotent for its item: a put writes the same whole item again, a delete
//! deletes the same key again.
//!
//! | a write | what is guaranteed |
//! |---|---|
//! | counted in [`written`](BatchWriteOutcome::written) | applied at least once; the item is as if written once, unless another writer wrote that key between two attempts that carried it (the later attempt then overwrites that write: a put brings the batch's item back, a delete deletes the other writer's item) |
//! | in [`unprocessed`](BatchWriteOutcome::unprocessed), [`maybe_written`](UnprocessedWrite::maybe_written) `false` | not applied by this batch |
//! | in `unprocessed`, `maybe_written` `true` | an attempt that carried it lost its answer: it may have been applied (at least once, as above) |
//!
//! A request whose answer was lost is sent again: by the SDK's own retries (3 attempts by
//! default), then by the batch's [`RetryPolicy`]. The batch keeps the SDK's retries (unlike
//! single-item writes and transactions, which the library sends one attempt at a time): a
//! resend is safe here, and the SDK's attempts keep their budget within each of the batch's.
//! An interceptor sees each of the SDK's attempts, so a lost answer is known even when a later
//! attempt answers. Writes whose effect must not repeat (counters, list appends, conditional
//! writes) belong in [`Table::update`] or [`Table::transact`], which are applied once.
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "SKILL#<id>", sk = "META")]
//! struct Skill { id: String, title: String }
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "SKILL#<skill>", sk = "REVIEW#<user>")]
//! struct Review { skill: String, user: String, stars: u8 }
//!
//! # async fn demo(table: Table, skills: Vec<Skill>) -> dynamo_entity::Result<()> {
//! let outcome = table
//!     .batch_write()
//!     .put_all(&skills)
//!     .put(&Review { skill: "s1".into(), user: "u1".into(), stars: 5 })
//!     .delete(Review::key("s1", "u2"))
//!     .send()
//!     .await?;
//! assert_eq!(outcome.written + outcome.unprocessed.len(), skills.len() + 2);
//! for left in &outcome.unprocessed {
//!     eprintln!("not written: {left}"); // e.g. `put Skill PK=SKILL#s9 SK=META: ...`
//! }
//!
//! let keys: Vec<_> = ["s1", "s2", "s3"].into_iter().map(Skill::key).collect();
//! let found: Vec<Option<Skill>> = table.batch_get(keys).send().await?.into_result()?;
//! # let _ = found;
//! # Ok(())
//! # }
//! ```

mod get;
mod get_core;
mod get_outcome;
mod get_run;
mod key_id;
mod lost;
mod run;
mod wire;
mod write;
mod write_chunks;
mod write_op;
mod write_run;

pub use crate::error::{BatchWriteOutcome, UnprocessedKey, UnprocessedReason, UnprocessedWrite, WriteKind};
pub use crate::limits::MAX_REQUEST_BYTES;
pub use crate::retry::RetryPolicy;
pub use crate::schema::size::{MAX_ITEM_BYTES, item_size};
pub use get::{BatchGet, BatchGetMixed};
pub use get_core::MAX_GET_KEYS;
pub use get_outcome::BatchGetOutcome;
pub use run::DEFAULT_CONCURRENCY;
pub use write::BatchWrite;
pub use write_chunks::MAX_WRITE_ITEMS;

#[cfg(doc)]
use crate::error::Error;
use crate::schema::{Admits, Entity, Key};
use crate::table::{Op, Table};

impl<D> Table<D> {
    /// Puts every value with [`Table::batch_write`] and the default settings.
    ///
    /// # Errors
    /// As [`BatchWrite::send`](crate::batch::BatchWrite::send).
    pub fn batch_put<'a, E: Entity + Sync>(&self, values: &'a [E]) -> Op<'a, BatchWriteOutcome>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move { table.batch_write().put_all(values).send().await })
    }

    /// Reads the items of these keys of one entity type, as `BatchGetItem` requests of at most
    /// 100 keys, with unprocessed keys retried; the items come back in the order of the keys.
    /// See [`BatchGet`].
    pub fn batch_get<E: Entity>(&self, keys: impl IntoIterator<Item = Key<E>>) -> BatchGet<E>
    where
        D: Admits<E>,
    {
        BatchGet::new(self.untyped(), keys)
    }

    /// A batch of puts and deletes of any entity types and any number of items, sent as
    /// `BatchWriteItem` requests of at most 25 writes, with unprocessed items retried; see
    /// [`BatchWrite`] and the [`batch`](crate::batch) module. On a declared handle
    /// (`Table<D>`), of `D`'s entities only.
    pub fn batch_write(&self) -> crate::batch::BatchWrite<D> {
        crate::batch::BatchWrite::new(self.untyped())
    }

    /// A batch get of keys of any entity types, returning raw items in the order of the keys;
    /// see [`BatchGetMixed`]. On a declared handle (`Table<D>`), of `D`'s entities only.
    pub fn batch_get_mixed(&self) -> crate::batch::BatchGetMixed<D> {
        crate::batch::BatchGetMixed::new(self.untyped())
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;
    use crate::schema::Item;

    #[test]
    fn item_size_follows_dynamodb_rules() {
        let item: Item = [
            ("s".to_owned(), AttributeValue::S("héllo".into())),      // 1 + 6
            ("n".to_owned(), AttributeValue::N("-0012300.0".into())), // 1 + 3 ("123")
            ("b".to_owned(), AttributeValue::Bool(true)),             // 1 + 1
            ("l".to_owned(), AttributeValue::L(vec![AttributeValue::S("ab".into())])), // 1 + 3 + 1 + 2
            ("m".to_owned(), AttributeValue::M([("k".to_owned(), AttributeValue::Null(true))].into())), // 1 + 3 + 1 + 1 + 1
            ("ss".to_owned(), AttributeValue::Ss(vec!["a".into(), "bc".into()])),                       // 2 + 3
        ]
        .into_iter()
        .collect();
        assert_eq!(item_size(&item), 7 + 4 + 2 + 7 + 7 + 5);
    }
}

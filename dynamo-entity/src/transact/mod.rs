//! Transactions: typed `TransactWriteItems` ([`TransactWrite`]) and `TransactGetItems`
//! ([`TransactGet`], [`Table::transact_get_many`]).
//!
//! ```no_run
//! # use dynamo_entity::{Entity, Table};
//! # #[derive(Entity)] #[entity(pk = "PURCHASE#<skill>#<buyer>", sk = "META")]
//! # struct Purchase { skill: String, buyer: String }
//! # #[derive(Entity)] #[entity(pk = "SKILL#<id>", sk = "META")]
//! # struct Skill { id: String, downloads: u64 }
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let purchase = Purchase { skill: "s1".into(), buyer: "u2".into() };
//! table
//!     .transact()
//!     .create(&purchase) // fails the whole transaction if already recorded
//!     .update(table.update(Skill::key("s1")).add(Skill::DOWNLOADS, &1))
//!     .client_request_token("purchase-s1-u2")
//!     .send()
//!     .await?;
//! # Ok(())
//! # }
//! ```
//!
//! # DynamoDB's rules, and what this module checks before sending
//!
//! * **All or nothing.** Either every action is applied or none is. When DynamoDB cancels a
//!   transaction (`TransactionCanceledException`: a condition failed, a conflicting write, a
//!   throttled item, ...), the error is [`Error::TransactionCanceled`], listing each action that
//!   failed with the index it had in the request, its kind, entity type and key, and the reason
//!   ([`CancellationReason`]).
//! * **At most 100 actions** ([`MAX_ACTIONS`]), for writes and for reads alike; more is
//!   [`Error::Invalid`] before sending.
//! * **One action per item.** Two actions on the same item (same table, `PK` and `SK`) are
//!   [`Error::Invalid`] before sending, naming both action indexes and the key. (DynamoDB rejects
//!   such a request with a `ValidationException`; DynamoDB Local 3.3.0 does not check it for
//!   writes.) A condition on an item that is also written belongs in that write's condition, not
//!   in a separate [`condition_check`](TransactWrite::condition_check).
//! * **4 MB at most** in total over the items of one transaction (and 400 KB per item, as
//!   always). DynamoDB checks this; a request over it fails with [`Error::Sdk`]
//!   (`ValidationException`).
//! * **Cost.** A transactional write consumes 2 WCU per 1 KB of each item written (twice a plain
//!   write), a transactional read 2 RCU per 4 KB (twice a strongly consistent read). A
//!   condition check costs a transactional read of the checked item. Each GSI entry written
//!   costs twice too. See [`capacity`](crate::capacity) for estimates and
//!   [`TransactWrite::send_with_capacity`] for the figure DynamoDB reports.
//! * **Idempotent retries.** A request with a `ClientRequestToken`, sent again within 10
//!   minutes, is answered as the first success without being applied again. The same token
//!   with a different request is an `IdempotentParameterMismatchException` ([`Error::Sdk`]).
//!   See *Exactly once* below.
//! * **Conflicts.** A transaction that meets another transaction or write on one of its items
//!   may be canceled with [`CancellationCode::TransactionConflict`]. Nothing was written, so
//!   sending it again is safe; [`TransactWrite::retry_conflicts`] does so with backoff.
//!
//! # Exactly once
//!
//! DynamoDB may apply a transaction and lose its answer (an HTTP 5xx, a timeout, a reset
//! connection); sent again, it would be applied again (an `add` counted twice). So every
//! `TransactWriteItems` the library sends (a [`TransactWrite`], and each write of an entity
//! with unique fields) carries a `ClientRequestToken`: yours
//! ([`TransactWrite::client_request_token`]), or one made for the call (32 hexadecimal
//! digits: the clock in milliseconds and 8 random bytes). The library sends it itself, one
//! attempt at a time (the SDK's retries are off for it), as many attempts as the SDK client's
//! retry configuration allows (3 by default):
//!
//! | an attempt's answer | the library |
//! |---|---|
//! | success | done: `Ok`, whether this attempt applied it or an earlier one did (DynamoDB answers the resend of an applied request as its first success) |
//! | `TransactionCanceledException` | nothing was applied, by any attempt: [`Error::TransactionCanceled`] (or a retry, see *Conflicts*) |
//! | throttled | not applied: the same request again |
//! | lost: HTTP 5xx, a timeout, a connection failure, `TransactionInProgressException` | the same request with the same token again |
//! | another error, before any answer was lost | not applied: [`Error::Sdk`] |
//! | every attempt lost its answer (or another error came after a lost one) | [`Error::OutcomeUnknown`] |
//!
//! A request that must change before it is sent again (a unique-field write reads the item
//! again after a race and plans a new transaction) gets a new token, and only after DynamoDB
//! canceled the previous one: a request that may have been applied is never replaced.
//!
//! [`Error::OutcomeUnknown`] carries the request and its token;
//! [`Table::resolve`]`(error.pending())` sends it again with the token within
//! [`TOKEN_WINDOW`] (9 minutes) of its first attempt, and answers
//! [`Resolved::Applied`](crate::write_token::Resolved::Applied) when it succeeds: applied once,
//! by the lost attempt or by resolve itself, which so completes a transaction that was not
//! applied; [`Resolved::NotApplied`](crate::write_token::Resolved::NotApplied) when it is
//! canceled (its conditions do not hold now; nothing of it was applied). After the window,
//! DynamoDB treats the token as new, so resolve answers
//! [`Resolved::CannotTell`](crate::write_token::Resolved::CannotTell) and sends nothing.
//!
//! Limits: DynamoDB keeps a token for 10 minutes after the first request that used it
//! completed; with your own token, the window counts from this call's first attempt, so a token
//! you used in an earlier call ends its window sooner. A token made by the library is unique
//! to the call: sending the same [`TransactWrite`] twice (two calls) applies it twice; give it
//! your own token (derived from what identifies the operation) to make the calls idempotent.
//! A resend DynamoDB answers from its token reports the capacity DynamoDB reports for it (read
//! units, not the write units of the first success).
//!
//! # Versioned entities and maintained timestamps
//!
//! The actions of an entity with an `#[entity(version)]` field carry the same conditions and
//! bumps as the single writes (see [`versioning`]): [`create`](TransactWrite::create)
//! stores version 1; [`put`](TransactWrite::put) and [`replace`](TransactWrite::replace) are
//! conditional on the stored version being the value's and store the next one; an
//! [`update`](TransactWrite::update) needs [`UpdateRequest::if_version`] (or
//! [`any_version`](UpdateRequest::any_version)) and bumps the version. A stored version that
//! differs cancels the transaction with [`CancellationCode::ConditionalCheckFailed`] on that
//! action; its [`item`](CancellationReason::item) shows the stored version. `created_at` and
//! `updated_at` are set as by the single writes. The values passed in are not modified.
//!
//! # Entities with unique fields
//!
//! An entity with `#[entity(unique)]` fields owns a guard item for each unique value (see
//! [`unique`](crate::unique)). [`TransactWrite::create`] of such an entity adds one action per
//! present unique value that claims its guard (counted in the 100). Putting, replacing or
//! deleting such an entity inside a transaction is rejected before sending: it would have to know
//! the stored values to move or release their guards; [`Table::put`], [`Table::replace`] and
//! [`Table::delete`] read them first and run their own transaction. Updates are allowed: an
//! [`UpdateRequest`] cannot set a unique field (see
//! [`UpdateRequest::set_unique`](crate::update::UpdateRequest::set_unique)).

mod action;
mod cond;
mod get;
mod named;
mod resend;
mod send;
mod write;

pub use crate::error::{ActionKind, CancellationCode, CancellationReason};
pub(crate) use action::Action;
pub(crate) use cond::Cond;
pub use get::TransactGet;
pub use named::MAX_ACTIONS;
pub(crate) use resend::RequestToken;
pub use resend::TOKEN_WINDOW;
pub(crate) use send::{only_transient, send_once, write_request};
pub use write::{MAX_TOKEN_CHARS, TransactWrite};

use get::{GetAction, decode, get_items};

#[cfg(doc)]
use crate::error::Error;
use crate::schema::{Admits, Entity, Key};
use crate::table::{Op, Table};
#[cfg(doc)]
use crate::update::UpdateRequest;
#[cfg(doc)]
use crate::versioning;

impl<D> Table<D> {
    /// A transaction of up to 100 write actions on this table (`TransactWriteItems`); see
    /// [`TransactWrite`] and the [`transact`](crate::transact) module for DynamoDB's rules. On
    /// a declared handle (`Table<D>`), its actions accept only `D`'s entities.
    pub fn transact(&self) -> TransactWrite<D> {
        TransactWrite::new(self.untyped())
    }

    /// A consistent read of up to four items of any entity types (`TransactGetItems`); see
    /// [`TransactGet`]. On a declared handle (`Table<D>`), only of `D`'s entities.
    pub fn transact_get(&self) -> TransactGet<(), D> {
        TransactGet::new(self.untyped())
    }
}

impl<D> Table<D> {
    /// A consistent read of up to 100 items of entity type `E` (`TransactGetItems`): one
    /// `Option` per key, in order, `None` for a missing item. Costs 2 RCU per 4 KB of each item;
    /// the reads are serializable with every transaction and write.
    ///
    /// # Errors
    /// As [`TransactGet::send`]; [`Error::Invalid`] for no key; [`Error::LimitExceeded`]
    /// ([`Limit::TransactionActions`](crate::limits::Limit::TransactionActions)) for more than
    /// [`MAX_ACTIONS`];
    /// [`Error::ResponseTooLarge`] when the items total more than the 4 MB one answer holds
    /// (known only to DynamoDB: nothing was read).
    ///
    /// On a declared handle (`Table<D>`), of `D`'s entities only.
    pub fn transact_get_many<'a, E: Entity>(
        &self,
        keys: impl IntoIterator<Item = Key<E>> + Send + 'a,
    ) -> Op<'a, Vec<Option<E>>>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        Box::pin(async move {
            let mut gets = Vec::new();
            for key in keys {
                let key = key.into_encoded()?;
                let text = E::NAMES.show_key(&key);
                gets.push(GetAction { entity: E::TYPE, names: E::NAMES, table: table.name().to_owned(), text, key });
            }
            get_items(&table, &gets).await?.into_iter().map(decode::<E>).collect()
        })
    }
}

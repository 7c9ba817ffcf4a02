//! Unique fields, enforced by guard items.
//!
//! DynamoDB enforces uniqueness of the primary key only. A field marked `#[entity(unique)]`
//! (such as a user's e-mail address) gets the same guarantee through a *guard item* per value,
//! keyed on the value, written and deleted in the same transaction as the entity:
//!
//! ```no_run
//! use dynamo_entity::{Entity, Error, Table};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "USER#<id>", sk = "PROFILE")]
//! struct User {
//!     id: String,
//!     #[entity(unique)]
//!     email: String,
//!     #[entity(unique)]
//!     handle: Option<String>, // None claims nothing
//! }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let ann = User { id: "u1".into(), email: "ann@example.test".into(), handle: None };
//! table.create(&ann).await?; // the user and the guard of ann@example.test, in one transaction
//! let bob = User { id: "u2".into(), email: "ann@example.test".into(), handle: None };
//! assert!(matches!(table.create(&bob).await, Err(Error::UniqueViolation { field: "email", .. })));
//! // Changing the value moves the guard, in one transaction.
//! table.update(User::key("u1")).set_unique(User::EMAIL, &"ann@example.org".to_owned()).send().await?;
//! let found = table.get_by_unique(User::EMAIL, &"ann@example.org".to_owned()).await?;
//! # Ok(())
//! # }
//! ```
//!
//! # The guard item
//!
//! | attribute | value |
//! |---|---|
//! | `PK` | `UNIQUE#<entity>#<attribute>#<value>`, such as `UNIQUE#User#email#ann@example.test` |
//! | `SK` | `UNIQUE` |
//! | `_type` | `_unique` ([`GUARD_TYPE`]) |
//! | `entity`, `field` | the owner's entity type and the unique field's attribute name |
//! | `value` | the value, as the owner stores it |
//! | `ownerPK`, `ownerSK` | the owner's primary key |
//!
//! The entity type, attribute name and (string) value are escaped as key parts are (`#` as
//! `%23`, `%` as `%25`), so no value can forge another guard's key. A number is written in its
//! plain canonical form (`1.50` and `1.5` claim the same guard), binary data as URL-safe base64,
//! a bool as `true` / `false`. Values are compared exactly: normalize (for instance lower-case
//! an e-mail address) before storing if two spellings must count as one. The guard key uses the
//! *attribute* name, so renaming the Rust field alone keeps the guards. A partition key starting
//! with `UNIQUE#` and sort key `UNIQUE` is reserved for guards. Each value is unique within its
//! entity type and field; guards of different entities or fields never collide.
//!
//! # Semantics of each write
//!
//! Every write of an entity with unique fields is one `TransactWriteItems` (2 WCU per 1 KB of
//! each item written), conditional so that **no path leaves an orphan guard or two owners of one
//! value**. A guard may be claimed when it is absent or already belongs to the same item (the
//! owner's `PK` and `SK`); it is released only when it belongs to that item.
//!
//! * [`Table::create`]: the entity (if absent) and a guard per present value. A taken value is
//!   [`Error::UniqueViolation`] naming the entity type, field and value; an existing entity is
//!   [`Error::AlreadyExists`] (checked first: a second call of the same create reports
//!   `AlreadyExists`; the library's own resend of a lost answer does not, see below).
//! * [`Table::put`] (create or replace) and [`Table::replace`] (must exist): read the stored item
//!   (strongly consistent, 1 RCU per 4 KB), then in one transaction write the entity on the
//!   condition that its unique values are still the ones read, release the guards of values
//!   that change and claim the guards of the values written. If the item changed in between, the read and the
//!   transaction are repeated (up to 10 attempts in all, with backoff).
//! * [`UpdateRequest::set_unique`]: the only way to change a unique field (the field handle is
//!   `Field<E, T, Unique>`, which `UpdateRequest::set` does not take). The same read, then one
//!   transaction: the update, conditional on the old value (and on the update's own condition),
//!   the release of the old guard and the claim of the new one.
//! * [`Table::delete`]: read the item, then delete it on the condition that its unique values
//!   are still the ones read, with its guards.
//! * In a [`TransactWrite`], `create` claims the guards, while
//!   `put`, `replace` and `delete` of such an entity are rejected (they would need the read).
//!
//! Transactions canceled by conflicts with concurrent writes (`TransactionConflict`) or by
//! throttling are resent with backoff within the same 10 attempts; nothing is written by a
//! canceled transaction.
//!
//! Each transaction carries a `ClientRequestToken` made for it and is sent again with it when
//! its answer is lost, so it is applied once (see [exactly
//! once](crate::transact#exactly-once)): a create whose first attempt was applied answers
//! `Ok`, not `AlreadyExists`, and leaves one guard per value and one owner. A transaction
//! planned again after a cancellation gets a new token. When every attempt lost its answer, the
//! write is [`Error::OutcomeUnknown`], named by the entity and its key;
//! [`Table::resolve`](crate::Table::resolve) sends the same transaction again with its token
//! (within 9 minutes) and says whether it was applied.
//!
//! Entities stored before a field became unique have no guards. They keep working: releasing
//! a guard that is absent succeeds, and [`Table::put`] and [`Table::replace`] claim the guard of
//! every value they write, changed or not (a no-op for a guard the item owns), so putting each
//! such entity again fills the guards in. Where several items held one value before, the first
//! to claim it owns it; a put of another one with that value is [`Error::UniqueViolation`], and
//! a write that moves it off the value leaves the owner's guard alone (the transaction then
//! checks, instead of releasing, that the guard is not its own). Batch writes cannot be
//! conditional, so they must not write entities with unique fields.

mod guard;
mod lookup;
mod plan;
mod update;
mod write;

pub(crate) use guard::{guard_item, guard_key, parse_guard_key};
pub use update::UniqueUpdate;
pub(crate) use write::{create, delete, put, render_write};

#[cfg(doc)]
use crate::error::Error;
#[cfg(doc)]
use crate::table::Table;
#[cfg(doc)]
use crate::transact::TransactWrite;
#[cfg(doc)]
use crate::update::UpdateRequest;

/// Marker of a field handle for an `#[entity(unique)]` field: `Field<E, T, Unique>`. Such a
/// field is changed with [`UpdateRequest::set_unique`] only, which moves its guard item; the
/// other update methods take `Field<E, T, Mutable>` and do not accept it.
#[derive(Debug, Clone, Copy)]
pub enum Unique {}

impl crate::expr::NotKey for Unique {}
impl crate::expr::NotMaintained for Unique {}

pub use crate::schema::reserved::{GUARD_PREFIX, GUARD_SK, GUARD_TYPE};

/// Whether `E` has `#[entity(unique)]` fields, decided when `E`'s code is compiled. A write
/// asks it before taking the guarded path, so that a program whose entities have no unique
/// field carries none of that path's code (transactions, guards).
#[inline(always)]
pub(crate) fn has_unique<E: crate::schema::Entity>() -> bool {
    const { E::SCHEMA.has_unique() }
}

/// The guard attribute holding the owner's partition key.
pub const OWNER_PK: &str = "ownerPK";
/// The guard attribute holding the owner's sort key.
pub const OWNER_SK: &str = "ownerSK";
/// The guard attribute holding the owner's entity type.
pub const GUARD_ENTITY: &str = "entity";
/// The guard attribute holding the unique field's attribute name.
pub const GUARD_FIELD: &str = "field";
/// The guard attribute holding the value as the owner stores it.
pub const GUARD_VALUE: &str = "value";

//! The steps of a pass over an entity's items ([`pass`](super::pass), public as
//! [`migrate::backfill`](crate::migrate::backfill)): what each does with one item as read,
//! one file each.
//!
//! - `gsi_keys.rs`: the secondary index keys its templates give ([`Table::backfill`]);
//! - [`rekey`]: a move to a new primary key, with its unique guards ([`Table::rekey`]);
//! - [`upgrade`]: a write-back at the current schema version ([`Table::upgrade`],
//!   [`Table::upgrade_all`]);
//! - [`native`]: the attributes of a native multi-attribute index, and the removal of the old
//!   synthetic keys ([`Table::native_keys`]);
//! - `conditional_update.rs`: the conditional `UpdateItem` that the key and native-key steps
//!   share.
//!
//! [`Table::backfill`]: crate::Table::backfill
//! [`Table::rekey`]: crate::Table::rekey
//! [`Table::upgrade`]: crate::Table::upgrade
//! [`Table::upgrade_all`]: crate::Table::upgrade_all
//! [`Table::native_keys`]: crate::Table::native_keys

mod conditional_update;
mod gsi_keys;
pub mod native;
pub mod rekey;
pub mod upgrade;

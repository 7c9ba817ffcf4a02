//! The kinds of step a migration can be ([`Kind`]), and their names in the table's records.

use std::fmt;

/// What kind of step a migration is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A backfill of an entity's secondary index keys ([`Table::backfill`]).
    ///
    /// [`Table::backfill`]: crate::Table::backfill
    Backfill,
    /// A re-keying of an entity's items to a new primary key template ([`Table::rekey`]).
    ///
    /// [`Table::rekey`]: crate::Table::rekey
    Rekey,
    /// The table's indexes and TTL brought to the declared layout ([`Table::diff`],
    /// [`Table::apply`]).
    ///
    /// [`Table::diff`]: crate::Table::diff
    /// [`Table::apply`]: crate::Table::apply
    Layout,
    /// Every item of an entity written back at its current schema version
    /// ([`Table::upgrade_all`](crate::Table::upgrade_all)).
    Upgrade,
    /// A template GSI replaced by a native multi-attribute GSI ([`Table::native_keys`]).
    ///
    /// [`Table::native_keys`]: crate::Table::native_keys
    NativeKeys,
    /// A step of the application's own ([`Migrations::custom`](super::Migrations::custom)).
    Custom,
}

impl Kind {
    /// The kind named `name` in a record, if any.
    pub(super) fn from_name(name: &str) -> Option<Kind> {
        [Kind::Backfill, Kind::Rekey, Kind::Layout, Kind::Upgrade, Kind::NativeKeys, Kind::Custom]
            .into_iter()
            .find(|k| k.name() == name)
    }

    /// The name the records hold.
    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Backfill => "backfill",
            Kind::Rekey => "rekey",
            Kind::Layout => "layout",
            Kind::Upgrade => "upgrade",
            Kind::NativeKeys => "native-keys",
            Kind::Custom => "custom",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

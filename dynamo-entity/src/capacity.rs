//! Capacity units: estimates by DynamoDB's rules, the consumed capacity DynamoDB reports, and a
//! meter that adds up what every operation of a [`Table`] consumed.
//!
//! # DynamoDB's rules
//!
//! Item sizes are counted by [`item_size`] (attribute names plus values).
//!
//! A vector (the attribute of a vector index, see [`schema::vector`](crate::schema::vector))
//! is a list of numbers in the item, and is counted as one in the table and in every GSI and
//! LSI entry that holds it: 3 bytes, and for each element 1 byte besides the number's size (1
//! byte per two significant digits, plus 1), by the Developer Guide's "DynamoDB item sizes
//! and formats"; DynamoDB documents no other rule for it. A vector index's own writes are
//! metered apart, in bytes (`VectorWriteRequestBytes`, "Monitoring vector index capacity"),
//! not in write units, and are not estimated here.
//!
//! | operation | units |
//! |---|---|
//! | `GetItem` | one read unit per 4 KB of the item, rounded up: 0.5 eventually consistent, 1 strongly consistent; a missing item costs the minimum (one 4 KB block) |
//! | `Query` | the *summed* size of the items read (before any filter), rounded up to 4 KB once, times 0.5 / 1; a query that reads nothing still costs the minimum |
//! | `PutItem`, `UpdateItem` | one write unit per 1 KB of the larger of the item before and after the write, rounded up (at least 1) |
//! | `DeleteItem` | one write unit per 1 KB of the deleted item (1 when there is none) |
//! | each GSI and LSI | its own write units, per 1 KB of the index entry (with projection `ALL`, the whole item): putting an item into the index costs the new entry, removing it the old one, changing its index key both (a delete plus a put), rewriting it under the same key the larger of the two; an item absent from the index before and after costs nothing (sparse index) |
//! | `BatchGetItem`, `BatchWriteItem` | the sum over the items, each rounded up on its own (a key with no item costs the minimum, as a `GetItem` of it would) |
//! | `TransactGetItems`, `TransactWriteItems` | twice the units of the same reads and writes (2 read units per 4 KB, 2 write units per 1 KB), GSI writes included |
//! | `ConditionCheck` (in `TransactWriteItems`) | a transactional read of the checked item: 2 read units per 4 KB |
//!
//! [`ReturnConsumedCapacity`](aws_sdk_dynamodb::types::ReturnConsumedCapacity) `INDEXES`, which
//! every operation of this crate asks for, reports the units of the table and of each GSI
//! apart; [`Capacity`] holds them in that shape, so an estimate and a report compare with `==`.
//! DynamoDB reports capacity only with a successful response: a write refused by its condition
//! is charged by DynamoDB but not reported, so it is not metered.
//!
//! The estimates follow these documented rules (the DynamoDB Developer Guide, "DynamoDB read
//! and write operations" and "Global secondary indexes: provisioned throughput
//! considerations").
//!
//! # Where DynamoDB Local differs
//!
//! Measured by `tests/tests/integration/capacity.rs` against DynamoDB Local (the 2026-01-16
//! build); where it departs from the rules above, the test asserts what it reports:
//!
//! * A `Query` that reads no item reports 0 units, and a `BatchGetItem` key with no item costs
//!   0 units; the service charges the minimum for both.
//! * A transactional `Delete` of an item that does not exist reports 1 unit, not 2.
//! * A `TransactWriteItems` of one, two or three small `Put`s (100-byte items, no index entry)
//!   reports 2.0 units whatever their number, where the rule (and DynamoDB) charges 2 per put:
//!   2, 4 and 6 (`dynamodb_local_reports_two_units_for_a_transaction_of_small_puts`). The
//!   estimates keep the documented rule; a transaction's figure measured on DynamoDB Local can
//!   be lower than DynamoDB's bill.
//! * Only `CapacityUnits` is reported, never the read / write split: the `ConditionCheck` reads
//!   of a `TransactWriteItems` come back as part of one figure with its writes. The split is
//!   then taken from the operation (reads for `GetItem`, `Query`, `BatchGetItem`,
//!   `TransactGetItems`; writes for the others), so the report counts them as writes.
//!
//! DynamoDB Local charges a GSI entry on the size of the item (projection `ALL`): the 100 bytes
//! of overhead per index entry that the guide counts for storage do not enter the units, and
//! the estimates leave them out too.
//!
//! [`Table`]: struct@crate::Table

use std::collections::BTreeMap;
use std::fmt;
use std::ops::{Add, AddAssign};
use std::sync::{Arc, Mutex};

use aws_sdk_dynamodb::types::{AttributeValue, Capacity as SdkCapacity, ConsumedCapacity};

use crate::key::{AttributeNames, Index};
use crate::value::Item;
pub use crate::value::size::item_size;

/// The bytes of one read capacity unit's block: 4 KB.
pub const READ_UNIT_BYTES: usize = 4 * 1024;
/// The bytes of one write capacity unit's block: 1 KB.
pub const WRITE_UNIT_BYTES: usize = 1024;

/// Read and write capacity units, of one index or summed.
#[derive(Debug, Clone, Copy, Default, PartialEq, PartialOrd)]
pub struct Units {
    /// Read capacity units (RCU).
    pub read: f64,
    /// Write capacity units (WCU).
    pub write: f64,
}

impl Units {
    /// `read + write`.
    pub fn total(&self) -> f64 {
        self.read + self.write
    }

    /// Read units only.
    pub const fn reads(read: f64) -> Units {
        Units { read, write: 0.0 }
    }

    /// Write units only.
    pub const fn writes(write: f64) -> Units {
        Units { read: 0.0, write }
    }
}

impl Add for Units {
    type Output = Units;
    fn add(self, other: Units) -> Units {
        Units { read: self.read + other.read, write: self.write + other.write }
    }
}

impl AddAssign for Units {
    fn add_assign(&mut self, other: Units) {
        self.read += other.read;
        self.write += other.write;
    }
}

/// Capacity units of one or more operations, split as DynamoDB reports them with
/// `ReturnConsumedCapacity = INDEXES`: the table's own units and each GSI's.
///
/// Both estimates (the functions of this module) and reports ([`Table::consumed`],
/// [`Page::consumed`], the batch outcomes) have this type, so they compare with `==`. Units are
/// multiples of 0.5, exact in `f64`.
///
/// ```
/// use dynamo_entity::capacity::{Capacity, Units};
/// use dynamo_entity::Index;
/// let c = Capacity::table(Units::writes(2.0)).with_index(Index::Gsi(1), Units::writes(1.0));
/// assert_eq!((c.write(), c.read(), c.total()), (3.0, 0.0, 3.0));
/// assert_eq!(c.index(Index::Gsi(1)), Units::writes(1.0));
/// assert_eq!(c.index(Index::Primary), Units::writes(2.0));
/// ```
///
/// [`Table::consumed`]: crate::Table::consumed
/// [`Page::consumed`]: crate::Page::consumed
#[derive(Debug, Clone, Default)]
pub struct Capacity {
    /// The table's units (its primary index).
    pub table: Units,
    /// Each GSI's and LSI's units, by index name as DynamoDB reports it (`GSI1`, ..., or the
    /// name a `#[derive(TableDef)]` gives the index). An index that cost nothing may be absent or
    /// zero: [`Capacity::eq`] treats them alike.
    pub indexes: BTreeMap<String, Units>,
}

impl Capacity {
    /// Nothing consumed.
    pub fn zero() -> Capacity {
        Capacity::default()
    }

    /// `units` on the table alone.
    pub fn table(units: Units) -> Capacity {
        Capacity { table: units, indexes: BTreeMap::new() }
    }

    /// Adds `units` to `index` (the table for [`Index::Primary`]), under the default index
    /// names ([`AttributeNames::DEFAULT`]: `GSI<n>`, `LSI<n>`, `INVERTED`).
    pub fn with_index(self, index: Index, units: Units) -> Capacity {
        self.with_index_in(&AttributeNames::DEFAULT, index, units)
    }

    /// Adds `units` to `index` of a table whose indexes are named by `names` (an entity's
    /// [`Entity::NAMES`](crate::Entity::NAMES), a table's [`TableDef::NAMES`](crate::TableDef::NAMES)).
    pub fn with_index_in(mut self, names: &AttributeNames, index: Index, units: Units) -> Capacity {
        self.add_index(names, index, units);
        self
    }

    pub(crate) fn add_index(&mut self, names: &AttributeNames, index: Index, units: Units) {
        match (index, names.index_name(index)) {
            (Index::Primary, _) => self.table += units,
            (_, Some(name)) => *self.indexes.entry(name.to_owned()).or_default() += units,
            // An index number out of range (no such index): kept apart under its label, never
            // added to the table's own units.
            (_, None) => *self.indexes.entry(names.label(index).to_owned()).or_default() += units,
        }
    }

    /// The units of `index` (the table's own for [`Index::Primary`]) under the default index
    /// names; zero when it consumed nothing.
    pub fn index(&self, index: Index) -> Units {
        self.index_in(&AttributeNames::DEFAULT, index)
    }

    /// The units of `index` of a table whose indexes are named by `names`; zero when it
    /// consumed nothing.
    pub fn index_in(&self, names: &AttributeNames, index: Index) -> Units {
        match names.index_name(index) {
            _ if index == Index::Primary => self.table,
            Some(name) => self.indexes.get(name).copied().unwrap_or_default(),
            None => self.indexes.get(names.label(index)).copied().unwrap_or_default(),
        }
    }

    /// Read units, the table's and every index's.
    pub fn read(&self) -> f64 {
        self.table.read + self.indexes.values().map(|u| u.read).sum::<f64>()
    }

    /// Write units, the table's and every index's.
    pub fn write(&self) -> f64 {
        self.table.write + self.indexes.values().map(|u| u.write).sum::<f64>()
    }

    /// All units: what DynamoDB reports as `CapacityUnits`.
    pub fn total(&self) -> f64 {
        self.read() + self.write()
    }

    /// Whether nothing was consumed.
    pub fn is_zero(&self) -> bool {
        self.total() == 0.0
    }

    /// The capacity DynamoDB reported for one request, as this crate asks for it
    /// (`ReturnConsumedCapacity = INDEXES`), summed over its entries (one per table). When a
    /// part carries no read / write split (DynamoDB Local never sends one), its
    /// `CapacityUnits` count as reads or writes as `write` says: the kind of the operation.
    pub fn from_consumed(consumed: &[ConsumedCapacity], write: bool) -> Capacity {
        let mut out = Capacity::default();
        out.add_consumed(consumed, write);
        out
    }

    /// As [`Capacity::from_consumed`], for one entry.
    pub fn from_one(c: &ConsumedCapacity, write: bool) -> Capacity {
        let mut out = Capacity::default();
        out.add_one(c, write);
        out
    }

    /// Adds what `consumed` reports (as [`Capacity::from_consumed`] reads it) to these units
    /// in place, and returns its total: an index already held is added to without its name
    /// being copied again, so metering a request allocates nothing once every index it
    /// touches has been seen.
    pub(crate) fn add_consumed(&mut self, consumed: &[ConsumedCapacity], write: bool) -> f64 {
        consumed.iter().map(|c| self.add_one(c, write)).sum()
    }

    /// [`Capacity::add_consumed`] of one entry.
    fn add_one(&mut self, c: &ConsumedCapacity, write: bool) -> f64 {
        let split = |read: Option<f64>, written: Option<f64>, total: Option<f64>| match (read, written) {
            (None, None) => {
                let t = total.unwrap_or_default();
                if write { Units::writes(t) } else { Units::reads(t) }
            }
            (r, w) => Units { read: r.unwrap_or_default(), write: w.unwrap_or_default() },
        };
        let part = |p: &SdkCapacity| split(p.read_capacity_units, p.write_capacity_units, p.capacity_units);
        let table = match &c.table {
            Some(t) => part(t),
            None if c.global_secondary_indexes.is_none() && c.local_secondary_indexes.is_none() => {
                split(c.read_capacity_units, c.write_capacity_units, c.capacity_units)
            }
            None => Units::default(),
        };
        self.table += table;
        let mut total = table.total();
        for map in [&c.global_secondary_indexes, &c.local_secondary_indexes].into_iter().flatten() {
            for (name, p) in map {
                let units = part(p);
                total += units.total();
                self.add_named(name, units);
            }
        }
        total
    }

    /// Adds `units` to the index called `name`, copying the name only the first time.
    fn add_named(&mut self, name: &str, units: Units) {
        match self.indexes.get_mut(name) {
            Some(held) => *held += units,
            None => {
                self.indexes.insert(name.to_owned(), units);
            }
        }
    }
}

impl PartialEq for Capacity {
    /// Equal table units and equal units of every index, an absent index counting as zero.
    fn eq(&self, other: &Capacity) -> bool {
        let zero = Units::default();
        let same = |a: &BTreeMap<String, Units>, b: &BTreeMap<String, Units>| {
            a.iter().all(|(name, u)| b.get(name).unwrap_or(&zero) == u)
        };
        self.table == other.table && same(&self.indexes, &other.indexes) && same(&other.indexes, &self.indexes)
    }
}

impl fmt::Display for Capacity {
    /// `2 WCU (table 1 WCU, GSI1 1 WCU)`; reads and writes shown when present.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let total = Units { read: self.read(), write: self.write() };
        // A part with no units is labelled like the whole: `0 RCU` within a read.
        let zero = if total.write == 0.0 && total.read != 0.0 { "0 RCU" } else { "0 WCU" };
        let units = |u: &Units| -> String {
            match (u.read, u.write) {
                (r, w) if r != 0.0 && w != 0.0 => format!("{r} RCU + {w} WCU"),
                (r, _) if r != 0.0 => format!("{r} RCU"),
                (_, w) if w != 0.0 => format!("{w} WCU"),
                _ => zero.to_owned(),
            }
        };
        write!(f, "{}", units(&total))?;
        let parts: Vec<String> = self
            .indexes
            .iter()
            .filter(|(_, u)| u.total() != 0.0)
            .map(|(name, u)| format!("{name} {}", units(u)))
            .collect();
        if !parts.is_empty() {
            write!(f, " (table {}, {})", units(&self.table), parts.join(", "))?;
        }
        Ok(())
    }
}

impl Add for Capacity {
    type Output = Capacity;
    fn add(mut self, other: Capacity) -> Capacity {
        self += other;
        self
    }
}

impl AddAssign for Capacity {
    fn add_assign(&mut self, other: Capacity) {
        self.table += other.table;
        for (name, units) in other.indexes {
            *self.indexes.entry(name).or_default() += units;
        }
    }
}

impl<'a> AddAssign<&'a Capacity> for Capacity {
    fn add_assign(&mut self, other: &'a Capacity) {
        self.table += other.table;
        for (name, units) in &other.indexes {
            self.add_named(name, *units);
        }
    }
}

impl std::iter::Sum for Capacity {
    fn sum<I: Iterator<Item = Capacity>>(iter: I) -> Capacity {
        iter.fold(Capacity::default(), Add::add)
    }
}

// ---------------------------------------------------------------------------------------------
// Estimates

/// How a read is made, which sets its units per 4 KB block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadMode {
    /// Eventually consistent (the default of `GetItem`, `Query`, `BatchGetItem`): 0.5 units.
    Eventual,
    /// Strongly consistent (`ConsistentRead = true`): 1 unit.
    Strong,
    /// Part of `TransactGetItems`: 2 units.
    Transactional,
}

impl ReadMode {
    /// Read units per 4 KB block.
    pub fn units_per_block(self) -> f64 {
        match self {
            ReadMode::Eventual => 0.5,
            ReadMode::Strong => 1.0,
            ReadMode::Transactional => 2.0,
        }
    }

    /// [`ReadMode::Strong`] when `consistent`, else [`ReadMode::Eventual`].
    pub fn consistent(consistent: bool) -> ReadMode {
        if consistent { ReadMode::Strong } else { ReadMode::Eventual }
    }
}

/// How a write is made, which sets its units per 1 KB block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMode {
    /// `PutItem`, `UpdateItem`, `DeleteItem`, `BatchWriteItem`: 1 unit.
    Standard,
    /// Part of `TransactWriteItems`: 2 units.
    Transactional,
}

impl WriteMode {
    /// Write units per 1 KB block.
    pub fn units_per_block(self) -> f64 {
        match self {
            WriteMode::Standard => 1.0,
            WriteMode::Transactional => 2.0,
        }
    }
}

/// The read units of reading `bytes`: `bytes` rounded up to 4 KB blocks (at least one), times
/// the mode's units per block.
///
/// ```
/// use dynamo_entity::capacity::{read_units, ReadMode};
/// assert_eq!(read_units(4096, ReadMode::Eventual), 0.5);
/// assert_eq!(read_units(4097, ReadMode::Eventual), 1.0);
/// assert_eq!(read_units(4097, ReadMode::Strong), 2.0);
/// assert_eq!(read_units(0, ReadMode::Transactional), 2.0);
/// ```
pub fn read_units(bytes: usize, mode: ReadMode) -> f64 {
    blocks(bytes, READ_UNIT_BYTES) as f64 * mode.units_per_block()
}

/// The write units of writing `bytes`: `bytes` rounded up to 1 KB blocks (at least one), times
/// the mode's units per block.
///
/// ```
/// use dynamo_entity::capacity::{write_units, WriteMode};
/// assert_eq!(write_units(1024, WriteMode::Standard), 1.0);
/// assert_eq!(write_units(1025, WriteMode::Standard), 2.0);
/// assert_eq!(write_units(1025, WriteMode::Transactional), 4.0);
/// ```
pub fn write_units(bytes: usize, mode: WriteMode) -> f64 {
    blocks(bytes, WRITE_UNIT_BYTES) as f64 * mode.units_per_block()
}

fn blocks(bytes: usize, block: usize) -> usize {
    bytes.div_ceil(block).max(1)
}

/// A `GetItem` (or one read of `TransactGetItems`) of `item`, `None` for a missing item (which
/// costs the minimum, one block).
pub fn get(item: Option<&Item>, mode: ReadMode) -> Capacity {
    Capacity::table(Units::reads(read_units(item.map_or(0, item_size), mode)))
}

/// A `Query` page of `index` that read `items` (every item read, including those a filter
/// expression then dropped): their summed size rounded up to 4 KB once, at least one block
/// (DynamoDB Local reports 0 for a query that reads nothing). The units are charged to the
/// index queried.
pub fn query<'a>(index: Index, items: impl IntoIterator<Item = &'a Item>, mode: ReadMode) -> Capacity {
    query_in(&AttributeNames::DEFAULT, index, items, mode)
}

/// [`query`](fn@query) for a table whose indexes are named by `names`: the units are reported under the
/// queried index's name.
pub fn query_in<'a>(
    names: &AttributeNames,
    index: Index,
    items: impl IntoIterator<Item = &'a Item>,
    mode: ReadMode,
) -> Capacity {
    let bytes: usize = items.into_iter().map(item_size).sum();
    Capacity::default().with_index_in(names, index, Units::reads(read_units(bytes, mode)))
}

/// A `BatchGetItem` of these items, in any order, `None` for a key with no item: each item
/// rounded up to 4 KB on its own, a missing one costing the minimum as a `GetItem` would
/// (DynamoDB Local charges it nothing).
pub fn batch_get<'a>(items: impl IntoIterator<Item = Option<&'a Item>>, mode: ReadMode) -> Capacity {
    let units = items.into_iter().map(|i| read_units(i.map_or(0, item_size), mode)).sum();
    Capacity::table(Units::reads(units))
}

/// A write of one item: `before` is the item as stored before it (`None`: no item), `after` as
/// stored after it (`None`: deleted). A `PutItem` or `UpdateItem` costs the larger of the two
/// sizes, a `DeleteItem` the deleted item's (at least one block either way). Each index of
/// `indexes` (the table's GSIs and LSIs: an [`Index`], with projection `ALL`, or an
/// `(Index, Projection)` pair, see [`IndexProjection`]; an LSI entry is keyed on `PK` and
/// `LSI<n>SK` and costs as a GSI entry does) costs its own units, per 1 KB of its entry as the
/// projection holds it: see the [module documentation](self).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue as V;
/// use dynamo_entity::capacity::{self, Capacity, Units, WriteMode};
/// use dynamo_entity::{Index, Item};
/// let item = |gsi: &str| -> Item {
///     [("PK", "A"), ("SK", "B"), ("GSI1PK", gsi), ("GSI1SK", "x")]
///         .into_iter().map(|(k, v)| (k.to_owned(), V::S(v.to_owned()))).collect()
/// };
/// // The GSI key changes: one write to delete the old entry, one to put the new one.
/// let c = capacity::write([Index::Gsi(1)], Some(&item("old")), Some(&item("new")), WriteMode::Standard);
/// assert_eq!(c, Capacity::table(Units::writes(1.0)).with_index(Index::Gsi(1), Units::writes(2.0)));
/// ```
pub fn write(
    indexes: impl IntoIterator<Item = impl IndexProjection>,
    before: Option<&Item>,
    after: Option<&Item>,
    mode: WriteMode,
) -> Capacity {
    write_in(&AttributeNames::DEFAULT, indexes, before, after, mode)
}

/// [`write`](fn@write) for a table whose key attributes and indexes are named by `names` (an entity's
/// [`Entity::NAMES`](crate::Entity::NAMES), a table's [`TableDef::NAMES`](crate::TableDef::NAMES)):
/// each index's entry is found by its own key attributes (`names.pk_of(index)` /
/// `names.sk_of(index)`) and its units are reported under its name. Each of `indexes` is an
/// [`Index`] (projection `ALL`) or an `(Index, Projection)` pair
/// ([`IndexProjection`]): the entry is sized as the projection holds it.
pub fn write_in(
    names: &AttributeNames,
    indexes: impl IntoIterator<Item = impl IndexProjection>,
    before: Option<&Item>,
    after: Option<&Item>,
    mode: WriteMode,
) -> Capacity {
    let size = |i: Option<&Item>| i.map_or(0, item_size);
    let mut out = Capacity::table(Units::writes(write_units(size(before).max(size(after)), mode)));
    for index in indexes {
        let id = index.index();
        if id == Index::Primary {
            continue;
        }
        let keys = [names.pk_of(id), names.sk_of(id)];
        if let Some(units) = index_write_units(names, &keys, index.projected(), before, after, mode) {
            out.add_index(names, id, Units::writes(units));
        }
    }
    out
}

/// A secondary index as a write estimate sizes its entries: which index, and which of an
/// item's attributes besides the keys its projection holds. [`Index`] itself is an index with
/// projection `ALL`; `(Index, Projection)` (a
/// [`Projection`](crate::schema::Projection) of the table's layout) follows `KEYS_ONLY` and
/// `INCLUDE` too.
pub trait IndexProjection {
    /// The index.
    fn index(&self) -> Index;
    /// The attributes its entries hold besides the table's and the index's key attributes:
    /// `None` for every attribute (`ALL`), the listed ones for `INCLUDE`, none for
    /// `KEYS_ONLY`.
    fn projected(&self) -> Option<&'static [&'static str]>;
}

impl IndexProjection for Index {
    fn index(&self) -> Index {
        *self
    }
    fn projected(&self) -> Option<&'static [&'static str]> {
        None
    }
}

/// The write units a write from `before` to `after` (`None`: no item) costs in one secondary
/// index keyed on the attributes `keys` (the item is in it when it holds them all), whose
/// entries hold the table's key attributes, `keys` and, besides, `projected` (`None`: every
/// attribute). By DynamoDB's rule, an index write costs 1 unit per 1 KB of the entry as the
/// projection holds it: putting the item into the index costs the new entry, removing it the
/// old one, changing its key both, and rewriting it under the same key the larger of the two,
/// except that an entry the write leaves as it was (same key, same projected attributes) under
/// a projection other than `ALL` costs nothing (as DynamoDB Local reports for a `KEYS_ONLY`
/// GSI). `None`: no write in the index.
pub(crate) fn index_write_units(
    names: &AttributeNames,
    keys: &[&str],
    projected: Option<&[&str]>,
    before: Option<&Item>,
    after: Option<&Item>,
    mode: WriteMode,
) -> Option<f64> {
    fn key<'i>(keys: &[&str], item: Option<&'i Item>) -> Option<Vec<&'i AttributeValue>> {
        let item = item?;
        keys.iter().map(|k| item.get(*k)).collect()
    }
    // The entry as the projection holds it (the whole item with `ALL`: borrowed, not copied).
    fn entry<'i>(
        names: &AttributeNames,
        keys: &[&str],
        projected: Option<&[&str]>,
        item: Option<&'i Item>,
    ) -> Option<std::borrow::Cow<'i, Item>> {
        let item = item?;
        let Some(extra) = projected else { return Some(std::borrow::Cow::Borrowed(item)) };
        let held = |a: &str| a == names.pk || a == names.sk || keys.contains(&a) || extra.contains(&a);
        Some(std::borrow::Cow::Owned(
            item.iter().filter(|(a, _)| held(a.as_str())).map(|(a, v)| (a.clone(), v.clone())).collect(),
        ))
    }
    let (old_key, new_key) = (key(keys, before), key(keys, after));
    if old_key.is_none() && new_key.is_none() {
        return None;
    }
    let (old_entry, new_entry) = (entry(names, keys, projected, before), entry(names, keys, projected, after));
    let size = |e: &Option<std::borrow::Cow<'_, Item>>| e.as_deref().map_or(0, item_size);
    let (old, new) = (size(&old_entry), size(&new_entry));
    Some(match (old_key, new_key) {
        (Some(_), None) => write_units(old, mode),
        (None, Some(_)) => write_units(new, mode),
        (Some(a), Some(b)) if a == b && projected.is_some() && old_entry == new_entry => return None,
        (Some(a), Some(b)) if a == b => write_units(old.max(new), mode),
        _ => write_units(old, mode) + write_units(new, mode),
    })
}

/// A `ConditionCheck` of a transaction on `item` (`None`: no item): a transactional read of
/// the checked item, 2 read units per 4 KB, 2 for a missing item. (DynamoDB Local reports the
/// same units, lumped with the transaction's writes: see the [module documentation](self).)
pub fn condition_check(item: Option<&Item>) -> Capacity {
    get(item, ReadMode::Transactional)
}

// ---------------------------------------------------------------------------------------------
// Meter

/// Adds up the capacity consumed by every operation of a [`Table`](struct@crate::Table) handle (and of
/// the handles cloned from it), per table part and per GSI. Recording takes a mutex once per
/// DynamoDB response.
///
/// A meter made by [`Table::metered`](crate::Table::metered) also adds to the meter of the
/// table it was made from, so one operation's figure can be read off a fresh handle while the
/// table's total keeps counting.
#[derive(Debug, Default)]
pub struct CapacityMeter {
    consumed: Mutex<Capacity>,
    parent: Option<Arc<CapacityMeter>>,
}

impl CapacityMeter {
    /// A meter that also adds to `parent`.
    pub(crate) fn child(parent: Arc<CapacityMeter>) -> CapacityMeter {
        CapacityMeter { consumed: Mutex::default(), parent: Some(parent) }
    }

    /// What was consumed since the meter was made or last [taken](CapacityMeter::take).
    pub fn consumed(&self) -> Capacity {
        self.lock().clone()
    }

    /// What was consumed, resetting the meter to zero (its parent keeps counting).
    pub fn take(&self) -> Capacity {
        std::mem::take(&mut *self.lock())
    }

    /// Adds `capacity` to this meter and its parents.
    pub fn record(&self, capacity: &Capacity) {
        if capacity.indexes.is_empty() && capacity.table == Units::default() {
            return;
        }
        self.each_level(|held| *held += capacity);
    }

    /// Adds what DynamoDB reported for one request (its `ConsumedCapacity` entries, read as
    /// [`Capacity::from_consumed`] reads them) to this meter and its parents, and returns the
    /// request's total units. Nothing is allocated once the indexes it names have been seen.
    pub(crate) fn record_consumed(&self, consumed: &[ConsumedCapacity], write: bool) -> f64 {
        let mut total = 0.0;
        if !consumed.is_empty() {
            self.each_level(|held| total = held.add_consumed(consumed, write));
        }
        total
    }

    /// Runs `add` on the units held by this meter, then by each of its parents in turn.
    fn each_level(&self, mut add: impl FnMut(&mut Capacity)) {
        let mut level = Some(self);
        while let Some(meter) = level {
            add(&mut meter.lock());
            level = meter.parent.as_deref();
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Capacity> {
        // A panic while holding the lock cannot leave a half-added value behind that matters
        // more than losing the meter: keep counting.
        self.consumed.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(pairs: &[(&str, &str)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), AttributeValue::S((*v).to_owned()))).collect()
    }

    #[test]
    fn gsi_writes_follow_the_index_key() {
        let g = [Index::Gsi(1)];
        let plain = item(&[("PK", "a"), ("SK", "b")]);
        let indexed = item(&[("PK", "a"), ("SK", "b"), ("GSI1PK", "k"), ("GSI1SK", "s")]);
        let moved = item(&[("PK", "a"), ("SK", "b"), ("GSI1PK", "m"), ("GSI1SK", "s")]);
        let w = |b: Option<&Item>, a: Option<&Item>| write(g, b, a, WriteMode::Standard);
        assert_eq!(w(None, Some(&plain)), Capacity::table(Units::writes(1.0)));
        let one = Capacity::table(Units::writes(1.0)).with_index(Index::Gsi(1), Units::writes(1.0));
        assert_eq!(w(None, Some(&indexed)), one);
        assert_eq!(w(Some(&indexed), Some(&plain)), one);
        assert_eq!(w(Some(&plain), Some(&indexed)), one);
        assert_eq!(w(Some(&indexed), Some(&indexed)), one);
        assert_eq!(w(Some(&indexed), None), one);
        assert_eq!(w(Some(&indexed), Some(&moved)).index(Index::Gsi(1)), Units::writes(2.0));
        let tx = write(g, Some(&indexed), Some(&moved), WriteMode::Transactional);
        assert_eq!((tx.table, tx.index(Index::Gsi(1))), (Units::writes(2.0), Units::writes(4.0)));
        assert_eq!(w(None, None), Capacity::table(Units::writes(1.0)));
    }

    /// An index write costs 1 unit per 1 KB of the entry as the index's projection holds it:
    /// `KEYS_ONLY` the table's and the index's keys, `INCLUDE` those and the listed attributes.
    #[test]
    fn index_writes_are_sized_by_the_projection() {
        use crate::schema::Projection;
        let with = |pairs: &[(&str, String)]| -> Item {
            pairs.iter().map(|(k, v)| ((*k).to_owned(), AttributeValue::S(v.clone()))).collect()
        };
        let doc = |gsi: &str, big: char, tag: char| {
            with(&[
                ("PK", "a".into()),
                ("SK", "b".into()),
                ("GSI1PK", gsi.into()),
                ("GSI1SK", "s".into()),
                ("big", big.to_string().repeat(2000)),
                ("tag", tag.to_string().repeat(1100)),
            ])
        };
        let item = doc("k", 'x', 't');
        // Keys: PK 2 + 1, SK 2 + 1, GSI1PK 6 + 1, GSI1SK 6 + 1 = 20 bytes; big 3 + 2,000; tag 3 + 1,100.
        assert_eq!(item_size(&item), 20 + 2003 + 1103);
        let g = Index::Gsi(1);
        let (keys_only, tag, both) =
            ((g, Projection::KeysOnly), (g, Projection::Include(&["tag"])), (g, Projection::Include(&["big", "tag"])));
        let put = |p: (Index, Projection)| write([p], None, Some(&item), WriteMode::Standard);
        let table = |units: f64| Capacity::table(Units::writes(units));
        let gsi = |units: f64| table(4.0).with_index(g, Units::writes(units));
        // 3,126 bytes: 4 units in the table and in an `ALL` GSI; 20 bytes: 1; 1,123: 2; 3,126: 4.
        assert_eq!(write([g], None, Some(&item), WriteMode::Standard), gsi(4.0));
        assert_eq!((put(keys_only), put(tag), put(both)), (gsi(1.0), gsi(2.0), gsi(4.0)));
        // The index key changes: the old entry's delete and the new one's put.
        let moved = doc("m", 'x', 't');
        let w = |p: (Index, Projection), b: &Item, a: &Item| write([p], Some(b), Some(a), WriteMode::Standard);
        assert_eq!((w(keys_only, &item, &moved), w(tag, &item, &moved)), (gsi(2.0), gsi(4.0)));
        // Only `big` changes: an `INCLUDE (tag)` or `KEYS_ONLY` entry is left as it was (no
        // index write); `ALL` and `INCLUDE (big, tag)` rewrite it (the larger of the two sizes).
        let rewritten = doc("k", 'y', 't');
        assert_eq!((w(keys_only, &item, &rewritten), w(tag, &item, &rewritten)), (table(4.0), table(4.0)));
        assert_eq!((w((g, Projection::All), &item, &rewritten), w(both, &item, &rewritten)), (gsi(4.0), gsi(4.0)));
        // `tag` changes: the `INCLUDE (tag)` entry, 1,123 bytes before and after, is rewritten.
        assert_eq!(w(tag, &item, &doc("k", 'x', 'u')), gsi(2.0));
        // Leaving the index (no GSI1PK) costs the old entry's delete, sized by the projection.
        let out = with(&[("PK", "a".into()), ("SK", "b".into()), ("tag", "t".repeat(1100))]);
        assert_eq!(w(tag, &item, &out), gsi(2.0));
    }

    /// A GSI entry holding a vector (a list of numbers) is sized by the list rule: 200 elements
    /// of `0.12345679` (8 significant digits: 5 bytes, and 1 for the element) are 1,200 bytes,
    /// not 800 (4 bytes a dimension), and take the entry past 1 KB.
    #[test]
    fn a_vector_in_an_index_entry_is_sized_as_a_list_of_numbers() {
        let mut item = item(&[("PK", "a"), ("SK", "b"), ("GSI1PK", "k"), ("GSI1SK", "s")]);
        let element = AttributeValue::N(0.123_456_79_f32.to_string());
        assert_eq!(element, AttributeValue::N("0.12345679".to_owned()));
        item.insert("v".to_owned(), AttributeValue::L(vec![element; 200]));
        // Keys 20 bytes; `v`: 1 (name) + 3 (list) + 200 * (1 + 5).
        assert_eq!(item_size(&item), 20 + 1 + 3 + 1200);
        let keys = ["GSI1PK", "GSI1SK"];
        let units = |b: Option<&Item>, a: Option<&Item>, p: Option<&[&str]>| {
            index_write_units(&AttributeNames::DEFAULT, &keys, p, b, a, WriteMode::Standard)
        };
        assert_eq!(units(None, Some(&item), None), Some(2.0));
        // `INCLUDE (v)` holds the vector too; `KEYS_ONLY` leaves it out (20 bytes, 1 unit).
        assert_eq!(units(None, Some(&item), Some(&["v"])), Some(2.0));
        assert_eq!(units(None, Some(&item), Some(&[])), Some(1.0));
        let both = Capacity::table(Units::writes(2.0)).with_index(Index::Gsi(1), Units::writes(2.0));
        assert_eq!(write([Index::Gsi(1)], None, Some(&item), WriteMode::Standard), both);
    }

    #[test]
    fn reads_round_up_per_item_or_per_page() {
        let big = item(&[("d", &"x".repeat(3000))]); // 3,001 bytes
        assert_eq!(get(Some(&big), ReadMode::Eventual).read(), 0.5);
        assert_eq!(get(None, ReadMode::Strong).read(), 1.0);
        // Two items of 3,001 bytes: 6,002 bytes, two blocks in a query, one each in a batch.
        assert_eq!(query(Index::Primary, [&big, &big], ReadMode::Eventual).read(), 1.0);
        assert_eq!(query(Index::Primary, [], ReadMode::Eventual).read(), 0.5);
        assert_eq!(query(Index::Gsi(2), [&big], ReadMode::Strong).index(Index::Gsi(2)), Units::reads(1.0));
        assert_eq!(batch_get([Some(&big), Some(&big), None], ReadMode::Strong).read(), 3.0);
        assert_eq!(condition_check(Some(&big)), Capacity::table(Units::reads(2.0)));
    }

    #[test]
    fn reports_convert_and_add_up() {
        let reported = ConsumedCapacity::builder()
            .table_name("t")
            .capacity_units(3.0)
            .table(SdkCapacity::builder().capacity_units(1.0).build())
            .global_secondary_indexes("GSI1", SdkCapacity::builder().capacity_units(2.0).build())
            .build();
        let c = Capacity::from_consumed(std::slice::from_ref(&reported), true);
        assert_eq!(c, Capacity::table(Units::writes(1.0)).with_index(Index::Gsi(1), Units::writes(2.0)));
        assert_eq!(c.to_string(), "3 WCU (table 1 WCU, GSI1 2 WCU)");
        let gsi_query = Capacity::table(Units::reads(0.0)).with_index(Index::Gsi(2), Units::reads(2.5));
        assert_eq!(gsi_query.to_string(), "2.5 RCU (table 0 RCU, GSI2 2.5 RCU)");
        let total = ConsumedCapacity::builder().capacity_units(0.5).build();
        assert_eq!(Capacity::from_consumed(&[total], false), Capacity::table(Units::reads(0.5)));
        let parent = Arc::new(CapacityMeter::default());
        let child = CapacityMeter::child(Arc::clone(&parent));
        child.record(&c);
        child.record(&c);
        assert_eq!(child.take().write(), 6.0);
        assert_eq!(child.consumed(), Capacity::zero());
        assert_eq!(parent.consumed().index(Index::Gsi(1)), Units::writes(4.0));
    }

    #[test]
    fn a_meter_adds_reports_in_place_and_returns_each_total() {
        // Two tables in one response (a batch): table units, two GSIs and an LSI.
        let first = ConsumedCapacity::builder()
            .table_name("a")
            .capacity_units(4.0)
            .table(SdkCapacity::builder().capacity_units(1.0).build())
            .global_secondary_indexes("GSI1", SdkCapacity::builder().capacity_units(1.0).build())
            .global_secondary_indexes("ByEmail", SdkCapacity::builder().capacity_units(1.5).build())
            .local_secondary_indexes("LSI1", SdkCapacity::builder().capacity_units(0.5).build())
            .build();
        let second = ConsumedCapacity::builder().table_name("b").capacity_units(2.0).build();
        let both = [first, second];
        let parent = Arc::new(CapacityMeter::default());
        let child = CapacityMeter::child(Arc::clone(&parent));
        assert_eq!(child.record_consumed(&both, true), 6.0);
        assert_eq!(child.record_consumed(&both, true), 6.0);
        assert_eq!(child.record_consumed(&[], true), 0.0);
        let indexes = [("ByEmail", 3.0), ("GSI1", 2.0), ("LSI1", 1.0)];
        let twice = Capacity {
            table: Units::writes(6.0),
            indexes: indexes.into_iter().map(|(n, u)| (n.to_owned(), Units::writes(u))).collect(),
        };
        assert_eq!(child.consumed(), twice);
        assert_eq!(parent.consumed(), twice);
        // The same as converting each report and adding it up.
        let added = Capacity::from_consumed(&both, true) + Capacity::from_consumed(&both, true);
        assert_eq!(added, twice);
        let mut in_place = Capacity::from_consumed(&both, true);
        in_place += &Capacity::from_consumed(&both, true);
        assert_eq!(in_place, twice);
        assert_eq!(in_place.indexes.keys().collect::<Vec<_>>(), ["ByEmail", "GSI1", "LSI1"]);
    }
}

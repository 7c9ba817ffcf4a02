//! Estimates for a whole table: what one write of an item costs in the table and in every
//! secondary index ([`TableLayout::write_capacity`], the write amplification of the design),
//! and how much storage a set of items takes in the table and in each index
//! ([`TableLayout::storage`]).
//!
//! Both count every index of the layout: the template GSIs (keyed on `GSI<n>PK` /
//! `GSI<n>SK`), the LSIs, the inverted index, and the multi-attribute GSIs keyed on the items'
//! own attributes (see [`multi_key`](crate::schema::multi_key)). An item is in an index only
//! when it holds every key attribute of the index (sparse index): for a multi-attribute GSI,
//! all of its partition and sort key attributes.
//!
//! ```
//! use dynamo_entity::capacity::{Capacity, Units, WriteMode};
//! use dynamo_entity::schema::TableLayout;
//! use dynamo_entity::{Entity, Index};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "TICKET#<id>", sk = "META", gsi6(pk(tenant), sk(status)))]
//! struct Ticket {
//!     id: String,
//!     tenant: String,
//!     status: Option<String>,
//! }
//!
//! # fn main() -> dynamo_entity::Result<()> {
//! let layout = TableLayout::new(&[Ticket::schema()])?;
//! let open = Ticket { id: "t1".into(), tenant: "acme".into(), status: Some("open".into()) }.to_item()?;
//! let sparse = Ticket { id: "t1".into(), tenant: "acme".into(), status: None }.to_item()?;
//! // In GSI6: one write unit there too.
//! assert_eq!(
//!     layout.write_capacity(None, Some(&open), WriteMode::Standard),
//!     Capacity::table(Units::writes(1.0)).with_index(Index::Gsi(6), Units::writes(1.0))
//! );
//! // Without a status the item is not in GSI6: the table alone.
//! assert_eq!(layout.write_capacity(None, Some(&sparse), WriteMode::Standard), Capacity::table(Units::writes(1.0)));
//! # Ok(())
//! # }
//! ```

use super::views::project;
use crate::capacity::{Capacity, IndexProjection, Units, WriteMode, index_write_units, write_units};
use crate::schema::{AttributeNames, Index, Item, MultiKeyIndex, Projection, TableLayout};
use crate::value::size::item_size;

/// The storage DynamoDB counts for each item and each index entry besides its attributes, in
/// bytes (the DynamoDB Developer Guide, "Item sizes and formats" and "Storage considerations
/// for global secondary indexes").
pub const ENTRY_OVERHEAD_BYTES: usize = 100;

/// The storage of the sample items in the table or in one index: [`TableLayout::storage`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexStorage {
    /// [`Index::Primary`] for the table.
    pub index: Index,
    /// `table`, or the index's name.
    pub name: &'static str,
    /// How many of the items it holds (an index leaves out the items that lack one of its key
    /// attributes).
    pub items: usize,
    /// Their size as it holds them (the projected attributes, for an index), plus
    /// [`ENTRY_OVERHEAD_BYTES`] per item, in bytes.
    pub bytes: usize,
}

impl TableLayout {
    /// The capacity one write of an item costs, by DynamoDB's rules (see
    /// [`capacity`](crate::capacity)): `before` is the item as stored before the write (`None`:
    /// none), `after` as stored after it (`None`: deleted). The table's units (the larger of the
    /// two sizes, 1 per KB, a vector counted as the list of numbers it is: see
    /// [`capacity`](crate::capacity)), then each index's, per 1 KB of its entry as the index's projection
    /// holds it (the whole item with `ALL`; the key attributes, and the listed ones for
    /// `INCLUDE`): putting an item into an index costs the new entry, removing it the old one,
    /// moving it inside the index (a changed key attribute) both, rewriting it under the same
    /// key the larger of the two; an index the item is in neither before nor after, or whose
    /// `KEYS_ONLY` or `INCLUDE` entry the write leaves as it was (same key, same projected
    /// attributes), costs nothing. Template GSIs, LSIs, the inverted index and the
    /// multi-attribute GSIs are all counted, each under its name.
    pub fn write_capacity(&self, before: Option<&Item>, after: Option<&Item>, mode: WriteMode) -> Capacity {
        let size = |i: Option<&Item>| i.map_or(0, item_size);
        let mut out = Capacity::table(Units::writes(write_units(size(before).max(size(after)), mode)));
        for (index, keys) in self.index_keys() {
            let projected = (index, self.projection(index)).projected();
            if let Some(units) = index_write_units(self.names, &keys, projected, before, after, mode) {
                out.add_index(self.names, index, Units::writes(units));
            }
        }
        out
    }

    /// Every secondary index with the attributes of its key: the template GSIs, LSIs and the
    /// inverted index in [`indexes`](Self::indexes) order, then the multi-attribute GSIs.
    fn index_keys(&self) -> Vec<(Index, Vec<&'static str>)> {
        let names = self.names;
        let template = self.indexes().into_iter().map(|index| {
            let (pk, sk) = match index {
                Index::Inverted => (names.sk, names.pk),
                Index::Lsi(_) => (names.pk, names.sk_of(index)),
                _ => (names.pk_of(index), names.sk_of(index)),
            };
            (index, vec![pk, sk])
        });
        let multi = self.multi_gsis.iter().map(|g| (g.index, g.attributes().map(|a| a.attribute).collect()));
        template.chain(multi).collect()
    }

    /// The storage `items` (as stored in the table) take: the table first, then each index in
    /// [`indexes`](Self::indexes) order, then the multi-attribute GSIs by number. Each entry is
    /// the item as the index's projection holds it (the table's and the index's key
    /// attributes, and the projected ones) plus [`ENTRY_OVERHEAD_BYTES`], a vector counted as
    /// the list of numbers it is ([`item_size`]); an item lacking a key attribute of an index
    /// is not in it. The vector indexes, which store a vector as 32-bit floats, are not among
    /// them (see [`billed_item_size`](crate::schema::vector::billed_item_size)).
    ///
    /// ```
    /// use dynamo_entity::{Entity, schema::TableLayout};
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "DOC#<id>", sk = "META")]
    /// struct Doc {
    ///     id: String,
    ///     #[entity(vector(index = "DocsByMeaning", dimensions = 3, distance = cosine))]
    ///     embedding: Vec<f32>,
    /// }
    ///
    /// let layout = TableLayout::new(&[Doc::schema()])?;
    /// let item = Doc { id: "d1".into(), embedding: vec![0.123456, 1.0, 2.5] }.to_item()?;
    /// // PK (2 + 6), SK (2 + 4), _type (5 + 3), id (2 + 2), and the vector as a list of
    /// // numbers: its name (9), 3, and 1 byte each besides the numbers' sizes, 0.123456
    /// // (4), 1 (2) and 2.5 (2); and 100.
    /// assert_eq!(layout.storage(&[item])[0].bytes, 8 + 6 + 8 + 4 + (9 + 3 + 5 + 3 + 3) + 100);
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    pub fn storage(&self, items: &[Item]) -> Vec<IndexStorage> {
        let names = self.names;
        let mut out = vec![IndexStorage {
            index: Index::Primary,
            name: "table",
            items: items.len(),
            bytes: items.iter().map(|i| item_size(i) + ENTRY_OVERHEAD_BYTES).sum(),
        }];
        for (index, keys) in self.index_keys() {
            let projection = self.projection(index);
            let mut all_keys = vec![names.pk, names.sk];
            all_keys.extend(&keys);
            let held: Vec<Item> = items
                .iter()
                .filter(|i| keys.iter().all(|k| i.contains_key(*k)))
                .map(|i| project(i, &projection, &all_keys))
                .collect();
            out.push(IndexStorage {
                index,
                name: names.index_name(index).unwrap_or_default(),
                items: held.len(),
                bytes: held.iter().map(|i| item_size(i) + ENTRY_OVERHEAD_BYTES).sum(),
            });
        }
        out
    }
}

impl MultiKeyIndex {
    /// The write units a write of an item costs in this index, as
    /// [`capacity::write_in`](crate::capacity::write_in) counts them for a template GSI:
    /// `before` and `after` are the item before and after the write (`None`: absent). The item
    /// is in the index when it holds every key attribute; each write costs 1 unit per 1 KB of
    /// the entry as `projection` holds it (the table's keys, the index's key attributes and the
    /// projected ones): a changed key attribute costs a delete and a put, a rewrite under the
    /// same key the larger of the two sizes (nothing, under `KEYS_ONLY` or `INCLUDE`, when the
    /// entry is unchanged), and an item absent before and after nothing (sparse index). The
    /// units are reported under the index's name in `names`.
    pub fn write_capacity(
        &self,
        names: &AttributeNames,
        projection: Projection,
        before: Option<&Item>,
        after: Option<&Item>,
        mode: WriteMode,
    ) -> Capacity {
        let keys: Vec<&str> = self.attributes().map(|a| a.attribute).collect();
        let projected = (self.index, projection).projected();
        match index_write_units(names, &keys, projected, before, after, mode) {
            Some(units) => Capacity::zero().with_index_in(names, self.index, Units::writes(units)),
            None => Capacity::zero(),
        }
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;

    use super::*;
    use crate::key::KeyType;
    use crate::schema::MultiKeyAttr;

    const PK: &[MultiKeyAttr] = &[MultiKeyAttr { field: "tenant", attribute: "tenant", key_type: KeyType::S }];
    const SK: &[MultiKeyAttr] = &[MultiKeyAttr { field: "rank", attribute: "rank", key_type: KeyType::N }];
    const G: MultiKeyIndex = MultiKeyIndex { index: Index::Gsi(6), pk: PK, sk: SK };

    fn item(pairs: &[(&str, AttributeValue)]) -> Item {
        pairs.iter().map(|(k, v)| ((*k).to_owned(), v.clone())).collect()
    }

    #[test]
    fn writes_cost_units_only_while_the_item_is_in_the_index() {
        let s = |v: &str| AttributeValue::S(v.to_owned());
        let n = |v: &str| AttributeValue::N(v.to_owned());
        let names = &AttributeNames::DEFAULT;
        let inside = item(&[("PK", s("a")), ("SK", s("b")), ("tenant", s("t")), ("rank", n("1"))]);
        let moved = item(&[("PK", s("a")), ("SK", s("b")), ("tenant", s("t")), ("rank", n("2"))]);
        let sparse = item(&[("PK", s("a")), ("SK", s("b")), ("tenant", s("t"))]);
        let one = Capacity::zero().with_index(Index::Gsi(6), Units::writes(1.0));
        let two = Capacity::zero().with_index(Index::Gsi(6), Units::writes(2.0));
        let w =
            |b: Option<&Item>, a: Option<&Item>| G.write_capacity(names, Projection::All, b, a, WriteMode::Standard);
        assert_eq!(w(None, Some(&inside)), one);
        assert_eq!(w(Some(&inside), Some(&inside)), one);
        assert_eq!(w(Some(&inside), Some(&moved)), two);
        assert_eq!(w(Some(&inside), Some(&sparse)), one);
        assert_eq!(w(Some(&sparse), Some(&sparse)), Capacity::zero());
        assert_eq!(w(Some(&inside), None), one);
    }
}

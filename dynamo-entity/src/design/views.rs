//! Item-collection views: a design's sample items as DynamoDB lays them out in the table and in
//! each secondary index, the picture a team checks a single-table design against ("the account
//! page is one Query").
//!
//! For the table and for every GSI, LSI and the inverted index, [`TableLayout::item_collections`]
//! groups the sample items by the index's partition key value (one [`PartitionView`] per item
//! collection), sorts each group's items by the index's sort key the way DynamoDB does
//! ([`key_order`]: `S` by UTF-8 bytes, `N` numerically, `B` by unsigned bytes), keeps of each
//! item what the index's projection copies, and marks the access patterns that read the group
//! ([`PatternRead`]): the generated queries of [`TableLayout::access_patterns`] whose partition
//! key template matches the group's key and whose key condition reaches at least one item of an
//! entity the query returns.
//!
//! ```
//! use dynamo_entity::schema::TableLayout;
//! use dynamo_entity::Entity;
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "SKILL#<id>", sk = "META")]
//! struct Skill {
//!     id: String,
//!     title: String,
//! }
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>")]
//! struct Review {
//!     skill_id: String,
//!     id: u32,
//!     stars: u8,
//! }
//!
//! # fn main() -> dynamo_entity::Result<()> {
//! let layout = TableLayout::new(&[Skill::schema(), Review::schema()])?;
//! let items = vec![
//!     Review { skill_id: "s1".into(), id: 2, stars: 5 }.to_item()?,
//!     Skill { id: "s1".into(), title: "Summarize".into() }.to_item()?,
//! ];
//! let table = &layout.item_collections(&items)[0];
//! let skill = &table.partitions[0];
//! assert_eq!(skill.key, "SKILL#s1");
//! let order: Vec<&str> = skill.items.iter().map(|i| i.sort_key.as_str()).collect();
//! assert_eq!(order, ["META", "REVIEW#0000000002"]);
//! // A skill and its reviews: one Query on SKILL#s1.
//! let reads: Vec<(&str, usize)> = skill.reads.iter().map(|r| (r.pattern.as_str(), r.returned)).collect();
//! assert_eq!(reads, [("Skill::query", 1), ("Review::query", 1), ("table.collection(Skill::query(..))", 2)]);
//! # Ok(())
//! # }
//! ```
//!
//! An item the index leaves out (a sparse GSI or LSI: one of its key attributes is absent) is
//! listed in [`IndexView::absent`]. The order of the partitions themselves is not DynamoDB's
//! (partitions are placed by a hash); they are listed in key order so the views are stable.

use std::cmp::Ordering;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::capacity::{ReadMode, item_size, read_units};
use crate::design::AccessPattern;
use crate::schema::{Index, Item, MultiKeyAttr, MultiKeyIndex, Projection, TableLayout};

/// The sample items as one index holds them.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexView {
    /// The index ([`Index::Primary`] for the table).
    pub index: Index,
    /// `table`, or the index's name (`GSI1`, `LSI1`, `Inverted`, or the names the table
    /// declares).
    pub name: &'static str,
    /// The index's partition key attribute (`GSI1PK`); for a multi-attribute GSI its
    /// attributes with their types, `tenant (S), region (S)`.
    pub partition_key: String,
    /// The index's sort key attribute (`GSI1SK`); for a multi-attribute GSI its attributes with
    /// their types, `status (S), createdAt (N)`, or `(none)`.
    pub sort_key: String,
    /// What the index copies of each item ([`Projection::All`] for the table).
    pub projection: Projection,
    /// The item collections, by partition key value in [`key_order`].
    pub partitions: Vec<PartitionView>,
    /// The entities that write this index's keys, in layout order.
    pub entities: Vec<&'static str>,
    /// The sample items of those entities that the index leaves out because a key attribute is
    /// absent (a sparse index): each one's entity and its table key as [`key_text`] writes it,
    /// `PK / SK`. Items of other entities are not listed.
    pub absent: Vec<(String, String)>,
}

/// One item collection: the items of one partition key value, in sort-key order.
#[derive(Debug, Clone, PartialEq)]
pub struct PartitionView {
    /// The partition key value, as [`key_text`] writes it; for a multi-attribute GSI each
    /// partition key attribute with its value, `tenant = acme, region = eu`.
    pub key: String,
    /// The items, in DynamoDB's sort-key order.
    pub items: Vec<ItemView>,
    /// The access patterns that read this item collection, in the order of
    /// [`TableLayout::access_patterns`].
    pub reads: Vec<PatternRead>,
}

/// One item of an item collection.
#[derive(Debug, Clone, PartialEq)]
pub struct ItemView {
    /// The entity type (the type attribute, or the entity whose primary key templates the
    /// item's key matches; `?` when neither tells).
    pub entity: String,
    /// The sort key value, as [`key_text`] writes it; for a multi-attribute GSI the values of
    /// its sort key attributes, joined with `, ` (`open, 200`).
    pub sort_key: String,
    /// The table's key, `PK / SK`, as [`key_text`] writes the values.
    pub table_key: String,
    /// The item's other attributes as the index holds them (after its projection), without the
    /// key attributes of the table, of every template GSI and LSI and of this index, and
    /// without the type attribute: the entity's fields in declaration order, then any others in
    /// name order. (The attributes a multi-attribute GSI is keyed on are the item's own fields:
    /// they are shown everywhere but in that index's view, whose key columns hold them.)
    pub attributes: Vec<(String, AttributeValue)>,
    /// The item's size as the index holds it, in bytes (DynamoDB's rule, see
    /// [`item_size`]).
    pub size: usize,
}

/// An access pattern that reads an item collection.
#[derive(Debug, Clone, PartialEq)]
pub struct PatternRead {
    /// The generated query, such as `Skill::query` or `table.collection(Skill::query(..))`.
    pub pattern: String,
    /// The `Query` requests one answer takes: 1, or the shard count of a write-sharded
    /// partition key (this partition is one of them).
    pub queries: u16,
    /// How many of the collection's items the key condition reaches (all of them for a whole
    /// collection; those with the sort key, or its prefix, otherwise).
    pub read: usize,
    /// How many of those are of an entity the query returns (the others are read and dropped).
    pub returned: usize,
    /// The summed size of the items read, in bytes.
    pub bytes: usize,
    /// The read capacity units of the `Query` on this partition, eventually consistent (0.5
    /// per 4 KB of `bytes`, rounded up once, at least one block).
    pub read_units: f64,
    /// How many items the whole answer returns: `returned` for an unsharded key; for a
    /// write-sharded one, summed over the sample partitions of all `queries` shards of the same
    /// key values.
    pub answer_returned: usize,
    /// The read capacity units of the whole answer, eventually consistent: `read_units` for an
    /// unsharded key; for a write-sharded one, the sum over all `queries` shard `Query`
    /// requests (a shard without sample items costs the minimum, 0.5).
    pub answer_read_units: f64,
}

impl TableLayout {
    /// The item-collection views of `items` (sample items as stored, such as
    /// [`WorkbenchModel::items`](crate::design::workbench::WorkbenchModel::items)): one
    /// [`IndexView`] for the table, then one per index in [`TableLayout::indexes`] order, the
    /// multi-attribute GSIs among the numbered GSIs by number. See the
    /// [module documentation](self).
    pub fn item_collections(&self, items: &[Item]) -> Vec<IndexView> {
        let names = self.names;
        let sources = self.pattern_sources();
        let key_attributes = self.synthetic_key_attributes();
        let mut out = Vec::new();
        for index in self.ordered_indexes() {
            if let Some(g) = self.multi_gsi(index) {
                out.push(self.multi_view(g, items, &key_attributes));
                continue;
            }
            let (pk, sk) = (names.pk_of(index), names.sk_of(index));
            let projection = if index == Index::Primary { Projection::All } else { self.projection(index) };
            let mut groups: Vec<(AttributeValue, Vec<(AttributeValue, ItemView)>)> = Vec::new();
            let mut absent = Vec::new();
            let entities: Vec<&'static str> = self
                .entities
                .iter()
                .filter(|e| {
                    std::iter::once(&e.primary)
                        .chain(e.gsis)
                        .chain(&e.inverted)
                        .chain(e.lsis)
                        .any(|ix| ix.index == index)
                })
                .map(|e| e.name)
                .collect();
            for item in items {
                let entity = self.entity_of(item);
                let (Some(p), Some(s)) = (item.get(pk), item.get(sk)) else {
                    if entities.contains(&entity.as_str()) {
                        absent.push((entity, self.table_key(item)));
                    }
                    continue;
                };
                let held = project(item, &projection, &key_attributes_of(self, index));
                let view = ItemView {
                    attributes: self.attributes(&entity, &held, &key_attributes),
                    size: item_size(&held),
                    entity,
                    sort_key: key_text(s),
                    table_key: self.table_key(item),
                };
                match groups.iter_mut().find(|(k, _)| key_order(k, p) == Ordering::Equal) {
                    Some((_, members)) => members.push((s.clone(), view)),
                    None => groups.push((p.clone(), vec![(s.clone(), view)])),
                }
            }
            groups.sort_by(|a, b| key_order(&a.0, &b.0));
            let groups = groups
                .into_iter()
                .map(|(key, mut members)| {
                    members.sort_by(|a, b| key_order(&a.0, &b.0));
                    let items: Vec<ItemView> = members.into_iter().map(|(_, v)| v).collect();
                    let key = key_text(&key);
                    // Every pattern whose partition key template matches: what its Query on
                    // this partition reads, whether it returns anything here or not (a shard
                    // Query is paid for either way).
                    let cost: Vec<(usize, Vec<String>, PatternRead)> = sources
                        .iter()
                        .enumerate()
                        .filter(|(_, s)| s.pattern.index == index)
                        .filter_map(|(n, s)| {
                            let parts = s.pk.parse(&key).ok()?;
                            let reached: Vec<&ItemView> = items
                                .iter()
                                .filter(|i| match s.sk {
                                    None => true,
                                    Some(t) => match t.constant() {
                                        Some(c) => i.sort_key == c,
                                        None => i.sort_key.starts_with(&t.literal_prefix()),
                                    },
                                })
                                .collect();
                            let returned =
                                reached.iter().filter(|i| s.pattern.returns.contains(&i.entity.as_str())).count();
                            let bytes = reached.iter().map(|i| i.size).sum();
                            let units = read_units(bytes, ReadMode::Eventual);
                            let read = PatternRead {
                                pattern: s.pattern.name.clone(),
                                queries: s.pk.shard().map_or(1, |(_, n)| n),
                                read: reached.len(),
                                returned,
                                bytes,
                                read_units: units,
                                answer_returned: returned,
                                answer_read_units: units,
                            };
                            Some((n, parts.into_iter().map(|p| p.into_owned()).collect(), read))
                        })
                        .collect();
                    (key, items, cost)
                })
                .collect::<Vec<_>>();
            // A write-sharded answer is the Queries on all shards of the same key values: sum
            // what they read, and count the minimum for each shard without a sample partition.
            let partitions = groups
                .iter()
                .map(|(key, items, cost)| {
                    let reads = cost
                        .iter()
                        .filter(|(_, _, r)| r.returned > 0)
                        .map(|(n, parts, r)| {
                            let mut r = r.clone();
                            if r.queries > 1 {
                                let shards: Vec<&PatternRead> = groups
                                    .iter()
                                    .flat_map(|(_, _, c)| c)
                                    .filter(|(m, p, _)| m == n && p == parts)
                                    .map(|(_, _, r)| r)
                                    .collect();
                                let empty = usize::from(r.queries).saturating_sub(shards.len());
                                r.answer_returned = shards.iter().map(|s| s.returned).sum();
                                r.answer_read_units = shards.iter().map(|s| s.read_units).sum::<f64>()
                                    + empty as f64 * read_units(0, ReadMode::Eventual);
                            }
                            r
                        })
                        .collect();
                    PartitionView { key: key.clone(), items: items.clone(), reads }
                })
                .collect();
            out.push(IndexView {
                index,
                name: names.index_name(index).unwrap_or("table"),
                partition_key: pk.to_owned(),
                sort_key: sk.to_owned(),
                projection,
                partitions,
                entities,
                absent,
            });
        }
        out
    }

    /// The key attributes the library writes for the keys of the table, its template GSIs and
    /// its LSIs (not the attributes of the multi-attribute GSIs, which are the items' fields).
    fn synthetic_key_attributes(&self) -> Vec<&'static str> {
        let multi: Vec<&str> = self.multi_gsis.iter().flat_map(|g| g.attributes()).map(|a| a.attribute).collect();
        let names = self.names;
        self.key_attributes()
            .into_iter()
            .filter(|a| {
                !multi.contains(a)
                    || *a == names.pk
                    || *a == names.sk
                    || self.indexes().into_iter().any(|i| names.pk_of(i) == *a || names.sk_of(i) == *a)
            })
            .collect()
    }

    /// The view of the multi-attribute GSI `g`: the items of the entities that write it,
    /// grouped by their partition key attributes' values, each group in the order of the sort
    /// key attributes' values (compared one attribute after the other, as DynamoDB orders a
    /// multi-attribute sort key), each read whole by the entities' `gsi<n>` queries with a
    /// partition-only key condition.
    fn multi_view(&self, g: &MultiKeyIndex, items: &[Item], synthetic: &[&'static str]) -> IndexView {
        let index = g.index;
        let projection = self.projection(index);
        let entities: Vec<&'static str> =
            self.entities.iter().filter(|e| e.multi_gsis.iter().any(|m| m.index == index)).map(|e| e.name).collect();
        let mut keys: Vec<&'static str> = vec![self.names.pk, self.names.sk];
        keys.extend(g.attributes().map(|a| a.attribute));
        let mut hidden = synthetic.to_vec();
        hidden.extend(g.attributes().map(|a| a.attribute));
        // (partition key values, [(sort key values, item)])
        type Group = (Vec<AttributeValue>, Vec<(Vec<AttributeValue>, ItemView)>);
        let mut groups: Vec<Group> = Vec::new();
        let mut absent = Vec::new();
        for item in items {
            let entity = self.entity_of(item);
            if !entities.contains(&entity.as_str()) {
                continue;
            }
            let values = |attrs: &[MultiKeyAttr]| -> Option<Vec<AttributeValue>> {
                attrs.iter().map(|a| item.get(a.attribute).cloned()).collect()
            };
            let (Some(p), Some(s)) = (values(g.pk), values(g.sk)) else {
                absent.push((entity, self.table_key(item)));
                continue;
            };
            let held = project(item, &projection, &keys);
            let view = ItemView {
                attributes: self.attributes(&entity, &held, &hidden),
                size: item_size(&held),
                entity,
                sort_key: s.iter().map(key_text).collect::<Vec<_>>().join(", "),
                table_key: self.table_key(item),
            };
            match groups.iter_mut().find(|(k, _)| tuple_order(k, &p) == Ordering::Equal) {
                Some((_, members)) => members.push((s, view)),
                None => groups.push((p, vec![(s, view)])),
            }
        }
        groups.sort_by(|a, b| tuple_order(&a.0, &b.0));
        let patterns: Vec<AccessPattern> = self.multi_patterns().into_iter().filter(|p| p.index == index).collect();
        let partitions = groups
            .into_iter()
            .map(|(key, mut members)| {
                members.sort_by(|a, b| tuple_order(&a.0, &b.0));
                let items: Vec<ItemView> = members.into_iter().map(|(_, v)| v).collect();
                // A `gsi<n>` query names every partition key attribute: it reads the whole
                // partition and returns the items of its entity.
                let bytes = items.iter().map(|i| i.size).sum();
                let units = read_units(bytes, ReadMode::Eventual);
                let reads = patterns
                    .iter()
                    .map(|p| {
                        let returned = items.iter().filter(|i| p.returns.contains(&i.entity.as_str())).count();
                        PatternRead {
                            pattern: p.name.clone(),
                            queries: 1,
                            read: items.len(),
                            returned,
                            bytes,
                            read_units: units,
                            answer_returned: returned,
                            answer_read_units: units,
                        }
                    })
                    .filter(|r| r.returned > 0)
                    .collect();
                let key =
                    g.pk.iter()
                        .zip(&key)
                        .map(|(a, v)| format!("{} = {}", a.attribute, key_text(v)))
                        .collect::<Vec<_>>()
                        .join(", ");
                PartitionView { key, items, reads }
            })
            .collect();
        let side = |attrs: &[MultiKeyAttr]| {
            attrs.iter().map(|a| format!("{} ({})", a.attribute, a.key_type)).collect::<Vec<_>>().join(", ")
        };
        IndexView {
            index,
            name: self.names.index_name(index).unwrap_or_default(),
            partition_key: side(g.pk),
            sort_key: if g.sk.is_empty() { "(none)".to_owned() } else { side(g.sk) },
            projection,
            partitions,
            entities,
            absent,
        }
    }

    /// The entity type of a stored item: its type attribute, else the entity whose primary key
    /// templates match its key, else `?`.
    fn entity_of(&self, item: &Item) -> String {
        if let Some(AttributeValue::S(t)) = item.get(self.names.entity_type) {
            return t.clone();
        }
        let text = |a: &str| item.get(a).map(key_text);
        let (pk, sk) = (text(self.names.pk).unwrap_or_default(), text(self.names.sk).unwrap_or_default());
        self.entities
            .iter()
            .find(|e| e.primary.pk.parse(&pk).is_ok() && e.primary.sk.parse(&sk).is_ok())
            .map_or_else(|| "?".to_owned(), |e| e.name.to_owned())
    }

    /// `PK / SK` of a stored item.
    fn table_key(&self, item: &Item) -> String {
        let text = |a: &str| item.get(a).map_or_else(|| "-".to_owned(), key_text);
        format!("{} / {}", text(self.names.pk), text(self.names.sk))
    }

    /// The non-key attributes of `held`: the entity's fields in declaration order, then the
    /// rest by name.
    fn attributes(&self, entity: &str, held: &Item, key_attributes: &[&str]) -> Vec<(String, AttributeValue)> {
        let mut order: Vec<&str> = Vec::new();
        if let Some(e) = self.entities.iter().find(|e| e.name == entity) {
            order.extend(e.fields.iter().map(|f| f.attribute));
        }
        let mut rest: Vec<&str> = held.keys().map(String::as_str).filter(|a| !order.contains(a)).collect();
        rest.sort_unstable();
        order.extend(rest);
        order
            .into_iter()
            .filter(|a| *a != self.names.entity_type && !key_attributes.contains(a))
            .filter_map(|a| held.get(a).map(|v| (a.to_owned(), v.clone())))
            .collect()
    }
}

/// Two lists of key values in DynamoDB's order: attribute by attribute ([`key_order`]), a
/// shorter list first when it is a prefix of the other.
fn tuple_order(a: &[AttributeValue], b: &[AttributeValue]) -> Ordering {
    a.iter().zip(b).map(|(x, y)| key_order(x, y)).find(|o| *o != Ordering::Equal).unwrap_or(a.len().cmp(&b.len()))
}

/// The key attributes an index entry always carries: the table's and the index's.
fn key_attributes_of(layout: &TableLayout, index: Index) -> [&'static str; 4] {
    let n = layout.names;
    [n.pk, n.sk, n.pk_of(index), n.sk_of(index)]
}

/// `item` as an index with `projection` holds it.
pub(crate) fn project(item: &Item, projection: &Projection, keys: &[&str]) -> Item {
    match projection {
        Projection::All => item.clone(),
        Projection::KeysOnly | Projection::Include(_) => {
            let extra = projection.non_key_attributes();
            item.iter()
                .filter(|(a, _)| keys.contains(&a.as_str()) || extra.contains(&a.as_str()))
                .map(|(a, v)| (a.clone(), v.clone()))
                .collect()
        }
    }
}

/// A key value as text: a string as it is, a number as DynamoDB returns it, binary as
/// lowercase hex (`0x00ff`); other types (never key values) by their DynamoDB type name.
pub fn key_text(v: &AttributeValue) -> String {
    match v {
        AttributeValue::S(s) => s.clone(),
        AttributeValue::N(n) => n.clone(),
        AttributeValue::B(b) => {
            let mut out = String::from("0x");
            for byte in b.as_ref() {
                out.push_str(&format!("{byte:02x}"));
            }
            out
        }
        other => format!("<{}>", crate::value::type_name(other)),
    }
}

/// DynamoDB's order of key values, the order of a query's answer: strings by their UTF-8 bytes,
/// numbers by value (`9 < 10`, `-2 < -1.5`, `1e2 = 100`), binary by unsigned bytes. Values of
/// different types (which one key attribute never holds) order as `B < N < S`; a malformed
/// number orders by its text.
///
/// ```
/// use std::cmp::Ordering;
/// use aws_sdk_dynamodb::types::AttributeValue::{N, S};
/// use dynamo_entity::design::views::key_order;
/// assert_eq!(key_order(&N("9".into()), &N("10".into())), Ordering::Less);
/// assert_eq!(key_order(&S("9".into()), &S("10".into())), Ordering::Greater);
/// assert_eq!(key_order(&N("1e2".into()), &N("100.0".into())), Ordering::Equal);
/// ```
pub fn key_order(a: &AttributeValue, b: &AttributeValue) -> Ordering {
    let rank = |v: &AttributeValue| match v {
        AttributeValue::B(_) => 0,
        AttributeValue::N(_) => 1,
        AttributeValue::S(_) => 2,
        _ => 3,
    };
    match (a, b) {
        (AttributeValue::S(x), AttributeValue::S(y)) => x.as_bytes().cmp(y.as_bytes()),
        (AttributeValue::N(x), AttributeValue::N(y)) => crate::value::compare_numbers(x, y),
        (AttributeValue::B(x), AttributeValue::B(y)) => x.as_ref().cmp(y.as_ref()),
        _ => rank(a).cmp(&rank(b)).then_with(|| key_text(a).cmp(&key_text(b))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AttributeValue::{B, N, S};
    use aws_sdk_dynamodb::primitives::Blob;

    fn n(a: &str, b: &str) -> Ordering {
        key_order(&N(a.into()), &N(b.into()))
    }

    #[test]
    fn numbers_order_by_value() {
        assert_eq!(n("9", "10"), Ordering::Less);
        assert_eq!(n("-2", "-1.5"), Ordering::Less);
        assert_eq!(n("-0.001", "0"), Ordering::Less);
        assert_eq!(n("0", "-0.0"), Ordering::Equal);
        assert_eq!(n("1e2", "100.000"), Ordering::Equal);
        assert_eq!(n("0.0012", "1.2E-3"), Ordering::Equal);
        assert_eq!(
            n("12345678901234567890123456789012345678", "12345678901234567890123456789012345679"),
            Ordering::Less
        );
        assert_eq!(n("-10", "-9"), Ordering::Less);
        assert_eq!(n("0.5", "0.45"), Ordering::Greater);
        assert_eq!(n("007", "7"), Ordering::Equal);
    }

    #[test]
    fn strings_order_by_utf8_bytes_and_binary_by_unsigned_bytes() {
        let s = |a: &str, b: &str| key_order(&S(a.into()), &S(b.into()));
        assert_eq!(s("10", "9"), Ordering::Less);
        assert_eq!(s("Z", "a"), Ordering::Less);
        // U+00E9 (0xC3 0xA9) after U+007A, U+FF21 (0xEF ...) after U+00E9.
        assert_eq!(s("é", "z"), Ordering::Greater);
        assert_eq!(s("Ａ", "é"), Ordering::Greater);
        let b = |a: &[u8], c: &[u8]| key_order(&B(Blob::new(a.to_vec())), &B(Blob::new(c.to_vec())));
        assert_eq!(b(&[0x7f], &[0x80]), Ordering::Less);
        assert_eq!(b(&[1, 2], &[1]), Ordering::Greater);
        assert_eq!(key_text(&B(Blob::new(vec![0, 255]))), "0x00ff");
    }

    #[test]
    fn multi_attribute_keys_order_attribute_by_attribute() {
        let n = |v: &str| N(v.into());
        let (open, closed) = (S("open".into()), S("closed".into()));
        // The first attribute decides; numbers by value in the next one.
        assert_eq!(tuple_order(&[closed, n("9")], &[open.clone(), n("1")]), Ordering::Less);
        assert_eq!(tuple_order(&[open.clone(), n("9")], &[open.clone(), n("10")]), Ordering::Less);
        assert_eq!(tuple_order(&[open.clone(), n("1e1")], &[open.clone(), n("10")]), Ordering::Equal);
        // A prefix first.
        assert_eq!(tuple_order(std::slice::from_ref(&open), &[open.clone(), n("0")]), Ordering::Less);
    }

    #[test]
    fn projections_keep_the_keys_and_the_included_attributes() {
        let item: Item = [("PK", "p"), ("SK", "s"), ("GSI1PK", "g"), ("GSI1SK", "h"), ("a", "1"), ("b", "2")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), S(v.into())))
            .collect();
        let keys = ["PK", "SK", "GSI1PK", "GSI1SK"];
        let mut kept: Vec<String> = project(&item, &Projection::Include(&["b"]), &keys).into_keys().collect();
        kept.sort();
        assert_eq!(kept, ["GSI1PK", "GSI1SK", "PK", "SK", "b"]);
        assert_eq!(project(&item, &Projection::KeysOnly, &keys).len(), 4);
        assert_eq!(project(&item, &Projection::All, &keys), item);
    }
}

//! The design lint: [`TableLayout::lint`] reviews a table's entities, and the reads the
//! application registers, for the single-table design mistakes that cost throughput or money
//! at scale.
//!
//! ```
//! use dynamo_entity::design::lint::LintKind;
//! use dynamo_entity::schema::{Read, TableLayout};
//! use dynamo_entity::{Entity, KeyPart, Timestamp};
//!
//! #[derive(KeyPart, Debug, Clone, Copy, PartialEq)]
//! enum Status { Draft, Pending, Approved }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META", gsi4 = "SKILL#<status>", gsi4_sk = "<submitted_at>")]
//! struct Skill { id: String, status: Status, submitted_at: Option<Timestamp> }
//!
//! # fn main() -> dynamo_entity::Result<()> {
//! let layout = TableLayout::new(&[Skill::schema()])?
//!     .reads([Read::scan("admin: every skill", Skill::TYPE)]);
//! let lints = layout.lint();
//! for lint in &lints {
//!     println!("{lint}"); // Skill GSI4 hot partition: ...
//! }
//! assert!(lints.iter().any(|l| l.kind == LintKind::HotPartition));
//! # Ok(())
//! # }
//! ```
//!
//! # Rules
//! * [`LintKind::HotPartition`]: a partition key template (of a GSI, or of the primary index
//!   when its sort key has a placeholder) with no high-cardinality part: only literal text, such
//!   as `LEADERBOARD`, or only parts of low-cardinality types ([`Cardinality::Low`]: `bool`,
//!   field-less enums from `#[derive(KeyPart)]`), such as `SKILL#<status>`. Every item with one
//!   value lands in one partition, which serves at most 1,000 write units and 3,000 read units
//!   a second. The message offers write sharding (`<shard(field, N)>`, see
//!   [`shard`](crate::query::shard)); a sharded template is not hot.
//! * [`LintKind::UnboundedCollection`]: a GSI whose sort key template is constant while its
//!   partition key does not name one item (no `#[entity(unique)]` part): the partition is an
//!   item collection that grows without bound under one sort key value, so a query reads it in
//!   no useful order and cannot narrow it with a sort-key condition.
//! * [`LintKind::TypeFilter`]: a read that selects one entity type by filtering on the type
//!   attribute: a generated query whose partition other entities share and whose sort-key
//!   condition cannot tell them apart (the query reads their items and drops them), or a
//!   registered read marked [`Read::filter_on_type`]. Filtered-out items still cost read
//!   capacity.
//! * [`LintKind::ScanRead`]: a registered [`Read::scan`]: a `Scan` reads every item of the
//!   table or index, whatever it returns. The library's scans
//!   ([`Table::scan`](crate::Table::scan), [`Table::scan_table`](crate::Table::scan_table))
//!   are for maintenance (migrations, backfills, exports); an application read that uses one
//!   should be registered with [`Read::scan`] so that this lint names it.
//! * [`LintKind::UnpaddedSortKey`]: a sort key template with an unpadded integer part
//!   (`<count:raw>`, as other writers form their keys): its string order is not numeric order
//!   (`10` sorts before `9`), so the sort key does not sort by that part, and range conditions
//!   over it are refused when a query is built.
//! * [`LintKind::MultiAttributeKey`]: a GSI whose key templates only one entity writes, so
//!   their literal text tells that entity's items from no other's, built from one to four
//!   partition key placeholders (no shard suffix) and at most four sort key placeholders, each
//!   a field stored as an attribute: native multi-attribute keys (`gsiN(pk(a, b), sk(c))`, see
//!   [`multi_key`](crate::schema::multi_key)) key the index on those attributes themselves, so
//!   there is no synthetic `GSI<n>PK` / `GSI<n>SK` to write, pad, escape or rewrite when a
//!   field changes. The message gives the declaration.
//! * [`LintKind::InvertedCost`]: an `#[entity(inverted)]` entity, whose reverse lookups the
//!   inverted index serves. That index holds an entry for every item of the table, so every
//!   write of every entity costs twice its write units; a sparse GSI keyed the other way round
//!   (the entity's sort key template as its partition key, its partition key template as its
//!   sort key), declared on that entity alone, has an entry only for its items: their writes
//!   cost 1 write unit more per KB, the other entities' nothing. The message gives both costs
//!   and the declaration, with the first GSI number the table leaves free.
//!
//! Lints come in a stable order: the entities in layout order, each entity's indexes (the
//! primary index, then GSIs by number) and rules in the order above, then the registered reads
//! in the order given.

use std::fmt;

use crate::key::{Cardinality, Segment, Template};
use crate::schema::{AttributeNames, EntitySchema, Index, IndexSchema};
use crate::schema::{Read, TableLayout};

/// The shard count the hot-partition lint suggests.
const SUGGESTED_SHARDS: u16 = 8;

/// What a [`Lint`] is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum LintKind {
    /// A partition key with no high-cardinality part: a hot partition.
    HotPartition,
    /// A GSI partition that grows without bound under a constant sort key.
    UnboundedCollection,
    /// A read that selects one entity type with a filter on the type attribute.
    TypeFilter,
    /// A `Scan` used for a read.
    ScanRead,
    /// A sort key with an unpadded integer part, which does not sort numerically.
    UnpaddedSortKey,
    /// A template GSI that native multi-attribute keys would serve better.
    MultiAttributeKey,
    /// The inverted index's write cost, beside a sparse GSI's for the reverse lookup.
    InvertedCost,
}

impl fmt::Display for LintKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            LintKind::HotPartition => "hot partition",
            LintKind::UnboundedCollection => "unbounded item collection without a sort key",
            LintKind::TypeFilter => "filter on the entity type",
            LintKind::ScanRead => "scan used for a read",
            LintKind::UnpaddedSortKey => "unpadded integer in a sort key",
            LintKind::MultiAttributeKey => "multi-attribute key suggested",
            LintKind::InvertedCost => "write cost of the inverted index",
        })
    }
}

/// How much a [`Lint`] matters. The command line's `lint` (feature `cli`) fails only on
/// [`Severity::Error`].
///
/// | severity | meaning | rules |
/// |---|---|---|
/// | [`Error`](Severity::Error) | a limit DynamoDB enforces caps the design: it cannot grow with the table | [`HotPartition`](LintKind::HotPartition) |
/// | [`Warning`](Severity::Warning) | it works, and costs capacity or order it need not | [`UnboundedCollection`](LintKind::UnboundedCollection), [`TypeFilter`](LintKind::TypeFilter), [`ScanRead`](LintKind::ScanRead), [`UnpaddedSortKey`](LintKind::UnpaddedSortKey) |
/// | [`Advice`](Severity::Advice) | a choice with a cost to weigh, often made on purpose | [`MultiAttributeKey`](LintKind::MultiAttributeKey), [`InvertedCost`](LintKind::InvertedCost) |
///
/// Severities order from the least to the most serious.
///
/// ```
/// use dynamo_entity::design::lint::{LintKind, Severity};
/// assert_eq!(LintKind::HotPartition.severity(), Severity::Error);
/// assert_eq!(LintKind::MultiAttributeKey.severity(), Severity::Advice);
/// assert!(Severity::Warning < Severity::Error);
/// assert_eq!(Severity::Warning.to_string(), "warning");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// A design choice with a cost to weigh.
    Advice,
    /// Capacity or order the design spends and need not.
    Warning,
    /// A limit DynamoDB enforces caps the design.
    Error,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Severity::Advice => "advice",
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

impl LintKind {
    /// The rule's severity (see [`Severity`]'s table).
    pub fn severity(self) -> Severity {
        match self {
            LintKind::HotPartition => Severity::Error,
            LintKind::UnboundedCollection | LintKind::TypeFilter | LintKind::ScanRead | LintKind::UnpaddedSortKey => {
                Severity::Warning
            }
            LintKind::MultiAttributeKey | LintKind::InvertedCost => Severity::Advice,
        }
    }
}

/// One finding of [`TableLayout::lint`]: the entity and index concerned, the rule, and a
/// message that says what is wrong and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lint {
    /// The entity type name.
    pub entity: &'static str,
    /// The index concerned (for a registered read, the index it reads).
    pub index: Index,
    /// The rule.
    pub kind: LintKind,
    /// What is wrong and the suggested fix.
    pub message: String,
}

impl Lint {
    /// Its rule's severity ([`LintKind::severity`]).
    ///
    /// ```
    /// use dynamo_entity::design::lint::{Lint, LintKind, Severity};
    /// use dynamo_entity::schema::Index;
    /// let lint = Lint { entity: "User", index: Index::Gsi(5), kind: LintKind::HotPartition, message: String::new() };
    /// assert_eq!(lint.severity(), Severity::Error);
    /// ```
    pub fn severity(&self) -> Severity {
        self.kind.severity()
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {} {}: {}", self.entity, self.index, self.kind, self.message)
    }
}

impl TableLayout {
    /// Registers reads the application makes besides the generated queries (scans, hand-written
    /// queries), for [`TableLayout::lint`]. Adds to the reads registered before.
    #[must_use]
    pub fn reads(mut self, reads: impl IntoIterator<Item = Read>) -> TableLayout {
        self.reads.extend(reads);
        self
    }

    /// The reads registered with [`TableLayout::reads`].
    pub fn registered_reads(&self) -> &[Read] {
        &self.reads
    }

    /// Reviews the design: hot partitions, unbounded item collections without a sort key,
    /// reads that filter on the entity type, scans used for reads, unpadded integers in sort
    /// keys, template GSIs that native multi-attribute keys would serve better, and the
    /// inverted index's write cost (see the
    /// [module documentation](crate::design::lint) for each rule). Empty when nothing is found.
    pub fn lint(&self) -> Vec<Lint> {
        let mut out = Vec::new();
        for e in self.entities() {
            for ix in std::iter::once(&e.primary).chain(e.gsis) {
                if let Some(l) = hot_partition(e, ix) {
                    out.push(l);
                }
                if let Some(l) = unbounded_collection(e, ix) {
                    out.push(l);
                }
                if let Some(l) = type_filter(self.entities(), e, ix) {
                    out.push(l);
                }
                if let Some(l) = unpadded_sort_key(e, ix) {
                    out.push(l);
                }
                if let Some(l) = self.multi_attribute_key(e, ix) {
                    out.push(l);
                }
            }
            for ix in e.lsis {
                if let Some(l) = unpadded_sort_key(e, ix) {
                    out.push(l);
                }
            }
        }
        if self.has_inverted() {
            for e in self.entities() {
                if let Some(l) = inverted_hot_partition(e) {
                    out.push(l);
                }
            }
            for e in self.entities() {
                if let Some(l) = sparse_reverse_lookup(self, e) {
                    out.push(l);
                }
            }
        }
        for r in &self.reads {
            if r.scan {
                out.push(Lint {
                    entity: r.entity,
                    index: r.index,
                    kind: LintKind::ScanRead,
                    message: format!(
                        "`{}` scans {}, reading (and paying for) every item in it to return the {} items; give the \
                         read a key: a GSI whose partition key is what the read selects by, queried instead",
                        r.name,
                        index_text(self.names, r.index),
                        r.entity
                    ),
                });
            }
            if r.type_filter {
                out.push(Lint {
                    entity: r.entity,
                    index: r.index,
                    kind: LintKind::TypeFilter,
                    message: format!(
                        "`{}` selects {} items with a filter on the entity type, so the items of other types it \
                         reads still cost read capacity; give {} its own sort key prefix (the generated queries \
                         select it with `begins_with`) or its own index",
                        r.name, r.entity, r.entity
                    ),
                });
            }
        }
        out
    }
}

fn index_text(names: &AttributeNames, index: Index) -> String {
    match index {
        Index::Primary => "the table".to_owned(),
        other => format!("index {}", names.label(other)),
    }
}

/// The placeholders of a template, as `` `a`, `b` ``.
fn field_list(t: &Template) -> String {
    t.segments
        .iter()
        .filter_map(|s| match s {
            Segment::Field(f) | Segment::Part { field: f, .. } => Some(format!("`{f}`")),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn unpadded_sort_key(e: &EntitySchema, ix: &IndexSchema) -> Option<Lint> {
    let field = ix.sk.raw_among_first(usize::MAX)?;
    Some(Lint {
        entity: e.name,
        index: ix.index,
        kind: LintKind::UnpaddedSortKey,
        message: format!(
            "{} `{}` writes `{field}` without zero padding, so its items do not sort by `{field}` (`10` sorts \
             before `9`) and a sort-key range over it is refused; write `<{field}>` (zero-padded) where the table \
             is yours to shape",
            e.names.sk_of(ix.index),
            ix.sk.source
        ),
    })
}

fn hot_partition(e: &EntitySchema, ix: &IndexSchema) -> Option<Lint> {
    let pk = ix.pk;
    if pk.shard().is_some() || pk.cardinality == Cardinality::High {
        return None;
    }
    // A primary key whose sort key is constant names one item per partition: nothing piles up.
    if ix.index == Index::Primary && ix.sk.constant().is_some() {
        return None;
    }
    let why = if pk.segments.iter().all(|s| matches!(s, Segment::Literal(_))) {
        "it is constant".to_owned()
    } else if pk.fields().count() == 1 {
        format!("its only part, {}, has few values", field_list(pk))
    } else {
        format!("its only parts, {}, have few values", field_list(pk))
    };
    let attribute = e.names.pk_of(ix.index);
    let fix = match ix.index {
        Index::Gsi(n) => match shard_source(e, pk) {
            Some(source) => format!(
                "shard it: `gsi{n} = \"{}#<shard({source}, {SUGGESTED_SHARDS})>\"` spreads it over \
                     {SUGGESTED_SHARDS} partitions, and `{}::gsi{n}` reads them back merged in sort-key order",
                pk.source, e.name
            ),
            None => format!(
                "shard it with a `<shard(field, {SUGGESTED_SHARDS})>` part whose source field has many \
                     values and is not in this key, and `{}::gsi{n}` reads the shards back merged in sort-key \
                     order",
                e.name
            ),
        },
        _ => format!(
            "move a part with many values, such as one of the sort key `{}`, into the partition key",
            ix.sk.source
        ),
    };
    Some(Lint {
        entity: e.name,
        index: ix.index,
        kind: LintKind::HotPartition,
        message: format!(
            "partition key {attribute} `{}` has no high-cardinality part ({why}), so every {} with the same key \
             lands in one partition, which serves at most 1,000 write units and 3,000 read units a second; {fix}",
            pk.source, e.name
        ),
    })
}

/// In the inverted index the table's sort key is the partition key, so an entity whose sort key
/// is a constant (`PROFILE`, `META`) puts every one of its items, and the guard items of its
/// unique fields (sort key `UNIQUE`), into one index partition.
fn inverted_hot_partition(e: &EntitySchema) -> Option<Lint> {
    let constant = e.primary.sk.constant()?;
    let guards = if e.has_unique() {
        format!(", as do the guard items of its unique fields (sort key `{}`)", crate::unique::GUARD_SK)
    } else {
        String::new()
    };
    Some(Lint {
        entity: e.name,
        index: Index::Inverted,
        kind: LintKind::HotPartition,
        message: format!(
            "the inverted index is keyed on {}, and every {} has the sort key `{constant}`, so all of them land \
             in one index partition{guards}, which serves at most 1,000 write units and 3,000 read units a \
             second and takes a copy of every write; give the sort key a part with many values, or keep this \
             entity's table without the inverted index",
            e.names.sk, e.name
        ),
    })
}

/// For an `#[entity(inverted)]` entity: the inverted index's write cost beside the cheaper
/// alternative, a sparse GSI keyed the other way round (the sort key template as its partition
/// key, the partition key template as its sort key) declared on that entity only, so that only
/// its items have an entry. An index entry costs the write units of the item (1 per KB, with
/// projection `ALL`) on each write of an item that has one; every item of the table has an
/// entry in the inverted index.
fn sparse_reverse_lookup(layout: &TableLayout, e: &EntitySchema) -> Option<Lint> {
    e.inverted.as_ref()?;
    let gsi = match (1..=20u8).find(|n| !layout.gsis.contains(n)) {
        Some(n) => format!(
            "declare on {} alone a sparse GSI for the reverse lookup (`gsi{n} = \"{}\"`, `gsi{n}_sk = \"{}\"`) and \
             query it instead",
            e.name, e.primary.sk.source, e.primary.pk.source
        ),
        None => format!("a sparse GSI for the reverse lookup of {} (the table has no GSI number left)", e.name),
    };
    let others: Vec<&str> = layout.entities().iter().map(|o| o.name).filter(|n| *n != e.name).collect();
    let others = if others.is_empty() { String::new() } else { format!(" ({})", others.join(", ")) };
    Some(Lint {
        entity: e.name,
        index: Index::Inverted,
        kind: LintKind::InvertedCost,
        message: format!(
            "the inverted index, which {} reads through, holds an entry for every item of the table, so every write \
             of every entity{others} costs twice its write units (a counter increment 2 instead of 1, a 2 KB item \
             with one GSI 6 instead of 4); {gsi}: only {} items have an entry, their writes cost 1 write unit more \
             per KB and the other entities' writes nothing more",
            e.name, e.name
        ),
    })
}

/// The field to suggest as a shard source for the hot partition key `pk`: a primary key field
/// that is not a part of `pk` (the derive refuses that), preferring one that alone makes a
/// high-cardinality key template (an id rather than a flag).
fn shard_source(e: &EntitySchema, pk: &Template) -> Option<&'static str> {
    let in_pk = |f: &str| pk.fields().any(|p| p == f);
    let known_high = [e.primary.pk, e.primary.sk]
        .into_iter()
        .filter(|t| t.cardinality == Cardinality::High && t.fields().count() == 1)
        .flat_map(|t| t.fields())
        .find(|f| !in_pk(f));
    known_high.or_else(|| {
        [e.primary.pk, e.primary.sk]
            .into_iter()
            .filter(|t| t.cardinality == Cardinality::High)
            .flat_map(|t| t.fields())
            .find(|f| !in_pk(f))
    })
}

fn unbounded_collection(e: &EntitySchema, ix: &IndexSchema) -> Option<Lint> {
    let Index::Gsi(n) = ix.index else { return None };
    let constant = ix.sk.constant()?;
    // A partition key built from a unique field names one item.
    if ix.pk.fields().any(|f| e.fields.iter().any(|x| x.field == f && x.unique)) {
        return None;
    }
    // Suggest a field the entity has: its creation time, else a primary key field outside the
    // index's partition key.
    let sort_field = e
        .created_at
        .map(|f| f.field)
        .or_else(|| e.primary.pk.fields().chain(e.primary.sk.fields()).find(|f| !ix.pk.fields().any(|p| p == *f)));
    let suggestion = match sort_field {
        Some(f) => format!("such as `gsi{n}_sk = \"<{f}>\"`"),
        None => "such as a creation time".to_owned(),
    };
    Some(Lint {
        entity: e.name,
        index: ix.index,
        kind: LintKind::UnboundedCollection,
        message: format!(
            "every {} of a partition {} `{}` has the same sort key {} `{constant}`, so the partition grows \
             without bound and a query reads it in no useful order, with no sort-key condition to narrow it; \
             sort it by a field, {suggestion}, or mark the partition key's field \
             `#[entity(unique)]` if it names one item",
            e.name,
            e.names.pk_of(ix.index),
            ix.pk.source,
            e.names.sk_of(ix.index)
        ),
    })
}

/// A template with its field names erased, as the item collections of a table compare them.
fn shape(t: &Template) -> Vec<Option<&'static str>> {
    t.segments
        .iter()
        .map(|s| match s {
            Segment::Literal(l) => Some(*l),
            _ => None,
        })
        .collect()
}

/// The literal text every sort key of `t` starts with: the whole key when constant, else the
/// literal segments before the first placeholder with their delimiters (`REVIEW#`).
fn sort_prefix(t: &Template) -> String {
    t.constant().unwrap_or_else(|| t.literal_prefix())
}

fn type_filter(entities: &[&'static EntitySchema], e: &EntitySchema, ix: &IndexSchema) -> Option<Lint> {
    // The key condition of the generated query: `SK = constant`, `begins_with(SK, prefix)`, or
    // the whole partition when the sort key starts with a placeholder.
    let constant = ix.sk.constant();
    let prefix = sort_prefix(ix.sk);
    let mut others: Vec<&'static str> = Vec::new();
    for o in entities {
        if o.name == e.name {
            continue;
        }
        let Some(oix) = o.index(ix.index) else { continue };
        if shape(oix.pk) != shape(ix.pk) {
            continue;
        }
        let theirs = sort_prefix(oix.sk);
        let overlaps = match &constant {
            Some(c) => oix.sk.constant().as_deref() == Some(c.as_str()),
            None => prefix.is_empty() || theirs.starts_with(&prefix),
        };
        if overlaps {
            others.push(o.name);
        }
    }
    if others.is_empty() {
        return None;
    }
    let function = match ix.index {
        Index::Primary => "query".to_owned(),
        Index::Gsi(n) => format!("gsi{n}"),
        other => other.to_string(),
    };
    let condition = if prefix.is_empty() {
        format!(
            "its sort key `{}` starts with a placeholder, so the key condition reads the whole partition",
            ix.sk.source
        )
    } else {
        format!("its sort-key condition (`{prefix}`) also matches their sort keys")
    };
    Some(Lint {
        entity: e.name,
        index: ix.index,
        kind: LintKind::TypeFilter,
        message: format!(
            "`{}::{function}` reads partition {} `{}`, which {} also {} and {condition}: the query selects {} by \
             filtering on the entity type, and the other items still cost read capacity; start the sort key \
             with a literal of its own, such as `{}#...`",
            e.name,
            e.names.pk_of(ix.index),
            ix.pk.source,
            others.join(", "),
            if others.len() == 1 { "writes" } else { "write" },
            e.name,
            e.name.to_uppercase()
        ),
    })
}

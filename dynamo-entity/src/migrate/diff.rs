//! The table against its declaration: [`Table::diff`] compares a [`TableLayout`] with what
//! `DescribeTable` and `DescribeTimeToLive` report (indexes, TTL and, when the layout declares
//! it, the stream), [`TableDiff::plan`] says what
//! [`Table::apply`] would do about it, and [`Table::apply`] does it.
//!
//! ```no_run
//! use std::time::Duration;
//!
//! use dynamo_entity::migrate::Wait;
//! use dynamo_entity::{Entity, Table, TableDef};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CAT#<category>", gsi1_sk = "<id>")]
//! pub struct Skill { pub id: String, pub category: String }
//!
//! #[derive(TableDef)]
//! #[table(entities(Skill), gsi1(projection = keys_only))]
//! pub struct SkillExchange;
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let diff = table.diff(&SkillExchange::layout()?).await?;
//! print!("{diff}");                 // what differs
//! print!("{}", diff.plan());        // what apply would send (plan mode: nothing is sent)
//! table.apply(&diff, Wait { timeout: Duration::from_secs(600), ..Wait::default() }).await?;
//! assert!(table.diff(&SkillExchange::layout()?).await?.is_empty());
//! # Ok(())
//! # }
//! ```
//!
//! DynamoDB creates or deletes one GSI per `UpdateTable`, and only while the table and its
//! indexes are `ACTIVE`; a GSI's key schema and projection cannot be changed in place (it is
//! deleted and created again, then backfilled by DynamoDB from the table's items). LSIs and the
//! table's own key schema can only be set when the table is created: a difference there is
//! reported and planned as a manual step, which [`Table::apply`] refuses to start with.
//!
//! A stream's view type cannot be changed in place either: a stream of another view type is
//! disabled, then a new stream is enabled (`UpdateTable` with `StreamSpecification`, twice).
//! The new stream has a new ARN; consumers of the old one read it to its end (DynamoDB keeps
//! its records for 24 hours) and start on the new one.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fmt;
use std::time::{Duration, Instant};

use aws_sdk_dynamodb::types::{
    AttributeDefinition, BillingMode, CreateGlobalSecondaryIndexAction, DeleteGlobalSecondaryIndexAction,
    GlobalSecondaryIndexUpdate, IndexStatus, KeySchemaElement, KeyType as SdkKeyType, ProvisionedThroughput,
    StreamSpecification, TableDescription, TableStatus, TimeToLiveSpecification, TimeToLiveStatus,
};

use crate::error::Error;
use crate::key::KeyType;
use crate::migrate::vector_diff::{self, VectorIndexShape};
use crate::schema::StreamViewType;
use crate::schema::{Index, TableLayout};
use crate::table::{Call, Table};

/// The shape of one secondary index, as declared or as the table has it: what [`Table::diff`]
/// compares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexShape {
    /// The index name (`GSI1`, `LSI1`, `INVERTED` under the default names).
    pub name: String,
    /// Whether it is a local secondary index.
    pub local: bool,
    /// The partition key attributes and their types, in key schema order: one, or up to four
    /// for a native multi-attribute GSI.
    pub pk: Vec<(String, KeyType)>,
    /// The sort key attributes and their types, in key schema order (none, one, or up to four
    /// for a native multi-attribute GSI).
    pub sk: Vec<(String, KeyType)>,
    /// `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub projection: String,
    /// The non-key attributes of an `INCLUDE` projection, sorted.
    pub non_key_attributes: BTreeSet<String>,
}

impl IndexShape {
    fn keys(&self) -> String {
        let side = |attrs: &[(String, KeyType)]| {
            attrs.iter().map(|(a, t)| format!("{a} ({t})")).collect::<Vec<_>>().join(", ")
        };
        let mut s = side(&self.pk);
        if !self.sk.is_empty() {
            s.push_str(" / ");
            s.push_str(&side(&self.sk));
        }
        s
    }

    fn projection_text(&self) -> String {
        if self.non_key_attributes.is_empty() {
            self.projection.clone()
        } else {
            format!("{}({})", self.projection, self.non_key_attributes.iter().cloned().collect::<Vec<_>>().join(", "))
        }
    }
}

impl fmt::Display for IndexShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} on {}, projection {}",
            if self.local { "LSI" } else { "GSI" },
            self.name,
            self.keys(),
            self.projection_text()
        )
    }
}

/// One difference between a table and its declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// The table's own key schema (partition and sort key attributes and types) differs: only a
    /// new table can change it.
    TableKey {
        /// As declared.
        declared: String,
        /// As the table has it.
        actual: String,
    },
    /// A declared index the table does not have.
    MissingIndex(IndexShape),
    /// An index the table has and the declaration does not.
    ExtraIndex(IndexShape),
    /// An index of both whose key schema (attributes or types) differs.
    KeySchema {
        /// As declared.
        declared: IndexShape,
        /// As the table has it.
        actual: IndexShape,
    },
    /// An index of both whose projection differs (and whose keys do not).
    Projection {
        /// As declared.
        declared: IndexShape,
        /// As the table has it.
        actual: IndexShape,
    },
    /// The time-to-live attribute differs (`None`: disabled).
    Ttl {
        /// As declared (an entity's `#[entity(ttl)]` attribute).
        declared: Option<String>,
        /// As `DescribeTimeToLive` reports it (enabled or being enabled).
        actual: Option<String>,
    },
    /// The stream differs (`None`: no enabled stream); reported only when the layout declares
    /// the stream ([`TableLayout::declares_stream`]).
    Stream {
        /// As declared ([`TableLayout::stream`], or `None` for [`TableLayout::without_stream`]).
        declared: Option<StreamViewType>,
        /// As `DescribeTable` reports it (`StreamSpecification`).
        actual: Option<StreamViewType>,
    },
    /// A declared vector index the table does not have.
    MissingVectorIndex(VectorIndexShape),
    /// A vector index the table has and the declaration does not.
    ExtraVectorIndex(VectorIndexShape),
    /// A vector index of both whose shape (attribute, dimensions, distance function or search
    /// schema) differs: DynamoDB changes none of them in place.
    VectorIndex {
        /// As declared.
        declared: VectorIndexShape,
        /// As the table has it.
        actual: VectorIndexShape,
    },
}

impl fmt::Display for Change {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Change::TableKey { declared, actual } => {
                write!(f, "table key schema: declared {declared}, table has {actual}")
            }
            Change::MissingIndex(s) => write!(f, "missing index: {s}"),
            Change::ExtraIndex(s) => write!(f, "extra index: {s}"),
            Change::KeySchema { declared, actual } => write!(
                f,
                "index {} key schema: declared {}, table has {}",
                declared.name,
                declared.keys(),
                actual.keys()
            ),
            Change::Projection { declared, actual } => write!(
                f,
                "index {} projection: declared {}, table has {}",
                declared.name,
                declared.projection_text(),
                actual.projection_text()
            ),
            Change::Ttl { declared, actual } => write!(
                f,
                "time to live: declared {}, table has {}",
                declared.as_deref().unwrap_or("disabled"),
                actual.as_deref().unwrap_or("disabled")
            ),
            Change::Stream { declared, actual } => {
                let show = |v: &Option<StreamViewType>| v.map_or("no stream", StreamViewType::as_str);
                write!(f, "stream: declared {}, table has {}", show(declared), show(actual))
            }
            Change::MissingVectorIndex(s) => write!(f, "missing {s}"),
            Change::ExtraVectorIndex(s) => write!(f, "extra {s}"),
            Change::VectorIndex { declared, actual } => write!(f, "declared {declared}, table has {actual}"),
        }
    }
}

/// The differences between a table and its declaration; empty when they match. `Display`
/// writes one difference a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableDiff {
    /// The table name.
    pub table: String,
    /// The differences, in a stable order: the table key, then the indexes by name, then TTL.
    pub changes: Vec<Change>,
    /// The table's billing mode and provisioned throughput (copied to new GSIs of a
    /// provisioned table).
    provisioned: Option<(i64, i64)>,
}

impl TableDiff {
    /// Whether the table matches its declaration.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// The differences `keep` keeps, of the same table (to apply some of them only).
    pub(crate) fn only(&self, keep: impl Fn(&Change) -> bool) -> TableDiff {
        TableDiff {
            table: self.table.clone(),
            changes: self.changes.iter().filter(|c| keep(c)).cloned().collect(),
            provisioned: self.provisioned,
        }
    }

    /// What [`Table::apply`] would do, step by step, without sending anything (plan mode).
    pub fn plan(&self) -> Plan {
        let mut deletes = Vec::new();
        let mut creates = Vec::new();
        let mut rest = Vec::new();
        for c in &self.changes {
            match c {
                Change::TableKey { .. } => {
                    rest.push(Step::Manual(format!("{c}: create a new table and copy the items")));
                }
                Change::MissingIndex(s) if s.local => {
                    rest.push(Step::Manual(format!("{c}: an LSI can only be created with its table")));
                }
                Change::ExtraIndex(s) if s.local => {
                    rest.push(Step::Manual(format!("{c}: an LSI can only be deleted with its table")));
                }
                Change::KeySchema { declared, .. } | Change::Projection { declared, .. } if declared.local => {
                    rest.push(Step::Manual(format!("{c}: an LSI can only be changed by creating the table again")));
                }
                Change::MissingIndex(s) => creates.push(Step::CreateIndex(s.clone())),
                Change::ExtraIndex(s) => deletes.push(Step::DeleteIndex(s.name.clone())),
                Change::KeySchema { declared, actual } | Change::Projection { declared, actual } => {
                    deletes.push(Step::DeleteIndex(actual.name.clone()));
                    creates.push(Step::CreateIndex(declared.clone()));
                }
                Change::Ttl { declared, actual } => {
                    if let Some(a) = actual {
                        rest.push(Step::DisableTtl(a.clone()));
                    }
                    if let Some(d) = declared {
                        rest.push(Step::EnableTtl(d.clone()));
                    }
                }
                Change::MissingVectorIndex(s) => creates.push(Step::CreateVectorIndex(s.clone())),
                Change::ExtraVectorIndex(s) => deletes.push(Step::DeleteVectorIndex(s.name.clone())),
                Change::VectorIndex { declared, actual } => {
                    deletes.push(Step::DeleteVectorIndex(actual.name.clone()));
                    creates.push(Step::CreateVectorIndex(declared.clone()));
                }
                Change::Stream { declared, actual } => {
                    // DynamoDB changes no view type in place: the old stream goes first.
                    if actual.is_some() {
                        rest.push(Step::DisableStream);
                    }
                    if let Some(d) = declared {
                        rest.push(Step::EnableStream(*d));
                    }
                }
            }
        }
        let mut steps = deletes;
        steps.extend(creates);
        steps.extend(rest);
        Plan { table: self.table.clone(), steps }
    }
}

impl fmt::Display for TableDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.changes.is_empty() {
            return writeln!(f, "table {} matches its declaration", self.table);
        }
        writeln!(f, "table {}: {} difference(s)", self.table, self.changes.len())?;
        for c in &self.changes {
            writeln!(f, "  {c}")?;
        }
        Ok(())
    }
}

/// One step of a [`Plan`]: one request (and the wait after it).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// `UpdateTable` deleting this GSI, then waiting until it is gone.
    DeleteIndex(String),
    /// `UpdateTable` creating this GSI, then waiting until it is `ACTIVE` (DynamoDB fills it
    /// from the table's items meanwhile).
    CreateIndex(IndexShape),
    /// `UpdateTimeToLive` disabling TTL on this attribute.
    DisableTtl(String),
    /// `UpdateTimeToLive` enabling TTL on this attribute.
    EnableTtl(String),
    /// `UpdateTable` disabling the table's stream, then waiting until the table is `ACTIVE`.
    DisableStream,
    /// `UpdateTable` enabling a stream of this view type, then waiting until the table is
    /// `ACTIVE` with it.
    EnableStream(StreamViewType),
    /// `UpdateTable` deleting this vector index (`VectorIndexUpdates`), then waiting until it
    /// is gone.
    DeleteVectorIndex(String),
    /// `UpdateTable` creating this vector index (`VectorIndexUpdates`, with its search schema
    /// attributes in `AttributeDefinitions`), then waiting until it is `ACTIVE` and backfilled.
    CreateVectorIndex(VectorIndexShape),
    /// A difference no request can resolve on the existing table.
    Manual(String),
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::DeleteIndex(n) => write!(f, "UpdateTable: delete GSI {n}, wait until it is gone"),
            Step::CreateIndex(s) => write!(f, "UpdateTable: create {s}, wait until it is ACTIVE"),
            Step::DisableTtl(a) => write!(f, "UpdateTimeToLive: disable time to live on {a}"),
            Step::EnableTtl(a) => write!(f, "UpdateTimeToLive: enable time to live on {a}"),
            Step::DisableStream => write!(f, "UpdateTable: disable the stream, wait until the table is ACTIVE"),
            Step::EnableStream(v) => {
                write!(f, "UpdateTable: enable a stream of view type {v}, wait until the table is ACTIVE")
            }
            Step::DeleteVectorIndex(n) => write!(f, "UpdateTable: delete vector index {n}, wait until it is gone"),
            Step::CreateVectorIndex(s) => write!(f, "UpdateTable: create {s}, wait until it is ACTIVE"),
            Step::Manual(r) => write!(f, "manual: {r}"),
        }
    }
}

/// What [`Table::apply`] does for a [`TableDiff`], in order: index deletions, then creations
/// (one per `UpdateTable`), then TTL and the stream; manual steps last.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// The table name.
    pub table: String,
    /// The steps.
    pub steps: Vec<Step>,
}

impl Plan {
    /// The steps that need a person (LSIs, the table's key schema).
    pub fn manual(&self) -> impl Iterator<Item = &str> {
        self.steps.iter().filter_map(|s| match s {
            Step::Manual(r) => Some(r.as_str()),
            _ => None,
        })
    }
}

impl fmt::Display for Plan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.steps.is_empty() {
            return writeln!(f, "table {}: nothing to do", self.table);
        }
        writeln!(f, "table {}: {} step(s)", self.table, self.steps.len())?;
        for (i, s) in self.steps.iter().enumerate() {
            writeln!(f, "  {}. {s}", i + 1)?;
        }
        Ok(())
    }
}

/// The declared shape of every secondary index of `layout`, by name.
fn declared_indexes(layout: &TableLayout) -> BTreeMap<String, IndexShape> {
    let names = layout.names();
    layout
        .indexes()
        .into_iter()
        .map(|index| {
            let (pk, sk) = match index {
                Index::Lsi(_) => (names.pk, names.sk_of(index)),
                Index::Inverted => (names.sk, names.pk),
                _ => (names.pk_of(index), names.sk_of(index)),
            };
            let projection = layout.projection(index);
            let name = names.index_name(index).unwrap_or_default().to_owned();
            let shape = IndexShape {
                name: name.clone(),
                local: index.is_local(),
                pk: vec![(pk.to_owned(), layout.key_type(pk))],
                sk: vec![(sk.to_owned(), layout.key_type(sk))],
                projection: projection.projection_type().to_owned(),
                non_key_attributes: projection.non_key_attributes().iter().map(|s| (*s).to_owned()).collect(),
            };
            (name, shape)
        })
        .chain(layout.multi_gsis().iter().map(|g| {
            // A multi-attribute GSI is compared on every attribute of its key schema, in order.
            let projection = layout.projection(g.index);
            let name = names.index_name(g.index).unwrap_or_default().to_owned();
            let shape = IndexShape {
                name: name.clone(),
                local: false,
                pk: g.pk.iter().map(|a| (a.attribute.to_owned(), a.key_type)).collect(),
                sk: g.sk.iter().map(|a| (a.attribute.to_owned(), a.key_type)).collect(),
                projection: projection.projection_type().to_owned(),
                non_key_attributes: projection.non_key_attributes().iter().map(|s| (*s).to_owned()).collect(),
            };
            (name, shape)
        }))
        .collect()
}

/// The described table's enabled stream, by view type.
fn actual_stream(desc: &TableDescription) -> Option<StreamViewType> {
    desc.stream_specification()
        .filter(|s| s.stream_enabled())
        .and_then(|s| s.stream_view_type())
        .and_then(|v| StreamViewType::parse(v.as_str()))
}

/// The shape of every secondary index of the described table, by name.
fn actual_indexes(desc: &TableDescription) -> BTreeMap<String, IndexShape> {
    let types: BTreeMap<&str, KeyType> = desc
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name(), KeyType::from_scalar(d.attribute_type())))
        .collect();
    let shape = |name: &str,
                 local: bool,
                 keys: &[KeySchemaElement],
                 projection: Option<&aws_sdk_dynamodb::types::Projection>| {
        let find = |kt: SdkKeyType| -> Vec<(String, KeyType)> {
            keys.iter()
                .filter(|k| *k.key_type() == kt)
                .map(|k| {
                    let a = k.attribute_name();
                    (a.to_owned(), types.get(a).copied().unwrap_or(KeyType::S))
                })
                .collect()
        };
        IndexShape {
            name: name.to_owned(),
            local,
            pk: find(SdkKeyType::Hash),
            sk: find(SdkKeyType::Range),
            projection: projection
                .and_then(|p| p.projection_type())
                .map(|t| t.as_str().to_owned())
                .unwrap_or_else(|| "ALL".to_owned()),
            non_key_attributes: projection
                .map(|p| p.non_key_attributes().iter().cloned().collect())
                .unwrap_or_default(),
        }
    };
    let mut out = BTreeMap::new();
    for g in desc.global_secondary_indexes() {
        let name = g.index_name().unwrap_or_default();
        out.insert(name.to_owned(), shape(name, false, g.key_schema(), g.projection()));
    }
    for l in desc.local_secondary_indexes() {
        let name = l.index_name().unwrap_or_default();
        out.insert(name.to_owned(), shape(name, true, l.key_schema(), l.projection()));
    }
    out
}

/// How [`Table::apply`] waits for each step.
#[derive(Debug, Clone, Copy)]
pub struct Wait {
    /// The longest wait for one step (an index to become `ACTIVE` or to disappear).
    pub timeout: Duration,
    /// The pause between two `DescribeTable` requests.
    pub poll: Duration,
}

impl Default for Wait {
    /// 30 minutes a step, polling every 2 seconds.
    fn default() -> Wait {
        Wait { timeout: Duration::from_secs(30 * 60), poll: Duration::from_secs(2) }
    }
}

impl<D> Table<D> {
    async fn describe(&self) -> Result<TableDescription, Error> {
        let out = self
            .execute(Call::new("DescribeTable", ""), self.client().describe_table().table_name(self.name()).send())
            .await
            .map_err(|e| Error::sdk("DescribeTable", e))?;
        out.table
            .ok_or_else(|| Error::Invalid { reason: format!("DescribeTable of {} returned no table", self.name()) })
    }

    async fn ttl_attribute(&self) -> Result<Option<String>, Error> {
        let out = self
            .execute(
                Call::new("DescribeTimeToLive", ""),
                self.client().describe_time_to_live().table_name(self.name()).send(),
            )
            .await
            .map_err(|e| Error::sdk("DescribeTimeToLive", e))?;
        Ok(out.time_to_live_description.and_then(|d| {
            let on = matches!(d.time_to_live_status(), Some(TimeToLiveStatus::Enabled | TimeToLiveStatus::Enabling));
            if on { d.attribute_name().map(str::to_owned) } else { None }
        }))
    }

    /// Compares this table (`DescribeTable`, `DescribeTimeToLive`) with the declared `layout`
    /// (such as `AppTable::layout()` of `#[derive(TableDef)]`): the table's key schema, every
    /// secondary index (missing, extra, key schema with the attribute types, projection with its
    /// non-key attributes), the time-to-live attribute and, when the layout declares it
    /// ([`TableLayout::declares_stream`]), the stream's view type. Nothing is changed.
    ///
    /// # Errors
    /// [`Error::Sdk`] (such as `ResourceNotFoundException` for a table that does not exist).
    pub async fn diff(&self, layout: &TableLayout) -> Result<TableDiff, Error> {
        let desc = self.describe().await?;
        let ttl = self.ttl_attribute().await?;
        let names = layout.names();
        let mut changes = Vec::new();

        let types: BTreeMap<&str, KeyType> = desc
            .attribute_definitions()
            .iter()
            .map(|d| (d.attribute_name(), KeyType::from_scalar(d.attribute_type())))
            .collect();
        let show =
            |keys: &[(String, KeyType)]| keys.iter().map(|(a, t)| format!("{a} ({t})")).collect::<Vec<_>>().join(" / ");
        let declared_key =
            vec![(names.pk.to_owned(), layout.key_type(names.pk)), (names.sk.to_owned(), layout.key_type(names.sk))];
        let mut actual_key = Vec::new();
        for kt in [SdkKeyType::Hash, SdkKeyType::Range] {
            if let Some(k) = desc.key_schema().iter().find(|k| *k.key_type() == kt) {
                let a = k.attribute_name();
                actual_key.push((a.to_owned(), types.get(a).copied().unwrap_or(KeyType::S)));
            }
        }
        if declared_key != actual_key {
            changes.push(Change::TableKey { declared: show(&declared_key), actual: show(&actual_key) });
        }

        let declared = declared_indexes(layout);
        let actual = actual_indexes(&desc);
        let all: BTreeSet<&String> = declared.keys().chain(actual.keys()).collect();
        for name in all {
            match (declared.get(name), actual.get(name)) {
                (Some(d), None) => changes.push(Change::MissingIndex(d.clone())),
                (None, Some(a)) => changes.push(Change::ExtraIndex(a.clone())),
                (Some(d), Some(a)) => {
                    if d.pk != a.pk || d.sk != a.sk || d.local != a.local {
                        changes.push(Change::KeySchema { declared: d.clone(), actual: a.clone() });
                    } else if d.projection != a.projection || d.non_key_attributes != a.non_key_attributes {
                        changes.push(Change::Projection { declared: d.clone(), actual: a.clone() });
                    }
                }
                (None, None) => {}
            }
        }

        let declared_vectors = vector_diff::declared(layout);
        let actual_vectors = vector_diff::actual(&desc);
        let all: BTreeSet<&String> = declared_vectors.keys().chain(actual_vectors.keys()).collect();
        for name in all {
            match (declared_vectors.get(name), actual_vectors.get(name)) {
                (Some(d), None) => changes.push(Change::MissingVectorIndex(d.clone())),
                (None, Some(a)) => changes.push(Change::ExtraVectorIndex(a.clone())),
                (Some(d), Some(a)) if d != a => {
                    changes.push(Change::VectorIndex { declared: d.clone(), actual: a.clone() });
                }
                _ => {}
            }
        }

        let declared_ttl = layout.ttl().map(str::to_owned);
        if declared_ttl != ttl {
            changes.push(Change::Ttl { declared: declared_ttl, actual: ttl });
        }
        let actual_stream = actual_stream(&desc);
        if let Some(declared) = layout.stream {
            if declared != actual_stream {
                changes.push(Change::Stream { declared, actual: actual_stream });
            }
        }
        let provisioned = match desc.billing_mode_summary().and_then(|b| b.billing_mode()) {
            Some(BillingMode::PayPerRequest) => None,
            _ => desc.provisioned_throughput().and_then(|p| {
                let (r, w) = (p.read_capacity_units.unwrap_or(0), p.write_capacity_units.unwrap_or(0));
                (r > 0 && w > 0).then_some((r, w))
            }),
        };
        Ok(TableDiff { table: self.name().to_owned(), changes, provisioned })
    }

    /// Applies `diff` (from [`Table::diff`]) step by step as its [`plan`](TableDiff::plan)
    /// says: each GSI deletion, then each creation, in its own `UpdateTable` (DynamoDB allows
    /// one GSI created or deleted per request), waiting after each until the index is gone or
    /// `ACTIVE` and the table `ACTIVE` (polling `DescribeTable` every `wait.poll`, at most
    /// `wait.timeout` a step); then the TTL changes (`UpdateTimeToLive`), then the stream
    /// (`UpdateTable` with `StreamSpecification`: the old stream disabled, then the declared
    /// one enabled, waiting until the table is `ACTIVE` after each). A new GSI of a
    /// provisioned table gets the table's provisioned throughput. Returns the steps done.
    ///
    /// # Errors
    /// [`Error::Invalid`] before anything is sent when the plan has manual steps (listed), or
    /// when the diff is older than the table (an index it creates is there already, one it
    /// deletes is gone, a time to live or stream it sets is set: it was applied before, or the table
    /// changed since), or
    /// when a step does not finish within `wait.timeout` (the steps before it are done; run
    /// [`Table::diff`] again to see what remains); [`Error::Sdk`].
    pub async fn apply(&self, diff: &TableDiff, wait: Wait) -> Result<Vec<Step>, Error> {
        let plan = diff.plan();
        let manual: Vec<&str> = plan.manual().collect();
        if !manual.is_empty() {
            return Err(Error::Invalid {
                reason: format!(
                    "table {}: nothing applied; these differences need a person: {}",
                    self.name(),
                    manual.join("; ")
                ),
            });
        }
        if !plan.steps.is_empty() {
            // A diff made before the table changed (applied already, or by someone else):
            // refused as a whole, not half applied into DynamoDB's `ValidationException`.
            // The steps are checked in order against the indexes there would be (a changed
            // index is deleted, then created again under its name), and a creation of an index
            // the table already has with exactly the declared shape is stale too.
            let now = self.describe().await?;
            let actual = actual_indexes(&now);
            let mut present: HashSet<&str> = actual.keys().map(String::as_str).collect();
            let vectors = vector_diff::actual(&now);
            let mut vectors_present: HashSet<&str> = vectors.keys().map(String::as_str).collect();
            let mut ttl = None;
            if plan.steps.iter().any(|s| matches!(s, Step::DisableTtl(_) | Step::EnableTtl(_))) {
                ttl = Some(self.ttl_attribute().await?);
            }
            let mut stream = actual_stream(&now);
            let stale = plan.steps.iter().find_map(|step| match step {
                Step::DisableStream if stream.take().is_none() => {
                    Some("it disables the stream, which the table no longer has".to_owned())
                }
                Step::EnableStream(v) => stream
                    .replace(*v)
                    .map(|had| format!("it enables a stream of view type {v}, and the table has one of {had}")),
                Step::DeleteIndex(name) if !present.remove(name.as_str()) => {
                    Some(format!("it deletes {name}, which the table no longer has"))
                }
                Step::DeleteVectorIndex(name) if !vectors_present.remove(name.as_str()) => {
                    Some(format!("it deletes vector index {name}, which the table no longer has"))
                }
                Step::CreateVectorIndex(shape) if !vectors_present.insert(shape.name.as_str()) => {
                    Some(format!("it creates vector index {}, which the table already has", shape.name))
                }
                Step::CreateIndex(shape) if actual.get(&shape.name) == Some(shape) => {
                    Some(format!("it creates {}, which the table already has as declared", shape.name))
                }
                Step::CreateIndex(shape) if !present.insert(shape.name.as_str()) => {
                    Some(format!("it creates {}, which the table already has", shape.name))
                }
                Step::EnableTtl(a) if ttl.as_ref().is_some_and(|t| t.as_deref() == Some(a.as_str())) => {
                    Some(format!("it enables time to live on {a}, which the table already has"))
                }
                Step::DisableTtl(a) if ttl.as_ref().is_some_and(|t| t.as_deref() != Some(a.as_str())) => {
                    Some(format!("it disables time to live on {a}, which the table no longer has"))
                }
                _ => None,
            });
            if let Some(why) = stale {
                return Err(Error::Invalid {
                    reason: format!(
                        "table {}: nothing applied; the diff is older than the table ({why}): run Table::diff again",
                        self.name()
                    ),
                });
            }
        }
        for step in &plan.steps {
            match step {
                Step::DeleteIndex(name) => {
                    let update = GlobalSecondaryIndexUpdate::builder()
                        .delete(
                            DeleteGlobalSecondaryIndexAction::builder()
                                .index_name(name)
                                .build()
                                .map_err(|e| Error::Invalid { reason: e.to_string() })?,
                        )
                        .build();
                    self.update_table(None, |r| r.global_secondary_index_updates(update)).await?;
                    self.wait_for(name, false, wait).await?;
                }
                Step::CreateIndex(shape) => {
                    let defs = shape
                        .pk
                        .iter()
                        .chain(&shape.sk)
                        .map(|(a, t)| {
                            AttributeDefinition::builder()
                                .attribute_name(a)
                                .attribute_type(t.scalar())
                                .build()
                                .map_err(|e| Error::Invalid { reason: e.to_string() })
                        })
                        .collect::<Result<Vec<_>, Error>>()?;
                    let element = |a: &str, kt: SdkKeyType| {
                        KeySchemaElement::builder()
                            .attribute_name(a)
                            .key_type(kt)
                            .build()
                            .map_err(|e| Error::Invalid { reason: e.to_string() })
                    };
                    let keys = shape
                        .pk
                        .iter()
                        .map(|(a, _)| element(a, SdkKeyType::Hash))
                        .chain(shape.sk.iter().map(|(a, _)| element(a, SdkKeyType::Range)))
                        .collect::<Result<Vec<_>, Error>>()?;
                    let projection = aws_sdk_dynamodb::types::Projection::builder()
                        .projection_type(shape.projection.as_str().into())
                        .set_non_key_attributes(
                            (!shape.non_key_attributes.is_empty())
                                .then(|| shape.non_key_attributes.iter().cloned().collect()),
                        )
                        .build();
                    let throughput = match diff.provisioned {
                        Some((r, w)) => Some(
                            ProvisionedThroughput::builder()
                                .read_capacity_units(r)
                                .write_capacity_units(w)
                                .build()
                                .map_err(|e| Error::Invalid { reason: e.to_string() })?,
                        ),
                        None => None,
                    };
                    let create = CreateGlobalSecondaryIndexAction::builder()
                        .index_name(&shape.name)
                        .set_key_schema(Some(keys))
                        .projection(projection)
                        .set_provisioned_throughput(throughput)
                        .build()
                        .map_err(|e| Error::Invalid { reason: e.to_string() })?;
                    let update = GlobalSecondaryIndexUpdate::builder().create(create).build();
                    self.update_table(Some(defs), |r| r.global_secondary_index_updates(update)).await?;
                    self.wait_for(&shape.name, true, wait).await?;
                }
                Step::DisableTtl(a) | Step::EnableTtl(a) => {
                    let spec = TimeToLiveSpecification::builder()
                        .enabled(matches!(step, Step::EnableTtl(_)))
                        .attribute_name(a)
                        .build()
                        .map_err(|e| Error::Invalid { reason: e.to_string() })?;
                    self.execute(
                        Call::new("UpdateTimeToLive", ""),
                        self.client()
                            .update_time_to_live()
                            .table_name(self.name())
                            .time_to_live_specification(spec)
                            .send(),
                    )
                    .await
                    .map_err(|e| Error::sdk("UpdateTimeToLive", e))?;
                }
                Step::DisableStream | Step::EnableStream(_) => {
                    let view = match step {
                        Step::EnableStream(v) => Some(*v),
                        _ => None,
                    };
                    let spec = StreamSpecification::builder()
                        .stream_enabled(view.is_some())
                        .set_stream_view_type(view.map(StreamViewType::to_sdk))
                        .build()
                        .map_err(|e| Error::Invalid { reason: e.to_string() })?;
                    self.execute(
                        Call::new("UpdateTable", ""),
                        self.client().update_table().table_name(self.name()).stream_specification(spec).send(),
                    )
                    .await
                    .map_err(|e| Error::sdk("UpdateTable", e))?;
                    self.wait_for_stream(view, wait).await?;
                }
                Step::DeleteVectorIndex(name) => {
                    let update = vector_diff::delete(name)?;
                    self.update_table(None, |r| r.vector_index_updates(update)).await?;
                    self.wait_for_vector(name, false, wait).await?;
                }
                Step::CreateVectorIndex(shape) => {
                    let (defs, update) = vector_diff::create(shape)?;
                    self.update_table((!defs.is_empty()).then_some(defs), |r| r.vector_index_updates(update)).await?;
                    self.wait_for_vector(&shape.name, true, wait).await?;
                }
                Step::Manual(_) => {}
            }
        }
        Ok(plan.steps)
    }

    /// Sends an `UpdateTable` of this table with `defs` and what `change` adds to the request
    /// (a GSI or a vector index update).
    async fn update_table(
        &self,
        defs: Option<Vec<AttributeDefinition>>,
        change: impl FnOnce(
            aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder,
        ) -> aws_sdk_dynamodb::operation::update_table::builders::UpdateTableFluentBuilder,
    ) -> Result<(), Error> {
        let request = change(self.client().update_table().table_name(self.name()).set_attribute_definitions(defs));
        self.execute(Call::new("UpdateTable", ""), request.send()).await.map_err(|e| Error::sdk("UpdateTable", e))?;
        Ok(())
    }

    /// Polls `DescribeTable` until the table is `ACTIVE` and vector index `name` is `ACTIVE`
    /// and backfilled (`present`) or gone.
    async fn wait_for_vector(&self, name: &str, present: bool, wait: Wait) -> Result<(), Error> {
        let started = Instant::now();
        loop {
            let desc = self.describe().await?;
            if desc.table_status() == Some(&TableStatus::Active) && vector_diff::settled(&desc, name, present) {
                return Ok(());
            }
            if started.elapsed() >= wait.timeout {
                return Err(Error::Invalid {
                    reason: format!(
                        "table {}: vector index {name} did not {} within {:?}",
                        self.name(),
                        if present { "become ACTIVE" } else { "disappear" },
                        wait.timeout
                    ),
                });
            }
            tokio::time::sleep(wait.poll).await;
        }
    }

    /// Polls `DescribeTable` until the table is `ACTIVE` with stream `view` (`None`: none).
    async fn wait_for_stream(&self, view: Option<StreamViewType>, wait: Wait) -> Result<(), Error> {
        let started = Instant::now();
        loop {
            let desc = self.describe().await?;
            if desc.table_status() == Some(&TableStatus::Active) && actual_stream(&desc) == view {
                return Ok(());
            }
            if started.elapsed() >= wait.timeout {
                return Err(Error::Invalid {
                    reason: format!(
                        "table {}: the stream did not become {} within {:?}",
                        self.name(),
                        view.map_or("disabled", StreamViewType::as_str),
                        wait.timeout
                    ),
                });
            }
            tokio::time::sleep(wait.poll).await;
        }
    }

    /// Polls `DescribeTable` until the table is `ACTIVE` and GSI `name` is `ACTIVE` (`present`)
    /// or gone.
    async fn wait_for(&self, name: &str, present: bool, wait: Wait) -> Result<(), Error> {
        let started = Instant::now();
        loop {
            let desc = self.describe().await?;
            let table_active = desc.table_status() == Some(&TableStatus::Active);
            let index = desc.global_secondary_indexes().iter().find(|g| g.index_name() == Some(name));
            let done = match (present, index) {
                (true, Some(g)) => g.index_status() == Some(&IndexStatus::Active) && g.backfilling() != Some(true),
                (false, None) => true,
                _ => false,
            };
            if table_active && done {
                return Ok(());
            }
            if started.elapsed() >= wait.timeout {
                return Err(Error::Invalid {
                    reason: format!(
                        "table {}: GSI {name} did not {} within {:?}",
                        self.name(),
                        if present { "become ACTIVE" } else { "disappear" },
                        wait.timeout
                    ),
                });
            }
            tokio::time::sleep(wait.poll).await;
        }
    }
}

//! The table as a whole, from its entities: the key attributes and GSIs they need (checked for
//! agreement), a CloudFormation template, and the access-pattern matrix with a Mermaid diagram
//! of item collections and indexes. Beside them: the NoSQL Workbench model ([`workbench`]), the
//! design lint ([`lint`]), the item-collection and index views of sample items ([`views`]), the
//! entity-to-index diagram as SVG ([`diagram`]), the HTML design page that shows them all
//! ([`html`]), and the whole table's write and storage estimates ([`estimate`]).
//!
//! ```
//! use dynamo_entity::schema::TableLayout;
//! use dynamo_entity::{Entity, TableDef};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "USER#<id>", sk = "PROFILE")]
//! pub struct User { pub id: String, pub name: String }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "USER#<user_id>", sk = "BADGE#<badge>")]
//! pub struct Badge { pub user_id: String, pub badge: String }
//!
//! #[derive(TableDef)]
//! #[table(entities(User, Badge))]
//! pub struct Profiles;
//!
//! # fn main() -> dynamo_entity::Result<()> {
//! let layout: TableLayout = Profiles::layout()?;           // or TableLayout::new(&[User::schema(), ...])
//! let cfn = layout.cloudformation("profiles");             // AWS::DynamoDB::Table as JSON
//! let doc = layout.markdown("Profiles");                   // the access-pattern matrix
//! let user = User { id: "u1".into(), name: "Ann".into() };
//! let badge = Badge { user_id: "u1".into(), badge: "mentor".into() };
//! let items = vec![user.to_item()?, badge.to_item()?];     // sample items, as stored
//! let page = layout.html("Profiles", &items);              // the design page: write it to DESIGN.html
//! assert!(doc.contains("USER#<id>") && page.contains("BADGE#mentor"));
//! # let _ = cfn;
//! # Ok(())
//! # }
//! ```

pub mod diagram;
pub mod estimate;
pub mod html;
pub mod lint;
mod multi_key;
pub mod views;
pub mod workbench;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::key::{Segment, Template};
/// The layout the reports of this module are drawn from (defined in [`schema`](crate::schema)).
pub use crate::schema::TableLayout;
use crate::schema::{AttributeNames, Index, IndexSchema};

/// One query the generated code offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessPattern {
    /// The generated function, such as `Skill::gsi1`.
    pub name: String,
    /// The index it queries.
    pub index: Index,
    /// The key condition on the partition key, such as `GSI1PK = CAT#<category>`.
    pub partition: String,
    /// The sort key and its template, such as `GSI1SK <downloads> (N)`.
    pub sort: String,
    /// The entity types the query returns.
    pub returns: Vec<&'static str>,
    /// Whether items without every part of the index's keys are left out (a sparse index).
    pub sparse: bool,
}

/// An access pattern with the templates of its key condition.
pub(crate) struct PatternSource {
    pub(crate) pattern: AccessPattern,
    /// The partition key template (of the first entity, for an item collection).
    pub(crate) pk: &'static Template,
    /// The sort key template the condition is built from; `None` for a whole item collection.
    pub(crate) sk: Option<&'static Template>,
}

impl TableLayout {
    /// An AWS CloudFormation template with one `AWS::DynamoDB::Table` resource: the key schema,
    /// every GSI with its projection (ALL unless the table declaration says otherwise, see
    /// [`TableLayout::projection`]; the inverted index last, keyed `SK` / `PK`), every LSI
    /// (`LocalSecondaryIndexes`, keyed `PK` / `LSI<n>SK`, with its projection), on-demand
    /// billing, TTL when an entity declares it, and the declared stream
    /// (`StreamSpecification.StreamViewType`, see [`TableLayout::stream`]). The vector indexes
    /// ([`TableLayout::vector_indexes`]) are in `VectorIndexes`, in the shape of `CreateTable`
    /// (`IndexName`, `VectorAttribute`, `SearchSchema`, `Projection`, `Dimensions`,
    /// `DistanceFunction`), their search schema attributes in `AttributeDefinitions`.
    ///
    /// ```
    /// # use dynamo_entity::{Entity, schema::TableLayout};
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "DOC#<id>", sk = "META")]
    /// struct Doc {
    ///     id: String,
    ///     tenant: String,
    ///     #[entity(vector(index = "DocsByMeaning", dimensions = 2, distance = cosine, hash = tenant))]
    ///     embedding: Vec<f32>,
    /// }
    /// let cfn = TableLayout::new(&[Doc::schema()])?.cloudformation("docs");
    /// let props = &cfn["Resources"]["DocsTable"]["Properties"];
    /// assert_eq!(props["VectorIndexes"][0]["Dimensions"], 2);
    /// assert_eq!(props["VectorIndexes"][0]["SearchSchema"][0]["SearchSchemaElementType"], "HASH");
    /// assert_eq!(props["AttributeDefinitions"][2]["AttributeName"], "tenant");
    /// # Ok::<(), dynamo_entity::Error>(())
    /// ```
    pub fn cloudformation(&self, table_name: &str) -> Value {
        let key = |name: &str, ty: &str| json!({ "AttributeName": name, "KeyType": ty });
        let definitions: Vec<Value> = self
            .key_attributes()
            .into_iter()
            .map(|a| json!({ "AttributeName": a, "AttributeType": self.key_type(a).to_string() }))
            .collect();
        let mut definitions = definitions;
        for a in self.vectors.iter().flat_map(|v| v.search_attributes()) {
            if !definitions.iter().any(|d| d["AttributeName"] == a.attribute) {
                definitions.push(json!({ "AttributeName": a.attribute, "AttributeType": a.key_type.to_string() }));
            }
        }
        let names = self.names;
        let index_json = |i: Index| {
            json!({
                "IndexName": names.index_name(i).unwrap_or_default(),
                "KeySchema": [key(names.pk_of(i), "HASH"), key(names.sk_of(i), "RANGE")],
                "Projection": self.projection(i).to_json()
            })
        };
        let (lsis, gsis): (Vec<Index>, Vec<Index>) = self.indexes().into_iter().partition(|i| i.is_local());
        let mut gsis: Vec<Value> = gsis.into_iter().map(index_json).collect();
        gsis.extend(self.multi_gsi_json());
        let lsis: Vec<Value> = lsis.into_iter().map(index_json).collect();
        let mut properties = json!({
            "TableName": table_name,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": definitions,
            "KeySchema": [key(names.pk, "HASH"), key(names.sk, "RANGE")],
        });
        if !gsis.is_empty() {
            properties["GlobalSecondaryIndexes"] = Value::Array(gsis);
        }
        if !lsis.is_empty() {
            properties["LocalSecondaryIndexes"] = Value::Array(lsis);
        }
        if !self.vectors.is_empty() {
            let vectors = self.vectors.iter().map(|v| {
                let mut schema: Vec<Value> = Vec::new();
                for (a, kind) in
                    v.hash.iter().map(|h| (h, "HASH")).chain(v.filters.iter().map(|f| (f, "INLINE_FILTER")))
                {
                    schema.push(json!({ "AttributeName": a.attribute, "SearchSchemaElementType": kind }));
                }
                let mut index = json!({
                    "IndexName": v.name,
                    "VectorAttribute": { "AttributeName": v.attribute },
                    "Projection": { "ProjectionType": "ALL" },
                    "Dimensions": v.dimensions,
                    "DistanceFunction": v.distance.as_str(),
                });
                if !schema.is_empty() {
                    index["SearchSchema"] = Value::Array(schema);
                }
                index
            });
            properties["VectorIndexes"] = Value::Array(vectors.collect());
        }
        if let Some(ttl) = self.ttl {
            properties["TimeToLiveSpecification"] = json!({ "AttributeName": ttl, "Enabled": true });
        }
        if let Some(view) = self.stream_view_type() {
            properties["StreamSpecification"] = json!({ "StreamViewType": view.as_str() });
        }
        let logical: String = table_name
            .split(|c: char| !c.is_ascii_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(|w| w[..1].to_ascii_uppercase() + &w[1..])
            .collect::<String>()
            + "Table";
        json!({
            "AWSTemplateFormatVersion": "2010-09-09",
            "Description": format!("DynamoDB table {table_name}, generated by dynamo-entity from its entities"),
            "Resources": { logical: { "Type": "AWS::DynamoDB::Table", "Properties": properties } }
        })
    }

    /// Every query the generated code offers: each entity's primary-index query, GSI queries,
    /// inverted-index query and LSI queries, and the item collections several entities share.
    pub fn access_patterns(&self) -> Vec<AccessPattern> {
        let mut out: Vec<AccessPattern> = self.pattern_sources().into_iter().map(|s| s.pattern).collect();
        out.extend(self.multi_patterns());
        out
    }

    /// [`TableLayout::access_patterns`] with the templates each one's key condition is built
    /// from, for the views drawn from sample items.
    pub(crate) fn pattern_sources(&self) -> Vec<PatternSource> {
        let mut out = Vec::new();
        for e in &self.entities {
            for ix in std::iter::once(&e.primary).chain(e.gsis).chain(&e.inverted).chain(e.lsis) {
                let pattern = AccessPattern {
                    name: format!("{}::{}", e.name, function_name(ix.index)),
                    index: ix.index,
                    partition: format!("{} = {}", e.names.pk_of(ix.index), ix.pk.source),
                    sort: sort_text(ix, e.names),
                    returns: vec![e.name],
                    // The inverted index is keyed on the primary key, which every item has.
                    sparse: ix.index != Index::Inverted
                        && ix.pk.fields().chain(ix.sk.fields()).any(|f| e.is_optional(f)),
                };
                out.push(PatternSource { pattern, pk: ix.pk, sk: Some(ix.sk) });
            }
        }
        // Item collections: partitions several entities share (same template shape).
        let mut shared: BTreeMap<(Index, String), Vec<(&'static str, &'static IndexSchema)>> = BTreeMap::new();
        for e in &self.entities {
            for ix in std::iter::once(&e.primary).chain(e.gsis).chain(&e.inverted).chain(e.lsis) {
                shared.entry((ix.index, shape(ix.pk))).or_default().push((e.name, ix));
            }
        }
        for ((index, _), members) in shared {
            if members.len() < 2 {
                continue;
            }
            let (first, ix) = members[0];
            let pattern = AccessPattern {
                name: format!("table.collection({first}::{}(..))", function_name(index)),
                index,
                partition: format!("{} = {}", self.names.pk_of(index), ix.pk.source),
                sort: format!("{} (whole partition)", self.names.sk_of(index)),
                returns: members.iter().map(|(n, _)| *n).collect(),
                sparse: false,
            };
            out.push(PatternSource { pattern, pk: ix.pk, sk: None });
        }
        out
    }

    /// The design document: key attributes, entities, the access-pattern matrix and a Mermaid
    /// diagram of item collections and indexes, as Markdown.
    pub fn markdown(&self, title: &str) -> String {
        let mut md = String::new();
        let _ = writeln!(md, "# {title}: table design\n");
        let _ = writeln!(
            md,
            "Generated by `dynamo_entity::design::TableLayout::markdown` from the entities; do not edit.\n"
        );
        let _ = writeln!(md, "## Key attributes\n\n| attribute | type | index |\n|---|---|---|");
        let names = self.names;
        let index_name = |i: Index| names.index_name(i).unwrap_or("table");
        for a in self.key_attributes() {
            let index = if a == names.pk || a == names.sk {
                let mut text = match (self.inverted, a == names.pk) {
                    (false, _) => "table".to_owned(),
                    (true, true) => format!("table; sort key of {}", names.inverted),
                    (true, false) => format!("table; partition key of {}", names.inverted),
                };
                if a == names.pk && !self.lsis.is_empty() {
                    let lsis: Vec<&str> = self.lsis.iter().map(|&n| index_name(Index::Lsi(n))).collect();
                    let _ = write!(text, "; partition key of {}", lsis.join(", "));
                }
                text
            } else {
                // The index whose key attribute `a` is (or the multi-attribute GSIs keyed on it).
                self.indexes()
                    .into_iter()
                    .find(|&i| names.pk_of(i) == a || names.sk_of(i) == a)
                    .map_or_else(|| self.multi_gsis_of(a), |i| index_name(i).to_owned())
            };
            let _ = writeln!(md, "| `{a}` | {} | {index} |", self.key_type(a));
        }
        if let Some(ttl) = self.ttl {
            let _ = writeln!(md, "\nTime to live: `{ttl}` (epoch seconds).");
        }
        let indexes_column = if self.lsis.is_empty() { "GSIs" } else { "GSIs / LSIs" };
        let _ = writeln!(
            md,
            "\n## Entities\n\n| entity | {} | {} | {indexes_column} |\n|---|---|---|---|",
            names.pk, names.sk
        );
        for e in &self.entities {
            let gsis: Vec<String> = e
                .gsis
                .iter()
                .chain(&e.inverted)
                .chain(e.lsis)
                .map(|g| format!("{} `{}` / `{}`", index_name(g.index), g.pk.source, g.sk.source))
                .chain(self.multi_entity_text(e))
                .collect();
            let _ = writeln!(
                md,
                "| {} | `{}` | `{}` | {} |",
                e.name,
                e.primary.pk.source,
                e.primary.sk.source,
                gsis.join("<br>")
            );
        }
        // Versioned entities (`schema(version = N)`): which versions their readers accept.
        for e in &self.entities {
            if let Some(v) = &e.schema_version {
                let _ = writeln!(
                    md,
                    "\n`{}` is schema version {} (reads versions {} to {}; an item without `{}` reads as {}).",
                    e.name, v.version, v.oldest, v.version, v.attribute, v.oldest
                );
            }
        }
        let _ = writeln!(
            md,
            "\n## Access patterns\n\n| query | index | key condition | sorted by | returns | sparse |\n|---|---|---|---|---|---|"
        );
        for p in self.access_patterns() {
            let index = index_name(p.index);
            let _ = writeln!(
                md,
                "| `{}` | {index} | `{}` | {} | {} | {} |",
                p.name,
                p.partition,
                p.sort,
                p.returns.join(", "),
                if p.sparse { "yes" } else { "" }
            );
        }
        let _ = writeln!(md, "\n## Diagram\n\n```mermaid\nflowchart LR");
        let _ = writeln!(md, "    table[(\"table: {} / {}\")]", names.pk, names.sk);
        for i in self.indexes() {
            let _ = writeln!(md, "    {}[(\"{}: {} / {}\")]", node(i), index_name(i), names.pk_of(i), names.sk_of(i));
        }
        md.push_str(&self.multi_mermaid());
        for e in &self.entities {
            let _ = writeln!(md, "    {}[\"{}\"]", e.name, e.name);
            let _ = writeln!(md, "    {} -->|\"{} / {}\"| table", e.name, label(e.primary.pk), label(e.primary.sk));
            for g in e.gsis.iter().chain(&e.inverted).chain(e.lsis) {
                let _ = writeln!(md, "    {} -.->|\"{} / {}\"| {}", e.name, label(g.pk), label(g.sk), node(g.index));
            }
            for g in e.multi_gsis {
                let _ = writeln!(md, "    {} -.->|\"own attributes\"| {}", e.name, node(g.index));
            }
        }
        let _ = writeln!(md, "```");
        md
    }
}

/// The generated query function of an index: `query`, `gsi<n>`, `lsi<n>` or `inverted`.
fn function_name(index: Index) -> String {
    match index {
        Index::Primary => "query".to_owned(),
        Index::Gsi(n) => format!("gsi{n}"),
        Index::Lsi(n) => format!("lsi{n}"),
        Index::Inverted => "inverted".to_owned(),
    }
}

/// The Mermaid node of a secondary index: `gsi<n>`, `lsi<n>` or `inverted`.
fn node(index: Index) -> String {
    match index {
        Index::Primary => "table".to_owned(),
        other => function_name(other),
    }
}

/// A template for a Mermaid label, whose `<` `>` would read as HTML: `SKILL#{id}`.
fn label(t: &Template) -> String {
    t.source.replace('<', "{").replace('>', "}")
}

fn sort_text(ix: &IndexSchema, names: &AttributeNames) -> String {
    let attr = names.sk_of(ix.index);
    match ix.sk.constant() {
        Some(c) => format!("{attr} = {c}"),
        None => format!("{attr} `{}` ({})", ix.sk.source, ix.sk.key_type),
    }
}

/// A template with its field names erased: `SKILL#<id>` and `SKILL#<skill_id>` share a shape.
fn shape(t: &Template) -> String {
    t.segments
        .iter()
        .map(|s| match s {
            Segment::Literal(l) => (*l).to_owned(),
            Segment::Field(_) => "<>".to_owned(),
            Segment::Part { prefix, suffix, raw, .. } => format!("{prefix}<{}>{suffix}", if *raw { "raw" } else { "" }),
            Segment::Shard { count, .. } => format!("<shard/{count}>"),
        })
        .collect::<Vec<_>>()
        .join(&t.style.delimiter.to_string())
}

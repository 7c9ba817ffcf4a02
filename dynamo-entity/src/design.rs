//! The table as a whole, from its entities: the key attributes and GSIs they need (checked for
//! agreement), a CloudFormation template, and the access-pattern matrix with a Mermaid diagram
//! of item collections and indexes.
//!
//! ```ignore
//! let layout = TableLayout::new(&[User::schema(), Skill::schema(), Review::schema()])?;
//! let cfn = layout.cloudformation("skill-exchange");       // AWS::DynamoDB::Table as JSON
//! let doc = layout.markdown("Skill Exchange");             // the access-pattern matrix
//! ```

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde_json::{Value, json};

use crate::entity::{EntitySchema, Index, IndexSchema, PK, SK};
use crate::error::Error;
use crate::key::{KeyType, Segment, Template};

/// The key attributes, GSIs and TTL attribute of one table, as its entities define them.
#[derive(Debug, Clone)]
pub struct TableLayout {
    entities: Vec<&'static EntitySchema>,
    key_types: BTreeMap<&'static str, KeyType>,
    gsis: Vec<u8>,
    ttl: Option<&'static str>,
}

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

impl TableLayout {
    /// The layout of a table holding `entities`.
    ///
    /// # Errors
    /// [`Error::Invalid`] when two entities store a key attribute with different types (S and
    /// N), use different TTL attributes (a table has one), or share a type name.
    pub fn new(entities: &[&'static EntitySchema]) -> Result<TableLayout, Error> {
        let mut types: BTreeMap<&'static str, (KeyType, &'static str)> = BTreeMap::new();
        let mut gsis = Vec::new();
        let mut ttl: Option<(&'static str, &'static str)> = None;
        let mut names: BTreeMap<&'static str, ()> = BTreeMap::new();
        for schema in entities {
            if names.insert(schema.name, ()).is_some() {
                return Err(Error::Invalid {
                    reason: format!(
                        "two entities of the table are named {}; the type attribute tells items apart by name",
                        schema.name
                    ),
                });
            }
            match (ttl, &schema.ttl) {
                (Some((attr, owner)), Some(f)) if attr != f.attribute => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "{owner} keeps its time to live in attribute `{attr}` and {} in `{}`; a table has one \
                             TTL attribute, so entities of one table must use the same attribute name \
                             (`#[entity(ttl, rename = \"...\")]`)",
                            schema.name, f.attribute
                        ),
                    });
                }
                (None, Some(f)) => ttl = Some((f.attribute, schema.name)),
                _ => {}
            }
            for (attr, ty) in schema.key_attributes() {
                match types.get(attr) {
                    Some((other, owner)) if *other != ty => {
                        return Err(Error::Invalid {
                            reason: format!(
                                "key attribute {attr} is {ty} in {} but {other} in {owner}; a table stores one type per key attribute",
                                schema.name
                            ),
                        });
                    }
                    _ => {
                        types.insert(attr, (ty, schema.name));
                    }
                }
            }
            for g in schema.gsis {
                if let Index::Gsi(n) = g.index {
                    if !gsis.contains(&n) {
                        gsis.push(n);
                    }
                }
            }
        }
        gsis.sort_unstable();
        Ok(TableLayout {
            entities: entities.to_vec(),
            key_types: types.into_iter().map(|(k, (t, _))| (k, t)).collect(),
            gsis,
            ttl: ttl.map(|(a, _)| a),
        })
    }

    /// The entities, in the order given.
    pub fn entities(&self) -> &[&'static EntitySchema] {
        &self.entities
    }

    /// The DynamoDB type of a key attribute (`S` unless an entity stores it as a number).
    pub fn key_type(&self, attribute: &str) -> KeyType {
        self.key_types.get(attribute).copied().unwrap_or(KeyType::S)
    }

    /// The GSIs the entities use, by number.
    pub fn gsis(&self) -> &[u8] {
        &self.gsis
    }

    /// The TTL attribute, if an entity declares one.
    pub fn ttl(&self) -> Option<&'static str> {
        self.ttl
    }

    /// Every key attribute of the table's key schema and GSIs, in `AttributeDefinitions` order.
    pub fn key_attributes(&self) -> Vec<&'static str> {
        let mut out = vec![PK, SK];
        for &n in &self.gsis {
            out.push(Index::Gsi(n).pk_attribute());
            out.push(Index::Gsi(n).sk_attribute());
        }
        out
    }

    /// An AWS CloudFormation template with one `AWS::DynamoDB::Table` resource: the key schema,
    /// every GSI (projection ALL), on-demand billing, and TTL when an entity declares it.
    pub fn cloudformation(&self, table_name: &str) -> Value {
        let key = |name: &str, ty: &str| json!({ "AttributeName": name, "KeyType": ty });
        let definitions: Vec<Value> = self
            .key_attributes()
            .into_iter()
            .map(|a| json!({ "AttributeName": a, "AttributeType": self.key_type(a).to_string() }))
            .collect();
        let gsis: Vec<Value> = self
            .gsis
            .iter()
            .map(|&n| {
                let i = Index::Gsi(n);
                json!({
                    "IndexName": i.name().unwrap_or_default(),
                    "KeySchema": [key(i.pk_attribute(), "HASH"), key(i.sk_attribute(), "RANGE")],
                    "Projection": { "ProjectionType": "ALL" }
                })
            })
            .collect();
        let mut properties = json!({
            "TableName": table_name,
            "BillingMode": "PAY_PER_REQUEST",
            "AttributeDefinitions": definitions,
            "KeySchema": [key(PK, "HASH"), key(SK, "RANGE")],
        });
        if !gsis.is_empty() {
            properties["GlobalSecondaryIndexes"] = Value::Array(gsis);
        }
        if let Some(ttl) = self.ttl {
            properties["TimeToLiveSpecification"] = json!({ "AttributeName": ttl, "Enabled": true });
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

    /// Every query the generated code offers: each entity's primary-index query and GSI queries,
    /// and the item collections several entities share.
    pub fn access_patterns(&self) -> Vec<AccessPattern> {
        let mut out = Vec::new();
        for e in &self.entities {
            for ix in std::iter::once(&e.primary).chain(e.gsis) {
                let function = match ix.index {
                    Index::Primary => "query".to_owned(),
                    Index::Gsi(n) => format!("gsi{n}"),
                };
                out.push(AccessPattern {
                    name: format!("{}::{function}", e.name),
                    index: ix.index,
                    partition: format!("{} = {}", ix.index.pk_attribute(), ix.pk.source),
                    sort: sort_text(ix),
                    returns: vec![e.name],
                    sparse: ix.pk.fields().chain(ix.sk.fields()).any(|f| e.is_optional(f)),
                });
            }
        }
        // Item collections: partitions several entities share (same template shape).
        let mut shared: BTreeMap<(Index, String), Vec<(&'static str, &'static IndexSchema)>> = BTreeMap::new();
        for e in &self.entities {
            for ix in std::iter::once(&e.primary).chain(e.gsis) {
                shared.entry((ix.index, shape(ix.pk))).or_default().push((e.name, ix));
            }
        }
        for ((index, _), members) in shared {
            if members.len() < 2 {
                continue;
            }
            let (first, ix) = members[0];
            let function = match index {
                Index::Primary => "query".to_owned(),
                Index::Gsi(n) => format!("gsi{n}"),
            };
            out.push(AccessPattern {
                name: format!("table.collection({first}::{function}(..))"),
                index,
                partition: format!("{} = {}", index.pk_attribute(), ix.pk.source),
                sort: format!("{} (whole partition)", index.sk_attribute()),
                returns: members.iter().map(|(n, _)| *n).collect(),
                sparse: false,
            });
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
        for a in self.key_attributes() {
            let index = if a == PK || a == SK {
                "table".to_owned()
            } else {
                a.trim_end_matches("PK").trim_end_matches("SK").to_owned()
            };
            let _ = writeln!(md, "| `{a}` | {} | {index} |", self.key_type(a));
        }
        if let Some(ttl) = self.ttl {
            let _ = writeln!(md, "\nTime to live: `{ttl}` (epoch seconds).");
        }
        let _ = writeln!(md, "\n## Entities\n\n| entity | PK | SK | GSIs |\n|---|---|---|---|");
        for e in &self.entities {
            let gsis: Vec<String> =
                e.gsis.iter().map(|g| format!("{} `{}` / `{}`", g.index, g.pk.source, g.sk.source)).collect();
            let _ = writeln!(
                md,
                "| {} | `{}` | `{}` | {} |",
                e.name,
                e.primary.pk.source,
                e.primary.sk.source,
                gsis.join("<br>")
            );
        }
        let _ = writeln!(
            md,
            "\n## Access patterns\n\n| query | index | key condition | sorted by | returns | sparse |\n|---|---|---|---|---|---|"
        );
        for p in self.access_patterns() {
            let index = p.index.name().unwrap_or("table");
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
        let _ = writeln!(md, "    table[(\"table: PK / SK\")]");
        for &n in &self.gsis {
            let i = Index::Gsi(n);
            let _ = writeln!(
                md,
                "    gsi{n}[(\"{}: {} / {}\")]",
                i.name().unwrap_or_default(),
                i.pk_attribute(),
                i.sk_attribute()
            );
        }
        for e in &self.entities {
            let _ = writeln!(md, "    {}[\"{}\"]", e.name, e.name);
            let _ = writeln!(md, "    {} -->|\"{} / {}\"| table", e.name, label(e.primary.pk), label(e.primary.sk));
            for g in e.gsis {
                if let Index::Gsi(n) = g.index {
                    let _ = writeln!(md, "    {} -.->|\"{} / {}\"| gsi{n}", e.name, label(g.pk), label(g.sk));
                }
            }
        }
        let _ = writeln!(md, "```");
        md
    }
}

/// A template for a Mermaid label, whose `<` `>` would read as HTML: `SKILL#{id}`.
fn label(t: &Template) -> String {
    t.source.replace('<', "{").replace('>', "}")
}

fn sort_text(ix: &IndexSchema) -> String {
    let attr = ix.index.sk_attribute();
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
        })
        .collect::<Vec<_>>()
        .join("#")
}

//! The multi-attribute GSIs (see [`multi_key`](crate::schema::multi_key)) in the table's
//! reports: their CloudFormation `GlobalSecondaryIndexes` entries (several `HASH` and `RANGE`
//! elements), their rows of the Markdown design document (key attributes, entities, access
//! patterns, diagram), the NoSQL Workbench note, and the lint that suggests moving a template
//! GSI to native keys (a rule of [`TableLayout::lint`], [`LintKind::MultiAttributeKey`]).
//!
//! NoSQL Workbench's data model format gives an index one partition key attribute and one sort
//! key attribute: the export holds a multi-attribute GSI keyed on exactly one of each (such as
//! `gsi1(pk(category), sk(downloads))`), and leaves any other out and says so in the model's
//! description ([`TableLayout::workbench_note`]).

use serde_json::{Value, json};

use crate::design::AccessPattern;
use crate::design::lint::{Lint, LintKind};
use crate::key::{Cardinality, Segment};
use crate::schema::multi_key::{MAX_KEY_ATTRIBUTES, MultiKeyIndex};
use crate::schema::{EntitySchema, Index, IndexSchema, TableLayout};
use crate::value::StoredType;

impl TableLayout {
    /// The CloudFormation `GlobalSecondaryIndexes` entries of the multi-attribute GSIs: a `HASH`
    /// element per partition key attribute and a `RANGE` element per sort key attribute, in key
    /// order, with the index's projection.
    pub(crate) fn multi_gsi_json(&self) -> Vec<Value> {
        self.multi_gsis
            .iter()
            .map(|g| {
                let keys: Vec<Value> =
                    g.pk.iter()
                        .map(|a| json!({ "AttributeName": a.attribute, "KeyType": "HASH" }))
                        .chain(g.sk.iter().map(|a| json!({ "AttributeName": a.attribute, "KeyType": "RANGE" })))
                        .collect();
                json!({
                    "IndexName": self.names.index_name(g.index).unwrap_or_default(),
                    "KeySchema": keys,
                    "Projection": self.projection(g.index).to_json(),
                })
            })
            .collect()
    }

    /// The multi-attribute GSIs keyed on attribute `a`, as index names (`GSI6, GSI7`); empty
    /// when none is.
    pub(crate) fn multi_gsis_of(&self, a: &str) -> String {
        let names: Vec<&str> = self
            .multi_gsis
            .iter()
            .filter(|g| g.attributes().any(|k| k.attribute == a))
            .map(|g| self.names.index_name(g.index).unwrap_or_default())
            .collect();
        names.join(", ")
    }

    /// The access patterns of the multi-attribute GSIs: one per entity and index.
    pub(crate) fn multi_patterns(&self) -> Vec<AccessPattern> {
        let mut out = Vec::new();
        for e in &self.entities {
            for g in e.multi_gsis {
                out.push(AccessPattern {
                    name: format!("{}::{}", e.name, super::function_name(g.index)),
                    index: g.index,
                    partition: side(g.pk, " AND ", |a| format!("{a} = <{}>", field_of(e, a))),
                    sort: if g.sk.is_empty() {
                        "(none)".to_owned()
                    } else {
                        side(g.sk, ", ", |a| format!("{a} ({})", key_type(g, a)))
                    },
                    returns: vec![e.name],
                    sparse: g.attributes().any(|a| e.is_optional(a.field)),
                });
            }
        }
        out
    }

    /// An entity's multi-attribute GSIs for the entity table of the design document:
    /// `GSI6 (tenant, region) / (status, createdAt)`.
    pub(crate) fn multi_entity_text(&self, e: &EntitySchema) -> Vec<String> {
        e.multi_gsis
            .iter()
            .map(|g| {
                let names = |attrs: &[crate::schema::MultiKeyAttr]| {
                    attrs.iter().map(|a| format!("`{}`", a.attribute)).collect::<Vec<_>>().join(", ")
                };
                format!("{} ({}) / ({})", self.names.index_name(g.index).unwrap_or_default(), names(g.pk), names(g.sk))
            })
            .collect()
    }

    /// The Mermaid nodes of the multi-attribute GSIs (the entities' edges come with the entities).
    pub(crate) fn multi_mermaid(&self) -> String {
        let mut out = String::new();
        for g in &self.multi_gsis {
            let list = |attrs: &[crate::schema::MultiKeyAttr]| {
                attrs.iter().map(|a| a.attribute).collect::<Vec<_>>().join(", ")
            };
            out.push_str(&format!(
                "    {}[(\"{}: {} / {}\")]\n",
                super::node(g.index),
                self.names.index_name(g.index).unwrap_or_default(),
                list(g.pk),
                list(g.sk)
            ));
        }
        out
    }

    /// The multi-attribute GSIs a NoSQL Workbench model can hold: those keyed on exactly one
    /// partition key attribute and one sort key attribute (the model's `KeyAttributes` of an
    /// index), in number order.
    pub(crate) fn workbench_multi_gsis(&self) -> impl Iterator<Item = &MultiKeyIndex> {
        self.multi_gsis.iter().filter(|g| fits_workbench(g))
    }

    /// What the NoSQL Workbench export says about the multi-attribute GSIs it leaves out (its
    /// format holds one partition and one sort key attribute per index, so an index keyed on
    /// more, or on no sort key attribute, is left out); `None` when it leaves none out.
    pub fn workbench_note(&self) -> Option<String> {
        let list: Vec<String> = self
            .multi_gsis
            .iter()
            .filter(|g| !fits_workbench(g))
            .map(|g| format!("{} ({})", self.names.index_name(g.index).unwrap_or_default(), g.describe()))
            .collect();
        if list.is_empty() {
            return None;
        }
        Some(format!(
            "Not in this model: the multi-attribute {} {}, whose keys NoSQL Workbench's format (one partition and one \
             sort key attribute per index) cannot hold; see the CloudFormation export.",
            if list.len() == 1 { "GSI" } else { "GSIs" },
            list.join("; ")
        ))
    }

    /// The [`LintKind::MultiAttributeKey`] finding of entity `e`'s template GSI `g`, if native
    /// multi-attribute keys would serve it as well with less to maintain:
    /// * only `e` writes the index, so the templates' literal text tells `e`'s items from no
    ///   other entity's (an overloaded index needs it);
    /// * each template is built from whole fields (`<field>` segments, literal segments
    ///   between them; no text inside a segment around a placeholder, no `:raw` integer, no
    ///   shard suffix, which native keys cannot express), one to four in the partition key and
    ///   one to four in the sort key;
    /// * the partition key has a high-cardinality part (a hot partition needs the write
    ///   sharding only a template has; the hot-partition lint covers it);
    /// * every field is stored as an attribute of its own, not only inside the keys (see
    ///   [`KeyFields`](crate::schema::KeyFields)).
    ///
    /// Keying the index on those fields removes the synthetic `GSI<n>PK` / `GSI<n>SK`
    /// attributes (and their rewriting on every update of a key field) and, for a new index,
    /// the backfill. `None` for the primary index and LSIs. A rule of [`TableLayout::lint`].
    pub(crate) fn multi_attribute_key(&self, e: &EntitySchema, g: &IndexSchema) -> Option<Lint> {
        let Index::Gsi(n) = g.index else { return None };
        let shared = self.entities.iter().any(|o| !std::ptr::eq(*o, e) && o.index(g.index).is_some());
        let whole_fields =
            |t: &crate::key::Template| t.segments.iter().all(|s| matches!(s, Segment::Literal(_) | Segment::Field(_)));
        let (pk, sk) = (g.pk.fields().count(), g.sk.fields().count());
        let counts = (1..=MAX_KEY_ATTRIBUTES).contains(&pk) && (1..=MAX_KEY_ATTRIBUTES).contains(&sk);
        let key_only = g.pk.fields().chain(g.sk.fields()).any(|f| e.key_only(f));
        let hot = g.pk.cardinality != Cardinality::High;
        // Another entity that would meet the native index as the table's check refuses it
        // (`undeclared_multi_gsi`): storing every key field's attribute (its items would enter
        // the index), or one of them with another type (its writes would fail).
        let keys: Vec<&crate::schema::FieldSchema> =
            g.pk.fields().chain(g.sk.fields()).filter_map(|f| e.fields.iter().find(|x| x.field == f)).collect();
        let met = self.entities.iter().filter(|o| !std::ptr::eq(**o, e)).any(|o| {
            let stored: Vec<_> = keys.iter().map(|k| crate::schema::multi_key::stored_as(o, k.attribute)).collect();
            let all = stored.iter().all(|s| matches!(s, Some(Some(_))));
            let clash = stored.iter().zip(&keys).any(|(s, k)| match (s, k.stored) {
                (Some(Some((theirs, _))), Some(ours)) => {
                    *theirs != ours && *theirs != StoredType::Unknown && ours != StoredType::Unknown
                }
                _ => false,
            });
            all || clash
        });
        if shared || met || !whole_fields(g.pk) || !whole_fields(g.sk) || !counts || key_only || hot {
            return None;
        }
        Some(Lint {
            entity: e.name,
            index: g.index,
            kind: LintKind::MultiAttributeKey,
            message: format!(
                "only {} writes {}, so its templates `{}` / `{}` overload it for no other entity: key it on the \
                 fields themselves, `gsi{n}(pk({}), sk({}))`, and the item's own attributes are the key (no {} / {} \
                 to write, and none to rewrite when a key field changes)",
                e.name,
                g.index,
                g.pk.source,
                g.sk.source,
                g.pk.fields().collect::<Vec<_>>().join(", "),
                g.sk.fields().collect::<Vec<_>>().join(", "),
                e.names.pk_of(g.index),
                e.names.sk_of(g.index),
            ),
        })
    }
}

/// Whether a NoSQL Workbench model can hold `g`: one partition and one sort key attribute.
fn fits_workbench(g: &MultiKeyIndex) -> bool {
    g.pk.len() == 1 && g.sk.len() == 1
}

/// One side of a key, each attribute through `f`, joined with `sep`.
fn side(attrs: &[crate::schema::MultiKeyAttr], sep: &str, f: impl Fn(&str) -> String) -> String {
    attrs.iter().map(|a| f(a.attribute)).collect::<Vec<_>>().join(sep)
}

/// The field stored in attribute `a` of entity `e` (the attribute's name when unknown).
fn field_of(e: &EntitySchema, a: &str) -> String {
    e.multi_gsis.iter().flat_map(|g| g.attributes()).find(|k| k.attribute == a).map_or(a, |k| k.field).to_owned()
}

/// The type of attribute `a` in `g`.
fn key_type(g: &MultiKeyIndex, a: &str) -> String {
    g.attributes().find(|k| k.attribute == a).map(|k| k.key_type.to_string()).unwrap_or_default()
}

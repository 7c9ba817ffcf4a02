//! The table as an AWS NoSQL Workbench data model, so that a design can be opened, browsed and
//! committed in AWS's own modelling tool.
//!
//! ```no_run
//! use dynamo_entity::schema::TableLayout;
//! use dynamo_entity::design::workbench::WorkbenchModel;
//! use dynamo_entity::{Entity, Timestamp};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "USER#<id>", sk = "PROFILE")]
//! struct User {
//!     id: String,
//!     name: String,
//! }
//!
//! # fn f() -> dynamo_entity::Result<()> {
//! let layout = TableLayout::new(&[User::schema()])?;
//! let model = WorkbenchModel::new("Users", "users")
//!     .dated(Timestamp::EPOCH)
//!     .sample(&User { id: "u1".into(), name: "Ann".into() })?;
//! let json = layout.workbench(&model)?; // write it with serde_json::to_string_pretty
//! # Ok(())
//! # }
//! ```
//!
//! # The format
//!
//! NoSQL Workbench imports and exports one JSON document per data model (format version 3.0):
//!
//! | JSON path | what this crate writes |
//! |---|---|
//! | `ModelName`, `ModelMetadata` | the model's name, author, description, dates, `AWSService` and `Version` |
//! | `DataModel[0].TableName` | the table |
//! | `DataModel[0].KeyAttributes` | the table's partition and sort key (`PK` / `SK`, or the names the table declares, see [`AttributeNames`]) with their types (`S` or `N`) |
//! | `DataModel[0].NonKeyAttributes` | every other attribute: the type attribute (`_type`), the fields, the GSI keys, the LSI sort keys, each with one DynamoDB type |
//! | `DataModel[0].TableFacets` | one facet per entity: its key templates as the key aliases, its attributes, its sample items |
//! | `DataModel[0].GlobalSecondaryIndexes` | each GSI's key attributes and projection (`ALL`, `KEYS_ONLY` or `INCLUDE` with its attributes), the inverted index among them (keyed on `SK` / `PK`), under the table's index names, then the multi-attribute GSIs keyed on one partition and one sort key attribute (a model holds no more per index); LSIs are not exported (see below) |
//! | `DataModel[0].TableData` | every sample item, in DynamoDB JSON (`{"S": "..."}`, `{"N": "..."}`, …) |
//! | `DataModel[0].DataAccess`, `BillingMode` | `{"MySql": {}}` (no data source) and `PAY_PER_REQUEST` (on demand) |
//!
//! A Workbench model gives every attribute exactly one type, while DynamoDB lets each item
//! choose. The export takes each attribute's type from the sample items (and from the layout for
//! key attributes), so the samples must show every attribute the entities write: an attribute no
//! sample carries, or two samples that store one attribute with different types, is an
//! [`Error::Invalid`] naming the entity and the attribute. The schema the file follows is
//! committed as `dynamo-entity/schemas/nosql-workbench-model.schema.json`; the crate's tests
//! validate every export against it.
//!
//! Not exported: the guard items of `#[entity(unique)]` fields (see [`unique`](crate::unique)),
//! the TTL setting, which the Workbench format has no field for, and local secondary indexes.
//!
//! LSIs are left out because the format has no place for them: a Workbench 3.0 table carries
//! `KeyAttributes`, `NonKeyAttributes`, `TableFacets`, `GlobalSecondaryIndexes`, `TableData`,
//! `DataAccess`, `SampleDataFormats` and `BillingMode`, and none of the models the committed
//! schema was derived from (Workbench's own exports of formats 1.0 and 3.0, see the schema's
//! `$comment`) has a `LocalSecondaryIndexes` member or any other index list, so the schema
//! forbids one (`additionalProperties: false`). Modelling an LSI as a GSI instead would be
//! wrong: a model committed from Workbench would create a GSI, with its own partition key,
//! eventually consistent reads and its own capacity, where the table needs an LSI, which can
//! only be created with the table. An LSI's sort key attribute (`LSI<n>SK`) is still exported
//! as a non-key attribute of the items that write it, so the sample data stays complete; the
//! LSIs themselves are in [`TableLayout::cloudformation`] and [`Table::create_table_from`](crate::Table::create_table_from).

use std::collections::BTreeMap;

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use crate::error::Error;
use crate::schema::TableLayout;
use crate::schema::{AttributeNames, Entity, EntitySchema, Index, Item};
use crate::value::time::Timestamp;
use crate::value::type_name;

/// The `Version` of the Workbench data-model format written by [`TableLayout::workbench`].
pub const FORMAT_VERSION: &str = "3.0";

/// What a NoSQL Workbench data model holds besides the table layout: its name and metadata, and
/// the sample items shown in each facet.
#[derive(Debug, Clone)]
pub struct WorkbenchModel {
    name: String,
    table_name: String,
    author: String,
    description: String,
    date: Timestamp,
    items: Vec<Item>,
    mixed_types: bool,
}

impl WorkbenchModel {
    /// A model named `name` for the table `table_name`, without samples, dated now.
    pub fn new(name: impl Into<String>, table_name: impl Into<String>) -> WorkbenchModel {
        WorkbenchModel {
            name: name.into(),
            table_name: table_name.into(),
            author: String::new(),
            description: String::new(),
            date: Timestamp::now(),
            items: Vec::new(),
            mixed_types: false,
        }
    }

    /// Sets `ModelMetadata.Author`.
    pub fn author(mut self, author: impl Into<String>) -> WorkbenchModel {
        self.author = author.into();
        self
    }

    /// Sets `ModelMetadata.Description`.
    pub fn description(mut self, description: impl Into<String>) -> WorkbenchModel {
        self.description = description.into();
        self
    }

    /// Sets `DateCreated` and `DateLastModified` (written as Workbench does, `Jan 01, 2026,
    /// 12:00 AM`, in UTC). Give a fixed time to make the export reproducible.
    pub fn dated(mut self, when: Timestamp) -> WorkbenchModel {
        self.date = when;
        self
    }

    /// Allows entities to store one attribute name with different DynamoDB types (such as an
    /// `id` that is a string in one entity and a number in another), which DynamoDB accepts
    /// but a Workbench table definition cannot say: the table then declares the type of the
    /// first entity of the layout that stores the attribute, and the other entities' sample
    /// items keep the types they are stored with. Without it such a model is an
    /// [`Error::Invalid`].
    pub fn mixed_types(mut self, allow: bool) -> WorkbenchModel {
        self.mixed_types = allow;
        self
    }

    /// Adds `value` as a sample item of its entity's facet, encoded as
    /// [`Entity::to_item`] stores it.
    ///
    /// # Errors
    /// The encoding error of [`Entity::to_item`] ([`Error::Key`], [`Error::Encode`]).
    pub fn sample<E: Entity>(mut self, value: &E) -> Result<WorkbenchModel, Error> {
        self.items.push(value.to_item()?);
        Ok(self)
    }

    /// Adds every value of `values` as a sample item, as [`WorkbenchModel::sample`] does.
    ///
    /// # Errors
    /// The first encoding error.
    pub fn samples<'a, E: Entity + 'a>(
        mut self,
        values: impl IntoIterator<Item = &'a E>,
    ) -> Result<WorkbenchModel, Error> {
        for v in values {
            self = self.sample(v)?;
        }
        Ok(self)
    }

    /// Adds an item as it is stored (such as one read from the table) as a sample of the
    /// entity its type attribute names; [`TableLayout::workbench`] checks that name.
    pub fn item(mut self, item: Item) -> WorkbenchModel {
        self.items.push(item);
        self
    }

    /// The sample items, in the order added.
    pub fn items(&self) -> &[Item] {
        &self.items
    }
}

impl TableLayout {
    /// The table as a NoSQL Workbench data model (format [`FORMAT_VERSION`]): the key schema,
    /// every GSI, one facet per entity with its sample items, and every sample item in
    /// `TableData`. See the [module documentation](crate::design::workbench) for the layout of the
    /// document.
    ///
    /// # Errors
    /// [`Error::Invalid`] when the table name breaks DynamoDB's naming rule (3 to 255
    /// characters of `a-z`, `A-Z`, `0-9`, `_`, `-`, `.`), when a sample item's entity type
    /// attribute names no entity of the layout, when two items store one attribute with different DynamoDB types (a Workbench
    /// model has one type per attribute) and the model does not allow it
    /// ([`WorkbenchModel::mixed_types`]), or when an attribute an entity writes has no sample
    /// that shows its type.
    pub fn workbench(&self, model: &WorkbenchModel) -> Result<Value, Error> {
        let invalid = |reason: String| Error::Invalid { reason: format!("NoSQL Workbench export: {reason}") };
        let name = &model.table_name;
        if !(3..=255).contains(&name.len())
            || !name.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
        {
            return Err(invalid(format!(
                "table name {name:?} is not a DynamoDB table name (3 to 255 characters of a-z, A-Z, 0-9, `_`, `-`, `.`)"
            )));
        }

        // Each sample item to its entity.
        let mut by_entity: BTreeMap<&'static str, Vec<&Item>> = BTreeMap::new();
        let names: &AttributeNames = self.names();
        let describe_key = |item: &Item| names.describe_key(item);
        for item in &model.items {
            // By type value and key shape: entities may share a type value, and a table
            // declared with `entity_type = none` has no type attribute at all.
            let schema = self.entities().iter().find(|e| crate::owner::owns(e, item));
            let Some(schema) = schema else {
                return Err(invalid(format!(
                    "sample item {} has entity type {}, which is no entity of the table",
                    describe_key(item),
                    item.get(names.entity_type).map(crate::schema::describe_value).unwrap_or_else(|| "<none>".into())
                )));
            };
            by_entity.entry(schema.name).or_default().push(item);
        }

        // One type per attribute: key attributes from the layout, the rest from the samples.
        let mut types: BTreeMap<String, (&'static str, String)> = BTreeMap::new();
        for a in self.key_attributes() {
            types.insert(a.to_owned(), (key_type_name(self, a), "the table's key schema".to_owned()));
        }
        if names.has_entity_type() {
            types.insert(names.entity_type.to_owned(), ("S", "every item".to_owned()));
        }
        // In the layout's entity order, so that with mixed types the first entity's type wins.
        let tagged =
            self.entities().iter().flat_map(|e| by_entity.get(e.name).into_iter().flatten().map(|i| (e.name, *i)));
        for (entity, item) in tagged {
            for (name, value) in item {
                let ty = type_name(value);
                match types.get(name.as_str()) {
                    Some((other, _)) if *other != ty && model.mixed_types => {}
                    Some((other, owner)) if *other != ty => {
                        return Err(invalid(format!(
                            "attribute `{name}` is {ty} in {entity} {} but {other} in {owner}; a NoSQL Workbench \
                             model gives each attribute one type (see WorkbenchModel::mixed_types)",
                            describe_key(item)
                        )));
                    }
                    Some(_) => {}
                    None => {
                        types.insert(name.clone(), (ty, format!("{entity} {}", describe_key(item))));
                    }
                }
            }
        }

        // Facets, in the layout's entity order.
        let mut facets = Vec::new();
        let mut table_attributes: Vec<String> = Vec::new();
        let push_unique = |list: &mut Vec<String>, a: &str| {
            if a != names.pk && a != names.sk && !list.iter().any(|x| x == a) {
                list.push(a.to_owned());
            }
        };
        for e in self.entities() {
            let samples = by_entity.get(e.name).map(Vec::as_slice).unwrap_or_default();
            let mut attributes: Vec<String> = Vec::new();
            for a in entity_attributes(e) {
                push_unique(&mut attributes, a);
            }
            let mut extra: Vec<&String> = samples.iter().flat_map(|i| i.keys()).collect();
            extra.sort();
            for a in extra {
                push_unique(&mut attributes, a);
            }
            for a in &attributes {
                if !types.contains_key(a.as_str()) {
                    return Err(invalid(format!(
                        "no sample item shows the type of attribute `{a}` of {}; add a sample {} in which it is present",
                        e.name, e.name
                    )));
                }
                push_unique(&mut table_attributes, a);
            }
            let data: Vec<Value> = samples.iter().map(|i| item_json(i)).collect();
            facets.push(json!({
                "FacetName": e.name,
                "KeyAttributeAlias": {
                    "PartitionKeyAlias": e.primary.pk.source,
                    "SortKeyAlias": e.primary.sk.source,
                },
                "TableData": data,
                "NonKeyAttributes": attributes,
                "DataAccess": { "MySql": {} },
            }));
        }

        let typed = |a: &str| json!({ "AttributeName": a, "AttributeType": types.get(a).map_or("S", |t| t.0) });
        // The inverted index is a GSI keyed on `SK` / `PK`, so it is modelled as one.
        let gsis: Vec<Value> = self
            .gsis()
            .iter()
            .map(|&n| Index::Gsi(n))
            .chain(self.has_inverted().then_some(Index::Inverted))
            .map(|i| {
                json!({
                    "IndexName": names.index_name(i).unwrap_or_default(),
                    "KeyAttributes": {
                        "PartitionKey": typed(names.pk_of(i)),
                        "SortKey": typed(names.sk_of(i)),
                    },
                    "Projection": self.projection(i).to_json(),
                })
            })
            .chain(self.workbench_multi_gsis().map(|g| {
                json!({
                    "IndexName": names.index_name(g.index).unwrap_or_default(),
                    "KeyAttributes": {
                        "PartitionKey": typed(g.pk[0].attribute),
                        "SortKey": typed(g.sk[0].attribute),
                    },
                    "Projection": self.projection(g.index).to_json(),
                })
            }))
            .collect();
        let table = json!({
            "TableName": model.table_name,
            "KeyAttributes": { "PartitionKey": typed(names.pk), "SortKey": typed(names.sk) },
            "NonKeyAttributes": table_attributes.iter().map(|a| typed(a)).collect::<Vec<_>>(),
            "TableFacets": facets,
            "GlobalSecondaryIndexes": gsis,
            "TableData": model.items.iter().map(item_json).collect::<Vec<_>>(),
            "DataAccess": { "MySql": {} },
            "BillingMode": "PAY_PER_REQUEST",
        });
        let date = workbench_date(model.date);
        Ok(json!({
            "ModelName": model.name,
            "ModelMetadata": {
                "Author": model.author,
                "DateCreated": date,
                "DateLastModified": date,
                "Description": match self.workbench_note() {
                    Some(note) if model.description.is_empty() => note,
                    Some(note) => format!("{} {note}", model.description),
                    None => model.description.clone(),
                },
                "AWSService": "Amazon DynamoDB",
                "Version": FORMAT_VERSION,
            },
            "DataModel": [table],
        }))
    }
}

fn key_type_name(layout: &TableLayout, attribute: &str) -> &'static str {
    match layout.key_type(attribute) {
        crate::key::KeyType::S => "S",
        crate::key::KeyType::N => "N",
        crate::key::KeyType::B => "B",
    }
}

/// The attributes an entity writes besides its table's partition and sort key, in a stable
/// order: the type attribute, the fields, the attributes the library maintains (the schema
/// version among them), then the GSI keys (all under the entity's [`AttributeNames`]).
fn entity_attributes(e: &EntitySchema) -> Vec<&'static str> {
    let mut out = Vec::new();
    if e.names.has_entity_type() {
        out.push(e.names.entity_type);
    }
    // A field written only inside its keys (`key_fields = "keys"`) has no attribute.
    out.extend(e.fields.iter().filter(|f| !e.key_only(f.field)).map(|f| f.attribute));
    out.extend(e.version.map(|v| v.attribute));
    out.extend(e.schema_version.map(|v| v.attribute));
    for f in [e.created_at, e.updated_at, e.ttl].into_iter().flatten() {
        out.push(f.attribute);
    }
    for g in e.gsis {
        out.push(e.names.pk_of(g.index));
        out.push(e.names.sk_of(g.index));
    }
    out
}

/// An item in DynamoDB JSON, attributes in name order so the output is stable.
fn item_json(item: &Item) -> Value {
    let mut names: Vec<&String> = item.keys().collect();
    names.sort();
    let mut out = Map::with_capacity(names.len());
    for n in names {
        out.insert(n.clone(), value_json(&item[n]));
    }
    Value::Object(out)
}

/// One attribute value in DynamoDB JSON (`{"S": "a"}`, `{"N": "1"}`, binary as base64).
pub fn value_json(v: &AttributeValue) -> Value {
    let b64 = |b: &[u8]| Value::String(STANDARD.encode(b));
    match v {
        AttributeValue::S(s) => json!({ "S": s }),
        AttributeValue::N(n) => json!({ "N": n }),
        AttributeValue::B(b) => json!({ "B": b64(b.as_ref()) }),
        AttributeValue::Bool(b) => json!({ "BOOL": b }),
        AttributeValue::Null(_) => json!({ "NULL": true }),
        AttributeValue::M(m) => {
            let mut names: Vec<&String> = m.keys().collect();
            names.sort();
            let inner: Map<String, Value> = names.into_iter().map(|k| (k.clone(), value_json(&m[k]))).collect();
            json!({ "M": inner })
        }
        AttributeValue::L(l) => json!({ "L": l.iter().map(value_json).collect::<Vec<_>>() }),
        AttributeValue::Ss(s) => json!({ "SS": s }),
        AttributeValue::Ns(s) => json!({ "NS": s }),
        AttributeValue::Bs(s) => json!({ "BS": s.iter().map(|b| b64(b.as_ref())).collect::<Vec<_>>() }),
        _ => json!({ "NULL": true }),
    }
}

/// `Jan 01, 2026, 12:00 AM` (UTC), the date format of Workbench's `ModelMetadata`.
fn workbench_date(t: Timestamp) -> String {
    const MONTHS: [&str; 12] = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
    let mut iso = String::new();
    t.write_to(&mut iso); // YYYY-MM-DDTHH:MM:SS.mmmZ
    let num = |r: std::ops::Range<usize>| iso.get(r).and_then(|s| s.parse::<usize>().ok()).unwrap_or(0);
    let (year, month, day, hour, minute) = (num(0..4), num(5..7), num(8..10), num(11..13), num(14..16));
    let (h12, half) = match hour {
        0 => (12, "AM"),
        1..=11 => (hour, "AM"),
        12 => (12, "PM"),
        _ => (hour - 12, "PM"),
    };
    let month = MONTHS.get(month.wrapping_sub(1)).copied().unwrap_or("Jan");
    format!("{month} {day:02}, {year}, {h12:02}:{minute:02} {half}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_written_as_workbench_writes_them() {
        let t = |ms: i64| workbench_date(Timestamp::from_millis(ms).unwrap());
        assert_eq!(t(0), "Jan 01, 1970, 12:00 AM");
        assert_eq!(t(1_767_225_600_000), "Jan 01, 2026, 12:00 AM");
        assert_eq!(t(1_767_225_600_000 + 13 * 3_600_000 + 5 * 60_000), "Jan 01, 2026, 01:05 PM");
        assert_eq!(t(1_767_225_600_000 + 12 * 3_600_000), "Jan 01, 2026, 12:00 PM");
    }

    #[test]
    fn values_are_dynamodb_json() {
        use aws_sdk_dynamodb::primitives::Blob;
        let m = AttributeValue::M(
            [("b".to_owned(), AttributeValue::Bool(true)), ("a".to_owned(), AttributeValue::B(Blob::new(vec![1, 2])))]
                .into(),
        );
        assert_eq!(value_json(&m), json!({ "M": { "a": { "B": "AQI=" }, "b": { "BOOL": true } } }));
        assert_eq!(
            value_json(&AttributeValue::L(vec![AttributeValue::N("1".into()), AttributeValue::Ns(vec!["2".into()])])),
            json!({ "L": [{ "N": "1" }, { "NS": ["2"] }] })
        );
    }
}

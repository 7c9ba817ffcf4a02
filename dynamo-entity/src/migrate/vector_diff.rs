//! Vector indexes in [`Table::diff`](crate::Table::diff) and [`Table::apply`](crate::Table::apply):
//! the shape compared ([`VectorIndexShape`]), read from the layout and from `DescribeTable`,
//! and the `UpdateTable` requests (`VectorIndexUpdates`) that create or delete one.
//!
//! DynamoDB changes no vector index in place: an index whose shape differs is deleted and
//! created again (DynamoDB fills it from the table's items meanwhile; a search of an index
//! still backfilling is refused).

use std::collections::BTreeMap;
use std::fmt;

use aws_sdk_dynamodb::types::{
    AttributeDefinition, CreateVectorIndexAction, DeleteVectorIndexAction, SearchSchemaElementType, TableDescription,
    VectorAttributeDefinition, VectorIndexUpdate,
};

use crate::error::Error;
use crate::key::KeyType;
use crate::schema::{Distance, Projection, TableLayout};

/// The shape of one vector index, as declared or as the table has it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VectorIndexShape {
    /// The index name.
    pub name: String,
    /// The vector attribute.
    pub attribute: String,
    /// The number of dimensions.
    pub dimensions: u32,
    /// The distance function's name (`COSINE`, `EUCLIDEAN`, `DOT_PRODUCT`).
    pub distance: String,
    /// The search schema's `HASH` attribute and its type.
    pub hash: Option<(String, KeyType)>,
    /// The search schema's `INLINE_FILTER` attributes and their types, in schema order.
    pub filters: Vec<(String, KeyType)>,
}

impl fmt::Display for VectorIndexShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "vector index {} on {} ({}, {})",
            self.name,
            self.attribute,
            crate::schema::vector::count(self.dimensions as usize, "dimension"),
            self.distance
        )?;
        if let Some((a, t)) = &self.hash {
            write!(f, ", hash {a} ({t})")?;
        }
        if !self.filters.is_empty() {
            let list: Vec<String> = self.filters.iter().map(|(a, t)| format!("{a} ({t})")).collect();
            write!(f, ", filters {}", list.join(", "))?;
        }
        Ok(())
    }
}

/// The declared vector indexes of `layout`, by name.
pub(crate) fn declared(layout: &TableLayout) -> BTreeMap<String, VectorIndexShape> {
    layout
        .vector_indexes()
        .iter()
        .map(|v| {
            let shape = VectorIndexShape {
                name: v.name.to_owned(),
                attribute: v.attribute.to_owned(),
                dimensions: v.dimensions,
                distance: v.distance.as_str().to_owned(),
                hash: v.hash.map(|h| (h.attribute.to_owned(), h.key_type)),
                filters: v.filters.iter().map(|f| (f.attribute.to_owned(), f.key_type)).collect(),
            };
            (shape.name.clone(), shape)
        })
        .collect()
}

/// The vector indexes of the described table, by name.
pub(crate) fn actual(desc: &TableDescription) -> BTreeMap<String, VectorIndexShape> {
    let types: BTreeMap<&str, KeyType> = desc
        .attribute_definitions()
        .iter()
        .map(|d| (d.attribute_name(), KeyType::from_scalar(d.attribute_type())))
        .collect();
    let typed = |a: &str| (a.to_owned(), types.get(a).copied().unwrap_or(KeyType::S));
    desc.vector_indexes()
        .iter()
        .map(|v| {
            let schema = v.search_schema();
            let shape = VectorIndexShape {
                name: v.index_name().unwrap_or_default().to_owned(),
                attribute: v.vector_attribute().map(|a| a.attribute_name().to_owned()).unwrap_or_default(),
                dimensions: v.dimensions().and_then(|d| u32::try_from(d).ok()).unwrap_or_default(),
                distance: v.distance_function().map(|d| d.as_str().to_owned()).unwrap_or_default(),
                hash: schema
                    .iter()
                    .find(|e| *e.search_schema_element_type() == SearchSchemaElementType::Hash)
                    .map(|e| typed(e.attribute_name())),
                filters: schema
                    .iter()
                    .filter(|e| *e.search_schema_element_type() != SearchSchemaElementType::Hash)
                    .map(|e| typed(e.attribute_name()))
                    .collect(),
            };
            (shape.name.clone(), shape)
        })
        .collect()
}

/// Whether the described table's vector index `name` is searchable (`ACTIVE`, not
/// backfilling), or gone when `present` is false.
pub(crate) fn settled(desc: &TableDescription, name: &str, present: bool) -> bool {
    let index = desc.vector_indexes().iter().find(|v| v.index_name() == Some(name));
    match (present, index) {
        (true, Some(v)) => {
            v.index_status() == Some(&aws_sdk_dynamodb::types::IndexStatus::Active) && v.backfilling() != Some(true)
        }
        (false, None) => true,
        _ => false,
    }
}

/// The `UpdateTable` parts creating the vector index `shape`: its search schema attributes'
/// definitions and the update.
pub(crate) fn create(shape: &VectorIndexShape) -> Result<(Vec<AttributeDefinition>, VectorIndexUpdate), Error> {
    use aws_sdk_dynamodb::types::SearchSchemaElement;
    let invalid = |e: aws_sdk_dynamodb::error::BuildError| Error::Invalid { reason: e.to_string() };
    let mut defs = Vec::new();
    let mut schema = Vec::new();
    let elements = shape
        .hash
        .iter()
        .map(|h| (h, SearchSchemaElementType::Hash))
        .chain(shape.filters.iter().map(|f| (f, SearchSchemaElementType::InlineFilter)));
    for ((a, t), kind) in elements {
        defs.push(
            AttributeDefinition::builder().attribute_name(a).attribute_type(t.scalar()).build().map_err(invalid)?,
        );
        schema.push(
            SearchSchemaElement::builder()
                .attribute_name(a)
                .search_schema_element_type(kind)
                .build()
                .map_err(invalid)?,
        );
    }
    let distance = Distance::parse(&shape.distance)
        .ok_or_else(|| Error::Invalid { reason: format!("unknown distance function {}", shape.distance) })?;
    let action = CreateVectorIndexAction::builder()
        .index_name(&shape.name)
        .vector_attribute(
            VectorAttributeDefinition::builder().attribute_name(&shape.attribute).build().map_err(invalid)?,
        )
        .set_search_schema((!schema.is_empty()).then_some(schema))
        .projection(Projection::All.to_sdk())
        .dimensions(i64::from(shape.dimensions))
        .distance_function(distance.to_sdk())
        .build()
        .map_err(invalid)?;
    Ok((defs, VectorIndexUpdate::builder().create(action).build()))
}

/// The `UpdateTable` update deleting the vector index `name`.
pub(crate) fn delete(name: &str) -> Result<VectorIndexUpdate, Error> {
    let action = DeleteVectorIndexAction::builder()
        .index_name(name)
        .build()
        .map_err(|e| Error::Invalid { reason: e.to_string() })?;
    Ok(VectorIndexUpdate::builder().delete(action).build())
}

//! Vector indexes: an entity's `Vec<f32>` field searched by similarity with DynamoDB's
//! `SearchVectors` (see [`query::vector`](crate::query::vector)).
//!
//! A vector index is declared on the field that holds the vector, in DynamoDB's shape: the
//! index name, the number of dimensions (1 to 4,096), the distance function (`COSINE`,
//! `EUCLIDEAN`, `DOT_PRODUCT`) and the search schema, at most one `HASH` attribute (every
//! search names its value, as a query names its partition) and any number of `INLINE_FILTER`
//! attributes (a search may ask for equal values). Search schema attributes are scalars
//! (`S`, `N` or `B`) and are listed in the table's `AttributeDefinitions`; the vector attribute
//! is not.
//!
//! ```
//! use dynamo_entity::Entity;
//! use dynamo_entity::schema::{Distance, TableLayout};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "DOC#<id>", sk = "META")]
//! struct Doc {
//!     id: String,
//!     tenant: String,
//!     lang: String,
//!     #[entity(vector(index = "DocsByMeaning", dimensions = 3, distance = cosine, hash = tenant, filters(lang)))]
//!     embedding: Vec<f32>,
//! }
//!
//! let layout = TableLayout::new(&[Doc::schema()])?;
//! let index = &layout.vector_indexes()[0];
//! assert_eq!((index.name, index.attribute, index.dimensions), ("DocsByMeaning", "embedding", 3));
//! assert_eq!(index.distance, Distance::Cosine);
//! assert_eq!(index.hash.map(|h| h.attribute), Some("tenant"));
//! # Ok::<(), dynamo_entity::Error>(())
//! ```
//!
//! Size and capacity: in the item, a vector is a list of numbers, and DynamoDB sizes it as
//! one (the Developer Guide, "DynamoDB item sizes and formats"): the 400 KB item limit, the
//! table's and its GSIs' write units and storage count it so
//! ([`item_size`](crate::value::size::item_size), [`capacity`](crate::capacity)). A vector
//! index stores the vector as 32-bit floats, 4 bytes a dimension ("Storage considerations for
//! vector indexes"): [`VectorIndex::billed_bytes`] and [`billed_item_size`] size an item's
//! entry there.

use std::fmt;

use crate::key::KeyType;
use crate::value::{Item, StoredType};

/// DynamoDB's fewest dimensions of a vector index.
pub const MIN_DIMENSIONS: u32 = 1;
/// DynamoDB's most dimensions of a vector index.
pub const MAX_DIMENSIONS: u32 = 4096;
/// DynamoDB's most results of one `SearchVectors` request (`TopK`).
pub const MAX_TOP_K: u32 = 100;
/// The bytes a vector index stores for each dimension of a vector (an `f32`, by the Developer
/// Guide's "Storage considerations for vector indexes").
pub const BYTES_PER_DIMENSION: usize = 4;

/// How a vector index ranks the items against the query vector (`DistanceFunction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Distance {
    /// `COSINE`: one less the cosine of the angle, 0 (same direction) to 2; lower is nearer.
    Cosine,
    /// `EUCLIDEAN`: the straight-line distance; lower is nearer.
    Euclidean,
    /// `DOT_PRODUCT`: the dot product; higher is nearer.
    DotProduct,
}

impl Distance {
    /// DynamoDB's name: `COSINE`, `EUCLIDEAN` or `DOT_PRODUCT`.
    ///
    /// ```
    /// assert_eq!(dynamo_entity::schema::Distance::DotProduct.as_str(), "DOT_PRODUCT");
    /// ```
    pub const fn as_str(self) -> &'static str {
        match self {
            Distance::Cosine => "COSINE",
            Distance::Euclidean => "EUCLIDEAN",
            Distance::DotProduct => "DOT_PRODUCT",
        }
    }

    /// The distance function of DynamoDB's name (`None` for another name).
    ///
    /// ```
    /// use dynamo_entity::schema::Distance;
    /// assert_eq!(Distance::parse("EUCLIDEAN"), Some(Distance::Euclidean));
    /// assert_eq!(Distance::parse("L1"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Distance> {
        match name {
            "COSINE" => Some(Distance::Cosine),
            "EUCLIDEAN" => Some(Distance::Euclidean),
            "DOT_PRODUCT" => Some(Distance::DotProduct),
            _ => None,
        }
    }

    /// Whether a higher score is nearer (`DOT_PRODUCT`); for the others a lower one is.
    ///
    /// ```
    /// assert!(!dynamo_entity::schema::Distance::Cosine.higher_is_nearer());
    /// ```
    pub const fn higher_is_nearer(self) -> bool {
        matches!(self, Distance::DotProduct)
    }

    pub(crate) fn to_sdk(self) -> aws_sdk_dynamodb::types::VectorDistanceFunction {
        use aws_sdk_dynamodb::types::VectorDistanceFunction as F;
        match self {
            Distance::Cosine => F::Cosine,
            Distance::Euclidean => F::Euclidean,
            Distance::DotProduct => F::DotProduct,
        }
    }
}

impl fmt::Display for Distance {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One attribute of a vector index's search schema: the field, the attribute that stores it
/// and its scalar type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchAttribute {
    /// The Rust field name.
    pub field: &'static str,
    /// The name of the field's handle, the associated constant `#[derive(Entity)]` generates
    /// (`TENANT` for `tenant`, as in `Doc::TENANT`), for messages.
    pub handle: &'static str,
    /// The attribute name.
    pub attribute: &'static str,
    /// Its type in `AttributeDefinitions` (`S`, `N` or `B`).
    pub key_type: KeyType,
}

/// A vector index, as an entity declares it with
/// `#[entity(vector(index = "...", dimensions = N, distance = cosine, hash = field, filters(field, ...)))]`
/// on its `Vec<f32>` field. The index's projection is `ALL`, so that a search returns whole
/// entities.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VectorIndex {
    /// The index name (3 to 255 characters of `a-z A-Z 0-9 _ . -`).
    pub name: &'static str,
    /// The Rust field holding the vector.
    pub field: &'static str,
    /// The attribute holding the vector (a list of numbers).
    pub attribute: &'static str,
    /// The number of dimensions, 1 to 4,096: every stored vector and every query vector has
    /// exactly this many elements.
    pub dimensions: u32,
    /// How the index ranks items.
    pub distance: Distance,
    /// The search schema's `HASH` attribute: every search names its value.
    pub hash: Option<SearchAttribute>,
    /// The search schema's `INLINE_FILTER` attributes.
    pub filters: &'static [SearchAttribute],
}

impl VectorIndex {
    /// Every search schema attribute: the `HASH` one first.
    pub fn search_attributes(&self) -> impl Iterator<Item = &SearchAttribute> + '_ {
        self.hash.iter().chain(self.filters)
    }

    /// The bytes this index's vector attribute takes in the index's entry of an item: its name
    /// and 4 bytes a dimension (the index stores 32-bit floats). In the item itself, the vector
    /// is a list of numbers and is sized as one
    /// ([`item_size`](crate::value::size::item_size)).
    ///
    /// ```
    /// # use dynamo_entity::schema::{Distance, VectorIndex};
    /// let index = VectorIndex {
    ///     name: "Docs", field: "embedding", attribute: "embedding", dimensions: 3,
    ///     distance: Distance::Cosine, hash: None, filters: &[],
    /// };
    /// assert_eq!(index.billed_bytes(), 9 + 3 * 4);
    /// ```
    pub fn billed_bytes(&self) -> usize {
        self.attribute.len() + BYTES_PER_DIMENSION * self.dimensions as usize
    }

    /// The index in DynamoDB's shape, for `CreateTable` and `UpdateTable`.
    pub(crate) fn to_sdk(self) -> Result<aws_sdk_dynamodb::types::VectorIndex, crate::Error> {
        use aws_sdk_dynamodb::types::{VectorAttributeDefinition, VectorIndex as Sdk};
        let invalid = |e: aws_sdk_dynamodb::error::BuildError| crate::Error::Invalid { reason: e.to_string() };
        Sdk::builder()
            .index_name(self.name)
            .vector_attribute(
                VectorAttributeDefinition::builder().attribute_name(self.attribute).build().map_err(invalid)?,
            )
            .set_search_schema(self.search_schema()?)
            .projection(crate::schema::Projection::All.to_sdk())
            .dimensions(i64::from(self.dimensions))
            .distance_function(self.distance.to_sdk())
            .build()
            .map_err(invalid)
    }

    pub(crate) fn search_schema(
        &self,
    ) -> Result<Option<Vec<aws_sdk_dynamodb::types::SearchSchemaElement>>, crate::Error> {
        use aws_sdk_dynamodb::types::{SearchSchemaElement, SearchSchemaElementType as T};
        let element = |a: &SearchAttribute, t: T| {
            SearchSchemaElement::builder()
                .attribute_name(a.attribute)
                .search_schema_element_type(t)
                .build()
                .map_err(|e| crate::Error::Invalid { reason: e.to_string() })
        };
        let mut out = Vec::new();
        if let Some(h) = &self.hash {
            out.push(element(h, T::Hash)?);
        }
        for f in self.filters {
            out.push(element(f, T::InlineFilter)?);
        }
        Ok((!out.is_empty()).then_some(out))
    }
}

/// The size of `item`'s entry in a vector index of `indexes` (projection `ALL`, as this crate
/// creates them): its [`item_size`](crate::value::size::item_size), with each vector attribute
/// counted at its name and 4 bytes a dimension, as the index stores it (32-bit floats: the
/// Developer Guide, "Storage considerations for vector indexes"), instead of as a list of
/// numbers. The table, its GSIs and LSIs and the 400 KB item limit count the item as written,
/// the vector a list of numbers ([`capacity`](crate::capacity)).
///
/// ```
/// use aws_sdk_dynamodb::types::AttributeValue;
/// use dynamo_entity::schema::{Distance, VectorIndex, billed_item_size};
/// let index = VectorIndex {
///     name: "Docs", field: "v", attribute: "v", dimensions: 2,
///     distance: Distance::Euclidean, hash: None, filters: &[],
/// };
/// let vector = AttributeValue::L(vec![AttributeValue::N("0.123456".into()), AttributeValue::N("1".into())]);
/// let item = [("v".to_owned(), vector), ("id".to_owned(), AttributeValue::S("a".into()))].into_iter().collect();
/// // `id` = 2 + 1 bytes; `v` = 1 + 2 * 4 bytes, not 1 + 3 + (1 + 4) + (1 + 2).
/// assert_eq!(billed_item_size(&item, &[index]), 3 + 9);
/// ```
pub fn billed_item_size(item: &Item, indexes: &[VectorIndex]) -> usize {
    item.iter()
        .map(|(name, value)| match indexes.iter().find(|v| v.attribute == name) {
            Some(v) => v.billed_bytes(),
            None => name.len() + crate::value::size::value_size(value),
        })
        .sum()
}

/// `n` and `unit`, in the plural unless `n` is 1: `1 element`, `3 elements`, `1 dimension`.
pub(crate) fn count(n: usize, unit: &str) -> String {
    if n == 1 { format!("1 {unit}") } else { format!("{n} {unit}s") }
}

/// The one message for a vector element DynamoDB cannot store, whichever write found it (a
/// put, an update's `SET`): `at` is its index, `shown` the value (`NaN`, `inf`) or what was
/// found instead of a number.
pub(crate) fn element_refused(at: usize, shown: &str) -> String {
    format!("element {at} is {shown}; a vector's elements are finite 32-bit numbers")
}

/// Checks a vector before it is written: DynamoDB refuses an item whose vector attribute
/// has another number of elements than its index's dimensions, and a vector is a list of
/// 32-bit floats, each finite. `elements` are the vector's elements, each a finite-or-not
/// `f32`, or the text of an element that is no `f32` at all; `key` describes the item's key.
///
/// # Errors
/// [`Error::Encode`](crate::Error::Encode) naming the entity, the field and the attribute,
/// whose [`ValueError::Invalid`](crate::value::ValueError::Invalid) names the item's key,
/// the index and the length, or the element's index and value ([`element_refused`]).
pub(crate) fn check_vector<I>(
    index: &VectorIndex,
    entity: &'static str,
    key: &dyn Fn() -> String,
    elements: I,
) -> Result<(), crate::Error>
where
    I: ExactSizeIterator<Item = Result<f32, String>>,
{
    let fail = |what: String| crate::Error::Encode {
        entity,
        field: index.field,
        attribute: index.attribute,
        source: crate::value::ValueError::Invalid(format!("item {}: {what}", key())),
    };
    if elements.len() != index.dimensions as usize {
        return Err(fail(format!(
            "a vector of {}, but vector index `{}` has {} (DynamoDB refuses the write)",
            count(elements.len(), "element"),
            index.name,
            count(index.dimensions as usize, "dimension")
        )));
    }
    for (at, element) in elements.enumerate() {
        match element {
            Ok(x) if x.is_finite() => {}
            Ok(x) => return Err(fail(element_refused(at, &x.to_string()))),
            Err(text) => return Err(fail(element_refused(at, &text))),
        }
    }
    Ok(())
}

/// [`check_vector`] of a vector attribute of entity `entity` as encoded (a list of numbers),
/// when `attribute` is the vector attribute of one of its indexes `vectors`; anything else
/// passes.
///
/// # Errors
/// As [`check_vector`]; a value that is not a list is a vector of 0 elements.
pub(crate) fn check_vector_attribute(
    vectors: &[VectorIndex],
    entity: &'static str,
    attribute: &str,
    value: &aws_sdk_dynamodb::types::AttributeValue,
    key: &dyn Fn() -> String,
) -> Result<(), crate::Error> {
    use aws_sdk_dynamodb::types::AttributeValue;
    let Some(index) = vectors.iter().find(|v| v.attribute == attribute) else { return Ok(()) };
    let list: &[AttributeValue] = match value {
        AttributeValue::L(list) => list,
        _ => &[],
    };
    let element = |v: &AttributeValue| match v {
        AttributeValue::N(text) => text.parse::<f32>().map_err(|_| text.clone()),
        other => Err(format!("a value of type {}", crate::value::type_name(other))),
    };
    check_vector(index, entity, key, list.iter().map(element))
}

/// The key type of a search schema attribute stored as `stored`, or `None` when it cannot be
/// one (a list, a map, a boolean, a set). For generated code.
#[doc(hidden)]
pub const fn search_key_type(stored: StoredType) -> Option<KeyType> {
    match stored {
        StoredType::S | StoredType::Unknown => Some(KeyType::S),
        StoredType::N => Some(KeyType::N),
        StoredType::B => Some(KeyType::B),
        StoredType::Other(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_sdk_dynamodb::types::AttributeValue;

    const INDEX: VectorIndex = VectorIndex {
        name: "Docs",
        field: "embedding",
        attribute: "emb",
        dimensions: 2,
        distance: Distance::Cosine,
        hash: None,
        filters: &[],
    };

    fn message(result: Result<(), crate::Error>) -> String {
        match result {
            Err(e @ crate::Error::Encode { entity: "Doc", field: "embedding", attribute: "emb", .. }) => e.to_string(),
            other => panic!("expected Error::Encode of Doc.embedding, got {other:?}"),
        }
    }

    #[test]
    fn counts_agree_in_number() {
        assert_eq!(count(0, "element"), "0 elements");
        assert_eq!(count(1, "element"), "1 element");
        assert_eq!(count(2, "dimension"), "2 dimensions");
    }

    #[test]
    fn a_vector_is_checked_with_one_message_per_mistake() {
        let key = || "PK=DOC#1 SK=META".to_owned();
        let check = |v: &[f32]| check_vector(&INDEX, "Doc", &key, v.iter().map(|x| Ok(*x)));
        assert!(check(&[0.5, -1.0]).is_ok());
        assert_eq!(
            message(check(&[1.0])),
            "cannot encode Doc.embedding (attribute `emb`): item PK=DOC#1 SK=META: a vector of 1 element, but vector \
             index `Docs` has 2 dimensions (DynamoDB refuses the write)"
        );
        assert_eq!(
            message(check(&[0.0, f32::NAN])),
            "cannot encode Doc.embedding (attribute `emb`): item PK=DOC#1 SK=META: element 1 is NaN; a vector's \
             elements are finite 32-bit numbers"
        );
        assert_eq!(
            message(check(&[f32::NEG_INFINITY, 0.0])),
            "cannot encode Doc.embedding (attribute `emb`): item PK=DOC#1 SK=META: element 0 is -inf; a vector's \
             elements are finite 32-bit numbers"
        );
        // As encoded: a list of numbers, one of which is no 32-bit float.
        let list = AttributeValue::L(vec![AttributeValue::N("1".into()), AttributeValue::S("x".into())]);
        assert_eq!(
            message(check_vector_attribute(&[INDEX], "Doc", "emb", &list, &key)),
            "cannot encode Doc.embedding (attribute `emb`): item PK=DOC#1 SK=META: element 1 is a value of type S; a \
             vector's elements are finite 32-bit numbers"
        );
        let one = AttributeValue::L(vec![AttributeValue::N("1".into())]);
        assert!(message(check_vector_attribute(&[INDEX], "Doc", "emb", &one, &key)).contains("a vector of 1 element,"));
        assert!(check_vector_attribute(&[INDEX], "Doc", "other", &one, &key).is_ok());
    }

    /// An update's `SET` finds a vector's elements through `Attribute` (`Vec<f32>` or
    /// `Option<Vec<f32>>`) to name the refused one.
    #[test]
    fn a_vector_fields_elements() {
        use crate::value::Attribute;
        assert_eq!(vec![1.0f32, 2.0].__f32_elements(), Some(&[1.0f32, 2.0][..]));
        assert_eq!(Some(vec![3.0f32]).__f32_elements(), Some(&[3.0f32][..]));
        assert_eq!(None::<Vec<f32>>.__f32_elements(), None);
        assert_eq!(vec![1.0f64].__f32_elements(), None);
        assert_eq!(1.0f32.__f32_elements(), None);
        assert_eq!("text".to_owned().__f32_elements(), None);
    }

    /// In an item, the vector is a list of numbers: 0.123456 is 4 bytes there (6 significant
    /// digits), 1 and 2.5 are 2; in a vector index, each is 4 bytes (an `f32`).
    #[test]
    fn an_index_entry_counts_the_vector_at_four_bytes_a_dimension() {
        let n = |t: &str| AttributeValue::N(t.to_owned());
        let item: Item = [("emb".to_owned(), AttributeValue::L(vec![n("0.123456"), n("2.5")]))].into_iter().collect();
        assert_eq!(crate::value::size::item_size(&item), 3 + 3 + (1 + 4) + (1 + 2));
        assert_eq!(billed_item_size(&item, &[INDEX]), 3 + 2 * 4);
    }
}

//! What a secondary index copies from the table's items ([`Projection`]), and one index of a
//! table declaration ([`GsiDecl`]).

use serde_json::{Value, json};

use crate::key::KeyType;
use crate::key::names::Index;

/// What a secondary index copies from the table's items besides their keys: DynamoDB's
/// `Projection`. Every query through the index returns only these attributes, so an entity
/// read through an index that does not project all of its non-optional fields fails to decode
/// ([`Error::Decode`](crate::Error::Decode)); [`Projection::All`] is the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Projection {
    /// `ALL`: every attribute (the index stores a full copy of each item).
    All,
    /// `KEYS_ONLY`: the table's and the index's key attributes.
    KeysOnly,
    /// `INCLUDE`: the keys and these attributes (attribute names, after `rename`). DynamoDB
    /// allows at most 100 such attributes over all the secondary indexes of a table.
    Include(&'static [&'static str]),
}

/// An index with this projection, as write estimates size its entries
/// ([`capacity::write`](crate::capacity::write)).
impl crate::capacity::IndexProjection for (Index, Projection) {
    fn index(&self) -> Index {
        self.0
    }
    fn projected(&self) -> Option<&'static [&'static str]> {
        match self.1 {
            Projection::All => None,
            p => Some(p.non_key_attributes()),
        }
    }
}

impl Projection {
    /// DynamoDB's `ProjectionType`: `ALL`, `KEYS_ONLY` or `INCLUDE`.
    pub fn projection_type(&self) -> &'static str {
        match self {
            Projection::All => "ALL",
            Projection::KeysOnly => "KEYS_ONLY",
            Projection::Include(_) => "INCLUDE",
        }
    }

    /// The `NonKeyAttributes` of an `INCLUDE` projection; empty for the others.
    pub fn non_key_attributes(&self) -> &'static [&'static str] {
        match self {
            Projection::Include(a) => a,
            _ => &[],
        }
    }

    /// The projection as CloudFormation and the DynamoDB API write it:
    /// `{"ProjectionType": "INCLUDE", "NonKeyAttributes": [...]}`.
    pub fn to_json(&self) -> Value {
        match self {
            Projection::Include(a) => json!({ "ProjectionType": "INCLUDE", "NonKeyAttributes": a }),
            other => json!({ "ProjectionType": other.projection_type() }),
        }
    }

    /// The projection for `CreateTable` through the SDK.
    pub fn to_sdk(&self) -> aws_sdk_dynamodb::types::Projection {
        use aws_sdk_dynamodb::types::ProjectionType;
        let b = aws_sdk_dynamodb::types::Projection::builder();
        match self {
            Projection::All => b.projection_type(ProjectionType::All).build(),
            Projection::KeysOnly => b.projection_type(ProjectionType::KeysOnly).build(),
            Projection::Include(a) => b
                .projection_type(ProjectionType::Include)
                .set_non_key_attributes(Some(a.iter().map(|s| (*s).to_owned()).collect()))
                .build(),
        }
    }
}

/// One secondary index of a table declaration (`#[derive(TableDef)]`): which index, its
/// projection, and the key types the declaration fixes (`None`: as the entities write it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsiDecl {
    /// [`Index::Gsi`], [`Index::Lsi`] or [`Index::Inverted`].
    pub index: Index,
    /// What the index copies from the items.
    pub projection: Projection,
    /// The declared type of the partition key attribute, if any.
    pub pk: Option<KeyType>,
    /// The declared type of the sort key attribute, if any.
    pub sk: Option<KeyType>,
}

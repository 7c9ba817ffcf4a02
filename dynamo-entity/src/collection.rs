//! Item collections: every item that shares one partition key, read in one query and decoded
//! by the entity type attribute.
//!
//! ```ignore
//! // PK = SKILL#<id>: the skill (SK = META) and its reviews (SK = REVIEW#…) in one query.
//! let page = table.collection(Skill::query(&id)).send().await?;
//! let skill: Skill = page.one()?.expect("listing");
//! let reviews: Vec<Review> = page.all()?;
//! ```

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::entity::{Entity, Index, Item, TYPE_ATTRIBUTE, describe_key};
use crate::error::Error;
use crate::query::QuerySpec;
use crate::table::Table;

/// A query of a whole partition of an index, every entity type included; from
/// [`Table::collection`].
#[must_use = "a query does nothing until it is sent"]
pub struct CollectionRequest {
    table: Table,
    index: Index,
    pk: Result<AttributeValue, Error>,
    consistent: bool,
}

impl CollectionRequest {
    pub(crate) fn new<E, S>(table: Table, spec: QuerySpec<E, S>) -> Self {
        let (index, pk) = spec.into_parts();
        CollectionRequest { table, index, pk, consistent: false }
    }

    /// Strongly consistent reads (primary index only).
    pub fn consistent_read(mut self) -> Self {
        self.consistent = true;
        self
    }

    /// Reads every page of the partition (one `Query` per 1 MB).
    ///
    /// # Errors
    /// The partition key's encoding error before sending; [`Error::Sdk`].
    pub async fn send(self) -> Result<Collection, Error> {
        let pk = self.pk?;
        let mut items = Vec::new();
        let mut start = None;
        loop {
            let resp = self
                .table
                .client()
                .query()
                .table_name(self.table.name())
                .set_index_name(self.index.name().map(str::to_owned))
                .key_condition_expression("#pk = :pk")
                .expression_attribute_names("#pk", self.index.pk_attribute())
                .expression_attribute_values(":pk", pk.clone())
                .set_exclusive_start_key(start)
                .consistent_read(self.consistent)
                .send()
                .await
                .map_err(|e| Error::sdk("Query", e))?;
            items.extend(resp.items.unwrap_or_default());
            match resp.last_evaluated_key {
                Some(k) => start = Some(k),
                None => return Ok(Collection { items }),
            }
        }
    }
}

/// The items of one partition, in sort-key order, not yet decoded.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Collection {
    items: Vec<Item>,
}

impl Collection {
    /// The raw items.
    pub fn items(&self) -> &[Item] {
        &self.items
    }

    /// How many items of each entity type (items without a type attribute count as `""`).
    pub fn type_counts(&self) -> HashMap<String, usize> {
        let mut counts = HashMap::new();
        for item in &self.items {
            let t = item.get(TYPE_ATTRIBUTE).and_then(|v| v.as_s().ok()).cloned().unwrap_or_default();
            *counts.entry(t).or_insert(0) += 1;
        }
        counts
    }

    /// Every item of entity type `E`, decoded, in sort-key order.
    ///
    /// # Errors
    /// [`Error::Decode`] for an item of type `E` that does not decode.
    pub fn all<E: Entity>(&self) -> Result<Vec<E>, Error> {
        self.items.iter().filter(|i| is_type(i, E::TYPE)).map(E::from_item).collect()
    }

    /// The one item of entity type `E`, `None` when there is none.
    ///
    /// # Errors
    /// [`Error::Invalid`] when there are several; [`Error::Decode`].
    pub fn one<E: Entity>(&self) -> Result<Option<E>, Error> {
        let mut found = self.items.iter().filter(|i| is_type(i, E::TYPE));
        let first = found.next();
        if let Some(second) = found.next() {
            return Err(Error::Invalid {
                reason: format!(
                    "expected one {} in the collection, found several (another is {})",
                    E::TYPE,
                    describe_key(second)
                ),
            });
        }
        first.map(E::from_item).transpose()
    }
}

fn is_type(item: &Item, entity: &str) -> bool {
    matches!(item.get(TYPE_ATTRIBUTE), Some(AttributeValue::S(t)) if t == entity)
}

//! The step of an index backfill ([`Table::backfill`]): each item's secondary index keys, as
//! its templates give them, written when they differ from the stored ones. See
//! [`migrate::backfill`](crate::migrate::backfill) for what it does and how the pass runs.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use crate::error::Error;
use crate::migrate::pass::Backfill;
use crate::migrate::pass::step::{Check, ItemDone, Step};
use crate::migrate::steps::conditional_update::{UpdatePlan, update_item};
use crate::schema::{Entity, Item};
use crate::table::Table;

/// The step of [`Table::backfill`]: writes the item's secondary index keys when they differ
/// from what its templates give.
struct Keys(KeyAttributes);

impl<E: Entity> Step<E> for Keys {
    fn item<'a>(&'a self, table: &'a Table, item: Item) -> futures::future::BoxFuture<'a, Result<ItemDone, Error>> {
        Box::pin(update_item::<E>(table, item, |item| plan_update::<E>(item, &self.0)))
    }

    fn check(&self, item: &Item) -> Check {
        UpdatePlan::check(plan_update::<E>(item, &self.0), item)
    }
}

impl<D> Table<D> {
    /// A backfill of the secondary index keys of every item of entity `E`, recorded under the
    /// migration id `id` (see [`backfill`](crate::migrate::backfill)).
    pub fn backfill<E: Entity>(&self, id: impl Into<String>) -> Backfill<E>
    where
        D: crate::schema::Admits<E>,
    {
        Backfill::new(&self.untyped(), id.into(), Arc::new(Keys(KeyAttributes::of::<E>())))
    }
}

/// The attributes a backfill of entity `E`'s secondary index keys writes and watches: the same
/// for every item, so computed once a segment rather than once an item.
pub(crate) struct KeyAttributes {
    /// Every key attribute of `E` but the table's partition and sort key: the attributes set
    /// or removed.
    managed: Vec<&'static str>,
    /// Those, the attribute of every field a secondary index template is built from but the
    /// primary key does not fix (the update is addressed to that key, see
    /// `EntitySchema::fixed_by_primary_key`), and the schema version attribute of a versioned
    /// entity: sorted, each once.
    watched: Vec<&'static str>,
}

impl KeyAttributes {
    /// The attributes of `E`'s keys.
    pub(crate) fn of<E: Entity>() -> KeyAttributes {
        let schema = E::SCHEMA;
        let names = E::NAMES;
        let managed: Vec<&'static str> =
            schema.key_attributes().map(|(a, _)| a).filter(|a| *a != names.pk && *a != names.sk).collect();
        let mut watched: BTreeSet<&'static str> = managed.iter().copied().collect();
        for index in schema.secondary_indexes() {
            for field in index.pk.fields().chain(index.sk.fields()) {
                if schema.fixed_by_primary_key(field) {
                    continue;
                }
                if let Some(f) = schema.fields.iter().find(|f| f.field == field) {
                    watched.insert(f.attribute);
                }
            }
        }
        // The schema version: an item replaced meanwhile by code of another version, with the
        // same raw values, decodes to other fields (a unit changed between versions).
        watched.extend(schema.schema_version.iter().map(|v| v.attribute));
        KeyAttributes { managed, watched: watched.into_iter().collect() }
    }
}

/// What `item` (of entity `E`, whose key `attributes` are given) needs: `None` when its
/// secondary index keys are already right.
///
/// # Errors
/// The item does not decode, or its keys do not encode.
fn plan_update<'a, E: Entity>(item: &Item, attributes: &'a KeyAttributes) -> Result<Option<UpdatePlan<'a>>, Error> {
    // A handful of keys: found by a linear search (the last value given for an attribute, as a
    // map collected from the list would hold), not through a map built for each item.
    let wanted = E::from_item(item)?.gsi_keys()?;
    let mut set = Vec::new();
    let mut remove = Vec::new();
    for attr in &attributes.managed {
        let want = wanted.iter().rev().find(|(a, _)| a == attr).map(|(_, v)| v);
        match (want, item.get(*attr)) {
            (Some(w), Some(have)) if w == have => {}
            (Some(w), _) => set.push((*attr, w.clone())),
            (None, Some(_)) => remove.push(*attr),
            (None, None) => {}
        }
    }
    if set.is_empty() && remove.is_empty() {
        return Ok(None);
    }
    Ok(Some(UpdatePlan { set, remove, watched: Cow::Borrowed(&attributes.watched), every_version: false }))
}

//! An update that changes a part of a secondary index key rebuilds the key from what the item
//! holds: see [the rules](crate::update#rebuilding-a-key-from-the-stored-item).

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::key::rebuild::{Known, PartText, parts_of};
use crate::schema::{Entity, Item};
use crate::table::Call;
use crate::update::{Action, UpdateRequest, push_all};

/// What an update read from the stored item to rebuild index keys.
#[derive(Debug)]
pub(super) struct Stored {
    /// The key-part texts of the fields the update needed and did not set.
    pub(super) parts: Vec<(&'static str, PartText)>,
    /// Each attribute read, with its value (`None`: absent): the update requires them unchanged.
    pub(super) read: Vec<(&'static str, Option<AttributeValue>)>,
}

impl<E: Entity> UpdateRequest<E> {
    /// The fields that the secondary index keys this update rewrites are built from and that it
    /// neither sets nor reads from the primary key.
    pub(super) fn missing_key_fields(&self) -> Vec<&'static str> {
        // A part that cannot be written is the update's error, before anything is read.
        if self.parts.iter().any(|(_, t)| t.is_err()) {
            return Vec::new();
        }
        let schema = E::schema();
        let primary = match &self.key {
            Ok(key) => crate::key::rebuild::primary_parts([(schema.primary.pk, &key.pk), (schema.primary.sk, &key.sk)]),
            Err(_) => return Vec::new(),
        };
        let mut known = Known(primary.iter().map(|(f, t)| (*f, t)).collect());
        known.0.extend(self.parts.iter().filter_map(|(f, t)| Some((*f, t.as_ref().ok()?))));
        let added = |f: &str| self.actions.iter().any(|(field, _, a)| *field == f && matches!(a, Action::Arith(..)));
        let mut missing: Vec<&'static str> = Vec::new();
        for gsi in schema.secondary_indexes() {
            for f in self.index_rewrite(schema, gsi, &known, &added).map(|r| r.missing).unwrap_or_default() {
                if !missing.contains(&f) {
                    missing.push(f);
                }
            }
        }
        missing
    }

    /// Reads from the stored item the key parts of `missing` (see the module documentation):
    /// the key attributes that hold them and their own attributes.
    ///
    /// # Errors
    /// [`Error::NotFound`] when there is no item; the read's [`Error::Sdk`].
    pub(super) async fn read_missing(&mut self, missing: &[&'static str]) -> Result<(), Error> {
        let schema = E::schema();
        let Ok(key) = &self.key else { return Ok(()) };
        let mut attributes: Vec<&'static str> = Vec::new();
        for (attribute, template) in schema.key_templates() {
            if template.fields().any(|f| missing.contains(&f)) && !attributes.contains(&attribute) {
                attributes.push(attribute);
            }
        }
        for field in schema.fields.iter().filter(|f| missing.contains(&f.field) && !schema.key_only(f.field)) {
            if !attributes.contains(&field.attribute) {
                attributes.push(field.attribute);
            }
        }
        let names = schema.names;
        let request = crate::table::body::get_item(
            self.table.client(),
            aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
                .table_name(self.table.name())
                .key(names.pk, key.pk.clone())
                .key(names.sk, key.sk.clone())
                .consistent_read(true)
                .return_consumed_capacity(ReturnConsumedCapacity::Total),
        );
        let answer = self
            .table
            .execute(Call::new("GetItem", E::TYPE), request)
            .await
            .map_err(|e| Error::sdk("GetItem", e).on_item(E::TYPE, names, key))?;
        let Some(item) = answer.item else {
            return Err(Error::NotFound { entity: E::TYPE, key: names.show_key(key) });
        };
        let merged = self.merged(&item);
        self.stored = Some(stored_parts::<E>(&item, merged.as_ref(), missing, attributes));
        Ok(())
    }

    /// The item as it will be after this update, as far as its key parts go: `item` with the
    /// values this update sets (and without the attributes it removes), decoded and encoded
    /// again, so that every key is written by the entity's own key writers. `None` when it does
    /// not decode.
    fn merged(&self, item: &Item) -> Option<Item> {
        let mut merged = item.clone();
        for (_, attribute, action) in &self.actions {
            match action {
                Action::Set(v) => {
                    merged.insert((*attribute).to_owned(), v.clone());
                }
                Action::Remove => {
                    merged.remove(*attribute);
                }
                _ => {}
            }
        }
        E::from_item(&merged).ok()?.to_item().ok()
    }

    /// The condition that the attributes read are unchanged, ANDed to the library's guards.
    pub(super) fn push_stored_guards(&self, ph: &mut Placeholders, guards: &mut String) {
        for (attribute, value) in self.stored.iter().flat_map(|s| &s.read) {
            let n = ph.name(attribute);
            match value {
                Some(v) => {
                    let v = ph.value(v.clone());
                    push_all(guards, &[" AND (", &n, " = ", &v, ")"]);
                }
                None => push_all(guards, &[" AND (attribute_not_exists(", &n, "))"]),
            }
        }
    }
}

/// How many times an update reads the stored item before it is [`Error::Contended`].
pub(super) const READS: u32 = 3;

/// Whether `old` (the item a failed condition returned) differs from what was `read`.
pub(super) fn changed_since(read: &[(&'static str, Option<AttributeValue>)], old: Option<&Item>) -> bool {
    let Some(old) = old else { return false };
    read.iter().any(|(attribute, value)| old.get(*attribute) != value.as_ref())
}

/// The parts of `missing` in the stored `item` (the attributes `read` of it): from each key
/// attribute that holds them, else from the keys of the item as the update leaves it
/// (`merged`: a part whose key the stored item lacks, its index being sparse); else absent: the
/// item as the update leaves it has no key holding it, or, when that item does not decode, the
/// field's attribute is absent and the field an `Option`. Otherwise it stays missing (the
/// update is refused, naming it).
fn stored_parts<E: Entity>(
    item: &Item,
    merged: Option<&Item>,
    missing: &[&'static str],
    read: Vec<&'static str>,
) -> Stored {
    let schema = E::schema();
    let keys_of = |item: &Item| -> Vec<(&'static str, PartText)> {
        let keys = schema.key_templates().filter_map(|(attribute, template)| Some((template, item.get(attribute)?)));
        parts_of(keys).into_iter().filter(|(f, _)| missing.contains(f)).collect()
    };
    let mut parts = keys_of(item);
    for (field, text) in merged.map(keys_of).unwrap_or_default() {
        if !parts.iter().any(|(f, _)| *f == field) {
            parts.push((field, text));
        }
    }
    for field in missing {
        if parts.iter().any(|(f, _)| f == field) {
            continue;
        }
        // The item as the update leaves it writes no key that holds the field: each index
        // built from it is absent then (another of its parts is `None`), and is removed.
        let attribute = schema.fields.iter().find(|f| f.field == *field).map(|f| f.attribute);
        let absent = attribute.is_none_or(|a| matches!(item.get(a), None | Some(AttributeValue::Null(true))));
        if merged.is_some() || (absent && schema.is_optional(field)) {
            parts.push((field, PartText { present: false, composite: None, number: None }));
        }
    }
    let read = read.into_iter().map(|a| (a, item.get(a).cloned())).collect();
    Stored { parts, read }
}

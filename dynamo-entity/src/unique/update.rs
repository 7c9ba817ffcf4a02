//! Updates of unique fields ([`UpdateRequest::set_unique`], [`UniqueUpdate`]): one transaction
//! of the update and the guard moves of the values it sets.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::Error;
use crate::expr::{Condition, Field, Mutable, Placeholders};
use crate::schema::{Entity, EntitySchema, FieldSchema, Item, PrimaryKey};
use crate::table::{Next, Table};
use crate::transact::{Action, RequestToken, send_once};
use crate::unique::Unique;
use crate::unique::plan::{Plan, entity_failed, unchanged};
use crate::unique::write::{guarded, read};
use crate::update::{PreparedUpdate, UpdateRequest};
use crate::value::Attribute;
use crate::versioning::{self};

// ---------------------------------------------------------------------------------------------
// Updates of unique fields

impl<E: Entity> UpdateRequest<E> {
    /// Sets a unique field, moving its guard item: the update becomes one transaction that
    /// also releases the guard of the stored value and claims the guard of the new one (see the
    /// [`unique`](crate::unique) module). `None` (for an `Option` field) releases the guard and
    /// claims nothing.
    ///
    /// The result is a [`UniqueUpdate`], which takes further `set`, `add`, `subtract`,
    /// `set_unique` and `condition` calls, and any other [`UpdateRequest`] method through
    /// [`UniqueUpdate::with`].
    pub fn set_unique<T: Attribute>(self, field: Field<E, T, Unique>, value: &T) -> UniqueUpdate<E> {
        UniqueUpdate { update: self, changes: Vec::new(), error: None }.set_unique(field, value)
    }
}

/// An update that changes one or more unique fields; from [`UpdateRequest::set_unique`].
///
/// [`send`](Self::send) reads the stored item (strongly consistent), then sends one
/// transaction: the update, conditional on the stored unique values being still the ones read
/// (and on the update's own condition); the release of each old guard; the claim of each new
/// guard. A value that does not change keeps its guard. If the item changed between the read
/// and the transaction, both are repeated (up to 10 attempts in all).
#[must_use = "an update does nothing until it is sent"]
pub struct UniqueUpdate<E> {
    update: UpdateRequest<E>,
    /// (field, attribute, new value), the last per field.
    changes: Vec<(&'static str, &'static str, Option<AttributeValue>)>,
    error: Option<Error>,
}

impl<E: Entity> UniqueUpdate<E> {
    /// Sets another unique field (or the same one again: the last value counts).
    pub fn set_unique<T: Attribute>(mut self, field: Field<E, T, Unique>, value: &T) -> Self {
        match value.to_attribute() {
            Ok(v) => {
                self.changes.retain(|(f, ..)| *f != field.name);
                self.changes.push((field.name, field.attribute, v));
            }
            Err(source) => {
                self.error.get_or_insert(Error::Encode {
                    entity: E::TYPE,
                    field: field.name,
                    attribute: field.attribute,
                    source,
                });
            }
        }
        let as_mutable: Field<E, T, Mutable> = Field::new(field.name, field.attribute, field.part);
        self.update = self.update.set(as_mutable, value);
        self
    }

    /// [`UpdateRequest::set`] in the same update.
    pub fn set<T: Attribute, M: crate::expr::NotUnique + crate::expr::NotKey + crate::expr::NotMaintained>(
        self,
        field: Field<E, T, M>,
        value: &T,
    ) -> Self {
        self.with(|u| u.set(field, value))
    }

    /// [`UpdateRequest::add`] in the same update.
    pub fn add<
        T: crate::value::Number,
        M: crate::expr::NotUnique + crate::expr::NotKey + crate::expr::NotMaintained,
    >(
        self,
        field: Field<E, T, M>,
        amount: &T,
    ) -> Self {
        self.with(|u| u.add(field, amount))
    }

    /// [`UpdateRequest::subtract`] in the same update.
    pub fn subtract<
        T: crate::value::Number,
        M: crate::expr::NotUnique + crate::expr::NotKey + crate::expr::NotMaintained,
    >(
        self,
        field: Field<E, T, M>,
        amount: &T,
    ) -> Self {
        self.with(|u| u.subtract(field, amount))
    }

    /// [`UpdateRequest::condition`]: only update when `condition` holds; otherwise
    /// [`Error::ConditionFailed`].
    pub fn condition(self, condition: Condition) -> Self {
        self.with(|u| u.condition(condition))
    }

    /// [`UpdateRequest::if_version`]: only update at this stored version (versioned entities).
    pub fn if_version(self, version: u64) -> Self {
        self.with(|u| u.if_version(version))
    }

    /// [`UpdateRequest::any_version`]: update a versioned entity whatever its version.
    pub fn any_version(self) -> Self {
        self.with(UpdateRequest::any_version)
    }

    /// Applies any [`UpdateRequest`] method to the update (`.with(|u| u.remove(Skill::NOTE))`).
    pub fn with(mut self, f: impl FnOnce(UpdateRequest<E>) -> UpdateRequest<E>) -> Self {
        self.update = f(self.update);
        self
    }

    /// Sends the read and the transaction. Returns nothing: a transaction does not return
    /// items; read the item with [`Table::get_consistent`] if needed.
    ///
    /// # Errors
    /// Errors of the update before sending (as [`UpdateRequest::send`]);
    /// [`Error::UniqueViolation`] when a new value belongs to another item;
    /// [`Error::NotFound`] when there is no item with this key; [`Error::ConditionFailed`] when
    /// the update's condition does not hold; [`Error::VersionConflict`] when the stored version
    /// is not the one given to [`UpdateRequest::if_version`]; [`Error::TransactionCanceled`]
    /// when the item kept changing or conflicting over 10 attempts; [`Error::OutcomeUnknown`]
    /// when every attempt of a transaction lost its answer (it may have been applied:
    /// [`Table::resolve`](crate::Table::resolve) tells); [`Error::Sdk`].
    pub async fn send(self) -> Result<(), Error> {
        let UniqueParts { prepared, table, key, fields, new } = self.parts()?;
        let schema = E::schema();
        let (prepared, table, key, fields, new) = (&prepared, &table, &key, &fields, &new);
        guarded::<E>()
            .run(&mut HashSet::new(), |foreign, attempt| {
                Box::pin(async move {
                    let Some(old) = read(table, E::TYPE, E::NAMES, key).await? else {
                        return Err(Error::NotFound { entity: E::TYPE, key: prepared.key_text() });
                    };
                    let mut plan =
                        update_plan(schema, table, key, prepared, fields, &old, new, std::mem::take(foreign))?;
                    let reasons = match send_once(table, &plan.actions, &RequestToken::new(), attempt.call()).await {
                        Ok(_) => return Ok(Next::Done(())),
                        Err(Error::TransactionCanceled { reasons }) => reasons,
                        Err(e) => return Err(e),
                    };
                    // The update failed its condition: the item is gone (NotFound), its unique values
                    // changed since the read (retry), or the update's own condition does not hold.
                    let mut stale = false;
                    if let (None, Some(r)) = (plan.violation(&reasons), entity_failed(&reasons)) {
                        let Some(now) = &r.item else {
                            return Err(Error::NotFound { entity: E::TYPE, key: prepared.key_text() });
                        };
                        // A version that changed is a lost race, whatever else changed.
                        if let Some((version, expected)) = &prepared.version {
                            if versioning::mismatch(version, *expected, Some(now)).is_some() {
                                return Err(prepared.failure(Some(now.clone())));
                            }
                        }
                        stale = fields.iter().any(|f| now.get(f.attribute) != old.get(f.attribute));
                        if !stale {
                            return Err(prepared.failure(Some(now.clone())));
                        }
                    }
                    let next = plan.after_cancel(reasons, stale);
                    *foreign = std::mem::take(&mut plan.foreign);
                    next
                })
            })
            .await?
    }
}

/// What a [`UniqueUpdate`] sends, before it reads the item.
pub(super) struct UniqueParts {
    prepared: PreparedUpdate,
    table: Table,
    key: PrimaryKey,
    fields: Vec<&'static FieldSchema>,
    /// The new unique values, by attribute.
    new: Item,
}

impl<E: Entity> UniqueUpdate<E> {
    fn parts(self) -> Result<UniqueParts, Error> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let schema = E::schema();
        let (prepared, table) = self.update.prepare()?;
        let key_part = |name: &str| {
            prepared
                .key
                .get(name)
                .cloned()
                .ok_or_else(|| Error::Invalid { reason: format!("the update has no {name}") })
        };
        let key = PrimaryKey { pk: key_part(E::NAMES.pk)?, sk: key_part(E::NAMES.sk)? };
        let fields: Vec<&FieldSchema> = self
            .changes
            .iter()
            .map(|(name, attribute, _)| {
                schema.fields.iter().find(|f| f.field == *name).ok_or_else(|| Error::Invalid {
                    reason: format!("{}.{name} (attribute {attribute}) is not in the entity's schema", E::TYPE),
                })
            })
            .collect::<Result<_, _>>()?;
        let new: Item =
            self.changes.iter().filter_map(|(_, attribute, v)| Some(((*attribute).to_owned(), v.clone()?))).collect();
        Ok(UniqueParts { prepared, table, key, fields, new })
    }

    /// The requests [`send`](Self::send) sends when its read finds `stored`, built by the same
    /// code, without sending them: the strongly consistent `GetItem`, then the
    /// `TransactWriteItems` of the update (conditional on the unique values of `stored`), the
    /// release of each guard of a value of `stored` that changes and the claim of each new one.
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending; [`Error::Key`] / [`Error::Encode`] for `stored`.
    pub fn render(self, stored: &E) -> Result<Vec<crate::table::render::Request>, Error> {
        use crate::table::render::{Request, built};
        let UniqueParts { prepared, table, key, fields, new } = self.parts()?;
        let old = stored.to_item()?;
        let plan = update_plan(E::schema(), &table, &key, &prepared, &fields, &old, &new, HashSet::new())?;
        let read = built(table.get_request(E::NAMES, &key, true).build())?;
        let write = crate::transact::write_request(&plan.actions, None)?;
        Ok(vec![Request::GetItem(read), Request::TransactWriteItems(built(write.build())?)])
    }
}

/// The transaction of a [`UniqueUpdate`] after reading `old`: the update, conditional on the
/// unique values read, then the guard moves.
#[allow(clippy::too_many_arguments)]
pub(super) fn update_plan<'a>(
    schema: &'static EntitySchema,
    table: &'a Table,
    key: &'a PrimaryKey,
    prepared: &PreparedUpdate,
    fields: &[&'static FieldSchema],
    old: &Item,
    new: &Item,
    foreign: HashSet<String>,
) -> Result<Plan<'a>, Error> {
    // The update's own condition AND the unique values are still the ones read.
    let mut update = prepared.clone();
    let mut ph = Placeholders::default();
    let still = unchanged(schema.names, fields.iter().copied(), old, &mut ph);
    and_condition(&mut update, still, ph);
    let mut plan = Plan::new(schema, table.name(), key, foreign);
    plan.actions.push(Action::update(table.name(), update)?);
    plan.move_guards(fields.iter().copied(), Some(old), new, false)?;
    Ok(plan)
}

/// Adds `condition` (with its placeholders `ph`) to the update's condition with AND. The
/// placeholders are renamed `#unique…` / `:unique…` so that they cannot clash with the update's.
pub(super) fn and_condition(update: &mut PreparedUpdate, condition: String, mut ph: Placeholders) {
    let mut condition = condition;
    let mut names = update.names.take().unwrap_or_default();
    let mut values = update.values.take().unwrap_or_default();
    for (placeholder, attribute) in ph.take_names().unwrap_or_default() {
        let renamed = format!("#unique{}", &placeholder[1..]);
        condition = replace_placeholder(&condition, &placeholder, &renamed);
        names.insert(renamed, attribute);
    }
    for (placeholder, value) in ph.take_values().unwrap_or_default() {
        let renamed = format!(":unique{}", &placeholder[1..]);
        condition = replace_placeholder(&condition, &placeholder, &renamed);
        values.insert(renamed, value);
    }
    update.condition = format!("({}) AND ({condition})", update.condition);
    update.names = (!names.is_empty()).then_some(names);
    update.values = (!values.is_empty()).then_some(values);
}

/// Replaces whole occurrences of the placeholder `from` (`#n0`, `:v1`) in an expression: not
/// inside a longer placeholder (`#n10`).
pub(super) fn replace_placeholder(expression: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(expression.len() + 8);
    let mut rest = expression;
    while let Some(i) = rest.find(from) {
        let end = i + from.len();
        let continues = rest[end..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_');
        out.push_str(&rest[..i]);
        out.push_str(if continues { from } else { to });
        rest = &rest[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_renamed_whole() {
        assert_eq!(replace_placeholder("#n1 = :v1 AND #n10 = :v10", "#n1", "#u1"), "#u1 = :v1 AND #n10 = :v10");
    }
}

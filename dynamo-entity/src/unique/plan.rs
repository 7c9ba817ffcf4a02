//! The plan of a guarded write: which guards a write of an item claims, moves or releases,
//! the transaction that does it, and what a cancelled transaction means.

use std::collections::{HashMap, HashSet};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::schema::evolve;
use crate::schema::{AttributeNames, Entity, EntitySchema, FieldSchema, Item, PrimaryKey};
use crate::table::Next;
use crate::transact::{Action, ActionKind, CancellationCode, CancellationReason, Cond, only_transient};
use crate::unique::guard::{claim, guard, not_owned, release};
use crate::unique::{OWNER_PK, OWNER_SK};
use crate::versioning::{self, Stamped};

/// The actions of one guarded write of the item `owner` of `schema`'s entity, and which action
/// claims which value.
pub(super) struct Plan<'a> {
    pub(super) schema: &'static EntitySchema,
    pub(super) table: &'a str,
    pub(super) owner: &'a PrimaryKey,
    /// Keys (`PK=… SK=…`) of guards of old values that belong to another item (values held by
    /// several items before the field became unique): checked to stay so, not released.
    pub(super) foreign: HashSet<String>,
    pub(super) actions: Vec<Action>,
    /// Action index -> (field, value text) of each claim.
    pub(super) claims: HashMap<usize, (&'static str, String)>,
}

impl<'a> Plan<'a> {
    pub(super) fn new(
        schema: &'static EntitySchema,
        table: &'a str,
        owner: &'a PrimaryKey,
        foreign: HashSet<String>,
    ) -> Self {
        Plan { schema, table, owner, foreign, actions: Vec::new(), claims: HashMap::new() }
    }

    /// Releases the guards of `old` values that change and claims the `new` ones, for the
    /// `fields` given. With `reclaim`, an unchanged value's guard is claimed again too (a no-op
    /// for a guard the item owns; it writes a missing one).
    pub(super) fn move_guards<'f>(
        &mut self,
        fields: impl IntoIterator<Item = &'f FieldSchema>,
        old: Option<&Item>,
        new: &Item,
        reclaim: bool,
    ) -> Result<(), Error> {
        let (schema, table, owner) = (self.schema, self.table, self.owner);
        for f in fields {
            let before = guard(schema, f, old.and_then(|i| i.get(f.attribute)))?;
            let after = guard(schema, f, new.get(f.attribute))?;
            let unchanged = before.as_ref().map(|g| &g.key) == after.as_ref().map(|g| &g.key);
            if unchanged && !reclaim {
                continue;
            }
            if let Some(g) = before.filter(|_| !unchanged) {
                self.actions.push(if self.foreign.contains(&schema.names.show_key(&g.key)) {
                    Action::condition_check(schema.name, schema.names, table, &g.key, not_owned(schema.names, owner))?
                } else {
                    release(schema, table, owner, &g)?
                });
            }
            if let Some(g) = after {
                self.claims.insert(self.actions.len(), (g.field, g.text.clone()));
                self.actions.push(claim(schema, table, owner, &g)?);
            }
        }
        Ok(())
    }

    /// The first claim that failed its condition, as [`Error::UniqueViolation`].
    pub(super) fn violation(&self, reasons: &[CancellationReason]) -> Option<Error> {
        reasons.iter().find_map(|r| {
            let (field, value) = self.claims.get(&r.index)?;
            (r.code == CancellationCode::ConditionalCheckFailed).then(|| Error::UniqueViolation {
                entity: self.schema.name,
                field,
                value: value.clone(),
            })
        })
    }

    /// What to do after the transaction was canceled. A claimed value that is taken fails the
    /// write. A release of a guard that belongs to another item, or a check that such a guard
    /// is not this item's that failed, updates `foreign` and retries. A conflict or throttling
    /// is retried, and so is a failed condition of the entity action when `stale` says that it
    /// only checks the values read (the item changed since). Otherwise, or when the attempts are
    /// used up ([`guarded`]), the cancellation is the error.
    pub(super) fn after_cancel<T>(
        &mut self,
        reasons: Vec<CancellationReason>,
        stale: bool,
    ) -> Result<Next<T, Error>, Error> {
        if let Some(e) = self.violation(&reasons) {
            return Err(e);
        }
        let mut learned = false;
        for r in reasons.iter().filter(|r| r.code == CancellationCode::ConditionalCheckFailed) {
            let mine = r
                .item
                .as_ref()
                .is_some_and(|g| g.get(OWNER_PK) == Some(&self.owner.pk) && g.get(OWNER_SK) == Some(&self.owner.sk));
            match r.action {
                ActionKind::ReleaseUnique { .. } if r.item.is_some() && !mine => {
                    learned |= self.foreign.insert(r.key.clone())
                }
                ActionKind::ConditionCheck if mine => learned |= self.foreign.remove(&r.key),
                _ => {}
            }
        }
        let retry = learned || only_transient(&reasons) || stale && entity_failed(&reasons).is_some();
        let canceled = Error::TransactionCanceled { reasons };
        if retry { Ok(Next::Retry(canceled)) } else { Err(canceled) }
    }
}

/// Whether the entity action (index 0) failed its condition.
pub(super) fn entity_failed(reasons: &[CancellationReason]) -> Option<&CancellationReason> {
    reasons.iter().find(|r| r.index == 0 && r.code == CancellationCode::ConditionalCheckFailed)
}

/// The name of a whole-item write of an entity with unique fields, in
/// [`Error::UpgradeRequired`]: `"replace"` when it requires the item, `"put"` otherwise.
pub(super) fn whole_write(must_exist: bool) -> &'static str {
    if must_exist { "replace" } else { "put" }
}

/// The claim actions of a new item (for `TransactWrite::create`).
pub(crate) fn claims<E: Entity>(table: &str, owner: &PrimaryKey, item: &Item) -> Result<Vec<Action>, Error> {
    let schema = E::schema();
    if !schema.has_unique() {
        return Ok(Vec::new());
    }
    let mut plan = Plan::new(schema, table, owner, HashSet::new());
    plan.move_guards(schema.unique_fields(), None, item, false)?;
    Ok(plan.actions)
}

/// `attribute_exists(PK)` and, for each of `fields`, the value in `old` (or its absence): the
/// item still holds the unique values that were read.
pub(super) fn unchanged<'f>(
    names: &AttributeNames,
    fields: impl IntoIterator<Item = &'f FieldSchema>,
    old: &Item,
    ph: &mut Placeholders,
) -> String {
    let pk = ph.name(names.pk);
    let mut parts = vec![format!("attribute_exists({pk})")];
    for f in fields {
        let n = ph.name(f.attribute);
        parts.push(match old.get(f.attribute) {
            Some(v) => format!("{n} = {}", ph.value(v.clone())),
            None => format!("attribute_not_exists({n})"),
        });
    }
    parts.join(" AND ")
}

/// The transaction of [`create`]: the entity, if absent, and a claim per present value.
pub(super) fn create_plan<'a, E: Entity>(table: &'a str, w: &'a Stamped) -> Result<Plan<'a>, Error> {
    let schema = E::schema();
    let (key, item) = (&w.key, &w.item);
    let mut plan = Plan::new(schema, table, key, HashSet::new());
    let cond = Some(Cond::absent(E::NAMES));
    plan.actions.push(Action::put(ActionKind::Create, E::TYPE, E::NAMES, table, key, item.clone(), cond)?);
    plan.move_guards(schema.unique_fields(), None, item, false)?;
    Ok(plan)
}

/// The transaction of [`put`] after reading `old`: the entity, conditional on the unique values
/// read (and the version), the release of the guards of values that change and a claim per
/// value written.
pub(super) fn put_plan<'a, E: Entity>(
    table: &'a str,
    w: &'a Stamped,
    old: Option<&Item>,
    must_exist: bool,
    foreign: HashSet<String>,
) -> Result<Plan<'a>, Error> {
    let schema = E::schema();
    let (key, item) = (&w.key, &w.item);
    let mut ph = Placeholders::default();
    if let Some(found) = old.and_then(|o| crate::owner::other_entity(E::NAMES, o, E::TYPE)) {
        return Err(Error::WrongEntity { expected: E::TYPE, found, key: E::NAMES.show_key(key) });
    }
    let (kind, mut expression) = match old {
        Some(old) => {
            // Never an item a newer program stored at a newer schema version.
            if let Some(e) = evolve::newer_stored(schema, key, whole_write(must_exist), old) {
                return Err(e);
            }
            let mut expression = unchanged(E::NAMES, schema.unique_fields(), old, &mut ph);
            expression.push_str(" AND ");
            crate::owner::push_guard(crate::owner::Guard::Is, &mut ph, E::NAMES, E::TYPE, &mut expression);
            evolve::push_not_newer(schema, &mut ph, &mut expression);
            (ActionKind::Replace, expression)
        }
        None if must_exist => return Err(Error::NotFound { entity: E::TYPE, key: E::NAMES.show_key(key) }),
        None => (ActionKind::Create, format!("attribute_not_exists({})", ph.name(E::NAMES.pk))),
    };
    if let (Some(version), Some(expected)) = (&schema.version, w.expected) {
        if let Some(e) = versioning::conflict(schema, key, expected, old) {
            return Err(e);
        }
        expression = format!("{expression} AND {}", versioning::version_condition(version, expected, &mut ph));
    }
    let mut plan = Plan::new(schema, table, key, foreign);
    let cond = Cond { expression, placeholders: ph };
    plan.actions.push(Action::put(kind, E::TYPE, E::NAMES, table, key, item.clone(), Some(cond))?);
    plan.move_guards(schema.unique_fields(), old, item, true)?;
    Ok(plan)
}

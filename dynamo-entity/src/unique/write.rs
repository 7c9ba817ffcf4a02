//! The write paths of entities with unique fields: create, put, replace and delete, each one
//! transaction of the item and its guards, retried while the item changes under it.

use std::collections::HashSet;

use aws_sdk_dynamodb::types::AttributeValue;

use crate::error::{Error, Returned};
use crate::expr::Placeholders;
use crate::retry::RetryPolicy;
use crate::schema::evolve;
use crate::schema::{AttributeNames, Entity, Item, PrimaryKey};
use crate::table::{Call, Next, Retrying, Table};
use crate::transact::{Action, ActionKind, Cond, RequestToken, send_once};
use crate::unique::plan::{Plan, create_plan, entity_failed, put_plan, unchanged, whole_write};
use crate::versioning::{self, Stamped};

/// Attempts at a guarded write: retries after a concurrent change of the item (the condition
/// on the values read fails) and after conflicts or throttling.
pub(super) const ATTEMPTS: u32 = 10;

/// The attempts of a guarded write of `E`: at most [`ATTEMPTS`], with
/// [`RetryPolicy::CONFLICTS`]'s backoff between them. Its transaction's span names `E` (its
/// guard actions are `E`'s too).
pub(super) fn guarded<E: Entity>() -> Retrying {
    Retrying::new(Call::new("TransactWriteItems", E::TYPE), RetryPolicy::CONFLICTS.max_attempts(ATTEMPTS))
}

/// A strongly consistent read of the whole item.
pub(super) async fn read(
    table: &Table,
    entity: &'static str,
    names: &AttributeNames,
    key: &PrimaryKey,
) -> Result<Option<Item>, Error> {
    let request = crate::table::body::get_item(table.client(), table.get_request(names, key, true));
    let resp = table.execute(Call::new("GetItem", entity), request).await.map_err(|e| Error::sdk("GetItem", e))?;
    Ok(resp.item.filter(|i| !i.is_empty()))
}

/// [`Table::create`] of an entity with unique fields: `w` is the item, stamped for a create.
pub(crate) async fn create<E: Entity>(table: &Table, w: &Stamped) -> Result<(), Error> {
    let key = &w.key;
    let mut plan = create_plan::<E>(table.name(), w)?;
    guarded::<E>()
        .run(&mut plan, |plan, attempt| {
            Box::pin(async move {
                let reasons = match send_once(table, &plan.actions, &RequestToken::new(), attempt.call()).await {
                    Ok(_) => return Ok(Next::Done(())),
                    Err(Error::TransactionCanceled { reasons }) => reasons,
                    Err(e) => return Err(e),
                };
                if entity_failed(&reasons).is_some() {
                    return Err(Error::AlreadyExists { entity: E::TYPE, key: E::NAMES.show_key(key) });
                }
                plan.after_cancel(reasons, false)
            })
        })
        .await?
}

/// The requests of [`Table::create`] (`create`), [`Table::put`] or [`Table::replace`] of an
/// entity with unique fields, rendered without sending: the strongly consistent read of the
/// stored item (not for a create), then the transaction as it is sent when the read finds the
/// value's own unique values stored at the version the value was read with (for a put of a
/// value never stored, version 0 or no version: no item).
pub(crate) fn render_write<E: Entity>(
    table: &Table,
    w: &Stamped,
    create: bool,
    must_exist: bool,
) -> Result<Vec<crate::table::render::Request>, Error> {
    use crate::table::render::{Request, built};
    let mut out = Vec::with_capacity(2);
    let plan = if create {
        create_plan::<E>(table.name(), w)?
    } else {
        out.push(Request::GetItem(built(table.get_request(E::NAMES, &w.key, true).build())?));
        let mut stored = w.item.clone();
        if let Some(version) = &E::schema().version {
            match w.expected.unwrap_or_default() {
                0 => stored.remove(version.attribute),
                v => stored.insert(version.attribute.to_owned(), AttributeValue::N(v.to_string())),
            };
        }
        let exists = must_exist || w.expected.is_some_and(|v| v > 0);
        put_plan::<E>(table.name(), w, exists.then_some(&stored), must_exist, HashSet::new())?
    };
    let request = crate::transact::write_request(&plan.actions, None)?;
    out.push(Request::TransactWriteItems(built(request.build())?));
    Ok(out)
}

/// [`Table::put`] (`must_exist == false`) and [`Table::replace`] of an entity with unique
/// fields: `w` is the item, stamped for a put. Returns the item that was replaced.
///
/// For a versioned entity, the version read must be the one the value expects (otherwise
/// [`Error::VersionConflict`] without sending), and the entity action is conditional on it too.
pub(crate) async fn put<E: Entity>(table: &Table, w: &Stamped, must_exist: bool) -> Result<Option<Item>, Error> {
    let schema = E::schema();
    let key = &w.key;
    guarded::<E>()
        .run(&mut HashSet::new(), |foreign, attempt| {
            Box::pin(async move {
                let old = read(table, E::TYPE, E::NAMES, key).await?;
                let mut plan = put_plan::<E>(table.name(), w, old.as_ref(), must_exist, std::mem::take(foreign))?;
                let reasons = match send_once(table, &plan.actions, &RequestToken::new(), attempt.call()).await {
                    Ok(_) => return Ok(Next::Done(old)),
                    Err(Error::TransactionCanceled { reasons }) => reasons,
                    Err(e) => return Err(e),
                };
                // A failed condition of the entity means that it changed since it was read: a newer
                // schema version or a new version is a lost race, anything else is read again.
                let newer = entity_failed(&reasons)
                    .and_then(|r| r.item.as_ref())
                    .and_then(|item| evolve::newer_stored(schema, key, whole_write(must_exist), item));
                if let Some(e) = newer {
                    return Err(e);
                }
                if let (Some(expected), Some(r)) = (w.expected, entity_failed(&reasons)) {
                    if let Some(e) = versioning::conflict(schema, key, expected, r.item.as_ref()) {
                        return Err(e);
                    }
                }
                let next = plan.after_cancel(reasons, true);
                *foreign = std::mem::take(&mut plan.foreign);
                next
            })
        })
        .await?
}

/// [`Table::delete`] of an entity with unique fields: the item and its guards.
/// With `expected`, only at that stored version (see [`Table::delete_if_version`]).
pub(crate) async fn delete<E: Entity>(
    table: &Table,
    key: PrimaryKey,
    expected: Option<u64>,
) -> Result<Returned<Option<E>>, Error> {
    let schema = E::schema();
    let key = &key;
    guarded::<E>()
        .run(&mut HashSet::new(), |foreign, attempt| {
            Box::pin(async move {
                let Some(old) = read(table, E::TYPE, E::NAMES, key).await? else {
                    return Ok(Next::Done(Returned::Decoded(None)));
                };
                let mut ph = Placeholders::default();
                let mut expression = unchanged(E::NAMES, schema.unique_fields(), &old, &mut ph);
                if let (Some(version), Some(expected)) = (&schema.version, expected) {
                    if let Some(e) = versioning::conflict(schema, key, expected, Some(&old)) {
                        return Err(e);
                    }
                    expression =
                        format!("{expression} AND {}", versioning::version_condition(version, expected, &mut ph));
                }
                let mut plan = Plan::new(schema, table.name(), key, std::mem::take(foreign));
                let cond = Cond { expression, placeholders: ph };
                plan.actions.push(Action::delete(
                    ActionKind::Delete,
                    E::TYPE,
                    E::NAMES,
                    table.name(),
                    key,
                    Some(cond),
                )?);
                plan.move_guards(schema.unique_fields(), Some(&old), &Item::new(), false)?;
                let reasons = match send_once(table, &plan.actions, &RequestToken::new(), attempt.call()).await {
                    Ok(_) => return Ok(Next::Done(crate::schema::entity::returned::<E>(old).map(Some))),
                    Err(Error::TransactionCanceled { reasons }) => reasons,
                    Err(e) => return Err(e),
                };
                if let (Some(expected), Some(r)) = (expected, entity_failed(&reasons)) {
                    if let Some(e) = versioning::conflict(schema, key, expected, r.item.as_ref()) {
                        return Err(e);
                    }
                }
                let next = plan.after_cancel(reasons, true);
                *foreign = std::mem::take(&mut plan.foreign);
                next
            })
        })
        .await?
}

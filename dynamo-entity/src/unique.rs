//! Unique fields, enforced by guard items.
//!
//! DynamoDB enforces uniqueness of the primary key only. A field marked `#[entity(unique)]`
//! (such as a user's e-mail address) gets the same guarantee through a *guard item* per value,
//! keyed on the value, written and deleted in the same transaction as the entity:
//!
//! ```no_run
//! use dynamo_entity::{Entity, Error, Table};
//!
//! #[derive(Entity, Debug, Clone, PartialEq)]
//! #[entity(pk = "USER#<id>", sk = "PROFILE")]
//! struct User {
//!     id: String,
//!     #[entity(unique)]
//!     email: String,
//!     #[entity(unique)]
//!     handle: Option<String>, // None claims nothing
//! }
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! let ann = User { id: "u1".into(), email: "ann@example.test".into(), handle: None };
//! table.create(&ann).await?; // the user and the guard of ann@example.test, in one transaction
//! let bob = User { id: "u2".into(), email: "ann@example.test".into(), handle: None };
//! assert!(matches!(table.create(&bob).await, Err(Error::UniqueViolation { field: "email", .. })));
//! // Changing the value moves the guard, in one transaction.
//! table.update(User::key("u1")).set_unique(User::EMAIL, &"ann@example.org".to_owned()).send().await?;
//! let found = table.get_by_unique(User::EMAIL, &"ann@example.org".to_owned()).await?;
//! # Ok(())
//! # }
//! ```
//!
//! # The guard item
//!
//! | attribute | value |
//! |---|---|
//! | `PK` | `UNIQUE#<entity>#<attribute>#<value>`, such as `UNIQUE#User#email#ann@example.test` |
//! | `SK` | `UNIQUE` |
//! | `_type` | `_unique` ([`GUARD_TYPE`]) |
//! | `entity`, `field` | the owner's entity type and the unique field's attribute name |
//! | `value` | the value, as the owner stores it |
//! | `ownerPK`, `ownerSK` | the owner's primary key |
//!
//! The entity type, attribute name and (string) value are escaped as key parts are (`#` as
//! `%23`, `%` as `%25`), so no value can forge another guard's key. A number is written in its
//! plain canonical form (`1.50` and `1.5` claim the same guard), binary data as URL-safe base64,
//! a bool as `true` / `false`. Values are compared exactly: normalize (for instance lower-case
//! an e-mail address) before storing if two spellings must count as one. The guard key uses the
//! *attribute* name, so renaming the Rust field alone keeps the guards. A partition key starting
//! with `UNIQUE#` and sort key `UNIQUE` is reserved for guards. Each value is unique within its
//! entity type and field; guards of different entities or fields never collide.
//!
//! # Semantics of each write
//!
//! Every write of an entity with unique fields is one `TransactWriteItems` (2 WCU per 1 KB of
//! each item written), conditional so that **no path leaves an orphan guard or two owners of one
//! value**. A guard may be claimed when it is absent or already belongs to the same item (the
//! owner's `PK` and `SK`); it is released only when it belongs to that item.
//!
//! * [`Table::create`]: the entity (if absent) and a guard per present value. A taken value is
//!   [`Error::UniqueViolation`] naming the entity type, field and value; an existing entity is
//!   [`Error::AlreadyExists`] (checked first: a retried create reports `AlreadyExists`).
//! * [`Table::put`] (create or replace) and [`Table::replace`] (must exist): read the stored item
//!   (strongly consistent, 1 RCU per 4 KB), then in one transaction write the entity on the
//!   condition that its unique values are still the ones read, release the guards of values
//!   that change and claim the guards of the values written. If the item changed in between, the read and the
//!   transaction are repeated (up to 10 attempts in all, with backoff).
//! * [`UpdateRequest::set_unique`]: the only way to change a unique field (the field handle is
//!   `Field<E, T, Unique>`, which `UpdateRequest::set` does not take). The same read, then one
//!   transaction: the update, conditional on the old value (and on the update's own condition),
//!   the release of the old guard and the claim of the new one.
//! * [`Table::delete`]: read the item, then delete it on the condition that its unique values
//!   are still the ones read, with its guards.
//! * In a [`TransactWrite`], `create` claims the guards, while
//!   `put`, `replace` and `delete` of such an entity are rejected (they would need the read).
//!
//! Transactions canceled by conflicts with concurrent writes (`TransactionConflict`) or by
//! throttling are resent with backoff within the same 10 attempts; nothing is written by a
//! canceled transaction.
//!
//! Entities stored before a field became unique have no guards. They keep working: releasing
//! a guard that is absent succeeds, and [`Table::put`] and [`Table::replace`] claim the guard of
//! every value they write, changed or not (a no-op for a guard the item owns), so putting each
//! such entity again fills the guards in. Where several items held one value before, the first
//! to claim it owns it; a put of another one with that value is [`Error::UniqueViolation`], and
//! a write that moves it off the value leaves the owner's guard alone (the transaction then
//! checks, instead of releasing, that the guard is not its own). Batch writes cannot be
//! conditional, so they must not write entities with unique fields.

use std::collections::{HashMap, HashSet};

use aws_sdk_dynamodb::types::AttributeValue;
use base64::Engine as _;

use crate::error::{Error, Returned};
use crate::expr::{Condition, Field, Mutable, Placeholders};
use crate::key::{MAX_PARTITION_KEY_BYTES, escape_into, unescape};
use crate::retry::RetryPolicy;
use crate::schema::{AttributeNames, Entity, EntitySchema, FieldSchema, Item, PK, PrimaryKey};
use crate::table::{Call, Next, Retrying, Table};
use crate::transact::{
    Action, ActionKind, CancellationCode, CancellationReason, Cond, TransactWrite, only_transient, send_once,
};
use crate::update::{PreparedUpdate, UpdateRequest};
use crate::value::Attribute;
use crate::versioning::{self, Stamped};

/// Marker of a field handle for an `#[entity(unique)]` field: `Field<E, T, Unique>`. Such a
/// field is changed with [`UpdateRequest::set_unique`] only, which moves its guard item; the
/// other update methods take `Field<E, T, Mutable>` and do not accept it.
#[derive(Debug, Clone, Copy)]
pub enum Unique {}

impl crate::expr::NotKey for Unique {}
impl crate::expr::NotMaintained for Unique {}

pub use crate::schema::reserved::{GUARD_PREFIX, GUARD_SK, GUARD_TYPE};
/// The guard attribute holding the owner's partition key.
pub const OWNER_PK: &str = "ownerPK";
/// The guard attribute holding the owner's sort key.
pub const OWNER_SK: &str = "ownerSK";
/// The guard attribute holding the owner's entity type.
pub const GUARD_ENTITY: &str = "entity";
/// The guard attribute holding the unique field's attribute name.
pub const GUARD_FIELD: &str = "field";
/// The guard attribute holding the value as the owner stores it.
pub const GUARD_VALUE: &str = "value";

/// Attempts at a guarded write: retries after a concurrent change of the item (the condition
/// on the values read fails) and after conflicts or throttling.
const ATTEMPTS: u32 = 10;

/// The attempts of a guarded write of `E`: at most [`ATTEMPTS`], with
/// [`RetryPolicy::CONFLICTS`]'s backoff between them. Its transaction's span names `E` (its
/// guard actions are `E`'s too).
fn guarded<E: Entity>() -> Retrying {
    Retrying::new(Call::new("TransactWriteItems", E::TYPE), RetryPolicy::CONFLICTS.max_attempts(ATTEMPTS))
}

/// The text of a unique value in its guard key, before escaping: a string as it is, a number in
/// plain canonical form, binary data as URL-safe base64, a bool as `true` / `false`. `None` for
/// an absent value (`NULL` included), which claims no guard.
///
/// # Errors
/// [`Error::Invalid`] for a set, list or map, which cannot be unique.
pub(crate) fn value_text(entity: &str, field: &str, value: Option<&AttributeValue>) -> Result<Option<String>, Error> {
    Ok(Some(match value {
        None | Some(AttributeValue::Null(_)) => return Ok(None),
        Some(AttributeValue::S(s)) => s.clone(),
        Some(AttributeValue::N(n)) => crate::value::canonical_number(n).unwrap_or_else(|| n.clone()),
        Some(AttributeValue::B(b)) => base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b.as_ref()),
        Some(AttributeValue::Bool(b)) => b.to_string(),
        Some(other) => {
            return Err(Error::Invalid {
                reason: format!(
                    "{entity}.{field} is unique, but its value is stored as {}; a unique value is a string, number, \
                     binary or bool",
                    crate::value::type_name(other)
                ),
            });
        }
    }))
}

/// The primary key of the guard item of `value` of `entity`'s field stored in `attribute`;
/// `None` for an absent value. See the [module documentation](self) for the layout.
///
/// # Errors
/// As [`value_text`]; [`Error::Key`] when the key would exceed DynamoDB's 2,048-byte limit.
pub(crate) fn guard_key(
    entity: &'static str,
    attribute: &str,
    value: Option<&AttributeValue>,
) -> Result<Option<PrimaryKey>, Error> {
    let Some(text) = value_text(entity, attribute, value)? else {
        return Ok(None);
    };
    Ok(Some(guard_key_of(entity, PK, attribute, &text)?))
}

/// The guard key of value `text`; `pk_attribute` names the partition key in errors.
fn guard_key_of(
    entity: &'static str,
    pk_attribute: &'static str,
    attribute: &str,
    text: &str,
) -> Result<PrimaryKey, Error> {
    let mut pk = String::with_capacity(GUARD_PREFIX.len() + entity.len() + attribute.len() + text.len() + 3);
    pk.push_str(GUARD_PREFIX);
    for part in [entity, attribute, text] {
        pk.push('#');
        escape_into(part, &mut pk);
    }
    if pk.len() > MAX_PARTITION_KEY_BYTES {
        return Err(Error::Key(crate::key::KeyError::TooLong {
            entity,
            attribute: pk_attribute,
            template: "UNIQUE#<entity>#<attribute>#<value> (unique guard)",
            bytes: pk.len(),
            over: pk.len() - MAX_PARTITION_KEY_BYTES,
            limit: MAX_PARTITION_KEY_BYTES,
        }));
    }
    Ok(PrimaryKey { pk: AttributeValue::S(pk), sk: AttributeValue::S(GUARD_SK.to_owned()) })
}

/// The value text of a guard key written by [`guard_key`] (the part after the attribute name,
/// unescaped); `None` for a key that is no guard key.
pub(crate) fn parse_guard_key(pk: &str) -> Option<(String, String, String)> {
    let mut parts = pk.split('#');
    if parts.next()? != GUARD_PREFIX {
        return None;
    }
    let mut next = || unescape(parts.next()?).map(|c| c.into_owned());
    let (entity, attribute, value) = (next()?, next()?, next()?);
    parts.next().is_none().then_some((entity, attribute, value))
}

/// One guard: for which field, its key, and the value text for errors.
struct Guard {
    field: &'static str,
    key: PrimaryKey,
    text: String,
    value: AttributeValue,
}

fn guard(
    schema: &'static EntitySchema,
    f: &FieldSchema,
    value: Option<&AttributeValue>,
) -> Result<Option<Guard>, Error> {
    let Some(text) = value_text(schema.name, f.field, value)? else {
        return Ok(None);
    };
    let key = guard_key_of(schema.name, schema.names.pk, f.attribute, &text)?;
    let value = value.cloned().unwrap_or(AttributeValue::Null(true));
    Ok(Some(Guard { field: f.field, key, text, value }))
}

/// `attribute_not_exists(PK) OR (ownerPK = :pk AND ownerSK = :sk)`: the guard is free or
/// already `owner`'s (`PK` is the table's partition key under `names`).
fn free_or_owned(names: &AttributeNames, owner: &PrimaryKey) -> Cond {
    let mut ph = Placeholders::default();
    let (pk, opk, osk) = (ph.name(names.pk), ph.name(OWNER_PK), ph.name(OWNER_SK));
    let (vpk, vsk) = (ph.value(owner.pk.clone()), ph.value(owner.sk.clone()));
    Cond { expression: format!("attribute_not_exists({pk}) OR ({opk} = {vpk} AND {osk} = {vsk})"), placeholders: ph }
}

/// The guard item at guard key `key` claiming `value` of attribute `attribute` of entity
/// `entity` for the item keyed `owner`, keyed and typed under the table's attribute `names`:
/// the key, the type attribute [`GUARD_TYPE`] (not in a table without a type attribute,
/// `entity_type = none`, which tells guards apart by their key: see
/// [`is_internal_in`](crate::collection::is_internal_in)), [`GUARD_ENTITY`], [`GUARD_FIELD`],
/// [`GUARD_VALUE`], [`OWNER_PK`] and [`OWNER_SK`]. Every write of a guard (claims, re-keying
/// migrations) builds it here.
pub(crate) fn guard_item(
    names: &AttributeNames,
    key: &PrimaryKey,
    entity: &str,
    attribute: &str,
    value: AttributeValue,
    owner: &PrimaryKey,
) -> Item {
    let mut item = Item::with_capacity(8);
    item.insert(names.pk.to_owned(), key.pk.clone());
    item.insert(names.sk.to_owned(), key.sk.clone());
    if names.has_entity_type() {
        item.insert(names.entity_type.to_owned(), AttributeValue::S(GUARD_TYPE.to_owned()));
    }
    item.insert(GUARD_ENTITY.to_owned(), AttributeValue::S(entity.to_owned()));
    item.insert(GUARD_FIELD.to_owned(), AttributeValue::S(attribute.to_owned()));
    item.insert(GUARD_VALUE.to_owned(), value);
    item.insert(OWNER_PK.to_owned(), owner.pk.clone());
    item.insert(OWNER_SK.to_owned(), owner.sk.clone());
    item
}

fn claim(schema: &'static EntitySchema, table: &str, owner: &PrimaryKey, g: &Guard) -> Result<Action, Error> {
    // The guard item is keyed and typed under the owning entity's attribute names.
    let names = schema.names;
    let attribute = schema.fields.iter().find(|f| f.field == g.field).map_or(g.field, |f| f.attribute);
    let item = guard_item(names, &g.key, schema.name, attribute, g.value.clone(), owner);
    Action::put(
        ActionKind::ClaimUnique { field: g.field },
        schema.name,
        names,
        table,
        &g.key,
        item,
        Some(free_or_owned(names, owner)),
    )
}

fn release(schema: &'static EntitySchema, table: &str, owner: &PrimaryKey, g: &Guard) -> Result<Action, Error> {
    let (kind, names) = (ActionKind::ReleaseUnique { field: g.field }, schema.names);
    Action::delete(kind, schema.name, names, table, &g.key, Some(free_or_owned(names, owner)))
}

/// `attribute_not_exists(PK) OR NOT (ownerPK = :pk AND ownerSK = :sk)`: the guard is not
/// `owner`'s.
fn not_owned(names: &AttributeNames, owner: &PrimaryKey) -> Cond {
    let mut ph = Placeholders::default();
    let (pk, opk, osk) = (ph.name(names.pk), ph.name(OWNER_PK), ph.name(OWNER_SK));
    let (vpk, vsk) = (ph.value(owner.pk.clone()), ph.value(owner.sk.clone()));
    Cond {
        expression: format!("attribute_not_exists({pk}) OR NOT ({opk} = {vpk} AND {osk} = {vsk})"),
        placeholders: ph,
    }
}

/// The actions of one guarded write of the item `owner` of `schema`'s entity, and which action
/// claims which value.
struct Plan<'a> {
    schema: &'static EntitySchema,
    table: &'a str,
    owner: &'a PrimaryKey,
    /// Keys (`PK=… SK=…`) of guards of old values that belong to another item (values held by
    /// several items before the field became unique): checked to stay so, not released.
    foreign: HashSet<String>,
    actions: Vec<Action>,
    /// Action index -> (field, value text) of each claim.
    claims: HashMap<usize, (&'static str, String)>,
}

impl<'a> Plan<'a> {
    fn new(schema: &'static EntitySchema, table: &'a str, owner: &'a PrimaryKey, foreign: HashSet<String>) -> Self {
        Plan { schema, table, owner, foreign, actions: Vec::new(), claims: HashMap::new() }
    }

    /// Releases the guards of `old` values that change and claims the `new` ones, for the
    /// `fields` given. With `reclaim`, an unchanged value's guard is claimed again too (a no-op
    /// for a guard the item owns; it writes a missing one).
    fn move_guards<'f>(
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
    fn violation(&self, reasons: &[CancellationReason]) -> Option<Error> {
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
    fn after_cancel<T>(&mut self, reasons: Vec<CancellationReason>, stale: bool) -> Result<Next<T, Error>, Error> {
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
fn entity_failed(reasons: &[CancellationReason]) -> Option<&CancellationReason> {
    reasons.iter().find(|r| r.index == 0 && r.code == CancellationCode::ConditionalCheckFailed)
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
fn unchanged<'f>(
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

/// A strongly consistent read of the whole item.
async fn read(
    table: &Table,
    entity: &'static str,
    names: &AttributeNames,
    key: &PrimaryKey,
) -> Result<Option<Item>, Error> {
    let request = table.get_request(names, key, true).send_with(table.client());
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
                let reasons = match send_once(table, &plan.actions, None, attempt.call()).await {
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

/// The transaction of [`create`]: the entity, if absent, and a claim per present value.
fn create_plan<'a, E: Entity>(table: &'a str, w: &'a Stamped) -> Result<Plan<'a>, Error> {
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
fn put_plan<'a, E: Entity>(
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
            let mut expression = unchanged(E::NAMES, schema.unique_fields(), old, &mut ph);
            expression.push_str(" AND ");
            crate::owner::push_guard(crate::owner::Guard::Is, &mut ph, E::NAMES, E::TYPE, &mut expression);
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
                let reasons = match send_once(table, &plan.actions, None, attempt.call()).await {
                    Ok(_) => return Ok(Next::Done(old)),
                    Err(Error::TransactionCanceled { reasons }) => reasons,
                    Err(e) => return Err(e),
                };
                // A failed condition of the entity means that it changed since it was read: a new
                // version is a lost race, anything else is read again.
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
                let reasons = match send_once(table, &plan.actions, None, attempt.call()).await {
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
    /// when the item kept changing or conflicting over 10 attempts; [`Error::Sdk`].
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
                    let reasons = match send_once(table, &plan.actions, None, attempt.call()).await {
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
struct UniqueParts {
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
fn update_plan<'a>(
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
fn and_condition(update: &mut PreparedUpdate, condition: String, mut ph: Placeholders) {
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
fn replace_placeholder(expression: &str, from: &str, to: &str) -> String {
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

// ---------------------------------------------------------------------------------------------
// Lookup by a unique value

/// `create` is implemented here, beside the guard items it claims.
impl<D> TransactWrite<D> {
    /// Writes `value` only if no item has its key (`attribute_not_exists(PK)`); otherwise the
    /// transaction is canceled with [`CancellationCode::ConditionalCheckFailed`] for this action.
    ///
    /// For an entity with unique fields, one more action per present unique value claims its
    /// guard item, on the condition that the guard is free (or already this item's); a taken
    /// value cancels the transaction with `ConditionalCheckFailed` on that
    /// [`ActionKind::ClaimUnique`] action.
    ///
    /// A versioned entity is stored with version 1; `created_at` and `updated_at` are set to
    /// now. See [`versioning`].
    pub fn create<E: Entity>(mut self, value: &E) -> Self
    where
        D: crate::schema::Admits<E>,
    {
        let table = self.table.name().to_owned();
        let actions = (|| {
            let Stamped { key, item, .. } = versioning::stamp(value, true)?;
            let mut actions = claims::<E>(&table, &key, &item)?;
            let cond = Some(Cond::absent(E::NAMES));
            actions.insert(0, Action::put(ActionKind::Create, E::TYPE, E::NAMES, &table, &key, item, cond)?);
            Ok(actions)
        })();
        match actions {
            Ok(a) => self.actions.extend(a),
            Err(e) => self = self.fail(e),
        }
        self
    }
}

impl Table {
    /// The item of entity `E` that holds `value` in the unique `field`, through the value's
    /// guard item: two strongly consistent reads (the guard, then its owner). `None` when no
    /// item holds the value.
    ///
    /// # Errors
    /// [`Error::Invalid`] / [`Error::Key`] / [`Error::Encode`] for a value that cannot be
    /// unique; [`Error::Sdk`]; [`Error::WrongEntity`] / [`Error::Decode`] for an owner that does
    /// not decode.
    pub async fn get_by_unique<E: Entity, T: Attribute>(
        &self,
        field: Field<E, T, Unique>,
        value: &T,
    ) -> Result<Option<E>, Error> {
        let av = value.to_attribute().map_err(|source| Error::Encode {
            entity: E::TYPE,
            field: field.name,
            attribute: field.attribute,
            source,
        })?;
        let Some(guard) = guard_key(E::TYPE, field.attribute, av.as_ref())? else {
            return Ok(None);
        };
        let Some(g) = read(self, E::TYPE, E::NAMES, &guard).await? else {
            return Ok(None);
        };
        let (Some(pk), Some(sk)) = (g.get(OWNER_PK), g.get(OWNER_SK)) else {
            return Ok(None);
        };
        let owner = PrimaryKey { pk: pk.clone(), sk: sk.clone() };
        let Some(item) = read(self, E::TYPE, E::NAMES, &owner).await? else {
            return Ok(None);
        };
        // The owner may have moved to another value between the two reads.
        if item.get(field.attribute) != av.as_ref() {
            return Ok(None);
        }
        E::from_item(&item).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_guard_key_is_the_librarys_own_item_in_a_table_without_a_type_attribute() {
        let value = AttributeValue::S("a#b@example.com".to_owned());
        let key = guard_key("User", "email", Some(&value)).unwrap().unwrap();
        assert_eq!(key.pk, AttributeValue::S("UNIQUE#User#email#a%23b@example.com".to_owned()));
        let item: Item = [("PK".to_owned(), key.pk), ("SK".to_owned(), key.sk)].into_iter().collect();
        assert!(crate::owner::is_library_item(&item, &AttributeNames::DEFAULT.without_entity_type()));
    }

    #[test]
    fn numbers_are_canonical() {
        for (text, canonical) in [
            ("0", "0"),
            ("-0", "0"),
            ("0.000", "0"),
            ("42", "42"),
            ("0042", "42"),
            ("1.50", "1.5"),
            ("1.5E+2", "150"),
            ("1.5e-2", "0.015"),
            ("-12.340", "-12.34"),
            ("100", "100"),
            ("1E2", "100"),
            ("123456789012345678901234567890", "123456789012345678901234567890"),
            ("not a number", "not a number"),
        ] {
            assert_eq!(crate::value::canonical_number(text).unwrap_or_else(|| text.to_owned()), canonical, "{text}");
        }
    }

    #[test]
    fn guard_keys_escape_and_parse_back() {
        let key = guard_key("User", "email", Some(&AttributeValue::S("a#b%c@x".into()))).unwrap().unwrap();
        assert_eq!(key.to_string(), "PK=UNIQUE#User#email#a%23b%25c@x SK=UNIQUE");
        let AttributeValue::S(pk) = &key.pk else { panic!() };
        assert_eq!(parse_guard_key(pk), Some(("User".into(), "email".into(), "a#b%c@x".into())));
        assert_eq!(parse_guard_key("USER#x"), None);
        // Distinct values never share a guard; absent values have none.
        let other = guard_key("User", "email", Some(&AttributeValue::S("a".into()))).unwrap().unwrap();
        let other2 = guard_key("User", "email#a", None).unwrap();
        assert_ne!(key, other);
        assert_eq!(other2, None);
        assert_eq!(
            guard_key("User", "n", Some(&AttributeValue::N("1.50".into()))).unwrap().unwrap().to_string(),
            "PK=UNIQUE#User#n#1.5 SK=UNIQUE"
        );
        assert!(guard_key("User", "tags", Some(&AttributeValue::Ss(vec!["a".into()]))).is_err());
        assert!(matches!(
            guard_key("User", "email", Some(&AttributeValue::S("x".repeat(2100)))),
            Err(Error::Key(crate::key::KeyError::TooLong { .. }))
        ));
    }

    #[test]
    fn placeholders_are_renamed_whole() {
        assert_eq!(replace_placeholder("#n1 = :v1 AND #n10 = :v10", "#n1", "#u1"), "#u1 = :v1 AND #n10 = :v10");
    }
}

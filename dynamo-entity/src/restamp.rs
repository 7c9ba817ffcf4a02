//! Re-stamping denormalized fields: a resumable pass over the items a query reads that sets
//! some fields to new values, one conditional `UpdateItem` per stale item, never over a
//! concurrent write ([`Table::restamp`]).
//!
//! A single-table design copies a value into the items that show it (a seller's `verified`
//! mark on each of their skills). When the value changes, every copy is re-stamped. Writing the
//! items back whole, as read, would undo whatever another writer changed in between (a
//! purchase counted, a title edited). A re-stamp writes only its fields:
//!
//! | the item, as read | what is sent | counted as |
//! |---|---|---|
//! | every field already at its new value | nothing | `current` |
//! | a field stale | `UpdateItem`: `SET` the fields, on the condition that each still holds what was read | `stamped` |
//! | changed by another writer since it was read | that update's condition fails: nothing written, the other write stands | `changed` |
//! | deleted since it was read | nothing written | `gone` |
//!
//! Each update goes through [`Table::update`]: it keeps the entity's rules (its type guard, GSI
//! keys rebuilt from the fields it sets, `updated_at`, the version bump of a versioned entity,
//! write tokens). With [`resumable`](Restamp::resumable), the pass records its cursor after each
//! page in a record of the library's own (`_MIGRATION#restamp:<name>`, `RUN`); a run that finds
//! an unfinished record starts from its cursor with its counts (the page it stopped in is read
//! again: its items already re-stamped are `current` then), and a finished one starts over.
//!
//! ```no_run
//! use dynamo_entity::{Entity, Table};
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META", gsi2 = "SELLER#<seller_id>", gsi2_sk = "<id>")]
//! pub struct Skill { pub id: String, pub seller_id: String, pub seller_verified: bool, pub downloads: u64 }
//!
//! # async fn nightly(table: Table) -> dynamo_entity::Result<()> {
//! let report = table
//!     .restamp(table.query(Skill::gsi2("u42")))
//!     .set(Skill::SELLER_VERIFIED, &true)
//!     .resumable("verify-u42")
//!     .run()
//!     .await?;
//! println!("{} re-stamped, {} already current", report.stamped, report.current);
//! # Ok(())
//! # }
//! ```

use aws_sdk_dynamodb::types::AttributeValue;
use futures::TryStreamExt;

use crate::error::Error;
use crate::expr::{Condition, Field, NotKey, NotMaintained, NotUnique};
use crate::migrate::Checkpoints;
use crate::query::{Cursor, QueryRequest};
use crate::schema::reserved::MIGRATION_TYPE;
use crate::schema::{Entity, Item, Key};
use crate::table::Table;
use crate::update::UpdateRequest;
use crate::value::Attribute;

/// What a re-stamp did ([`Restamp::run`]); counts of items.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RestampReport {
    /// Items the query read (in this run, from its starting cursor).
    pub read: u64,
    /// Items updated.
    pub stamped: u64,
    /// Items whose fields already held the new values: nothing sent.
    pub current: u64,
    /// Items another writer changed between the read and the update: left as that writer left
    /// them.
    pub changed: u64,
    /// Items deleted between the read and the update.
    pub gone: u64,
    /// Whether the run started from an unfinished run's cursor.
    pub resumed: bool,
}

type Apply<E> = Box<dyn Fn(UpdateRequest<E>) -> UpdateRequest<E> + Send + Sync>;

/// One field a re-stamp sets: its attribute, its new value as stored (`None`: absent), and the
/// `set` of the update.
struct Stamp<E> {
    field: &'static str,
    attribute: &'static str,
    value: Option<AttributeValue>,
    apply: Apply<E>,
}

/// A re-stamp of the items a query reads: see the [module documentation](self). From
/// [`Table::restamp`].
#[must_use = "a re-stamp does nothing until it is run"]
pub struct Restamp<E, S> {
    table: Table,
    query: QueryRequest<E, S>,
    stamps: Vec<Stamp<E>>,
    name: Option<String>,
}

impl<D> Table<D> {
    /// A re-stamp of the items `query` reads (see [`restamp`](crate::restamp)): add the fields
    /// with [`set`](Restamp::set), then [`run`](Restamp::run) it. A declared handle
    /// (`Table<D>`) re-stamps the entities its table lists.
    pub fn restamp<E: Entity, S>(&self, query: QueryRequest<E, S>) -> Restamp<E, S>
    where
        D: crate::schema::Admits<E>,
    {
        Restamp { table: self.untyped(), query, stamps: Vec::new(), name: None }
    }
}

impl<E: Entity, S> Restamp<E, S> {
    /// Sets `field` to `value` on every item read whose field holds another value. The fields
    /// a re-stamp may set are those an update may ([`UpdateRequest::set`]).
    pub fn set<T, M>(mut self, field: Field<E, T, M>, value: &T) -> Self
    where
        T: Attribute + Clone + Send + Sync + 'static,
        M: NotUnique + NotKey + NotMaintained + 'static,
    {
        // A value that does not encode is reported by each update, with the item's key.
        let stored = value.to_attribute().ok().flatten();
        let value = value.clone();
        let apply: Apply<E> = Box::new(move |update| update.set(field, &value));
        self.stamps.push(Stamp { field: field.name, attribute: field.attribute, value: stored, apply });
        self
    }

    /// Records the pass's progress under `name` (see the [module documentation](self)), so that
    /// a run stopped part way resumes from the last page it finished.
    pub fn resumable(mut self, name: &str) -> Self {
        self.name = Some(name.to_owned());
        self
    }

    /// Runs the re-stamp: page by page, each stale item updated (see the
    /// [module documentation](self)).
    ///
    /// # Errors
    /// [`Error::Invalid`] with no field to set or an empty name; the query's errors; an
    /// update's error other than a failed condition or a missing item (a value that does not
    /// encode, [`Error::OutcomeUnknown`], throttling past the retries…). The progress of the
    /// pages finished before stays recorded.
    pub async fn run(self) -> Result<RestampReport, Error> {
        let Restamp { table, query, stamps, name } = self;
        if stamps.is_empty() {
            return Err(Error::Invalid { reason: format!("a re-stamp of {} sets no field", E::TYPE) });
        }
        if name.as_deref() == Some("") {
            return Err(Error::Invalid { reason: format!("a re-stamp of {} needs a non-empty name", E::TYPE) });
        }
        let id = name.as_ref().map(|n| format!("restamp:{n}"));
        let record = id.as_deref().map(|id| Checkpoints { table: &table, names: E::NAMES, id, entity: E::TYPE });
        let mut report = RestampReport::default();
        let mut start = None;
        if let Some(record) = &record
            && let Some(item) = record.get("RUN".to_owned()).await?
            && matches!(item.get("status"), Some(AttributeValue::S(s)) if s == "running")
        {
            report.resumed = true;
            start = match item.get("cursor") {
                Some(AttributeValue::S(c)) => Some(Cursor(c.clone())),
                _ => None,
            };
            let count = |attribute: &str| match item.get(attribute) {
                Some(AttributeValue::N(n)) => n.parse().unwrap_or(0),
                _ => 0,
            };
            (report.read, report.stamped, report.current) = (count("read"), count("stamped"), count("current"));
            (report.changed, report.gone) = (count("changed"), count("gone"));
        }
        let mut pages = std::pin::pin!(query.after(start).pages());
        while let Some(page) = pages.try_next().await? {
            for value in &page.items {
                report.read += 1;
                restamp_one(&table, &stamps, value, &mut report).await?;
            }
            if let Some(record) = &record {
                let status = if page.cursor.is_some() { "running" } else { "completed" };
                record.put(run_item(record, &report, page.cursor.as_ref(), status)).await?;
            }
        }
        Ok(report)
    }
}

/// The run record after a page: the counts so far, where the next page starts, `status`.
fn run_item(record: &Checkpoints<'_>, report: &RestampReport, cursor: Option<&Cursor>, status: &str) -> Item {
    let mut item = record.key("RUN".to_owned());
    if record.names.has_entity_type() {
        item.insert(record.names.entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
    }
    item.insert("entity".to_owned(), AttributeValue::S(record.entity.to_owned()));
    item.insert("status".to_owned(), AttributeValue::S(status.to_owned()));
    if let Some(cursor) = cursor {
        item.insert("cursor".to_owned(), AttributeValue::S(cursor.as_str().to_owned()));
    }
    let counts = [
        ("read", report.read),
        ("stamped", report.stamped),
        ("current", report.current),
        ("changed", report.changed),
        ("gone", report.gone),
    ];
    for (attribute, count) in counts {
        item.insert(attribute.to_owned(), AttributeValue::N(count.to_string()));
    }
    item
}

/// Re-stamps one item read (see the module documentation's table).
async fn restamp_one<E: Entity>(
    table: &Table,
    stamps: &[Stamp<E>],
    value: &E,
    report: &mut RestampReport,
) -> Result<(), Error> {
    let item = value.to_item()?;
    if stamps.iter().all(|s| item.get(s.attribute) == s.value.as_ref()) {
        report.current += 1;
        return Ok(());
    }
    let mut update = table.update(Key::<E>::new(value.primary_key()));
    for stamp in stamps {
        update = (stamp.apply)(update);
        update = update.condition(Condition::stored(stamp.field, stamp.attribute, item.get(stamp.attribute).cloned()));
    }
    if E::schema().version.is_some() {
        update = update.any_version();
    }
    match update.send().await {
        Ok(_) => report.stamped += 1,
        Err(Error::ConditionFailed { .. }) => report.changed += 1,
        Err(Error::NotFound { .. }) => report.gone += 1,
        Err(e) => return Err(e),
    }
    Ok(())
}

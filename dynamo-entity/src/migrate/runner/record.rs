//! The records a runner keeps in the table: one item `_MIGRATION#<id>` / `STEP` per migration
//! (its kind, status, worker, heartbeat, times and summary or error), claimed and renewed with
//! conditional writes, and the list of every migration run, one item `_MIGRATIONS` / `ID#<id>`
//! each.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::{MIGRATION_TYPE, migration_items};
use crate::migrate::runner::kind::Kind;
use crate::migrate::runner::{Migration, Migrations};
use crate::schema::Item;
use crate::table::{Call, Table};

// The partition holding the list of the migrations run on a table, one item `ID#<id>` each.
use crate::schema::reserved::MIGRATION_REGISTRY as REGISTRY;

/// Milliseconds since the Unix epoch, by this machine's clock.
pub(super) fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The condition of a record write.
#[derive(Clone, Copy)]
pub(super) enum Guard {
    /// Only if no other worker runs the step: its record is absent, not `running`, `running`
    /// with a stale heartbeat, or run by this worker.
    Claim,
    /// Only if this worker still runs it: a heartbeat, and the final record (`applied` or
    /// `failed`), never over another runner's record.
    Held,
}

/// The fields of a record write.
pub(super) struct Record<'a> {
    pub(super) status: &'static str,
    pub(super) worker: &'a str,
    pub(super) started: u64,
    pub(super) text: Option<String>,
}

impl Migrations {
    pub(super) fn key(&self, id: &str) -> Item {
        let names = self.layout.names();
        HashMap::from([
            (names.pk.to_owned(), AttributeValue::S(format!("{}{id}", crate::schema::reserved::MIGRATION_PREFIX))),
            (names.sk.to_owned(), AttributeValue::S("STEP".to_owned())),
        ])
    }

    pub(super) async fn record(&self, table: &Table, id: &str) -> Result<Option<Item>, Error> {
        let request = crate::table::body::get_item(
            table.client(),
            aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
                .table_name(table.name())
                .set_key(Some(self.key(id)))
                .consistent_read(true)
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes),
        );
        let out =
            table.execute(Call::new("GetItem", MIGRATION_TYPE), request).await.map_err(|e| Error::sdk("GetItem", e))?;
        Ok(out.item)
    }

    /// Writes the record of `m`, on the condition `claim` says; `Ok(false)` when it failed.
    pub(super) async fn write(
        &self,
        table: &Table,
        m: &Migration,
        fields: Record<'_>,
        claim: Guard,
    ) -> Result<bool, Error> {
        let mut item = self.key(&m.id);
        if self.layout.names().has_entity_type() {
            item.insert(self.layout.names().entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("kind".to_owned(), AttributeValue::S(m.kind.name().to_owned()));
        item.insert("status".to_owned(), AttributeValue::S(fields.status.to_owned()));
        item.insert("worker".to_owned(), AttributeValue::S(fields.worker.to_owned()));
        item.insert("heartbeat".to_owned(), AttributeValue::N(now_ms().to_string()));
        item.insert("started".to_owned(), AttributeValue::N(fields.started.to_string()));
        if let Some(text) = fields.text {
            item.insert(
                if fields.status == "failed" { "error" } else { "summary" }.to_owned(),
                AttributeValue::S(text),
            );
        }
        let mut request = table.client().put_item().table_name(table.name()).set_item(Some(item));
        let mut ph = Placeholders::default();
        let mut cond = String::new();
        let equals = |ph: &mut Placeholders, cond: &mut String, name: &str, op: &str, value: AttributeValue| {
            ph.push_name(name, cond);
            cond.push_str(op);
            ph.push_value(value, cond);
        };
        match claim {
            Guard::Claim => {
                cond.push_str("attribute_not_exists(");
                ph.push_name(self.layout.names().pk, &mut cond);
                cond.push_str(") OR ");
                equals(&mut ph, &mut cond, "status", " <> ", AttributeValue::S("running".to_owned()));
                cond.push_str(" OR ");
                equals(&mut ph, &mut cond, "heartbeat", " < ", AttributeValue::N(self.stale_before().to_string()));
                cond.push_str(" OR ");
                equals(&mut ph, &mut cond, "worker", " = ", AttributeValue::S(fields.worker.to_owned()));
            }
            Guard::Held => {
                equals(&mut ph, &mut cond, "status", " = ", AttributeValue::S("running".to_owned()));
                cond.push_str(" AND ");
                equals(&mut ph, &mut cond, "worker", " = ", AttributeValue::S(fields.worker.to_owned()));
            }
        }
        request = request
            .condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values());
        match table.execute(Call::new("PutItem", MIGRATION_TYPE), request.send()).await {
            Ok(_) => Ok(true),
            Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
                if e.err().is_conditional_check_failed_exception() =>
            {
                Ok(false)
            }
            Err(e) => Err(Error::sdk("PutItem", e)),
        }
    }

    /// The error of a runner `worker` that lost its claim on `m`: who the record names now and
    /// its status (read strongly consistently; a failed read leaves them unknown).
    pub(super) async fn taken_over(&self, table: &Table, m: &Migration, worker: &str) -> Error {
        let record = match self.record(table, &m.id).await {
            Ok(record) => record,
            Err(e) => {
                tracing::warn!(target: "dynamo_entity", migration = %m.id, error = %e, "record not read");
                None
            }
        };
        let s = |name: &str| record.as_ref().and_then(|r| r.get(name)).and_then(|v| v.as_s().ok()).cloned();
        Error::MigrationTakenOver {
            id: m.id.clone(),
            worker: worker.to_owned(),
            holder: s("worker"),
            recorded: s("status"),
        }
    }

    /// Whether `m`'s record says it was applied by this run (`worker`, started at `started`):
    /// the runner's own `applied` write, resent after DynamoDB applied it, fails its condition.
    pub(super) async fn recorded_applied(
        &self,
        table: &Table,
        m: &Migration,
        worker: &str,
        started: u64,
    ) -> Result<bool, Error> {
        let Some(item) = self.record(table, &m.id).await? else { return Ok(false) };
        let s = |name: &str| item.get(name).and_then(|v| v.as_s().ok()).map(String::as_str);
        let n = |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|v| v.parse::<u64>().ok());
        Ok(s("status") == Some("applied") && s("worker") == Some(worker) && n("started") == Some(started))
    }

    /// Heartbeats older than this (milliseconds since the Unix epoch) are stale.
    pub(super) fn stale_before(&self) -> u64 {
        now_ms().saturating_sub(u64::try_from(self.heartbeat.as_millis() * 3).unwrap_or(u64::MAX))
    }

    /// The key of migration `id`'s entry in the table's list of migrations run
    /// (`_MIGRATIONS` / `ID#<id>`).
    pub(super) fn registry_key(&self, id: &str) -> Item {
        let names = self.layout.names();
        HashMap::from([
            (names.pk.to_owned(), AttributeValue::S(REGISTRY.to_owned())),
            (names.sk.to_owned(), AttributeValue::S(format!("ID#{id}"))),
        ])
    }

    /// Adds `m` to the table's list of migrations run (an unconditional `PutItem`: the entry
    /// only names it).
    pub(super) async fn register(&self, table: &Table, m: &Migration) -> Result<(), Error> {
        let mut item = self.registry_key(&m.id);
        if self.layout.names().has_entity_type() {
            item.insert(self.layout.names().entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("id".to_owned(), AttributeValue::S(m.id.clone()));
        item.insert("kind".to_owned(), AttributeValue::S(m.kind.name().to_owned()));
        let request = table
            .client()
            .put_item()
            .table_name(table.name())
            .set_item(Some(item))
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        table.execute(Call::new("PutItem", MIGRATION_TYPE), request).await.map_err(|e| Error::sdk("PutItem", e))?;
        Ok(())
    }

    /// Every migration the table's list names, in id order: one strongly consistent `Query` of
    /// the partition `_MIGRATIONS` (paginated).
    pub(super) async fn registered(&self, table: &Table) -> Result<Vec<(String, Kind)>, Error> {
        let names = self.layout.names();
        let items = migration_items(table, names.pk, AttributeValue::S(REGISTRY.to_owned()), None).await?;
        let mut out = Vec::with_capacity(items.len());
        for item in items {
            let id = item.get("id").and_then(|v| v.as_s().ok()).cloned();
            let kind = item.get("kind").and_then(|v| v.as_s().ok()).and_then(|k| Kind::from_name(k));
            match (id, kind) {
                (Some(id), Some(kind)) => out.push((id, kind)),
                _ => {
                    return Err(Error::Invalid {
                        reason: format!(
                            "an entry of the table's list of migrations ({}) is malformed",
                            names.describe_key(&item)
                        ),
                    });
                }
            }
        }
        Ok(out)
    }
}

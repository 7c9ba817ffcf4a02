//! Applied steps checked again ([`Migrations::verify`]): each scanning step's verification
//! ([`Backfill::verify`](crate::migrate::Backfill::verify)), recorded in the step's record
//! (the attribute `verified`: when, and what was found), which `status` shows
//! ([`Verification`]).

use std::collections::HashMap;
use std::fmt;

use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::{MIGRATION_TYPE, VerifyReport};
use crate::migrate::runner::kind::Kind;
use crate::migrate::runner::record::now_ms;
use crate::migrate::runner::status::Verification;
use crate::migrate::runner::{Migration, Migrations};
use crate::schema::Item;
use crate::table::{Call, Table};

/// The attribute of a step's record that holds its last verification.
const VERIFIED: &str = "verified";

/// One step checked again by [`Migrations::verify`].
#[derive(Debug, Clone, PartialEq)]
pub struct Verified {
    /// The migration id.
    pub id: String,
    /// Its kind.
    pub kind: Kind,
    /// What the verification found; `None` for a step of a kind that is not checked again
    /// (an index layout, a custom step).
    pub report: Option<VerifyReport>,
}

impl Verified {
    /// Whether the step needs nothing: its verification found no item to change and none it
    /// cannot judge, or it is of a kind not checked again.
    ///
    /// ```
    /// use dynamo_entity::migrate::{Kind, Verified, VerifyReport};
    ///
    /// let found = Verified { id: "0002".into(), kind: Kind::Backfill, report: Some(VerifyReport::default()) };
    /// assert!(found.is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.report.as_ref().is_none_or(VerifyReport::is_clean)
    }
}

impl fmt::Display for Verified {
    /// `clean`, `drift` or `skipped`, the id and kind, then the report (its items on lines of
    /// their own).
    ///
    /// ```
    /// use dynamo_entity::migrate::{Kind, Verified};
    ///
    /// let layout = Verified { id: "0001-indexes".into(), kind: Kind::Layout, report: None };
    /// assert_eq!(
    ///     layout.to_string(),
    ///     "skipped  0001-indexes [layout]: not a pass over items; not checked again"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.report {
            None => write!(f, "skipped  {} [{}]: not a pass over items; not checked again", self.id, self.kind),
            Some(r) => {
                let word = if r.is_clean() { "clean" } else { "drift" };
                write!(f, "{word:<8} {} [{}]: {r}", self.id, self.kind)
            }
        }
    }
}

impl Migrations {
    /// Checks applied steps again, writing no item: every applied migration, or with `only`
    /// the migration of that id (which must be applied). Each scanning step (a backfill,
    /// re-keying, bulk upgrade or native-key migration) runs its verification
    /// ([`Backfill::verify`](crate::migrate::Backfill::verify): a read-only parallel scan
    /// that finds the items the step would still change, such as an item a late writer of a
    /// rolling deploy wrote without a key the step backfilled); an index layout or custom
    /// step is reported as not checked. What each scanning step's verification found is
    /// recorded in the step's record, with when, and [`status`](Self::status) shows it until
    /// the step is applied again ([`reapply`](Self::reapply)).
    ///
    /// ```no_run
    /// use dynamo_entity::migrate::{Migrations, RunOptions};
    /// use dynamo_entity::{Entity, Table, TableDef};
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "SKILL#<id>", sk = "META", gsi1 = "CATEGORY#<category>", gsi1_sk = "<id>")]
    /// pub struct Skill { pub id: String, pub category: String }
    ///
    /// #[derive(TableDef)]
    /// #[table(entities(Skill), gsi1)]
    /// pub struct AppTable;
    ///
    /// # async fn f(table: Table) -> dynamo_entity::Result<()> {
    /// let migrations = Migrations::new(AppTable::layout()?).backfill::<Skill>("0002-skill-gsi1", |b| b);
    /// // After the last instance of the old code is gone:
    /// for found in migrations.verify(&table, None).await? {
    ///     if !found.is_clean() {
    ///         println!("{found}");
    ///         migrations.reapply(&table, &found.id, &RunOptions::default()).await?;
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// [`Error::Invalid`] for an id declared twice or empty, an `only` no migration has or one
    /// not applied; the errors of the verifications ([`Error::Sdk`]).
    pub async fn verify<D>(&self, table: &Table<D>, only: Option<&str>) -> Result<Vec<Verified>, Error> {
        let table = &table.untyped();
        self.check(only)?;
        let mut out = Vec::new();
        for m in self.steps.iter().filter(|m| only.is_none_or(|id| id == m.id)) {
            let record = self.record(table, &m.id).await?;
            let field = |name: &str| record.as_ref().and_then(|r| r.get(name)).cloned();
            let applied = matches!(field("status"), Some(AttributeValue::S(s)) if s == "applied");
            if !applied {
                if only.is_some() {
                    let status = self.status_of(table, m).await?.status;
                    return Err(Error::Invalid {
                        reason: format!(
                            "migration {} is {}: only an applied migration is verified (`apply` runs it)",
                            m.id,
                            status.word()
                        ),
                    });
                }
                continue;
            }
            let report = m.step.verify(table, &m.id).await?;
            if let (Some(r), Some(started)) = (&report, field("started")) {
                self.record_verification(table, m, started, r).await?;
            }
            out.push(Verified { id: m.id.clone(), kind: m.kind, report });
        }
        Ok(out)
    }

    /// Records `report` in `m`'s record, on the condition that the record is still the one of
    /// the applied run that started at `started` (a step applied again meanwhile keeps no
    /// verification of its earlier run).
    async fn record_verification(
        &self,
        table: &Table,
        m: &Migration,
        started: AttributeValue,
        report: &VerifyReport,
    ) -> Result<(), Error> {
        let mut ph = Placeholders::default();
        let mut update = String::from("SET ");
        ph.push_name(VERIFIED, &mut update);
        update.push_str(" = ");
        ph.push_value(encode(now_ms(), report), &mut update);
        let mut cond = String::new();
        ph.push_name("status", &mut cond);
        cond.push_str(" = ");
        ph.push_value(AttributeValue::S("applied".to_owned()), &mut cond);
        cond.push_str(" AND ");
        ph.push_name("started", &mut cond);
        cond.push_str(" = ");
        ph.push_value(started, &mut cond);
        let request = table
            .client()
            .update_item()
            .table_name(table.name())
            .set_key(Some(self.key(&m.id)))
            .update_expression(update)
            .condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        match table.execute(Call::new("UpdateItem", MIGRATION_TYPE), request).await {
            Ok(_) => Ok(()),
            Err(aws_sdk_dynamodb::error::SdkError::ServiceError(e))
                if e.err().is_conditional_check_failed_exception() =>
            {
                tracing::warn!(target: "dynamo_entity", migration = %m.id,
                    "verification not recorded: the step was applied again or is running");
                Ok(())
            }
            Err(e) => Err(Error::sdk("UpdateItem", e)),
        }
    }
}

/// The record's `verified` map: `at` (milliseconds since the Unix epoch), the counts, and the
/// items named (lists of `[key, why]`).
fn encode(at_ms: u64, r: &VerifyReport) -> AttributeValue {
    let n = |v: u64| AttributeValue::N(v.to_string());
    let list = |items: &[(String, String)]| {
        AttributeValue::L(
            items
                .iter()
                .map(|(k, w)| AttributeValue::L(vec![AttributeValue::S(k.clone()), AttributeValue::S(w.clone())]))
                .collect(),
        )
    };
    AttributeValue::M(HashMap::from([
        ("at".to_owned(), n(at_ms)),
        ("entity".to_owned(), AttributeValue::S(r.entity.clone())),
        ("scanned".to_owned(), n(r.scanned)),
        ("drifted".to_owned(), n(r.drifted)),
        ("undecodable".to_owned(), n(r.undecodable)),
        ("read_units".to_owned(), AttributeValue::N(r.read_units.to_string())),
        ("drift".to_owned(), list(&r.drift)),
        ("undecodable_items".to_owned(), list(&r.undecodable_items)),
    ]))
}

/// The verification a step's `record` holds: [`Verification::NotApplicable`] for a step not
/// `verifiable`, [`Verification::NotVerified`] without one.
///
/// # Errors
/// [`Error::Invalid`] naming the migration for a `verified` attribute that is not as
/// [`encode`] writes it.
pub(super) fn verification_of(id: &str, record: &Item, verifiable: bool) -> Result<Verification, Error> {
    if !verifiable {
        return Ok(Verification::NotApplicable);
    }
    let Some(v) = record.get(VERIFIED) else { return Ok(Verification::NotVerified) };
    let bad = || Error::Invalid { reason: format!("migration {id}: the verification in its record is malformed") };
    let m = v.as_m().map_err(|_| bad())?;
    let n = |name: &str| m.get(name).and_then(|v| v.as_n().ok()).and_then(|v| v.parse::<u64>().ok()).ok_or_else(bad);
    let list = |name: &str| -> Result<Vec<(String, String)>, Error> {
        let l = m.get(name).and_then(|v| v.as_l().ok()).ok_or_else(bad)?;
        l.iter()
            .map(|e| match e.as_l().map(Vec::as_slice) {
                Ok([AttributeValue::S(k), AttributeValue::S(w)]) => Ok((k.clone(), w.clone())),
                _ => Err(bad()),
            })
            .collect()
    };
    let report = VerifyReport {
        id: id.to_owned(),
        entity: m.get("entity").and_then(|v| v.as_s().ok()).cloned().ok_or_else(bad)?,
        scanned: n("scanned")?,
        drifted: n("drifted")?,
        undecodable: n("undecodable")?,
        read_units: m.get("read_units").and_then(|v| v.as_n().ok()).and_then(|v| v.parse().ok()).ok_or_else(bad)?,
        drift: list("drift")?,
        undecodable_items: list("undecodable_items")?,
    };
    Ok(Verification::Checked { at_ms: n("at")?, report })
}

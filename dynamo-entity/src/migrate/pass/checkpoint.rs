//! The checkpoints of a pass, kept in the table itself under the partition `_MIGRATION#<id>`
//! (the table's partition key attribute; entity type `_migration`, which no entity scan or query
//! returns): an item `RUN` (the run number, the number of segments, `running` or `completed`)
//! and an item `SEGMENT#<n>` per segment ([`SegmentState`]: where its scan stands, its counts,
//! its lease and a write counter `v`).

use std::collections::HashMap;

use aws_sdk_dynamodb::error::SdkError;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};

use crate::error::Error;
use crate::expr::Placeholders;
use crate::migrate::pass::report::Counts;
use crate::migrate::pass::step::RETRY;
use crate::schema::reserved::{MIGRATION_PREFIX, MIGRATION_TYPE};
use crate::schema::{AttributeNames, Item};
use crate::table::{Call, Next, Retrying, Table};

/// The progress of one segment, as its checkpoint item holds it.
#[derive(Debug, Clone, Default)]
pub(super) struct SegmentState {
    pub(super) segment: u32,
    pub(super) last_key: Option<Item>,
    pub(super) done: bool,
    pub(super) started: bool,
    pub(super) counts: Counts,
    /// The checkpoint item's write counter `v` (0: no item): every write checks it.
    pub(super) version: u64,
    /// The worker holding the segment's lease, and until when (milliseconds since the Unix
    /// epoch).
    pub(super) owner: Option<String>,
    pub(super) lease_until: u64,
}

/// The checkpoint items of the pass `id` over the items of the entity `entity`, in `table`
/// (whose key attribute names are `names`).
pub(crate) struct Checkpoints<'a> {
    pub(crate) table: &'a Table,
    pub(crate) names: &'static AttributeNames,
    pub(crate) id: &'a str,
    pub(crate) entity: &'static str,
}

impl Checkpoints<'_> {
    fn partition(&self) -> AttributeValue {
        AttributeValue::S(format!("{MIGRATION_PREFIX}{}", self.id))
    }

    pub(crate) fn key(&self, sk: String) -> Item {
        HashMap::from([(self.names.pk.to_owned(), self.partition()), (self.names.sk.to_owned(), AttributeValue::S(sk))])
    }

    pub(crate) async fn get(&self, sk: String) -> Result<Option<Item>, Error> {
        let request = crate::table::body::get_item(
            self.table.client(),
            aws_sdk_dynamodb::operation::get_item::GetItemInput::builder()
                .table_name(self.table.name())
                .set_key(Some(self.key(sk)))
                .consistent_read(true)
                .return_consumed_capacity(ReturnConsumedCapacity::Indexes),
        );
        let out = self
            .table
            .execute(Call::new("GetItem", MIGRATION_TYPE), request)
            .await
            .map_err(|e| Error::sdk("GetItem", e))?;
        Ok(out.item)
    }

    /// Puts a checkpoint item without a condition.
    pub(crate) async fn put(&self, item: Item) -> Result<(), Error> {
        self.put_if(item, None).await.map(|_| ())
    }

    /// Puts a checkpoint item on `condition` (expression and placeholders); `Ok(false)` when
    /// the condition failed.
    pub(super) async fn put_if(&self, item: Item, condition: Option<(String, Placeholders)>) -> Result<bool, Error> {
        let (expr, names, values) = match condition {
            Some((expr, mut ph)) => (Some(expr), ph.take_names(), ph.take_values()),
            None => (None, None, None),
        };
        let (item, expr, names, values) = (&item, &expr, &names, &values);
        Retrying::new(Call::new("PutItem", MIGRATION_TYPE), RETRY)
            .run(&mut (), |(), attempt| {
                Box::pin(async move {
                    let request = self
                        .table
                        .client()
                        .put_item()
                        .table_name(self.table.name())
                        .set_item(Some(item.clone()))
                        .set_condition_expression(expr.clone())
                        .set_expression_attribute_names(names.clone())
                        .set_expression_attribute_values(values.clone())
                        .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
                        .send();
                    match self.table.execute(attempt.call(), request).await {
                        Ok(_) => Ok(Next::Done(true)),
                        Err(SdkError::ServiceError(e)) if e.err().is_conditional_check_failed_exception() => {
                            Ok(Next::Done(false))
                        }
                        // A checkpoint re-sent after it was applied fails its version condition: the
                        // segment is then claimed again from the checkpoint, as after a lost lease.
                        Err(e) if crate::retry::retryable(&e) => Ok(Next::Retry(Error::sdk("PutItem", e))),
                        Err(e) => Err(Error::sdk("PutItem", e)),
                    }
                })
            })
            .await?
    }

    /// Puts the run record of run 1 unless there is one already (several workers may start at
    /// once: the first one's record stands); `Ok(false)` when there was one.
    pub(super) async fn start(&self, segments: u32) -> Result<bool, Error> {
        let mut ph = Placeholders::default();
        let mut cond = String::from("attribute_not_exists(");
        ph.push_name(self.names.pk, &mut cond);
        cond.push(')');
        self.put_if(self.run_item(1, segments, "running"), Some((cond, ph))).await
    }

    /// The run record `RUN`: the run number, its segments, and `status` (`running` or
    /// `completed`).
    pub(super) fn run_item(&self, run: u64, segments: u32, status: &str) -> Item {
        let mut item = self.key("RUN".to_owned());
        if self.names.has_entity_type() {
            item.insert(self.names.entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("entity".to_owned(), AttributeValue::S(self.entity.to_owned()));
        item.insert("run".to_owned(), AttributeValue::N(run.to_string()));
        item.insert("segments".to_owned(), AttributeValue::N(segments.to_string()));
        item.insert("status".to_owned(), AttributeValue::S(status.to_owned()));
        item
    }

    /// The checkpoint item `SEGMENT#<n>` of segment `s` in run `run`.
    pub(super) fn segment_item(&self, run: u64, s: &SegmentState) -> Item {
        let mut item = self.key(format!("SEGMENT#{:07}", s.segment));
        let n = |v: u64| AttributeValue::N(v.to_string());
        let f = |v: f64| AttributeValue::N(v.to_string());
        if self.names.has_entity_type() {
            item.insert(self.names.entity_type.to_owned(), AttributeValue::S(MIGRATION_TYPE.to_owned()));
        }
        item.insert("run".to_owned(), n(run));
        item.insert("segment".to_owned(), n(u64::from(s.segment)));
        item.insert("done".to_owned(), AttributeValue::Bool(s.done));
        item.insert("v".to_owned(), n(s.version));
        item.insert("lease_until".to_owned(), n(s.lease_until));
        if let Some(o) = &s.owner {
            item.insert("owner".to_owned(), AttributeValue::S(o.clone()));
        }
        if let Some(k) = &s.last_key {
            item.insert("last_key".to_owned(), AttributeValue::M(k.clone()));
        }
        let c = &s.counts;
        for (name, v) in [
            ("scanned", c.scanned),
            ("updated", c.updated),
            ("skipped", c.skipped),
            ("failed", c.failed),
            ("vanished", c.vanished),
            ("changed", c.changed),
        ] {
            item.insert(name.to_owned(), n(v));
        }
        item.insert("read_units".to_owned(), f(c.read_units));
        item.insert("write_units".to_owned(), f(c.write_units));
        if !c.failures.is_empty() {
            let list = c
                .failures
                .iter()
                .map(|(k, why)| AttributeValue::L(vec![AttributeValue::S(k.clone()), AttributeValue::S(why.clone())]))
                .collect();
            item.insert("failures".to_owned(), AttributeValue::L(list));
        }
        item
    }

    /// The run record: (run, segments, completed).
    pub(super) async fn run_record(&self) -> Result<Option<(u64, u32, bool)>, Error> {
        let Some(item) = self.get("RUN".to_owned()).await? else { return Ok(None) };
        let n = |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|s| s.parse::<u64>().ok());
        let bad = || Error::Invalid { reason: format!("the run record of backfill {} is malformed", self.id) };
        let run = n("run").ok_or_else(bad)?;
        let segments = n("segments").and_then(|s| u32::try_from(s).ok()).ok_or_else(bad)?;
        let completed = matches!(item.get("status"), Some(AttributeValue::S(s)) if s == "completed");
        Ok(Some((run, segments, completed)))
    }

    /// Every checkpoint item of a segment (`SEGMENT#…`), by segment number: one strongly
    /// consistent `Query` of the migration's partition (paginated).
    async fn segment_items(&self) -> Result<HashMap<u32, Item>, Error> {
        let names = self.names;
        let items = migration_items(self.table, names.pk, self.partition(), Some((names.sk, "SEGMENT#"))).await?;
        let mut out = HashMap::with_capacity(items.len());
        for item in items {
            let segment =
                item.get("segment").and_then(|v| v.as_n().ok()).and_then(|n| n.parse::<u32>().ok()).ok_or_else(
                    || Error::Invalid {
                        reason: format!(
                            "a segment checkpoint of backfill {} has no segment number ({})",
                            self.id,
                            names.describe_key(&item)
                        ),
                    },
                )?;
            out.insert(segment, item);
        }
        Ok(out)
    }

    /// Where each of the `segments` segments of run `run` stands: a segment without a
    /// checkpoint, or with one of an earlier run, starts from its beginning.
    pub(super) async fn segment_states(&self, run: u64, segments: u32) -> Result<Vec<SegmentState>, Error> {
        let mut items = self.segment_items().await?;
        let run_text = run.to_string();
        let mut out = Vec::with_capacity(segments as usize);
        for s in 0..segments {
            let state = match items.remove(&s) {
                Some(item) if matches!(item.get("run"), Some(AttributeValue::N(r)) if *r == run_text) => {
                    SegmentState::from_item(s, &item)
                }
                // A segment of an earlier run starts again, over its item.
                Some(item) => SegmentState {
                    segment: s,
                    version: SegmentState::from_item(s, &item).version,
                    ..SegmentState::default()
                },
                None => SegmentState { segment: s, ..SegmentState::default() },
            };
            out.push(state);
        }
        Ok(out)
    }
}

impl SegmentState {
    /// Segment `segment` as its checkpoint `item` records it.
    fn from_item(segment: u32, item: &Item) -> SegmentState {
        let n =
            |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|s| s.parse::<u64>().ok()).unwrap_or(0);
        let f =
            |name: &str| item.get(name).and_then(|v| v.as_n().ok()).and_then(|s| s.parse::<f64>().ok()).unwrap_or(0.0);
        let failures = item
            .get("failures")
            .and_then(|v| v.as_l().ok())
            .map(|l| {
                l.iter()
                    .filter_map(|e| match e.as_l().ok()?.as_slice() {
                        [AttributeValue::S(k), AttributeValue::S(w)] => Some((k.clone(), w.clone())),
                        _ => None,
                    })
                    .collect()
            })
            .unwrap_or_default();
        SegmentState {
            segment,
            last_key: item.get("last_key").and_then(|v| v.as_m().ok()).cloned(),
            done: matches!(item.get("done"), Some(AttributeValue::Bool(true))),
            started: true,
            version: n("v"),
            owner: item.get("owner").and_then(|v| v.as_s().ok()).cloned(),
            lease_until: n("lease_until"),
            counts: Counts {
                scanned: n("scanned"),
                updated: n("updated"),
                skipped: n("skipped"),
                failed: n("failed"),
                vanished: n("vanished"),
                changed: n("changed"),
                read_units: f("read_units"),
                write_units: f("write_units"),
                failures,
            },
        }
    }
}

/// Every item of the migration records' partition `pk` (attribute `pk_attribute`), or with
/// `sk` (`(attribute, prefix)`) those whose sort key begins with the prefix: strongly
/// consistent `Query` requests, page after page, in sort key order. The one read of the
/// records that the backfills' checkpoints and the runner's list of migrations share.
///
/// # Errors
/// [`Error::Sdk`] from DynamoDB.
pub(crate) async fn migration_items(
    table: &Table,
    pk_attribute: &str,
    pk: AttributeValue,
    sk: Option<(&str, &str)>,
) -> Result<Vec<Item>, Error> {
    let mut out = Vec::new();
    let mut start: Option<Item> = None;
    loop {
        let mut ph = Placeholders::default();
        let mut cond = String::new();
        ph.push_name(pk_attribute, &mut cond);
        cond.push_str(" = ");
        ph.push_value(pk.clone(), &mut cond);
        if let Some((sk_attribute, prefix)) = sk {
            cond.push_str(" AND begins_with(");
            ph.push_name(sk_attribute, &mut cond);
            cond.push_str(", ");
            ph.push_value(AttributeValue::S(prefix.to_owned()), &mut cond);
            cond.push(')');
        }
        let request = table
            .client()
            .query()
            .table_name(table.name())
            .key_condition_expression(cond)
            .set_expression_attribute_names(ph.take_names())
            .set_expression_attribute_values(ph.take_values())
            .set_exclusive_start_key(start.take())
            .consistent_read(true)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
            .send();
        let page =
            table.execute(Call::new("Query", MIGRATION_TYPE), request).await.map_err(|e| Error::sdk("Query", e))?;
        out.extend(page.items.unwrap_or_default());
        match page.last_evaluated_key.filter(|k| !k.is_empty()) {
            Some(k) => start = Some(k),
            None => return Ok(out),
        }
    }
}

//! A pass checked again: a read-only parallel scan that asks the pass's step, for each item of
//! the entity, what it would still change ([`Backfill::verify`]), and what it found
//! ([`VerifyReport`]).

use std::fmt;

use futures::{StreamExt, TryStreamExt};

use crate::error::Error;
use crate::migrate::pass::Backfill;
use crate::migrate::pass::step::Check;
use crate::schema::Entity;

/// At most this many items of each kind (drifted, undecodable) are named in a
/// [`VerifyReport`].
pub const VERIFY_EXAMPLES: usize = 20;

/// What a verification found: the items of the entity that the step would still change, and
/// those it cannot judge. See [`Backfill::verify`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VerifyReport {
    /// The migration id.
    pub id: String,
    /// The entity type name whose items were read.
    pub entity: String,
    /// Items of the entity read.
    pub scanned: u64,
    /// Items the step would still change: a secondary index key missing or stale (a backfill),
    /// an item at an earlier schema version (a bulk upgrade), an item at its old key (a
    /// re-keying), a native key attribute missing or an old key attribute left (a native-key
    /// migration).
    pub drifted: u64,
    /// Items the step cannot judge: they do not decode, or their keys do not encode. A pass
    /// would fail on them; they are never left out silently.
    pub undecodable: u64,
    /// Read units of the scan.
    pub read_units: f64,
    /// The first drifted items (at most [`VERIFY_EXAMPLES`], in key order): each key
    /// (`PK=… SK=…`) and what the step would change.
    pub drift: Vec<(String, String)>,
    /// The first undecodable items (at most [`VERIFY_EXAMPLES`], in key order): each key and
    /// why.
    pub undecodable_items: Vec<(String, String)>,
}

impl VerifyReport {
    /// Whether the step would change no item and every item could be judged.
    ///
    /// ```
    /// use dynamo_entity::migrate::VerifyReport;
    ///
    /// let mut report = VerifyReport { scanned: 3, ..VerifyReport::default() };
    /// assert!(report.is_clean());
    /// report.drifted = 1;
    /// assert!(!report.is_clean());
    /// ```
    pub fn is_clean(&self) -> bool {
        self.drifted == 0 && self.undecodable == 0
    }
}

impl fmt::Display for VerifyReport {
    /// One line of counts, then one indented line per item named.
    ///
    /// ```
    /// use dynamo_entity::migrate::VerifyReport;
    ///
    /// let report = VerifyReport {
    ///     id: "0002-member-keys".into(),
    ///     entity: "Member".into(),
    ///     scanned: 600,
    ///     drifted: 1,
    ///     drift: vec![("PK=MEMBER#m1 SK=META".into(), "GSI1PK missing".into())],
    ///     ..VerifyReport::default()
    /// };
    /// assert_eq!(
    ///     report.to_string(),
    ///     "600 Member items checked: 1 the step would still change, 0 undecodable\n  PK=MEMBER#m1 SK=META: GSI1PK missing"
    /// );
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {} items checked: {} the step would still change, {} undecodable",
            self.scanned, self.entity, self.drifted, self.undecodable
        )?;
        for (key, why) in &self.drift {
            write!(f, "\n  {key}: {why}")?;
        }
        for (key, why) in &self.undecodable_items {
            write!(f, "\n  {key}: cannot be checked: {why}")?;
        }
        Ok(())
    }
}

impl VerifyReport {
    /// Adds `o`'s counts and items to these, keeping the first [`VERIFY_EXAMPLES`] of each in
    /// key order.
    fn add(&mut self, o: VerifyReport) {
        self.scanned += o.scanned;
        self.drifted += o.drifted;
        self.undecodable += o.undecodable;
        self.read_units += o.read_units;
        for (list, more) in [(&mut self.drift, o.drift), (&mut self.undecodable_items, o.undecodable_items)] {
            list.extend(more);
            list.sort();
            list.truncate(VERIFY_EXAMPLES);
        }
    }
}

impl<E: Entity> Backfill<E> {
    /// Checks the pass again, writing nothing: a parallel scan (strongly consistent, with this
    /// builder's segments, concurrency, page size and read rate) hands each item of `E` to the
    /// pass's step, which says what it would still change. A backfill finds the items missing
    /// a secondary index key it writes, or with a stale one; a bulk upgrade the items at an
    /// earlier schema version; a re-keying the items still at their old key. An item the step
    /// cannot judge (it does not decode) is counted and named, never left out.
    ///
    /// This is how an item a late writer wrote (an instance still on the code before the step,
    /// during a rolling deploy) is found once the pass is done: [`run`](Self::run) of a
    /// completed pass returns its old report without reading anything, and
    /// [`rerun`](Self::rerun) brings the items found back. Nothing is checkpointed: a
    /// verification stopped part way is started again from the beginning.
    ///
    /// ```no_run
    /// use dynamo_entity::{Entity, Table};
    ///
    /// #[derive(Entity, Debug, Clone)]
    /// #[entity(pk = "MEMBER#<id>", sk = "META", gsi2 = "TEAM#<team>", gsi2_sk = "<id>")]
    /// pub struct Member { pub id: String, pub team: String }
    ///
    /// # async fn f(table: Table) -> dynamo_entity::Result<()> {
    /// let backfill = table.backfill::<Member>("member-gsi2").segments(8);
    /// let found = backfill.verify().await?;
    /// if !found.is_clean() {
    ///     println!("{found}");        // the count, and the first keys with what is missing
    ///     backfill.rerun().await?;    // writes the keys of the items found, skips the rest
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The step's refusal before anything is read (a bulk upgrade of an entity without a
    /// schema version: [`Error::Invalid`]); [`Error::Sdk`] from DynamoDB.
    pub async fn verify(&self) -> Result<VerifyReport, Error> {
        if let Some(e) = self.step.refusal() {
            return Err(e);
        }
        let segments = self.segments;
        let parts: Vec<VerifyReport> = futures::stream::iter((0..segments).map(|s| self.verify_segment(s, segments)))
            .buffer_unordered(self.concurrency)
            .try_collect()
            .await?;
        let mut total = VerifyReport { id: self.id.clone(), entity: E::TYPE.to_owned(), ..VerifyReport::default() };
        for part in parts {
            total.add(part);
        }
        tracing::info!(
            target: "dynamo_entity",
            migration = %self.id,
            scanned = total.scanned,
            drifted = total.drifted,
            undecodable = total.undecodable,
            "verification done"
        );
        Ok(total)
    }

    /// The verification of segment `segment` of `segments`, page by page.
    async fn verify_segment(&self, segment: u32, segments: u32) -> Result<VerifyReport, Error> {
        let mut scan = self.table.scan::<E>().segment(segment, segments).consistent_read();
        if let Some(n) = self.page_size {
            scan = scan.page_size(n);
        }
        if let Some(rate) = &self.rate {
            scan = scan.rate_limit(std::sync::Arc::clone(rate));
        }
        let mut out = VerifyReport::default();
        let mut start = None;
        loop {
            let page = scan.raw_page(start).await?;
            out.read_units += page.consumed.read();
            for item in &page.items {
                out.scanned += 1;
                let (list, count, why) = match self.step.check(item) {
                    Check::Clean => continue,
                    Check::Drift(why) => (&mut out.drift, &mut out.drifted, why),
                    Check::Undecodable(why) => (&mut out.undecodable_items, &mut out.undecodable, why),
                };
                *count += 1;
                list.push((E::NAMES.describe_key(item), why));
                if list.len() > 2 * VERIFY_EXAMPLES {
                    list.sort();
                    list.truncate(VERIFY_EXAMPLES);
                }
            }
            match page.last_key.filter(|k| !k.is_empty()) {
                Some(k) => start = Some(k),
                None => break,
            }
        }
        out.drift.sort();
        out.drift.truncate(VERIFY_EXAMPLES);
        out.undecodable_items.sort();
        out.undecodable_items.truncate(VERIFY_EXAMPLES);
        Ok(out)
    }
}

//! The scan builder, [`ScanRequest`]: what it reads (the table or an index of an entity), its
//! filter, consistency, item counts, segments, concurrency, read rate and cursor.

use std::sync::Arc;

use crate::error::Error;
use crate::query::Lenient;
#[cfg(doc)]
use crate::query::Page;
use crate::query::options::QueryOptions;
use crate::query::rate::ReadRate;
use crate::query::scan::decode::{Decoder, Misfit};
use crate::query::scan::filter::TypeFilter;
use crate::query::scan::index::{IndexScan, classify_entity, fetch_entity};
use crate::schema::{AttributeNames, Entity, Index};
use crate::table::Table;

/// DynamoDB's limit on `TotalSegments` of a parallel scan.
pub const MAX_TOTAL_SEGMENTS: u32 = 1_000_000;

/// A scan ready to run; from [`Table::scan`] or [`Table::scan_table`].
#[must_use = "a scan does nothing until it is sent"]
pub struct ScanRequest<T> {
    pub(super) table: Table,
    pub(super) names: &'static AttributeNames,
    /// The entity type (entity scan) or `""` (a scan of an entity enum).
    pub(super) entity: &'static str,
    /// What cursors name: the entity type, or the enum's types joined.
    pub(super) label: String,
    pub(super) decode: Decoder<T>,
    /// Filter, consistency, item counts, page size, cursor, lenience (a scan has no order).
    pub(crate) options: QueryOptions,
    pub(super) segment: Option<(u32, u32)>,
    pub(super) parallel: Option<u32>,
    pub(super) concurrency: Option<usize>,
    pub(super) rate: Option<Arc<ReadRate>>,
    /// The secondary index scanned ([`ScanRequest::index`]); `None`: the table.
    pub(super) on: Option<IndexScan<T>>,
    /// An error found while the scan was built, returned when it is sent.
    pub(super) error: Option<Error>,
    /// For a scan of an entity enum, the enum's name: an item it has no variant for is an
    /// error ([`Error::UnexpectedItem`]) unless [`skip_unknown`](ScanRequest::skip_unknown).
    pub(super) enum_name: Option<&'static str>,
    /// Items of entity types the enum does not name are counted in `passed_over`.
    pub(super) skip_unknown: bool,
    /// For an entity scan, the entity and the error of an item read as its own: an item of
    /// its type value that no entity of the table owns is reported, not skipped.
    pub(super) misfit: Option<Misfit>,
    /// For an entity scan whose table's entities are known: what its type filter leaves on
    /// the server (see `TypeFilter`).
    pub(super) types: Option<Arc<TypeFilter>>,
}

impl<T> Clone for ScanRequest<T> {
    fn clone(&self) -> Self {
        ScanRequest {
            table: self.table.clone(),
            names: self.names,
            entity: self.entity,
            label: self.label.clone(),
            decode: self.decode,
            options: self.options.clone(),
            segment: self.segment,
            parallel: self.parallel,
            concurrency: self.concurrency,
            rate: self.rate.clone(),
            on: self.on.clone(),
            error: self.error.as_ref().map(Error::copy_of_build_error),
            enum_name: self.enum_name,
            skip_unknown: self.skip_unknown,
            misfit: self.misfit,
            types: self.types.clone(),
        }
    }
}

impl<T> std::fmt::Debug for ScanRequest<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScanRequest")
            .field("table", &self.table.name())
            .field("of", &self.label)
            .field("segment", &self.segment)
            .field("parallel", &self.parallel)
            .finish_non_exhaustive()
    }
}

impl<T: Send + 'static> ScanRequest<T> {
    pub(super) fn new(
        table: Table,
        names: &'static AttributeNames,
        entity: &'static str,
        label: String,
        decode: Decoder<T>,
    ) -> Self {
        ScanRequest {
            table,
            names,
            entity,
            label,
            decode,
            options: QueryOptions::default(),
            segment: None,
            parallel: None,
            concurrency: None,
            rate: None,
            on: None,
            error: None,
            enum_name: None,
            skip_unknown: false,
            misfit: None,
            types: None,
        }
    }

    /// The index scanned: the table ([`Index::Primary`]) or the secondary index of
    /// [`index`](ScanRequest::index).
    pub(super) fn scanned_index(&self) -> Index {
        self.on.as_ref().map_or(Index::Primary, |o| o.index)
    }

    crate::query::options::read_setters!("dynamo_entity::query::scan::ScanRequest<T>", "<T: Send + 'static>"; filter consistent_read max_items page_items limit page_size after);

    /// A lenient scan: an item of the scanned type that does not decode (a missing or
    /// mistyped attribute, a key that does not parse), and in a scan of an enum an item of a
    /// type it has no variant for, is reported in its page's [`skipped`](Page::skipped), with
    /// its key and error, beside the items that decoded, instead of failing the scan. Set the
    /// other options first; see [`Lenient`]. [`page_items`](Self::page_items) and
    /// [`max_items`](Self::max_items) count the decoded items.
    pub fn lenient(self) -> Lenient<Self> {
        Lenient::new(self)
    }

    /// For a scan of an entity enum ([`Table::scan_table`]): count the items of entity types
    /// the enum has no variant for in [`Page::passed_over`] instead of failing the scan with
    /// [`Error::UnexpectedItem`] (or, in a [`lenient`](Self::lenient) scan, reporting each in
    /// [`skipped`](Page::skipped)), and log each with `tracing` at `WARN`. The library's own
    /// guard and migration items are counted in `passed_over` in any case. An entity
    /// scan selects its type with its filter, and ignores this.
    pub fn skip_unknown(mut self) -> Self {
        self.skip_unknown = true;
        self
    }

    /// Scan only segment `segment` of `total` (`Segment` / `TotalSegments`): the way to spread
    /// one scan over several workers, each taking its own segments. `total` is 1 to
    /// 1,000,000 and `segment` below it (checked when sent).
    pub fn segment(mut self, segment: u32, total: u32) -> Self {
        self.segment = Some((segment, total));
        self
    }

    /// A parallel scan in `total` segments, read concurrently by [`pages`](Self::pages),
    /// [`stream`](Self::stream) and [`all`](Self::all) (at most
    /// [`concurrency`](Self::concurrency) segments at a time, `total` by default); each page says
    /// its [`segment`](Page::segment) and carries that segment's cursor.
    pub fn parallel(mut self, total: u32) -> Self {
        self.parallel = Some(total);
        self
    }

    /// How many segments of a [`parallel`](Self::parallel) scan are read at a time. At least
    /// 1: a scan with 0 is refused before anything is sent ([`Error::Invalid`]).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n);
        self
    }

    /// At most `units_per_second` read capacity units a second over the whole scan (all its
    /// segments); see [`ReadRate`].
    pub fn read_rate(self, units_per_second: f64) -> Self {
        self.rate_limit(Arc::new(ReadRate::new(units_per_second)))
    }

    /// Shares the read rate limit `rate` with other scans.
    pub fn rate_limit(mut self, rate: Arc<ReadRate>) -> Self {
        self.rate = Some(rate);
        self
    }

    pub(super) fn check_segments(&self) -> Result<(), Error> {
        let invalid = |reason: String| Err(Error::Invalid { reason });
        if let Some(e) = &self.error {
            return Err(e.copy_of_build_error());
        }
        self.options.counts.check(self.options.page_size, "Scan", &self.label)?;
        if self.concurrency == Some(0) {
            return invalid(format!("a scan of {}: concurrency(0) would read no segment; give at least 1", self.label));
        }
        if let (true, Some(on)) = (self.options.consistent, &self.on) {
            if !on.index.is_local() {
                return invalid(format!(
                    "a scan of {} on {} cannot be strongly consistent: DynamoDB reads a global secondary index \
                     with eventual consistency only",
                    self.label,
                    self.names.label(on.index)
                ));
            }
        }
        if let Some(total) = self.parallel {
            if !(1..=MAX_TOTAL_SEGMENTS).contains(&total) {
                return invalid(format!("a parallel scan has 1 to {MAX_TOTAL_SEGMENTS} segments, not {total}"));
            }
            if self.segment.is_some() {
                return invalid("a scan is either parallel or of one segment, not both".to_owned());
            }
        }
        if let Some((segment, total)) = self.segment {
            if !(1..=MAX_TOTAL_SEGMENTS).contains(&total) || segment >= total {
                return invalid(format!(
                    "segment {segment} of {total}: TotalSegments is 1 to {MAX_TOTAL_SEGMENTS} and Segment below it"
                ));
            }
        }
        Ok(())
    }
}

impl<E: Entity> ScanRequest<E> {
    /// Scans secondary index `index` (a GSI, LSI or the inverted index that `E` writes)
    /// instead of the table: DynamoDB reads only the items in the index (a sparse index holds
    /// fewer), and the read capacity is the index's.
    ///
    /// An index whose projection leaves attributes out (`KEYS_ONLY`, `INCLUDE`) holds no whole
    /// items: the scan reads them whole by their primary keys (`BatchGetItem`, 100 keys a
    /// request, unprocessed keys retried, in the scan's order), as a query does, so a page never
    /// holds a partial entity. An index item without the entity type attribute is taken as
    /// `E`'s when its primary key has the shape of `E`'s key templates (the type filter lets
    /// such items through: `(<type> = E OR attribute_not_exists(<type>))`). When the handle
    /// does not know the projections ([`Table::with_layout`], [`Table::declared`]), an item that
    /// lacks an attribute `E` reads is read whole. A [`filter`](Self::filter) can only see the
    /// attributes the index holds: one on another attribute is refused before sending
    /// ([`Error::FilterNotProjected`]) when the handle knows the projection.
    ///
    /// # Errors
    /// When sent: [`Error::NativeIndexScan`] for a native multi-attribute GSI of `E`;
    /// [`Error::Invalid`] for an index `E` does not write, or a
    /// [`consistent_read`](Self::consistent_read) of a GSI (DynamoDB reads GSIs with eventual
    /// consistency only), before anything is sent; [`Error::FilterNotProjected`] for a filter
    /// on an attribute the index does not project, before anything is sent;
    /// [`Error::BatchGet`] when whole items could not all be read.
    pub fn index(mut self, index: Index) -> Self {
        if index == Index::Primary {
            self.on = None;
            return self;
        }
        if E::SCHEMA.multi_gsis.iter().any(|g| g.index == index) {
            let index = E::NAMES.index_name(index).unwrap_or_default().to_owned();
            self.error = Some(Error::NativeIndexScan { entity: E::TYPE, index });
        } else if E::schema().index(index).is_none() {
            let reason = format!(
                "a scan of {} on {}: {} does not write that index (its templates name no key of it)",
                E::TYPE,
                E::NAMES.label(index),
                E::TYPE
            );
            self.error = Some(Error::Invalid { reason });
        }
        let classify =
            if self.table.shares_type::<E>() { classify_entity::<E, true> } else { classify_entity::<E, false> };
        self.on = Some(IndexScan { index, classify, fetch: fetch_entity::<E>, projection: Table::projection_for::<E> });
        self
    }
}

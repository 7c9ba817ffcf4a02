//! Typed scans: every item of one entity type ([`Table::scan`]) or of the table-level entity
//! enum ([`Table::scan_table`]), with typed filters, both consistencies, page cursors bound to
//! their scan, consumed capacity, and parallel scans (`Segment` / `TotalSegments`) with bounded
//! concurrency and an optional read rate limit.
//!
//! A `Scan` reads (and pays for) every item of the table, whatever it returns: scans are for
//! maintenance (migrations, backfills, exports, audits), not for the application's reads, which
//! the design lint flags ([`Read::scan`](crate::schema::Read::scan)). Every access pattern of
//! the application should be a query of one partition.
//!
//! ```ignore
//! // Every Skill, 4 segments at a time, at most 100 read units per second.
//! let skills: Vec<Skill> = table.scan::<Skill>().parallel(8).concurrency(4).read_rate(100.0).all().await?;
//! // Every item of the table, decoded by its entity type.
//! let mut pages = table.scan_table::<SkillExchangeItem>().pages();
//! ```
//!
//! # What a page reports
//! An entity scan selects its entity's items with a `FilterExpression` on the entity type
//! attribute (`(#type = :type OR attribute_not_exists(#type))`, with the
//! [`filter`](ScanRequest::filter) ANDed to it), so DynamoDB reads every item and returns only
//! those: [`Page::scanned`] counts the items read (DynamoDB's `ScannedCount`),
//! [`Page::filtered_out`] those the filter left out (items of other entity types, and of
//! this one that the filter rejected). An item without a type attribute comes back: one with
//! the entity's key is reported as a get reports it ([`Error::WrongEntity`]), any other is
//! counted in [`Page::passed_over`]. A scan of the
//! table-level enum has no type filter: the library's own items (uniqueness guards, migration
//! records) are counted in [`Page::passed_over`], and an item of a type the enum does not name
//! fails the scan ([`Error::UnexpectedItem`]) unless the scan is
//! [`lenient`](ScanRequest::lenient) (it is reported in [`Page::skipped`]) or
//! [`skip_unknown`](ScanRequest::skip_unknown) (counted in `passed_over`). Nothing is left out
//! silently: `scanned = items + filtered_out + passed_over + skipped` for each page that a
//! [`page_items`](ScanRequest::page_items) or [`max_items`](ScanRequest::max_items) does not cut.
//!
//! An item of the scanned entity type that does not decode is an error naming its key
//! ([`Error::Decode`]): a scan never drops such an item.

use std::collections::BTreeMap;
use std::sync::Arc;

use aws_sdk_dynamodb::operation::scan::ScanInput;
use aws_sdk_dynamodb::operation::scan::builders::ScanInputBuilder;
use aws_sdk_dynamodb::types::{AttributeValue, ReturnConsumedCapacity};
use futures::{Stream, StreamExt, TryStreamExt};

use crate::capacity::Capacity;
use crate::error::{Error, ItemError};
use crate::expr::{Condition, Placeholders};
use crate::owner::is_library_item;
use crate::owner::type_of_named;
use crate::query::cursor::{self, Scope};
use crate::query::pages::ItemCounts;
use crate::query::{Cursor, Lenient, Page, primary_key_of};
use crate::schema::{Admits, AttributeNames, Entity, EntityEnum, Index, Item, PrimaryKey, Projection, TableItems};
use crate::table::{Call, Table};

pub use super::rate::ReadRate;

/// DynamoDB's limit on `TotalSegments` of a parallel scan.
pub const MAX_TOTAL_SEGMENTS: u32 = 1_000_000;

/// A page of a scan, by its former name: every read's page is a [`Page`] (the scan's former
/// `skipped` count is [`Page::passed_over`], its `undecodable` items are [`Page::skipped`]).
#[deprecated(
    since = "0.1.0",
    note = "every read's page is a `Page<T>`: `undecodable` is now `skipped`, `skipped` is `passed_over`"
)]
pub type ScanPage<T> = Page<T>;

/// One raw page of one segment: what the backfills work from.
pub(crate) struct RawPage {
    pub(crate) items: Vec<Item>,
    pub(crate) last_key: Option<Item>,
    pub(crate) consumed: Capacity,
    /// Items DynamoDB read for the page (`ScannedCount`: every entity type).
    pub(crate) examined: u64,
}

type Decoder<T> = fn(&Item) -> Result<Option<T>, Error>;

/// How an item of a scanned secondary index is taken (see [`ScanRequest::index`]): decoded,
/// to be read whole by its primary key, or another entity's (`None`). Its arguments are the
/// item, the index and the index's projection when the handle knows it.
type Classifier<T> = fn(&Item, Index, Option<Projection>) -> Result<Option<ScanSlot<T>>, Error>;

/// Reads the whole items of primary keys, in order (`None`: no such item any more).
type Fetcher<T> = fn(Table, Vec<PrimaryKey>, bool) -> futures::future::BoxFuture<'static, Fetched<T>>;

/// What a [`Fetcher`] read: the whole items in the keys' order (`None`: gone, or undecodable
/// in a lenient scan), and the undecodable ones of a lenient scan.
type Fetched<T> = Result<(Vec<Option<T>>, Vec<ItemError>), Error>;

/// An item of a page being scanned: decoded, or projected and still to be read whole.
enum ScanSlot<T> {
    Done(T),
    Fetch(PrimaryKey),
}

/// The reading of a secondary index: which index, and how its projected items are taken.
struct IndexScan<T> {
    index: Index,
    classify: Classifier<T>,
    fetch: Fetcher<T>,
    /// The index's projection as the scanned entity's reads know it ([`Table::projection_for`]).
    projection: fn(&Table, Index) -> Option<Projection>,
}

impl<T> Clone for IndexScan<T> {
    fn clone(&self) -> Self {
        IndexScan { index: self.index, classify: self.classify, fetch: self.fetch, projection: self.projection }
    }
}

/// [`Classifier`] of entity `E`: an item with `E`'s type attribute decodes when the index's
/// projection covers `E` (or, the projection unknown, the item holds every attribute `E`
/// reads) and is read whole otherwise; an item without a type attribute (a `KEYS_ONLY`
/// projection, or an `INCLUDE` one without it) whose primary key has the shape of `E`'s
/// templates is read whole; any other item is another entity's. `SHARED`: other entities of
/// the table share `E`'s type value, so an item of that type is `E`'s only when its primary key
/// has the shape of `E`'s templates.
fn classify_entity<E: Entity, const SHARED: bool>(
    item: &Item,
    index: Index,
    projection: Option<Projection>,
) -> Result<Option<ScanSlot<E>>, Error> {
    let view = crate::owner::View { known: None, shared: SHARED, projection };
    match crate::owner::claim_own(E::SCHEMA, view, index, item) {
        None => Ok(None),
        Some(crate::owner::Found::Whole) => E::from_item(item).map(|e| Some(ScanSlot::Done(e))),
        // A scan reads an index item whose projection is not known whole.
        Some(_) => Ok(Some(ScanSlot::Fetch(primary_key_of(item, E::NAMES)))),
    }
}

/// [`Fetcher`] of entity `E`: `BatchGetItem` in requests of 100 keys, unprocessed keys
/// retried, in the keys' order.
fn fetch_entity<E: Entity>(
    table: Table,
    keys: Vec<PrimaryKey>,
    lenient: bool,
) -> futures::future::BoxFuture<'static, Fetched<E>> {
    Box::pin(async move {
        // Strict unless lenient: an item that does not decode fails the scan.
        let mut undecodable = Vec::new();
        let items = super::read_whole(&table, keys, lenient, &mut undecodable).await?;
        Ok((items, undecodable))
    })
}

/// `E` decoded from `item` when it is `E`'s: it has `E`'s type value (and, `SHARED`: other
/// entities of the table share that value, the shape of `E`'s key templates too); `None` for
/// another entity's item.
fn decode_entity<E: Entity, const SHARED: bool>(item: &Item) -> Result<Option<E>, Error> {
    if crate::owner::is_type(item, E::SCHEMA) && (!SHARED || crate::owner::fits_key(E::SCHEMA, item)) {
        E::from_item(item).map(Some)
    } else {
        Ok(None)
    }
}

/// [`Misfit`] of entity `E`: the [`owner`](crate::owner) rule among the entities the handle
/// knows.
fn misfit_of<E: Entity>(table: &Table, index: Index, item: &Item) -> Option<Error> {
    crate::owner::misfit(E::SCHEMA, table.entities_of::<E>(), index, item)
}

/// The error of an item that an entity scan reads as its entity's but that no entity of the
/// table owns ([`Table::misfit`]); `None` for any other item.
type Misfit = fn(&Table, Index, &Item) -> Option<Error>;

/// A scan ready to run; from [`Table::scan`] or [`Table::scan_table`].
#[must_use = "a scan does nothing until it is sent"]
pub struct ScanRequest<T> {
    table: Table,
    names: &'static AttributeNames,
    /// The entity type (entity scan) or `""` (a scan of an entity enum).
    entity: &'static str,
    /// What cursors name: the entity type, or the enum's types joined.
    label: String,
    decode: Decoder<T>,
    filter: Option<Condition>,
    consistent: bool,
    /// The decoded items returned in all and on each page.
    counts: ItemCounts,
    page_size: Option<i32>,
    segment: Option<(u32, u32)>,
    parallel: Option<u32>,
    concurrency: Option<usize>,
    rate: Option<Arc<ReadRate>>,
    after: Option<Cursor>,
    /// The secondary index scanned ([`ScanRequest::index`]); `None`: the table.
    on: Option<IndexScan<T>>,
    /// An error found while the scan was built, returned when it is sent.
    error: Option<Error>,
    /// Items that do not decode are reported in the page instead of failing the scan.
    pub(crate) lenient: bool,
    /// For a scan of an entity enum, the enum's name: an item it has no variant for is an
    /// error ([`Error::UnexpectedItem`]) unless [`skip_unknown`](ScanRequest::skip_unknown).
    enum_name: Option<&'static str>,
    /// Items of entity types the enum does not name are counted in `skipped`.
    skip_unknown: bool,
    /// For an entity scan, the entity and the error of an item read as its own: an item of
    /// its type value that no entity of the table owns is reported, not skipped.
    misfit: Option<Misfit>,
    /// For an entity scan whose table's entities are known: what its type filter leaves on
    /// the server (see [`TypeFilter`]).
    types: Option<Arc<TypeFilter>>,
}

/// What the type filter of an entity scan leaves on the server when the table's entities are
/// known: the items typed as another entity of the table or as one of the library's own items
/// (guards, migration records), except those whose keys begin as the scanned entity's do (when
/// its partition key begins with a placeholder, only the library's own items).
/// Everything else comes back to be decoded or reported: the entity's items, and items without
/// a type, with a type that is not a string, or with one no entity of the table has, which
/// [`Table::misfit`] reports when their keys are the entity's.
#[derive(Debug)]
struct TypeFilter {
    /// The type values of the table's other entities and of the library's own items.
    others: Vec<&'static str>,
    /// The text the entity's partition key begins with (its first literal text), and its sort
    /// key's when it has one: an item of another type there may be at one of the entity's
    /// keys. `None` for a partition key that begins with a placeholder.
    starts: Option<(String, Option<String>)>,
}

/// DynamoDB's limit on the operands of one `IN`: a table with more entity types than that is
/// scanned with the plain type filter.
const MAX_IN_OPERANDS: usize = 100;

impl<T> Clone for ScanRequest<T> {
    fn clone(&self) -> Self {
        ScanRequest {
            table: self.table.clone(),
            names: self.names,
            entity: self.entity,
            label: self.label.clone(),
            decode: self.decode,
            filter: self.filter.clone(),
            consistent: self.consistent,
            counts: self.counts,
            page_size: self.page_size,
            segment: self.segment,
            parallel: self.parallel,
            concurrency: self.concurrency,
            rate: self.rate.clone(),
            after: self.after.clone(),
            on: self.on.clone(),
            error: self.error.as_ref().map(Error::copy_of_build_error),
            lenient: self.lenient,
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

/// The `FilterExpression` and its placeholders.
struct Parts {
    filter: Option<String>,
    names: Option<std::collections::HashMap<String, String>>,
    values: Option<std::collections::HashMap<String, AttributeValue>>,
}

impl<T: Send + 'static> ScanRequest<T> {
    fn new(
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
            filter: None,
            consistent: false,
            counts: ItemCounts::default(),
            page_size: None,
            segment: None,
            parallel: None,
            concurrency: None,
            rate: None,
            after: None,
            on: None,
            error: None,
            lenient: false,
            enum_name: None,
            skip_unknown: false,
            misfit: None,
            types: None,
        }
    }

    /// The index scanned: the table ([`Index::Primary`]) or the secondary index of
    /// [`index`](ScanRequest::index).
    fn scanned_index(&self) -> Index {
        self.on.as_ref().map_or(Index::Primary, |o| o.index)
    }

    /// Only return items for which `condition` holds (`FilterExpression`, ANDed to the entity
    /// type filter of an entity scan). Items it rejects are still read and paid for, and are
    /// counted in [`Page::filtered_out`]. Several calls are combined with AND.
    ///
    /// A scan of a secondary index ([`index`](Self::index)) whose projection leaves attributes
    /// out (`KEYS_ONLY`, `INCLUDE`) reads index items, which hold only the table's and the
    /// index's key attributes and the projected ones: a filter on another attribute (of a
    /// path, its top-level attribute) is refused before sending with
    /// [`Error::FilterNotProjected`] when the handle knows the projection, as for a query
    /// ([`QueryRequest::filter`](super::QueryRequest::filter)).
    /// DynamoDB Local evaluates such a filter against the table's whole item, so its answer
    /// would not tell what a scan of the index holds. Filter after reading, or project the
    /// attribute.
    pub fn filter(mut self, condition: Condition) -> Self {
        self.filter = Some(match self.filter.take() {
            Some(c) => c.and(condition),
            None => condition,
        });
        self
    }

    /// Strongly consistent reads: every item as of its last acknowledged write, at twice the
    /// read capacity of the default eventually consistent scan.
    pub fn consistent_read(mut self) -> Self {
        self.consistent = true;
        self
    }

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

    /// The most items the scan returns in all, whichever way it is read: [`send`](Self::send)
    /// returns one page of at most `n` (it reads on until it has `n` or the scan or segment is
    /// exhausted; the page's cursor resumes right after the last item returned),
    /// [`pages`](Self::pages) yields pages that hold at most `n` together, and
    /// [`stream`](Self::stream) / [`all`](Self::all) at most `n` items. Of a
    /// [`parallel`](Self::parallel) scan's pages, the one that reaches `n` is cut to it and has
    /// no cursor.
    pub fn max_items(mut self, n: usize) -> Self {
        self.counts.max_items = Some(n);
        self
    }

    /// Pages of up to `n` decoded items: [`send`](Self::send) returns one page of at most `n`
    /// (reading on until it has `n` or the scan or segment is exhausted) whose cursor resumes
    /// right after its last item; each page of [`pages`](Self::pages) holds up to `n` and
    /// continues from the one before. [`stream`](Self::stream) and [`all`](Self::all) read every
    /// item (up to [`max_items`](Self::max_items)), `n` at a time.
    pub fn page_items(mut self, n: usize) -> Self {
        self.counts.page_items = Some(n);
        self
    }

    /// Deprecated: the total of [`max_items`](Self::max_items), which it sets. It once meant
    /// the items of each page, which is now [`page_items`](Self::page_items).
    ///
    /// ```compile_fail
    /// #![deny(deprecated)]
    /// fn old<T: Send + 'static>(scan: dynamo_entity::query::scan::ScanRequest<T>) {
    ///     let _ = scan.limit(3);
    /// }
    /// ```
    /// ```
    /// #![deny(deprecated)]
    /// fn new<T: Send + 'static>(scan: dynamo_entity::query::scan::ScanRequest<T>) {
    ///     let _ = scan.max_items(3).page_items(3);
    /// }
    /// ```
    #[deprecated(note = "ambiguous: use `max_items(n)` for the most items in all (what `limit` does), or \
                         `page_items(n)` for pages of up to n items")]
    pub fn limit(self, n: usize) -> Self {
        self.max_items(n)
    }

    /// DynamoDB's `Limit`: how many items one `Scan` request reads, before the entity type
    /// filter and any other; not a count of the items returned (that is
    /// [`page_items`](Self::page_items) or [`max_items`](Self::max_items)). By default, up to
    /// 1 MB of items a request.
    pub fn page_size(mut self, n: i32) -> Self {
        self.page_size = Some(n.max(1));
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

    /// How many segments of a [`parallel`](Self::parallel) scan are read at a time (at least
    /// 1).
    pub fn concurrency(mut self, n: usize) -> Self {
        self.concurrency = Some(n.max(1));
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

    /// Start after `cursor` (from a page of the same scan, and the same segment).
    pub fn after(mut self, cursor: impl Into<Option<Cursor>>) -> Self {
        self.after = cursor.into();
        self
    }

    fn check_segments(&self) -> Result<(), Error> {
        let invalid = |reason: String| Err(Error::Invalid { reason });
        if let Some(e) = &self.error {
            return Err(e.copy_of_build_error());
        }
        if let (true, Some(on)) = (self.consistent, &self.on) {
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

    /// The filter of the scan's requests. `broad`: an entity scan that decodes what it reads
    /// lets through everything it may have to report (see [`TypeFilter`]; without the table's
    /// entities, also items whose type is not a string); otherwise (a backfill's raw pages)
    /// only the entity's items and items without a type.
    fn parts(&self, broad: bool) -> Result<Parts, Error> {
        let mut ph = Placeholders::default();
        let mut text = String::new();
        if !self.entity.is_empty() && self.names.has_entity_type() {
            let t = self.names.entity_type;
            text.push('(');
            match &self.types {
                Some(types) if broad && types.starts.is_none() => {
                    // Any key may be the entity's: only the library's own items, by their type
                    // and the beginning of their keys, stay on the server (an item another
                    // writer typed `_unique` at one of the entity's keys comes back, to be
                    // reported).
                    use crate::schema::reserved::{GUARD_PREFIX, GUARD_TYPE, MIGRATION_PREFIX, MIGRATION_TYPE};
                    let guard = format!("{GUARD_PREFIX}{}", crate::key::DELIMITER);
                    text.push_str("NOT (");
                    let migration = MIGRATION_PREFIX.trim_end_matches(crate::key::DELIMITER);
                    for (i, (ty, start)) in
                        [(GUARD_TYPE, guard.as_str()), (MIGRATION_TYPE, migration)].iter().enumerate()
                    {
                        if i > 0 {
                            text.push_str(" OR ");
                        }
                        text.push('(');
                        ph.push_name(t, &mut text);
                        text.push_str(" = ");
                        ph.push_value(AttributeValue::S((*ty).to_owned()), &mut text);
                        text.push_str(" AND begins_with(");
                        ph.push_name(self.names.pk, &mut text);
                        text.push_str(", ");
                        ph.push_value(AttributeValue::S((*start).to_owned()), &mut text);
                        text.push_str("))");
                    }
                    text.push(')');
                }
                Some(types) if broad && types.others.len() <= MAX_IN_OPERANDS => {
                    text.push_str("NOT (");
                    ph.push_name(t, &mut text);
                    text.push_str(" IN (");
                    for (i, other) in types.others.iter().enumerate() {
                        if i > 0 {
                            text.push_str(", ");
                        }
                        ph.push_value(AttributeValue::S((*other).to_owned()), &mut text);
                    }
                    text.push_str("))");
                    if let Some((pk, sk)) = &types.starts {
                        text.push_str(" OR (begins_with(");
                        ph.push_name(self.names.pk, &mut text);
                        text.push_str(", ");
                        ph.push_value(AttributeValue::S(pk.clone()), &mut text);
                        if let Some(sk) = sk {
                            text.push_str(") AND begins_with(");
                            ph.push_name(self.names.sk, &mut text);
                            text.push_str(", ");
                            ph.push_value(AttributeValue::S(sk.clone()), &mut text);
                        }
                        text.push_str("))");
                    }
                }
                _ => {
                    ph.push_name(t, &mut text);
                    text.push_str(" = ");
                    ph.push_value(AttributeValue::S(self.entity.to_owned()), &mut text);
                    // Items without a type attribute come back too: on an index whose
                    // projection leaves it out, they are told by their primary key (see
                    // `classify_entity`); on the table, one with the entity's key is reported
                    // as a get reports it (`Table::misfit`). So are items whose type is not a
                    // string (a JavaScript `null`), for the same reason.
                    text.push_str(" OR attribute_not_exists(");
                    ph.push_name(t, &mut text);
                    text.push(')');
                    if broad {
                        text.push_str(" OR NOT attribute_type(");
                        ph.push_name(t, &mut text);
                        text.push_str(", ");
                        ph.push_value(AttributeValue::S("S".to_owned()), &mut text);
                        text.push(')');
                    }
                }
            }
            text.push(')');
        }
        if let Some(c) = &self.filter {
            let rendered = c.render(&mut ph).map_err(|(field, source)| Error::Encode {
                entity: if self.entity.is_empty() { "scan" } else { self.entity },
                field,
                attribute: field,
                source,
            })?;
            text = if text.is_empty() { rendered } else { format!("{text} AND ({rendered})") };
        }
        if let (Some(on), Some(c)) = (&self.on, &self.filter) {
            // An entity scan of a secondary index (`index` is `E`'s only).
            let keys = [self.names.pk_of(on.index), self.names.sk_of(on.index)];
            let projection = (on.projection)(&self.table, on.index);
            super::projected::check_filter("Scan", self.entity, self.names, on.index, &keys, projection, Some(c))?;
        }
        Ok(Parts { filter: (!text.is_empty()).then_some(text), names: ph.take_names(), values: ph.take_values() })
    }

    fn scope(&self, parts: &Parts) -> Scope {
        let values: BTreeMap<_, _> =
            parts.values.iter().flatten().map(|(k, v)| (k.clone(), format!("{v:?}"))).collect();
        Scope {
            entity: self.label.clone(),
            index: match &self.on {
                None => "scan".to_owned(),
                Some(on) => format!("scan of {}", cursor::index_label(self.names, on.index)),
            },
            partition: match self.segment {
                Some((s, t)) => format!("segment {s}/{t}"),
                None => "table".to_owned(),
            },
            query: cursor::fingerprint(&format!("{:?}|{values:?}|{}", parts.filter, self.consistent)),
        }
    }

    fn request(&self, parts: &Parts, limit: Option<i32>, start: Option<Item>) -> ScanInputBuilder {
        ScanInput::builder()
            .table_name(self.table.name())
            .set_index_name(self.on.as_ref().and_then(|o| self.names.index_name(o.index)).map(str::to_owned))
            .set_filter_expression(parts.filter.clone())
            .set_expression_attribute_names(parts.names.clone())
            .set_expression_attribute_values(parts.values.clone())
            .consistent_read(self.consistent)
            .set_limit(limit)
            .set_segment(self.segment.map(|(s, _)| s as i32))
            .set_total_segments(self.segment.map(|(_, t)| t as i32))
            .set_exclusive_start_key(start)
            .return_consumed_capacity(ReturnConsumedCapacity::Indexes)
    }

    async fn fetch(
        &self,
        parts: &Parts,
        limit: Option<i32>,
        start: Option<Item>,
    ) -> Result<aws_sdk_dynamodb::operation::scan::ScanOutput, Error> {
        if let Some(rate) = &self.rate {
            rate.acquire().await;
        }
        let request = self.request(parts, limit, start).send_with(self.table.client());
        let out =
            self.table.execute(Call::new("Scan", self.entity), request).await.map_err(|e| Error::sdk("Scan", e))?;
        if let Some(rate) = &self.rate {
            rate.consume(Capacity::from_consumed(out.consumed_capacity.as_slice(), false).read());
        }
        Ok(out)
    }

    /// The error of an item that decoded to no value and must not be passed over: in a scan of
    /// an entity enum, one of a type the enum does not name (unless
    /// [`skip_unknown`](Self::skip_unknown), which logs it); in an entity scan, one of the
    /// entity's type value that no entity of the table owns. `None`: another entity's item,
    /// or one of the library's own, counted in `passed_over`.
    fn unreported(&self, item: &Item) -> Option<Error> {
        match (self.enum_name, self.misfit) {
            (Some(_), _) if is_library_item(item, self.names) => None,
            (Some(name), _) if !self.skip_unknown => Some(Error::unexpected_item(name, item, self.names)),
            (Some(_), _) => {
                tracing::warn!(
                    entity = type_of_named(item, self.names.entity_type).unwrap_or("<none>"),
                    key = %self.names.describe_key(item),
                    "a table scan skipped an item of an entity type the enum does not name"
                );
                None
            }
            (None, Some(misfit)) => misfit(&self.table, self.on.as_ref().map_or(Index::Primary, |on| on.index), item),
            (None, None) => None,
        }
    }

    /// One `Scan` request from `start`, its items undecoded (the backfills' read).
    pub(crate) async fn raw_page(&self, start: Option<Item>) -> Result<RawPage, Error> {
        self.check_segments()?;
        let parts = self.parts(false)?;
        let out = self.fetch(&parts, self.page_size, start).await?;
        Ok(RawPage {
            consumed: Capacity::from_consumed(out.consumed_capacity.as_slice(), false),
            examined: u64::try_from(out.scanned_count).unwrap_or_default(),
            items: out.items.unwrap_or_default(),
            last_key: out.last_evaluated_key,
        })
    }

    /// Runs the scan (or its segment) and returns one page: up to
    /// [`page_items`](Self::page_items) items (and at most [`max_items`](Self::max_items)), or
    /// without either one DynamoDB response's worth (at most 1 MB read).
    ///
    /// # Errors
    /// [`Error::Invalid`] for a [`parallel`](Self::parallel) scan (read it with
    /// [`pages`](Self::pages)) or segment numbers DynamoDB refuses, [`Error::Cursor`] for a
    /// cursor of another scan, [`Error::FilterNotProjected`] for a [`filter`](Self::filter) on
    /// an attribute the scanned index does not project, before anything is sent;
    /// [`Error::Sdk`] from DynamoDB; [`Error::Decode`] naming the key of an item of the scanned
    /// type that does not decode.
    pub async fn send(&self) -> Result<Page<T>, Error> {
        self.check_segments()?;
        if self.parallel.is_some() {
            return Err(Error::Invalid {
                reason: "a parallel scan has one cursor per segment: read it with pages(), stream() or all(), or one \
                         segment with segment(s, total)"
                    .to_owned(),
            });
        }
        let parts = self.parts(true)?;
        let scope = self.scope(&parts);
        let start = match &self.after {
            Some(c) => Some(cursor::decode_scan(c.as_str(), &scope, self.names, self.scanned_index())?),
            None => None,
        };
        let index = self.scanned_index();
        let projection = if index == Index::Primary {
            None
        } else {
            self.on.as_ref().and_then(|on| (on.projection)(&self.table, index))
        };
        let keys = super::key_attributes(self.names, index);
        let paging = super::pages::Paging {
            limit: self.counts.page_limit(),
            page_size: self.page_size,
            to_the_end: false,
            lenient: self.lenient,
        };
        let mut page = super::pages::read_page(
            paging,
            self.names,
            start,
            |limit, start| {
                let answer = self.fetch(&parts, limit, start);
                async move { answer.await.map(super::pages::Answer::of_scan) }
            },
            |item: &mut Item| {
                let item = &*item;
                let slot = match &self.on {
                    None => (self.decode)(item).map(|d| d.map(ScanSlot::Done))?,
                    Some(on) => (on.classify)(item, on.index, projection)?,
                };
                if slot.is_some() {
                    return Ok(slot);
                }
                match self.unreported(item) {
                    Some(e) => Err(e),
                    None => Ok(None),
                }
            },
            Some(&super::pages::Resume { scope: &scope, keys: &keys }),
        )
        .await?;
        page.segment = self.segment.map(|(s, _)| s);
        let slots = std::mem::take(&mut page.items);
        self.finish(page.with_items(Vec::new()), slots).await
    }

    /// The page with its items: the decoded ones, and the projected ones read whole by their
    /// primary keys (in the scan's order; an item deleted since the index was read is left
    /// out).
    async fn finish(&self, mut page: Page<T>, slots: Vec<ScanSlot<T>>) -> Result<Page<T>, Error> {
        let keys: Vec<PrimaryKey> =
            slots.iter().filter_map(|s| if let ScanSlot::Fetch(k) = s { Some(k.clone()) } else { None }).collect();
        let mut whole = match (&self.on, keys.is_empty()) {
            (Some(on), false) => {
                let (whole, undecodable) = (on.fetch)(self.table.clone(), keys, self.lenient).await?;
                page.skipped.extend(undecodable);
                whole.into_iter()
            }
            _ => Vec::new().into_iter(),
        };
        page.items.reserve(slots.len());
        for slot in slots {
            match slot {
                ScanSlot::Done(v) => page.items.push(v),
                ScanSlot::Fetch(_) => page.items.extend(whole.next().flatten()),
            }
        }
        Ok(page)
    }

    /// The first `Scan` request [`send`](Self::send) would send, built by the same code, without
    /// sending it (for a [`parallel`](Self::parallel) scan, that of segment 0).
    ///
    /// # Errors
    /// As [`send`](Self::send) before sending.
    pub fn render(&self) -> Result<ScanInput, Error> {
        let mut req = self.clone();
        if let Some(total) = req.parallel.take() {
            req.segment = Some((0, total));
        }
        req.check_segments()?;
        let parts = req.parts(true)?;
        let start = match &req.after {
            Some(c) => Some(cursor::decode_scan(c.as_str(), &req.scope(&parts), req.names, req.scanned_index())?),
            None => None,
        };
        let limit = req.page_size.or(req.counts.page_limit().map(|w| i32::try_from(w).unwrap_or(i32::MAX)));
        crate::table::render::built(req.request(&parts, limit, start).build())
    }

    /// The pages of one segment (or of an unsegmented scan), lazily.
    fn pages_of_one(self) -> impl Stream<Item = Result<Page<T>, Error>> + Send {
        futures::stream::try_unfold(Some(self), |state| async move {
            let Some(req) = state else { return Ok(None) };
            let page = req.send().await?;
            // From the page's cursor, with what the total leaves for the pages after this one.
            let next = match (req.counts.after(page.items.len()), page.cursor.clone()) {
                (Some(counts), Some(c)) => Some(ScanRequest { after: Some(c), counts, ..req }),
                _ => None,
            };
            Ok(Some((page, next)))
        })
    }

    /// Every page, lazily. A [`parallel`](Self::parallel) scan reads up to
    /// [`concurrency`](Self::concurrency) segments at a time and yields their pages as they
    /// come (each segment holds at most one page in flight); a segment that fails ends the
    /// stream with its error. Each page holds up to [`page_items`](Self::page_items) items;
    /// with [`max_items`](Self::max_items) the pages hold at most that many together (of a
    /// parallel scan, the page that reaches it is cut to it and has no cursor).
    pub fn pages(self) -> impl Stream<Item = Result<Page<T>, Error>> + Send {
        match self.parallel {
            None => self.pages_of_one().boxed(),
            Some(total) => {
                if let Err(e) = self.check_segments() {
                    return futures::stream::once(async move { Err(e) }).boxed();
                }
                if self.after.is_some() {
                    let e = Error::Invalid {
                        reason: "a cursor belongs to one segment: resume it with segment(s, total).after(cursor)"
                            .to_owned(),
                    };
                    return futures::stream::once(async move { Err(e) }).boxed();
                }
                let concurrency = self.concurrency.unwrap_or(total as usize);
                let max_items = self.counts.max_items;
                let segments = (0..total).map(move |s| {
                    let mut req = self.clone();
                    req.parallel = None;
                    req.segment = Some((s, total));
                    req.pages_of_one().boxed()
                });
                let pages = futures::stream::iter(segments).flatten_unordered(concurrency);
                match max_items {
                    None => pages.boxed(),
                    Some(max) => cut_at(pages, max).boxed(),
                }
            }
        }
    }

    /// Every item (up to [`max_items`](Self::max_items) if set), page by page. An item that
    /// does not decode ends it with its error (a [`lenient`](Self::lenient) scan's stream
    /// yields such items).
    pub fn stream(self) -> impl Stream<Item = Result<T, Error>> + Send {
        let limit = self.counts.max_items;
        let counts = ItemCounts { max_items: None, ..self.counts };
        let req = ScanRequest { counts, lenient: false, ..self };
        let s = req.pages().map_ok(|p| futures::stream::iter(p.items.into_iter().map(Ok))).try_flatten();
        s.take(limit.unwrap_or(usize::MAX))
    }

    /// Every item (up to [`max_items`](Self::max_items) if set), collected.
    ///
    /// # Errors
    /// As [`send`](Self::send).
    pub async fn all(self) -> Result<Vec<T>, Error> {
        self.stream().try_collect().await
    }

    /// Every item of the scan as [`lenient`](Self::lenient) reads it, with every item it
    /// reported, as a pair.
    ///
    /// # Errors
    /// As [`send`](Self::send), except for the items reported.
    #[deprecated(since = "0.1.0", note = "use `.lenient().all()`, which returns a `Page` (its `items` and `skipped`)")]
    pub async fn all_lenient(self) -> Result<(Vec<T>, Vec<ItemError>), Error> {
        let page = self.lenient().all().await?;
        Ok((page.items, page.skipped))
    }
}

super::lenient::paged_read!([T: Send + 'static] ScanRequest<T> => T, ScanInput, |r| r.lenient);

/// The pages of a parallel scan's segments, `pages`, ended once they hold `max` items: the page
/// that goes past `max` is cut to it, and its cursor (which would pass over the items cut) is
/// dropped.
fn cut_at<T, P>(pages: P, max: usize) -> impl Stream<Item = Result<Page<T>, Error>> + Send
where
    T: Send + 'static,
    P: Stream<Item = Result<Page<T>, Error>> + Send,
{
    pages.scan(max, |left, page| {
        let page = match page {
            _ if *left == 0 => return futures::future::ready(None),
            Ok(mut page) => {
                if page.items.len() > *left {
                    page.items.truncate(*left);
                    page.cursor = None;
                }
                *left -= page.items.len();
                Ok(page)
            }
            Err(e) => Err(e),
        };
        futures::future::ready(Some(page))
    })
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

impl<D> Table<D> {
    /// A scan of every item of entity `E` in the table (see [`ScanRequest`] and the
    /// [module](crate::query::scan) documentation). Scans are for maintenance; the design lint
    /// flags scans registered as reads.
    ///
    /// When other entities of the table share `E`'s type value (told apart by their key
    /// templates), the scan keeps the items of `E`'s key shape; the handle learns this from the
    /// table's layout ([`Table::declared`], [`Table::with_layout`]), else from the table
    /// declaration `E` names (`#[entity(table = AppTable)]`, see
    /// [`Entity::TABLE_ENTITIES`]). An item of `E`'s type value that fits the key templates of
    /// none of them is reported ([`Error::KeyFitsNoEntity`]). Without either, such an item of
    /// another entity fails the scan with the decode error of its key. On a declared handle
    /// (`Table<D>`), of `D`'s entities only.
    pub fn scan<E: Entity>(&self) -> ScanRequest<E>
    where
        D: Admits<E>,
    {
        let table = self.untyped();
        let decode = if table.shares_type::<E>() { decode_entity::<E, true> } else { decode_entity::<E, false> };
        let types = table.entities_of::<E>().map(|known| {
            let starts = E::SCHEMA.key_beginnings();
            // Without a literal beginning of the partition key, an item of any other type may
            // sit at one of the entity's keys: only the library's own items stay on the server.
            let mut others: Vec<&'static str> = match starts {
                Some(_) => known.iter().map(|e| e.name).filter(|t| *t != E::TYPE).collect(),
                None => Vec::new(),
            };
            others.extend([crate::schema::reserved::GUARD_TYPE, crate::schema::reserved::MIGRATION_TYPE]);
            others.sort_unstable();
            others.dedup();
            Arc::new(TypeFilter { others, starts })
        });
        let mut scan = ScanRequest::new(table, E::NAMES, E::TYPE, E::TYPE.to_owned(), decode);
        scan.misfit = Some(misfit_of::<E>);
        scan.types = types;
        scan
    }

    /// A scan of every item of the table, each decoded as the variant of the entity enum `T`
    /// (such as the `<Table>Item` enum of `#[derive(TableDef)]`) for its type. An item `T` has
    /// no variant for fails the scan with [`Error::UnexpectedItem`] naming its type and key
    /// (a [`lenient`](ScanRequest::lenient) scan reports it in
    /// [`skipped`](Page::skipped), a scan with
    /// [`skip_unknown`](ScanRequest::skip_unknown) counts it in [`passed_over`](Page::passed_over)):
    /// a table scan never returns fewer items than the table holds unless asked to. The
    /// library's own guard and migration items are counted in `skipped`.
    ///
    /// On a declared handle (`Table<D>`), `T` is `D`'s own item enum and needs no naming:
    /// `shop.scan_table().all().await?`.
    pub fn scan_table<T: EntityEnum + Send + 'static>(&self) -> ScanRequest<T>
    where
        D: TableItems<T>,
    {
        let mut scan = ScanRequest::new(self.untyped(), T::NAMES, "", T::TYPES.join("|"), T::decode);
        scan.enum_name = Some(std::any::type_name::<T>().rsplit("::").next().unwrap_or_default());
        scan
    }
}

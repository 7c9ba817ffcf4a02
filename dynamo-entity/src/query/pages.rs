//! The one page loop: fetch an answer, ask what each item is, keep or report it, and say where
//! the next page starts. Queries, multi-attribute GSI queries, scans (and each scan segment)
//! and item collections read their pages through [`read_page`]; a sharded query merges its
//! shards' answers and takes each item through the same [`settle`].
//!
//! | setting | pages end |
//! |---|---|
//! | a limit of `n` items | when `n` items are kept (several requests when needed), or the read ends |
//! | no limit | after one DynamoDB answer (at most 1 MB read) |
//!
//! A page's limit comes from the read's [`ItemCounts`]: the fewer of the items a page holds
//! (`page_items`) and the items the read still returns in all (`max_items`).
//! | to the end (a collection) | when DynamoDB returns no `LastEvaluatedKey` |
//!
//! An answer's items come as the SDK's maps, or as the body's JSON (see
//! [`table::body`](crate::table::body)); the JSON's are read one at a time into one map, reused
//! from item to item, right before each is taken, so that the map is in the cache when it is
//! decoded. A report ([`ItemError`]) gets a copy of it. An item of the JSON that cannot be read
//! (none can, once the interceptor checked them) fails the page with [`Error::Sdk`], as a body
//! the SDK cannot read does: never a shorter page.
//!
//! An item that is not kept and not passed over is *reported*: a strict read fails on it, a
//! lenient read returns it as an [`ItemError`] with its key. Whether an item is kept, passed
//! over or reported is the caller's `take` (for entities, the [`owner`](crate::owner) rule).

use std::future::Future;

use crate::capacity::Capacity;
use crate::error::{Error, ItemError};
use crate::query::Cursor;
use crate::query::cursor::{self, Scope};
use crate::schema::{AttributeNames, Item};
use crate::table::body::{Paged, unreadable_item};
use crate::value::json::{ItemsReader, Malformed, RawItems};

/// One answer of DynamoDB to a `Query` or `Scan` request, as the page loop needs it.
pub(crate) struct Answer {
    /// `Query` or `Scan`.
    pub(crate) operation: &'static str,
    /// The items, in the order returned.
    pub(crate) items: AnswerItems,
    /// `LastEvaluatedKey`.
    pub(crate) last_key: Option<Item>,
    /// The capacity the request consumed.
    pub(crate) consumed: Capacity,
    /// `ScannedCount`: the items the request evaluated.
    pub(crate) scanned: u64,
    /// `Count`: the items that passed the filter.
    pub(crate) count: u64,
}

impl Answer {
    /// The answer of a `Query`.
    pub(crate) fn of_query(paged: Paged<aws_sdk_dynamodb::operation::query::QueryOutput>) -> Answer {
        let out = paged.output;
        Answer {
            operation: "Query",
            consumed: Capacity::from_consumed(out.consumed_capacity.as_slice(), false),
            scanned: u64::try_from(out.scanned_count).unwrap_or_default(),
            count: u64::try_from(out.count).unwrap_or_default(),
            items: AnswerItems::of(paged.items, out.items),
            last_key: out.last_evaluated_key,
        }
    }

    /// The answer of a `Scan`.
    pub(crate) fn of_scan(paged: Paged<aws_sdk_dynamodb::operation::scan::ScanOutput>) -> Answer {
        let out = paged.output;
        Answer {
            operation: "Scan",
            consumed: Capacity::from_consumed(out.consumed_capacity.as_slice(), false),
            scanned: u64::try_from(out.scanned_count).unwrap_or_default(),
            count: u64::try_from(out.count).unwrap_or_default(),
            items: AnswerItems::of(paged.items, out.items),
            last_key: out.last_evaluated_key,
        }
    }

    /// The items, each in a map of its own, taken out of the answer.
    ///
    /// # Errors
    /// [`Error::Sdk`] when one of the items taken from the body cannot be read.
    pub(crate) fn take_items(&mut self) -> Result<Vec<Item>, Error> {
        match std::mem::replace(&mut self.items, AnswerItems::Maps(Vec::new())) {
            AnswerItems::Maps(items) => Ok(items),
            AnswerItems::Json(raw) => raw.to_items().map_err(|e| unreadable_item(self.operation, e)),
        }
    }
}

/// An answer's items: read by the SDK into maps, or left as the body's JSON by this crate's
/// reader, to be read one by one into one map as the page takes them.
pub(crate) enum AnswerItems {
    /// The SDK's maps.
    Maps(Vec<Item>),
    /// The body's `Items`.
    Json(RawItems),
}

impl AnswerItems {
    /// The items the reader took (`raw`), else the SDK's.
    fn of(raw: Option<RawItems>, sdk: Option<Vec<Item>>) -> AnswerItems {
        match raw {
            Some(raw) => AnswerItems::Json(raw),
            None => AnswerItems::Maps(sdk.unwrap_or_default()),
        }
    }

    /// How many items.
    fn len(&self) -> usize {
        match self {
            AnswerItems::Maps(items) => items.len(),
            AnswerItems::Json(raw) => raw.len(),
        }
    }
}

/// The items of an answer, one after the other, each lent to the page loop as a map: the
/// SDK's own maps, or the one map the JSON's items are read into in turn.
enum Source<'a> {
    /// The SDK's maps, and the one lent.
    Maps(std::vec::IntoIter<Item>, Item),
    /// The reader of the JSON, and the map it reads each item into.
    Json(ItemsReader<'a>, Item),
}

impl Source<'_> {
    /// The next item; `None` after the last.
    fn next(&mut self) -> Result<Option<&mut Item>, Malformed> {
        match self {
            Source::Maps(items, item) => match items.next() {
                Some(next) => {
                    *item = next;
                    Ok(Some(item))
                }
                None => Ok(None),
            },
            Source::Json(reader, item) => Ok(reader.next_into(item)?.then_some(item)),
        }
    }

    /// The item last lent, for a report that keeps it: the SDK's map itself, or a copy of the
    /// reused one.
    fn report(&mut self) -> Item {
        match self {
            Source::Maps(_, item) => std::mem::take(item),
            Source::Json(_, item) => item.clone(),
        }
    }
}

/// How many decoded items a read returns: `max_items` in all (over every page), `page_items`
/// on each page. Neither counts DynamoDB's `Limit` (`page_size`), which caps the items one
/// request evaluates.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ItemCounts {
    /// The most items the read returns in all (`None`: no total).
    pub(crate) max_items: Option<usize>,
    /// The most items one page holds (`None`: a page ends after one DynamoDB answer, or at the
    /// total).
    pub(crate) page_items: Option<usize>,
}

impl ItemCounts {
    /// Refuses counts that would end a read without reading it: a `page_items` or
    /// `max_items` of 0 (a page that keeps no item is full before anything is read, and would
    /// say the read is over), and a `page_size` (DynamoDB's `Limit`) below 1, which DynamoDB
    /// refuses. `read` names the read (`Query`, `Scan`) and `entity` its entity.
    ///
    /// # Errors
    /// [`Error::Invalid`] naming the setting and the value.
    pub(crate) fn check(&self, page_size: Option<i32>, read: &str, entity: &str) -> Result<(), Error> {
        let zero = match (self.page_items, self.max_items) {
            (Some(0), _) => Some("page_items(0)"),
            (_, Some(0)) => Some("max_items(0)"),
            _ => None,
        };
        if let Some(setting) = zero {
            return Err(Error::Invalid {
                reason: format!(
                    "{read} of {entity}: {setting} would end the read before reading anything; give at least 1"
                ),
            });
        }
        match page_size {
            Some(n) if n < 1 => Err(Error::Invalid {
                reason: format!("{read} of {entity}: page_size({n}): DynamoDB's Limit is at least 1"),
            }),
            _ => Ok(()),
        }
    }

    /// The most items the next page keeps: the fewer of `page_items` and `max_items`.
    pub(crate) fn page_limit(&self) -> Option<usize> {
        match (self.max_items, self.page_items) {
            (Some(total), Some(page)) => Some(total.min(page)),
            (total, page) => total.or(page),
        }
    }

    /// The counts of the page after one that kept `kept` items: the total less `kept`; `None`
    /// when the total is reached.
    pub(crate) fn after(&self, kept: usize) -> Option<ItemCounts> {
        match self.max_items.map(|m| m.saturating_sub(kept)) {
            Some(0) => None,
            max_items => Some(ItemCounts { max_items, ..*self }),
        }
    }
}

/// How a read pages (see the [module](self) documentation's table).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Paging {
    /// The most items this page keeps ([`ItemCounts::page_limit`]).
    pub(crate) limit: Option<usize>,
    /// DynamoDB's `Limit`: the items one request evaluates.
    pub(crate) page_size: Option<i32>,
    /// Read until DynamoDB returns no `LastEvaluatedKey`, whatever the limit.
    pub(crate) to_the_end: bool,
    /// Report an item that does not decode rather than fail on it.
    pub(crate) lenient: bool,
}

impl Paging {
    /// The `Limit` of the next request once `kept` items are kept: the page size if set, else
    /// what the limit still wants (`None`: neither).
    pub(crate) fn request_limit(&self, kept: usize) -> Option<i32> {
        let wanted = self.limit.map(|l| l.saturating_sub(kept));
        self.page_size.or(wanted.map(|w| i32::try_from(w).unwrap_or(i32::MAX)))
    }
}

/// One page of a read: of a query, a multi-attribute query, a scan or a scan segment.
///
/// | field | holds |
/// |---|---|
/// | `items` | the items kept, in the order read (sort-key order for a query) |
/// | `skipped` | the items reported instead of returned, each with its key and why (a lenient read; a strict read fails on the first) |
/// | `cursor` | where the next page starts; `None` once the read is exhausted |
/// | `consumed` | the capacity the page's requests consumed, as DynamoDB reported it |
/// | `segment` | the scan segment the page comes from (`None` for a query or an unsegmented scan) |
/// | `scanned` | the items DynamoDB evaluated (`ScannedCount`, summed over the page's requests) |
/// | `filtered_out` | the items evaluated that the `FilterExpression` left out |
/// | `passed_over` | the items returned that the page leaves out by design: the library's own guard and migration items, other entities' items, and with `skip_unknown` items of types an enum has no variant for |
///
/// Every item DynamoDB returned for the page is in exactly one of `items`, `skipped` and
/// `passed_over`, with two exceptions: a page that `page_items` or `max_items` ends before
/// the end of a DynamoDB answer leaves the rest of that answer to the next page (its cursor
/// resumes right after the last item kept, so they are read again there), and a projected
/// index item whose whole item was deleted before it was read is in none.
///
/// ```
/// let page: dynamo_entity::Page<String> = dynamo_entity::Page::default();
/// assert!(page.items.is_empty() && page.skipped.is_empty() && page.cursor.is_none());
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Page<T> {
    /// The items, in the order read: sort-key order for a query (reversed for a descending
    /// one), partition-hash order (no order to rely on) for a scan.
    pub items: Vec<T>,
    /// The items of the read's entity type (or enum) that are not among `items`, each with its
    /// key, the item as read and the error: filled by a lenient read
    /// ([`QueryRequest::lenient`](crate::query::QueryRequest::lenient),
    /// [`ScanRequest::lenient`](crate::query::scan::ScanRequest::lenient)); a strict read fails
    /// on the first such item instead, so it is empty otherwise.
    pub skipped: Vec<ItemError>,
    /// Where the next page starts; `None` when the read is known to be exhausted. When a page
    /// ends exactly where DynamoDB stopped reading, more items may or may not follow, and the
    /// cursor may lead to an empty last page.
    pub cursor: Option<Cursor>,
    /// The capacity the page's requests consumed, as DynamoDB reported it (summed when filling
    /// the page took several requests). See [`capacity`](crate::capacity).
    pub consumed: Capacity,
    /// The segment the page comes from (`Segment`), for a parallel or segment scan.
    pub segment: Option<u32>,
    /// Items DynamoDB evaluated for the page (`ScannedCount`, summed over its requests).
    pub scanned: u64,
    /// Items evaluated that the `FilterExpression` left out: for an entity scan, items of other
    /// entity types too.
    pub filtered_out: u64,
    /// Items returned that the page leaves out by design: the library's own guard and
    /// migration items, items of other entities (in a query of a shared partition, or of
    /// entities sharing the scanned one's type value), and, with
    /// [`skip_unknown`](crate::query::scan::ScanRequest::skip_unknown), items of types the
    /// scanned enum has no variant for.
    pub passed_over: u64,
}

impl<T> Default for Page<T> {
    fn default() -> Page<T> {
        Page {
            items: Vec::new(),
            skipped: Vec::new(),
            cursor: None,
            consumed: Capacity::default(),
            segment: None,
            scanned: 0,
            filtered_out: 0,
            passed_over: 0,
        }
    }
}

impl<T> Page<T> {
    /// The capacity the page consumed; see [`Page::consumed`](Page#structfield.consumed).
    pub fn consumed(&self) -> &Capacity {
        &self.consumed
    }

    /// The cursor of the next page, if any.
    pub fn cursor(&self) -> Option<&Cursor> {
        self.cursor.as_ref()
    }

    /// The page with `items` in place of its items, everything else kept.
    pub(crate) fn with_items<U>(self, items: Vec<U>) -> Page<U> {
        Page {
            items,
            skipped: self.skipped,
            cursor: self.cursor,
            consumed: self.consumed,
            segment: self.segment,
            scanned: self.scanned,
            filtered_out: self.filtered_out,
            passed_over: self.passed_over,
        }
    }

    /// Adds `next`, a later page of the same read, to this one: its items and reports after
    /// these, its counts and capacity added, its cursor (and segment) kept. What a lenient
    /// read's `all` collects.
    pub(crate) fn absorb(&mut self, next: Page<T>) {
        self.items.extend(next.items);
        self.skipped.extend(next.skipped);
        self.consumed += next.consumed;
        self.scanned += next.scanned;
        self.filtered_out += next.filtered_out;
        self.passed_over += next.passed_over;
        self.cursor = next.cursor;
        self.segment = next.segment;
    }
}

/// Where the next page starts: a cursor of the read's `scope` holding an `ExclusiveStartKey`
/// of the attributes `keys` (the table's key and the read index's).
pub(crate) struct Resume<'a> {
    pub(crate) scope: &'a Scope,
    pub(crate) keys: &'a [&'static str],
}

impl Resume<'_> {
    /// The cursor after `item`, the last item a page kept.
    fn after_item(&self, item: &Item) -> Cursor {
        let key: Item = self.keys.iter().filter_map(|n| item.get(*n).map(|v| ((*n).to_owned(), v.clone()))).collect();
        self.after_key(&key)
    }

    /// The cursor after DynamoDB's `LastEvaluatedKey`.
    fn after_key(&self, key: &Item) -> Cursor {
        Cursor(cursor::encode(self.scope, key))
    }
}

/// What [`settle`] did with an item.
pub(crate) enum Settled<T> {
    /// Returned.
    Kept(T),
    /// Left out by design (counted in [`Page::passed_over`]).
    Passed,
    /// Reported in [`Page::skipped`].
    Reported,
}

/// `taken`, what a read's `take` made of `item`, settled: kept, passed over, reported as an
/// [`ItemError`] in `skipped` when `lenient` (and the error is an item's), else the error.
pub(crate) fn settle<T>(
    taken: Result<Option<T>, Error>,
    item: impl FnOnce() -> Item,
    lenient: bool,
    names: &AttributeNames,
    skipped: &mut Vec<ItemError>,
) -> Result<Settled<T>, Error> {
    match taken {
        Ok(Some(value)) => Ok(Settled::Kept(value)),
        Ok(None) => Ok(Settled::Passed),
        Err(e) if lenient && ItemError::is_item_error(&e) => {
            skipped.push(ItemError::new(names, item(), e));
            Ok(Settled::Reported)
        }
        Err(e) => Err(e),
    }
}

/// Reads one page from `start`: `fetch(limit, start)` sends a request, `take` says what each
/// item is (`Ok(Some)` kept, `Ok(None)` passed over, `Err` reported; it may move the item out
/// when it keeps it whole), `resume` writes cursors (none for a read `to_the_end`).
/// See the [module](self) documentation.
///
/// # Errors
/// What `fetch` returns; a reported item's error unless `paging.lenient`.
pub(crate) async fn read_page<T, F, Fut>(
    paging: Paging,
    names: &AttributeNames,
    mut start: Option<Item>,
    mut fetch: F,
    mut take: impl FnMut(&mut Item) -> Result<Option<T>, Error>,
    resume: Option<&Resume<'_>>,
) -> Result<Page<T>, Error>
where
    F: FnMut(Option<i32>, Option<Item>) -> Fut,
    Fut: Future<Output = Result<Answer, Error>>,
{
    let mut page = Page::default();
    loop {
        if !paging.to_the_end && paging.limit == Some(page.items.len()) {
            return Ok(page);
        }
        let answer = fetch(paging.request_limit(page.items.len()), start.take()).await?;
        page.consumed += answer.consumed;
        page.scanned += answer.scanned;
        page.filtered_out += answer.scanned.saturating_sub(answer.count);
        let last_key = answer.last_key;
        let operation = answer.operation;
        let n = answer.items.len();
        // Room for every item the page can still keep from this answer, made once.
        let room = match paging.limit {
            Some(limit) if !paging.to_the_end => limit.saturating_sub(page.items.len()).min(n),
            _ => n,
        };
        page.items.reserve(room);
        let raw;
        let mut source = match answer.items {
            AnswerItems::Maps(items) => Source::Maps(items.into_iter(), Item::new()),
            AnswerItems::Json(json) => {
                raw = json;
                Source::Json(raw.reader().map_err(|e| unreadable_item(operation, e))?, Item::new())
            }
        };
        for i in 0..n {
            let item = match source.next() {
                Ok(Some(item)) => item,
                Ok(None) => {
                    let short = Malformed { at: 0, reason: "fewer items than the list was found to hold" };
                    return Err(unreadable_item(operation, short));
                }
                Err(e) => return Err(unreadable_item(operation, e)),
            };
            // The last item a limited page keeps: its key is where the next page resumes.
            let filled = !paging.to_the_end && paging.limit == Some(page.items.len() + 1);
            let cursor = resume.filter(|_| filled && (i + 1 < n || last_key.is_some())).map(|r| r.after_item(item));
            let taken = take(item);
            match settle(taken, || source.report(), paging.lenient, names, &mut page.skipped)? {
                Settled::Kept(value) => page.items.push(value),
                Settled::Passed => {
                    page.passed_over += 1;
                    continue;
                }
                Settled::Reported => continue,
            }
            if filled {
                page.cursor = cursor;
                return Ok(page);
            }
        }
        match last_key {
            None => return Ok(page),
            Some(k) if paging.limit.is_none() && !paging.to_the_end => {
                page.cursor = resume.map(|r| r.after_key(&k));
                return Ok(page);
            }
            Some(k) => start = Some(k),
        }
    }
}

#[cfg(test)]
mod tests {
    use aws_sdk_dynamodb::types::AttributeValue;
    use bytes::Bytes;

    use super::*;
    use crate::value::json::take_raw_items;

    const NAMES: AttributeNames = AttributeNames::DEFAULT;

    /// A `Query` answer of `items`, with no `LastEvaluatedKey`.
    fn answer(items: AnswerItems) -> Answer {
        Answer { operation: "Query", items, last_key: None, consumed: Capacity::default(), scanned: 4, count: 4 }
    }

    /// Keeps an item's `v`, passes over one without it, reports one whose `v` is 2.
    fn take(item: &mut Item) -> Result<Option<String>, Error> {
        match item.get("v") {
            Some(AttributeValue::N(v)) if v == "2" => Err(Error::unexpected_item("T", item, &NAMES)),
            Some(AttributeValue::N(v)) => Ok(Some(v.clone())),
            _ => Ok(None),
        }
    }

    /// One page of `items`, lenient or not.
    fn page(items: impl Fn() -> AnswerItems, lenient: bool) -> Result<Page<String>, Error> {
        let paging = Paging { limit: None, page_size: None, to_the_end: false, lenient };
        let read = read_page(paging, &NAMES, None, |_, _| std::future::ready(Ok(answer(items()))), take, None);
        futures::executor::block_on(read)
    }

    fn item(pk: &str, v: Option<&str>) -> Item {
        let mut item = Item::from([("PK".to_owned(), AttributeValue::S(pk.to_owned()))]);
        if let Some(v) = v {
            item.insert("v".to_owned(), AttributeValue::N(v.to_owned()));
        }
        item
    }

    #[test]
    fn a_page_read_from_json_keeps_passes_over_and_reports_as_from_maps() {
        let json = r#"{"Items":[{"PK":{"S":"a"},"v":{"N":"1"}},{"v":{"N":"2"},"PK":{"S":"b"}},{"PK":{"S":"c"}},{"PK":{"S":"d"},"v":{"N":"3"}}]}"#;
        let raw = || AnswerItems::Json(take_raw_items(&Bytes::from_static(json.as_bytes())).unwrap().unwrap().value);
        let maps = || {
            AnswerItems::Maps(vec![item("a", Some("1")), item("b", Some("2")), item("c", None), item("d", Some("3"))])
        };
        for items in [&raw as &dyn Fn() -> AnswerItems, &maps] {
            let page = page(items, true).unwrap();
            assert_eq!(page.items, ["1", "3"]);
            assert_eq!(page.passed_over, 1);
            assert_eq!(page.skipped.len(), 1);
            // The report keeps the item as it was read, a copy of the map.
            assert_eq!(page.skipped[0].item, item("b", Some("2")));
            assert_eq!(page.skipped[0].key, NAMES.describe_key(&item("b", Some("2"))));
            assert!(matches!(page.skipped[0].error, Error::UnexpectedItem { .. }));
            assert!(matches!(self::page(items, false), Err(Error::UnexpectedItem { .. })));
        }
    }

    #[test]
    fn an_item_found_unreadable_late_fails_the_page() {
        // Two good items, then one of a type the reader does not read: never a shorter page.
        let list = r#"[{"PK":{"S":"a"},"v":{"N":"1"}},{"PK":{"S":"b"},"v":{"N":"3"}},{"PK":{"S":"c"},"v":{"X":"1"}}]"#;
        for lenient in [false, true] {
            let error = page(|| AnswerItems::Json(RawItems::unchecked(list, 3)), lenient).unwrap_err();
            assert!(matches!(error, Error::Sdk { operation: "Query", .. }), "{error:?}");
            assert!(format!("{error:?}").contains("a type this reader leaves to the SDK"), "{error:?}");
            // Fewer items than counted: the same.
            let error = page(|| AnswerItems::Json(RawItems::unchecked(list, 4)), lenient).unwrap_err();
            assert!(matches!(error, Error::Sdk { operation: "Query", .. }), "{error:?}");
        }
        let short = r#"[{"PK":{"S":"a"},"v":{"N":"1"}}]"#;
        let error = page(|| AnswerItems::Json(RawItems::unchecked(short, 2)), true).unwrap_err();
        assert!(format!("{error:?}").contains("fewer items than the list was found to hold"), "{error:?}");
    }
}

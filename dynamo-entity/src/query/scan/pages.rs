//! The pages, items and stream of a scan: one segment page after page, a parallel scan's
//! segments read concurrently and cut at `max_items`, and its [`PagedRead`](crate::query::lenient::PagedRead).

use aws_sdk_dynamodb::operation::scan::ScanInput;
use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, ItemError};
use crate::query::Page;
use crate::query::pages::ItemCounts;
use crate::query::scan::request::ScanRequest;

impl<T: Send + 'static> ScanRequest<T> {
    /// The pages of one segment (or of an unsegmented scan), lazily.
    fn pages_of_one(self) -> impl Stream<Item = Result<Page<T>, Error>> + Send {
        futures::stream::try_unfold(Some(self), |state| async move {
            let Some(req) = state else { return Ok(None) };
            let page = req.send().await?;
            // From the page's cursor, with what the total leaves for the pages after this one.
            let next = req
                .options
                .next_page(page.cursor.as_ref(), page.items.len())
                .map(|options| ScanRequest { options, ..req });
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
                if self.options.after.is_some() {
                    let e = Error::Invalid {
                        reason: "a cursor belongs to one segment: resume it with segment(s, total).after(cursor)"
                            .to_owned(),
                    };
                    return futures::stream::once(async move { Err(e) }).boxed();
                }
                let concurrency = self.concurrency.unwrap_or(total as usize);
                let max_items = self.options.counts.max_items;
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
        // The total is applied to the stream; a total of 0 stays on the pages, which refuse it.
        let limit = self.options.counts.max_items.filter(|&n| n > 0);
        let mut req = self;
        if limit.is_some() {
            req.options.counts = ItemCounts { max_items: None, ..req.options.counts };
        }
        req.options.lenient = false;
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

crate::query::lenient::paged_read!([T: Send + 'static] ScanRequest<T> => T, ScanInput, |r| r.options.lenient);

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

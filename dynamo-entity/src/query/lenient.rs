//! Lenient reads: a query, a multi-attribute query or a scan that reports the items it cannot
//! return instead of failing on the first. One wrapper, [`Lenient`], for every paged read; one
//! result shape, the [`Page`], whose `skipped` lists each reported item with its key and why.
//! A lenient decode that returns one value rather than a list (a collection, the one item of an
//! entity, a stream record) returns it in a [`Decoded`], whose `skipped` is the same list.
//!
//! | read | strict (the default) | `.lenient()` |
//! |---|---|---|
//! | an item of the read's entity that does not decode | fails the read | reported in `skipped` |
//! | an item at the entity's key that no entity owns ([`owner`](crate::owner)) | fails the read | reported in `skipped` |
//! | an item of another entity, the library's own items | passed over (`passed_over`) | passed over (`passed_over`) |
//! | an item of a type a scanned enum has no variant for | fails the scan | reported (with `skip_unknown`: passed over) |
//!
//! [`page_items`](crate::query::QueryRequest::page_items) and
//! [`max_items`](crate::query::QueryRequest::max_items) count the items returned, not those
//! reported; a cursor resumes after the last item a page holds, so no item is reported twice.

use futures::{Stream, StreamExt, TryStreamExt};

use crate::error::{Error, ItemError};
use crate::query::pages::Page;
#[cfg(doc)]
use crate::query::{QueryRequest, multi_key::MultiKeyQuery, scan::ScanRequest};

/// What a lenient decode of one value returns: the value decoded from the items that decode,
/// and each item left out of it, reported with its key, the item as read and the error: the
/// shape of a [`Page`]'s `items` and `skipped`, for a value that is not a list.
///
/// | from | `value` |
/// |---|---|
/// | [`LenientItems::one`](crate::collection::LenientItems::one) | the one item of the entity, if it decodes |
/// | [`LenientItems::decode`](crate::collection::LenientItems::decode) | the collection, from the items that decode |
/// | [`LenientChange::from_images`](crate::stream::LenientChange::from_images) | the stream record, if a side of it decodes |
///
/// ```
/// use dynamo_entity::collection::Items;
/// use dynamo_entity::query::Decoded;
/// # use dynamo_entity::Entity;
/// # #[derive(Entity, Debug, Clone, PartialEq)]
/// # #[entity(pk = "USER#<id>", sk = "PROFILE")]
/// # struct Profile { id: String }
/// let items = Items::from(vec![Profile { id: "u1".into() }.to_item()?]);
/// let Decoded { value, skipped } = items.lenient().one::<Profile>()?;
/// assert_eq!((value, skipped.len()), (Some(Profile { id: "u1".into() }), 0));
/// # Ok::<(), dynamo_entity::Error>(())
/// ```
#[derive(Debug, Clone, PartialEq)]
#[must_use = "the items in `skipped` were not decoded: look at them"]
pub struct Decoded<T> {
    /// What the items that decode make.
    pub value: T,
    /// The items left out of `value`, each with its key, the item as read and why, in the order
    /// read.
    pub skipped: Vec<ItemError>,
}

impl<T> Decoded<T> {
    /// `value` and `skipped` as a pair: what the `_lenient` decodes returned before.
    pub(crate) fn into_pair(self) -> (T, Vec<ItemError>) {
        (self.value, self.skipped)
    }
}

/// Keeps [`PagedRead`] to the library's reads.
pub trait Sealed {}

/// A read that pages: [`QueryRequest`], [`MultiKeyQuery`] and [`ScanRequest`]. What a
/// [`Lenient`] read wraps. Sealed: the library's reads implement it, no other type can.
pub trait PagedRead: Sealed + Sized {
    /// What the read returns (an entity, or an entity enum for a table scan).
    type Item;
    /// The first request, rendered (`QueryInput` or `ScanInput`).
    type Input;
    /// The read, set to report rather than fail.
    #[doc(hidden)]
    fn reporting(self) -> Self;
    /// One page from the read's cursor.
    #[doc(hidden)]
    fn first_page(&self) -> impl Future<Output = Result<Page<Self::Item>, Error>>;
    /// Every page, lazily.
    #[doc(hidden)]
    fn every_page(self) -> impl Stream<Item = Result<Page<Self::Item>, Error>>;
    /// The first request, without sending it.
    #[doc(hidden)]
    fn first_request(&self) -> Result<Self::Input, Error>;
}

/// A read that reports each item it cannot return in its page's
/// [`skipped`](Page#structfield.skipped) (its key, the item as read, the error) instead of
/// failing on it; from `.lenient()` of a [`QueryRequest`], a [`MultiKeyQuery`] or a
/// [`ScanRequest`]. Set the read's other options first.
///
/// | read | strict (the default) | `.lenient()` |
/// |---|---|---|
/// | an item of the read's entity that does not decode | fails the read | reported in `skipped` |
/// | an item at the entity's key that no entity owns ([`owner`](crate::owner)) | fails the read | reported in `skipped` |
/// | an item of another entity, the library's own items | passed over (`passed_over`) | passed over (`passed_over`) |
/// | an item of a type a scanned enum has no variant for | fails the scan | reported (with `skip_unknown`: passed over) |
///
/// [`page_items`](crate::query::QueryRequest::page_items) and
/// [`max_items`](crate::query::QueryRequest::max_items) count the items returned, not those
/// reported; a cursor resumes after the last item a page holds, so no item is reported twice.
///
///
/// ```no_run
/// # async fn f<E: dynamo_entity::Entity, S>(table: dynamo_entity::Table, spec: dynamo_entity::query::QuerySpec<E, S>) -> dynamo_entity::Result<()> {
/// let page = table.query(spec).page_items(20).lenient().send().await?;
/// for bad in &page.skipped {
///     tracing::warn!(key = %bad.key, error = %bad.error, "skipped an item");
/// }
/// # Ok(())
/// # }
/// ```
#[must_use = "a read does nothing until it is sent"]
#[derive(Debug, Clone)]
pub struct Lenient<R>(R);

impl<R: PagedRead> Lenient<R> {
    /// `read`, lenient.
    pub(crate) fn new(read: R) -> Lenient<R> {
        Lenient(read.reporting())
    }

    /// One page, as the read's own `send`, with the items it cannot return in
    /// [`skipped`](Page#structfield.skipped).
    ///
    /// # Errors
    /// As the read's `send`, except for the items reported.
    pub async fn send(&self) -> Result<Page<R::Item>, Error> {
        self.0.first_page().await
    }

    /// Every page, lazily, as the read's own `pages`, each with its reported items.
    pub fn pages(self) -> impl Stream<Item = Result<Page<R::Item>, Error>> {
        self.0.every_page()
    }

    /// Every item, page by page: `Ok(Ok(item))` for an item returned, `Ok(Err(item_error))`
    /// for one reported, `Err` when a request fails. Within a page, the items returned come
    /// first, then those reported. Up to the read's `max_items` returned items, if set, and
    /// the items reported before the last of them.
    pub fn stream(self) -> impl Stream<Item = Result<Result<R::Item, ItemError>, Error>> {
        self.0
            .every_page()
            .map_ok(|p| {
                let returned = p.items.into_iter().map(|e| Ok(Ok(e)));
                futures::stream::iter(returned.chain(p.skipped.into_iter().map(|e| Ok(Err(e)))))
            })
            .try_flatten()
    }

    /// Every page collected into one: the items and reports of every page in order, the
    /// counts and capacity summed, no cursor (up to the read's `max_items` returned items).
    ///
    /// # Errors
    /// As the read's `send`, except for the items reported.
    pub async fn all(self) -> Result<Page<R::Item>, Error> {
        let mut all = Page::default();
        let mut pages = std::pin::pin!(self.0.every_page());
        while let Some(page) = pages.next().await {
            all.absorb(page?);
        }
        all.cursor = None;
        all.segment = None;
        Ok(all)
    }

    /// The first request, as the read's own `render`.
    ///
    /// # Errors
    /// As the read's `render`.
    pub fn render(&self) -> Result<R::Input, Error> {
        self.0.first_request()
    }
}

/// The [`PagedRead`] of a read type whose `send`, `pages` and `render` are its own and whose
/// lenient flag is `$flag`; invoked beside each read type.
macro_rules! paged_read {
    ([$($generics:tt)*] $read:ty => $item:ty, $input:ty, |$r:ident| $flag:expr) => {
        impl<$($generics)*> $crate::query::lenient::Sealed for $read {}
        impl<$($generics)*> $crate::query::lenient::PagedRead for $read {
            type Item = $item;
            type Input = $input;
            fn reporting(mut self) -> Self {
                let $r = &mut self;
                $flag = true;
                self
            }
            fn first_page(
                &self,
            ) -> impl ::std::future::Future<Output = Result<$crate::query::Page<$item>, $crate::Error>> {
                self.send()
            }
            fn every_page(
                self,
            ) -> impl ::futures::Stream<Item = Result<$crate::query::Page<$item>, $crate::Error>> {
                self.pages()
            }
            fn first_request(&self) -> Result<$input, $crate::Error> {
                self.render()
            }
        }
    };
}
pub(crate) use paged_read;

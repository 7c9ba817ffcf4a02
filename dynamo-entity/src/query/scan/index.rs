//! The scan of a secondary index: how its items are taken ([`ScanSlot`]: decoded, or projected
//! and read whole by their primary keys) for an entity ([`classify_entity`], [`fetch_entity`]).

use crate::error::{Error, ItemError};
use crate::query::primary_key_of;
use crate::schema::{Entity, Index, Item, PrimaryKey, Projection};
use crate::table::Table;

/// How an item of a scanned secondary index is taken (see [`ScanRequest::index`](crate::query::scan::ScanRequest::index)): decoded,
/// to be read whole by its primary key, or another entity's (`None`). Its arguments are the
/// item, the index and the index's projection when the handle knows it.
pub(super) type Classifier<T> = fn(&Item, Index, Option<Projection>) -> Result<Option<ScanSlot<T>>, Error>;

/// Reads the whole items of primary keys, in order (`None`: no such item any more).
pub(super) type Fetcher<T> = fn(Table, Vec<PrimaryKey>, bool) -> futures::future::BoxFuture<'static, Fetched<T>>;

/// What a [`Fetcher`] read: the whole items in the keys' order (`None`: gone, or undecodable
/// in a lenient scan), and the undecodable ones of a lenient scan.
pub(super) type Fetched<T> = Result<(Vec<Option<T>>, Vec<ItemError>), Error>;

/// An item of a page being scanned: decoded, or projected and still to be read whole.
pub(super) enum ScanSlot<T> {
    Done(T),
    Fetch(PrimaryKey),
}

/// The reading of a secondary index: which index, and how its projected items are taken.
pub(super) struct IndexScan<T> {
    pub(super) index: Index,
    pub(super) classify: Classifier<T>,
    pub(super) fetch: Fetcher<T>,
    /// The index's projection as the scanned entity's reads know it ([`Table::projection_for`]).
    pub(super) projection: fn(&Table, Index) -> Option<Projection>,
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
pub(super) fn classify_entity<E: Entity, const SHARED: bool>(
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
pub(super) fn fetch_entity<E: Entity>(
    table: Table,
    keys: Vec<PrimaryKey>,
    lenient: bool,
) -> futures::future::BoxFuture<'static, Fetched<E>> {
    Box::pin(async move {
        // Strict unless lenient: an item that does not decode fails the scan.
        let mut undecodable = Vec::new();
        let items = crate::query::read_whole(&table, keys, lenient, &mut undecodable).await?;
        Ok((items, undecodable))
    })
}

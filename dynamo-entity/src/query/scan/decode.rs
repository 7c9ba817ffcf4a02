//! How an entity scan or a scan of an entity enum decodes the items it reads ([`Decoder`]), and
//! the error of an item it reads as its entity's but that no entity owns ([`Misfit`]).

use crate::error::Error;
use crate::schema::{Entity, Index, Item};
use crate::table::Table;

/// Decodes an item of a scan: `None` for an item that is not the scan's.
pub(super) type Decoder<T> = fn(&Item) -> Result<Option<T>, Error>;

/// `E` decoded from `item` when it is `E`'s: it has `E`'s type value (and, `SHARED`: other
/// entities of the table share that value, the shape of `E`'s key templates too); `None` for
/// another entity's item.
pub(super) fn decode_entity<E: Entity, const SHARED: bool>(item: &Item) -> Result<Option<E>, Error> {
    if crate::owner::is_type(item, E::SCHEMA) && (!SHARED || crate::owner::fits_key(E::SCHEMA, item)) {
        E::from_item(item).map(Some)
    } else {
        Ok(None)
    }
}

/// [`Misfit`] of entity `E`: the [`owner`](crate::owner) rule among the entities the handle
/// knows.
pub(super) fn misfit_of<E: Entity>(table: &Table, index: Index, item: &Item) -> Option<Error> {
    crate::owner::misfit(E::SCHEMA, table.entities_of::<E>(), index, item)
}

/// The error of an item that an entity scan reads as its entity's but that no entity of the
/// table owns ([`Table::misfit`]); `None` for any other item.
pub(super) type Misfit = fn(&Table, Index, &Item) -> Option<Error>;

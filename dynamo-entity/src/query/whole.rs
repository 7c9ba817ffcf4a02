//! Index items read whole: an item of a projected index that does not hold what its entity is
//! decoded from ([`Found::Projected`]) is read again by its primary key (`BatchGetItem`, 100
//! keys a request, unprocessed keys retried), in the index's order; an item whose projection
//! was unknown ([`Found::Unsure`]) is settled once the handle has learned the projection.

use crate::error::{Error, ItemError};
use crate::owner::Found;
use crate::query::primary_key_of;
use crate::schema::{Entity, Index, Item, PrimaryKey};
use crate::table::Table;

/// An item of a page being read: decoded, or projected and still to be read whole, or an index
/// item whose projection is still to be learned ([`Found::Unsure`]).
pub(crate) enum Slot<E> {
    Whole(E),
    Projected(PrimaryKey),
    Unsure(Item),
}

impl<E: Entity> Slot<E> {
    /// The slot of `item`, taken as `found` says.
    pub(crate) fn of(item: &Item, found: Found) -> Result<Slot<E>, Error> {
        match found {
            Found::Whole => E::from_item(item).map(Slot::Whole),
            Found::Projected => Ok(Slot::Projected(primary_key_of(item, E::NAMES))),
            Found::Unsure => Ok(Slot::Unsure(item.clone())),
        }
    }
}

/// Fills in the whole items of the projected ones of `slots` (read by their primary keys, see
/// [`read_whole`]), in order; an item deleted since the index was read is left out. An index
/// item whose projection was unknown ([`Slot::Unsure`]) is decoded as it is when the table's
/// projection of `index`, learned once per handle, holds the entity, and read whole otherwise.
/// The whole items of a `lenient` read that do not decode go to `skipped`.
pub(crate) async fn hydrate<E: Entity>(
    table: &Table,
    index: Index,
    mut slots: Vec<Slot<E>>,
    lenient: bool,
    skipped: &mut Vec<ItemError>,
) -> Result<Vec<E>, Error> {
    if slots.iter().any(|s| matches!(s, Slot::Unsure(_))) {
        // An entity that names its table declaration knows every projection
        // ([`Table::projection_for`]), so none of its slots is unsure; were one, it would be read
        // whole. A constant says so, and the learning is a boxed future built only where the
        // constant allows it: the compiler then leaves `DescribeTable` (221 KiB of a Lambda
        // build, `scripts/bench-size`) out of a program whose entities all name their table,
        // unless it creates, compares or migrates the table (those send `DescribeTable`).
        let learned = match E::TABLE_INDEXES {
            None => table.learn_projection(E::NAMES, index),
            Some(_) => Box::pin(std::future::ready(None)),
        };
        let projection = learned.await.unwrap_or(crate::schema::Projection::KeysOnly);
        let mut settled = Vec::with_capacity(slots.len());
        for slot in slots {
            let Slot::Unsure(item) = slot else {
                settled.push(slot);
                continue;
            };
            match crate::owner::taken(E::SCHEMA, index, Some(projection), &item) {
                Found::Whole => match E::from_item(&item) {
                    Ok(e) => settled.push(Slot::Whole(e)),
                    Err(e) if lenient && ItemError::is_item_error(&e) => {
                        skipped.push(ItemError::new(E::NAMES, item, e))
                    }
                    Err(e) => return Err(e),
                },
                _ => settled.push(Slot::Projected(primary_key_of(&item, E::NAMES))),
            }
        }
        slots = settled;
    }
    let keys: Vec<PrimaryKey> =
        slots.iter().filter_map(|s| if let Slot::Projected(k) = s { Some(k.clone()) } else { None }).collect();
    let mut whole =
        if keys.is_empty() { Vec::new() } else { read_whole(table, keys, lenient, skipped).await? }.into_iter();
    let mut out = Vec::with_capacity(slots.len());
    for slot in slots {
        match slot {
            Slot::Whole(e) => out.push(e),
            // `None`: deleted since the index was read, or skipped.
            Slot::Projected(_) => out.extend(whole.next().flatten()),
            Slot::Unsure(_) => {}
        }
    }
    Ok(out)
}

/// `E`'s items of `keys`, read whole (`BatchGetItem`, 100 keys a request, unprocessed keys
/// retried), in the keys' order: `None` for a key with no item. Each item is decoded on its
/// own: one that does not decode fails the read, or for a `lenient` read becomes an
/// [`ItemError`] (its key, the item, the error) in `skipped` and a `None` here.
///
/// # Errors
/// [`Error::Sdk`], [`Error::BatchGet`] as [`BatchGet::send`](crate::batch::BatchGet::send);
/// the item's [`Error::Decode`] (or [`Error::WrongEntity`], ...) unless `lenient`.
pub(crate) async fn read_whole<E: Entity>(
    table: &Table,
    keys: Vec<PrimaryKey>,
    lenient: bool,
    skipped: &mut Vec<ItemError>,
) -> Result<Vec<Option<E>>, Error> {
    let keys = keys.into_iter().map(|k| crate::schema::Key::<E>::new(Ok(k)));
    let raw = table.batch_get(keys).send_raw().await?.into_result()?;
    let mut out = Vec::with_capacity(raw.len());
    for item in raw {
        let Some(item) = item else {
            out.push(None);
            continue;
        };
        match E::from_item(&item) {
            Ok(e) => out.push(Some(e)),
            Err(e) if lenient && ItemError::is_item_error(&e) => {
                skipped.push(ItemError::new(E::NAMES, item, e));
                out.push(None);
            }
            Err(e) => return Err(e),
        }
    }
    Ok(out)
}

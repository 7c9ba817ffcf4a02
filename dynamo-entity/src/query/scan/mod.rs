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
//! ```no_run
//! use dynamo_entity::{Entity, Table, TableDef};
//! use futures::TryStreamExt;
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<id>", sk = "META")]
//! pub struct Skill { pub id: String, pub title: String }
//!
//! #[derive(Entity, Debug, Clone)]
//! #[entity(pk = "SKILL#<skill_id>", sk = "REVIEW#<id>")]
//! pub struct Review { pub skill_id: String, pub id: String, pub stars: u8 }
//!
//! #[derive(TableDef)]
//! #[table(entities(Skill, Review))]
//! pub struct SkillExchange;            // also generates `enum SkillExchangeItem`
//!
//! # async fn f(table: Table) -> dynamo_entity::Result<()> {
//! // Every Skill: 8 segments, 4 at a time, at most 100 read units per second.
//! let skills: Vec<Skill> = table.scan::<Skill>().parallel(8).concurrency(4).read_rate(100.0).all().await?;
//! // Every item of the table, decoded by its entity type, page by page.
//! let mut pages = std::pin::pin!(table.scan_table::<SkillExchangeItem>().pages());
//! while let Some(page) = pages.try_next().await? {
//!     for item in page.items {
//!         match item {
//!             SkillExchangeItem::Skill(skill) => println!("skill {}", skill.title),
//!             SkillExchangeItem::Review(review) => println!("{} stars", review.stars),
//!         }
//!     }
//! }
//! # let _ = skills;
//! # Ok(())
//! # }
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

mod decode;
mod filter;
mod index;
mod pages;
mod request;
mod send;

use std::sync::Arc;

pub use crate::query::rate::ReadRate;
pub use request::{MAX_TOTAL_SEGMENTS, ScanRequest};

#[cfg(doc)]
use crate::error::Error;
use crate::query::Page;
use crate::schema::{Admits, Entity, EntityEnum, TableItems};
use crate::table::Table;
use decode::{decode_entity, misfit_of};
use filter::TypeFilter;

/// A page of a scan, by its former name: every read's page is a [`Page`] (the scan's former
/// `skipped` count is [`Page::passed_over`], its `undecodable` items are [`Page::skipped`]).
#[deprecated(
    since = "0.1.0",
    note = "every read's page is a `Page<T>`: `undecodable` is now `skipped`, `skipped` is `passed_over`"
)]
pub type ScanPage<T> = Page<T>;

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
    /// library's own guard and migration items are counted in `passed_over`.
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

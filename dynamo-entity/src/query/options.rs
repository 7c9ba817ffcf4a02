//! The options every paged read shares, whatever it reads: order, item counts, page size, read
//! consistency, start cursor, filter and lenience. [`QueryRequest`](super::QueryRequest),
//! [`MultiKeyQuery`](super::multi_key::MultiKeyQuery) and
//! [`ScanRequest`](super::scan::ScanRequest) hold one [`QueryOptions`] each, and take their
//! public setters of those options from [`read_setters!`]: each setter's logic and its
//! documentation are written once, and `.page_items(10)` is a method of each builder.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::Cursor;
use super::pages::ItemCounts;
use crate::error::Error;
use crate::expr::{Condition, Placeholders};
use crate::limits::{self, Exceeded};

/// The options of one query; the defaults are DynamoDB's (ascending, no item count, eventually
/// consistent, from the start, no filter) and a page fails on an item that does not decode.
#[derive(Clone, Default)]
pub(crate) struct QueryOptions {
    /// `ScanIndexForward = false`.
    pub(crate) descending: bool,
    /// The most items of the entity the query returns, in all and on each page.
    pub(crate) counts: ItemCounts,
    /// DynamoDB's `Limit`: the items one request evaluates.
    pub(crate) page_size: Option<i32>,
    /// `ConsistentRead`.
    pub(crate) consistent: bool,
    /// Where the query resumes (`ExclusiveStartKey`).
    pub(crate) after: Option<Cursor>,
    /// The `FilterExpression`: every condition given, combined with AND. Boxed: most reads
    /// have none, and the options are moved whole at every builder step.
    pub(crate) filter: Option<Box<Condition>>,
    /// Whether items that do not decode are reported in
    /// [`Page::skipped`](super::Page::skipped) instead of failing the page.
    pub(crate) lenient: bool,
}

impl QueryOptions {
    /// Adds `condition` to the filter, with AND after the conditions given before.
    pub(crate) fn filter(&mut self, condition: Condition) {
        self.filter = Some(Box::new(match self.filter.take() {
            Some(c) => c.and(condition),
            None => condition,
        }));
    }

    /// Sets DynamoDB's `Limit` to `n` (a read refuses one below 1 before sending, see
    /// [`ItemCounts::check`]).
    pub(crate) fn page_size(&mut self, n: i32) {
        self.page_size = Some(n);
    }

    /// `asc` or `desc`: the order, as a query's cursor fingerprint names it.
    pub(crate) fn order(&self) -> &'static str {
        if self.descending { "desc" } else { "asc" }
    }

    /// How the page loop pages these options' reads ([`Paging`](super::pages::Paging)).
    pub(crate) fn paging(&self) -> super::pages::Paging {
        super::pages::Paging {
            limit: self.counts.page_limit(),
            page_size: self.page_size,
            to_the_end: false,
            lenient: self.lenient,
        }
    }

    /// The `Limit` of the next request once `read` items of the page are read: the page size if
    /// set, else what the page still wants (`None`: neither).
    pub(crate) fn request_limit(&self, read: usize) -> Option<i32> {
        self.paging().request_limit(read)
    }

    /// The options of the page after one that read `read` items and ended at `cursor`: from
    /// the cursor, with what the total leaves; `None` when there is no next page (no cursor,
    /// or the total is reached).
    pub(crate) fn next_page(&self, cursor: Option<&Cursor>, read: usize) -> Option<QueryOptions> {
        let counts = self.counts.after(read)?;
        cursor.map(|c| QueryOptions { after: Some(c.clone()), counts, ..self.clone() })
    }

    /// The filter's `FilterExpression` text, its names and values added to `names` and
    /// `values`; `None` without a filter.
    ///
    /// # Errors
    /// [`Error::Encode`] naming `entity` and the field whose value cannot be encoded.
    pub(crate) fn render_filter(
        &self,
        entity: &'static str,
        names: &mut HashMap<String, String>,
        values: &mut HashMap<String, AttributeValue>,
    ) -> Result<Option<String>, Error> {
        let Some(c) = &self.filter else { return Ok(None) };
        let mut ph = Placeholders::default();
        let text =
            c.render(&mut ph).map_err(|(field, source)| Error::Encode { entity, field, attribute: field, source })?;
        names.extend(ph.take_names().unwrap_or_default());
        values.extend(ph.take_values().unwrap_or_default());
        Ok(Some(text))
    }
}

/// The public setters of the options a paged read shares, each written and documented once, as
/// inherent methods of the read that invokes it (so that they need no import): `$read` is the
/// read's type and `$generics` its parameters as the deprecation doctests write them (string
/// literals), then the setters it has, among `filter`, `descending`, `ascending`, `max_items`,
/// `page_items`, `limit`, `page_size`, `consistent_read` and `after`. The read holds its options
/// in a field `options: QueryOptions`.
macro_rules! read_setters {
    ($read:literal, $generics:literal; $($setter:ident)*) => {
        $( $crate::query::options::read_setters!(@ $setter $read $generics); )*
    };
    (@ filter $read:literal $generics:literal) => {
        /// Only returns the items for which `condition` holds (`FilterExpression`; a scan of an
        /// entity ANDs it to its entity type filter). DynamoDB applies the filter after reading:
        /// the items it leaves out still consume read capacity, count against
        /// [`page_size`](Self::page_size) and are counted in the page's
        /// [`filtered_out`](crate::Page#structfield.filtered_out);
        /// [`page_items`](Self::page_items) and [`max_items`](Self::max_items) count matching
        /// items only, reading on until they have them. Several calls are combined with AND.
        ///
        /// # Filters on a projected index
        /// Of a secondary index, DynamoDB filters the index's items, which hold only what the
        /// index's projection copies: the table's key attributes, the index's own key
        /// attributes, and for `INCLUDE` the listed attributes (`KEYS_ONLY`: none). A filter on
        /// any other attribute is refused before sending, when [`send`](Self::send) or
        /// [`render`](Self::render) is called, with [`Error::FilterNotProjected`] naming the
        /// entity, the index, its projection and the attributes. Only a path's top-level
        /// attribute counts: a filter on a map entry `a.b` or a list element `a[2]` needs `a`
        /// projected. A field that is a part of a key template is no exception: `rank` in
        /// `gsi1_sk = "<rank>"` is in `GSI1SK`, but the filter reads the attribute `rank`, which
        /// a `KEYS_ONLY` index does not hold (a query can use a sort-key condition instead).
        /// Filter the items after reading them (a query of such an index reads the whole items),
        /// or project the attribute into the index (`gsi1(projection = include(title))` in the
        /// table declaration). DynamoDB Local evaluates such a filter against the table's whole
        /// item, so its answer would not tell what DynamoDB does.
        ///
        /// The check needs the projection: a handle bound to its declaration
        /// ([`Table::declared`](crate::Table::declared)), one given the layout
        /// ([`Table::with_layout`](crate::Table::with_layout)) or one that created the table from
        /// it ([`Table::create_table_from`](crate::Table::create_table_from)). An untyped handle
        /// without a layout sends the filter as it is, and DynamoDB's refusal comes back as
        /// [`Error::Sdk`] (`ValidationException`).
        ///
        /// A filter on one of a multi-attribute index's own key attributes (the fields it is
        /// keyed on) is refused before sending with [`Error::Invalid`], whatever the projection:
        /// DynamoDB takes them in the key condition only (the builder's `<field>_eq`, `_gt`, ...
        /// conditions).
        ///
        /// ```
        /// # async fn paid(table: dynamo_entity::Table) -> Result<(), dynamo_entity::Error> {
        /// # use dynamo_entity::Entity;
        /// # #[derive(Entity, Debug, Clone)]
        /// # #[entity(pk = "USER#<user>", sk = "ORDER#<at>")]
        /// # struct Order { user: String, at: u64, total: u64 }
        /// let large: Vec<Order> = table.query(Order::query("u1")).filter(Order::TOTAL.gt(&100)).all().await?;
        /// let all_large: Vec<Order> = table.scan::<Order>().filter(Order::TOTAL.gt(&100)).all().await?;
        /// # Ok(()) }
        /// ```
        ///
        /// [`Error::FilterNotProjected`]: crate::Error::FilterNotProjected
        /// [`Error::Sdk`]: crate::Error::Sdk
        /// [`Error::Invalid`]: crate::Error::Invalid
        pub fn filter(mut self, condition: $crate::Condition) -> Self {
            self.options.filter(condition);
            self
        }
    };
    (@ descending $read:literal $generics:literal) => {
        /// Highest sort key first (`ScanIndexForward = false`): newest first for a time; the
        /// attributes of a multi-attribute sort key each in its type's order (numbers
        /// numerically, strings by UTF-8 bytes), the last after the first.
        pub fn descending(mut self) -> Self {
            self.options.descending = true;
            self
        }
    };
    (@ ascending $read:literal $generics:literal) => {
        /// Lowest sort key first (the default).
        pub fn ascending(mut self) -> Self {
            self.options.descending = false;
            self
        }
    };
    (@ max_items $read:literal $generics:literal) => {
        /// The most items the read returns in all, whichever way it is read: [`send`](Self::send)
        /// returns one page of at most `n` (it keeps reading DynamoDB's pages until it has `n` or
        /// the read is exhausted; the page's cursor resumes right after the last item returned),
        /// [`pages`](Self::pages) yields pages that hold at most `n` together, and
        /// [`stream`](Self::stream) / [`all`](Self::all) at most `n` items. Items of other
        /// entities, the library's own items and items a [`filter`](Self::filter) leaves out are
        /// not counted. Of a [`parallel`](crate::query::scan::ScanRequest::parallel) scan's
        /// pages, the one that reaches `n` is cut to it and has no cursor.
        ///
        /// With [`page_items`](Self::page_items), each page holds up to that many of the `n`.
        /// At least 1: a read with 0 is refused before anything is sent
        /// ([`Error::Invalid`](crate::Error::Invalid)).
        ///
        /// ```
        /// # async fn newest(table: dynamo_entity::Table) -> Result<(), dynamo_entity::Error> {
        /// # use dynamo_entity::Entity;
        /// # #[derive(Entity, Debug, Clone)]
        /// # #[entity(pk = "USER#<user>", sk = "ORDER#<at>")]
        /// # struct Order { user: String, at: u64 }
        /// let newest: Vec<Order> = table.query(Order::query("u1")).descending().max_items(20).all().await?;
        /// let some: Vec<Order> = table.scan::<Order>().max_items(20).all().await?;
        /// # Ok(()) }
        /// ```
        pub fn max_items(mut self, n: usize) -> Self {
            self.options.counts.max_items = Some(n);
            self
        }
    };
    (@ page_items $read:literal $generics:literal) => {
        /// Pages of up to `n` decoded items: [`send`](Self::send) returns one page of at most `n`
        /// (reading on, request after request, until it has `n` or the read is exhausted), and
        /// its cursor resumes right after the page's last item; each page of
        /// [`pages`](Self::pages) holds up to `n` and continues from the one before, so no item
        /// comes twice. [`stream`](Self::stream) and [`all`](Self::all) still read every item (up
        /// to [`max_items`](Self::max_items)), `n` at a time. At least 1: a read with 0 is
        /// refused before anything is sent ([`Error::Invalid`](crate::Error::Invalid)).
        ///
        /// ```
        /// # async fn by_threes(table: dynamo_entity::Table) -> Result<(), dynamo_entity::Error> {
        /// # use dynamo_entity::Entity;
        /// # use futures::TryStreamExt;
        /// # #[derive(Entity, Debug, Clone)]
        /// # #[entity(pk = "USER#<user>", sk = "ORDER#<at>")]
        /// # struct Order { user: String, at: u64 }
        /// let mut pages = std::pin::pin!(table.query(Order::query("u1")).page_items(3).pages());
        /// while let Some(page) = pages.try_next().await? {
        ///     assert!(page.items.len() <= 3);
        /// }
        /// # Ok(()) }
        /// ```
        pub fn page_items(mut self, n: usize) -> Self {
            self.options.counts.page_items = Some(n);
            self
        }
    };
    (@ limit $read:literal $generics:literal) => {
        /// Deprecated: the total of [`max_items`](Self::max_items), which it sets. It once meant
        /// the items of each page, which is now [`page_items`](Self::page_items).
        ///
        /// ```compile_fail
        /// #![deny(deprecated)]
        #[doc = concat!("fn old", $generics, "(read: ", $read, ") {")]
        ///     let _ = read.limit(3);
        /// }
        /// ```
        /// ```
        /// #![deny(deprecated)]
        #[doc = concat!("fn new", $generics, "(read: ", $read, ") {")]
        ///     let _ = read.max_items(3).page_items(3);
        /// }
        /// ```
        #[deprecated(note = "ambiguous: use `max_items(n)` for the most items in all (what `limit` does), or \
                             `page_items(n)` for pages of up to n items")]
        pub fn limit(self, n: usize) -> Self {
            self.max_items(n)
        }
    };
    (@ page_size $read:literal $generics:literal) => {
        /// DynamoDB's `Limit`: how many items one request evaluates, before the entity type check
        /// and any filter; not a count of the items returned (that is
        /// [`page_items`](Self::page_items) or [`max_items`](Self::max_items)). By default each
        /// request asks for what the page still needs, and without either up to 1 MB of items.
        /// At least 1: a read with a smaller one is refused before anything is sent
        /// ([`Error::Invalid`](crate::Error::Invalid)).
        pub fn page_size(mut self, n: i32) -> Self {
            self.options.page_size(n);
            self
        }
    };
    (@ consistent_read $read:literal $generics:literal) => {
        /// Strongly consistent reads: every item as of its last acknowledged write, at twice the
        /// read capacity of the default eventually consistent read. Of the table and its local
        /// secondary indexes only: DynamoDB reads a global secondary index eventually
        /// consistent (a scan of one is refused before sending with
        /// [`Error::Invalid`](crate::Error::Invalid); a query of one is refused by DynamoDB
        /// with a `ValidationException`).
        pub fn consistent_read(mut self) -> Self {
            self.options.consistent = true;
            self
        }
    };
    (@ after $read:literal $generics:literal) => {
        /// Resumes after `cursor`, from a page of this same read: the same entity, index,
        /// partition (or segment), order and conditions. A cursor of another read is refused with
        /// [`Error::Cursor`](crate::Error::Cursor) when the read is sent; `None` starts from the
        /// beginning.
        ///
        /// ```
        /// # async fn two_pages(table: dynamo_entity::Table) -> Result<(), dynamo_entity::Error> {
        /// # use dynamo_entity::Entity;
        /// # #[derive(Entity, Debug, Clone)]
        /// # #[entity(pk = "USER#<user>", sk = "ORDER#<at>")]
        /// # struct Order { user: String, at: u64 }
        /// let first = table.query(Order::query("u1")).page_items(10).send().await?;
        /// let second = table.query(Order::query("u1")).page_items(10).after(first.cursor).send().await?;
        /// # Ok(()) }
        /// ```
        pub fn after(mut self, cursor: impl Into<Option<$crate::Cursor>>) -> Self {
            self.options.after = cursor.into();
            self
        }
    };
}
pub(crate) use read_setters;

/// Checks a `Query` request's key condition `expr`, `filter`, names and values against
/// DynamoDB's expression limits.
pub(crate) fn check_query(
    expr: &str,
    filter: Option<&str>,
    names: &HashMap<String, String>,
    values: &HashMap<String, AttributeValue>,
) -> Result<(), Exceeded> {
    let key_condition = ("KeyConditionExpression", expr, false, 0);
    match filter {
        None => limits::check_request(&[key_condition], Some(names), Some(values)),
        Some(f) => {
            limits::check_request(&[key_condition, ("FilterExpression", f, false, 0)], Some(names), Some(values))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn item_counts_page_sizes_and_next_pages() {
        let mut o = QueryOptions::default();
        assert_eq!((o.order(), o.request_limit(0)), ("asc", None));
        o.counts.max_items = Some(25);
        assert_eq!((o.counts.page_limit(), o.request_limit(10)), (Some(25), Some(15)));
        o.counts.page_items = Some(10);
        assert_eq!((o.counts.page_limit(), o.request_limit(4)), (Some(10), Some(6)), "a page of 10 items");
        o.page_size(0);
        let refused = o.counts.check(o.page_size, "Query", "Row").unwrap_err().to_string();
        assert!(refused.ends_with("Query of Row: page_size(0): DynamoDB's Limit is at least 1"), "{refused}");
        o.page_size(7);
        o.descending = true;
        let c = Cursor::from("c1");
        let next = o
            .next_page(Some(&c), 10)
            .map(|n| (n.order(), n.after.map(|a| a.to_string()), n.counts, n.counts.page_limit(), n.page_size));
        let counts = ItemCounts { max_items: Some(15), page_items: Some(10) };
        assert_eq!(next, Some(("desc", Some("c1".to_owned()), counts, Some(10), Some(7))));
        let last = o.next_page(Some(&c), 20).map(|n| (n.counts, n.counts.page_limit()));
        assert_eq!(last, Some((ItemCounts { max_items: Some(5), page_items: Some(10) }, Some(5))), "3 + 2 of 5");
        assert!(o.next_page(Some(&c), 25).is_none(), "the total is reached");
        assert!(o.next_page(None, 10).is_none(), "no cursor: the last page");
        o.counts.max_items = None;
        assert_eq!(
            o.next_page(Some(&c), 10).map(|n| n.counts),
            Some(ItemCounts { max_items: None, page_items: Some(10) })
        );
    }
}

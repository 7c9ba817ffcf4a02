//! The options every query builder shares, whatever index it reads: order, item counts, page size,
//! read consistency, start cursor, filter and lenience. [`QueryRequest`](super::QueryRequest)
//! and [`MultiKeyQuery`](super::multi_key::MultiKeyQuery) hold one [`QueryOptions`] each; their
//! public setters (with their own docs) delegate to it, so each option's logic is written once.

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
    /// The `FilterExpression`: every condition given, combined with AND.
    pub(crate) filter: Option<Condition>,
    /// Whether items that do not decode are reported in
    /// [`Page::skipped`](super::Page::skipped) instead of failing the page.
    pub(crate) lenient: bool,
}

impl QueryOptions {
    /// Adds `condition` to the filter, with AND after the conditions given before.
    pub(crate) fn filter(&mut self, condition: Condition) {
        self.filter = Some(match self.filter.take() {
            Some(c) => c.and(condition),
            None => condition,
        });
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

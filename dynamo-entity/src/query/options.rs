//! The options every query builder shares, whatever index it reads: order, limit, page size,
//! read consistency, start cursor, filter and lenience. [`QueryRequest`](super::QueryRequest)
//! and [`MultiKeyQuery`](super::multi_key::MultiKeyQuery) hold one [`QueryOptions`] each; their
//! public setters (with their own docs) delegate to it, so each option's logic is written once.

use std::collections::HashMap;

use aws_sdk_dynamodb::types::AttributeValue;

use super::Cursor;
use crate::error::Error;
use crate::expr::{Condition, Placeholders};
use crate::limits::{self, Exceeded};

/// The options of one query; the defaults are DynamoDB's (ascending, no limit, eventually
/// consistent, from the start, no filter) and a page fails on an item that does not decode.
#[derive(Clone, Default)]
pub(crate) struct QueryOptions {
    /// `ScanIndexForward = false`.
    pub(crate) descending: bool,
    /// The most items of the entity the query returns, in all.
    pub(crate) limit: Option<usize>,
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

    /// Sets DynamoDB's `Limit` to `n`, at least 1 (DynamoDB refuses a `Limit` of 0).
    pub(crate) fn page_size(&mut self, n: i32) {
        self.page_size = Some(n.max(1));
    }

    /// `asc` or `desc`: the order, as a query's cursor fingerprint names it.
    pub(crate) fn order(&self) -> &'static str {
        if self.descending { "desc" } else { "asc" }
    }

    /// How the page loop pages these options' reads ([`Paging`](super::pages::Paging)).
    pub(crate) fn paging(&self) -> super::pages::Paging {
        super::pages::Paging { limit: self.limit, page_size: self.page_size, to_the_end: false, lenient: self.lenient }
    }

    /// How many more items the limit allows once `read` are read (`None`: no limit).
    pub(crate) fn wanted(&self, read: usize) -> Option<usize> {
        self.limit.map(|l| l.saturating_sub(read))
    }

    /// The `Limit` of the next request once `read` items are read: the page size if set, else
    /// what the limit still wants (`None`: neither).
    pub(crate) fn request_limit(&self, read: usize) -> Option<i32> {
        self.paging().request_limit(read)
    }

    /// The options of the page after one that read `read` items and ended at `cursor`: from
    /// the cursor, with what the limit leaves; `None` when there is no next page (no cursor,
    /// or the limit is reached).
    pub(crate) fn next_page(&self, cursor: Option<&Cursor>, read: usize) -> Option<QueryOptions> {
        let left = self.wanted(read);
        match (cursor, left) {
            (_, Some(0)) | (None, _) => None,
            (Some(c), left) => Some(QueryOptions { after: Some(c.clone()), limit: left, ..self.clone() }),
        }
    }

    /// How many pages a lenient query's `stream` and `all` read: one with a limit (its
    /// `send` reads on until it has the limit's items), every page without.
    pub(crate) fn lenient_pages(&self) -> usize {
        if self.limit.is_some() { 1 } else { usize::MAX }
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
    fn limits_page_sizes_and_next_pages() {
        let mut o = QueryOptions::default();
        assert_eq!((o.order(), o.request_limit(0), o.lenient_pages()), ("asc", None, usize::MAX));
        o.limit = Some(25);
        assert_eq!((o.wanted(10), o.request_limit(10), o.lenient_pages()), (Some(15), Some(15), 1));
        o.page_size(0);
        assert_eq!((o.page_size, o.request_limit(10)), (Some(1), Some(1)), "a Limit of 0 is refused by DynamoDB");
        o.page_size(7);
        o.descending = true;
        let c = Cursor::from("c1");
        let next = o.next_page(Some(&c), 10).map(|n| (n.order(), n.after.map(|a| a.to_string()), n.limit, n.page_size));
        assert_eq!(next, Some(("desc", Some("c1".to_owned()), Some(15), Some(7))));
        assert!(o.next_page(Some(&c), 25).is_none(), "the limit is reached");
        assert!(o.next_page(None, 10).is_none(), "no cursor: the last page");
        o.limit = None;
        assert_eq!(o.next_page(Some(&c), 10).map(|n| n.limit), Some(None));
    }
}

//! Whether an index's projection holds every attribute an entity is decoded from.
//!
//! An `INCLUDE` projection copies the keys and the listed attributes into the index. An item
//! read through it decodes into the entity only when nothing the entity reads is left out: a
//! left-out `Option` field would read as `None`, and a `put` of that value would erase the
//! stored one. Queries read such items whole by their primary keys instead (see
//! [`QueryRequest::send`](crate::query::QueryRequest::send)).
//!
//! Whether a projection holds what an entity is decoded from is the [`owner`](crate::owner)
//! room's question. The projection comes from the handle's layout ([`Table::with_layout`](crate::Table::with_layout),
//! [`Table::declared`](crate::Table::declared)), else from the table declaration the entity
//! names (`#[entity(table = ...)]`). Without either, an index item that holds every attribute
//! the entity reads decodes as it is, one that lacks a field that is always stored is read
//! whole, and one that lacks only `Option` fields' attributes ([`Holds::AllButOptional`]: each
//! a `None`, or left out by an `INCLUDE` projection) makes the handle learn the table's
//! projections once (`DescribeTable`); such an item is never read twice because a field is
//! `None`. See [`owner`](crate::owner).
//!
//! A filter can read only what the index holds: the table's and the index's key attributes and
//! the projected ones. [`check_filter`] refuses a filter on any other attribute before anything
//! is sent, when the handle knows the projection.

use crate::error::Error;
use crate::expr::Condition;
use crate::schema::{AttributeNames, Index, Projection};

/// Refuses a `filter` of a read of `index` (`operation` `Query` or `Scan`, of `entity`) that
/// reads an attribute the index's `projection` leaves out: only the table's key attributes
/// (`names`), the index's own (`index_keys`) and, for `INCLUDE`, the listed attributes are in
/// an index item. Nothing to check without a filter, on the primary index, or when the handle
/// does not know the projection (`None`). A `Query` filter on the index's own key attributes
/// is refused whatever the projection: DynamoDB takes them in the key condition only.
///
/// # Errors
/// [`Error::FilterNotProjected`] naming the entity, the index, the projection and the
/// attributes; [`Error::Invalid`] for a `Query` filter on a key attribute of `index`.
pub(crate) fn check_filter(
    operation: &'static str,
    entity: &'static str,
    names: &AttributeNames,
    index: Index,
    index_keys: &[&str],
    projection: Option<Projection>,
    filter: Option<&Condition>,
) -> Result<(), Error> {
    let Some(filter) = filter else { return Ok(()) };
    if index == Index::Primary {
        return Ok(());
    }
    let read = filter.attributes();
    // DynamoDB takes the queried index's key attributes in the key condition only (of a native
    // multi-attribute GSI, the entity's own fields), whatever the projection.
    if let (true, Some(key)) = (operation == "Query", read.iter().find(|a| index_keys.contains(a))) {
        return Err(Error::Invalid {
            reason: format!(
                "Query of {entity} on {}: the filter reads `{key}`, a key attribute of {0}, which DynamoDB takes in \
                 the key condition only; nothing was sent: give it to the key condition (the index's sort-key \
                 conditions), or filter the items after reading them",
                names.label(index)
            ),
        });
    }
    let Some(projection) = projection else { return Ok(()) };
    let projected = |a: &str| {
        a == names.pk
            || a == names.sk
            || index_keys.contains(&a)
            || match projection {
                Projection::All => true,
                Projection::KeysOnly => false,
                Projection::Include(listed) => listed.contains(&a),
            }
    };
    let attributes: Vec<&'static str> = read.into_iter().filter(|a| !projected(a)).collect();
    if attributes.is_empty() {
        return Ok(());
    }
    Err(Error::FilterNotProjected {
        operation,
        entity,
        index: names.label(index),
        projection: describe(projection),
        attributes,
    })
}

/// `projection` as DynamoDB writes it: `ALL`, `KEYS_ONLY`, `INCLUDE (a, b)`.
fn describe(projection: Projection) -> String {
    match projection {
        Projection::Include(listed) => format!("INCLUDE ({})", listed.join(", ")),
        other => other.projection_type().to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::Field;

    type Map = std::collections::BTreeMap<String, String>;
    const TITLE: Field<(), String> = Field::new("title", "title", None);
    const NOTE: Field<(), Option<String>> = Field::new("note", "note", None);
    const RANK: Field<(), u32> = Field::new("rank", "rank", None);
    const TAGS: Field<(), Map> = Field::new("tags", "tag_map", None);
    const LINES: Field<(), Vec<String>> = Field::new("lines", "lines", None);

    /// The refusal of `filter` on GSI1 (keys `GSI1PK`, `GSI1SK`) under `projection`, as text.
    fn refusal(projection: Option<Projection>, filter: &Condition) -> Option<String> {
        let keys = ["GSI1PK", "GSI1SK"];
        check_filter("Query", "Thing", &AttributeNames::DEFAULT, Index::Gsi(1), &keys, projection, Some(filter))
            .err()
            .map(|e| e.to_string())
    }

    #[test]
    fn a_condition_names_each_top_level_attribute_once() {
        let c = TITLE
            .eq(&"a".to_owned())
            .and(NOTE.not_exists().or(TAGS.entry("k").eq(&"v".to_owned())))
            .and(LINES.element(2).exists().not())
            .and(TITLE.begins_with("b"))
            .and(RANK.between(&1, &2).or(RANK.size(crate::expr::Comparison::Gt, 1)));
        assert_eq!(c.attributes(), ["title", "note", "tag_map", "lines", "rank"]);
        assert_eq!(RANK.is_in(&[]).attributes(), Vec::<&str>::new(), "a condition that does not encode");
    }

    #[test]
    fn a_filter_reads_only_what_the_index_projects() {
        let title = TITLE.eq(&"T4".to_owned());
        assert_eq!(
            refusal(Some(Projection::KeysOnly), &title).as_deref(),
            Some(
                "Query of Thing on GSI1: the filter reads `title`, which GSI1 does not project (KEYS_ONLY); nothing \
                 was sent: filter the items after reading them, or project the attribute into GSI1"
            )
        );
        let include = Projection::Include(&["title", "subtitle"]);
        assert_eq!(refusal(Some(include), &title), None);
        assert_eq!(refusal(Some(Projection::All), &NOTE.not_exists()), None);
        // Unknown projection: nothing is checked.
        assert_eq!(refusal(None, &NOTE.not_exists()), None);
        // Several attributes, each once, in the filter's order; a path needs its top-level one.
        let several = NOTE.exists().and(TAGS.entry("title").eq(&"x".to_owned())).and(NOTE.ne(&None)).and(title);
        assert_eq!(
            refusal(Some(include), &several).as_deref(),
            Some(
                "Query of Thing on GSI1: the filter reads `note`, `tag_map`, which GSI1 does not project (INCLUDE \
                 (title, subtitle)); nothing was sent: filter the items after reading them, or project the attributes \
                 into GSI1"
            )
        );
        // The table's and the index's key attributes are in every index item.
        const PK: Field<(), String> = Field::new("pk", "PK", None);
        const GSI1SK: Field<(), String> = Field::new("sk", "GSI1SK", None);
        const GSI2SK: Field<(), String> = Field::new("other", "GSI2SK", None);
        let table_keys = PK.eq(&"a".to_owned());
        assert_eq!(refusal(Some(Projection::KeysOnly), &table_keys), None);
        let other = refusal(Some(Projection::KeysOnly), &table_keys.clone().and(GSI2SK.exists()));
        assert!(other.is_some_and(|e| e.contains("reads `GSI2SK`")), "another index's key is not projected");
        // The queried index's own key: in the key condition only, whatever the projection (a
        // scan may filter on it).
        let own = table_keys.and(GSI1SK.exists());
        assert_eq!(
            refusal(None, &own).as_deref(),
            Some(
                "invalid request: Query of Thing on GSI1: the filter reads `GSI1SK`, a key attribute of GSI1, which \
                 DynamoDB takes in the key condition only; nothing was sent: give it to the key condition (the \
                 index's sort-key conditions), or filter the items after reading them"
            )
        );
        let scan = check_filter(
            "Scan",
            "Thing",
            &AttributeNames::DEFAULT,
            Index::Gsi(1),
            &["GSI1PK", "GSI1SK"],
            Some(Projection::KeysOnly),
            Some(&own),
        );
        assert!(scan.is_ok(), "{scan:?}");
        // The primary index holds every attribute.
        let on_table = check_filter(
            "Query",
            "Thing",
            &AttributeNames::DEFAULT,
            Index::Primary,
            &[],
            Some(Projection::KeysOnly),
            Some(&NOTE.exists()),
        );
        assert!(on_table.is_ok());
        let Err(Error::FilterNotProjected { operation, entity, index, projection, attributes }) = check_filter(
            "Scan",
            "Thing",
            &AttributeNames::DEFAULT,
            Index::Inverted,
            &["SK", "PK"],
            Some(Projection::KeysOnly),
            Some(&RANK.ge(&10)),
        ) else {
            panic!("refused")
        };
        assert_eq!(
            (operation, entity, index, projection.as_str(), attributes),
            ("Scan", "Thing", "INVERTED", "KEYS_ONLY", vec!["rank"])
        );
    }
}

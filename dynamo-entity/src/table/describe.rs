//! The projections of a table's secondary indexes as `DescribeTable` reports them, for a
//! handle that knows neither the table's layout nor a declaration (see
//! [`Table::learn_projection`]).

use std::collections::{BTreeMap, HashSet};
use std::sync::{Mutex, OnceLock, PoisonError};

use aws_sdk_dynamodb::types::{Projection as SdkProjection, ProjectionType};

use crate::error::Error;
use crate::schema::Projection;
use crate::table::{Call, Table};

/// Every secondary index of `table` by name, with its projection; `None` when `DescribeTable`
/// fails (logged at debug level: the reader then reads partial index items whole).
pub(super) async fn projections(table: &Table) -> Option<BTreeMap<String, Projection>> {
    let request = table.client().describe_table().table_name(table.name()).send();
    let described = match table.execute(Call::new("DescribeTable", ""), request).await {
        Ok(out) => out.table?,
        Err(e) => {
            tracing::debug!(table = table.name(), error = %Error::sdk("DescribeTable", e), "index projections unknown");
            return None;
        }
    };
    let gsis = described.global_secondary_indexes().iter().map(|i| (i.index_name(), i.projection()));
    let lsis = described.local_secondary_indexes().iter().map(|i| (i.index_name(), i.projection()));
    // Inserted one by one: collecting into the map would sort with a stable sort, kilobytes of
    // code for a handful of indexes.
    let mut out = BTreeMap::new();
    for (name, p) in gsis.chain(lsis) {
        if let (Some(name), Some(p)) = (name, p.and_then(projection)) {
            out.insert(name.to_owned(), p);
        }
    }
    Some(out)
}

/// A projection as the library models it; `None` for a type it does not know.
fn projection(p: &SdkProjection) -> Option<Projection> {
    match p.projection_type()? {
        ProjectionType::All => Some(Projection::All),
        ProjectionType::KeysOnly => Some(Projection::KeysOnly),
        ProjectionType::Include => Some(Projection::Include(interned(p.non_key_attributes()))),
        _ => None,
    }
}

/// `names` as a list that lives as long as the process, shared by every handle that learns the
/// same list: at most one copy per distinct list the process's tables project.
fn interned(names: &[String]) -> &'static [&'static str] {
    static LISTS: OnceLock<Mutex<HashSet<&'static [&'static str]>>> = OnceLock::new();
    static NAMES: OnceLock<Mutex<HashSet<&'static str>>> = OnceLock::new();
    let mut known_names = NAMES.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner);
    let list: Vec<&'static str> = names
        .iter()
        .map(|n| match known_names.get(n.as_str()) {
            Some(&known) => known,
            None => {
                let leaked: &'static str = Box::leak(n.clone().into_boxed_str());
                known_names.insert(leaked);
                leaked
            }
        })
        .collect();
    drop(known_names);
    let mut lists = LISTS.get_or_init(Default::default).lock().unwrap_or_else(PoisonError::into_inner);
    match lists.get(list.as_slice()) {
        Some(&known) => known,
        None => {
            let leaked: &'static [&'static str] = Box::leak(list.into_boxed_slice());
            lists.insert(leaked);
            leaked
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_projected_list_is_kept_once() {
        let a = interned(&["title".to_owned(), "_type".to_owned()]);
        let b = interned(&["title".to_owned(), "_type".to_owned()]);
        assert_eq!(a, ["title", "_type"]);
        assert!(std::ptr::eq(a, b));
        let keys = SdkProjection::builder().projection_type(ProjectionType::KeysOnly).build();
        assert_eq!(projection(&keys), Some(Projection::KeysOnly));
    }
}

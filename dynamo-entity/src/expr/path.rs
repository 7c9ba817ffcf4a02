//! Conditions on one map entry or list element of a field: `#f.#k = :v`, `#f[2] > :v`.

use std::collections::{BTreeMap, HashMap};
use std::marker::PhantomData;

use aws_sdk_dynamodb::types::AttributeValue;

use super::{Comparison, Condition, Field, Node, Placeholders};
use crate::value::{Attribute, ValueError};

/// One map entry (its key) or list element (its index) of an attribute.
#[derive(Debug, Clone)]
pub(crate) struct At {
    attribute: &'static str,
    key: Option<String>,
    index: usize,
}

impl At {
    /// The top-level attribute of the path: the field's.
    pub(super) fn attribute(&self) -> &'static str {
        self.attribute
    }

    /// The document path, every name a placeholder: `#n0.#n1` or `#n0[2]`.
    pub(super) fn render(&self, ph: &mut Placeholders) -> String {
        let n = ph.name(self.attribute);
        match &self.key {
            Some(key) => format!("{n}.{}", ph.name(key)),
            None => format!("{n}[{}]", self.index),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A map field: `HashMap<String, V>` or `BTreeMap<String, V>` (DynamoDB's `M`), whose entries
/// [`Field::entry`] compares and [`UpdateRequest::set_entry`](crate::update::UpdateRequest::set_entry)
/// changes one at a time. Sealed.
pub trait MapField: Attribute + sealed::Sealed {
    /// The type of the map's values.
    type Value: Attribute;
}

impl<V: Attribute, S> sealed::Sealed for HashMap<String, V, S> {}
impl<V: Attribute, S> MapField for HashMap<String, V, S>
where
    HashMap<String, V, S>: Attribute,
{
    type Value = V;
}
impl<V: Attribute> sealed::Sealed for BTreeMap<String, V> {}
impl<V: Attribute> MapField for BTreeMap<String, V> {
    type Value = V;
}

/// A map key DynamoDB accepts: not empty (a map key is an attribute name).
///
/// # Errors
/// [`ValueError::NotRepresentable`] for `""`.
pub(crate) fn check_map_key(key: &str) -> Result<(), ValueError> {
    if key.is_empty() {
        return Err(ValueError::NotRepresentable {
            value: "the map key \"\"".to_owned(),
            reason: "a map key is an attribute name, which DynamoDB requires to be non-empty",
        });
    }
    Ok(())
}

/// Whether `Vec<T>` is stored as a list (`L`): not `Vec<u8>`, which is binary (`B`).
pub(crate) fn is_list<T: Attribute>() -> bool {
    matches!(T::__list_to(&[]), Ok(AttributeValue::L(_)))
}

/// One map entry or list element of a field of entity `E`, holding a `T`: from
/// [`Field::entry`] or [`Field::element`]. Builds conditions on it alone (as condition
/// expressions or query filters), its path written with a placeholder for every name.
pub struct Part<E, T> {
    at: Result<At, ValueError>,
    field: &'static str,
    _marker: PhantomData<fn() -> (E, T)>,
}

impl<E, T> std::fmt::Debug for Part<E, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Part({} {:?})", self.field, self.at)
    }
}

impl<E, M: MapField, K> Field<E, M, K> {
    /// The entry `key` of this map field, for conditions: `Account::LIMITS.entry("api").ge(&10)`
    /// renders `#n0.#n1 >= :v0`. An empty key is [`Error::Encode`](crate::Error::Encode) when
    /// the request is built (DynamoDB requires non-empty names).
    pub fn entry(&self, key: &str) -> Part<E, M::Value> {
        let at = check_map_key(key).map(|()| At { attribute: self.attribute, key: Some(key.to_owned()), index: 0 });
        Part { at, field: self.name, _marker: PhantomData }
    }
}

impl<E, T: Attribute, K> Field<E, Vec<T>, K> {
    /// The element at `index` (from 0) of this list field, for conditions:
    /// `Order::LINES.element(0).eq(&line)` renders `#n0[0] = :v0`. A comparison with an element
    /// past the end is false. A `Vec<u8>` field is binary, not a list:
    /// [`Error::Encode`](crate::Error::Encode) when the request is built.
    pub fn element(&self, index: usize) -> Part<E, T> {
        let at = if is_list::<T>() {
            Ok(At { attribute: self.attribute, key: None, index })
        } else {
            Err(ValueError::Invalid(format!("`{}` is binary (B), not a list: it has no elements", self.name)))
        };
        Part { at, field: self.name, _marker: PhantomData }
    }
}

impl<E, T: Attribute> Part<E, T> {
    fn node(&self, f: impl FnOnce(At) -> Result<Node, ValueError>) -> Condition {
        Condition { node: self.at.clone().and_then(f), field: self.field }
    }

    fn compare(&self, op: Comparison, value: &T) -> Condition {
        self.node(|at| {
            Ok(match (value.to_attribute()?, op) {
                // An absent value (`None`) is a missing entry, not NULL, as for a whole field.
                (None, Comparison::Eq) => Node::AtExists(at, false),
                (None, Comparison::Ne) => Node::AtExists(at, true),
                (v, op) => Node::AtCompare(at, op, v.unwrap_or(AttributeValue::Null(true))),
            })
        })
    }
    /// `path = value`; for `None`, `attribute_not_exists(path)`.
    pub fn eq(&self, value: &T) -> Condition {
        self.compare(Comparison::Eq, value)
    }
    /// `path <> value`; for `None`, `attribute_exists(path)`.
    pub fn ne(&self, value: &T) -> Condition {
        self.compare(Comparison::Ne, value)
    }
    /// `path < value`.
    pub fn lt(&self, value: &T) -> Condition {
        self.compare(Comparison::Lt, value)
    }
    /// `path <= value`.
    pub fn le(&self, value: &T) -> Condition {
        self.compare(Comparison::Le, value)
    }
    /// `path > value`.
    pub fn gt(&self, value: &T) -> Condition {
        self.compare(Comparison::Gt, value)
    }
    /// `path >= value`.
    pub fn ge(&self, value: &T) -> Condition {
        self.compare(Comparison::Ge, value)
    }
    /// `attribute_exists(path)`: the map has the entry, or the list the element.
    pub fn exists(&self) -> Condition {
        self.node(|at| Ok(Node::AtExists(at, true)))
    }
    /// `attribute_not_exists(path)`.
    pub fn not_exists(&self) -> Condition {
        self.node(|at| Ok(Node::AtExists(at, false)))
    }
}

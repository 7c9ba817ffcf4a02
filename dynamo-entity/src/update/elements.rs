//! Updates of one part of a collection field: set elements, map entries and list elements.
//!
//! * Sets: [`UpdateRequest::insert_into`] / [`UpdateRequest::delete_from`] take a `BTreeSet` or a
//!   `HashSet` field ([`SetField`]).
//! * Maps: [`UpdateRequest::set_entry`] / [`UpdateRequest::remove_entry`] change one entry of a
//!   `HashMap<String, V>` / `BTreeMap<String, V>` field ([`MapField`]): `SET #f.#k = :v`, the
//!   entry's key a name placeholder of its own, so any key text is safe.
//! * Lists: [`UpdateRequest::set_element`] / [`UpdateRequest::remove_element`] change one element
//!   of a `Vec<T>` field: `SET #f[3] = :v` (DynamoDB takes the index as literal digits).
//!
//! Conditions on one entry or element: [`Field::entry`](crate::expr::Field::entry) and
//! [`Field::element`](crate::expr::Field::element).
//!
//! DynamoDB's rules, checked before sending: a map key is an attribute name and cannot be
//! empty; one request changes a path once, and never a field and one of its parts together
//! ([`Error::Invalid`]). `SET f[i]` past the end of a list would append the value at the end
//! instead: the request carries the guard `size(f) > i`, so a missing element is
//! [`Error::ConditionFailed`] and nothing is written. `REMOVE f[i]` past the end removes
//! nothing. The expression's length and its names and values are checked against DynamoDB's
//! limits with the rest of the request ([`limits`](crate::limits)).

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use super::{Action, UpdateRequest};
use crate::error::Error;
pub use crate::expr::MapField;
use crate::expr::path::{check_map_key, is_list};
use crate::expr::{Field, Mutable, NotKey, NotMaintained, NotUnique, Placeholders};
use crate::schema::Entity;
use crate::value::{Attribute, SetElement, ValueError};

/// One map entry (`.key`) or list element (`[i]`) of an attribute.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A map entry: its key.
    Key(String),
    /// A list element: its index.
    Index(usize),
}

impl Step {
    /// The document path of this step in the attribute whose name placeholder is `name`:
    /// `#n0.#n1` (the key a placeholder) or `#n0[3]`.
    pub(crate) fn path(&self, name: &str, ph: &mut Placeholders) -> String {
        match self {
            Step::Key(key) => format!("{name}.{}", ph.name(key)),
            Step::Index(i) => format!("{name}[{i}]"),
        }
    }
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Key(key) => write!(f, "[{key:?}]"),
            Step::Index(i) => write!(f, "[{i}]"),
        }
    }
}

mod sealed {
    pub trait Sealed {}
}

/// A set field that [`UpdateRequest::insert_into`] / [`UpdateRequest::delete_from`] change
/// element by element: `BTreeSet<T>` or `HashSet<T>` of strings, numbers or byte strings
/// (DynamoDB's `SS`, `NS`, `BS`). Sealed.
pub trait SetField: Attribute + sealed::Sealed {}

impl<T: SetElement + Ord> sealed::Sealed for BTreeSet<T> {}
impl<T: SetElement + Ord> SetField for BTreeSet<T> {}
impl<T: SetElement + Eq + std::hash::Hash, S: std::hash::BuildHasher + Default> sealed::Sealed for HashSet<T, S> {}
impl<T: SetElement + Eq + std::hash::Hash, S: std::hash::BuildHasher + Default> SetField for HashSet<T, S> {}

impl<E: Entity> UpdateRequest<E> {
    fn push_at(mut self, field: &'static str, attribute: &'static str, action: Result<Action, ValueError>) -> Self {
        if E::SCHEMA.key_only(field) {
            self.fail(Error::Invalid {
                reason: format!("{}.{field} is stored only inside its keys: it has no entries or elements", E::TYPE),
            });
            return self;
        }
        match action {
            Ok(action) => self.actions.push((field, attribute, action)),
            Err(source) => self.fail(Error::Encode { entity: E::TYPE, field, attribute, source }),
        }
        self
    }

    /// Sets one entry of a map field (`SET #f.#k = :v`), adding it when the map has no such key;
    /// the map's other entries stay. A `None` value (for a map of `Option`s) removes the entry,
    /// as a whole-map write leaves `None` values out.
    ///
    /// An empty `key` is [`Error::Encode`] before sending (DynamoDB requires non-empty names).
    pub fn set_entry<F: MapField, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, F, M>,
        key: &str,
        value: &F::Value,
    ) -> Self {
        let action = check_map_key(key).and_then(|()| value.to_attribute()).map(|v| match v {
            Some(v) => Action::SetAt(Step::Key(key.to_owned()), v),
            None => Action::RemoveAt(Step::Key(key.to_owned())),
        });
        self.push_at(field.name, field.attribute, action)
    }

    /// Removes one entry of a map field (`REMOVE #f.#k`); nothing changes when there is no such
    /// entry.
    pub fn remove_entry<F: MapField, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, F, M>,
        key: &str,
    ) -> Self {
        let action = check_map_key(key).map(|()| Action::RemoveAt(Step::Key(key.to_owned())));
        self.push_at(field.name, field.attribute, action)
    }

    /// Replaces the element at `index` (from 0) of a list field (`SET #f[i] = :v`). The list must
    /// hold that element: the request's condition gets `size(#f) > i`, and a shorter list is
    /// [`Error::ConditionFailed`] (DynamoDB alone would append the value at the end).
    /// A `Vec<u8>` field is binary, not a list: [`Error::Encode`] before sending.
    pub fn set_element<T: Attribute, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, Vec<T>, M>,
        index: usize,
        value: &T,
    ) -> Self {
        let field = field.settable();
        let action = list_field::<T>(&field).and_then(|()| value.to_attribute()).and_then(|v| match v {
            Some(v) => Ok(Action::SetAt(Step::Index(index), v)),
            None => {
                Err(ValueError::Invalid("a list element cannot be absent (None); remove_element removes one".into()))
            }
        });
        self.push_at(field.name, field.attribute, action)
    }

    /// Removes the element at `index` of a list field (`REMOVE #f[i]`); the elements after it
    /// move up by one. An index past the end removes nothing.
    pub fn remove_element<T: Attribute, M: NotUnique + NotKey + NotMaintained>(
        self,
        field: Field<E, Vec<T>, M>,
        index: usize,
    ) -> Self {
        let field = field.settable();
        let action = list_field::<T>(&field).map(|()| Action::RemoveAt(Step::Index(index)));
        self.push_at(field.name, field.attribute, action)
    }
}

/// `Ok` when `field` (a `Vec<T>`) is a list, not the binary of `Vec<u8>`.
fn list_field<T: Attribute>(field: &Field<impl Sized, Vec<T>, Mutable>) -> Result<(), ValueError> {
    if is_list::<T>() {
        return Ok(());
    }
    Err(ValueError::Invalid(format!("`{}` is binary (B), not a list: it has no elements to update", field.name)))
}

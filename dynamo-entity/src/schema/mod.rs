//! The schema: what the table holds and how it is named. The [`Entity`] trait and its
//! [`EntitySchema`], attribute and index names ([`AttributeNames`], [`Index`]), keys
//! ([`Key`], [`PrimaryKey`]), the table declaration ([`TableDef`], [`TableLayout`]) with its
//! compile-time checks (run by `#[derive(TableDef)]`), and DynamoDB's item size rules ([`size`]).
//!
//! Nothing here sends a request: every operation builds on these types.

pub(crate) mod check;
mod collection;
pub(crate) mod entity;
mod key_fields;
mod layout;
pub mod size;

pub use crate::key::names::*;
pub use crate::value::Item;
pub use collection::{Collection, EntityEnum, Unknown};
pub use entity::*;
pub use key_fields::{KeyFields, KeyPartSource, part_from_keys};
pub use layout::*;

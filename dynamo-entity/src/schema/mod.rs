//! The schema: what the table holds and how it is named. The [`Entity`] trait and its
//! [`EntitySchema`], attribute and index names ([`AttributeNames`], [`Index`]), keys
//! ([`Key`], [`PrimaryKey`]), the table declaration ([`TableDef`], [`TableLayout`]) with its
//! compile-time checks (run by `#[derive(TableDef)]`), DynamoDB's item size rules ([`size`]), and
//! versioned entity schemas ([`evolve`]: items of earlier versions upgraded on read).
//!
//! Nothing here sends a request: every operation builds on these types.

pub(crate) mod check;
mod collection;
pub(crate) mod entity;
pub mod evolve;
mod key_fields;
mod layout;
mod member;
pub mod multi_key;
mod projection;
pub mod reserved;
pub mod size;
mod stream_view;
pub mod vector;

pub use crate::key::names::*;
pub use crate::value::Item;
pub use collection::{Collection, EntityEnum, Unknown};
pub use entity::*;
pub use evolve::{SCHEMA_ATTRIBUTE, SchemaVersion};
pub use key_fields::{KeyPartSource, part_from_keys};
pub use layout::*;
pub use member::{Admits, EntityOf, TableItems};
pub use multi_key::{KeyAttribute, MultiKeyAttr, MultiKeyIndex};
pub use projection::{GsiDecl, Projection};
pub use stream_view::StreamViewType;
pub use vector::{Distance, SearchAttribute, VectorIndex, billed_item_size};

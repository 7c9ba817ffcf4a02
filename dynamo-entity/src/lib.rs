#![doc = include_str!("../README.md")]
#![cfg_attr(docsrs, feature(doc_cfg))]
#![warn(missing_docs)]

pub mod batch;
pub mod capacity;
#[cfg(feature = "cli")]
#[cfg_attr(docsrs, doc(cfg(feature = "cli")))]
pub mod cli;
pub mod collection;
pub mod design;
pub mod error;
pub mod expr;
#[cfg(any(doc, doctest))]
pub mod guide;
pub mod item;
pub mod key;
pub mod limits;
pub mod migrate;
pub mod owner;
pub mod query;
pub mod restamp;
pub mod retry;
pub mod schema;
pub mod stream;
pub mod table;
pub mod transact;
pub mod unique;
pub mod update;
pub mod value;
pub mod versioning;
pub mod write_token;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use dynamo_entity_derive::{Collection, Entity, EntityEnum, KeyPart, TableDef};
pub use error::{Error, Result};
pub use expr::{Condition, Field};
pub use key::{AttributeNames, Index, KeyPart, PrimaryKey};
pub use query::{Cursor, Page};
pub use schema::{Collection, Entity, EntityEnum, Item, Key, TableDef};
pub use table::Table;
pub use value::Attribute;
pub use value::time::{Date, Timestamp};

//! The typed models the derives check and expand, built from syn's input and the parsed
//! attributes. Building a model records the errors of its attributes; the rules that need the
//! whole model are in [`crate::internals::check`].

pub mod collection;
pub mod entity;
pub mod key_part;
pub mod table;

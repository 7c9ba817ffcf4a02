//! The checks of each derive's model. Every rule records its errors in the [`Ctxt`] and the
//! pass goes on, so that the user sees all of their mistakes at once; code is generated only
//! when there are none.
//!
//! [`Ctxt`]: crate::internals::ctxt::Ctxt

pub mod collection;
pub mod entity;
pub mod key_part;
pub mod key_style;
pub mod multi_key;
pub mod schema;
pub mod table;
pub mod vector;

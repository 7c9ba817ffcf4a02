//! Code generation, one module per derive, each implementing [`crate::pipeline::Derive`] for
//! its model. `#[derive(Entity)]` is split by what it emits (see [`entity`]).

pub mod collection;
pub mod entity;
pub mod fallback;
pub mod key_part;
pub mod table;
pub mod table_checks;

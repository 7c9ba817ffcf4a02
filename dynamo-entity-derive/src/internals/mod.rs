//! The derives' shared front end, as in serde_derive: attributes are parsed ([`attr`]) into
//! typed models ([`ast`]) in an error-collecting context ([`ctxt`]), and checked ([`check`]).
//! Each step has its own modules, and none imports a later step's: [`attr`] knows no model,
//! [`ast`] builds on [`attr`], [`check`] reads [`ast`]; code generation (`expand`) comes after.
//! [`model`] holds what every derive knows about DynamoDB (limits, index kinds, key roles,
//! reserved attribute names, projections); [`template`] parses key templates, [`types`]
//! classifies field types.

pub mod ast;
pub mod attr;
pub mod case;
pub mod check;
pub mod ctxt;
pub mod model;
pub mod suggest;
pub mod template;
pub mod types;

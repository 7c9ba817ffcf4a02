//! The derives' shared front end, as in serde_derive: attributes are parsed ([`attr`]) into
//! typed models ([`ast`]) in an error-collecting context ([`ctxt`]), and checked ([`check`]).
//! [`model`] holds what every derive knows about DynamoDB (limits, index kinds, key roles,
//! projections); [`template`] parses key templates, [`types`] classifies field types.

pub mod ast;
pub mod attr;
pub mod case;
pub mod check;
pub mod ctxt;
pub mod key_style;
pub mod model;
pub mod suggest;
pub mod template;
pub mod types;

//! Applications built on `dynamo-entity`. Each module holds one application's entities, a
//! deterministic data generator and its access patterns, so that the runnable examples, the
//! integration tests and the benchmarks share them. [`runner`] is the command line of the
//! runnable examples.

pub mod bench_plots;
pub mod orders;
pub mod report;
pub mod rng;
pub mod runner;
pub mod skill_exchange;
pub mod vault_commerce;

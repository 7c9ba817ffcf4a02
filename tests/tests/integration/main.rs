//! The integration tests of dynamo-entity, one test binary (the AWS SDK and the examples are
//! linked once) with a module per subject; each module's header says what it covers. Most run
//! against DynamoDB Local: `DYNAMODB_ENDPOINT`, or one server the harness starts for the
//! process (`common`). Run one module with a filter, e.g.
//! `cargo test -p dynamo-entity-tests --test integration -- batch::`.
//!
//! Beside this folder: the insta snapshots, `../snapshots/<module>__<name>.snap` (named by
//! `common::insta` as when each module was a test binary of its own), and the proptest
//! regressions, `../proptest-regressions/<module>.txt` (proptest's place for a crate whose
//! root is a `main.rs`). The compile-fail cases are the separate `ui` binary (`../ui.rs`).

mod common;

mod applied;

mod backfills;
mod batch;
mod bench_plots;
mod binary_keys;
mod browser;
mod bulk_upgrade;
mod capacity;
mod cases;
mod collections;
mod decimals;
mod declared_handle;
mod design;
mod dispatch;
mod elements;
mod exactly_once;
mod exactly_once_order;
mod exactly_once_tx;
mod executor;
mod expand_contract;
mod exports;
mod expressions;
mod faults;
mod interop;
mod inverted;
mod item_counts;
mod key_fields;
mod key_rebuild;
mod keyspace;
mod lenient;
mod limits;
mod lint;
mod local_databases;
mod lsi;
mod malformed;
mod migrations_cli;
mod multi_key;
mod names;
mod native_keys;
mod operations;
mod orders;
mod ownership;
mod projected;
mod projected_reads;
mod properties;
mod rekey_faults;
mod rekey_rolling;
mod render;
mod restamp;
mod retype_rolling;
mod runner_identity;
mod scans;
mod schema_guard;
mod schema_versions;
mod service_errors;
mod sharding;
mod skill_exchange;
mod skill_exchange_migration;
mod soak;
mod stream_table;
mod streams;
mod table_decl;
mod table_diff;
mod transactions;
mod unique;
mod upserts;
mod vault_commerce;
mod vector_search;
mod verify_migrations;
mod version_history;
mod versioning;

//! Compile-time rules of `#[derive(Entity)]`, `#[derive(KeyPart)]` and `#[derive(TableDef)]`
//! (`ui/table_*.rs`: the checks across a table's entities), pinned by trybuild.
//!
//! Each `ui/*.rs` must fail to compile with exactly the errors in its `.stderr`; each
//! `ui/pass/*.rs` must compile and run. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p dynamo-entity-tests --test ui`, then read every one.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
}

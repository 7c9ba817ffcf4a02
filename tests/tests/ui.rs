//! Compile-time rules of `#[derive(Entity)]`, `#[derive(KeyPart)]` and `#[derive(TableDef)]`
//! (`ui/table_*.rs`: the checks across a table's entities), pinned by trybuild.
//!
//! Each `ui/*.rs` must fail to compile with exactly the errors in its `.stderr`; each
//! `ui/pass/*.rs` must compile and run. Regenerate the `.stderr` files with
//! `TRYBUILD=overwrite cargo test -p dynamo-entity-tests --test ui`, then read every one.

#[test]
fn ui() {
    // trybuild builds the cases in a project of its own (under `target/tests/trybuild`), which
    // takes no `[profile]` from this workspace's manifest: without this, every passing case
    // links a binary carrying the AWS SDK's full debug information (161 MB each, 6.7 GB for
    // the suite on a fresh target directory). The cases need no debug information at all.
    // SAFETY: this binary's only test sets it before trybuild starts any thread or process.
    unsafe { std::env::set_var("CARGO_PROFILE_DEV_DEBUG", "false") };
    let t = trybuild::TestCases::new();
    t.compile_fail("ui/*.rs");
    t.pass("ui/pass/*.rs");
}

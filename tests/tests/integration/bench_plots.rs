//! The ratio charts of `BENCHMARKS.md` (`examples/benches/plots/*.svg`, drawn by
//! `scripts/bench-plots` from the `ratio ...` lines the document records) are current, and
//! every chart the document references exists.

use std::path::Path;

use dynamo_entity_examples::bench_plots::{plots, sections};

#[test]
fn the_committed_benchmark_charts_are_current() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc = std::fs::read_to_string(root.join("BENCHMARKS.md")).unwrap();
    let (current, files) = plots(&doc);
    assert!(current == doc, "BENCHMARKS.md lacks chart references: run scripts/bench-plots");
    // Every section with ratio lines has its chart, and the charts are the ones drawn now.
    assert_eq!(files.len(), sections(&doc).len());
    assert!(files.len() >= 6, "the sections with ratios: {}", files.len());
    for (path, svg) in files {
        let committed = std::fs::read_to_string(root.join(&path)).unwrap_or_default();
        assert!(committed == svg, "{path} is stale: run scripts/bench-plots");
    }
}

//! Draws the ratio charts of `BENCHMARKS.md` from the `ratio ...` lines it records (see
//! `dynamo_entity_examples::bench_plots`): writes `examples/benches/plots/*.svg` and the chart
//! references under the headings. With `--check`, changes nothing and fails when either is not
//! current.
//!
//! ```text
//! scripts/bench-plots [--check]
//! ```

use std::path::Path;
use std::process::ExitCode;

use dynamo_entity_examples::bench_plots::plots;

fn main() -> ExitCode {
    let check = std::env::args().skip(1).any(|a| a == "--check");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let doc_path = root.join("BENCHMARKS.md");
    let doc = match std::fs::read_to_string(&doc_path) {
        Ok(d) => d,
        Err(e) => {
            eprintln!("FAILED: reading {}: {e}", doc_path.display());
            return ExitCode::FAILURE;
        }
    };
    let (new_doc, files) = plots(&doc);
    let mut stale = Vec::new();
    for (path, contents) in std::iter::once(("BENCHMARKS.md".to_owned(), new_doc)).chain(files) {
        let full = root.join(&path);
        if std::fs::read_to_string(&full).ok().as_deref() == Some(contents.as_str()) {
            continue;
        }
        if check {
            stale.push(path);
            continue;
        }
        if let Some(dir) = full.parent()
            && let Err(e) = std::fs::create_dir_all(dir)
        {
            eprintln!("FAILED: creating {}: {e}", dir.display());
            return ExitCode::FAILURE;
        }
        if let Err(e) = std::fs::write(&full, contents) {
            eprintln!("FAILED: writing {}: {e}", full.display());
            return ExitCode::FAILURE;
        }
        println!("wrote {path}");
    }
    if !stale.is_empty() {
        eprintln!("FAILED: not current (run scripts/bench-plots): {}", stale.join(", "));
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

#!/usr/bin/env bash
# Builds the fuzz targets once, then runs each for SECONDS (default 600) over its corpus in
# fuzz/corpus/<target>, one after the other, at the lowest CPU priority. Crashes are written to
# fuzz/artifacts/<target>/. The full runs of BENCHMARKS.md ("Reliability") are `fuzz/run-all.sh`.
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-600}"
targets=(decode_item decode_json key_parse cursor page_items)
nice -n 19 cargo +nightly fuzz build -O
bin=target/x86_64-unknown-linux-gnu/release
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    echo "=== $t: $secs s"
    nice -n 19 "$bin/$t" -artifact_prefix="artifacts/$t/" -max_total_time="$secs" -print_final_stats=1 "corpus/$t" 2>&1 |
        grep -E '^#[0-9]+.*(DONE|pulse)|^Done|^stat::|panicked|SUMMARY|ERROR' | tail -15
done

#!/usr/bin/env bash
# CI's fuzz smoke run: each target over its committed corpus (fuzz/corpus/<target>) and then
# new inputs, SECONDS in all (default 20), in a debug build (overflow checks on, and quicker
# to build than the optimized build of the full runs, fuzz/run-all.sh). Installs cargo-fuzz
# when absent. Uses the nightly toolchain with AddressSanitizer when there is one; otherwise
# the default toolchain without a sanitizer (the coverage instrumentation needs no nightly).
set -euo pipefail
cd "$(dirname "$0")"
secs="${1:-20}"
command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
    fuzz=(cargo +nightly fuzz)
    sanitizer=address
else
    fuzz=(env RUSTC_BOOTSTRAP=1 cargo fuzz)
    sanitizer=none
fi
log="$(mktemp)"
# New inputs go to a scratch directory (libFuzzer writes to the first corpus directory), so the
# committed corpus stays as minimized.
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch" "$log"' EXIT
for t in decode_item decode_json key_parse cursor page_items; do
    echo "--- $t: $secs s"
    mkdir -p "$scratch/$t"
    if ! "${fuzz[@]}" run --dev -s "$sanitizer" "$t" "$scratch/$t" "corpus/$t" -- -max_total_time="$secs" \
        -print_final_stats=1 >"$log" 2>&1; then
        tail -40 "$log"
        echo "fuzz target $t failed: the input is in fuzz/artifacts/$t"
        exit 1
    fi
    grep -E '^#[0-9]+.*DONE|^Done' "$log" || true
done

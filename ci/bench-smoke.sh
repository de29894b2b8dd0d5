#!/usr/bin/env bash
# The criterion suite compiles, and each benchmark case runs once (cargo test
# runs criterion benches in test mode: one iteration, no measurement). For
# measurements see ci/bench-table.sh and ci/callgrind.sh.
#
#   ci/bench-smoke.sh
set -euo pipefail
cd "$(dirname "$0")/.."

# --release: optimised, as the benchmarks are when measured.
cargo test --release -p sluicegate-bench --benches

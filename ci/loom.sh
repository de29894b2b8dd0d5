#!/usr/bin/env bash
# The loom models (tests/loom_*.rs), each file under a 20-minute limit
# (timeout: a livelocked model fails instead of blocking the gate).
#
#   ci/loom.sh                            every model, preemption bound 2
#   ci/loom.sh loom_spsc                  one test file
#   LOOM_MAX_PREEMPTIONS=3 ci/loom.sh     a deeper (much slower) search
set -euo pipefail
cd "$(dirname "$0")/.."

# The gate's bound; each step up multiplies the interleavings explored.
export LOOM_MAX_PREEMPTIONS=${LOOM_MAX_PREEMPTIONS:-2}
# The cfg swaps the library's atomics for loom's (src/sync.rs).
export RUSTFLAGS="--cfg sluicegate_loom"

if [ $# -gt 0 ]; then
  tests=("$@")
else
  tests=()
  for f in tests/loom_*.rs; do tests+=("$(basename "$f" .rs)"); done
fi

for t in "${tests[@]}"; do
  # --release: every model runs through many interleavings; optimised code
  # gets through them much faster.
  # --target-dir: a separate dir, so the RUSTFLAGS change does not rebuild
  # everything for the other steps.
  # The models of the waits need the `async` feature.
  features=()
  [ "$t" = loom_wait ] && features=(--features async)
  timeout 1200 cargo test --release --target-dir target/loom "${features[@]}" --test "$t"
done

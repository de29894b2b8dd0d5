#!/usr/bin/env bash
# The loom models: the library's unit tests in src/<group>/loom_tests.rs
# (groups spsc, mpmc, mpmc::burst_ring, limit and wait), built under
# `--cfg sluicegate_loom`, one `cargo test --lib` per group, each under a
# 20-minute limit (timeout: a livelocked model fails instead of blocking the
# gate).
#
#   ci/loom.sh                                every model, preemption bound 2
#   ci/loom.sh spsc                           one group
#   ci/loom.sh mpmc::burst_ring               a nested group
#   ci/loom.sh mpmc::loom_tests::mask_pool    the models whose test name has this in it
#   ci/loom.sh limit -- --nocapture           print each model's execution count
#   LOOM_MAX_PREEMPTIONS=3 ci/loom.sh spsc    a deeper (much slower) search
#   SLUICEGATE_LOOM_DEEP=1 ci/loom.sh wait    the waiter lists' big models at
#                                             the full bound, not capped at 1
#                                             (with mpmc: the burst late-miss
#                                             model at bound 5, ~3 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."

# The gate's bound; each step up multiplies the interleavings explored.
export LOOM_MAX_PREEMPTIONS=${LOOM_MAX_PREEMPTIONS:-2}
# The cfg swaps the library's atomics for loom's (src/sync.rs) and builds the
# models; loom is a dev-dependency, so only the library's own tests build.
export RUSTFLAGS="--cfg sluicegate_loom"

selected=()
harness_args=()
while [ $# -gt 0 ]; do
  if [ "$1" = -- ]; then
    shift
    harness_args=("$@")
    break
  fi
  selected+=("$1")
  shift
done
if [ ${#selected[@]} -eq 0 ]; then
  # Every directory with models is a group, named as its module path
  # (src/mpmc/burst_ring/loom_tests.rs: mpmc::burst_ring).
  while IFS= read -r f; do
    d=$(dirname "${f#src/}")
    selected+=("${d//\//::}")
  done < <(find src -name loom_tests.rs | sort)
fi

for s in "${selected[@]}"; do
  case "$s" in
    *::loom_tests::*) filter=$s ;;
    *)
      [ -f "src/${s//:://}/loom_tests.rs" ] || {
        echo "ci/loom.sh: no group '$s' (src/${s//:://}/loom_tests.rs)" >&2
        exit 2
      }
      filter="$s::loom_tests::"
      ;;
  esac
  # The models of the waits (the rings' and the limiter's) need the `async`
  # feature, and the rings' blocking calls `std` (which implies it); the
  # others run without either, on the code that a build without them has.
  features=()
  case "$filter" in
    wait::*) features=(--features std) ;;
    limit::wait::*) features=(--features async) ;;
  esac
  # --release: every model runs through many interleavings; optimised code
  # gets through them much faster.
  # --target-dir: a separate dir, so the RUSTFLAGS change does not rebuild
  # everything for the other steps.
  timeout 1200 cargo test --release --lib --target-dir target/loom "${features[@]}" \
    -- "$filter" "${harness_args[@]}"
  # The SPSC watermark's models need the waits' fence: run them again with
  # `async` (without it they are compiled out).
  if [ "$filter" = spsc::loom_tests:: ]; then
    timeout 1200 cargo test --release --lib --target-dir target/loom --features async \
      -- spsc::loom_tests::loom_watermark "${harness_args[@]}"
  fi
done

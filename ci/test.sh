#!/usr/bin/env bash
# The README's test command: unit, integration and doc tests of the library
# on the host, default features; then the `critical-section` feature's.
#
#   ci/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test
# `mpmc::cs` and its tests and doc examples need the `critical-section`
# feature (the std implementation comes in as a dev-dependency).
cargo test --features critical-section --lib --test mpmc_cs --test mpmc_cs_stress --test close --test everyday --test ram --test stats \
  --test panic_safety --test auto_traits
cargo test --features critical-section --doc
# The limiter scenario suite's goals on the full-length scenarios (release:
# they are skipped in the debug build above, where they take minutes).
cargo test --release --test limit_scenarios

#!/usr/bin/env bash
# The README's test command: unit, integration and doc tests of the library
# on the host, default features; then the `critical-section` feature's, the
# waits', the tower layer's and the limiter scenario suite.
#
#   ci/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test
# `mpmc::cs` and its tests and doc examples need the `critical-section`
# feature (the std implementation comes in as a dev-dependency).
cargo test --features critical-section --lib --test mpmc_cs --test mpmc_cs_stress --test watermark_cs --test close --test everyday --test ram --test stats \
  --test panic_safety --test auto_traits
cargo test --features critical-section --doc
# The waits: `async` alone (the futures; the blocking calls still spin),
# then `std` (the blocking calls park), each with the suites that wait.
cargo test --features async --lib --test wait --test wait_burst --test watermark_burst --test watermark_mpmc --test close --test spsc --test mpmc
cargo test --features async --doc
cargo test --features async,critical-section --test wait_cs --test panicking_wakers
cargo test --features std,critical-section --lib --test wait --test wait_cs --test watermark_cs --test wait_burst --test watermark_burst --test watermark_mpmc --test close --test everyday --test spsc --test limit_owned --test limit_wait \
  --test mpmc --test mpmc_stress --test spsc_stress --test panic_safety --test auto_traits --test ram --test watermark --test panicking_wakers
cargo test --features std,critical-section --doc
# The tower layer (a workspace member of its own, not built by the plain
# `cargo test` above): its tests, doc tests, and the example's build.
cargo test -p sluicegate-tower
# The limiter scenario suite's goals on the full-length scenarios (release:
# they are skipped in the debug build above, where they take minutes).
cargo test --release --test limit_scenarios

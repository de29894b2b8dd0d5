#!/usr/bin/env bash
# The README's test command: unit, integration and doc tests of the library
# on the host, default features; then the `critical-section` feature's, the
# waits', the tower layer's, the limiter's narrow admission word and the
# limiter scenario suite.
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
# The limiter's 32-bit admission word on the host, so that its wrap (4096
# admissions there, 2^32 in the 64-bit word) is tested: the limiter's unit
# tests, in a target directory of their own (another cfg).
RUSTFLAGS="--cfg sluicegate_narrow_word" cargo test --release --target-dir target/narrow --lib limit::
# The limiter scenario suite's goals on the full-length scenarios (release:
# they are skipped in the debug build above, where they take minutes).
cargo test --release --test limit_scenarios

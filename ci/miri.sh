#!/usr/bin/env bash
# Miri (undefined behaviour, data races, weak memory) over the unit tests and
# the integration suites that run on threads or drop items in place, on the
# 64-bit host and on i686 (32-bit usize: the position counters wrap at 2^32),
# then many scheduler seeds of the overwrite and burst ring stress tests.
# Installs nightly Miri if missing.
#
#   ci/miri.sh
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 \
    || rustup toolchain install nightly --profile minimal -c miri,rust-src >/dev/null
fi

MIRI_TESTS=(--test spsc --test spsc_stress --test mpmc --test mpmc_stress --test limit_stress
  --test panic_safety --test auto_traits --test close --test everyday --test stats --test mpmc_burst
  --test spsc_flag --test watermark)
# timeout: a hang fails instead of blocking the gate; one per command, so a
# slow machine does not make one step eat the next one's time.
timeout 1200 cargo +nightly miri test --lib
timeout 1200 cargo +nightly miri test "${MIRI_TESTS[@]}"
timeout 900 cargo +nightly miri test --features critical-section --test mpmc_cs --test mpmc_cs_stress --test close --test everyday --test panic_safety --test stats --test expire
# i686: Miri builds its own sysroot for it from rust-src, no rustup target needed.
# The burst ring's model test runs here only: the same code and accesses as
# on the 64-bit host, with counters that wrap within reach (its stress test
# runs on the host below, under many seeds).
timeout 900 cargo +nightly miri test --target i686-unknown-linux-gnu --test spsc --test stats --test spsc_flag \
  --test burst_ring
# The waits: futures under pollster and LocalPool, parked blocking calls.
timeout 900 cargo +nightly miri test --features std --test wait --test wait_burst --test watermark_burst --test watermark_mpmc --test close --test limit_owned --test limit_wait --test expire
timeout 900 cargo +nightly miri test --features std,critical-section --test wait_cs --test watermark_cs --test panicking_wakers
# Many interleavings of the overwrite stress test (Miri's scheduler and weak
# memory emulation are seeded; seeds 3, 6 and 19 found an ordering bug once).
MIRIFLAGS="-Zmiri-many-seeds=0..24" timeout 900 cargo +nightly miri test --test spsc_stress stress_overwrite
# The same for the keep-newest stress tests: a consumer that pops, bursts,
# peeks and holds read chunks while the producer places voids in the held
# slots and evicts past them (with a `Relaxed` claim word, seeds find the
# race that `src/spsc/overwrite.rs` explains).
MIRIFLAGS="-Zmiri-many-seeds=0..16" timeout 900 cargo +nightly miri test --test spsc_stress stress_keep_newest
# Many interleavings of the burst ring's stress test: Busy answers, evictions
# and read chunks held across switches under each seed's schedule and weak
# memory.
MIRIFLAGS="-Zmiri-many-seeds=0..4" timeout 600 cargo +nightly miri test --test burst_ring_stress

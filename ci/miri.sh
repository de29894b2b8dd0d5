#!/usr/bin/env bash
# Miri (undefined behaviour, data races, weak memory) over the unit tests and
# the integration suites that run on threads or drop items in place, on the
# 64-bit host and on i686 (32-bit usize: the position counters wrap at 2^32),
# then many scheduler seeds of the overwrite and burst ring stress tests.
# Installs nightly Miri if missing.
#
#   ci/miri.sh
#
# Miri interprets a program on one thread, so the commands run in two lanes
# at once (this machine's two cores), each lane in its own target directory
# (cargo serializes builds that share one) and with its own log, printed
# when both lanes have ended. The many-seeds runs come after: Miri runs
# their seeds on every core itself (user time twice the wall time here).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup component add --toolchain nightly miri rust-src >/dev/null 2>&1 \
    || rustup toolchain install nightly --profile minimal -c miri,rust-src >/dev/null
fi
# The sysroots first, one at a time, so that the lanes do not build them at
# once. i686: Miri builds its own sysroot from rust-src, no rustup target.
cargo +nightly miri setup >/dev/null
cargo +nightly miri setup --target i686-unknown-linux-gnu >/dev/null

# `timeout`: a hang fails instead of blocking the gate; one per command, so a
# slow machine does not make one command eat the next one's time.
run() {
  local secs=$1
  shift
  echo "+ $*"
  timeout "$secs" "$@"
}

# The host suites that need no feature. `close`, `everyday`, `panic_safety`
# and `stats` run in lane B's `critical-section` command, whose build has
# the same rings and `mpmc::cs::Ring` besides.
lane_a() {
  run 1800 cargo +nightly miri test --test spsc --test spsc_stress --test mpmc --test mpmc_stress \
    --test limit_stress --test auto_traits --test mpmc_burst --test spsc_flag --test watermark || return
  # i686. The burst ring's model test runs here only: the same code and
  # accesses as on the 64-bit host, with counters that wrap within reach
  # (its stress test runs on the host below, under many seeds).
  run 1200 cargo +nightly miri test --target i686-unknown-linux-gnu --test spsc --test stats \
    --test spsc_flag --test burst_ring || return
  run 900 cargo +nightly miri test --features std,critical-section --test wait_cs --test watermark_cs \
    --test panicking_wakers
}

lane_b() {
  export CARGO_TARGET_DIR=target/miri-lane-b
  run 1800 cargo +nightly miri test --lib || return
  # The waits: futures under pollster and LocalPool, parked blocking calls.
  run 1200 cargo +nightly miri test --features std --test wait --test wait_burst --test watermark_burst \
    --test watermark_mpmc --test close --test limit_owned --test limit_wait --test expire || return
  run 900 cargo +nightly miri test --features critical-section --test mpmc_cs --test mpmc_cs_stress \
    --test close --test everyday --test panic_safety --test stats --test expire
}

logs=$(mktemp -d)
lane_a >"$logs/a" 2>&1 &
a=$!
lane_b >"$logs/b" 2>&1 &
b=$!
ra=0
rb=0
wait "$a" || ra=$?
wait "$b" || rb=$?
echo "--- lane A (exit $ra)"
cat "$logs/a"
echo "--- lane B (exit $rb)"
cat "$logs/b"
rm -rf "$logs"
if [ "$ra" -ne 0 ] || [ "$rb" -ne 0 ]; then
  exit 1
fi

# Many interleavings of the overwrite stress test (Miri's scheduler and weak
# memory emulation are seeded; seeds 3, 6 and 19 found an ordering bug once).
MIRIFLAGS="-Zmiri-many-seeds=0..24" run 900 cargo +nightly miri test --test spsc_stress stress_overwrite
# The same for the keep-newest stress tests: a consumer that pops, bursts,
# peeks and holds read chunks while the producer places voids in the held
# slots and evicts past them (with a `Relaxed` claim word, seeds find the
# race that `src/spsc/overwrite.rs` explains).
MIRIFLAGS="-Zmiri-many-seeds=0..16" run 900 cargo +nightly miri test --test spsc_stress stress_keep_newest
# Many interleavings of the burst ring's stress test: Busy answers, evictions
# and read chunks held across switches under each seed's schedule and weak
# memory.
MIRIFLAGS="-Zmiri-many-seeds=0..4" run 600 cargo +nightly miri test --test burst_ring_stress

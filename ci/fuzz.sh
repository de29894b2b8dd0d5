#!/usr/bin/env bash
# Runs every cargo-fuzz target (or the ones named) for SECONDS each and prints
# one line per target with its execution count. Fails on any crash or leak.
#   ci/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/../fuzz"

secs=${1:-60}
shift || true

# cargo-fuzz needs nightly (-Zsanitizer); installed here if missing.
if ! rustup run nightly rustc --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal >/dev/null
fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
  cargo install cargo-fuzz --locked
fi

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(cargo +nightly fuzz list)
fi

# One build for every target, then the runs, as many at a time as there are
# cores (each libFuzzer run is one process on one core); `FUZZ_JOBS` sets it.
cargo +nightly fuzz build --release
jobs=${FUZZ_JOBS:-$(nproc)}
logs=$(mktemp -d)
fuzz_one() {
  local t=$1
  mkdir -p "corpus/$t"
  if cargo +nightly fuzz run --release "$t" "corpus/$t" -- \
      -max_total_time="$secs" -print_final_stats=1 -detect_leaks=1 >"$logs/$t" 2>&1; then
    echo 0 >"$logs/$t.rc"
  else
    echo 1 >"$logs/$t.rc"
  fi
}
for t in "${targets[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  fuzz_one "$t" &
done
wait

status=0
for t in "${targets[@]}"; do
  if [ "$(cat "$logs/$t.rc")" = 0 ]; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$logs/$t" | tail -n 1)
    echo "fuzz $t: ok, ${execs:-?} executions in ${secs}s"
  else
    echo "fuzz $t: FAILED" >&2
    tail -n 60 "$logs/$t" >&2
    status=1
  fi
done
rm -rf "$logs"
exit $status

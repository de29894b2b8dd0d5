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


status=0
for t in "${targets[@]}"; do
  mkdir -p "corpus/$t"
  log=$(mktemp)
  if cargo +nightly fuzz run --release "$t" "corpus/$t" -- \
      -max_total_time="$secs" -print_final_stats=1 -detect_leaks=1 >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    echo "fuzz $t: ok, ${execs:-?} executions in ${secs}s"
  else
    echo "fuzz $t: FAILED" >&2
    tail -n 60 "$log" >&2
    status=1
  fi
  rm -f "$log"
done
exit $status

#!/usr/bin/env bash
# Instructions per operation of the single-threaded benchmark cases, counted
# with `valgrind --tool=callgrind` (load-independent, unlike wall time).
#
#   ci/callgrind.sh            all cases of benches/{spsc,mpmc,limit}.rs
#   ci/callgrind.sh pair       only cases whose group/name matches a regex
#   FEATURES=async ci/callgrind.sh   the library with features of the
#                              benchmark package (pass-throughs) turned on
#
# Each case (see `common::icount` in benches/common/mod.rs) is run twice,
# with K and 2K iterations; (Ir(2K) - Ir(K)) / K is the cost of one
# iteration with start-up and set-up cancelled out. Prints a markdown table
# (ci/bench-table.sh's format; "vs best peer" = peer / ours).
set -euo pipefail
cd "$(dirname "$0")/.."
MATCH=${1:-.}
K=${K:-20000}
OUT=target/bench-table/icount.json
mkdir -p target/bench-table
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }

# Build, and find each bench executable.
declare -A EXE
while IFS=$'\t' read -r name path; do
  EXE[$name]=$path
done < <(cargo bench -p sluicegate-bench ${FEATURES:+--features "$FEATURES"} --no-run --message-format=json --bench spsc --bench mpmc --bench limit 2>/dev/null |
  python3 -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and "bench" in m["target"]["kind"] and m.get("executable"):
        print(m["target"]["name"] + "\t" + m["executable"])')

ir() { # ir EXE CASE ITERS -> total instructions
  SLUICEGATE_ICOUNT="$2:$3" valgrind --tool=callgrind --callgrind-out-file=/dev/null "$1" 2>&1 |
    sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

echo "{" > "$OUT.tmp"
first=1
for b in spsc mpmc limit; do
  exe=${EXE[$b]}
  for c in $(SLUICEGATE_ICOUNT=list "$exe" | grep -E "$MATCH" || true); do
    a=$(ir "$exe" "$c" "$K")
    d=$(ir "$exe" "$c" $((2 * K)))
    per=$(python3 -c "print(($d - $a) / $K)")
    echo "$c: $per instructions/iteration" >&2
    [ $first -eq 1 ] || echo "," >> "$OUT.tmp"
    first=0
    printf '"%s": %s' "$c" "$per" >> "$OUT.tmp"
  done
done
echo "}" >> "$OUT.tmp"
mv "$OUT.tmp" "$OUT"
echo "Instructions per iteration (callgrind, $(valgrind --version), $(rustc -V)):"
echo
ci/bench-table.sh --from "$OUT" --unit instr

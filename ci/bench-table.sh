#!/usr/bin/env bash
# Runs the criterion suite (benches/spsc.rs, mpmc.rs, limit.rs) and prints a
# markdown table of medians and ratios to the best peer, with the machine and
# its load. Ratios are computed within each run and their median (and range)
# over the runs is shown.
#
#   ci/bench-table.sh                 full suite, once
#   ci/bench-table.sh --quick         fewer, shorter samples
#   ci/bench-table.sh --runs 3        run 3 times; report the median of the
#                                     per-run medians
#   ci/bench-table.sh --bench spsc    one bench binary (repeatable)
#   ci/bench-table.sh --filter REGEX  criterion filter (e.g. 'spsc_stream')
#   ci/bench-table.sh --table-only    print the table from the last runs
#   ci/bench-table.sh --from F.json --unit instr   format other results
#                                     (instr, locked: used by ci/callgrind.sh)
#
# Convention (see benches/common/mod.rs): in each criterion group, ids
# starting with `sluicegate` are ours, ids starting with `floor` are lower
# bounds, the rest are peers. "vs best peer" is best peer's median / ours
# (> 1: ours is faster); "vs floor" is ours / the floor (>= 1). An id with a
# suffix (`sluicegate_burst`) is compared with the peers of the same suffix
# (`rtrb_burst`, `ringbuf_burst`) when there are any.
set -euo pipefail
cd "$(dirname "$0")/.."

RUNS=1
QUICK=0
BENCHES=()
FILTER=()
TABLE_ONLY=0
FROM=""
UNIT="ns"
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) QUICK=1 ;;
    --runs) RUNS=$2; shift ;;
    --bench) BENCHES+=("$2"); shift ;;
    --filter) FILTER=("$2"); shift ;;
    --table-only) TABLE_ONLY=1 ;;
    --from) FROM=$2; shift ;;
    --unit) UNIT=$2; shift ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
[ ${#BENCHES[@]} -eq 0 ] && BENCHES=(spsc mpmc limit)

OUT=target/bench-table
CRIT=target/criterion

collect() { # collect RUN_FILE: medians of the groups just measured
  python3 - "$CRIT" "$1" <<'EOF'
import json, os, sys
crit, out = sys.argv[1], sys.argv[2]
res = {}
for root, dirs, files in os.walk(crit):
    if root.endswith("/new") and "estimates.json" in files and "benchmark.json" in files:
        b = json.load(open(os.path.join(root, "benchmark.json")))
        e = json.load(open(os.path.join(root, "estimates.json")))
        mtime = os.path.getmtime(os.path.join(root, "estimates.json"))
        res[f'{b["group_id"]}/{b["function_id"]}'] = (e["median"]["point_estimate"], mtime)
json.dump(res, open(out, "w"), indent=1)
EOF
}

if [ -z "$FROM" ] && [ $TABLE_ONLY -eq 0 ]; then
  mkdir -p "$OUT"
  rm -f "$OUT"/run-*.json "$OUT"/load.txt "$OUT"/log.txt
  ARGS=()
  [ $QUICK -eq 1 ] && ARGS+=(--warm-up-time 0.5 --measurement-time 1 --sample-size 10)
  cargo bench -p sluicegate-bench --no-run "${BENCHES[@]/#/--bench=}" >&2
  for r in $(seq 1 "$RUNS"); do
    START=$(date +%s)
    echo "run $r start: $(uptime)" | tee -a "$OUT/load.txt" >&2
    for b in "${BENCHES[@]}"; do
      cargo bench -p sluicegate-bench --bench "$b" -- "${ARGS[@]}" "${FILTER[@]}" 2>&1 | tee -a "$OUT/log.txt" >&2
    done
    echo "run $r end:   $(uptime)" | tee -a "$OUT/load.txt" >&2
    collect "$OUT/run-$r.json.all"
    # Keep only what this run measured (criterion keeps older groups).
    python3 - "$OUT/run-$r.json.all" "$OUT/run-$r.json" "$START" <<'EOF'
import json, sys
res = json.load(open(sys.argv[1]))
json.dump({k: v[0] for k, v in res.items() if v[1] >= int(sys.argv[3])},
          open(sys.argv[2], "w"), indent=1)
EOF
    rm "$OUT/run-$r.json.all"
  done
fi

python3 - "$OUT" "$FROM" "$UNIT" <<'EOF'
import glob, json, os, platform, statistics, subprocess, sys
out, src, unit = sys.argv[1], sys.argv[2], sys.argv[3]
runs = [json.load(open(src))] if src else [json.load(open(f)) for f in sorted(glob.glob(f"{out}/run-*.json"))]
if not runs:
    sys.exit("no results: run without --table-only first")
keys = sorted({k for r in runs for k in r})
med = {k: statistics.median([r[k] for r in runs if k in r]) for k in keys}
groups = {}
for k in keys:
    g, f = k.rsplit("/", 1)
    groups.setdefault(g, {})[f] = med[k]

def fmt(x):
    if unit == "ns":
        return f"{x / 1000:.2f} µs" if x >= 10000 else f"{x:.1f} ns" if x >= 10 else f"{x:.2f} ns"
    return f"{x:.1f}"

if not src:
    cpu = "?"
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip(); break
    except OSError:
        pass
    rustc = subprocess.run(["rustc", "-V"], capture_output=True, text=True).stdout.strip()
    print(f"Machine: {cpu}, {os.cpu_count()} logical CPUs, {platform.system()} {platform.release()}; {rustc}.")
    print(f"Median of the per-run criterion medians over {len(runs)} run(s); load during the runs:")
    print()
    for line in open(f"{out}/load.txt"):
        print(f"    {line.rstrip()}")
    print()
print(f"| scenario | ours | ours ({unit}) | best peer | peer ({unit}) | vs best peer | vs floor | other peers |")
print("|---|---|---|---|---|---|---|---|")
for g, fs in groups.items():
    ours = {f: v for f, v in fs.items() if f.startswith("sluicegate")}
    floors = {f: v for f, v in fs.items() if f.startswith("floor")}
    peers = {f: v for f, v in fs.items() if f not in ours and f not in floors}
    best = min(peers.items(), key=lambda kv: kv[1]) if peers else None
    floor = min(floors.items(), key=lambda kv: kv[1]) if floors else None
    for f, v in sorted(ours.items(), key=lambda kv: kv[1]):
        # Like for like: `sluicegate_burst` against `*_burst` peers when
        # there are any, else against every peer.
        suffix = f[len("sluicegate"):]
        same = {p: x for p, x in peers.items() if suffix and p.endswith(suffix)}
        best = min((same or peers).items(), key=lambda kv: kv[1]) if peers else None
        others = ", ".join(f"{p} {fmt(x)}" for p, x in sorted(peers.items(), key=lambda kv: kv[1]) if best and p != best[0])
        if floors:
            fl = ", ".join(f"{p} {fmt(x)}" for p, x in sorted(floors.items(), key=lambda kv: kv[1]))
            others = (others + "; " if others else "") + fl
        # Ratios are taken within each run (the peers of a group are
        # measured back to back, minutes apart from other groups, and this
        # VM's speed drifts between minutes), then the median over runs,
        # with the range when there are several runs.
        def per_run(num, den):
            rs = []
            for r in runs:
                a, b = num(r), den(r)
                # A zero count (no locked instruction) has no ratio.
                if a is not None and b:
                    rs.append(a / b)
            if not rs:
                return "—"
            m = f"{statistics.median(rs):.2f}×"
            return m + (f" ({min(rs):.2f}–{max(rs):.2f})" if len(rs) > 1 else "")
        def best_in(r):
            xs = [r[f"{g}/{p}"] for p in (same or peers) if f"{g}/{p}" in r]
            return min(xs) if xs else None
        def floor_in(r):
            return r.get(f"{g}/{floor[0]}") if floor else None
        mine = lambda r: r.get(f"{g}/{f}")
        print("| " + " | ".join([
            g, f, fmt(v),
            best[0] if best else "—", fmt(best[1]) if best else "—",
            per_run(best_in, mine) if best else "—",
            per_run(mine, floor_in) if floor else "—",
            others or "—",
        ]) + " |")
if not src and os.path.exists(f"{out}/log.txt"):
    notes = sorted({l.strip() for l in open(f"{out}/log.txt") if any(w in l for w in ("SKIPPED", "HUNG", "aborted", "child benchmark failed"))})
    if notes:
        print()
        print("Notes from the runs:")
        print()
        for n in notes:
            print(f"- {n}")
EOF

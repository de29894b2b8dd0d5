#!/usr/bin/env bash
# Instructions and locked read-modify-writes per operation of the
# single-threaded benchmark cases, counted with `valgrind --tool=callgrind`
# (load-independent, unlike wall time).
#
#   ci/callgrind.sh            all cases of benches/{spsc,mpmc,limit}.rs
#   ci/callgrind.sh pair       only cases whose group/name matches a regex
#   FEATURES=async ci/callgrind.sh   the library with features of the
#                              benchmark package (pass-throughs) turned on
#
# Each case (see `common::icount` in benches/common/mod.rs) is run twice,
# with K and 2K iterations; (count(2K) - count(K)) / K is the cost of one
# iteration with start-up and set-up cancelled out. Two counts per run:
#
# - instructions: callgrind's total (Ir);
# - locked instructions (x86-64 only): the instructions that `objdump -d`
#   shows with a `lock` prefix, and `xchg` with a memory operand (locked
#   without the prefix), in the bench executable and every library it
#   ran, each counted as many times as callgrind saw it execute
#   (`--dump-instr=yes --compress-pos=no`: one cost line per instruction
#   address, relative to its object as objdump numbers it).
#
# Prints two markdown tables (ci/bench-table.sh's format; "vs best peer" =
# peer / ours, "—" where ours is 0), and keeps the figures in
# target/bench-table/{icount,locked}.json.
set -euo pipefail
cd "$(dirname "$0")/.."
MATCH=${1:-.}
K=${K:-20000}
DIR=target/bench-table
mkdir -p "$DIR/callgrind"
command -v valgrind >/dev/null || { echo "valgrind not installed" >&2; exit 1; }
LOCKED=0
if [ "$(uname -m)" = x86_64 ]; then
  command -v objdump >/dev/null || { echo "objdump not installed (binutils)" >&2; exit 1; }
  LOCKED=1
fi

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

# counts OUT_FILE -> "instructions locked" of one callgrind run (locked is
# "-" off x86-64). The locked addresses of each object are cached under
# $DIR/callgrind, keyed by the object's path, size and mtime.
counts() {
  python3 - "$1" "$DIR/callgrind" "$LOCKED" <<'EOF'
import hashlib, os, re, subprocess, sys
out, cache, want_locked = sys.argv[1], sys.argv[2], sys.argv[3] == "1"

def locked_in(obj):
    """Addresses (as objdump numbers them) of the locked instructions of obj."""
    st = os.stat(obj)
    key = hashlib.sha1(f"{obj}\0{st.st_size}\0{st.st_mtime_ns}".encode()).hexdigest()
    path = os.path.join(cache, key + ".locked")
    if os.path.exists(path):
        return {int(a, 16) for a in open(path).read().split()}
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", obj],
                         capture_output=True, text=True, check=True).stdout
    addrs = set()
    for line in dis.splitlines():
        m = re.match(r"\s*([0-9a-f]+):\t(\S+)[ \t]*(.*)", line)
        if not m:
            continue
        addr, mnemonic, operands = m.groups()
        # `lock` is printed as part of the mnemonic ("lock cmpxchg ...") or,
        # for a prefix objdump does not attach, alone: the instruction
        # starts at the prefix either way. `xchg` with memory is locked;
        # between registers (`xchg %ax,%ax` is a two-byte nop) it is not.
        if mnemonic == "lock" or (re.fullmatch(r"xchg[bwlq]?", mnemonic) and "(" in operands):
            addrs.add(int(addr, 16))
    tmp = f"{path}.{os.getpid()}"
    with open(tmp, "w") as f:
        f.write("\n".join(f"{a:x}" for a in sorted(addrs)))
    os.replace(tmp, path)
    return addrs

total, locked, obj, skip, sets = None, 0, None, False, {}
for line in open(out):
    if skip:
        # The line after `calls=` is the call's inclusive cost, not an
        # execution count of the call instruction.
        skip = False
        continue
    if line.startswith("summary:") or line.startswith("totals:"):
        total = int(line.split()[1])
    elif line.startswith("ob="):
        obj = line[3:].strip()
        if want_locked and obj not in sets:
            sets[obj] = locked_in(obj) if os.path.isfile(obj) else set()
    elif line.startswith("calls="):
        skip = True
    elif want_locked and line.startswith("0x") and sets.get(obj):
        f = line.split()
        if int(f[0], 16) in sets[obj]:
            locked += int(f[-1])
print(total, locked if want_locked else "-")
EOF
}

run() { # run EXE CASE ITERS -> "instructions locked"
  local f="$DIR/callgrind/run.out"
  SLUICEGATE_ICOUNT="$2:$3" valgrind --tool=callgrind --dump-instr=yes --compress-pos=no \
    --compress-strings=no --callgrind-out-file="$f" "$1" >/dev/null 2>&1
  counts "$f"
  rm -f "$f"
}

echo "{" > "$DIR/icount.json.tmp"
echo "{" > "$DIR/locked.json.tmp"
first=1
for b in spsc mpmc limit; do
  exe=${EXE[$b]}
  for c in $(SLUICEGATE_ICOUNT=list "$exe" | grep -E "$MATCH" || true); do
    read -r ia la < <(run "$exe" "$c" "$K")
    read -r id ld < <(run "$exe" "$c" $((2 * K)))
    per=$(python3 -c "print(($id - $ia) / $K)")
    if [ $LOCKED -eq 1 ]; then
      lper=$(python3 -c "print(($ld - $la) / $K)")
    else
      lper=-
    fi
    echo "$c: $per instructions, $lper locked/iteration" >&2
    if [ $first -eq 0 ]; then
      echo "," >> "$DIR/icount.json.tmp"
      [ $LOCKED -eq 0 ] || echo "," >> "$DIR/locked.json.tmp"
    fi
    first=0
    printf '"%s": %s' "$c" "$per" >> "$DIR/icount.json.tmp"
    [ $LOCKED -eq 0 ] || printf '"%s": %s' "$c" "$lper" >> "$DIR/locked.json.tmp"
  done
done
echo "}" >> "$DIR/icount.json.tmp"
echo "}" >> "$DIR/locked.json.tmp"
mv "$DIR/icount.json.tmp" "$DIR/icount.json"
mv "$DIR/locked.json.tmp" "$DIR/locked.json"
echo "Instructions per iteration (callgrind, $(valgrind --version), $(rustc -V)):"
echo
ci/bench-table.sh --from "$DIR/icount.json" --unit instr
if [ $LOCKED -eq 1 ]; then
  echo
  echo "Locked instructions per iteration (lock-prefixed and memory xchg, same runs):"
  echo
  ci/bench-table.sh --from "$DIR/locked.json" --unit locked
else
  echo
  echo "(locked instructions: x86-64 only)"
fi

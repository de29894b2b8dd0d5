#!/usr/bin/env bash
# Builds examples/firmware for each emulated board, runs every binary under
# qemu-system-arm, and fails on any self-check mismatch. Prints one line per
# board (its spsc, mpmc, mpmc::cs, burst ring and limiter phases; on the
# *-async boards also the async phase, an async task woken by the interrupt),
# then every measured instruction count as one machine-readable line
#   cost <board> <implementation> <operation> <instructions>
# (boards microbit-cs, microbit-sc, lm3s6965evb), the table built from those
# lines, the goal comparisons, and the .text sizes.
#
#   ci/qemu.sh            # everything
#   KEEP_LOGS=dir ci/qemu.sh   # keep each QEMU run's output in dir
#   ACCEPT_COSTS=1 ci/qemu.sh  # write the counts to ci/qemu-costs.txt
#
# The counts are exact (-icount), so the run also compares them with the
# committed baseline ci/qemu-costs.txt and fails on a row more than
# max(1, 2 %) above it: a change that costs instructions on a board says
# so in its diff (run with ACCEPT_COSTS=1 and commit the new baseline),
# instead of going unnoticed. Rows missing from either side are listed,
# not failed.
#
# Needs rustup and (installed here if missing) qemu-system-arm.
set -euo pipefail
BASELINE="$(cd "$(dirname "$0")" && pwd)/qemu-costs.txt"
cd "$(dirname "$0")/../examples/firmware"

if ! command -v qemu-system-arm >/dev/null; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq qemu-system-arm >/dev/null
fi
rustup target add thumbv6m-none-eabi thumbv7m-none-eabi >/dev/null 2>&1

LOGS=${KEEP_LOGS:-$(mktemp -d)}
mkdir -p "$LOGS"
FAIL=0

# name | target | cargo features | QEMU machine
BUILDS=(
  "microbit-cs|thumbv6m-none-eabi|cas-critical-section|microbit"
  "microbit-sc|thumbv6m-none-eabi|cas-single-core|microbit"
  "lm3s6965evb|thumbv7m-none-eabi||lm3s6965evb"
  "lm3s6965evb-defmt|thumbv7m-none-eabi|defmt|lm3s6965evb"
  "microbit-cs-async|thumbv6m-none-eabi|cas-critical-section,async|microbit"
  "microbit-sc-async|thumbv6m-none-eabi|cas-single-core,async|microbit"
  "lm3s6965evb-async|thumbv7m-none-eabi|async|lm3s6965evb"
)

# Runs one ELF; 30 s wall-clock limit so a hang fails instead of blocking.
# -icount shift=6: deterministic virtual time (64 ns per instruction).
run() { # machine elf log
  timeout 30 qemu-system-arm -machine "$1" -nographic -icount shift=6 \
    -semihosting-config enable=on,target=native -kernel "$2" >"$3" 2>&1
}

for b in "${BUILDS[@]}"; do
  IFS='|' read -r name target features machine <<<"$b"
  dir="target/qemu-$name" # one target dir per flavour: no rebuild ping-pong
  cargo build --quiet --release --target "$target" --target-dir "$dir" \
    ${features:+--features "$features"} --bins
  elf="$dir/$target/release"
  bins=(firmware cost ram size_sluicegate size_heapless size_mpmc_cs size_heapless_mpmc)
  [ "$name" = lm3s6965evb-defmt ] && bins=(firmware)
  # The async flavours: the self-checks and the instruction counts with the
  # waker checks compiled in (boards *-async in the cost lines).
  [[ "$name" == *-async ]] && bins=(firmware cost async_consumer)
  for bin in "${bins[@]}"; do
    log="$LOGS/$name.$bin.log"
    rc=0
    run "$machine" "$elf/$bin" "$log" || rc=$?
    if [ "$rc" -eq 0 ]; then
      [ "$bin" = firmware ] && printf '%-20s %s\n' "$name" "$(grep -E ': PASS' "$log")"
      [ "$bin" = async_consumer ] && printf '%-20s %s\n' "$name" "$(grep -E ': PASS' "$log")"
    else
      FAIL=1
      printf '%-20s FAIL (%s, exit %s):\n' "$name" "$bin" "$rc"
      sed 's/^/    /' "$log"
    fi
  done
done

COSTS="$LOGS/costs.txt"
for b in "${BUILDS[@]}"; do
  f="$LOGS/${b%%|*}.cost.log"
  if [ -f "$f" ]; then grep '^cost ' "$f" | tr -d '\r'; fi
done >"$COSTS"

echo
echo "Machine-readable costs (cost <board> <implementation> <operation> <instructions>):"
cat "$COSTS"

echo
echo "RAM (size_of in each build; ram <board> <implementation> <T> <N> <bytes>):"
for b in "${BUILDS[@]}"; do
  f="$LOGS/${b%%|*}.ram.log"
  if [ -f "$f" ]; then grep '^ram ' "$f" | tr -d '\r'; fi
done

echo
echo "Instructions per operation (net of an empty call), one column per board:"
awk '
  {
    board = $2; row = $3 " " $4
    if (!(row in rseen)) { rseen[row] = 1; rows[++nrows] = row }
    if (!(board in bseen)) { bseen[board] = 1; boards[++nboards] = board }
    cell[row, board] = $5
  }
  END {
    printf "| %-26s | %-22s |", "implementation", "operation"
    for (b = 1; b <= nboards; b++) printf " %11s |", boards[b]
    printf "\n|----------------------------|------------------------|"
    for (b = 1; b <= nboards; b++) printf "-------------|"
    printf "\n"
    for (r = 1; r <= nrows; r++) {
      split(rows[r], f, " ")
      printf "| %-26s | %-22s |", f[1], f[2]
      for (b = 1; b <= nboards; b++) {
        v = cell[rows[r], boards[b]]
        printf " %11s |", (v == "" ? "-" : v)
      }
      printf "\n"
    }
  }' "$COSTS"

echo
echo "sluicegate-mpmc-cs against heapless-mpmc (goal: try_push, try_pop <= 0.6x; evicting push_overwrite <= 30 on the M0):"
awk '
  { v[$2, $3, $4] = $5; if (!($2 in seen)) { seen[$2] = 1; boards[++n] = $2 } }
  END {
    for (i = 1; i <= n; i++) {
      b = boards[i]
      line = sprintf("  %-12s", b)
      for (k = 1; k <= 2; k++) {
        op = (k == 1 ? "try_push" : "try_pop")
        cs = v[b, "sluicegate-mpmc-cs", op]; hl = v[b, "heapless-mpmc", op]
        line = line sprintf("  %s %s/%s = %.2fx", op, cs, hl, cs / hl)
      }
      ev = v[b, "sluicegate-mpmc-cs", "push_overwrite_evict"]
      line = line sprintf("  push_overwrite_evict %s (scq %s)", ev, v[b, "sluicegate-mpmc", "push_overwrite_evict"])
      print line
    }
  }' "$COSTS"

echo
echo "sluicegate-burst-ring bursts of 32, per item, against heapless-mpmc's single operation (goal on lm3s6965evb: <= 1x):"
awk '
  { v[$2, $3, $4] = $5; if (!($2 in seen)) { seen[$2] = 1; boards[++n] = $2 } }
  END {
    for (i = 1; i <= n; i++) {
      b = boards[i]
      push = v[b, "sluicegate-burst-ring", "push_burst32_per_item"]; hpush = v[b, "heapless-mpmc", "try_push"]
      pop = v[b, "sluicegate-burst-ring", "pop_burst32_per_item"]; hpop = v[b, "heapless-mpmc", "try_pop"]
      if (push == "" || hpush == "") continue
      printf "  %-18s  push_burst %s/%s = %.2fx  pop_burst %s/%s = %.2fx  single try_push %s try_pop %s\n", b,
        push, hpush, push / hpush, pop, hpop, pop / hpop,
        v[b, "sluicegate-burst-ring", "try_push"], v[b, "sluicegate-burst-ring", "try_pop"]
    }
  }' "$COSTS"

echo
echo ".text bytes of the same interrupt-to-main pipeline (spsc: size_sluicegate vs size_heapless; mpmc: size_mpmc_cs vs size_heapless_mpmc):"
text_size() { echo $((16#$(readelf -SW "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 4) }'))); }
for b in "${BUILDS[@]}"; do
  IFS='|' read -r name target features machine <<<"$b"
  [ "$name" = lm3s6965evb-defmt ] && continue
  [[ "$name" == *-async ]] && continue
  elf="target/qemu-$name/$target/release"
  ours=$(text_size "$elf/size_sluicegate")
  theirs=$(text_size "$elf/size_heapless")
  fw=$(text_size "$elf/firmware")
  cs=$(text_size "$elf/size_mpmc_cs")
  hlm=$(text_size "$elf/size_heapless_mpmc")
  printf '  %-20s spsc: sluicegate %6d  heapless %6d  (%+d)   mpmc: sluicegate-mpmc-cs %6d  heapless-mpmc %6d  (%+d)   full firmware example %6d\n' \
    "$name" "$ours" "$theirs" $((ours - theirs)) "$cs" "$hlm" $((cs - hlm)) "$fw"
done

echo
if [ "${ACCEPT_COSTS:-}" = 1 ]; then
  sort "$COSTS" >"$BASELINE"
  echo "costs: wrote $(wc -l <"$BASELINE") rows to ci/qemu-costs.txt"
elif [ -f "$BASELINE" ]; then
  echo "Instruction counts against ci/qemu-costs.txt (a rise over max(1, 2 %) fails):"
  if ! awk '
    NR == FNR { base[$2 " " $3 " " $4] = $5; next }
    {
      key = $2 " " $3 " " $4; seen[key] = 1
      if (!(key in base)) { printf "  new row: %s %s\n", key, $5; next }
      d = $5 - base[key]; slack = base[key] * 0.02; if (slack < 1) slack = 1
      if (d > slack) { printf "  DEARER: %s %s -> %s\n", key, base[key], $5; bad = 1 }
      else if (d < -slack) { printf "  cheaper: %s %s -> %s\n", key, base[key], $5 }
    }
    END {
      for (k in base) if (!(k in seen)) printf "  row gone: %s\n", k
      exit bad
    }' "$BASELINE" "$COSTS"; then
    echo "costs: rows dearer than ci/qemu-costs.txt (ACCEPT_COSTS=1 ci/qemu.sh writes a new baseline)" >&2
    FAIL=1
  else
    echo "costs: no row dearer than the baseline"
  fi
fi

[ -z "${KEEP_LOGS:-}" ] && rm -rf "$LOGS"
if [ "$FAIL" -ne 0 ]; then
  echo "qemu: FAILED" >&2
  exit 1
fi
echo "qemu: all boards passed"

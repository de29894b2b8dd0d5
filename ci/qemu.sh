#!/usr/bin/env bash
# Builds examples/firmware for each emulated board, runs every binary under
# qemu-system-arm, and fails on any self-check mismatch. Prints one line per
# board (its spsc, mpmc and limiter phases), then the instructions-per-operation
# table and the .text sizes.
#
#   ci/qemu.sh            # everything
#   KEEP_LOGS=dir ci/qemu.sh   # keep each QEMU run's output in dir
#
# Needs rustup and (installed here if missing) qemu-system-arm.
set -euo pipefail
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
  bins=(firmware cost size_sluicegate size_heapless)
  [ "$name" = lm3s6965evb-defmt ] && bins=(firmware)
  for bin in "${bins[@]}"; do
    log="$LOGS/$name.$bin.log"
    rc=0
    run "$machine" "$elf/$bin" "$log" || rc=$?
    if [ "$rc" -eq 0 ]; then
      [ "$bin" = firmware ] && printf '%-20s %s\n' "$name" "$(grep -E ': PASS' "$log")"
    else
      FAIL=1
      printf '%-20s FAIL (%s, exit %s):\n' "$name" "$bin" "$rc"
      sed 's/^/    /' "$log"
    fi
  done
done

echo
echo "Instructions per operation (net of an empty call; sluicegate / heapless; * = sluicegate more):"
for b in "${BUILDS[@]}"; do
  f="$LOGS/${b%%|*}.cost.log"
  if [ -f "$f" ]; then cat "$f"; fi
done | awk '
  /^cost / {
    tag = $2; op = $3
    split($4, a, "="); split($5, b, "=")
    if (!(op in seen)) { seen[op] = 1; ops[++nops] = op }
    if (!(tag in tseen)) { tseen[tag] = 1; tags[++ntags] = tag }
    mark = (b[2] != "-" && a[2] + 0 > b[2] + 0) ? "*" : ""
    cell[op, tag] = a[2] " / " b[2] mark
  }
  END {
    printf "| %-42s |", "operation"
    for (t = 1; t <= ntags; t++) printf " %-19s |", tags[t]
    printf "\n|%s|", "--------------------------------------------"
    for (t = 1; t <= ntags; t++) printf "%s|", "---------------------"
    printf "\n"
    for (o = 1; o <= nops; o++) {
      name = ops[o]
      if (name ~ /</) name = "`" name "`"   # rustdoc would read <T> as HTML
      printf "| %-42s |", name
      for (t = 1; t <= ntags; t++) printf " %-19s |", cell[ops[o], tags[t]]
      printf "\n"
    }
  }'

echo
echo ".text bytes of the same interrupt-to-main pipeline (size_sluicegate vs size_heapless):"
text_size() { echo $((16#$(readelf -SW "$1" | awk '{ for (i = 1; i < NF; i++) if ($i == ".text") print $(i + 4) }'))); }
for b in "${BUILDS[@]}"; do
  IFS='|' read -r name target features machine <<<"$b"
  [ "$name" = lm3s6965evb-defmt ] && continue
  elf="target/qemu-$name/$target/release"
  ours=$(text_size "$elf/size_sluicegate")
  theirs=$(text_size "$elf/size_heapless")
  fw=$(text_size "$elf/firmware")
  printf '  %-20s sluicegate %6d  heapless %6d  (%+d)   full firmware example %6d\n' \
    "$name" "$ours" "$theirs" $((ours - theirs)) "$fw"
done

[ -z "${KEEP_LOGS:-}" ] && rm -rf "$LOGS"
if [ "$FAIL" -ne 0 ]; then
  echo "qemu: FAILED" >&2
  exit 1
fi
echo "qemu: all boards passed"

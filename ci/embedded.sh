#!/usr/bin/env bash
# Release builds of the library for the embedded targets: thumbv6m (no
# compare-and-swap; alone, with critical-section and with portable-atomic) and
# thumbv7em (alone, with critical-section and with defmt), and both with
# `async`; then what a thumbv6m user without portable-atomic is told.
#
#   ci/embedded.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rustup --quiet target add thumbv6m-none-eabi thumbv7em-none-eabihf

cargo build --release --target thumbv6m-none-eabi
cargo build --release --target thumbv6m-none-eabi --features critical-section
# portable-atomic/critical-section: the library needs some CAS provider on
# thumbv6m to build with portable-atomic; a firmware picks its own.
cargo build --release --target thumbv6m-none-eabi --features portable-atomic,portable-atomic/critical-section
cargo build --release --target thumbv7em-none-eabihf
cargo build --release --target thumbv7em-none-eabihf --features critical-section
cargo build --release --target thumbv7em-none-eabihf --features defmt
# `async` (needs CAS: native on thumbv7em, portable-atomic on thumbv6m).
cargo build --release --target thumbv6m-none-eabi --features async,portable-atomic,portable-atomic/critical-section
cargo build --release --target thumbv6m-none-eabi --features async,critical-section,portable-atomic,portable-atomic/critical-section
cargo build --release --target thumbv7em-none-eabihf --features async
cargo build --release --target thumbv7em-none-eabihf --features async,critical-section,defmt

# A user crate on thumbv6m without `portable-atomic` (ci/no-cas): it builds
# while it uses only what exists there; naming any item that needs
# compare-and-swap fails, and every error it prints names the feature.
no_cas=(cargo build --manifest-path ci/no-cas/Cargo.toml --target thumbv6m-none-eabi
  --target-dir target/no-cas)
"${no_cas[@]}" --quiet
# Every feature of the fixture is a case.
cases=$(sed -n '/^\[features\]/,/^\[/s/^\([a-z-]*\) = .*/\1/p' ci/no-cas/Cargo.toml)
[ -n "$cases" ] || { echo "no-cas: no cases in ci/no-cas/Cargo.toml" >&2; exit 1; }
for case in $cases; do
  if out=$("${no_cas[@]}" --features "$case" 2>&1); then
    echo "no-cas: '$case' built on thumbv6m without portable-atomic" >&2
    exit 1
  fi
  errors=$(grep -c '^error\[' <<<"$out" || true)
  hints=$(grep -c '`portable-atomic` feature' <<<"$out" || true)
  if [ "$errors" -eq 0 ] || [ "$hints" -lt "$errors" ]; then
    echo "no-cas: '$case': errors $errors, naming the \`portable-atomic\` feature $hints:" >&2
    echo "$out" >&2
    exit 1
  fi
  echo "no-cas: '$case' does not build; errors $errors, naming the \`portable-atomic\` feature $hints"
done

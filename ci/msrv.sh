#!/usr/bin/env bash
# The library checks on the MSRV (Cargo.toml's rust-version) with each
# feature, and the README's test command builds there. Installs that
# toolchain if missing.
#
#   ci/msrv.sh
set -euo pipefail
cd "$(dirname "$0")/.."

MSRV=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
if ! rustup toolchain install "$MSRV" --profile minimal >/dev/null 2>&1; then
  echo "could not install Rust $MSRV here" >&2
  exit 1
fi

echo "MSRV $MSRV"
cargo +"$MSRV" check --lib --features defmt
cargo +"$MSRV" check --lib --features portable-atomic
cargo +"$MSRV" check --lib --features critical-section
cargo +"$MSRV" check --lib --features std
cargo +"$MSRV" check --lib --features async,portable-atomic
# The README's test command builds on the MSRV too (the peers' newer
# editions stay in the benches package). --no-run: building is the claim.
cargo +"$MSRV" test --no-run
# Not checked here: the workspace's other members, `benches` (its peers need
# 1.88) and `tower` (tokio, its runtime, needs 1.85); each declares its own
# rust-version, and the library never depends on either.

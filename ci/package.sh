#!/usr/bin/env bash
# What `cargo publish` would upload: lists the files, fails if any of the
# excluded trees (Cargo.toml's `exclude`) is in the list, then builds the
# packaged crate on its own (cargo package's verify step). Needs a clean
# work tree, as publishing does.
#
#   ci/package.sh
set -euo pipefail
cd "$(dirname "$0")/.."

list=$(cargo package --list -p sluicegate)
echo "$list"

bad=$(grep -E '^(benches|fuzz|ci|\.ci|examples/firmware)/' <<<"$list" || true)
if [ -n "$bad" ]; then
  echo "package: files that must not be published:" >&2
  echo "$bad" >&2
  exit 1
fi

# Builds target/package/sluicegate-*.crate and compiles it unpacked.
cargo package -p sluicegate

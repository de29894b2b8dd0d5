#!/usr/bin/env bash
# clippy with -D warnings: the library on the host (each feature), the
# benchmark package, the embedded targets (thumbv7em with defmt, thumbv6m
# with and without portable-atomic).
#
#   ci/clippy.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rustup --quiet component add clippy
rustup --quiet target add thumbv6m-none-eabi thumbv7em-none-eabihf

# Host, once per feature (each changes which code is compiled).
cargo clippy --all-targets --features defmt -- -D warnings
cargo clippy --all-targets --features portable-atomic -- -D warnings
cargo clippy -p sluicegate-bench --all-targets -- -D warnings

# Embedded. thumbv6m has no compare-and-swap: without features the CAS-only
# items are compiled out; with portable-atomic/critical-section they are back.
cargo clippy --target thumbv7em-none-eabihf --features defmt -- -D warnings
cargo clippy --target thumbv6m-none-eabi -- -D warnings
cargo clippy --target thumbv6m-none-eabi --features portable-atomic,portable-atomic/critical-section -- -D warnings

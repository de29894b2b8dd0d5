#!/usr/bin/env bash
# clippy with -D warnings: the library on the host (each feature), the
# benchmark package, the embedded targets (thumbv7em with defmt, thumbv6m
# with and without portable-atomic), and the fuzz workspace.
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

# The fuzz targets: a workspace of their own, so not reached by the above.
(cd fuzz && cargo clippy --all-targets -- -D warnings)

# Not here yet: the library and tests under the loom cfg,
#   RUSTFLAGS="--cfg sluicegate_loom" cargo clippy --target-dir target/loom --tests -- -D warnings
# fails on tests/overload.rs:1 (missing_docs: its `#![cfg(not(sluicegate_loom))]`
# comes before the `//!` docs, so under loom the crate has no docs).

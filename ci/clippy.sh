#!/usr/bin/env bash
# clippy with -D warnings: the library on the host (each feature), the
# benchmark package, the tower layer package, the embedded targets (thumbv7em with defmt, thumbv6m
# with and without portable-atomic), the fuzz workspace, and the loom models.
#
#   ci/clippy.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rustup --quiet component add clippy
rustup --quiet target add thumbv6m-none-eabi thumbv7em-none-eabihf

# Host, once per feature (each changes which code is compiled).
cargo clippy --all-targets --features defmt,critical-section -- -D warnings
cargo clippy --all-targets --features portable-atomic -- -D warnings
cargo clippy --all-targets --features async -- -D warnings
cargo clippy --all-targets --features std,critical-section,defmt -- -D warnings
cargo clippy -p sluicegate-bench --all-targets -- -D warnings
cargo clippy -p sluicegate-tower --all-targets -- -D warnings

# Embedded. thumbv6m has no compare-and-swap: without features the CAS-only
# items are compiled out; with portable-atomic/critical-section they are back.
cargo clippy --target thumbv7em-none-eabihf --features defmt -- -D warnings
cargo clippy --target thumbv6m-none-eabi -- -D warnings
cargo clippy --target thumbv6m-none-eabi --features critical-section -- -D warnings
cargo clippy --target thumbv7em-none-eabihf --features critical-section -- -D warnings
cargo clippy --target thumbv6m-none-eabi --features portable-atomic,portable-atomic/critical-section -- -D warnings
cargo clippy --target thumbv6m-none-eabi --features async,portable-atomic,portable-atomic/critical-section -- -D warnings
cargo clippy --target thumbv6m-none-eabi --features async,critical-section,portable-atomic,portable-atomic/critical-section -- -D warnings
cargo clippy --target thumbv7em-none-eabihf --features async,defmt -- -D warnings

# The fuzz targets: a workspace of their own, so not reached by the above.
(cd fuzz && cargo clippy --all-targets -- -D warnings)

# The library under the loom cfg (the per-slot paths that replace slice views
# there) with its loom models, which are its unit tests; its own target dir,
# as in ci/loom.sh. `--profile test` checks the library's test build only:
# loom is a dev-dependency, so the plain library build (which the
# integration tests link) does not exist under this cfg.
RUSTFLAGS="--cfg sluicegate_loom" cargo clippy --target-dir target/loom --lib --profile test \
  -- -D warnings
RUSTFLAGS="--cfg sluicegate_loom" cargo clippy --target-dir target/loom --features async --lib \
  --profile test -- -D warnings
RUSTFLAGS="--cfg sluicegate_loom" cargo clippy --target-dir target/loom --features std --lib \
  --profile test -- -D warnings

#!/usr/bin/env bash
# Release builds of the library for the embedded targets: thumbv6m (no
# compare-and-swap; alone, with critical-section and with portable-atomic) and
# thumbv7em (alone, with critical-section and with defmt), and both with
# `async`.
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

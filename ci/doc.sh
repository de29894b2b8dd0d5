#!/usr/bin/env bash
# rustdoc with warnings as errors, on the host with defmt.
#
#   ci/doc.sh
set -euo pipefail
cd "$(dirname "$0")/.."

RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --features defmt

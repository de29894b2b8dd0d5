#!/usr/bin/env bash
# rustfmt over the workspace (the library, its tests and examples, benches).
#
#   ci/fmt.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rustup --quiet component add rustfmt

cargo fmt --all -- --check

#!/usr/bin/env bash
# The README's test command: unit, integration and doc tests of the library
# on the host, default features.
#
#   ci/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

cargo test

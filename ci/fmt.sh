#!/usr/bin/env bash
# rustfmt over every tracked .rs file: the library, tests, examples, benches,
# and the separate workspaces fuzz/ and examples/firmware/. `cargo fmt` would
# miss the last two and any file declared inside a macro (rust-lang/cargo#7732;
# tokio's CI does the same).
#
#   ci/fmt.sh
set -euo pipefail
cd "$(dirname "$0")/.."

rustup --quiet component add rustfmt

mapfile -t files < <(git ls-files '*.rs')
# Given no files rustfmt would read stdin and pass: an empty list is an error.
[ ${#files[@]} -gt 0 ] || { echo "fmt: no tracked .rs files (not a git checkout?)" >&2; exit 1; }
# --edition: rustfmt run directly does not read Cargo.toml; every package
# here is edition 2021.
rustfmt --check --edition 2021 "${files[@]}"

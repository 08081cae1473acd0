#!/usr/bin/env bash
# The README's test command: set up, build, and run every test under ctest
# (the lit suite and the Catch2 suite).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh"
cd "$root/build"
ctest --output-on-failure -j"$(nproc)" "$@"

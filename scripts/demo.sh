#!/usr/bin/env bash
# The README's main-job command: set up, build, and run the built-in example.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
cd "$root"
echo "== examples/seed-g-f.mlir, parsed, verified and printed by cotangent-opt"
build/bin/cotangent-opt examples/seed-g-f.mlir

#!/usr/bin/env bash
# The README's main-job command: set up, build, and run the demo: the seed's
# g/f traced from C++ through every stage (jaxpr, residual reports per
# placement and policy, forward and backward side by side), then an MLP grad
# step compiled for the CPU under each policy with measured memory and time,
# written to build/cotangent-demo-policies.json and drawn (with matplotlib,
# when installed) into build/cotangent-demo-policies.png.
# Extra arguments go to cotangent-demo (e.g. --layers 8 --width 512).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
cd "$root"
echo "== cotangent-opt on the built-in IR example (examples/seed-g-f.mlir):"
echo "   --jx-vjp --jx-remat --jx-print-saved-residuals"
build/bin/cotangent-opt examples/seed-g-f.mlir --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null
exec build/bin/cotangent-demo "$@"

#!/usr/bin/env bash
# The README's main-job command: set up, build, and run the demo: the seed's
# g/f traced from C++ through every stage (jaxpr, residual reports per
# placement and policy, forward and backward side by side), then an MLP grad
# step compiled for the CPU under each policy with measured memory and time,
# written to build/cotangent-demo-policies.json and drawn (with matplotlib,
# when installed) into build/cotangent-demo-policies.png.
# Then it trains GPT-2 tiny (cotangent-train) on the bytes of Debian's GPL-3
# text for about a minute under a memory budget: the loss falls from about
# ln(256), and each line shows the step's measured peak against the budget.
# Extra arguments go to cotangent-demo (e.g. --layers 8 --width 512).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
"$root/scripts/build.sh" >/dev/null
cd "$root"
echo "== cotangent-opt on the built-in IR example (examples/seed-g-f.mlir):"
echo "   --jx-vjp --jx-remat --jx-print-saved-residuals"
build/bin/cotangent-opt examples/seed-g-f.mlir --jx-vjp --jx-remat --jx-print-saved-residuals -o /dev/null
build/bin/cotangent-demo "$@"
echo
echo "== cotangent-train: GPT-2 tiny on /usr/share/common-licenses/GPL-3, byte-level, under a"
echo "   memory budget of 70% of the step's peak without checkpoints (log: build/demo-train.jsonl)"
build/bin/cotangent-train prepare /usr/share/common-licenses/GPL-3 build/demo-text.bin
rm -f build/demo-train.jsonl
build/bin/cotangent-train --data build/demo-text.bin --steps 1500 --batch 8 --seq 64 --lr 1e-3 \
  --warmup 20 --memory-budget 0.7 --eval-every 500 --print-every 100 --log build/demo-train.jsonl
python3 tools/plot-training.py build/demo-train.jsonl -o build/demo-train.png || true

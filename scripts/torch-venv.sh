#!/usr/bin/env bash
# Creates the Python virtual environment that holds PyTorch, the other side
# of cotangent-bench --run fit (bench/torch_cpu.py: torch.compile under
# activation_memory_budget). Cotangent itself never needs it. Idempotent:
# when the venv exists and imports torch and numpy, it returns at once.
#
#   scripts/torch-venv.sh [VENV_DIR]     (default: build/torch-venv)
#
# Prints the venv's python on its last line of stdout. Exits 1 with a message
# when the venv cannot be made (no python3, no venv module and no root to
# install python3-venv, or PyPI out of reach). PyPI's torch for Linux x86-64
# is the CUDA build (some GiB with its nvidia-* wheels); the bench uses only
# its CPU side.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/bench-venv.sh"
make_venv torch-venv "${1:-$root/build/torch-venv}" "torch, numpy" torch numpy

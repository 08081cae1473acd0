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
venv="${1:-$root/build/torch-venv}"
py="$venv/bin/python"

fail() { echo "torch-venv: $*" >&2; exit 1; }

ready() {
  [ -x "$py" ] && "$py" -c 'import torch, numpy' >/dev/null 2>&1
}

if ready; then
  echo "$py"
  exit 0
fi

command -v python3 >/dev/null || fail "python3 is not installed"

# Debian splits venv and ensurepip out of python3 into python3-venv.
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null && sudo -n true 2>/dev/null \
      || fail "python3's venv module is missing and installing python3-venv needs root (apt-get install python3-venv)"
    sudo="sudo -n"
  fi
  echo "torch-venv: installing python3-venv" >&2
  $sudo apt-get update -qq >&2 || fail "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >&2 \
    || fail "apt-get install python3-venv failed"
fi

mkdir -p "$(dirname "$venv")"
if [ ! -x "$py" ]; then
  python3 -m venv "$venv" >&2 || { rm -rf "$venv"; fail "python3 -m venv $venv failed"; }
fi
echo "torch-venv: installing torch and numpy into $venv" >&2
"$py" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 \
  || fail "pip could not reach PyPI (upgrading pip failed)"
"$py" -m pip install --quiet --disable-pip-version-check torch numpy >&2 \
  || fail "pip install torch numpy failed (is PyPI reachable?)"
ready || fail "torch or numpy does not import in $venv"
echo "$py"

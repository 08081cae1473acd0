#!/usr/bin/env bash
# Creates the Python virtual environment that holds JAX (CPU) and Flax, the
# oracle the `jax`-labelled tests compare Cotangent against. Cotangent itself
# never needs it. Idempotent: when the venv exists and imports both packages,
# it returns at once.
#
#   scripts/jax-venv.sh [VENV_DIR]     (default: build/jax-venv)
#
# Prints the venv's python on its last line of stdout. Exits 1 with a message
# when the venv cannot be made (no python3, no venv module and no root to
# install python3-venv, or PyPI out of reach).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
source "$root/scripts/bench-venv.sh"
make_venv jax-venv "${1:-$root/build/jax-venv}" "jax, flax, optax, safetensors" \
  jax flax optax safetensors

#!/usr/bin/env bash
# Runs a script of test/jax/ with the venv's python: `run-with-jax.sh VENV SCRIPT ARGS...`.
# Makes the venv first (scripts/jax-venv.sh); when it cannot be made, exits 77,
# which ctest reports as skipped (SKIP_RETURN_CODE), not passed.
set -uo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$1"
shift
if ! py="$("$here/../../scripts/jax-venv.sh" "$venv" | tail -n 1)" || [ ! -x "$py" ]; then
  echo "SKIPPED: no JAX venv at $venv (scripts/jax-venv.sh failed; see above)"
  exit 77
fi
exec "$py" "$@"

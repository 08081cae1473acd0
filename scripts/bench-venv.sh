# Sourced by scripts/jax-venv.sh and scripts/torch-venv.sh: makes (or finds)
# a bench-only Python venv holding an anchor and prints its python.
#
#   make_venv NAME VENV_DIR "IMPORTS" PACKAGE...
#
# NAME prefixes the messages ("jax-venv: ..."); IMPORTS is the comma list
# `import` must accept for the venv to be ready. Idempotent: a ready venv
# returns at once. Prints the venv's python on its last line of stdout;
# exits 1 with a message when the venv cannot be made (no python3, no venv
# module and no root to install python3-venv, or PyPI out of reach).
make_venv() {
  local name="$1" venv="$2" imports="$3"
  shift 3
  local py="$venv/bin/python"
  fail() { echo "$name: $*" >&2; exit 1; }
  ready() { [ -x "$py" ] && "$py" -c "import $imports" >/dev/null 2>&1; }

  if ready; then
    echo "$py"
    return 0
  fi
  command -v python3 >/dev/null || fail "python3 is not installed"

  # Debian splits venv and ensurepip out of python3 into python3-venv.
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    local sudo=""
    if [ "$(id -u)" -ne 0 ]; then
      command -v sudo >/dev/null && sudo -n true 2>/dev/null \
        || fail "python3's venv module is missing and installing python3-venv needs root (apt-get install python3-venv)"
      sudo="sudo -n"
    fi
    echo "$name: installing python3-venv" >&2
    $sudo apt-get update -qq >&2 || fail "apt-get update failed"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq python3-venv >&2 \
      || fail "apt-get install python3-venv failed"
  fi

  mkdir -p "$(dirname "$venv")"
  if [ ! -x "$py" ]; then
    python3 -m venv "$venv" >&2 || { rm -rf "$venv"; fail "python3 -m venv $venv failed"; }
  fi
  echo "$name: installing $* into $venv" >&2
  "$py" -m pip install --quiet --disable-pip-version-check --upgrade pip >&2 \
    || fail "pip could not reach PyPI (upgrading pip failed)"
  "$py" -m pip install --quiet --disable-pip-version-check "$@" >&2 \
    || fail "pip install $* failed (is PyPI reachable?)"
  ready || fail "$imports: not all import in $venv"
  echo "$py"
}

#!/usr/bin/env bash
# NCCL's header from PyPI's nvidia-nccl-cu13 wheel (Debian has no NCCL):
#
#   scripts/nccl-wheel.sh DIR     -> DIR/include/nccl.h, DIR/VERSION
#
# The wheel (~300 MB) is downloaded once into ~/.cache/cotangent/nccl (pip's
# cache too) and only the header is taken: the library is opened at run time
# (runtime/cuda/CudaCollectives.cpp) from the machine's NCCL, e.g. the copy
# JAX's CUDA plugin installs (docs/distributed.md, "NCCL"). Exits 1, saying
# why, when the wheel cannot be had (no network): the build then goes on
# without NCCL.
set -euo pipefail
[ $# -eq 1 ] || { sed -n 2,11p "$0"; exit 2; }
dir=$1
cache="${XDG_CACHE_HOME:-$HOME/.cache}/cotangent/nccl"
if [ -f "$dir/include/nccl.h" ]; then
  exit 0
fi
mkdir -p "$cache" "$dir/include"
wheel=$(ls "$cache"/nvidia_nccl_cu13-*.whl 2>/dev/null | sort -V | tail -1 || true)
if [ -z "$wheel" ]; then
  echo "nccl-wheel: downloading nvidia-nccl-cu13 from PyPI (its header is all the build takes)" >&2
  python3 -m pip download --quiet --no-deps --only-binary=:all: -d "$cache" nvidia-nccl-cu13 >&2 \
    || { echo "nccl-wheel: cannot download nvidia-nccl-cu13: building without NCCL" >&2; exit 1; }
  wheel=$(ls "$cache"/nvidia_nccl_cu13-*.whl | sort -V | tail -1)
fi
python3 - "$wheel" "$dir" <<'PY'
import os, sys, zipfile
wheel, out = sys.argv[1], sys.argv[2]
with zipfile.ZipFile(wheel) as z:
    header = [n for n in z.namelist() if n.endswith("/include/nccl.h")]
    if not header:
        sys.exit(f"nccl-wheel: {wheel} has no include/nccl.h")
    with open(os.path.join(out, "include", "nccl.h"), "wb") as f:
        f.write(z.read(header[0]))
version = os.path.basename(wheel).split("-")[1]
with open(os.path.join(out, "VERSION"), "w") as f:
    f.write(version + "\n")
print(f"nccl-wheel: NCCL {version}'s header in {out}/include")
PY

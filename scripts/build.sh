#!/usr/bin/env bash
# Bootstraps, configures (once) and builds Cotangent into build/.
# --sanitize: the reliability build instead, into build-sanitize/: clang 22,
# ASan + UBSan over Cotangent's code, and the libFuzzer harnesses
# (docs/reliability.md). Further arguments name the targets to build
# (default: all).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
mode=""
if [ "${1:-}" = "--sanitize" ]; then
  mode="$1"
  shift
fi
targets=()
for t in "$@"; do targets+=(--target "$t"); done
"$root/scripts/bootstrap.sh" $mode

# ccache keyed on paths relative to the checkout, so a fresh clone elsewhere
# (as CI makes) still hits the cache.
export CCACHE_BASEDIR="$root" CCACHE_NOHASHDIR=1 CCACHE_SLOPPINESS=time_macros,include_file_mtime
dir=build
extra=()
if [ "$mode" = "--sanitize" ]; then
  dir=build-sanitize
  extra=(-DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22
         -DCOTANGENT_SANITIZE=ON -DCOTANGENT_FUZZ=ON)
fi
# NCCL's header (PyPI's nvidia-nccl-cu13 wheel) where the CUDA toolkit is:
# the GPU's collectives need it; without it (no network) they are refused.
if [ -d /usr/local/cuda ] && [ "$mode" != "--sanitize" ]; then
  "$root/scripts/nccl-wheel.sh" "$dir/nccl" || true
fi
if [ ! -f "$dir/build.ninja" ]; then
  cmake -G Ninja -S . -B "$dir" \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DCMAKE_BUILD_TYPE=Release \
    -DMLIR_LINK_MLIR_DYLIB=ON \
    -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit \
    -DLLVM_USE_LINKER=lld "${extra[@]}"
fi
cmake --build "$dir" "${targets[@]}" -- -j"$(nproc)"

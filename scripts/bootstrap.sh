#!/usr/bin/env bash
# Installs what Cotangent needs from Debian's archive, only what is missing
# (idempotent: a second run takes a second). LLVM/MLIR 22 come from
# bookworm-security; CUDA, when present, is the machine's /usr/local/cuda.
# With --sanitize, also clang 22 and its sanitizer and libFuzzer runtimes
# (the ASan + UBSan + libFuzzer build of scripts/build.sh --sanitize).
set -euo pipefail

packages=(llvm-22-dev libmlir-22-dev mlir-22-tools llvm-22-tools libomp-22-dev libfmt-dev catch2
          ninja-build lld ccache cmake g++ libopenblas-dev libboost-graph-dev
          coinor-libcbc-dev libdnnl-dev pkg-config python3 libopenmpi-dev openmpi-bin)
[ "${1:-}" = "--sanitize" ] && packages+=(clang-22 libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bootstrap: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}"
fi

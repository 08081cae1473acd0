#!/usr/bin/env bash
# Builds the GPU check: a folder (build/gpu-check/, a few MiB) that runs on a
# machine with an NVIDIA GPU and nothing of ours installed: no MLIR, no LLVM,
# no compiler (see bench/gpu/run.sh, which it holds). Usage:
#
#   scripts/gpu-check.sh [--quick] [--gpt2 PRESET:BATCHxSEQ] [OUT_DIR]
#
#   bin/cotangent-step            the driver (CUDA runtime only)
#   steps/<model>.so.xz           self-contained steps (cotangent-run
#                                 --target=cuda --emit-object, fat binaries
#                                 for sm_80 and sm_90), compressed
#   models/<model>/{inputs,expected}
#                                 arguments and CPU reference results of the
#                                 small examples (test/gpu/Inputs)
#   models.txt                    name, kind (reference, mlp, transformer,
#                                 scalar), policy (of a scalar twin: its model)
#   models-first.txt              the subset a short device call runs first
#   run.sh, jax_step.py, report.py, jax_models.py (bench/)
#
# --gpt2 124M:4x1024: also GPT-2 of that preset (models/gpt2; its loss over
# BATCH sequences of SEQ tokens) under no policy, nothing_saveable and
# dots_saveable per block, kind "gpt2": JAX runs bench/jax_models.py's
# gpt2_loss on the same arguments (token ids drawn in [0, 4)).
# COTANGENT_GPU_CHIPS (default sm_80,sm_90): the chips of the fat binaries
# (one chip makes the folder smaller for a device call's 64 MiB).
# --quick: the small examples only (what ctest's gpu-check-folder builds).
# Without it also the benchmark MLP (8 x 1024, batch 256 and 2048) and a
# 4-block pre-LN transformer (d_model 512, 8 heads, 256 tokens, MLP 2048)
# under no policy, nothing_saveable, dots_saveable (and, for the MLP, an
# offload of every dot, and the same residuals held on the device, which the
# offload's peak is measured against); their references are JAX's, computed
# on the GPU. mlp-b2048-none and transformer-none also come with a twin of
# kind "scalar" (one element per thread in elementwise kernels).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
quick=0 gpt2=
while [ $# -gt 0 ]; do
  case "$1" in
    --quick) quick=1; shift ;;
    --gpt2) gpt2=${2:?--gpt2 needs PRESET:BATCHxSEQ}; shift 2 ;;
    *) break ;;
  esac
done
out="${1:-$root/build/gpu-check}"
B="$root/build/bin"
[ -x "$B/cotangent-step" ] || "$root/scripts/build.sh"
rm -rf "$out"
mkdir -p "$out/bin" "$out/steps" "$out/models"
cp "$B/cotangent-step" "$out/bin/"
cp "$root"/bench/gpu/{run.sh,jax_step.py,report.py} "$root"/bench/jax_models.py "$out/"
echo "# name kind policy (scripts/gpu-check.sh)" >"$out/models.txt"

# A step of MLIR file $2 (more flags of cotangent-run after it): the
# object, linked as a shared library.
step() {
  local name=$1 mlir=$2
  shift 2
  "$B/cotangent-run" "$mlir" --vjp --target=cuda --chip "${COTANGENT_GPU_CHIPS:-sm_80,sm_90}" "$@" \
    --emit-object "$out/steps/$name.o"
  ${CXX:-c++} -shared -o "$out/steps/$name.so" "$out/steps/$name.o"
  rm "$out/steps/$name.o"
}

# A small example with its arguments and CPU reference shipped.
reference() {
  local name=$1 fn=$2 mlir="$root/test/gpu/Inputs/$1.mlir"
  step "$name" "$mlir"
  local m="$out/models/$name"
  mkdir -p "$m/inputs" "$m/expected"
  "$B/cotangent-step" "$out/steps/$name.so" --check-only --save-inputs "$m/inputs" >/dev/null
  local args=()
  for f in $(ls "$m/inputs"/arg*.npy | sort -V); do args+=(--input "$f"); done
  "$B/cotangent-run" "$mlir" --fn "$fn" --vjp --split "${args[@]}" --output-dir "$m/expected" \
    >/dev/null
  xz -T2 "$out/steps/$name.so"
  echo "$name reference -" >>"$out/models.txt"
}

# Model $1's twin with one element per thread in its elementwise kernels
# (--vector-bytes 0): run.sh times it on $1's arguments, report.py prints
# what the 16-byte accesses gain.
scalar() {
  step "$1-scalar" "$2" --vector-bytes 0
  xz -T2 "$out/steps/$1-scalar.so"
  echo "$1-scalar scalar $1" >>"$out/models.txt"
}

reference seed-g-f f
reference mlp-relu mlp
reference mlp-offload mlp
reference mlp-offload-all mlp
reference scan-rnn rnn
reference cond cond
reference mlp-bf16 mlp

if [ $quick = 0 ]; then
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  for batch in 256 2048; do
    for policy in none nothing_saveable dots_saveable offload dots_on_device; do
      name=mlp-b$batch-$policy
      python3 "$root/bench/gpu/gen-mlp.py" --layers 8 --width 1024 --batch $batch \
        --policy $policy >"$tmp/$name.mlir"
      step "$name" "$tmp/$name.mlir" && xz -T2 "$out/steps/$name.so" &
      echo "$name mlp $policy" >>"$out/models.txt"
    done
    wait
  done
  scalar mlp-b2048-none "$tmp/mlp-b2048-none.mlir"
  "$B/cotangent-bench" --emit-mlir "$tmp" --blocks 4 --seq 256 --width 512 --heads 8
  for policy in none nothing_saveable dots_saveable; do
    step transformer-$policy "$tmp/transformer-$policy.mlir" &&
      xz -T2 "$out/steps/transformer-$policy.so" &
    echo "transformer-$policy transformer $policy" >>"$out/models.txt"
  done
  wait
  scalar transformer-none "$tmp/transformer-none.mlir"
fi
if [ -n "$gpt2" ]; then
  preset=${gpt2%%:*} size=${gpt2#*:}
  gtmp=$(mktemp -d)
  "$B/cotangent-bench" --emit-mlir "$gtmp" --gpt2 "$preset" --batch "${size%x*}" \
    --seq "${size#*x}"
  for policy in none nothing_saveable dots_saveable; do
    name=gpt2-$preset-$policy
    step "$name" "$gtmp/gpt2-$policy.mlir" && xz -T2 "$out/steps/$name.so" &
    echo "$name gpt2 $policy" >>"$out/models.txt"
  done
  wait
  rm -rf "$gtmp"
fi
for so in "$out"/steps/*.so.xz; do [ -s "$so" ] || { echo "gpu-check: $so is empty" >&2; exit 1; }; done
# What one short device call runs first (`run.sh models-first.txt`): every
# small example, the offloads with their on-device twins, the transformer
# and its scalar twin.
grep -E '^(#|[^ ]+ reference |[^ ]+ gpt2 |mlp-b(256|2048)-(offload|dots_on_device) |transformer-none(-scalar)? )' \
  "$out/models.txt" >"$out/models-first.txt"
echo "gpu-check: $(du -sh "$out" | cut -f1) in $out; on the GPU machine: bash $(basename "$out")/run.sh"

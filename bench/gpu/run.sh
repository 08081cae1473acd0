#!/usr/bin/env bash
# The GPU check, run where the GPU is: a machine with an NVIDIA GPU, its
# driver, cuBLAS (libcublas.so.13) and python3 with JAX and NumPy; no MLIR,
# no compiler, nothing installed. scripts/gpu-check.sh made this folder.
#
# For every model of models.txt: the step runs on the GPU (bin/cotangent-step,
# FP32 and TF32), its loss and gradients are checked against the reference
# (the CPU's, made where the folder was built, or JAX's at "highest"
# precision on this GPU), and JAX runs the same model on the same arguments
# (jax_step.py, every model in one process); each FP32 step's out/<model>/step.txt holds its kernel
# profile. report.py prints one table; the exit status is 0 only when
# every step ran and matched. `run.sh MODELS` runs the models a file of the
# same form lists instead. A model of kind "scalar" is the model its third
# column names, compiled with one element per thread in elementwise kernels:
# it runs (FP32) on that model's arguments against its reference, after it.
set -u
cd "$(dirname "$0")"
models=${1:-models.txt}
rm -rf out
mkdir -p out
python3 - <<'PY'
import glob, lzma
for f in glob.glob("steps/*.so.xz"):
    open(f[:-3], "wb").write(lzma.open(f).read())
PY
status=0
# First every model's arguments, then JAX on all of them in one process, so
# that JAX and the GPU start once, not once per model.
: >out/jax-batch.txt
while read -r name kind policy; do
  case "$name" in ""|\#*) continue ;; esac
  case "$kind" in reference|scalar) continue ;; esac
  o=out/$name
  mkdir -p "$o/inputs"
  bin/cotangent-step "steps/$name.so" --check-only --save-inputs "$o/inputs" >/dev/null || {
    echo "FAIL $name: its inputs"; status=1; continue; }
  echo "$kind $policy $o/inputs $o/jax $o/jax.json" >>out/jax-batch.txt
done <"$models"
if [ -s out/jax-batch.txt ]; then
  python3 jax_step.py --batch out/jax-batch.txt || status=1
fi
while read -r name kind policy; do
  case "$name" in ""|\#*) continue ;; esac
  o=out/$name
  mkdir -p "$o"
  so=steps/$name.so
  if [ "$kind" = reference ]; then
    inputs=models/$name/inputs
    expect=models/$name/expected
  elif [ "$kind" = scalar ]; then
    inputs=out/$policy/inputs
    expect=out/$policy/jax
    [ -d "$inputs" ] && ls "$inputs"/arg*.npy >/dev/null 2>&1 || continue
  else
    inputs=$o/inputs
    [ -d "$inputs" ] && ls "$inputs"/arg*.npy >/dev/null 2>&1 || continue
    expect=$o/jax
  fi
  args=()
  for f in $(ls "$inputs"/arg*.npy | sort -V); do args+=(--input "$f"); done
  # The loss sums many terms and may nearly cancel: a small absolute bound
  # covers what its relative error cannot (gradients are far above it).
  check=()
  [ -f "$expect/gradient0.npy" ] && check=(--expect "$expect" --atol 1e-6)
  # --profile: the 20 slowest kernels of one more eager step, in step.txt.
  bin/cotangent-step "$so" "${args[@]}" "${check[@]}" --profile 20 --json "$o/step.json" \
    >"$o/step.txt" 2>&1 || {
    echo "FAIL $name:"; cat "$o/step.txt"; status=1; }
  if [ "$kind" != reference ] && [ "$kind" != scalar ]; then
    # TF32 keeps 10 mantissa bits: checked at 1e-2 (the loss within 1e-3).
    tf32=()
    [ -f "$expect/gradient0.npy" ] && tf32=(--expect "$expect" --atol 1e-3)
    bin/cotangent-step "$so" "${args[@]}" "${tf32[@]}" --rtol 1e-2 --tf32 \
      --json "$o/step-tf32.json" >"$o/step-tf32.txt" 2>&1 || {
      echo "FAIL $name (TF32):"; cat "$o/step-tf32.txt"; status=1; }
  fi
done <"$models"
python3 report.py out "$models" || status=1
exit $status

#!/usr/bin/env bash
# run-under.sh SETTING COMMAND...: runs COMMAND (a [numerics] Catch2 binary)
# under one BLAS kernel family, matmul library or thread count, so that the
# compiled-vs-interpreter bounds (docs/reliability.md) are checked on every
# kernel this CPU can run, not only the one OpenBLAS picks for it. Exits 77
# (ctest: skipped) when the CPU lacks what SETTING needs.
set -euo pipefail
setting="$1"
shift
needs=()
unset OPENBLAS_CORETYPE COTANGENT_MATMUL COTANGENT_NUM_THREADS ONEDNN_MAX_CPU_ISA
case "$setting" in
  blas-prescott) export OPENBLAS_CORETYPE=Prescott COTANGENT_MATMUL=openblas ;;
  blas-haswell)  export OPENBLAS_CORETYPE=Haswell COTANGENT_MATMUL=openblas; needs=(avx2 fma) ;;
  blas-zen)      export OPENBLAS_CORETYPE=Zen COTANGENT_MATMUL=openblas; needs=(avx2 fma) ;;
  blas-skylakex) export OPENBLAS_CORETYPE=SkylakeX COTANGENT_MATMUL=openblas
                 needs=(avx512f avx512bw avx512dq avx512vl) ;;
  onednn-avx2)   export COTANGENT_MATMUL=onednn ONEDNN_MAX_CPU_ISA=AVX2; needs=(avx2 fma) ;;
  onednn)        export COTANGENT_MATMUL=onednn ;;
  threads-[0-9]*) export COTANGENT_NUM_THREADS="${setting#threads-}" ;;
  *) echo "run-under.sh: unknown setting '$setting'" >&2; exit 2 ;;
esac
flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
for f in "${needs[@]}"; do
  if [[ "$flags" != *" $f "* ]]; then
    echo "skipped: '$setting' needs the CPU flag $f, which this CPU lacks"
    exit 77
  fi
done
echo "run-under.sh $setting: OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-} COTANGENT_MATMUL=${COTANGENT_MATMUL:-} COTANGENT_NUM_THREADS=${COTANGENT_NUM_THREADS:-} ONEDNN_MAX_CPU_ISA=${ONEDNN_MAX_CPU_ISA:-}"
exec "$@"

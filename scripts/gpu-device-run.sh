#!/usr/bin/env bash
# Everything a short lease of a GPU machine should run, as one command there
# (docs/gpu.md, "Running on a machine with a GPU"):
#
#   scripts/gpu-device-run.sh TESTS_PACK CHECK_FOLDER RESULTS [DEADLINE_S]
#
# TESTS_PACK is scripts/pack-gpu-tests.sh's folder, CHECK_FOLDER
# scripts/gpu-check.sh's; both travel with the repository, whose root this
# runs in. In order: the device, driver and JAX; gpu-device; run.sh
# models-first.txt; then the check's other models while DEADLINE_S (default
# 440) from the start allows. Between gpu-device and the check: the device
# training loop's bench (device-loop.txt). RESULTS gets each part's log as it ends and the
# figures (every out/ folder without its .npy arrays: first-out.tgz,
# rest-out.tgz), so a run cut off at its limit still leaves what it did.
set -u
[ $# -ge 3 ] || { sed -n 2,15p "$0"; exit 2; }
pack=$1 check=$2 results=$3 deadline=${4:-440}
export PYTHONUNBUFFERED=1
start=$(date +%s)
elapsed() { echo $(( $(date +%s) - start )); }
mkdir -p "$results"
{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv
  python3 -c 'import jax; print("jax", jax.__version__, jax.devices())'
  date -u
} >"$results/device.txt" 2>&1
cat "$results/device.txt"
# gpu-device: the GPU tests, device arrays and collectives (NCCL, one rank) included.
timeout 150 bash "$pack/run.sh" >"$results/gpu-device.txt" 2>&1
echo "gpu-device rc=$? after $(elapsed) s" | tee -a "$results/gpu-device.txt"
tail -3 "$results/gpu-device.txt"
# The donated AdamW loop with its state on the device against its steps back
# to back (cotangent-bench --run device-loop, from the pack just unpacked).
T=/tmp/cotangent-gpu-tests
for b in 256 2048; do
  timeout 60 env LD_LIBRARY_PATH="$T/lib" "$T/bin/cotangent-bench" --run device-loop --batch $b \
    --repeats 5
done >"$results/device-loop.txt" 2>&1
echo "device-loop rc=$? after $(elapsed) s" | tee -a "$results/device-loop.txt"
cat "$results/device-loop.txt"
# The figures without the arrays (arguments and references: tens of MiB).
save() { tar czf "$results/$1-out.tgz" --exclude='*.npy' -C "$check" out; }
# The first models get all but 100 s of what is left (at least 60 s).
first=$(( deadline - $(elapsed) - 100 )); [ $first -ge 60 ] || first=60
timeout $first bash "$check/run.sh" models-first.txt \
  >"$results/first.txt" 2>&1
echo "first rc=$? after $(elapsed) s" | tee -a "$results/first.txt"
save first
tail -25 "$results/first.txt"
{ grep '^#' "$check/models.txt"
  grep -v '^#' "$check/models.txt" | grep -v -x -F -f "$check/models-first.txt"
} >"$check/models-rest.txt"
if [ $(( deadline - $(elapsed) )) -gt 60 ]; then
  timeout $(( deadline - $(elapsed) - 10 )) bash "$check/run.sh" models-rest.txt \
    >"$results/rest.txt" 2>&1
  echo "rest rc=$? after $(elapsed) s" | tee -a "$results/rest.txt"
  save rest
  tail -20 "$results/rest.txt"
fi

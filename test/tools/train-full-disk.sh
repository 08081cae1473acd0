#!/usr/bin/env bash
# A full disk during a checkpoint write (issue 48): cotangent-train says
# which checkpoint was not written and why, exits 1, and the previous
# checkpoint stays good (no partial file, no temporary left behind). The
# disk is an 8 MiB tmpfs: one checkpoint of the tiny preset (about 5.6 MiB:
# parameters and AdamW's two moments) fits, a second does not. Mounting
# needs root; elsewhere the test is skipped (77).
#
#   train-full-disk.sh COTANGENT_TRAIN
set -u
train=$1
dir=$(mktemp -d)
trap 'umount "$dir/disk" 2>/dev/null; rm -rf "$dir"' EXIT
mkdir -p "$dir/disk"
if ! mount -t tmpfs -o size=8m tmpfs "$dir/disk" 2>/dev/null; then
  echo "SKIPPED: cannot mount a tmpfs here (not root?)"
  exit 77
fi
printf 'The disk fills up while a checkpoint is written. %.0s' {1..60} >"$dir/text.txt"
"$train" prepare "$dir/text.txt" "$dir/text.bin" >/dev/null || exit 1
"$train" --data "$dir/text.bin" --batch 2 --seq 16 --steps 4 --checkpoint-every 1 --keep 2 \
  --checkpoint-dir "$dir/disk" --peak-tflops 1 >"$dir/out.txt" 2>"$dir/err.txt"
rc=$?
fail() { echo "train-full-disk: $*"; echo "--- stderr:"; cat "$dir/err.txt"; ls -la "$dir/disk"; exit 1; }
[ $rc -eq 1 ] || fail "expected exit 1, got $rc"
grep -q "cotangent-train: error: checkpoint at step 1 not written: .*No space left on device (the previous checkpoints are kept)" "$dir/err.txt" ||
  fail "the error does not say the disk is full"
"$train" verify "$dir/disk/step-00000000.safetensors" || fail "the previous checkpoint does not read"
leftovers=$(ls "$dir/disk" | grep -v '^step-00000000.safetensors$' || true)
[ -z "$leftovers" ] || fail "left on the disk besides the good checkpoint: $leftovers"
echo "train-full-disk: the full disk is reported, step-00000000 stays good, nothing else is left"

#!/usr/bin/env bash
# The soak test of cotangent-train (issue 48): a run killed with SIGKILL at
# random moments (while compiling, stepping, writing checkpoints) and
# resumed each time ends with the same checkpoint, byte for byte, as one
# run that was never interrupted; after every kill each checkpoint on disk
# reads whole and there are never more than --keep of them.
#
#   scripts/soak.sh [--kills N] [--steps S] [--train BIN] [--dir DIR]
#
# ctest runs 20 kills of the tiny preset (train-soak); longer runs take
# more (--kills 500 --steps 2000). Needs /usr/share/common-licenses/GPL-3
# (Debian's base-files) as the text.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
kills=20 steps=800 train="$root/build/bin/cotangent-train" dir=""
while [ $# -gt 0 ]; do
  case "$1" in
    --kills) kills=$2; shift 2 ;;
    --steps) steps=$2; shift 2 ;;
    --train) train=$2; shift 2 ;;
    --dir) dir=$2; shift 2 ;;
    *) echo "soak: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -n "$dir" ] || { dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT; }
rm -rf "$dir/whole" "$dir/killed"
keep=2
# The soak's training run, resuming from the checkpoint directory after it.
flags=(--data "$dir/text.bin" --steps "$steps" --batch 4 --seq 32 --checkpoint-every 1
       --keep $keep --resume --peak-tflops 1 --checkpoint-dir)
"$train" prepare /usr/share/common-licenses/GPL-3 "$dir/text.bin" >/dev/null
"$train" "${flags[@]}" "$dir/whole" >"$dir/whole.log"
final=$(printf 'step-%08d.safetensors' "$steps")
[ -f "$dir/whole/$final" ] || { echo "soak: the uninterrupted run left no $final" >&2; exit 1; }

RANDOM=${SOAK_SEED:-20261127}
for ((k = 1; k <= kills; k++)); do
  "$train" "${flags[@]}" "$dir/killed" >>"$dir/killed.log" 2>&1 &
  pid=$! # the training process itself, not a subshell
  # Anywhere from start-up (compiling the step) to a few dozen steps in.
  sleep "$((1 + RANDOM % 3)).$((RANDOM % 1000))"
  kill -9 "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  shopt -s nullglob
  files=("$dir"/killed/step-*.safetensors)
  shopt -u nullglob
  if [ ${#files[@]} -gt 0 ]; then
    "$train" verify "${files[@]}" >/dev/null ||
      { echo "soak: after kill $k a checkpoint does not read:" >&2; "$train" verify "${files[@]}" >&2; exit 1; }
  fi
  # At most the kept ones, and at most one temporary file of a killed write.
  [ ${#files[@]} -le $keep ] || { echo "soak: after kill $k, ${#files[@]} checkpoints (keep $keep)" >&2; exit 1; }
  last=$(ls "$dir/killed" | grep -o 'step-[0-9]*' | sort | tail -1 || true)
  echo "kill $k: newest ${last:-none}"
done
"$train" "${flags[@]}" "$dir/killed" >>"$dir/killed.log" 2>&1
if cmp "$dir/whole/$final" "$dir/killed/$final"; then
  echo "soak: $kills kills, resumed each time: the final checkpoint equals the uninterrupted run's byte for byte"
else
  echo "soak: the final checkpoints differ" >&2
  exit 1
fi

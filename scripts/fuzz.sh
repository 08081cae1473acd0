#!/usr/bin/env bash
# Runs one of Cotangent's libFuzzer harnesses (or all, one after another)
# for as long as asked, from the reliability build (build-sanitize/: clang,
# ASan + UBSan, libFuzzer; built first unless --build-dir names one).
#
#   scripts/fuzz.sh [--build-dir DIR] [--smoke] ir-pipeline|valid-programs|npy|token-file|safetensors|all [SECONDS]
#   scripts/fuzz.sh smoke [SECONDS]   builds only the harnesses, runs each
#                                     SECONDS (default 20): what CI runs
#
# The corpus grows in DIR/fuzz/NAME (seeded from fuzz/corpus/NAME, which
# stays small); --smoke (the smoke runs) starts from the checked-in seeds
# alone in DIR/fuzz/smoke/NAME, so it stays short after long runs grew the
# corpus (libFuzzer runs every corpus input before it looks at the clock); a crash, hang (60 s per input) or out-of-memory input is
# written to fuzz/regressions/NAME/, where every build's ctest replays it
# from then on (fuzz-replay-NAME): fix it, keep the file, commit both.
# Prints libFuzzer's final statistics (executions, coverage) and exits
# non-zero on a finding.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build=""
if [ "${1:-}" = "--build-dir" ]; then
  build="$2"
  shift 2
fi
smoke=""
if [ "${1:-}" = "--smoke" ]; then
  smoke=1
  shift
fi
name="${1:?usage: scripts/fuzz.sh [--build-dir DIR] ir-pipeline|valid-programs|npy|token-file|safetensors|all|smoke [SECONDS]}"
seconds="${2:-60}"
fuzzers=(ir-pipeline valid-programs npy token-file safetensors)
if [ "$name" = smoke ]; then
  seconds="${2:-20}"
  "$root/scripts/build.sh" --sanitize "${fuzzers[@]/#/fuzz-}"
  for n in "${fuzzers[@]}"; do
    "$0" --build-dir "$root/build-sanitize" --smoke "$n" "$seconds"
  done
  exit 0
fi
case "$name" in
  ir-pipeline|valid-programs|npy|token-file|safetensors|all) ;;
  *) echo "scripts/fuzz.sh: unknown fuzzer '$name' (ir-pipeline, valid-programs, npy, token-file, safetensors, all or smoke)" >&2
     exit 2 ;;
esac
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "scripts/fuzz.sh: SECONDS must be a number, not '$seconds'" >&2; exit 2; }
if [ -z "$build" ]; then
  "$root/scripts/build.sh" --sanitize
  build="$root/build-sanitize"
fi
if [ "$name" = all ]; then
  for n in "${fuzzers[@]}"; do
    "$0" --build-dir "$build" "$n" "$seconds"
  done
  exit 0
fi

# Sanitizer reports end the run with a stack; LeakSanitizer stays on. The
# huge-shape inputs are refused before allocating, so malloc may not fail
# quietly: an allocation that large is a finding.
export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:allow_user_poisoning=0:detect_stack_use_after_return=0}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"

work="$build/fuzz/$name"
if [ -n "$smoke" ]; then
  work="$build/fuzz/smoke/$name"
  rm -rf "$work"
fi
kept="$root/fuzz/regressions/$name"
mkdir -p "$work" "$kept"
# One log per run: a smoke run beside a long one must not write over its log.
log="$(mktemp --suffix=.log "$build/fuzz/$name.XXXXXX")"
echo "fuzz-$name: $seconds s, corpus $work, log $log, findings go to $kept/" >&2
status=0
"$build/bin/fuzz-$name" -max_total_time="$seconds" -timeout=60 -rss_limit_mb=4096 \
  -max_len=4096 -report_slow_units=120 -print_final_stats=1 -artifact_prefix="$kept/" \
  "$work" "$root/fuzz/corpus/$name" "$kept" >"$log" 2>&1 || status=$?
grep -aE "^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)|^#[0-9]+ *DONE" "$log" >&2 || true
grep -aE "cov: [0-9]+" "$log" | tail -1 >&2 || true
if [ "$status" -ne 0 ]; then
  echo "fuzz-$name: FINDING (exit $status); the log is $log, the input in $kept/" >&2
  grep -aE "ERROR|invariant violated|SUMMARY" "$log" | head -5 >&2 || true
fi
exit "$status"

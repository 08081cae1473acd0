#!/usr/bin/env bash
# The README's test command: set up, build, and run every test under ctest
# (the lit suite and the Catch2 suite), then each fuzzer's smoke run.
# Arguments go to ctest.
#
# --sanitize (first): the same suite from the reliability build instead
# (build-sanitize/: clang 22, ASan + UBSan, libFuzzer), each fuzzer's
# smoke run included (label `fuzz`). docs/reliability.md says what it
# checks and what test/sanitizers/ suppresses.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ "${1:-}" = "--sanitize" ]; then
  shift
  "$root/scripts/build.sh" --sanitize
  # LeakSanitizer on; a sanitizer report fails the test that made it.
  # allocator_may_return_null: the out-of-memory tests ask for more than
  # exists and expect the runtime's error, not ASan's.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-abort_on_error=1:allow_user_poisoning=0:allocator_may_return_null=1:detect_stack_use_after_return=0}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
  export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$root/test/sanitizers/lsan.supp:print_suppressions=0}"
  export ASAN_SYMBOLIZER_PATH="${ASAN_SYMBOLIZER_PATH:-/usr/lib/llvm-22/bin/llvm-symbolizer}"
  cd "$root/build-sanitize"
  exec ctest --output-on-failure -j"$(nproc)" "$@"
fi
"$root/scripts/build.sh"
(cd "$root/build" && ctest --output-on-failure -j"$(nproc)" "$@")
# Every fuzzer for a short while on every run (issue 19): the harnesses
# need clang's libFuzzer, so they come from build-sanitize/ (only they and
# the libraries they link are built there).
"$root/scripts/fuzz.sh" smoke "${COTANGENT_FUZZ_SMOKE_SECONDS:-20}"

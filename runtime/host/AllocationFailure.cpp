//===- AllocationFailure.cpp - compiled code that runs out of memory ------===//

#include "runtime/host/AllocationFailure.h"

#include <csetjmp>
#include <cstdio>
#include <cstdlib>

namespace cotangent::host {

namespace {
thread_local std::jmp_buf *active = nullptr;
thread_local uint64_t failedBytes = 0;
} // namespace

std::optional<uint64_t> runCatchingAllocationFailure(void (*fn)(void *), void *context) {
  std::jmp_buf here;
  std::jmp_buf *outer = active;
  active = &here;
  if (setjmp(here) != 0) {
    active = outer;
    return failedBytes;
  }
  fn(context);
  active = outer;
  return std::nullopt;
}

void allocationFailed(uint64_t bytes) {
  if (active) {
    failedBytes = bytes;
    std::longjmp(*active, 1);
  }
  std::fprintf(stderr, "cotangent: out of memory: compiled code cannot allocate %llu bytes\n",
               static_cast<unsigned long long>(bytes));
  std::fflush(nullptr);
  std::_Exit(1);
}

} // namespace cotangent::host

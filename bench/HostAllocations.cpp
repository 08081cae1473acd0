//===- HostAllocations.cpp - the global operator new, counted -------------===//
//
// Linked into cotangent-bench only: every replaceable allocation function
// forwards to malloc / aligned_alloc after one relaxed increment (two on a
// thread running compiled code).
//
//===----------------------------------------------------------------------===//

#include "bench/HostAllocations.h"
#include "runtime/host/CompiledModule.h"

#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <new>

namespace {
std::atomic<uint64_t> count{0}, inCompiled{0};

void *allocate(std::size_t bytes, std::size_t alignment) {
  count.fetch_add(1, std::memory_order_relaxed);
  if (cotangent::host::runningCompiledCode())
    inCompiled.fetch_add(1, std::memory_order_relaxed);
  if (bytes == 0)
    bytes = 1;
  void *p = alignment > alignof(std::max_align_t)
                ? std::aligned_alloc(alignment, (bytes + alignment - 1) / alignment * alignment)
                : std::malloc(bytes);
  if (!p)
    throw std::bad_alloc();
  return p;
}
} // namespace

uint64_t cotangent::bench::hostAllocations() { return count.load(std::memory_order_relaxed); }

uint64_t cotangent::bench::compiledCodeAllocations() {
  return inCompiled.load(std::memory_order_relaxed);
}

void *operator new(std::size_t bytes) { return allocate(bytes, 0); }
void *operator new[](std::size_t bytes) { return allocate(bytes, 0); }
void *operator new(std::size_t bytes, std::align_val_t a) {
  return allocate(bytes, static_cast<std::size_t>(a));
}
void *operator new[](std::size_t bytes, std::align_val_t a) {
  return allocate(bytes, static_cast<std::size_t>(a));
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t, std::align_val_t) noexcept { std::free(p); }

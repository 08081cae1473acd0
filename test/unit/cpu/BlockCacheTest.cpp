// runtime/cpu/BlockCache: freed blocks come back for the next allocation of
// their size class, 64-byte aligned, within the capacity; and the CPU
// runtime's hooks still count the bytes compiled code asked for.
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/MemoryHooks.h"

#include <catch2/catch.hpp>

#include <cstdint>

using cotangent::cpu::BlockCache;

TEST_CASE("size classes: 64-byte lines below a page, whole pages above", "[cpu][cache]") {
  CHECK(BlockCache::sizeClass(0) == 64);
  CHECK(BlockCache::sizeClass(1) == 64);
  CHECK(BlockCache::sizeClass(65) == 128);
  CHECK(BlockCache::sizeClass(4095) == 4096);
  CHECK(BlockCache::sizeClass(4097) == 8192);
  CHECK(BlockCache::sizeClass(1 << 20) == 1 << 20);
}

TEST_CASE("a freed block is handed out again for its class, and only for it", "[cpu][cache]") {
  BlockCache cache(1 << 20);
  void *a = cache.allocate(5000);
  REQUIRE(a);
  CHECK(reinterpret_cast<uintptr_t>(a) % 64 == 0);
  cache.deallocate(a, 5000);
  CHECK(cache.cachedBytes() == 8192);
  void *other = cache.allocate(100); // another class: a new block
  CHECK(other != a);
  void *again = cache.allocate(6000); // same class (8 KiB)
  CHECK(again == a);
  CHECK(cache.cachedBytes() == 0);
  cache.deallocate(again, 6000);
  cache.deallocate(other, 100);
  CHECK(cache.cachedBytes() == 8192 + 128);
  cache.release();
  CHECK(cache.cachedBytes() == 0);
}

TEST_CASE("blocks beyond the capacity are freed, unless that many were live at once",
          "[cpu][cache]") {
  BlockCache cache(8192);
  void *a = cache.allocate(8192);
  cache.deallocate(a, 8192);
  void *x = cache.allocate(4096); // at most 8192 live at once so far
  cache.deallocate(x, 4096);      // would pass the capacity: freed
  CHECK(cache.cachedBytes() == 8192);
  // A step holding 16 KiB at its peak keeps its blocks for the next run.
  void *b = cache.allocate(8192), *c = cache.allocate(8192);
  cache.deallocate(b, 8192);
  cache.deallocate(c, 8192);
  CHECK(cache.cachedBytes() == 16384);
  void *d = cache.allocate(8192), *e = cache.allocate(8192);
  CHECK(cache.cachedBytes() == 0); // both handed out again
  cache.deallocate(d, 8192);
  cache.deallocate(e, 8192);
  BlockCache none(0);
  void *f = none.allocate(64);
  none.deallocate(f, 64);
  CHECK(none.cachedBytes() == 0);
}

TEST_CASE("the hooks count requested bytes; freed blocks return to the cache", "[cpu][cache]") {
  auto &counter = cotangent::cpu::allocationCounter();
  int64_t live = counter.live();
  size_t cached = cotangent::cpu::blockCache().cachedBytes();
  void *p = _mlir_memref_to_llvm_alloc(10000);
  CHECK(counter.live() == live + 10000);
  _mlir_memref_to_llvm_free(p);
  CHECK(counter.live() == live);
  CHECK(cotangent::cpu::blockCache().cachedBytes() >= cached + 12288);
  void *q = _mlir_memref_to_llvm_alloc(12000); // same 12 KiB class
  CHECK(q == p);
  _mlir_memref_to_llvm_free(q);
}

//===- BlockCache.h - freed blocks kept for the next allocation --*- C++ -*-===//
//
// A training step allocates the same buffers, of the same sizes, every time it
// runs. Handing each one back to malloc costs a munmap for every large block
// and a page fault for every page on the next run (the kernel zeroes each
// fresh page): a third of an 8-layer MLP step's time on the CPU. The CPU
// runtime therefore keeps freed blocks by size class and hands them out
// again, as XLA's and PyTorch's caching allocators do. What is counted (live
// and peak bytes, runtime/host/ByteCounter.h) is unchanged: the bytes
// compiled code asked for, not the cache.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CPU_BLOCKCACHE_H
#define COTANGENT_RUNTIME_CPU_BLOCKCACHE_H

#include <cstddef>
#include <mutex>
#include <unordered_map>
#include <vector>

namespace cotangent::cpu {

/// Freed 64-byte-aligned blocks, reused by size class; thread-safe.
class BlockCache {
public:
  /// Keeps at most `capacity` bytes of freed blocks, or as many as were
  /// ever handed out at once where that is more (a step whose peak exceeds
  /// the capacity then reuses its blocks too); 0 keeps none.
  explicit BlockCache(size_t capacity) : capacity_(capacity) {}
  ~BlockCache() { release(); }
  BlockCache(const BlockCache &) = delete;
  BlockCache &operator=(const BlockCache &) = delete;

  /// The bytes a block for `bytes` really has: 64-byte multiples below 4 KiB
  /// (vector loads), whole pages above, so that blocks of nearly equal sizes
  /// share a class.
  static size_t sizeClass(size_t bytes);

  /// A block of at least `bytes`, 64-byte aligned: a cached one of the same
  /// class, else a new one. Null when memory is exhausted even after the
  /// cache was emptied.
  void *allocate(size_t bytes);
  /// Takes back a block allocate(bytes) returned: cached while the capacity
  /// allows, freed otherwise.
  void deallocate(void *block, size_t bytes);
  /// Frees every cached block.
  void release();

  /// Bytes of the blocks kept now.
  size_t cachedBytes() const;

private:
  size_t capacity_;
  size_t cached_ = 0;
  size_t live_ = 0;      ///< handed out and not taken back
  size_t highWater_ = 0; ///< the most ever handed out at once
  mutable std::mutex mutex_;
  std::unordered_map<size_t, std::vector<void *>> free_;
};

/// The CPU runtime's cache. Its capacity is COTANGENT_CPU_CACHE_BYTES when
/// set (0 turns caching off), else 1 GiB; it grows to the largest peak of
/// compiled code's blocks seen (as XLA's and PyTorch's allocators hold a
/// step's memory).
BlockCache &blockCache();

} // namespace cotangent::cpu

#endif // COTANGENT_RUNTIME_CPU_BLOCKCACHE_H

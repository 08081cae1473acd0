//===- ByteCounter.h - live and peak bytes of allocated blocks --*- C++ -*-===//
//
// What every allocation hook of the runtimes counts: the CPU's
// `_mlir_memref_to_llvm_alloc`, the CUDA runtime's managed device blocks and
// its pinned host blocks. Frees are given only an address, so each block's
// size is remembered until it is freed; that also tells a runtime which
// blocks are its own to free (sizeOf >= 0) and which are the caller's.
// The sizes' nodes come from a pool that keeps freed ones: a step that
// allocates what the last one did allocates nothing on the host to count it.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_BYTECOUNTER_H
#define COTANGENT_RUNTIME_HOST_BYTECOUNTER_H

#include <algorithm>
#include <cstdint>
#include <memory_resource>
#include <mutex>
#include <unordered_map>

namespace cotangent::host {

/// Live and peak bytes of the blocks one allocator handed out; thread-safe.
class ByteCounter {
public:
  /// Counts `bytes` at `block` from now until `freed(block)`.
  void allocated(void *block, int64_t bytes) {
    std::lock_guard<std::mutex> lock(mutex_);
    sizes_[block] = bytes;
    live_ += bytes;
    peak_ = std::max(peak_, live_);
  }
  /// Forgets `block`; false if it was not counted.
  bool freed(void *block) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(block);
    if (it == sizes_.end())
      return false;
    live_ -= it->second;
    sizes_.erase(it);
    return true;
  }
  /// The size `block` was allocated with, or -1.
  int64_t sizeOf(void *block) const {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = sizes_.find(block);
    return it == sizes_.end() ? -1 : it->second;
  }
  /// Bytes allocated and not freed.
  int64_t live() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_;
  }
  /// The maximum of live() since the last resetPeak().
  int64_t peak() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return peak_;
  }
  /// Starts a new measurement: the peak becomes what is live now.
  void resetPeak() {
    std::lock_guard<std::mutex> lock(mutex_);
    peak_ = live_;
  }

private:
  mutable std::mutex mutex_;
  std::pmr::unsynchronized_pool_resource pool_; // guarded by mutex_, as sizes_
  std::pmr::unordered_map<void *, int64_t> sizes_{&pool_};
  int64_t live_ = 0, peak_ = 0;
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_BYTECOUNTER_H

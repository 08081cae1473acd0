//===- ByteCounter.h - live and peak bytes of allocated blocks --*- C++ -*-===//
//
// What the CPU and CUDA allocation hooks count. Frees are given only an
// address, so each block's size is remembered until it is freed.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_BYTECOUNTER_H
#define COTANGENT_RUNTIME_BYTECOUNTER_H

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <unordered_map>

namespace cotangent::runtime {

class ByteCounter {
public:
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
  int64_t live() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return live_;
  }
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
  std::unordered_map<void *, int64_t> sizes_;
  int64_t live_ = 0, peak_ = 0;
};

} // namespace cotangent::runtime

#endif // COTANGENT_RUNTIME_BYTECOUNTER_H

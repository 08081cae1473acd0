//===- BlockCache.cpp - freed blocks kept for the next allocation ---------===//

#include "runtime/cpu/BlockCache.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

using namespace cotangent::cpu;

size_t BlockCache::sizeClass(size_t bytes) {
  constexpr size_t line = 64, page = 4096;
  if (bytes < page)
    return bytes <= line ? line : (bytes + line - 1) / line * line;
  return (bytes + page - 1) / page * page;
}

void *BlockCache::allocate(size_t bytes) {
  size_t size = sizeClass(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live_ += size;
    highWater_ = std::max(highWater_, live_);
    auto it = free_.find(size);
    if (it != free_.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      cached_ -= size;
      return block;
    }
  }
  if (void *block = std::aligned_alloc(64, size))
    return block;
  // Out of memory: what the cache holds may be what is missing.
  release();
  if (void *block = std::aligned_alloc(64, size))
    return block;
  std::lock_guard<std::mutex> lock(mutex_);
  live_ -= size;
  return nullptr;
}

void BlockCache::deallocate(void *block, size_t bytes) {
  size_t size = sizeClass(bytes);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    live_ -= size;
    // A step that holds more than the capacity at its peak frees and
    // allocates the same blocks again on every run: keep up to that peak.
    size_t keep = capacity_ == 0 ? 0 : std::max(capacity_, highWater_);
    if (cached_ + size <= keep) {
      free_[size].push_back(block);
      cached_ += size;
      return;
    }
  }
  std::free(block);
}

void BlockCache::release() {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto &[size, blocks] : free_)
    for (void *block : blocks)
      std::free(block);
  free_.clear();
  cached_ = 0;
}

size_t BlockCache::cachedBytes() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return cached_;
}

BlockCache &cotangent::cpu::blockCache() {
  // Never destroyed: compiled code held in other statics may free blocks
  // while the process exits.
  static BlockCache &cache = *new BlockCache([] {
    size_t capacity = size_t(1) << 30;
    if (const char *env = std::getenv("COTANGENT_CPU_CACHE_BYTES")) {
      char *end = nullptr;
      unsigned long long value = std::strtoull(env, &end, 10);
      if (end != env && *end == '\0' && env[0] != '-')
        capacity = static_cast<size_t>(value);
      else
        std::fprintf(stderr,
                     "cotangent: COTANGENT_CPU_CACHE_BYTES='%s' is not a byte count; "
                     "caching up to 1 GiB of freed blocks\n",
                     env);
    }
    return capacity;
  }());
  return cache;
}

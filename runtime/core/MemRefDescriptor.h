//===- MemRefDescriptor.h - tensors as compiled code passes them -*- C++ -*-===//
//
// Compiled functions take and return ranked strided memref descriptors
// (allocated and aligned pointers, offset, sizes, strides: 3 + 2 * rank
// 64-bit words) through their packed entries. A MemRefDescriptor holds one
// descriptor's words: built over a buffer the runtime provides (an
// argument), or copied out of a call's results struct. The one descriptor of
// every runtime (the JIT's, cotangent-step's): free of MLIR and LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_CORE_MEMREFDESCRIPTOR_H
#define COTANGENT_RUNTIME_CORE_MEMREFDESCRIPTOR_H

#include <cstdint>
#include <span>
#include <vector>

namespace cotangent::core {

class MemRefDescriptor {
public:
  /// Words a descriptor of rank `rank` takes.
  static constexpr int64_t numWords(int64_t rank) { return 3 + 2 * rank; }

  /// A row-major descriptor of `shape` over the buffer at `data`.
  static MemRefDescriptor contiguous(void *data, std::span<const int64_t> shape);
  /// A copy of the rank-`rank` descriptor whose words start at `words`.
  MemRefDescriptor(const int64_t *words, int64_t rank);

  int64_t rank() const { return rank_; }
  /// The block the buffer was allocated as (what its free takes).
  void *allocated() const { return reinterpret_cast<void *>(data()[0]); }
  /// Where element 0 is, less the offset.
  void *aligned() const { return reinterpret_cast<void *>(data()[1]); }
  int64_t offset() const { return data()[2]; }
  int64_t size(int64_t d) const { return data()[3 + d]; }
  int64_t stride(int64_t d) const { return data()[3 + rank_ + d]; }
  int64_t numElements() const;
  /// Element 0 of the view, for elements of `width` bytes.
  char *first(int64_t width) const {
    return static_cast<char *>(aligned()) + offset() * width;
  }

  /// What the packed C interface takes for this argument: the words' address.
  void *address() { return data(); }

  /// Whether the view's elements are one row-major run from element 0 (any
  /// stride along a size-1 dimension).
  bool isContiguous() const;
  /// Whether it views its whole block row-major from the block's start.
  bool isContiguousFromBlockStart() const {
    return aligned() == allocated() && offset() == 0 && isContiguous();
  }

  /// Bytes from allocated() through the view's last element, for elements of
  /// `width` bytes (what a copy of the block must hold to read the view).
  int64_t extentBytes(int64_t width) const;

  /// Copies the viewed elements of `width` bytes, row-major, to `out`; the
  /// buffer must be readable from the host.
  void copyElements(char *out, int64_t width) const;

  /// The same view of a copy of its block that starts at `block` (a device
  /// buffer copied to the host is read through this).
  MemRefDescriptor rebased(void *block) const;

private:
  MemRefDescriptor(int64_t rank);
  /// Up to rank 4 inline: a call's descriptors allocate nothing.
  static constexpr int64_t kInlineRank = 4;
  const int64_t *data() const { return rank_ <= kInlineRank ? inlineWords : heapWords.data(); }
  int64_t *data() { return rank_ <= kInlineRank ? inlineWords : heapWords.data(); }

  int64_t rank_;
  int64_t inlineWords[3 + 2 * kInlineRank] = {};
  std::vector<int64_t> heapWords;
};

} // namespace cotangent::core

#endif // COTANGENT_RUNTIME_CORE_MEMREFDESCRIPTOR_H

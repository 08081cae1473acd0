//===- MemRefDescriptor.h - tensors as compiled code passes them -*- C++ -*-===//
//
// Compiled functions take and return ranked strided memref descriptors
// (allocated and aligned pointers, offset, sizes, strides: 3 + 2 * rank
// 64-bit words) through their `_mlir_ciface_` wrappers. A MemRefDescriptor
// holds one descriptor's words: built over a buffer the runtime provides
// (an argument), or copied out of a call's results struct, and read back
// into a host tensor.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_HOST_MEMREFDESCRIPTOR_H
#define COTANGENT_RUNTIME_HOST_MEMREFDESCRIPTOR_H

#include "runtime/interpreter/Tensor.h"

#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace cotangent::host {

using interp::Tensor;

/// Bytes of a dense row-major buffer of `type` (i1: one byte an element).
int64_t bufferBytes(mlir::RankedTensorType type);

class MemRefDescriptor {
public:
  /// Words a descriptor of rank `rank` takes.
  static int64_t numWords(int64_t rank) { return 3 + 2 * rank; }

  /// A row-major descriptor of `shape` over the buffer at `data`.
  static MemRefDescriptor contiguous(void *data, llvm::ArrayRef<int64_t> shape);
  /// A copy of the rank-`rank` descriptor whose words start at `words`.
  MemRefDescriptor(const int64_t *words, int64_t rank);

  /// The block the buffer was allocated as (what its free takes).
  void *allocated() const { return reinterpret_cast<void *>(words[0]); }
  /// Where element 0 is, less the offset.
  void *aligned() const { return reinterpret_cast<void *>(words[1]); }
  int64_t offset() const { return words[2]; }
  llvm::ArrayRef<int64_t> strides() const { return llvm::ArrayRef(words).slice(3 + rank, rank); }

  /// What the packed C interface takes for this argument: the words' address.
  void *address() { return words.data(); }

  /// Whether the view's elements are one row-major run from element 0.
  bool isContiguous(mlir::RankedTensorType type) const;

  /// Bytes from allocated() through the view's last element (what a copy
  /// of the block must hold to read the view from it).
  int64_t extentBytes(mlir::RankedTensorType type) const;

  /// A host tensor of `type` holding the elements the descriptor views; the
  /// buffer must be readable from the host.
  Tensor read(mlir::RankedTensorType type) const;

  /// The same view of a copy of its block that starts at `block` (a device
  /// buffer copied to the host is read through this).
  MemRefDescriptor rebased(void *block) const {
    MemRefDescriptor copy = *this;
    int64_t shift = reinterpret_cast<int64_t>(block) - words[0];
    copy.words[0] += shift;
    copy.words[1] += shift;
    return copy;
  }

private:
  MemRefDescriptor(llvm::SmallVector<int64_t, 11> words, int64_t rank)
      : words(std::move(words)), rank(rank) {}

  /// Inline up to rank 4: a call's descriptors allocate nothing.
  llvm::SmallVector<int64_t, 11> words;
  int64_t rank;
};

} // namespace cotangent::host

#endif // COTANGENT_RUNTIME_HOST_MEMREFDESCRIPTOR_H

//===- MemRefDescriptor.cpp - building and reading memref descriptors -----===//
//
// Arguments get row-major descriptors over one buffer (offset 0); results
// may be any strided view the lowering chose (a transpose, a slice of a
// larger buffer), so reading one walks its strides unless they are the
// row-major ones, where one memcpy does.
//
//===----------------------------------------------------------------------===//

#include "runtime/host/MemRefDescriptor.h"

#include <algorithm>
#include <cstring>

namespace cotangent::host {

int64_t bufferBytes(mlir::RankedTensorType type) {
  return type.getNumElements() *
         interp::getElementByteWidth(*interp::getElementKind(type.getElementType()));
}

MemRefDescriptor MemRefDescriptor::contiguous(void *data, llvm::ArrayRef<int64_t> shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  llvm::SmallVector<int64_t, 11> words(numWords(rank));
  words[0] = words[1] = reinterpret_cast<int64_t>(data);
  words[2] = 0;
  for (int64_t i = rank - 1, stride = 1; i >= 0; --i) {
    words[3 + i] = shape[i];
    words[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return MemRefDescriptor(std::move(words), rank);
}

MemRefDescriptor::MemRefDescriptor(const int64_t *words, int64_t rank)
    : words(words, words + numWords(rank)), rank(rank) {}

bool MemRefDescriptor::isContiguous(mlir::RankedTensorType type) const {
  // Row-major strides (any stride along a size-1 dimension).
  llvm::ArrayRef<int64_t> steps = strides();
  for (int64_t i = rank - 1, expected = 1; i >= 0; --i) {
    if (type.getDimSize(i) != 1 && steps[i] != expected)
      return false;
    expected *= type.getDimSize(i);
  }
  return true;
}

int64_t MemRefDescriptor::extentBytes(mlir::RankedTensorType type) const {
  int64_t width = bufferBytes(type) / std::max<int64_t>(type.getNumElements(), 1);
  int64_t last = offset(); // the view's last element, with non-negative strides
  for (int64_t i = 0; i < rank; ++i) {
    if (type.getDimSize(i) == 0)
      return static_cast<char *>(aligned()) - static_cast<char *>(allocated());
    last += (type.getDimSize(i) - 1) * strides()[i];
  }
  return static_cast<char *>(aligned()) - static_cast<char *>(allocated()) + (last + 1) * width;
}

Tensor MemRefDescriptor::read(mlir::RankedTensorType type) const {
  Tensor t(type);
  int64_t width = interp::getElementByteWidth(t.getElementKind());
  const char *base = static_cast<const char *>(aligned()) + offset() * width;
  llvm::ArrayRef<int64_t> steps = strides();
  int64_t n = type.getNumElements();
  char *out = t.data();
  if (isContiguous(type)) {
    if (n > 0)
      std::memcpy(out, base, n * width);
    return t;
  }
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, element = 0;
    for (int64_t i = rank - 1; i >= 0; --i) {
      element += (rest % type.getDimSize(i)) * steps[i];
      rest /= type.getDimSize(i);
    }
    std::memcpy(out + flat * width, base + element * width, width);
  }
  return t;
}

} // namespace cotangent::host

//===- MemRefDescriptor.cpp - building and reading memref descriptors -----===//
//
// Arguments get row-major descriptors over one buffer (offset 0); results
// may be any strided view the lowering chose (a transpose, a slice of a
// larger buffer), so reading one walks its strides unless they are the
// row-major ones, where one memcpy does.
//
//===----------------------------------------------------------------------===//

#include "runtime/core/MemRefDescriptor.h"

#include <cstring>

namespace cotangent::core {

MemRefDescriptor::MemRefDescriptor(int64_t rank) : rank_(rank) {
  if (rank > kInlineRank)
    heapWords.assign(numWords(rank), 0);
}

MemRefDescriptor::MemRefDescriptor(const int64_t *words, int64_t rank) : MemRefDescriptor(rank) {
  std::memcpy(data(), words, numWords(rank) * sizeof(int64_t));
}

MemRefDescriptor MemRefDescriptor::contiguous(void *buffer, std::span<const int64_t> shape) {
  int64_t rank = static_cast<int64_t>(shape.size());
  MemRefDescriptor d(rank);
  int64_t *words = d.data();
  words[0] = words[1] = reinterpret_cast<int64_t>(buffer);
  words[2] = 0;
  for (int64_t i = rank - 1, stride = 1; i >= 0; --i) {
    words[3 + i] = shape[i];
    words[3 + rank + i] = stride;
    stride *= shape[i];
  }
  return d;
}

int64_t MemRefDescriptor::numElements() const {
  int64_t n = 1;
  for (int64_t i = 0; i < rank_; ++i)
    n *= size(i);
  return n;
}

bool MemRefDescriptor::isContiguous() const {
  for (int64_t i = rank_ - 1, expected = 1; i >= 0; --i) {
    if (size(i) != 1 && stride(i) != expected)
      return false;
    expected *= size(i);
  }
  return true;
}

int64_t MemRefDescriptor::extentBytes(int64_t width) const {
  int64_t prefix = static_cast<char *>(aligned()) - static_cast<char *>(allocated());
  int64_t last = offset(); // the view's last element, with non-negative strides
  for (int64_t i = 0; i < rank_; ++i) {
    if (size(i) == 0)
      return prefix;
    last += (size(i) - 1) * stride(i);
  }
  return prefix + (last + 1) * width;
}

void MemRefDescriptor::copyElements(char *out, int64_t width) const {
  const char *base = first(width);
  int64_t n = numElements();
  if (isContiguous()) {
    if (n > 0)
      std::memcpy(out, base, n * width);
    return;
  }
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rest = flat, element = 0;
    for (int64_t i = rank_ - 1; i >= 0; --i) {
      element += (rest % size(i)) * stride(i);
      rest /= size(i);
    }
    std::memcpy(out + flat * width, base + element * width, width);
  }
}

MemRefDescriptor MemRefDescriptor::rebased(void *block) const {
  MemRefDescriptor copy = *this;
  int64_t shift = reinterpret_cast<int64_t>(block) - data()[0];
  copy.data()[0] += shift;
  copy.data()[1] += shift;
  return copy;
}

} // namespace cotangent::core

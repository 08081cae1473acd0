//===- MemRefDescriptorTest.cpp - the runtime core's memref descriptor ----===//

#include "runtime/core/MemRefDescriptor.h"

#include <catch2/catch.hpp>

#include <numeric>

using cotangent::core::MemRefDescriptor;

TEST_CASE("a descriptor reads strided views and rebases onto a copy", "[core][descriptor]") {
  float data[6];
  std::iota(data, data + 6, 0.0f);
  // The transpose of a row-major 2 x 3: sizes [3, 2], strides [1, 3].
  int64_t words[] = {reinterpret_cast<int64_t>(data), reinterpret_cast<int64_t>(data), 0, 3, 2, 1, 3};
  MemRefDescriptor t(words, 2);
  CHECK_FALSE(t.isContiguous());
  CHECK(t.numElements() == 6);
  CHECK(t.extentBytes(4) == 24);
  float out[6];
  t.copyElements(reinterpret_cast<char *>(out), 4);
  CHECK(std::vector<float>(out, out + 6) == std::vector<float>{0, 3, 1, 4, 2, 5});

  float copy[6];
  std::iota(copy, copy + 6, 10.0f);
  MemRefDescriptor moved = t.rebased(copy);
  CHECK(moved.allocated() == copy);
  moved.copyElements(reinterpret_cast<char *>(out), 4);
  CHECK(out[1] == 13);

  MemRefDescriptor row = MemRefDescriptor::contiguous(data, std::vector<int64_t>{2, 3});
  CHECK(row.isContiguousFromBlockStart());
  CHECK(row.stride(0) == 3);
}

TEST_CASE("descriptors past the inline rank keep their words", "[core][descriptor]") {
  float x = 7;
  std::vector<int64_t> shape{1, 1, 1, 1, 1, 1};
  MemRefDescriptor d = MemRefDescriptor::contiguous(&x, shape);
  MemRefDescriptor copy = d; // heap words copied, not shared
  CHECK(copy.rank() == 6);
  CHECK(copy.size(5) == 1);
  CHECK(copy.allocated() == &x);
  CHECK(static_cast<int64_t *>(copy.address()) != static_cast<int64_t *>(d.address()));
  float out = 0;
  copy.copyElements(reinterpret_cast<char *>(&out), 4);
  CHECK(out == 7);
}

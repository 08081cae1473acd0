//===- OpsShape.cpp - Shape-manipulating jx ops on host tensors -----------===//
//
// Implements broadcast_in_dim, reshape, transpose, squeeze, expand_dims,
// concatenate, slice, dynamic_slice, dynamic_update_slice, pad and iota.
// Ops that keep the row-major order (reshape, squeeze, expand_dims) share
// their operand's buffer; the others walk the result's indices and map each
// to the operand element it copies.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Kernels.h"
#include "runtime/interpreter/Ops.h"

#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <cstring>

using namespace cotangent::interp;
using namespace cotangent::interp::detail;
using llvm::ArrayRef;
using llvm::SmallVector;

Tensor cotangent::interp::broadcastInDimOp(const Tensor &x, ArrayRef<int64_t> resultShape,
                                           ArrayRef<int64_t> dims) {
  Tensor result(withShape(x.getType(), resultShape));
  return gather(result, x, [&](ArrayRef<int64_t> index, ArrayRef<int64_t> xStrides) {
    int64_t src = 0;
    for (auto [i, d] : llvm::enumerate(dims))
      src += (x.getShape()[i] == 1 ? 0 : index[d]) * xStrides[i];
    return src;
  });
}

Tensor cotangent::interp::reshapeOp(const Tensor &x, ArrayRef<int64_t> resultShape) {
  return x.withType(withShape(x.getType(), resultShape));
}

Tensor cotangent::interp::transposeOp(const Tensor &x, ArrayRef<int64_t> perm) {
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(x.getShape()[p]);
  Tensor result(withShape(x.getType(), shape));
  return gather(result, x, [&](ArrayRef<int64_t> index, ArrayRef<int64_t> xStrides) {
    int64_t src = 0;
    for (auto [i, p] : llvm::enumerate(perm))
      src += index[i] * xStrides[p];
    return src;
  });
}

Tensor cotangent::interp::squeezeOp(const Tensor &x, ArrayRef<int64_t> dims) {
  SmallVector<int64_t> shape;
  for (auto [d, size] : llvm::enumerate(x.getShape()))
    if (!llvm::is_contained(dims, static_cast<int64_t>(d)))
      shape.push_back(size);
  return x.withType(withShape(x.getType(), shape));
}

Tensor cotangent::interp::expandDimsOp(const Tensor &x, ArrayRef<int64_t> dims) {
  int64_t rank = x.getRank() + static_cast<int64_t>(dims.size());
  SmallVector<int64_t> shape;
  auto next = x.getShape().begin();
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(llvm::is_contained(dims, d) ? 1 : *next++);
  return x.withType(withShape(x.getType(), shape));
}

Tensor cotangent::interp::concatenateOp(ArrayRef<Tensor> inputs, int64_t dim) {
  SmallVector<int64_t> shape(inputs.front().getShape());
  shape[dim] = 0;
  for (const Tensor &t : inputs)
    shape[dim] += t.getShape()[dim];
  Tensor result(withShape(inputs.front().getType(), shape));
  // Row-major: each input contributes one contiguous chunk per outer index.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= shape[d];
  int64_t width = getElementByteWidth(result.getElementKind());
  char *dst = result.data();
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor &t : inputs) {
      int64_t chunk = outer == 0 ? 0 : t.getNumElements() / outer * width;
      std::memcpy(dst, t.data() + o * chunk, chunk);
      dst += chunk;
    }
  }
  return result;
}

Tensor cotangent::interp::sliceOp(const Tensor &x, ArrayRef<int64_t> start,
                                  ArrayRef<int64_t> limit, ArrayRef<int64_t> strides) {
  SmallVector<int64_t> shape;
  for (auto [s, l, st] : llvm::zip_equal(start, limit, strides))
    shape.push_back(l <= s ? 0 : (l - s + st - 1) / st);
  Tensor result(withShape(x.getType(), shape));
  return gather(result, x, [&](ArrayRef<int64_t> index, ArrayRef<int64_t> xStrides) {
    int64_t src = 0;
    for (size_t d = 0; d < index.size(); ++d)
      src += (start[d] + index[d] * strides[d]) * xStrides[d];
    return src;
  });
}

/// `starts` clamped so that a `sizes` window stays inside `shape`.
static SmallVector<int64_t> clampStarts(ArrayRef<int64_t> starts, ArrayRef<int64_t> shape,
                                        ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> clamped;
  for (auto [s, dim, size] : llvm::zip_equal(starts, shape, sizes))
    clamped.push_back(std::clamp<int64_t>(s, 0, std::max<int64_t>(dim - size, 0)));
  return clamped;
}

Tensor cotangent::interp::dynamicSliceOp(const Tensor &x, ArrayRef<int64_t> starts,
                                         ArrayRef<int64_t> sizes) {
  SmallVector<int64_t> begin = clampStarts(starts, x.getShape(), sizes);
  SmallVector<int64_t> limit, ones(sizes.size(), 1);
  for (auto [b, s] : llvm::zip_equal(begin, sizes))
    limit.push_back(b + s);
  return sliceOp(x, begin, limit, ones);
}

Tensor cotangent::interp::dynamicUpdateSliceOp(const Tensor &x, const Tensor &update,
                                               ArrayRef<int64_t> starts) {
  Tensor result = x;
  if (update.getNumElements() == 0)
    return result;
  SmallVector<int64_t> begin = clampStarts(starts, x.getShape(), update.getShape());
  SmallVector<int64_t> xStrides = getStrides(x.getShape());
  SmallVector<int64_t> index(update.getRank(), 0);
  int64_t flat = 0;
  do {
    int64_t dst = 0;
    for (size_t d = 0; d < index.size(); ++d)
      dst += (begin[d] + index[d]) * xStrides[d];
    result.copyElement(dst, update, flat++);
  } while (nextIndex(index, update.getShape()));
  return result;
}

Tensor cotangent::interp::padOp(const Tensor &x, const Tensor &paddingValue,
                                ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                                ArrayRef<int64_t> interior) {
  SmallVector<int64_t> shape;
  for (auto [n, lo, hi, in] : llvm::zip_equal(x.getShape(), low, high, interior))
    shape.push_back(std::max<int64_t>(lo + hi + n + std::max<int64_t>(n - 1, 0) * in, 0));
  Tensor result(withShape(x.getType(), shape));
  for (int64_t i = 0, e = result.getNumElements(); i < e; ++i)
    result.copyElement(i, paddingValue, 0);
  if (x.getNumElements() == 0 || result.getNumElements() == 0)
    return result;
  // Operand element i lands at low + i * (interior + 1) per dimension, if
  // that position is inside the result (negative padding crops).
  SmallVector<int64_t> rStrides = getStrides(shape);
  SmallVector<int64_t> index(x.getRank(), 0);
  int64_t flat = 0;
  do {
    int64_t dst = 0;
    bool inside = true;
    for (size_t d = 0; d < index.size() && inside; ++d) {
      int64_t pos = low[d] + index[d] * (interior[d] + 1);
      inside = pos >= 0 && pos < shape[d];
      dst += pos * rStrides[d];
    }
    if (inside)
      result.copyElement(dst, x, flat);
    ++flat;
  } while (nextIndex(index, x.getShape()));
  return result;
}

Tensor cotangent::interp::iotaOp(mlir::RankedTensorType type, int64_t dim) {
  Tensor result(type);
  if (result.getNumElements() == 0)
    return result;
  SmallVector<int64_t> index(type.getRank(), 0);
  int64_t flat = 0;
  do
    result.setInt(flat++, index[dim]);
  while (nextIndex(index, type.getShape()));
  return result;
}

namespace {
/// indices[k] clamped into [0, n - 1].
int64_t clampedIndex(const Tensor &indices, int64_t k, int64_t n) {
  return std::clamp<int64_t>(indices.getInt(k), 0, std::max<int64_t>(n - 1, 0));
}
} // namespace

Tensor cotangent::interp::takeOp(const Tensor &x, const Tensor &indices, int64_t axis) {
  SmallVector<int64_t> shape(x.getShape());
  int64_t count = indices.getNumElements();
  shape[axis] = count;
  Tensor result(x.getType().clone(shape));
  auto [outer, n, inner] = splitAround(x.getShape(), axis);
  if (n == 0)
    return result; // nothing to take from: zeros, as the compiled code gives
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t k = 0; k < count; ++k) {
      int64_t row = clampedIndex(indices, k, n);
      for (int64_t in = 0; in < inner; ++in)
        result.copyElement((o * count + k) * inner + in, x, (o * n + row) * inner + in);
    }
  return result;
}

Tensor cotangent::interp::scatterAddOp(const Tensor &x, const Tensor &indices,
                                       const Tensor &updates, int64_t axis) {
  Tensor result = x.clone();
  int64_t count = indices.getNumElements();
  auto [outer, n, inner] = splitAround(x.getShape(), axis);
  if (n == 0)
    return result;
  dispatchCompute(x.getElementKind(), [&]<typename T>() {
    for (int64_t k = 0; k < count; ++k) {
      int64_t row = clampedIndex(indices, k, n);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t in = 0; in < inner; ++in) {
          int64_t dst = (o * n + row) * inner + in;
          write<T>(result, dst,
                   wrapAdd(read<T>(result, dst), read<T>(updates, (o * count + k) * inner + in)));
        }
    }
  });
  return result;
}

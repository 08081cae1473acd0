//===- Kernels.h - Helpers shared by the op implementations -----*- C++ -*-===//
//
// Internal to the interpreter: the compute type of each element type (what
// arithmetic runs in), typed element access, and row-major index helpers.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_RUNTIME_INTERPRETER_KERNELS_H
#define COTANGENT_RUNTIME_INTERPRETER_KERNELS_H

#include "runtime/interpreter/Tensor.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>
#include <tuple>
#include <type_traits>

namespace cotangent::interp::detail {

/// Calls `fn.template operator()<T>()` with T the type arithmetic on `kind`
/// runs in: float for f32, f16 and bf16 (results round back to storage),
/// double for f64, int32_t / int64_t (wrapping) for i32 / i64, bool for i1.
template <typename Fn>
decltype(auto) dispatchCompute(ElementKind kind, Fn &&fn) {
  switch (kind) {
  case ElementKind::F64:
    return fn.template operator()<double>();
  case ElementKind::I32:
    return fn.template operator()<int32_t>();
  case ElementKind::I64:
    return fn.template operator()<int64_t>();
  case ElementKind::I1:
    return fn.template operator()<bool>();
  default:
    return fn.template operator()<float>();
  }
}

/// What a sum (reduce_sum, a dot product) of compute type T accumulates in:
/// double for float, so that a reference sum is its exact value rounded once
/// whatever its length and order (compiled code and XLA reassociate sums).
template <typename T>
using SumAccumulator = std::conditional_t<std::is_same_v<T, float>, double, T>;

/// Element `i` of `t` in compute type T.
template <typename T>
T read(const Tensor &t, int64_t i) {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(t.getDouble(i));
  else if constexpr (std::is_same_v<T, bool>)
    return t.getInt(i) != 0;
  else
    return static_cast<T>(t.getInt(i));
}

/// Stores `v` (compute type T) as element `i` of `t`, rounding to storage.
template <typename T>
void write(Tensor &t, int64_t i, T v) {
  if constexpr (std::is_floating_point_v<T>)
    t.setDouble(i, static_cast<double>(v));
  else
    t.setInt(i, static_cast<int64_t>(v));
}

/// (outer, n, inner): the element counts before `axis`, along it, after it.
inline std::tuple<int64_t, int64_t, int64_t> splitAround(llvm::ArrayRef<int64_t> shape,
                                                         int64_t axis) {
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[d];
  for (int64_t d = axis + 1; d < static_cast<int64_t>(shape.size()); ++d)
    inner *= shape[d];
  return {outer, shape[axis], inner};
}

/// Two's-complement wrapping arithmetic for integer T (plain for others).
template <typename T>
T wrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) +
                          static_cast<std::make_unsigned_t<T>>(b));
  else if constexpr (std::is_same_v<T, bool>)
    return a || b;
  else
    return a + b;
}
template <typename T>
T wrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) -
                          static_cast<std::make_unsigned_t<T>>(b));
  else if constexpr (std::is_same_v<T, bool>)
    return a != b;
  else
    return a - b;
}
template <typename T>
T wrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>)
    return static_cast<T>(static_cast<std::make_unsigned_t<T>>(a) *
                          static_cast<std::make_unsigned_t<T>>(b));
  else if constexpr (std::is_same_v<T, bool>)
    return a && b;
  else
    return a * b;
}

/// Row-major strides of `shape` (in elements).
inline llvm::SmallVector<int64_t> getStrides(llvm::ArrayRef<int64_t> shape) {
  llvm::SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t d = static_cast<int64_t>(shape.size()) - 2; d >= 0; --d)
    strides[d] = strides[d + 1] * shape[d + 1];
  return strides;
}

/// Advances `index` to the next row-major index within `shape`; false after
/// the last one.
inline bool nextIndex(llvm::MutableArrayRef<int64_t> index, llvm::ArrayRef<int64_t> shape) {
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (++index[d] < shape[d])
      return true;
    index[d] = 0;
  }
  return false;
}

/// Fills `result` in row-major order: the element at each result index comes
/// from `x` at the flat offset `source(index, xStrides)` (broadcast,
/// transpose and slice are all such gathers).
template <typename SourceFn>
Tensor &gather(Tensor &result, const Tensor &x, SourceFn source) {
  if (result.getNumElements() == 0)
    return result;
  llvm::SmallVector<int64_t> xStrides = getStrides(x.getShape());
  llvm::SmallVector<int64_t> index(result.getShape().size(), 0);
  int64_t flat = 0;
  do {
    result.copyElement(flat++, x, source(llvm::ArrayRef<int64_t>(index), xStrides));
  } while (nextIndex(index, result.getShape()));
  return result;
}

/// Flat row-major offset of `index` under `strides`.
inline int64_t flatten(llvm::ArrayRef<int64_t> index, llvm::ArrayRef<int64_t> strides) {
  int64_t flat = 0;
  for (auto [i, s] : llvm::zip_equal(index, strides))
    flat += i * s;
  return flat;
}

/// `type`'s shape replaced by `shape` (same element type).
inline mlir::RankedTensorType withShape(mlir::RankedTensorType type, llvm::ArrayRef<int64_t> shape) {
  return mlir::RankedTensorType::get(shape, type.getElementType());
}

} // namespace cotangent::interp::detail

#endif // COTANGENT_RUNTIME_INTERPRETER_KERNELS_H

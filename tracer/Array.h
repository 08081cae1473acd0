//===- Array.h - host arrays without MLIR (jnp.asarray, np.save) -*- C++ -*-===//
//
// What a program makes its data with: NumPy-like constructors, typed views
// and .npy files, over the interp::Tensor that jit and grad take and return,
// with no MLIR name in sight. Arrays made here live in one process-wide
// context (defaultContext()), which is where jit then traces and compiles:
//
//   interp::Tensor x = array::from(std::vector<float>{1, 2, 3, 4, 5, 6}, {2, 3});
//   interp::Tensor w = array::zeros({3, 4});
//   std::span<const float> xs = array::view<float>(x);   // 1, 2, ..., 6
//   array::save("x.npy", x);  interp::Tensor back = array::load("x.npy");
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TRACER_ARRAY_H
#define COTANGENT_TRACER_ARRAY_H

#include "tracer/DType.h"
#include "tracer/Errors.h"
#include "tracer/Tensor.h"
#include "runtime/interpreter/Tensor.h"

#include <cstdint>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

namespace cotangent {

/// The context of arrays made without one: made on first use and kept for
/// the life of the process (compiled functions refer to its types).
mlir::MLIRContext &defaultContext();

namespace array {

/// The dtype of C++ element type T (float, double, int32_t, int64_t, bool).
template <class T>
constexpr DType dtypeOf() {
  if constexpr (std::is_same_v<T, float>)
    return DType::F32;
  else if constexpr (std::is_same_v<T, double>)
    return DType::F64;
  else if constexpr (std::is_same_v<T, int32_t>)
    return DType::I32;
  else if constexpr (std::is_same_v<T, int64_t>)
    return DType::I64;
  else if constexpr (std::is_same_v<T, bool>)
    return DType::Bool;
  else
    static_assert(!sizeof(T), "array: elements are float, double, int32_t, int64_t or bool");
}

/// jnp.zeros, jnp.full: a new array of `shape` and `dtype`.
interp::Tensor zeros(const Shape &shape, DType dtype = DType::F32);
interp::Tensor full(const Shape &shape, double value, DType dtype = DType::F32);

/// A new array of `shape` holding `bytes` of `dtype`'s elements, row-major;
/// throws TraceError unless there are exactly enough.
interp::Tensor fromBytes(const void *bytes, size_t count, const Shape &shape, DType dtype);

/// jnp.asarray of host values: `values` (row-major) as an array of `shape`,
/// its dtype T's.
template <class T>
interp::Tensor from(std::span<const T> values, const Shape &shape) {
  return fromBytes(values.data(), values.size(), shape, dtypeOf<T>());
}
template <class T>
interp::Tensor from(const std::vector<T> &values, const Shape &shape) {
  if constexpr (std::is_same_v<T, bool>) {
    std::vector<uint8_t> bytes(values.begin(), values.end()); // vector<bool> packs bits
    return fromBytes(bytes.data(), bytes.size(), shape, DType::Bool);
  } else {
    return from(std::span<const T>(values), shape);
  }
}

/// np.fromfunction over the row-major index: element i is f(i), as T
/// (float by default): deterministic data without a buffer of one's own.
template <class T = float, class F>
interp::Tensor from_function(const Shape &shape, F &&f) {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d < 0 ? 0 : d;
  std::vector<T> values(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    values[static_cast<size_t>(i)] = static_cast<T>(f(i));
  return from(values, shape);
}

DType dtype(const interp::Tensor &t);
Shape shape(const interp::Tensor &t);
/// "f32[2,3]".
std::string str(const interp::Tensor &t);

/// The elements as T, row-major, without a copy; throws TraceError naming
/// both dtypes unless T is the array's element type.
template <class T>
std::span<const T> view(const interp::Tensor &t) {
  if (dtype(t) != dtypeOf<T>())
    throw TraceError("array::view: the array is " + str(t) + ", not " + dtypeName(dtypeOf<T>()));
  return {reinterpret_cast<const T *>(t.data()), static_cast<size_t>(t.getNumElements())};
}
/// The same, writable (the array stops sharing its buffer first).
template <class T>
std::span<T> mutable_view(interp::Tensor &t) {
  if (dtype(t) != dtypeOf<T>())
    throw TraceError("array::mutable_view: the array is " + str(t) + ", not " +
                     dtypeName(dtypeOf<T>()));
  return {reinterpret_cast<T *>(t.data()), static_cast<size_t>(t.getNumElements())};
}

/// np.save / np.load of one array (.npy, every dtype of jx; bf16 as NumPy
/// writes ml_dtypes' bfloat16). Failures throw TraceError naming the file.
void save(const std::string &path, const interp::Tensor &t);
interp::Tensor load(const std::string &path);

} // namespace array
} // namespace cotangent

#endif // COTANGENT_TRACER_ARRAY_H

//===- Common.h - small helpers shared by the examples ----------*- C++ -*-===//
//
// Deterministic input tensors, printing of interpreter tensors, a
// bit-for-bit comparison and one within the interpreter's derived bounds; nothing here is part of the API the examples show.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_EXAMPLES_COMMON_H
#define COTANGENT_EXAMPLES_COMMON_H

#include "runtime/interpreter/ErrorBound.h"
#include "tracer/Autodiff.h"

#include "mlir/IR/BuiltinTypes.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

namespace examples {

/// An f32 tensor of `shape` with values in [-1, 1) from a fixed linear
/// congruential sequence started at `seed`: the same on every machine.
inline cotangent::interp::Tensor filled(mlir::MLIRContext &ctx, std::vector<int64_t> shape,
                                        uint64_t seed, double scale = 1.0) {
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  std::vector<double> values(type.getNumElements());
  uint64_t state = seed * 6364136223846793005ull + 1442695040888963407ull;
  for (double &v : values) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    v = scale * (static_cast<double>(state >> 40) / static_cast<double>(1ull << 23) - 1.0);
  }
  return cotangent::interp::Tensor::fromDoubles(type, values);
}

/// Whether every leaf of `grads` (the gradient of the function `split` was
/// made from, with respect to its first argument) lies within the bound the
/// interpreter derives for it at `args` (interp::runWithErrorBounds): the
/// compiled step against the reference, with no tolerance picked by hand.
template <class T, class... A>
bool withinDerivedBounds(const cotangent::Split &split, const T &grads, const A &...args) {
  std::vector<cotangent::interp::Tensor> flat;
  ((cotangent::Tree<A>::forEach(args, "", [&](const std::string &, const cotangent::interp::Tensor &t) {
     flat.push_back(t);
   })),
   ...);
  auto bounded = cotangent::interp::runWithErrorBounds(split.value_and_grad(), flat);
  if (mlir::failed(bounded))
    return false;
  size_t next = 1; // after the value
  bool within = true;
  cotangent::Tree<T>::forEach(grads, "", [&](const std::string &, const cotangent::interp::Tensor &g) {
    within = within && next < bounded->size() && !cotangent::interp::outsideBound(g, (*bounded)[next]);
    ++next;
  });
  return within;
}

/// An f32 tensor of `shape` filled with `value`.
inline cotangent::interp::Tensor constant(mlir::MLIRContext &ctx, std::vector<int64_t> shape,
                                          double value) {
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  return cotangent::interp::Tensor::fromDoubles(
      type, std::vector<double>(type.getNumElements(), value));
}

/// "f32[5,4]" for an interpreter tensor.
inline std::string typeOf(const cotangent::interp::Tensor &t) {
  return mlir::cotangent::shortTypeName(t.getType());
}

/// The first `count` elements, "%.6f" each, then "..." if there are more.
inline std::string head(const cotangent::interp::Tensor &t, int64_t count = 4) {
  std::string out = "[";
  for (int64_t i = 0; i < t.getNumElements() && i < count; ++i) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s%.6f", i ? ", " : "", t.getDouble(i));
    out += buf;
  }
  return out + (t.getNumElements() > count ? ", ...]" : "]");
}

/// The sum of the elements, "%.6f".
inline std::string total(const cotangent::interp::Tensor &t) {
  double s = 0;
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    s += t.getDouble(i);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.6f", s);
  return buf;
}

/// True if both tensors have one type and the same bytes.
inline bool sameBits(const cotangent::interp::Tensor &a, const cotangent::interp::Tensor &b) {
  return a.getType() == b.getType() &&
         std::memcmp(a.data(), b.data(), static_cast<size_t>(a.getByteSize())) == 0;
}

inline bool sameBits(const std::vector<cotangent::interp::Tensor> &a,
                     const std::vector<cotangent::interp::Tensor> &b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!sameBits(a[i], b[i]))
      return false;
  return true;
}

/// A section title: "== title ==".
inline void section(const std::string &title) { std::cout << "\n== " << title << " ==\n"; }

} // namespace examples

#endif // COTANGENT_EXAMPLES_COMMON_H

//===- RelativeError.h - how far apart two computations are -----*- C++ -*-===//
//
// For comparisons of two ways to compute one thing in f64 (a fused op
// against its definition written with other ops), where both round alike and
// no bound is needed: max |a - b| over max |b|.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_SUPPORT_RELATIVEERROR_H
#define COTANGENT_TEST_SUPPORT_RELATIVEERROR_H

#include "runtime/interpreter/Tensor.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

namespace cotangent::test {

inline double relativeError(const interp::Tensor &a, const interp::Tensor &b) {
  REQUIRE(a.getShape() == b.getShape());
  double err = 0, scale = 0;
  for (int64_t i = 0; i < a.getNumElements(); ++i) {
    err = std::max(err, std::abs(a.getDouble(i) - b.getDouble(i)));
    scale = std::max(scale, std::abs(b.getDouble(i)));
  }
  return scale == 0 ? err : err / scale;
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_SUPPORT_RELATIVEERROR_H

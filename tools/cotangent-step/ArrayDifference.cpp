//===- ArrayDifference.cpp - how far a step's result is from a reference --===//

#include "tools/cotangent-step/ArrayDifference.h"

#include <algorithm>
#include <cmath>

namespace cotangent::step {

double resolution(DType dtype) {
  switch (dtype) {
  case DType::BF16: return std::ldexp(1.0, -6); // 7 stored mantissa bits, 2 ulps
  case DType::F16: return std::ldexp(1.0, -9);  // 10 stored mantissa bits, 2 ulps
  default: return 0;
  }
}

double Difference::relative() const { return abs == 0 ? 0 : abs / std::max(scale, 1e-30); }

bool Difference::within(double rtol, double atol) const {
  return abs <= std::max(rtol, floor) * scale + atol + 1e-30;
}

std::optional<Difference> difference(const Array &got, const Array &want) {
  if (got.type.dtype != want.type.dtype || got.type.shape != want.type.shape)
    return std::nullopt;
  Difference d{.floor = resolution(want.type.dtype)};
  for (int64_t i = 0, n = want.type.elements(); i < n; ++i) {
    double g = got.at(i), w = want.at(i);
    if (std::isnan(g) != std::isnan(w) || (std::isinf(g) && g != w)) {
      d.abs = INFINITY;
    } else if (!std::isnan(w) && g != w) {
      d.abs = std::max(d.abs, std::fabs(g - w));
    }
    if (std::isfinite(w))
      d.scale = std::max(d.scale, std::fabs(w));
  }
  return d;
}

} // namespace cotangent::step

//===- Nn.cpp - jax.nn's functions over traced tensors --------------------===//

#include "tracer/Nn.h"
#include "tracer/Errors.h"

#include <cmath>
#include <limits>
#include <string>
#include <numbers>

using namespace cotangent;

namespace {

/// The maximum over `axes`, kept as a broadcastable constant for the
/// gradient (JAX's `lax.stop_gradient(x.max(axis, keepdims=True))`).
Tensor shiftFor(const Tensor &x, np::Axes axes, SrcLoc loc) {
  return np::stop_gradient(np::max(x, std::move(axes), /*keepdims=*/true, loc), loc);
}

} // namespace

Tensor nn::sigmoid(const Tensor &x, SrcLoc loc) { return np::logistic(x, loc); }

Tensor nn::softplus(const Tensor &x, SrcLoc loc) {
  return np::add(np::log1p(np::exp(np::negative(np::abs(x, loc), loc), loc), loc),
                 np::maximum(x, 0.0, loc), loc);
}

Tensor nn::silu(const Tensor &x, SrcLoc loc) { return np::multiply(x, sigmoid(x, loc), loc); }

Tensor nn::relu(const Tensor &x, SrcLoc loc) { return np::relu(x, loc); }

Tensor nn::gelu(const Tensor &x, bool approximate, SrcLoc loc) {
  if (!approximate) {
    Tensor cdf = np::erfc(np::multiply(-std::numbers::sqrt2 / 2, x, loc), loc);
    return np::multiply(np::multiply(0.5, x, loc), cdf, loc);
  }
  const double c = std::sqrt(2.0 / std::numbers::pi);
  Tensor cube = np::multiply(0.044715, np::integer_pow(x, 3, loc), loc);
  Tensor inner = np::multiply(c, np::add(x, cube, loc), loc);
  return np::multiply(np::multiply(0.5, x, loc), np::add(1.0, np::tanh(inner, loc), loc), loc);
}

Tensor nn::softmax(const Tensor &x, int64_t axis, SrcLoc loc) {
  Tensor e = np::exp(np::subtract(x, shiftFor(x, axis, loc), loc), loc);
  return np::divide(e, np::sum(e, axis, /*keepdims=*/true, loc), loc);
}

Tensor nn::log_softmax(const Tensor &x, int64_t axis, SrcLoc loc) {
  Tensor shifted = np::subtract(x, shiftFor(x, axis, loc), loc);
  Tensor total = np::sum(np::exp(shifted, loc), axis, /*keepdims=*/true, loc);
  return np::subtract(shifted, np::log(total, loc), loc);
}

Tensor nn::logsumexp(const Tensor &x, np::Axes axes, bool keepdims, SrcLoc loc) {
  Tensor shift = shiftFor(x, axes, loc);
  Tensor total = np::sum(np::exp(np::subtract(x, shift, loc), loc), axes, /*keepdims=*/true, loc);
  Tensor out = np::add(np::log(total, loc), shift, loc);
  return keepdims ? out : np::squeeze(out, axes.axes ? np::Axes(*axes.axes) : np::Axes(), loc);
}

Tensor nn::one_hot(const Tensor &indices, int64_t num_classes, DType dtype, SrcLoc loc) {
  if (num_classes < 1)
    throwTraceError("one_hot", "needs num_classes >= 1, got " + std::to_string(num_classes),
                    {indices.str()}, loc);
  Tensor classes = np::astype(np::arange(num_classes, loc), indices.dtype(), loc);
  return np::astype(np::equal(np::expand_dims(indices, -1, loc), classes, loc), dtype, loc);
}

Tensor nn::layer_norm(const Tensor &x, const Tensor &scale, const Tensor &bias, double eps,
                      SrcLoc loc) {
  Tensor centred = np::subtract(x, np::mean(x, -1, /*keepdims=*/true, loc), loc);
  Tensor variance = np::mean(np::multiply(centred, centred, loc), -1, /*keepdims=*/true, loc);
  Tensor normed = np::multiply(centred, np::rsqrt(np::add(variance, eps, loc), loc), loc);
  return np::add(np::multiply(normed, scale, loc), bias, loc);
}

Tensor nn::rms_norm(const Tensor &x, const Tensor &scale, double eps, SrcLoc loc) {
  Tensor meanSquare = np::mean(np::multiply(x, x, loc), -1, /*keepdims=*/true, loc);
  return np::multiply(np::multiply(x, np::rsqrt(np::add(meanSquare, eps, loc), loc), loc), scale,
                      loc);
}

Tensor np::var(const Tensor &x, Axes axes, bool keepdims, SrcLoc loc) {
  Tensor centred = subtract(x, mean(x, axes, /*keepdims=*/true, loc), loc);
  return mean(multiply(centred, centred, loc), axes, keepdims, loc);
}

Tensor np::clip(const Tensor &x, const Operand &lo, const Operand &hi, SrcLoc loc) {
  return minimum(maximum(x, lo, loc), hi, loc);
}

Tensor np::isfinite(const Tensor &x, SrcLoc loc) {
  return np::logical_and(
      np::equal(x, x, loc),
      np::not_equal(np::abs(x, loc), std::numeric_limits<double>::infinity(), loc), loc);
}

Tensor np::exp2(const Tensor &x, SrcLoc loc) {
  return exp(multiply(x, std::numbers::ln2, loc), loc);
}

//===- Nn.cpp - jax.nn's functions over traced tensors --------------------===//

#include "tracer/Nn.h"
#include "tracer/Errors.h"
#include "tracer/TraceState.h"

#include "dialects/jx/JxOps.h"

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

Tensor nn::dot_product_attention(const Tensor &query, const Tensor &key, const Tensor &value,
                                 const AttentionOptions &options, SrcLoc loc) {
  static constexpr std::string_view name = "dot_product_attention";
  const int64_t rank = query.rank();
  if (rank != 3 && rank != 4)
    throwTraceError(name, "expects query [B, T, N, H] or [T, N, H], got " + query.str(),
                    {query.str(), key.str(), value.str()}, loc);
  if (key.rank() != rank || value.rank() != rank)
    throwTraceError(name, "expects query, key and value of one rank",
                    {query.str(), key.str(), value.str()}, loc);
  if (rank == 3) { // JAX's unbatched form: a batch of one
    Tensor out = dot_product_attention(np::expand_dims(query, 0, loc),
                                       np::expand_dims(key, 0, loc),
                                       np::expand_dims(value, 0, loc), options, loc);
    return np::squeeze(out, 0, loc);
  }
  const double scale =
      options.scale.value_or(1.0 / std::sqrt(static_cast<double>(query.shape()[3])));
  if (options.implementation == AttentionImplementation::Xla) {
    Tensor scores = np::multiply(np::einsum("BTNH,BSNH->BNTS", query, key, loc), scale, loc);
    if (options.is_causal) {
      const int64_t t = query.shape()[1], s = key.shape()[1];
      Tensor sees = np::greater_equal(np::reshape(np::arange(t, loc), {t, 1}, loc),
                                      np::reshape(np::arange(s, loc), {1, s}, loc), loc);
      scores = np::where(sees, scores, -std::numeric_limits<double>::infinity(), loc);
    }
    return np::einsum("BNTS,BSNH->BTNH", softmax(scores, -1, loc), value, loc);
  }
  detail::TraceState &state = detail::activeTrace(name, loc);
  mlir::Value q = detail::use(query, name, loc), k = detail::use(key, name, loc),
              v = detail::use(value, name, loc);
  mlir::Builder b(state.context());
  mlir::FloatAttr scaleAttr = b.getF64FloatAttr(scale);
  mlir::UnitAttr causal = options.is_causal ? b.getUnitAttr() : mlir::UnitAttr();
  llvm::SmallVector<mlir::NamedAttribute> attrs{b.getNamedAttr("scale", scaleAttr)};
  if (causal)
    attrs.push_back(b.getNamedAttr("is_causal", causal));
  detail::checkInference<mlir::jx::DotProductAttentionOp>(state, name, loc, {q, k, v}, attrs);
  auto op = detail::emit<mlir::jx::DotProductAttentionOp>(name, loc, q, k, v, scaleAttr, causal);
  return detail::wrap(op.getOutput());
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

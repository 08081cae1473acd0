// The fused softmax cross-entropy (jx.softmax_cross_entropy, what
// optim::softmax_cross_entropy_with_integer_labels traces) against optax's
// arithmetic written with np ops (logsumexp minus take_along_axis) in f64,
// values and gradients, labels from the end and out of range included;
// its gradient against central differences; compiled f32 within the
// bounds derived for the step; and the memory its backward saves.
#include "tracer/Jit.h"
#include "tracer/Nn.h"
#include "tracer/optim/Losses.h"

#include "test/unit/api/BoundedGrad.h"

#include "test/support/RelativeError.h"

#include <catch2/catch.hpp>

#include <random>

using namespace cotangent;
using test::relativeError;

namespace {

interp::Tensor random(mlir::MLIRContext &ctx, std::vector<int64_t> shape, mlir::Type element,
                      unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-3.0, 3.0);
  auto type = mlir::RankedTensorType::get(shape, element);
  std::vector<double> values(type.getNumElements());
  for (double &v : values)
    v = dist(rng);
  return interp::Tensor::fromDoubles(type, values);
}

/// Labels in [-classes, classes + 2): some from the end, some clamped.
interp::Tensor labels(mlir::MLIRContext &ctx, std::vector<int64_t> shape, int64_t classes,
                      unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int64_t> dist(-classes, classes + 1);
  auto type = mlir::RankedTensorType::get(shape, mlir::IntegerType::get(&ctx, 32));
  std::vector<int64_t> values(type.getNumElements());
  for (int64_t &v : values)
    v = dist(rng);
  return interp::Tensor::fromInts(type, values);
}

/// optax's arithmetic with np ops: the label gathered (take_along_axis
/// counts negative labels from the end and clamps, as the fused op does).
Tensor unfused(const Tensor &logits, const Tensor &y) {
  Tensor picked =
      np::squeeze(np::take_along_axis(logits, np::expand_dims(y, {-1}), -1), {-1});
  return nn::logsumexp(logits, {-1}) - picked;
}

/// sum(loss * w): each row weighted differently.
auto weighted(bool fused) {
  return [fused](Tensor logits, Tensor y, Tensor w) {
    Tensor loss = fused ? optim::softmax_cross_entropy_with_integer_labels(logits, y)
                        : unfused(logits, y);
    return np::sum(loss * w);
  };
}

} // namespace

TEST_CASE("the fused cross-entropy equals optax's arithmetic in f64, values and gradients",
          "[optim][cross_entropy][numerics]") {
  mlir::MLIRContext ctx;
  auto f64 = mlir::Float64Type::get(&ctx);
  interp::Tensor x = random(ctx, {3, 5, 11}, f64, 1), y = labels(ctx, {3, 5}, 11, 2),
                 w = random(ctx, {3, 5}, f64, 3);
  auto [fusedValue, fusedGrads] = value_and_grad(weighted(true))(x, y, w);
  auto [refValue, refGrads] = value_and_grad(weighted(false))(x, y, w);
  CHECK(relativeError(fusedValue, refValue) < 1e-14);
  CHECK(relativeError(fusedGrads[0], refGrads[0]) < 1e-14);
  CHECK(relativeError(fusedGrads[2], refGrads[2]) < 1e-14);
}

TEST_CASE("the fused cross-entropy's gradient matches central differences",
          "[optim][cross_entropy][grad][numerics]") {
  mlir::MLIRContext ctx;
  auto f64 = mlir::Float64Type::get(&ctx);
  interp::Tensor x = random(ctx, {4, 6}, f64, 4), y = labels(ctx, {4}, 6, 5),
                 w = random(ctx, {4}, f64, 6);
  auto loss = weighted(true);
  std::vector<interp::Tensor> g = grad(loss)(x, y, w);
  for (int64_t i = 0; i < x.getNumElements(); ++i) {
    auto at = [&](double v) {
      interp::Tensor moved = x.clone();
      moved.setDouble(i, v);
      return value_and_grad(loss)(moved, y, w).first.getDouble(0);
    };
    const double eps = 1e-6, x0 = x.getDouble(i);
    INFO("logit " << i);
    CHECK(g[0].getDouble(i) == Approx((at(x0 + eps) - at(x0 - eps)) / (2 * eps)).epsilon(1e-6));
  }
}

TEST_CASE("the fused cross-entropy compiled in f32 agrees with its f64 definition, and its "
          "backward keeps fewer [rows, classes] buffers than the unfused one",
          "[optim][cross_entropy][jit][numerics][memory]") {
  mlir::MLIRContext ctx;
  mlir::Type f32 = mlir::Float32Type::get(&ctx), f64 = mlir::Float64Type::get(&ctx);
  const int64_t rows = 64, classes = 4096;
  interp::Tensor x64 = random(ctx, {rows, classes}, f64, 7), y = labels(ctx, {rows}, classes, 8),
                 w64 = random(ctx, {rows}, f64, 9);
  auto asF32 = [&](const interp::Tensor &t) {
    std::vector<double> v(t.getNumElements());
    for (int64_t i = 0; i < t.getNumElements(); ++i)
      v[i] = t.getDouble(i);
    return interp::Tensor::fromDoubles(mlir::RankedTensorType::get(t.getShape(), f32), v);
  };
  interp::Tensor x = asF32(x64), w = asF32(w64);
  auto fused = jit(value_and_grad(weighted(true)));
  auto plain = jit(value_and_grad(weighted(false)));
  auto [value, grads] = fused(x, y, w);
  // Within the bounds derived for the f32 step (the composite's are its
  // expansion's).
  auto bounded = test::boundedValueAndGrad(weighted(true), x, y, w);
  test::requireWithinBound(value, bounded[0]);
  test::requireWithinBound(grads[0], bounded[1]);
  plain(x, y, w);
  const int64_t matrix = rows * classes * 4;
  INFO("peak: fused " << fused.last_stats().peakBytes << " B, unfused "
                      << plain.last_stats().peakBytes << " B, one [rows, classes] f32 "
                      << matrix << " B");
  // The arguments and d(logits) are live in both; the unfused backward holds
  // at least one more [rows, classes] buffer (the probabilities, the
  // label's scattered cotangent).
  CHECK(fused.last_stats().peakBytes + matrix <= plain.last_stats().peakBytes);
}

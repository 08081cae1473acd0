//===- OpCheck.h - value, gradient and compiled checks of one function -*- C++ -*-===//
//
// `check(f, reference)` runs the tests every traced function of the API
// gets (test/unit/api: NnTest, IndexingTest): its values against a direct
// evaluation in double, its gradient against central differences (f64, and
// compiled f32), and the compiled gradient within the bound of the
// interpreter's (f64 and f32).
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_TEST_UNIT_API_OPCHECK_H
#define COTANGENT_TEST_UNIT_API_OPCHECK_H

#include "tracer/Jit.h"

#include "BoundedGrad.h"
#include "RandomTensor.h"

#include <catch2/catch.hpp>

#include <functional>
#include <vector>

namespace cotangent::test {

using Fn = std::function<Tensor(Tensor)>;
/// The reference: row-major values of the input (rows x cols) to outputs.
using Reference = std::function<std::vector<double>(const std::vector<double> &, int64_t, int64_t)>;

inline std::vector<double> values(const interp::Tensor &t) {
  std::vector<double> out(t.getNumElements());
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    out[i] = t.getDouble(i);
  return out;
}

inline interp::Tensor withType(mlir::MLIRContext &ctx, const interp::Tensor &t, mlir::Type elem) {
  auto type = mlir::RankedTensorType::get(t.getShape(), elem);
  return interp::Tensor::fromDoubles(type, values(t));
}

/// The three checks on `f` at a 3 x 5 input drawn from [-bound, bound].
inline void check(const Fn &f, const Reference &reference, double bound = 2.0) {
  mlir::MLIRContext ctx;
  const int64_t rows = 3, cols = 5;
  interp::Tensor x = randomTensor(ctx, {rows, cols}, 11, bound);
  // Values.
  auto forward = jit([&](Tensor t) { return f(t); });
  interp::Tensor out = forward(x);
  std::vector<double> want = reference(values(x), rows, cols);
  REQUIRE(static_cast<size_t>(out.getNumElements()) == want.size());
  for (size_t i = 0; i < want.size(); ++i)
    CHECK(out.getDouble(i) == Approx(want[i]).epsilon(1e-12).margin(1e-12));

  // Gradient of <w, f(x)> against central differences, in f64.
  interp::Tensor w = randomTensor(ctx, out.getShape().vec(), 12, 1.0);
  auto loss = [&](Tensor t, Tensor weights) { return np::sum(f(t) * weights); };
  std::vector<interp::Tensor> g = grad(loss)(x, w);
  auto at = [&](const interp::Tensor &t) { return value_and_grad(loss)(t, w).first.getDouble(0); };
  for (int64_t i = 0; i < x.getNumElements(); ++i) {
    interp::Tensor plus = x.clone(), minus = x.clone();
    plus.setDouble(i, x.getDouble(i) + 1e-6);
    minus.setDouble(i, x.getDouble(i) - 1e-6);
    CHECK(g[0].getDouble(i) == Approx((at(plus) - at(minus)) / 2e-6).epsilon(1e-6).margin(1e-8));
  }
  // f64: the compiled gradient within the interpreter's bound (f64 keeps
  // libm, so only summation order differs).
  std::vector<interp::Tensor> compiled64 = jit(grad(loss))(x, w);
  requireAllWithinBounds(compiled64, boundedValueAndGrad(loss, x, w), 1);

  // f32: the compiled gradient within the interpreter's bound.
  interp::Tensor x32 = withType(ctx, x, mlir::Float32Type::get(&ctx));
  interp::Tensor w32 = withType(ctx, w, mlir::Float32Type::get(&ctx));
  auto compiledGrad = jit(grad(loss));
  std::vector<interp::Tensor> compiled = compiledGrad(x32, w32);
  requireAllWithinBounds(compiled, boundedValueAndGrad(loss, x32, w32), 1);

  // f32: the compiled gradient against central differences of the compiled
  // loss (step 1e-2, so the f32 rounding of the loss stays well below the
  // step's truncation error; tolerance to match).
  auto compiledLoss = jit(loss);
  auto at32 = [&](const interp::Tensor &t) { return compiledLoss(t, w32).getDouble(0); };
  for (int64_t i = 0; i < x32.getNumElements(); ++i) {
    interp::Tensor plus = x32.clone(), minus = x32.clone();
    plus.setDouble(i, x32.getDouble(i) + 1e-2);
    minus.setDouble(i, x32.getDouble(i) - 1e-2);
    CHECK(compiled[0].getDouble(i) ==
          Approx((at32(plus) - at32(minus)) / 2e-2).epsilon(2e-3).margin(2e-3));
  }
}

} // namespace cotangent::test

#endif // COTANGENT_TEST_UNIT_API_OPCHECK_H

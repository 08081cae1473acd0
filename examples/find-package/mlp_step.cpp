//===- mlp_step.cpp - a program that uses an installed Cotangent ----------===//
//
// Traces a two-layer MLP's loss, checkpoints its hidden layer under
// dots_saveable, prints what the forward saves, and computes the gradients
// twice: compiled for the CPU (jit) and through the reference interpreter.
// It includes only installed headers and links only Cotangent::jit.
//
// The CHECK lines at the end are the expected output.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/ErrorBound.h"
#include "tracer/Checkpoint.h"
#include "tracer/Jit.h"
#include "tracer/Nn.h"
#include "tracer/Numpy.h"

#include "mlir/IR/BuiltinTypes.h"

#include <cmath>
#include <cstdio>
#include <iostream>

using namespace cotangent;

namespace {

Tensor mlp(Tensor w1, Tensor w2, Tensor x) {
  Tensor h = nn::gelu(np::dot(x, w1));
  return np::dot(h, w2);
}

Tensor loss(Tensor w1, Tensor w2, Tensor x) {
  auto layer = checkpoint(mlp, {.policy = policies::dots_saveable()});
  return np::sum(np::tanh(layer(w1, w2, x)));
}

/// Values in [-scale, scale] from a fixed sequence: the same on every machine.
interp::Tensor filled(mlir::MLIRContext &ctx, std::vector<int64_t> shape, double scale) {
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  std::vector<double> values(type.getNumElements());
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = scale * std::sin(0.37 * static_cast<double>(i) + 0.1);
  return interp::Tensor::fromDoubles(type, values);
}

} // namespace

int main() {
  std::cout << vjp({.name = "loss", .arg_names = {"w1", "w2", "x"}}, loss, f32({16, 32}),
                   f32({32, 8}), f32({4, 16}))
                   .print_saved_residuals();

  mlir::MLIRContext ctx;
  interp::Tensor w1 = filled(ctx, {16, 32}, 0.3), w2 = filled(ctx, {32, 8}, 0.3),
                 x = filled(ctx, {4, 16}, 1.0);
  auto step = jit(grad(loss));
  std::vector<interp::Tensor> compiled = step(w1, w2, x);
  // The interpreter's gradient with, per element, how far any evaluation
  // that rounds each op as IEEE allows may be from it (dots and sums in any
  // order): the compiled one must lie within that, whatever BLAS it ran.
  Split split = vjp({.context = &ctx}, loss, w1, w2, x);
  auto reference = interp::runWithErrorBounds(split.value_and_grad(), {w1, w2, x});
  bool within = mlir::succeeded(reference) && reference->size() == compiled.size() + 1;
  for (size_t i = 0; within && i < compiled.size(); ++i)
    within = !interp::outsideBound(compiled[i], (*reference)[i + 1]);
  std::printf("compiled vs interpreter: %zu gradients, %s\n", compiled.size(),
              within ? "within the derived bounds" : "DIFFER");
  std::printf("peak bytes of the compiled step: %s\n",
              step.last_stats().peakBytes > 0 ? "measured" : "MISSING");
  return within ? 0 : 1;
}

// CHECK: f32[16,32] from the argument w1
// CHECK: total: {{[0-9]+}} residuals, {{[0-9]+}} bytes
// CHECK-NEXT: compiled vs interpreter: 3 gradients, within the derived bounds
// CHECK-NEXT: peak bytes of the compiled step: measured

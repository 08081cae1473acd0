// jit: traced functions and their gradients compiled for the CPU agree with
// the interpreter within its derived bounds (dots and sums reassociate), compose
// with grad and checkpoint, and report the memory the compiled code used.
#include "tracer/Jit.h"

#include "BoundedGrad.h"

#include <catch2/catch.hpp>

#include <random>

using namespace cotangent;

namespace {

Tensor g(Tensor W, Tensor x) { return np::sin(np::dot(W, x)); }

interp::Tensor randomF32(mlir::MLIRContext &ctx, std::vector<int64_t> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  std::vector<double> values(type.getNumElements());
  for (double &v : values)
    v = dist(rng) / std::sqrt(static_cast<double>(shape.back()));
  return interp::Tensor::fromDoubles(type, values);
}

/// Blocks of dense + relu layers, each block under `policy` (none: no checkpoint).
auto mlp(std::optional<Policy> policy) {
  return [policy](Tensor w0, Tensor w1, Tensor w2, Tensor w3, Tensor x) {
    auto block = [](Tensor a, Tensor b, Tensor h) {
      return np::relu(np::dot(np::relu(np::dot(h, a)), b));
    };
    auto run = [&](Tensor a, Tensor b, Tensor h) {
      return policy ? checkpoint(block, {.policy = *policy})(a, b, h) : block(a, b, h);
    };
    Tensor h = run(w2, w3, run(w0, w1, x));
    return np::mean(h * h);
  };
}

} // namespace

TEST_CASE("jit(f) computes what the interpreter computes", "[jit][numerics]") {
  mlir::MLIRContext ctx;
  auto f = [](Tensor W1, Tensor W2, Tensor x) { return g(W2, g(W1, x)); };
  interp::Tensor W1 = randomF32(ctx, {5, 4}, 1), W2 = randomF32(ctx, {6, 5}, 2),
                 x = randomF32(ctx, {4}, 3);
  auto compiled = jit(f);
  interp::Tensor out = compiled(W1, W2, x); // f's tree: one tensor
  test::requireAllWithinBounds({out}, test::boundedCall(f, W1, W2, x));
  // A second signature compiles a second function.
  interp::Tensor x8 = randomF32(ctx, {8}, 4), W8 = randomF32(ctx, {5, 8}, 5);
  CHECK(compiled(W8, W2, x8).getNumElements() == 6);
}

TEST_CASE("jit(grad(f)) agrees with grad(f) through the interpreter", "[jit][grad][numerics]") {
  mlir::MLIRContext ctx;
  std::vector<interp::Tensor> args;
  for (unsigned i = 0; i < 4; ++i)
    args.push_back(randomF32(ctx, {32, 32}, 10 + i));
  args.push_back(randomF32(ctx, {64, 32}, 20));
  auto loss = mlp(std::nullopt);
  auto step = jit(grad(loss));
  std::vector<interp::Tensor> compiled = step(args[0], args[1], args[2], args[3], args[4]);
  auto reference = test::boundedValueAndGrad(loss, args[0], args[1], args[2], args[3], args[4]);
  test::requireAllWithinBounds(compiled, reference, 1);
  CHECK(step.last_stats().peakBytes > 0);

  // value_and_grad returns {loss, the same gradients}, as uncompiled.
  auto [value, grads] = jit(value_and_grad(loss))(args[0], args[1], args[2], args[3], args[4]);
  CHECK(value.getNumElements() == 1);
  test::requireAllWithinBounds(grads, reference, 1);
  test::requireWithinBound(value, reference[0]);
}

TEST_CASE("jit(grad(checkpointed f)): same gradients, less memory", "[jit][remat][numerics]") {
  mlir::MLIRContext ctx;
  std::vector<interp::Tensor> args;
  for (unsigned i = 0; i < 4; ++i)
    args.push_back(randomF32(ctx, {64, 64}, 30 + i));
  args.push_back(randomF32(ctx, {512, 64}, 40));
  auto plain = jit(grad(mlp(std::nullopt)));
  auto remat = jit(grad(mlp(policies::nothing_saveable())));
  std::vector<interp::Tensor> g0 = plain(args[0], args[1], args[2], args[3], args[4]);
  std::vector<interp::Tensor> g1 = remat(args[0], args[1], args[2], args[3], args[4]);
  // Both within the bound of the interpreter's gradient (remat recomputes
  // the same ops: the same values, on another schedule).
  auto reference = test::boundedValueAndGrad(mlp(std::nullopt), args[0], args[1], args[2], args[3], args[4]);
  test::requireAllWithinBounds(g0, reference, 1);
  test::requireAllWithinBounds(g1, reference, 1);
  INFO("peak bytes: plain " << plain.last_stats().peakBytes << ", remat "
                            << remat.last_stats().peakBytes);
  CHECK(remat.last_stats().peakBytes < plain.last_stats().peakBytes);
}

TEST_CASE("jit(grad(f)) of a non-scalar f is an error", "[jit]") {
  mlir::MLIRContext ctx;
  interp::Tensor x = randomF32(ctx, {4}, 1);
  auto step = jit(grad([](Tensor v) { return np::sin(v); }));
  CHECK_THROWS_WITH(step(x), Catch::Contains("must return one scalar float tensor"));
}

TEST_CASE("grad inside a traced function is a call in its jaxpr and compiles with it",
          "[jit][grad][numerics]") {
  mlir::MLIRContext ctx;
  std::vector<interp::Tensor> args;
  for (unsigned i = 0; i < 4; ++i)
    args.push_back(randomF32(ctx, {16, 16}, 50 + i));
  args.push_back(randomF32(ctx, {32, 16}, 60));
  auto loss = mlp(std::nullopt);
  // One SGD step inside the function, as jax.jit(lambda p: p - lr * grad(loss)(p)) writes it;
  // has_aux brings the loss out beside the gradient.
  auto withAux = [&](Tensor w0, Tensor w1, Tensor w2, Tensor w3, Tensor x) {
    Tensor l = loss(w0, w1, w2, w3, x);
    return std::pair{l, l * 2.0};
  };
  auto sgd = [&](Tensor w0, Tensor w1, Tensor w2, Tensor w3, Tensor x) {
    auto [grads, aux] = grad(withAux, argnums<0, 1, 2, 3>, has_aux)(w0, w1, w2, w3, x);
    auto [g0, g1, g2, g3] = grads;
    return std::tuple{w0 - 0.5 * g0, w1 - 0.5 * g1, w2 - 0.5 * g2, w3 - 0.5 * g3, aux};
  };
  TraceOptions opts;
  opts.context = &ctx;
  trace t(opts, sgd, args[0], args[1], args[2], args[3], args[4]);
  CHECK_THAT(t.mlir(), Catch::Contains("call @grad_0_vjp"));
 // The step's tuple of five tensors, as sgd returns it.
  auto out = jit(sgd)(args[0], args[1], args[2], args[3], args[4]);
  test::requireAllWithinBounds(test::leavesOf(out), test::boundedCall(sgd, args[0], args[1], args[2], args[3], args[4]));
  // A tensor of the enclosing trace used by the differentiated function,
  // instead of passed to it, is a named error.
  auto leaky = [&](Tensor w0, Tensor x) {
    auto inner = [&](Tensor w) { return np::sum(np::dot(x, w)); };
    return grad(inner)(w0);
  };
  CHECK_THROWS_AS(trace(opts, leaky, args[0], args[4]), TraceError);
}

TEST_CASE("jit(value_and_grad) runs the fused step: a memory_budget bounds that peak",
          "[jit][remat][memory]") {
  mlir::MLIRContext ctx;
  // Three layers of sin(h @ W) (test/unit/cpu/MemoryBudgetStepTest.cpp):
  // the split cannot fit 19000 bytes, the fused step can.
  constexpr int64_t kBudget = 19000;
  auto layers = [](Tensor x, Tensor w) {
    Tensor h = x;
    for (int i = 0; i < 3; ++i)
      h = np::sin(np::matmul(h, w));
    return np::sum(h);
  };
  auto random = [&](std::vector<int64_t> shape, double scale) {
    auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
    std::vector<double> values(type.getNumElements());
    for (size_t i = 0; i < values.size(); ++i)
      values[i] = scale * std::sin(0.37 * static_cast<double>(i) + 1.0);
    return interp::Tensor::fromDoubles(type, values);
  };
  interp::Tensor x = random({64, 16}, 1.0), w = random({16, 16}, 0.25);
  auto step = jit(value_and_grad(checkpoint(layers, {.policy = policies::memory_budget(kBudget)})));
  auto [value, grads] = step(x, w);
  CHECK(step.last_stats().peakBytes <= kBudget);
  // The same value and gradients as the step without a checkpoint.
  auto plain = jit(value_and_grad(layers));
  auto [plainValue, plainGrads] = plain(x, w);
  CHECK(step.last_stats().peakBytes < plain.last_stats().peakBytes);
  auto close = [](const interp::Tensor &a, const interp::Tensor &b) {
    REQUIRE(a.getType() == b.getType());
    for (int64_t i = 0; i < a.getType().getNumElements(); ++i)
      REQUIRE(std::abs(a.getDouble(i) - b.getDouble(i)) <= 1e-5 * (1 + std::abs(b.getDouble(i))));
  };
  close(value, plainValue);
  REQUIRE(grads.size() == 2);
  close(grads[0], plainGrads[0]);
  close(grads[1], plainGrads[1]);
}

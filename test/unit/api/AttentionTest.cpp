// nn::dot_product_attention: the fused op (jx.dot_product_attention, its
// VJP rule, the interpreter's definition, the CPU's FlashAttention-2
// kernels) against JAX's "xla" implementation written with np ops, in f64
// through the interpreter, and compiled in f32 within the bounds derived
// for the step; its gradient against central
// differences; and the point of fusing: the compiled step's peak does not
// grow with the sequence at a fixed number of tokens, where the
// materialized scores' does.
#include "tracer/Jit.h"
#include "tracer/Nn.h"

#include "BoundedGrad.h"
#include "RandomTensor.h"

#include "test/support/RelativeError.h"

#include <catch2/catch.hpp>

using namespace cotangent;
using test::relativeError;

namespace {

using Impl = nn::AttentionImplementation;

/// sum(attention(q, k, v) * w): every output element weighted differently.
auto weighted(Impl impl, bool causal) {
  return [=](Tensor q, Tensor k, Tensor v, Tensor w) {
    Tensor out = nn::dot_product_attention(q, k, v, {.is_causal = causal, .implementation = impl});
    return np::sum(out * w);
  };
}

interp::Tensor asF32(mlir::MLIRContext &ctx, const interp::Tensor &t) {
  std::vector<double> v(t.getNumElements());
  for (int64_t i = 0; i < t.getNumElements(); ++i)
    v[i] = t.getDouble(i);
  return interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get(t.getShape(), mlir::Float32Type::get(&ctx)), v);
}

struct Inputs {
  interp::Tensor q, k, v, w;
};

Inputs inputs(mlir::MLIRContext &ctx, int64_t b, int64_t t, int64_t s, int64_t n, int64_t h,
              unsigned seed) {
  return {randomTensor(ctx, {b, t, n, h}, seed, 1.5), randomTensor(ctx, {b, s, n, h}, seed + 1, 1.5),
          randomTensor(ctx, {b, s, n, h}, seed + 2), randomTensor(ctx, {b, t, n, h}, seed + 3)};
}

} // namespace

TEST_CASE("dot_product_attention: fused equals JAX's xla implementation in f64",
          "[attention][numerics]") {
  mlir::MLIRContext ctx;
  for (bool causal : {false, true}) {
    INFO("causal " << causal);
    Inputs in = inputs(ctx, 2, 7, causal ? 7 : 9, 3, 5, 40);
    auto [fusedValue, fusedGrads] = value_and_grad(weighted(Impl::Fused, causal))(in.q, in.k, in.v, in.w);
    auto [xlaValue, xlaGrads] = value_and_grad(weighted(Impl::Xla, causal))(in.q, in.k, in.v, in.w);
    CHECK(relativeError(fusedValue, xlaValue) < 1e-13);
    REQUIRE(fusedGrads.size() == 4);
    for (size_t i = 0; i < 3; ++i) {
      INFO("gradient " << i);
      CHECK(relativeError(fusedGrads[i], xlaGrads[i]) < 1e-12);
    }
  }
}

TEST_CASE("dot_product_attention's gradient matches central differences",
          "[attention][grad][numerics]") {
  mlir::MLIRContext ctx;
  for (bool causal : {false, true}) {
    INFO("causal " << causal);
    Inputs in = inputs(ctx, 1, 4, causal ? 4 : 5, 2, 3, 50);
    auto loss = weighted(Impl::Fused, causal);
    std::vector<interp::Tensor> g = grad(loss)(in.q, in.k, in.v, in.w);
    std::vector<interp::Tensor> args{in.q, in.k, in.v};
    for (size_t a = 0; a < 3; ++a)
      for (int64_t i = 0; i < args[a].getNumElements(); ++i) {
        const double eps = 1e-6, x0 = args[a].getDouble(i);
        auto at = [&](double x) {
          std::vector<interp::Tensor> moved{in.q.clone(), in.k.clone(), in.v.clone()};
          moved[a].setDouble(i, x);
          return value_and_grad(loss)(moved[0], moved[1], moved[2], in.w).first.getDouble(0);
        };
        double fd = (at(x0 + eps) - at(x0 - eps)) / (2 * eps);
        INFO("operand " << a << " element " << i);
        CHECK(g[a].getDouble(i) == Approx(fd).epsilon(1e-6).margin(1e-8));
      }
  }
}

TEST_CASE("dot_product_attention compiled for the CPU: the fused kernels equal the "
          "materialized scores in f32",
          "[attention][jit][numerics]") {
  mlir::MLIRContext ctx;
  struct Case {
    int64_t b, t, s, n, h;
    bool causal;
  };
  // Partial tiles, more keys than queries, a head size that is no vector width.
  for (Case c : {Case{2, 70, 70, 3, 16, true}, Case{1, 33, 130, 2, 8, false},
                 Case{2, 9, 9, 1, 5, true}}) {
    INFO("B " << c.b << " T " << c.t << " S " << c.s << " N " << c.n << " H " << c.h);
    Inputs in64 = inputs(ctx, c.b, c.t, c.s, c.n, c.h, 60);
    Inputs in{asF32(ctx, in64.q), asF32(ctx, in64.k), asF32(ctx, in64.v), asF32(ctx, in64.w)};
    auto fused = jit(value_and_grad(weighted(Impl::Fused, c.causal)));
    auto xla = jit(value_and_grad(weighted(Impl::Xla, c.causal)));
    auto [fusedValue, fusedGrads] = fused(in.q, in.k, in.v, in.w);
    auto [xlaValue, xlaGrads] = xla(in.q, in.k, in.v, in.w);
    // Both within the bounds derived for the f32 step (the fused op's are
    // its expansion's), and near the f64 definition.
    auto bounded = test::boundedValueAndGrad(weighted(Impl::Fused, c.causal), in.q, in.k, in.v,
                                             in.w);
    std::vector<interp::Tensor> fusedAll{fusedValue}, xlaAll{xlaValue};
    fusedAll.insert(fusedAll.end(), fusedGrads.begin(), fusedGrads.end());
    xlaAll.insert(xlaAll.end(), xlaGrads.begin(), xlaGrads.end());
    test::requireAllWithinBounds(fusedAll, bounded);
    test::requireAllWithinBounds(xlaAll, bounded);
    auto [refValue, refGrads] =
        value_and_grad(weighted(Impl::Fused, c.causal))(in64.q, in64.k, in64.v, in64.w);
    INFO("fused against f64: loss " << relativeError(fusedValue, refValue) << ", dq "
                                    << relativeError(fusedGrads[0], refGrads[0]));
  }
}

TEST_CASE("fused attention's compiled step keeps no scores: its peak is the same at every "
          "sequence length for a fixed number of tokens",
          "[attention][jit][memory]") {
  mlir::MLIRContext ctx;
  const int64_t tokens = 512, n = 4, h = 16;
  std::vector<int64_t> fusedPeaks, xlaPeaks;
  for (int64_t t : {128, 256, 512}) {
    Inputs in64 = inputs(ctx, tokens / t, t, t, n, h, 70);
    Inputs in{asF32(ctx, in64.q), asF32(ctx, in64.k), asF32(ctx, in64.v), asF32(ctx, in64.w)};
    auto fused = jit(grad(weighted(Impl::Fused, true)));
    auto xla = jit(grad(weighted(Impl::Xla, true)));
    fused(in.q, in.k, in.v, in.w);
    xla(in.q, in.k, in.v, in.w);
    fusedPeaks.push_back(fused.last_stats().peakBytes);
    xlaPeaks.push_back(xla.last_stats().peakBytes);
    INFO("T " << t << ": fused " << fusedPeaks.back() << " B, xla " << xlaPeaks.back() << " B");
    // The materialized step holds at least one f32 [B, N, T, T] score tensor.
    CHECK(xlaPeaks.back() >= (tokens / t) * n * t * t * 4);
  }
  CHECK(fusedPeaks[0] == fusedPeaks[1]);
  CHECK(fusedPeaks[1] == fusedPeaks[2]);
  CHECK(xlaPeaks[2] > 2 * xlaPeaks[0]);
  CHECK(fusedPeaks[2] * 4 < xlaPeaks[2]);
}

TEST_CASE("dot_product_attention: JAX's unbatched form, and bad operands refused",
          "[attention][errors]") {
  mlir::MLIRContext ctx;
  Inputs in = inputs(ctx, 1, 5, 5, 2, 4, 80);
  auto unbatched = [](Tensor q, Tensor k, Tensor v) {
    return nn::dot_product_attention(np::squeeze(q, 0), np::squeeze(k, 0), np::squeeze(v, 0),
                                     {.is_causal = true});
  };
  auto batched = [](Tensor q, Tensor k, Tensor v) {
    return np::squeeze(nn::dot_product_attention(q, k, v, {.is_causal = true}), 0);
  };
  interp::Tensor a = jit(unbatched)(in.q, in.k, in.v), b = jit(batched)(in.q, in.k, in.v);
  CHECK(a.getShape().vec() == std::vector<int64_t>{5, 2, 4});
  CHECK(relativeError(a, b) == 0);

  auto wrongRank = [](Tensor q) { return nn::dot_product_attention(q, q, q); };
  CHECK_THROWS_WITH(jit(wrongRank)(randomTensor(ctx, {5, 4}, 1)),
                    Catch::Contains("expects query [B, T, N, H] or [T, N, H], got f64[5,4]"));
  auto otherHeads = [](Tensor q, Tensor k) { return nn::dot_product_attention(q, k, k); };
  CHECK_THROWS_WITH(jit(otherHeads)(randomTensor(ctx, {1, 5, 2, 4}, 1),
                                    randomTensor(ctx, {1, 5, 3, 4}, 2)),
                    Catch::Contains("key must share the query's batch, heads and head size"));
}

// lax:: collectives in the tracer: a traced function using them runs on a
// simulated group of ranks with the values the collectives define; an
// FSDP-style loss (each rank all-gathers its weight shard) differentiated
// by vjp gives each rank the derivative of the group's summed loss with
// respect to its shard (central finite differences); misuse is a
// TraceError at the call.
#include "tracer/Autodiff.h"
#include "tracer/Collectives.h"
#include "tracer/Numpy.h"

#include "runtime/interpreter/Spmd.h"

#include <catch2/catch.hpp>

#include <cmath>

using namespace cotangent;

namespace {

using Ranks = std::vector<std::vector<interp::Tensor>>;

interp::Tensor values(mlir::MLIRContext &ctx, Shape shape, std::vector<double> v) {
  return interp::Tensor::fromDoubles(mlir::RankedTensorType::get(shape, mlir::Float64Type::get(&ctx)),
                                     v);
}

Ranks spmd(mlir::func::FuncOp fn, const Ranks &args) {
  auto out = interp::runSpmd(fn, "data", args);
  REQUIRE(mlir::succeeded(out));
  return *out;
}

Tensor fsdpLoss(Tensor shard, Tensor x) {
  Tensor w = lax::all_gather(shard, "data", 2, 0, /*tiled=*/true); // [4, 3]
  return np::sum(np::tanh(np::dot(w, x)));
}

} // namespace

TEST_CASE("traced collectives run on simulated ranks", "[trace][collectives]") {
  mlir::MLIRContext ctx;
  auto fn = [](Tensor x) {
    Tensor r = np::astype(lax::axis_index("data"), DType::F64);
    return std::tuple{lax::psum(x * r, "data"), lax::pmean(x, "data"),
                      lax::all_gather(x, "data", 3), lax::psum_scatter(x, "data", 3, 0, true),
                      lax::ppermute(x, "data", {{0, 1}, {1, 2}})};
  };
  trace traced(TraceOptions{.name = "f", .context = &ctx}, fn, f64({3}));
  Ranks x;
  for (int r = 0; r < 3; ++r)
    x.push_back({values(ctx, {3}, {1.0 + r, 2.0 * r, -1.0})});
  Ranks out = spmd(traced.func(), x);
  for (int r = 0; r < 3; ++r) {
    INFO("rank " << r);
    // psum of x_s * s: 0 * x_0 + 1 * x_1 + 2 * x_2.
    CHECK(out[r][0].getDouble(0) == 1 * 2.0 + 2 * 3.0);
    CHECK(out[r][1].getDouble(1) == (0.0 + 2.0 + 4.0) / 3);
    CHECK(out[r][2].getType().getShape() == llvm::ArrayRef<int64_t>{3, 3});
    CHECK(out[r][2].getDouble(2 * 3 + 0) == 3.0); // row 2 is rank 2's x
    const double sum[] = {1.0 + 2.0 + 3.0, 0.0 + 2.0 + 4.0, -3.0};
    CHECK(out[r][3].getDouble(0) == sum[r]); // block r of the sum: its element r
    // Rank 0 receives from no one: zeros; ranks 1 and 2 from r - 1.
    CHECK(out[r][4].getDouble(0) == (r == 0 ? 0.0 : 1.0 + (r - 1)));
  }
}

TEST_CASE("pmean of a tree averages every leaf over the ranks", "[trace][collectives]") {
  mlir::MLIRContext ctx;
  auto fn = [](const std::map<std::string, Tensor> &grads) { return lax::pmean(grads, "data"); };
  trace traced(TraceOptions{.name = "f", .context = &ctx}, fn,
               std::map<std::string, Spec>{{"b", f64({2})}, {"w", f64({3})}});
  Ranks x{{values(ctx, {2}, {1.0, 2.0}), values(ctx, {3}, {0.0, 4.0, -2.0})},
          {values(ctx, {2}, {3.0, -2.0}), values(ctx, {3}, {2.0, 0.0, 6.0})}};
  Ranks out = spmd(traced.func(), x);
  for (int r = 0; r < 2; ++r) {
    CHECK(out[r][0].getDouble(0) == 2.0);
    CHECK(out[r][0].getDouble(1) == 0.0);
    CHECK(out[r][1].getDouble(2) == 2.0);
  }
}

TEST_CASE("an FSDP-style loss: each rank's gradient is the group's, for its shard",
          "[trace][collectives][grad]") {
  mlir::MLIRContext ctx;
  Split split = vjp(TraceOptions{.name = "loss", .context = &ctx}, &fsdpLoss, f64({2, 3}),
                    f64({3}));
  // The gathered weight is recomputed in the backward under nothing_saveable;
  // without a policy it is kept (4 x 3 of it on every rank).
  CHECK_THAT(split.print_saved_residuals(), Catch::Contains("f64[4,3] output of all_gather"));
  Ranks args{{values(ctx, {2, 3}, {0.3, -0.2, 0.5, 0.1, 0.4, -0.6}),
              values(ctx, {3}, {1.0, -0.5, 0.25})},
             {values(ctx, {2, 3}, {-0.1, 0.2, 0.7, -0.3, 0.2, 0.05}),
              values(ctx, {3}, {0.5, 0.75, -1.0})}};
  Ranks out = spmd(split.value_and_grad(), args);
  auto total = [&](const Ranks &a) {
    double sum = 0;
    for (const auto &rank : spmd(split.primal(), a))
      sum += rank[0].getDouble(0);
    return sum;
  };
  const double h = 1e-6;
  for (int r = 0; r < 2; ++r)
    for (int k = 0; k < 6; ++k) {
      Ranks plus = args, minus = args;
      plus[r][0] = args[r][0].clone();
      minus[r][0] = args[r][0].clone();
      plus[r][0].setDouble(k, args[r][0].getDouble(k) + h);
      minus[r][0].setDouble(k, args[r][0].getDouble(k) - h);
      double fd = (total(plus) - total(minus)) / (2 * h);
      double grad = out[r][1].getDouble(k);
      INFO("rank " << r << ", shard element " << k << ": grad " << grad << ", fd " << fd);
      CHECK(std::fabs(grad - fd) <= 1e-6 * (1 + std::fabs(grad)));
    }
}

TEST_CASE("collective misuse is a TraceError at the call", "[trace][collectives]") {
  mlir::MLIRContext ctx;
  auto badDimension = [](Tensor x) { return lax::all_gather(x, "data", 2, 3); };
  CHECK_THROWS_WITH(trace(TraceOptions{.context = &ctx}, badDimension, f32({3})),
                    Catch::Contains("dimension 3 is not a place to insert an axis"));
  auto badPairs = [](Tensor x) { return lax::ppermute(x, "data", {{0, 1}, {2, 1}}); };
  CHECK_THROWS_WITH(trace(TraceOptions{.context = &ctx}, badPairs, f32({3})),
                    Catch::Contains("rank 1 is a destination twice in perm"));
  auto noAxis = [](Tensor x) { return lax::psum(x, ""); };
  CHECK_THROWS_WITH(trace(TraceOptions{.context = &ctx}, noAxis, f32({3})),
                    Catch::Contains("needs a mesh axis name"));
}

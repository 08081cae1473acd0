// A scan with `snapshots` (binomial / revolve schedule), run by the
// interpreter: its gradients equal the plain scan's (and finite
// differences), and the body runs exactly L + r*L - beta(s+1, r-1) times --
// the L taped runs plus Griewank's optimal re-runs -- for lengths up to 1000
// and 1 to 10 snapshots, forward and reverse scans, with a body that has
// consts, xs and ys. The measured peak per snapshot is in
// test/unit/cpu/ScanRevolvePeakTest.cpp.
#include "tracer/Autodiff.h"
#include "passes/remat/RevolveSchedule.h"

#include "RandomTensor.h"

#include <catch2/catch.hpp>

#include <random>

using namespace cotangent;

namespace {

constexpr int64_t kWidth = 3;

/// loss(w, h0, xs) = sum(h_L) + sum(ys) with h' = tanh(h * w + x), y = h' * h:
/// a const, a carry, xs and ys, one tanh per iteration.
auto recurrent(ScanOptions opts) {
  return [opts](Tensor w, Tensor h0, Tensor xs) {
    auto body = [&](Tensor h, Tensor x) {
      Tensor next = np::tanh(h * w + x);
      return std::pair{next, next * h};
    };
    auto [last, ys] = scan(body, h0, xs, opts);
    return np::sum(last) + np::sum(ys);
  };
}

struct Run {
  std::vector<interp::Tensor> outputs; // value, then the gradients
  int64_t tanhRuns = 0;
};

Run run(mlir::MLIRContext &ctx, ScanOptions opts, const std::vector<interp::Tensor> &args) {
  TraceOptions traceOpts;
  traceOpts.context = &ctx;
  Split s(trace(traceOpts, recurrent(opts), specOf(args[0]), specOf(args[1]), specOf(args[2])));
  interp::MemoryStats stats;
  Run r;
  r.outputs = evaluate(s, s.value_and_grad(), args, &stats);
  r.tanhRuns = stats.opsRun.lookup("jx.tanh");
  return r;
}

} // namespace

TEST_CASE("revolve scan: gradients equal the plain scan's, the body runs L + advances times",
          "[scan][revolve]") {
  mlir::MLIRContext ctx;
  struct Case {
    int64_t length, snapshots;
    bool reverse;
  };
  std::vector<Case> cases = {{1, 1, false},  {2, 1, false},   {3, 2, true},    {7, 1, false},
                             {10, 2, false}, {10, 3, true},   {10, 10, false}, {10, 20, false},
                             {33, 2, true},  {64, 4, false},  {100, 10, true}, {250, 3, false},
                             {1000, 1, false}, {1000, 4, true}, {1000, 10, false}};
  for (const Case &c : cases) {
    INFO("L = " << c.length << ", snapshots = " << c.snapshots << (c.reverse ? ", reverse" : ""));
    std::vector<interp::Tensor> args = {randomTensor(ctx, {kWidth}, 1), randomTensor(ctx, {kWidth}, 2),
                                        randomTensor(ctx, {c.length, kWidth}, 3)};
    Run plain = run(ctx, {.reverse = c.reverse}, args);
    Run revolve = run(ctx, {.reverse = c.reverse, .snapshots = c.snapshots}, args);
    CHECK(plain.tanhRuns == c.length);
    CHECK(revolve.tanhRuns == c.length + mlir::cotangent::revolveAdvances(c.length, c.snapshots));
    REQUIRE(revolve.outputs.size() == plain.outputs.size());
    // The value and the carry's and xs' cotangents come out of the same
    // operations in the same order; the const's is summed in the same order.
    for (size_t k = 0; k < plain.outputs.size(); ++k)
      for (int64_t i = 0; i < plain.outputs[k].getNumElements(); ++i)
        REQUIRE(revolve.outputs[k].getDouble(i) == plain.outputs[k].getDouble(i));
  }
}

TEST_CASE("revolve scan: gradients match central differences", "[scan][revolve]") {
  mlir::MLIRContext ctx;
  const int64_t L = 9;
  std::vector<interp::Tensor> args = {randomTensor(ctx, {kWidth}, 4), randomTensor(ctx, {kWidth}, 5),
                                      randomTensor(ctx, {L, kWidth}, 6)};
  ScanOptions opts{.snapshots = 2};
  Run r = run(ctx, opts, args);
  for (size_t a = 0; a < args.size(); ++a)
    for (int64_t i = 0; i < args[a].getNumElements(); ++i) {
      std::vector<interp::Tensor> plus = args, minus = args;
      plus[a] = args[a].clone();
      minus[a] = args[a].clone();
      plus[a].setDouble(i, args[a].getDouble(i) + 1e-6);
      minus[a].setDouble(i, args[a].getDouble(i) - 1e-6);
      double fd = (run(ctx, opts, plus).outputs[0].getDouble(0) -
                   run(ctx, opts, minus).outputs[0].getDouble(0)) / 2e-6;
      INFO("argument " << a << ", element " << i);
      CHECK(r.outputs[1 + a].getDouble(i) == Approx(fd).epsilon(1e-6).margin(1e-9));
    }
}

TEST_CASE("revolve scan: bad snapshot counts are errors", "[scan][revolve]") {
  mlir::MLIRContext ctx;
  std::vector<interp::Tensor> args = {randomTensor(ctx, {kWidth}, 1), randomTensor(ctx, {kWidth}, 2),
                                      randomTensor(ctx, {4, kWidth}, 3)};
  TraceOptions traceOpts;
  traceOpts.context = &ctx;
  CHECK_THROWS_WITH(trace(traceOpts, recurrent({.snapshots = 0}), specOf(args[0]),
                          specOf(args[1]), specOf(args[2])),
                    Catch::Contains("snapshots must be at least 1, got 0"));
  CHECK_THROWS_WITH(trace(traceOpts, recurrent({.checkpoint_lengths = {2, 2}, .snapshots = 2}),
                          specOf(args[0]), specOf(args[1]), specOf(args[2])),
                    Catch::Contains("takes checkpoint_lengths or snapshots, not both"));
}

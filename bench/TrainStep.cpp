//===- TrainStep.cpp - the optimizer's cost in a compiled training step ---===//

#include "bench/TrainStep.h"

#include "bench/HostAllocations.h"
#include "bench/MlpModel.h"
#include "bench/PolicyFigures.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>

using namespace cotangent;

namespace {

using Params = std::map<std::string, Tensor>;
using HostParams = std::map<std::string, interp::Tensor>;

/// Seconds of `f()`, median of `repeats` after one warm-up.
template <class F>
double timed(unsigned repeats, F &&f) {
  f();
  std::vector<double> seconds;
  for (unsigned r = 0; r < repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  return bench::median(seconds);
}

/// Bytes per second one thread moves copying a `bytes` buffer (read plus
/// write counted), median of `repeats`: what a memory-bound update is held to.
double copyBandwidth(size_t bytes, unsigned repeats) {
  std::vector<char> from(bytes, 1), to(bytes, 0);
  double seconds = timed(repeats, [&] { std::memcpy(to.data(), from.data(), bytes); });
  return 2.0 * static_cast<double>(bytes) / seconds;
}

} // namespace

int bench::benchTrainStep(const TrainStepOptions &o) {
  MlpTrainingData data = mlpTrainingData({.layers = o.layers, .width = o.width, .batch = o.batch});
  HostParams params = data.params;
  interp::Tensor x = data.x, y = data.y;
  auto mlpLoss = &mlpRegressionLoss;
  optim::GradientTransformation tx = mlpOptimizer();

  auto bare = jit(value_and_grad(mlpLoss, argnums<0>));
  auto update = jit([&](const Params &p, const optim::State &s, const Params &g) {
    auto [u, next] = optim::update(tx, g, s, p);
    return std::pair{optim::apply_updates(p, u), next};
  });
  auto whole = jit(mlpTrainStep(tx));
  // The same step with parameters and state donated: the update is written
  // over them (it trains on from its own results, a copy of the start).
  auto donated = jit(mlpTrainStep(tx), {.donate = {0, 1}});
  optim::StateOf<interp::Tensor> state = jit([&](const Params &p) { return optim::init(tx, p); })(params);
  HostParams grads = bare(params, x, y).second;
  auto copyOf = [](const auto &tree) {
    return tree_map([](const interp::Tensor &t) { return t.clone(); }, tree);
  };
  HostParams donatedParams = copyOf(params);
  optim::StateOf<interp::Tensor> donatedState = copyOf(state);

  double bareSeconds = timed(o.repeats, [&] { bare(params, x, y); });
  int64_t barePeak = bare.last_stats().peakBytes;
  double updateSeconds = timed(o.repeats, [&] { update(params, state, grads); });
  double wholeSeconds = timed(o.repeats, [&] { whole(params, state, x, y); });
  int64_t wholePeak = whole.last_stats().peakBytes;
  // Per call, after the first (which compiles): host time outside the
  // compiled code, and host allocations (operator new) of the call.
  struct HostCost {
    std::vector<double> seconds, allocations, inside;
  };
  auto measured = [&](HostCost &cost, auto &&step) {
    return timed(o.repeats, [&] {
      const uint64_t allocated = hostAllocations(), inside = compiledCodeAllocations();
      auto start = std::chrono::steady_clock::now();
      step();
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      const uint64_t insideNow = compiledCodeAllocations() - inside;
      cost.allocations.push_back(static_cast<double>(hostAllocations() - allocated - insideNow));
      cost.inside.push_back(static_cast<double>(insideNow));
      cost.seconds.push_back(seconds - donated.last_seconds());
    });
  };
  HostCost returned, into;
  double donatedSeconds = measured(returned, [&] {
    auto [p, s, value] = donated(donatedParams, donatedState, x, y);
    donatedParams = std::move(p);
    donatedState = std::move(s);
  });
  // The same step's results written into the trees it was given.
  interp::Tensor loss(mlir::RankedTensorType::get({}, mlir::Float32Type::get(x.getType().getContext())));
  double intoSeconds = measured(into, [&] {
    donated.call_into(std::tie(donatedParams, donatedState, loss), donatedParams, donatedState, x, y);
  });
  for (HostCost *cost : {&returned, &into}) { // the first call of each: compiling, warming
    cost->seconds.erase(cost->seconds.begin());
    cost->allocations.erase(cost->allocations.begin());
    cost->inside.erase(cost->inside.begin());
  }
  int64_t donatedPeak = donated.last_stats().peakBytes;

  int64_t parameterBytes = o.layers * o.width * o.width * 4;
  std::printf("training step of the %lld x %lld MLP, batch %lld (median of %u; %lld MiB of "
              "parameters, AdamW state twice that)\n",
              static_cast<long long>(o.layers), static_cast<long long>(o.width),
              static_cast<long long>(o.batch), o.repeats,
              static_cast<long long>(parameterBytes >> 20));
  std::printf("  %-52s %10s %12s\n", "", "ms", "peak MiB");
  std::printf("  %-52s %10.3f %12.1f\n", "value_and_grad (bare step)", bareSeconds * 1e3,
              static_cast<double>(barePeak) / (1 << 20));
  std::printf("  %-52s %10.3f %12s\n", "clipped AdamW update alone (its own jit)",
              updateSeconds * 1e3, "");
  std::printf("  %-52s %10.3f %12.1f\n", "whole step in one jit: loss, grad, clip, AdamW",
              wholeSeconds * 1e3, static_cast<double>(wholePeak) / (1 << 20));
  std::printf("  %-52s %10.3f %12.1f\n", "the same, parameters and state donated",
              donatedSeconds * 1e3, static_cast<double>(donatedPeak) / (1 << 20));
  std::printf("  %-52s %10.3f %12.1f\n", "the same, results into its trees (call_into)",
              intoSeconds * 1e3, static_cast<double>(donatedPeak) / (1 << 20));
  std::printf("  whole / bare: %.3f   whole / (bare + update): %.3f\n", wholeSeconds / bareSeconds,
              wholeSeconds / (bareSeconds + updateSeconds));
  std::printf("  donated / bare: %.3f   donated / (bare + update): %.3f   peak donated - bare: "
              "%.1f MiB\n",
              donatedSeconds / bareSeconds, donatedSeconds / (bareSeconds + updateSeconds),
              static_cast<double>(donatedPeak - barePeak) / (1 << 20));
  // The clipped AdamW update cannot move fewer bytes than 8 passes over
  // parameter-sized arrays: the gradient's norm, then p, g, mu, nu read
  // and p, mu, nu written.
  const double bandwidth = copyBandwidth(static_cast<size_t>(parameterBytes), o.repeats);
  const double updateFloor = 8.0 * static_cast<double>(parameterBytes) / bandwidth;
  std::printf("  memcpy bandwidth %.1f GB/s: the update's 8 passes take at least %.3f ms\n",
              bandwidth / 1e9, updateFloor * 1e3);
  std::printf("  donated / (bare + update at memory bandwidth): %.3f\n",
              donatedSeconds / (bareSeconds + updateFloor));
  for (auto [name, cost] : {std::pair{"returning new trees", &returned},
                             std::pair{"into its trees (call_into)", &into}})
    std::printf("  per donated step %s, outside compiled code: %.1f us of host time, %.0f host "
                "allocations (operator new; medians; %.0f more inside compiled code, by the "
                "libraries it calls)\n",
                name, bench::median(cost->seconds) * 1e6, bench::median(cost->allocations),
                bench::median(cost->inside));
  return 0;
}

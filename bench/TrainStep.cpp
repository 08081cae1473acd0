//===- TrainStep.cpp - the optimizer's cost in a compiled training step ---===//

#include "bench/TrainStep.h"

#include "bench/PolicyFigures.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <chrono>
#include <cmath>
#include <cstdio>

using namespace cotangent;

namespace {

using Params = std::map<std::string, Tensor>;
using HostParams = std::map<std::string, interp::Tensor>;

/// Layers of tanh(h @ W), then the mean squared error against the target.
Tensor mlpLoss(const Params &p, Tensor x, Tensor target) {
  Tensor h = x;
  for (size_t i = 0; i < p.size(); ++i)
    h = np::tanh(np::dot(h, p.at("w" + std::to_string(i))));
  Tensor d = h - target;
  return np::mean(d * d);
}

/// scale * sin(0.37 i + phase) at flat index i: the same data on every machine.
interp::Tensor values(const Shape &shape, double scale, double phase) {
  return array::from_function(shape, [&](int64_t i) { return scale * std::sin(0.37 * i + phase); });
}

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

} // namespace

int bench::benchTrainStep(const TrainStepOptions &o) {
  HostParams params;
  for (int64_t i = 0; i < o.layers; ++i)
    params.emplace("w" + std::to_string(i),
                   values({o.width, o.width}, 1.0 / std::sqrt(static_cast<double>(o.width)),
                          0.1 * static_cast<double>(i)));
  interp::Tensor x = values({o.batch, o.width}, 1.0, 0.5), y = values({o.batch, o.width}, 0.5, 1.5);
  optim::GradientTransformation tx =
      optim::chain({optim::clip_by_global_norm(1.0),
                    optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 1e-3, 10, 1000), {}, 0.01)});

  auto bare = jit(value_and_grad(mlpLoss, argnums<0>));
  auto update = jit([&](const Params &p, const optim::State &s, const Params &g) {
    auto [u, next] = optim::update(tx, g, s, p);
    return std::pair{optim::apply_updates(p, u), next};
  });
  auto whole = jit([&](const Params &p, const optim::State &s, Tensor in, Tensor target) {
    auto [value, grads] = value_and_grad(mlpLoss, argnums<0>)(p, in, target);
    auto [u, next] = optim::update(tx, grads, s, p);
    return std::tuple{optim::apply_updates(p, u), next, value};
  });
  optim::StateOf<interp::Tensor> state = jit([&](const Params &p) { return optim::init(tx, p); })(params);
  HostParams grads = bare(params, x, y).second;

  double bareSeconds = timed(o.repeats, [&] { bare(params, x, y); });
  int64_t barePeak = bare.last_stats().peakBytes;
  double updateSeconds = timed(o.repeats, [&] { update(params, state, grads); });
  double wholeSeconds = timed(o.repeats, [&] { whole(params, state, x, y); });
  int64_t wholePeak = whole.last_stats().peakBytes;

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
  std::printf("  whole / bare: %.3f   whole / (bare + update): %.3f\n", wholeSeconds / bareSeconds,
              wholeSeconds / (bareSeconds + updateSeconds));
  return 0;
}

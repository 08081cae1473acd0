//===- DeviceTrainLoop.cpp - a training loop whose state stays on the GPU -===//

#include "bench/DeviceTrainLoop.h"

#include "bench/MlpModel.h"
#include "bench/PolicyFigures.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <optional>

using namespace cotangent;

namespace {

using Clock = std::chrono::steady_clock;
using HostParams = std::map<std::string, interp::Tensor>;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// How the host loop reads the loss.
enum class Reads { EveryStep, OneBehind, LastOnly };

} // namespace

int bench::benchDeviceTrainLoop(const DeviceTrainLoopOptions &o) {
  MlpTrainingData data = mlpTrainingData({.layers = o.layers, .width = o.width, .batch = o.batch});
  optim::GradientTransformation tx = mlpOptimizer();
  auto state = jit([&](const std::map<std::string, Tensor> &p) { return optim::init(tx, p); })(
      data.params);
  auto step = jit(mlpTrainStep(tx), {.donate = {0, 1}, .target = Target::Cuda});
  try {
    device_put(data.x);
  } catch (const TraceError &e) {
    std::printf("device-loop: skipped: %s\n", e.what());
    return 0;
  }
  HostParams params = device_put(data.params);
  optim::StateOf<interp::Tensor> opt = device_put(state);
  interp::Tensor x = device_put(data.x), y = device_put(data.y);
  // The first call compiles and uploads the step's constants.
  std::tie(params, opt, std::ignore) = step(params, opt, x, y);

  // One loop of o.steps steps; returns its seconds, and the loss it read last.
  std::vector<double> enqueue; // host seconds per call of the LastOnly loops
  auto loop = [&](Reads reads, double &lastLoss) {
    std::optional<interp::Tensor> previous;
    auto start = Clock::now();
    for (unsigned i = 0; i < o.steps; ++i) {
      auto call = Clock::now();
      auto [next, nextOpt, value] = step(params, opt, x, y);
      if (reads == Reads::LastOnly)
        enqueue.push_back(secondsSince(call));
      params = std::move(next);
      opt = std::move(nextOpt);
      if (reads == Reads::EveryStep)
        lastLoss = value.getDouble(0);
      else if (reads == Reads::OneBehind && i > 0)
        lastLoss = previous->getDouble(0); // step i is queued behind it
      previous = std::move(value);
    }
    if (reads != Reads::EveryStep)
      lastLoss = previous->getDouble(0); // waits for the last step
    return secondsSince(start);
  };
  std::map<Reads, std::vector<double>> seconds;
  double lastLoss = 0;
  for (unsigned r = 0; r <= o.repeats; ++r) // the first round warms up
    for (Reads reads : {Reads::EveryStep, Reads::OneBehind, Reads::LastOnly}) {
      double s = loop(reads, lastLoss);
      if (r > 0)
        seconds[reads].push_back(s / o.steps);
      if (!std::isfinite(lastLoss)) {
        std::fprintf(stderr, "device-loop: the loss is %g\n", lastLoss);
        return 1;
      }
    }
  enqueue.erase(enqueue.begin(), enqueue.begin() + o.steps); // the warm-up round's

  const double bare = median(seconds[Reads::LastOnly]);
  std::printf("donated AdamW training loop of the %lld x %lld MLP, batch %lld, on the GPU "
              "(%u steps a loop, median of %u loops; parameters, state and batch on the device)\n",
              static_cast<long long>(o.layers), static_cast<long long>(o.width),
              static_cast<long long>(o.batch), o.steps, o.repeats);
  std::printf("  %-58s %10s %8s\n", "", "ms/step", "/ bare");
  for (auto [reads, name] :
       {std::pair{Reads::LastOnly, "bare: steps back to back, the last loss read"},
        std::pair{Reads::OneBehind, "loop reading each loss one step behind"},
        std::pair{Reads::EveryStep, "loop reading each loss after its step"}}) {
    const double s = median(seconds[reads]);
    std::printf("  %-58s %10.4f %8.3f\n", name, s * 1e3, s / bare);
  }
  std::printf("  host time per call launching a step: %.1f us (median); last loss %.6g\n",
              median(enqueue) * 1e6, lastLoss);
  return 0;
}

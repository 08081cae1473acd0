//===- DeviceCollectivesTest.cpp - collectives compiled for the GPU -------===//
//
// jx's collectives compiled for the GPU run over NCCL on a communication
// stream (runtime/cuda/CudaCollectives.cpp). One process is a group of one
// rank: every collective, compiled for the GPU, equals the same function
// compiled for the CPU bit for bit (integer-valued operands), and a
// data-parallel AdamW step (pmean of the gradients and the loss) equals the
// same step without collectives on the GPU. Where
// NCCL cannot be opened (the driver double; a GPU machine without
// COTANGENT_NCCL_LIBRARY pointing at one), compiling says why, and nothing
// runs. Part of cotangent-gpu-array-tests (DeviceArraysTest.cpp has the
// main): [host] without flags, [device] with --device-tests (SKIPPED without
// a GPU), on the double with --driver-double.
//
//===----------------------------------------------------------------------===//

#include <catch2/catch.hpp>

#include "bench/MlpModel.h"
#include "runtime/cuda/CudaRuntime.h"
#include "tracer/Array.h"
#include "tracer/Collectives.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <dlfcn.h>

#include <cmath>

using namespace cotangent;

namespace {

/// The driver double (test/gpu/fake-cuda) computes nothing: no values to compare.
bool onDriverDouble() {
  void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  return driver && dlsym(driver, "fakeCudaCopies");
}

interp::Tensor values(Shape shape, int seed) {
  std::vector<float> v(static_cast<size_t>(shape[0] * shape[1]));
  for (size_t i = 0; i < v.size(); ++i)
    v[i] = static_cast<float>((seed * 7 + static_cast<int>(i) * 3) % 11 - 5);
  return array::from(v, shape);
}

/// Every collective over a group of one rank.
auto each = [](const Tensor &x, const Tensor &y) {
  return std::tuple{lax::psum(x, "r"),
                    lax::pmean(x, "r"),
                    lax::all_gather(x, "r", 1, 0),
                    lax::all_gather(y, "r", 1, 0, true),
                    lax::psum_scatter(x, "r", 1, 0, true),
                    lax::ppermute(y, "r", {{0, 0}}),
                    lax::axis_index("r")};
};

} // namespace

TEST_CASE("without a GPU, collectives compiled for it fail with the reason", "[host]") {
  if (cotangent_cuda_init() == 0)
    return; // a GPU is there: the [device] case covers it
  CHECK_THROWS_WITH(jit(each, {.target = Target::Cuda})(values({2, 3}, 0), values({1, 4}, 1)),
                    Catch::Contains("no CUDA device"));
}

TEST_CASE("collectives on the GPU equal the CPU's (NCCL, one rank)", "[device]") {
  const interp::Tensor x = values({2, 3}, 0), y = values({1, 4}, 1);
  const char *why = nullptr;
  if (!cotangent_cuda_collectives_ready(&why)) {
    INFO("NCCL: " << why);
    CHECK_THROWS_WITH(jit(each, {.target = Target::Cuda})(x, y),
                      Catch::Contains("collectives on the GPU: "));
    WARN("collectives on the GPU not run: " << why);
    return;
  }
  auto gpu = jit(each, {.target = Target::Cuda})(x, y);
  auto cpu = jit(each)(x, y);
  if (onDriverDouble())
    return;
  std::vector<interp::Tensor> got, want;
  std::apply([&](const auto &...t) { (got.push_back(to_host(t)), ...); }, gpu);
  std::apply([&](const auto &...t) { (want.push_back(t), ...); }, cpu);
  for (size_t i = 0; i < got.size(); ++i) {
    INFO("result " << i);
    REQUIRE(got[i].getType() == want[i].getType());
    for (int64_t e = 0; e < want[i].getNumElements(); ++e)
      CHECK(got[i].getDouble(e) == want[i].getDouble(e));
  }
}

TEST_CASE("a data-parallel AdamW step over NCCL (one rank) equals the step without collectives",
          "[device]") {
  if (!cotangent_cuda_collectives_ready(nullptr) || onDriverDouble())
    return; // the case above says why
  using Params = std::map<std::string, interp::Tensor>;
  bench::MlpTrainingData data = bench::mlpTrainingData({.layers = 3, .width = 64, .batch = 16});
  optim::GradientTransformation tx = bench::mlpOptimizer();
  // llm.c's and DDP's step: the gradients (and the loss) averaged over the ranks.
  auto parallel = [tx](const std::map<std::string, Tensor> &p, const optim::State &s, Tensor x,
                       Tensor target) {
    auto [value, grads] = value_and_grad(&bench::mlpRegressionLoss, argnums<0>)(p, x, target);
    auto [updates, next] = optim::update(tx, lax::pmean(grads, "r"), s, p);
    return std::tuple{optim::apply_updates(p, updates), next, lax::pmean(value, "r")};
  };
  auto state = jit([&](const std::map<std::string, Tensor> &p) { return optim::init(tx, p); })(
      data.params);
  auto withNccl = jit(parallel, {.target = Target::Cuda});
  auto without = jit(bench::mlpTrainStep(tx), {.target = Target::Cuda});
  Params p = data.params, q = data.params;
  auto s = state, t = state;
  for (int step = 0; step < 5; ++step) {
    INFO("step " << step);
    auto [p1, s1, loss1] = withNccl(p, s, data.x, data.y);
    auto [q1, t1, loss2] = without(q, t, data.x, data.y);
    CHECK(std::fabs(loss1.getDouble(0) - loss2.getDouble(0)) <=
          1e-6 * std::fabs(loss2.getDouble(0)));
    p = to_host(p1), s = s1, q = to_host(q1), t = t1;
  }
  for (const auto &[name, leaf] : p) {
    INFO(name);
    for (int64_t e = 0; e < leaf.getNumElements(); ++e)
      CHECK(std::fabs(leaf.getDouble(e) - q.at(name).getDouble(e)) <=
            1e-6 * (1 + std::fabs(q.at(name).getDouble(e))));
  }
}

//===- DeviceArraysTest.cpp - jit's arrays that stay on the GPU -----------===//
//
// jit(f, {.target = Target::Cuda}) leaves its results in the GPU's memory
// and reads arrays already there in place: a training loop whose
// parameters, optimizer state and batch were put on the device once copies
// nothing between host and device but the loss it reads each step (counted
// by the driver double, test/gpu/fake-cuda). device_put / to_host move
// arrays both ways bit for bit; a donated step writes over its arrays
// where they are; on a GPU, the loop's losses and parameters match the
// same step compiled for the CPU.
//
// Three ctest tests run this: without flags the cases that need no device
// (clear errors where there is none); `--device-tests --driver-double` on
// the double (kernels compute nothing there: values are not compared,
// copies, residency and donation are); `--device-tests` on a GPU (exits 77,
// SKIPPED, without one).
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test/gpu/DeviceTestMain.h"

#include "bench/MlpModel.h"
#include "runtime/cuda/CudaRuntime.h"
#include "tracer/Array.h"
#include "tracer/Jit.h"
#include "tracer/optim/Transforms.h"

#include <dlfcn.h>

#include <cmath>
#include <cstring>

using namespace cotangent;

namespace {

using Params = std::map<std::string, interp::Tensor>;
using TracedParams = std::map<std::string, Tensor>;

/// False on the driver double: kernels compute nothing there.
bool kernelsRun = true;

/// Host<->device copies so far, {to the device, bytes, to the host, bytes},
/// as the driver double counts them; nullopt on a real driver.
std::optional<std::array<unsigned long long, 4>> copies() {
  void *driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
  auto *count = driver ? reinterpret_cast<void (*)(unsigned long long *)>(
                             dlsym(driver, "fakeCudaCopies"))
                       : nullptr;
  if (!count)
    return std::nullopt;
  std::array<unsigned long long, 4> c;
  count(c.data());
  return c;
}

/// The bench's small MLP and a clipped AdamW: train_step(params, state, x,
/// y) -> (params, state, loss).
struct Mlp {
  bench::MlpTrainingData data = bench::mlpTrainingData({.layers = 3, .width = 64, .batch = 16});
  optim::GradientTransformation tx = optim::chain(
      {optim::clip_by_global_norm(1.0),
       optim::adamw(optim::warmup_cosine_decay_schedule(0.0, 1e-2, 5, 100), {}, 0.01)});

  auto trainStep() const { return bench::mlpTrainStep(tx); }
  optim::StateOf<interp::Tensor> init() const {
    return jit([this](const TracedParams &p) { return optim::init(tx, p); })(data.params);
  }
};

void requireClose(const interp::Tensor &a, const interp::Tensor &b, double tolerance) {
  REQUIRE(a.getType() == b.getType());
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    REQUIRE(std::fabs(a.getDouble(i) - b.getDouble(i)) <=
            tolerance * (1 + std::fabs(b.getDouble(i))));
}

} // namespace

TEST_CASE("without a GPU, device_put and jit for the GPU fail with the reason", "[host]") {
  if (cotangent_cuda_init() == 0) {
    WARN("this machine has a GPU: the [device] cases run there");
    return;
  }
  auto a = array::full({4}, 1.0);
  CHECK_THROWS_WITH(device_put(a), Catch::Contains("device_put: cannot run on the GPU: no CUDA "
                                                   "device"));
  auto f = jit([](Tensor x) { return x * 2.0; }, {.target = Target::Cuda});
  CHECK_THROWS_WITH(f(a), Catch::Contains("cannot run on the GPU: no CUDA device"));
  // On the host, to_host is the identity and device_put(Cpu) too.
  CHECK(to_host(a).getBufferId() == a.getBufferId());
}

TEST_CASE("device_put and to_host move arrays bit for bit; reading copies once", "[device]") {
  std::vector<float> values{1.5f, -2.25f, 3.0f, 1e-3f, 7.0f, -0.5f};
  auto a = array::from(values, {2, 3});
  Params tree{{"a", a}, {"b", array::full({5}, 4.0, DType::BF16)}};
  auto before = copies();
  Params onDevice = device_put(tree);
  for (const auto &[name, leaf] : onDevice) {
    INFO(name);
    CHECK(leaf.isOnDeviceOnly());
    CHECK(leaf.getType() == tree.at(name).getType());
  }
  if (before) { // one copy to the device per leaf, none back
    auto after = *copies();
    CHECK(after[0] - (*before)[0] == 2);
    CHECK(after[1] - (*before)[1] == 6 * 4 + 5 * 2);
    CHECK(after[2] == (*before)[2]);
  }
  Params back = to_host(onDevice);
  for (const auto &[name, leaf] : back) {
    INFO(name);
    CHECK_FALSE(leaf.isOnDeviceOnly());
    CHECK(std::memcmp(leaf.data(), tree.at(name).data(), leaf.getByteSize()) == 0);
  }
  // The device's copy stays with the device array, now also on the host:
  // reading it again copies nothing; writing on the host leaves the device.
  auto mid = copies();
  CHECK(onDevice.at("a").getDouble(1) == -2.25);
  if (mid)
    CHECK((*copies())[2] == (*mid)[2]);
  interp::Tensor written = onDevice.at("a");
  written.setDouble(0, 9.0);
  CHECK(onDevice.at("a").getDouble(0) == 1.5);
  CHECK(written.getDouble(0) == 9.0);
  // device_put of an array already there is that array.
  CHECK(device_put(onDevice.at("b")).getBufferId() == onDevice.at("b").getBufferId());
}

TEST_CASE("a 100-step donated AdamW loop on the GPU copies only the losses it reads",
          "[device]") {
  Mlp mlp;
  auto state = mlp.init();
  auto step = jit(mlp.trainStep(), {.donate = {0, 1}, .target = Target::Cuda});
  // Everything on the device once.
  Params params = device_put(mlp.data.params);
  auto opt = device_put(state);
  interp::Tensor x = device_put(mlp.data.x), y = device_put(mlp.data.y);
  // The first call compiles (and uploads the step's constants once).
  std::tie(params, opt, std::ignore) = step(params, opt, x, y);

  auto before = copies();
  std::vector<double> losses;
  for (int i = 0; i < 100; ++i) {
    Params given = params;
    auto [next, nextOpt, loss] = step(params, opt, x, y);
    // The parameters are written over where they were, and never came over.
    CHECK(given.at("w0").isDonated());
    CHECK(next.at("w0").isOnDeviceOnly());
    losses.push_back(loss.getDouble(0)); // the one read: a copy of 4 bytes
    params = std::move(next);
    opt = std::move(nextOpt);
  }
  if (before) {
    auto after = *copies();
    INFO("to the device: " << after[0] - (*before)[0] << " copies, " << after[1] - (*before)[1]
                           << " bytes; to the host: " << after[2] - (*before)[2] << " copies, "
                           << after[3] - (*before)[3] << " bytes");
    CHECK(after[0] == (*before)[0]);
    CHECK(after[2] - (*before)[2] == 100);
    CHECK(after[3] - (*before)[3] == 100 * 4);
  }
  for (const auto &[name, leaf] : params)
    CHECK(leaf.isOnDeviceOnly());
  if (!kernelsRun)
    return;

  // The same steps compiled for the CPU, from the same start.
  auto cpuStep = jit(mlp.trainStep());
  Params p = mlp.data.params;
  auto s = state;
  std::vector<double> cpuLosses;
  for (int i = 0; i < 101; ++i) {
    auto [next, nextS, loss] = cpuStep(p, s, mlp.data.x, mlp.data.y);
    if (i > 0)
      cpuLosses.push_back(loss.getDouble(0));
    p = next, s = nextS;
  }
  for (size_t i = 0; i < losses.size(); ++i) {
    INFO("step " << i + 2);
    CHECK(std::fabs(losses[i] - cpuLosses[i]) <= 1e-4 * (1 + std::fabs(cpuLosses[i])));
  }
  Params back = to_host(params);
  for (const auto &[name, leaf] : back) {
    INFO(name);
    requireClose(leaf, p.at(name), 1e-3);
  }
}

int main(int argc, char **argv) {
  return cotangent::test::runDeviceTests(argc, argv, kernelsRun);
}

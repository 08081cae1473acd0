// The memory plan's prediction against the CPU runtime's measurement: for
// every split of the examples (jx IR and the traced MLP), of the GPU inputs
// (scan, cond, offload) and of random programs under every policy, the
// predicted peak and residual bytes equal what runSplit measures, byte for
// byte. Where a jx.cond makes the peak depend on the data, the measured peak
// is one of the predicted paths' (between the smallest and the largest).
// A lax.switch on an argument (or on data) is planned over every branch:
// the worst branch's peak is the plan's, and every index runs within it.
// A scan with `snapshots = s` saves exactly one carry more per snapshot and
// peaks two carries higher (the backward writes snapshots into its own copy
// of the saved ones, which are read-only as every residual is).
#include "test/support/RandomPrograms.h"
#include "test/support/WithinBound.h"
#include "test/unit/cpu/PlanningContext.h"

#include "analysis/MemoryPlan.h"
#include "bench/MlpModel.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/host/JitEngine.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/MemoryBuffer.h"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace autodiff;
using namespace randomprograms;
using cotangent::interp::Tensor;

namespace {

Tensor ones(mlir::RankedTensorType type) {
  return Tensor::fromDoubles(type, std::vector<double>(type.getNumElements(), 1.0));
}

/// Predicts every split of `module`, runs each on the CPU, compares.
/// Returns the number of splits checked.
int checkPredictions(mlir::ModuleOp module, uint64_t seed) {
  auto plans = mlir::cotangent::predictMemoryPlans(module);
  REQUIRE(mlir::succeeded(plans));
  // Allocation order is fixed before LLVM runs: -O0 measures the same bytes.
  auto compiled = cotangent::cpu::CpuModule::compile(
      module, cotangent::cpu::CompileOptions{.optLevel = 0, .keepLoweredModule = false});
  REQUIRE(mlir::succeeded(compiled));
  std::mt19937_64 rng(seed);
  for (const mlir::cotangent::MemoryPlan &plan : *plans) {
    INFO("split @" << plan.name);
    auto pair = mlir::jx::lookupSplitPair(module, plan.name);
    REQUIRE(pair);
    std::vector<Tensor> args, cotangents;
    for (mlir::Type t : pair->fwd.getArgumentTypes())
      args.push_back(random(mlir::cast<mlir::RankedTensorType>(t), rng));
    auto outputs = pair->fwd.getResultTypes().take_front(mlir::jx::numPrimalResults(pair->fwd));
    for (mlir::Type t : outputs)
      cotangents.push_back(ones(mlir::cast<mlir::RankedTensorType>(t)));
    auto measured = (*compiled)->runSplit(plan.name, args, cotangents);
    REQUIRE(mlir::succeeded(measured));
    CHECK(plan.residualBytes == measured->residualBytes);
    CHECK(plan.argumentResidualBytes == measured->argumentResidualBytes);
    if (plan.paths == 1) {
      CHECK(plan.peakBytes == measured->peakBytes);
    } else {
      CHECK(plan.minPeakBytes <= measured->peakBytes);
      CHECK(measured->peakBytes <= plan.peakBytes);
    }
    // The plan's own bookkeeping: the timeline's last peak is the peak.
    int64_t most = 0;
    for (const auto &e : plan.timeline)
      most = std::max(most, e.live);
    CHECK(most == plan.peakBytes);
  }
  return static_cast<int>(plans->size());
}

void vjpAndRemat(mlir::ModuleOp module) {
  mlir::PassManager pm(module.getContext());
  pm.addPass(mlir::cotangent::createJxVjpPass());
  pm.addPass(mlir::cotangent::createJxRematPass());
  REQUIRE(mlir::succeeded(pm.run(module)));
}

} // namespace

TEST_CASE("memory plan: predicted = measured for the jx examples and GPU inputs",
          "[cpu][memory][plan]") {
  mlir::MLIRContext &ctx = planningContext();
  int splits = 0;
  for (const char *dir : {COTANGENT_EXAMPLES_DIR, COTANGENT_GPU_INPUTS_DIR}) {
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
      if (entry.path().extension() != ".mlir")
        continue;
      INFO("file " << entry.path());
      auto buffer = llvm::MemoryBuffer::getFile(entry.path().string());
      REQUIRE(buffer);
      auto module = mlir::parseSourceString<mlir::ModuleOp>((*buffer)->getBuffer(), &ctx);
      REQUIRE(module);
      vjpAndRemat(*module);
      splits += checkPredictions(*module, 11);
    }
  }
  CHECK(splits >= 14);
}

TEST_CASE("memory plan: predicted = measured for the traced MLP under each policy",
          "[cpu][memory][plan]") {
  mlir::MLIRContext &ctx = planningContext();
  const cotangent::bench::MlpConfig config{.layers = 3, .width = 32, .batch = 8, .richActivation = true};
  const std::vector<std::optional<cotangent::Policy>> policies = {
      std::nullopt,
      cotangent::policies::nothing_saveable(),
      cotangent::policies::dots_saveable(),
      cotangent::policies::save_only_these_names(cotangent::bench::mlpLayerNames(config.layers)),
      cotangent::policies::min_residual_bytes(),
      cotangent::policies::memory_budget(0.7),
      cotangent::policies::memory_budget(40000),
  };
  for (const auto &policy : policies) {
    auto module = cotangent::bench::traceMlp(ctx, config, policy).takeModule();
    vjpAndRemat(*module);
    CHECK(checkPredictions(*module, 5) == 1);
  }
}

TEST_CASE("memory plan: predicted = measured for random programs under every policy",
          "[cpu][memory][plan][property]") {
  planningContext();
  constexpr int kPrograms = 24;
  int splits = 0;
  for (int n = 0; n < kPrograms; ++n) {
    Program program = Generator(5000 + n).generate();
    std::string text = Printer(program).print();
    // One module per program: a copy of @f per policy, compiled once.
    std::string source;
    std::vector<std::string> policies = allPolicies();
    for (size_t k = 0; k < policies.size(); ++k) {
      std::string copy = withPolicies(text, program, [&](int) { return policies[k]; });
      size_t at = copy.find("func.func @f(");
      REQUIRE(at != std::string::npos);
      copy.replace(at, 13, "func.func @f" + std::to_string(k) + "(");
      source += copy + "\n";
    }
    INFO("program " << n << ":\n" << text);
    auto module = parse(source);
    vjpAndRemat(*module);
    splits += checkPredictions(*module, n);
  }
  CHECK(splits == kPrograms * static_cast<int>(allPolicies().size()));
}

TEST_CASE("memory plan: random programs with data-dependent conds and switches",
          "[cpu][memory][plan][property][switch]") {
  planningContext();
  int splits = 0, withPaths = 0;
  for (int n = 0; n < 40; ++n) {
    Generator generator(7000 + n);
    generator.controlFlow = true;
    Program program = generator.generate();
    std::string text = Printer(program).print();
    INFO("program " << n << ":\n" << text);
    auto module = parse(withPolicies(text, program, [](int) { return "nothing_saveable"; }));
    vjpAndRemat(*module);
    auto plans = mlir::cotangent::predictMemoryPlans(*module);
    REQUIRE(mlir::succeeded(plans));
    withPaths += plans->front().paths > 1;
    splits += checkPredictions(*module, n);
  }
  CHECK(splits == 40);
  CHECK(withPaths > 0); // some programs branch on their data
}

TEST_CASE("memory plan: a lax.switch on an argument is planned over its branches and runs "
          "for every index",
          "[cpu][memory][plan][switch][numerics]") {
  mlir::MLIRContext &ctx = planningContext();
  // Three branches of different appetites: sin saves cos; exp(a) * a saves
  // exp(a) and a; tanh through a 64 x 64 outer product saves its temporaries.
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
func.func @f(%i: tensor<i32>, %x: tensor<64xf32>) -> tensor<f32> {
  %r = jx.cond %i (%x) : tensor<i32>, (tensor<64xf32>) -> tensor<64xf32> {
  ^bb0(%a: tensor<64xf32>):
    %0 = jx.sin %a : tensor<64xf32>
    jx.yield %0 : tensor<64xf32>
  }, {
  ^bb0(%a: tensor<64xf32>):
    %0 = jx.exp %a : tensor<64xf32>
    %1 = jx.mul %0, %a : tensor<64xf32>
    jx.yield %1 : tensor<64xf32>
  }, {
  ^bb0(%a: tensor<64xf32>):
    %0 = jx.dot_general %a, %a, contracting_dims = [] x [], batch_dims = [] x [] : tensor<64xf32>, tensor<64xf32> -> tensor<64x64xf32>
    %1 = jx.tanh %0 : tensor<64x64xf32>
    %2 = jx.reduce_sum %1, axes = [1] : tensor<64x64xf32> -> tensor<64xf32>
    jx.yield %2 : tensor<64xf32>
  }
  %s = jx.reduce_sum %r, axes = [0] : tensor<64xf32> -> tensor<f32>
  return %s : tensor<f32>
}
)mlir",
                                                         &ctx);
  REQUIRE(module);
  vjpAndRemat(*module);
  auto plans = mlir::cotangent::predictMemoryPlans(*module);
  REQUIRE(mlir::succeeded(plans));
  REQUIRE(plans->size() == 1);
  const mlir::cotangent::MemoryPlan &plan = plans->front();
  CHECK(plan.allPaths);
  CHECK(plan.paths >= 3); // a value for each case and the default
  CHECK(plan.minPeakBytes < plan.peakBytes);

  auto compiled = cotangent::cpu::CpuModule::compile(
      *module, cotangent::cpu::CompileOptions{.optLevel = 0, .keepLoweredModule = false});
  REQUIRE(mlir::succeeded(compiled));
  auto indexType = mlir::RankedTensorType::get({}, mlir::IntegerType::get(&ctx, 32));
  auto xType = mlir::RankedTensorType::get({64}, mlir::Float32Type::get(&ctx));
  std::mt19937_64 rng(3);
  Tensor x = random(xType, rng);
  Tensor seed = ones(mlir::RankedTensorType::get({}, mlir::Float32Type::get(&ctx)));
  int64_t smallest = INT64_MAX, largest = 0;
  // Out-of-range indices clamp to the first and last branch, as in JAX.
  for (int64_t index : {-3, 0, 1, 2, 9}) {
    INFO("index " << index);
    std::vector<Tensor> args = {Tensor::fromInts(indexType, {index}), x};
    auto measured = (*compiled)->runSplit("f", args, {seed});
    REQUIRE(mlir::succeeded(measured));
    CHECK(plan.minPeakBytes <= measured->peakBytes);
    CHECK(measured->peakBytes <= plan.peakBytes);
    smallest = std::min(smallest, measured->peakBytes);
    largest = std::max(largest, measured->peakBytes);
    // Outputs and gradients within the interpreter's derived bounds.
    std::vector<Tensor> vjpArgs = args;
    vjpArgs.push_back(seed);
    auto want = cotangent::test::boundedReference(module->lookupSymbol<mlir::func::FuncOp>("f_vjp"),
                                                  vjpArgs);
    REQUIRE(want.size() == 3);
    cotangent::test::requireWithinBound(measured->outputs[0], want[0]);
    cotangent::test::requireAllWithinBounds(measured->gradients, want, 1);
  }
  // The plan's bound is the worst branch's peak, and the best one's its floor.
  CHECK(largest == plan.peakBytes);
  CHECK(smallest == plan.minPeakBytes);
}

TEST_CASE("memory plan: a revolve scan saves one carry per snapshot, predicted = measured",
          "[cpu][memory][plan][revolve]") {
  mlir::MLIRContext &ctx = planningContext();
  // 64 iterations of h' = tanh(h * w + x) on 1024 floats (4 KiB a carry).
  auto program = [](int64_t snapshots) {
    return R"mlir(
func.func @f(%w: tensor<1024xf32>, %h0: tensor<1024xf32>, %xs: tensor<64x1024xf32>) -> tensor<f32> {
  %c = jx.scan (%w, %h0, %xs) length = 64, consts = 1, carry = 1
      : (tensor<1024xf32>, tensor<1024xf32>, tensor<64x1024xf32>) -> tensor<1024xf32> {
  ^bb0(%wi: tensor<1024xf32>, %h: tensor<1024xf32>, %x: tensor<1024xf32>):
    %0 = jx.mul %h, %wi : tensor<1024xf32>
    %1 = jx.add %0, %x : tensor<1024xf32>
    %2 = jx.tanh %1 : tensor<1024xf32>
    jx.yield %2 : tensor<1024xf32>
  } attributes {snapshots = )mlir" +
           std::to_string(snapshots) + R"mlir( : i64}
  %s = jx.reduce_sum %c, axes = [0] : tensor<1024xf32> -> tensor<f32>
  return %s : tensor<f32>
}
)mlir";
  };
  constexpr int64_t kCarryBytes = 1024 * 4;
  std::vector<int64_t> peaks, residuals;
  for (int64_t s = 1; s <= 10; ++s) {
    INFO("snapshots = " << s);
    auto module = mlir::parseSourceString<mlir::ModuleOp>(program(s), &ctx);
    REQUIRE(module);
    vjpAndRemat(*module);
    REQUIRE(checkPredictions(*module, 3) == 1);
    auto plans = mlir::cotangent::predictMemoryPlans(*module);
    REQUIRE(mlir::succeeded(plans));
    peaks.push_back(plans->front().peakBytes);
    residuals.push_back(plans->front().residualBytes);
  }
  for (int64_t s = 1; s <= 10; ++s) {
    INFO("snapshots = " << s << ": peak " << peaks[s - 1] << ", residuals " << residuals[s - 1]);
    CHECK(peaks[s - 1] - peaks[0] == 2 * (s - 1) * kCarryBytes);
    CHECK(residuals[s - 1] - residuals[0] == (s - 1) * kCarryBytes);
  }
}

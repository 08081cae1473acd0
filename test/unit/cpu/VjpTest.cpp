// The VJP (--jx-vjp --jx-remat) of several programs compiled for the CPU and
// compared with the interpreter; residual bytes measured between @f_fwd and
// @f_bwd against the saved-residuals report; peak bytes under remat policies,
// also after inlining, CSE and LLVM -O3 of the fused @f_value_and_grad.
#include "test/unit/cpu/Compare.h"

#include "bench/MlpModel.h"
#include "passes/Passes.h"
#include "passes/report/Residuals.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

// Not `using namespace cotangent`: its traced Tensor would clash with the
// interpreter's Tensor these tests use.
using namespace cotangent::test;
namespace bench = cotangent::bench;
namespace cpu = cotangent::cpu;
namespace interp = cotangent::interp;
namespace policies = cotangent::policies;

namespace {

/// Runs --jx-vjp --jx-remat on `module` (then -inline -cse with `fuse`).
mlir::OwningOpRef<mlir::ModuleOp> differentiate(mlir::OwningOpRef<mlir::ModuleOp> module,
                                                bool fuse = false) {
  mlir::PassManager pm(&context());
  pm.addPass(mlir::cotangent::createJxVjpPass());
  pm.addPass(mlir::cotangent::createJxRematPass());
  if (fuse) {
    pm.addPass(mlir::createInlinerPass());
    pm.addPass(mlir::createCSEPass());
  }
  REQUIRE(mlir::succeeded(pm.run(*module)));
  return module;
}

const char *kPrograms = R"mlir(
func.func @chain(%W: tensor<5x4xf32>, %x: tensor<4xf32>) -> tensor<f32> {
  %r = jx.remat (%W, %x) : (tensor<5x4xf32>, tensor<4xf32>) -> tensor<5xf32> policy = #jx.policy<nothing_saveable> {
  ^bb0(%w: tensor<5x4xf32>, %v: tensor<4xf32>):
    %0 = jx.dot_general %w, %v, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<5x4xf32>, tensor<4xf32> -> tensor<5xf32>
    %1 = jx.sin %0 : tensor<5xf32>
    %2 = jx.mul %1, %0 : tensor<5xf32>
    jx.yield %2 : tensor<5xf32>
  }
  %e = jx.exp %r : tensor<5xf32>
  %s = jx.reduce_sum %e, axes = [0] : tensor<5xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @shapes(%a: tensor<2x3xf32>, %b: tensor<3xf32>) -> (tensor<3x2xf32>, tensor<f32>) {
  %0 = jx.broadcast_in_dim %b, dims = [1] : tensor<3xf32> -> tensor<2x3xf32>
  %1 = jx.mul %a, %0 : tensor<2x3xf32>
  %2 = jx.transpose %1, perm = [1, 0] : tensor<2x3xf32> -> tensor<3x2xf32>
  %3 = jx.logistic %2 : tensor<3x2xf32>
  %4 = jx.reshape %3 : tensor<3x2xf32> -> tensor<6xf32>
  %5 = jx.slice %4, start = [1], limit = [5], strides = [2] : tensor<6xf32> -> tensor<2xf32>
  %6 = jx.reduce_max %5, axes = [0] : tensor<2xf32> -> tensor<f32>
  return %3, %6 : tensor<3x2xf32>, tensor<f32>
}
func.func @rnn(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<3x4xf32>) -> tensor<f32> {
  %c, %ys = jx.scan (%w, %h0, %xs) length = 3, consts = 1, carry = 1
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<3x4xf32>) -> (tensor<4xf32>, tensor<3x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    %2 = jx.tanh %1 : tensor<4xf32>
    jx.yield %2, %2 : tensor<4xf32>, tensor<4xf32>
  }
  %s = jx.reduce_sum %ys, axes = [0, 1] : tensor<3x4xf32> -> tensor<f32>
  return %s : tensor<f32>
}
func.func @rnn_revolve(%w: tensor<4x4xf32>, %h0: tensor<4xf32>, %xs: tensor<9x4xf32>) -> tensor<f32> {
  %c, %ys = jx.scan (%w, %h0, %xs) length = 9, consts = 1, carry = 1 reverse
      : (tensor<4x4xf32>, tensor<4xf32>, tensor<9x4xf32>) -> (tensor<4xf32>, tensor<9x4xf32>) {
  ^bb0(%wi: tensor<4x4xf32>, %h: tensor<4xf32>, %x: tensor<4xf32>):
    %0 = jx.dot_general %wi, %h, contracting_dims = [1] x [0], batch_dims = [] x [] : tensor<4x4xf32>, tensor<4xf32> -> tensor<4xf32>
    %1 = jx.add %0, %x : tensor<4xf32>
    %2 = jx.tanh %1 : tensor<4xf32>
    %3 = jx.mul %2, %h : tensor<4xf32>
    jx.yield %2, %3 : tensor<4xf32>, tensor<4xf32>
  } attributes {snapshots = 2 : i64}
  %s = jx.reduce_sum %ys, axes = [0, 1] : tensor<9x4xf32> -> tensor<f32>
  %t = jx.reduce_sum %c, axes = [0] : tensor<4xf32> -> tensor<f32>
  %r = jx.add %s, %t : tensor<f32>
  return %r : tensor<f32>
}
)mlir";

/// The forward of the split of @name.
mlir::func::FuncOp forwardOf(mlir::ModuleOp module, llvm::StringRef name) {
  auto pair = mlir::jx::lookupSplitPair(module, name);
  REQUIRE(pair);
  return pair->fwd;
}

int64_t savedBytes(mlir::ModuleOp module, llvm::StringRef name) {
  auto residuals = mlir::cotangent::describeResiduals(forwardOf(module, name));
  REQUIRE(mlir::succeeded(residuals));
  int64_t total = 0;
  for (const auto &r : *residuals)
    total += r.bytes;
  return total;
}

std::vector<Tensor> onesLike(llvm::ArrayRef<mlir::RankedTensorType> types) {
  std::vector<Tensor> out;
  for (auto t : types)
    out.push_back(Tensor::fromDoubles(t, std::vector<double>(t.getNumElements(), 1.0)));
  return out;
}

} // namespace

TEST_CASE("CPU VJPs match the interpreter", "[cpu][vjp][numerics]") {
  auto module = differentiate(parse(kPrograms));
  auto compiled = cpu::CpuModule::compile(*module);
  REQUIRE(mlir::succeeded(compiled));
  for (const char *name : {"chain_vjp", "chain_value_and_grad", "shapes_vjp", "rnn_vjp",
                           "rnn_value_and_grad", "chain_fwd", "rnn_revolve_vjp",
                           "rnn_revolve_value_and_grad"}) {
    {
      INFO("function " << name);
      auto fn = module->lookupSymbol<mlir::func::FuncOp>(name);
      REQUIRE(fn);
      auto args = randomArgs(fn, 7, false);
      compareWithInterpreter(**compiled, *module, name, args);
    }
  }
}

TEST_CASE("CPU split: residual bytes are the saved residuals", "[cpu][memory][numerics]") {
  const bench::MlpConfig config{.layers = 3, .width = 32, .batch = 8};
  const std::vector<std::pair<std::string, std::optional<cotangent::Policy>>> rows = {
      {"no checkpoint", std::nullopt},
      {"nothing_saveable", policies::nothing_saveable()},
      {"dots_saveable", policies::dots_saveable()},
      {"save_only_these_names",
       policies::save_only_these_names(bench::mlpLayerNames(config.layers))},
  };
  for (const auto &[name, policy] : rows) {
    SECTION(name) {
      auto module = differentiate(bench::traceMlp(context(), config, policy).takeModule());
      auto compiled = cpu::CpuModule::compile(*module);
      REQUIRE(mlir::succeeded(compiled));
      auto args = randomArgs(forwardOf(*module, "mlp"), 3, false);
      auto split = (*compiled)->runSplit("mlp", args, onesLike({mlir::RankedTensorType::get({}, mlir::Float32Type::get(&context()))}));
      REQUIRE(mlir::succeeded(split));
      CHECK(split->residualBytes == savedBytes(*module, "mlp"));
      CHECK(split->numResiduals > 0);
      // The gradients agree with the interpreter's @mlp_vjp.
      std::vector<Tensor> vjpArgs(args);
      vjpArgs.push_back(Tensor::fromDoubles(mlir::RankedTensorType::get({}, mlir::Float32Type::get(&context())), {1.0}));
      auto want = boundedReference(module->lookupSymbol<mlir::func::FuncOp>("mlp_vjp"), vjpArgs);
      REQUIRE(want.size() == split->gradients.size() + 1);
      requireWithinBound(split->outputs[0], want[0]);
      for (size_t i = 0; i < split->gradients.size(); ++i)
        requireWithinBound(split->gradients[i], want[i + 1]);
    }
  }
}

TEST_CASE("CPU peak bytes drop under nothing_saveable, also fused at -O3", "[cpu][memory]") {
  // Layers of tanh(sin(h W) * (h W)): without remat each saves four activations.
  const int layers = 4, width = 32, batch = 64;
  const bench::MlpConfig config{
      .layers = layers, .width = width, .batch = batch, .richActivation = true};
  auto scalar = mlir::RankedTensorType::get({}, mlir::Float32Type::get(&context()));
  auto peaks = [&](const std::optional<cotangent::Policy> &policy, bool fused) {
    auto module = differentiate(bench::traceMlp(context(), config, policy).takeModule(), fused);
    auto compiled = cpu::CpuModule::compile(*module);
    REQUIRE(mlir::succeeded(compiled));
    auto args = randomArgs(forwardOf(*module, "mlp"), 5, false);
    if (fused) {
      auto result = (*compiled)->call("mlp_value_and_grad", args);
      REQUIRE(mlir::succeeded(result));
      return result->stats.peakBytes;
    }
    auto split = (*compiled)->runSplit("mlp", args, onesLike({scalar}));
    REQUIRE(mlir::succeeded(split));
    return split->peakBytes;
  };
  const int64_t activation = int64_t(batch) * width * 4;
  int64_t plain = peaks(std::nullopt, false), remat = peaks(policies::nothing_saveable(), false);
  INFO("split: no checkpoint " << plain << " bytes, nothing_saveable " << remat);
  CHECK(remat + 2 * layers * activation <= plain);

  // After -inline -cse and LLVM -O3 the barriers keep the recomputation
  // apart: the forward's activations are not held until the backward pass.
  // Without a checkpoint the fused step already rebuilds each layer's cheap
  // elementwise values from its product in the backward (the lowering's
  // fusion computes them again in each consumer), so per layer it holds one
  // activation more, but for the last layer's, live at the peak either way.
  int64_t plainFused = peaks(std::nullopt, true);
  int64_t rematFused = peaks(policies::nothing_saveable(), true);
  INFO("fused: no checkpoint " << plainFused << " bytes, nothing_saveable " << rematFused);
  CHECK(rematFused + (layers - 1) * activation <= plainFused);
}

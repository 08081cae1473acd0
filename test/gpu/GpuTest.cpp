//===- GpuTest.cpp - the CUDA runtime against the CPU path ----------------===//
//
// Two groups, run as two ctest tests:
//  - without a device: every example's host code (jx-to-nvvm, then the JIT)
//    compiles, and the runtime's entry points fail cleanly;
//  - [device]: every example runs on the GPU and its results and peak device
//    bytes match the CPU runtime's, and its split's the device's memory plan;
//    the offloaded residual comes back intact.
//    With `--device-tests` and no GPU the executable exits 77, which ctest
//    reports as SKIPPED.
//
//===----------------------------------------------------------------------===//

#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include "test/gpu/DeviceTestMain.h"

#include "analysis/MemoryPlan.h"
#include "dialects/jx/JxOps.h"
#include "passes/Passes.h"
#include "runtime/cpu/CpuRuntime.h"
#include "runtime/cuda/CudaBindings.h"
#include "runtime/cuda/CudaModule.h"
#include "runtime/cuda/CudaRuntime.h"
#include "runtime/cuda/KernelProfile.h"
#include "runtime/host/JitEngine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cmath>
#include <cstring>
#include <random>
#include <set>

using namespace mlir;
using ::cotangent::interp::Tensor;

namespace {

const char *kInputs[] = {"seed-g-f", "mlp-relu", "mlp-offload", "mlp-offload-all", "scan-rnn",
                         "cond", "mlp-bf16"};
const char *kFunctions[] = {"f", "mlp", "mlp", "mlp", "rnn", "cond", "mlp"};

OwningOpRef<ModuleOp> load(MLIRContext &ctx, const std::string &name, bool vjp) {
  ctx.getOrLoadDialect<jx::JxDialect>();
  ctx.getOrLoadDialect<func::FuncDialect>();
  auto module = parseSourceFile<ModuleOp>(COTANGENT_GPU_INPUTS "/" + name + ".mlir", &ctx);
  REQUIRE(module);
  if (vjp) {
    PassManager pm(&ctx);
    pm.addPass(mlir::cotangent::createJxVjpPass());
    pm.addPass(mlir::cotangent::createJxRematPass());
    REQUIRE(succeeded(pm.run(*module)));
  }
  return module;
}

std::vector<Tensor> randomArgs(func::FuncOp fn) {
  std::mt19937_64 rng(7);
  std::vector<Tensor> args;
  for (Type t : fn.getArgumentTypes()) {
    auto type = cast<RankedTensorType>(t);
    std::vector<double> values(type.getNumElements());
    for (double &v : values)
      v = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
    args.push_back(Tensor::fromDoubles(type, values));
  }
  return args;
}

/// The memory plan of split `fnName` on `target`.
mlir::cotangent::MemoryPlan plan(ModuleOp module, llvm::StringRef fnName,
                                 mlir::cotangent::MemoryPlanTarget target) {
  DialectRegistry registry;
  ::cotangent::host::loweringRegistry().appendTo(registry);
  module.getContext()->appendDialectRegistry(registry);
  module.getContext()->loadAllAvailableDialects();
  auto plans = mlir::cotangent::predictMemoryPlans(module, fnName, target);
  REQUIRE(succeeded(plans));
  REQUIRE(plans->size() == 1);
  return plans->front();
}

/// False on the driver double (--driver-double): kernels compute nothing
/// there, so values are not compared; everything else is.
bool kernelsRun = true;

void requireClose(const Tensor &a, const Tensor &b) {
  REQUIRE(a.getType() == b.getType());
  if (!kernelsRun)
    return;
  // bf16 keeps 8 mantissa bits: a sum in another order may round one ulp
  // (2^-8) apart, and what follows carries it.
  double tolerance = a.getType().getElementType().isBF16() ? 2e-2 : 1e-4;
  for (int64_t i = 0; i < a.getNumElements(); ++i)
    REQUIRE(std::fabs(a.getDouble(i) - b.getDouble(i)) <=
            tolerance * (1 + std::fabs(b.getDouble(i))));
}

} // namespace

TEST_CASE("host code of every example JIT-compiles without a device", "[host]") {
  for (const char *name : kInputs)
    for (bool vjp : {false, true}) {
      INFO(name << (vjp ? " (vjp)" : ""));
      MLIRContext ctx;
      auto module = load(ctx, name, vjp);
      REQUIRE(succeeded(::cotangent::cuda::compileHostCode(*module, "sm_90")));
    }
}

TEST_CASE("the CUDA runtime binds exactly the runtime ABI entries GPU code calls, and host "
          "code calls nothing else of Cotangent's",
          "[host]") {
  namespace abi = ::cotangent::core::abi;
  std::set<abi::Entry> bound, expected;
  for (const ::cotangent::cuda::Binding &b : ::cotangent::cuda::runtimeBindings()) {
    CHECK(b.address != nullptr);
    CHECK(bound.insert(b.entry).second);
  }
  for (const abi::EntryInfo &e : abi::kEntries)
    if (e.targets & abi::Cuda)
      expected.insert(e.id);
  CHECK(bound == expected);
  for (const char *name : kInputs) {
    INFO(name);
    MLIRContext ctx;
    auto module = load(ctx, name, true);
    auto lowered =
        ::cotangent::host::lowerClone(*module, ::cotangent::cuda::gpuTarget({.chip = "sm_90"}));
    REQUIRE(succeeded(lowered));
    for (auto fn : (*lowered)->getOps<LLVM::LLVMFuncOp>()) {
      llvm::StringRef callee = fn.getSymName();
      if (!fn.isExternal() || !(callee.contains("cotangent") || callee.starts_with("_mlir_") ||
                                callee.starts_with("mgpu")))
        continue;
      INFO(callee.str());
      std::optional<abi::Entry> entry = abi::find(callee);
      REQUIRE(entry);
      CHECK(bound.count(*entry));
    }
  }
}

TEST_CASE("the device's memory plan: offloaded residuals leave it", "[host]") {
  using mlir::cotangent::MemoryPlanTarget;
  constexpr int64_t kDot = 8 * 32 * 4; // one offloaded f32[8,32]
  for (auto [name, fnName] : llvm::zip(kInputs, kFunctions)) {
    INFO(name);
    MLIRContext ctx;
    auto module = load(ctx, name, true);
    auto cpu = plan(*module, fnName, MemoryPlanTarget::Cpu);
    auto gpu = plan(*module, fnName, MemoryPlanTarget::Cuda);
    if (std::string(name) == "mlp-offload") {
      // The pre-activation leaves; its relu's backward reads it twice (the
      // max and its derivative), so it comes back as a device copy.
      CHECK(gpu.residualBytes == cpu.residualBytes - kDot);
      CHECK(gpu.peakBytes <= cpu.peakBytes);
    } else if (std::string(name) == "mlp-offload-all") {
      // Each dot leaves as the forward computes it, and one tanh reads it
      // back in place: the peak drops by all three.
      CHECK(gpu.residualBytes == cpu.residualBytes - 3 * kDot);
      CHECK(gpu.peakBytes == cpu.peakBytes - 3 * kDot);
    } else if (std::string(name) == "cond") {
      // The alias checks of its deallocations (buffers of addresses and
      // flags) are on the host's stack (jx-gpu-host-buffers), not counted.
      // (mlp-bf16: cuBLAS and the CPU's oneDNN both read the bf16 operands.)
      CHECK(gpu.residualBytes == cpu.residualBytes);
      CHECK(gpu.peakBytes < cpu.peakBytes);
      CHECK(gpu.minPeakBytes < cpu.minPeakBytes);
    } else {
      CHECK(gpu.residualBytes == cpu.residualBytes);
      CHECK(gpu.peakBytes == cpu.peakBytes);
      CHECK(gpu.minPeakBytes == cpu.minPeakBytes);
    }
  }
}

TEST_CASE("without a device every entry fails cleanly", "[host]") {
  if (cotangent_cuda_init() == 0)
    return; // a GPU is present: nothing to check here
  REQUIRE(std::strstr(cotangent_cuda_last_error(), "no CUDA device") != nullptr);
  REQUIRE(cotangent_cuda_device_count() == 0);
  REQUIRE(cotangent_cuda_alloc(64) == nullptr);
  REQUIRE(cotangent_cuda_host_alloc(64) == nullptr);
  REQUIRE(cotangent_cuda_live_bytes() == 0);
  REQUIRE(cotangent_mgpuStreamCreate() == nullptr);
  cotangent_mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  REQUIRE_FALSE(::cotangent::cuda::beginKernelProfile());
  REQUIRE(::cotangent::cuda::endKernelProfile().empty());
  MLIRContext ctx;
  auto module = load(ctx, "mlp-relu", false);
  ScopedDiagnosticHandler quiet(&ctx, [](Diagnostic &) { return success(); });
  REQUIRE(failed(::cotangent::cuda::CudaModule::compile(*module)));
}

TEST_CASE("every example matches the CPU path on the GPU", "[device]") {
  for (auto [name, fnName] : llvm::zip(kInputs, kFunctions)) {
    INFO(name);
    MLIRContext ctx;
    auto module = load(ctx, name, false);
    auto args = randomArgs(module->lookupSymbol<func::FuncOp>(fnName));
    auto cpu = ::cotangent::cpu::CpuModule::compile(*module);
    REQUIRE(succeeded(cpu));
    auto gpu = ::cotangent::cuda::CudaModule::compile(*module);
    REQUIRE(succeeded(gpu));
    auto expected = (*cpu)->call(fnName, args);
    auto actual = (*gpu)->call(fnName, args);
    REQUIRE(succeeded(expected));
    REQUIRE(succeeded(actual));
    REQUIRE(actual->results.size() == expected->results.size());
    for (auto [a, e] : llvm::zip(actual->results, expected->results))
      requireClose(a, e);
    // Same bufferization and deallocation: the same buffers are live (bf16
    // operands too: cuBLAS and the CPU's BLAS entry both read them as they are).
    CHECK(actual->stats.peakBytes == expected->stats.peakBytes);
    CHECK(actual->stats.liveBytes == expected->stats.liveBytes);
  }
}

TEST_CASE("the kernel profile times each kernel and cuBLAS call of a step", "[device]") {
  MLIRContext ctx;
  auto module = load(ctx, "mlp-relu", false);
  auto gpu = ::cotangent::cuda::CudaModule::compile(*module);
  REQUIRE(succeeded(gpu));
  auto args = randomArgs(module->lookupSymbol<func::FuncOp>("mlp"));
  REQUIRE(succeeded((*gpu)->call("mlp", args))); // kernels loaded before timing
  REQUIRE(::cotangent::cuda::beginKernelProfile());
  REQUIRE(succeeded((*gpu)->call("mlp", args)));
  auto profile = ::cotangent::cuda::endKernelProfile();
  REQUIRE_FALSE(profile.empty());
  bool kernel = false, gemm = false;
  double total = 0;
  for (const auto &k : profile) {
    INFO(k.name);
    CHECK(k.launches >= 1);
    CHECK(k.microseconds >= 0); // events resolve about half a microsecond
    total += k.microseconds;
    kernel = kernel || k.name.find("mlp_kernel") != std::string::npos;
    gemm = gemm || k.name.rfind("cublas gemm", 0) == 0;
  }
  CHECK(kernel);
  CHECK(gemm);
  CHECK(total > 0);
  for (size_t i = 1; i < profile.size(); ++i) // slowest first
    CHECK(profile[i - 1].microseconds >= profile[i].microseconds);
  // Off again: a later step is not timed.
  REQUIRE(succeeded((*gpu)->call("mlp", args)));
  CHECK(::cotangent::cuda::endKernelProfile().empty());
}

TEST_CASE("the VJPs match the CPU path, offloaded residuals included", "[device]") {
  for (auto [name, fnName] : llvm::zip(kInputs, kFunctions)) {
    INFO(name);
    MLIRContext ctx;
    auto module = load(ctx, name, true);
    auto primal = module->lookupSymbol<func::FuncOp>(fnName);
    auto args = randomArgs(primal);
    std::vector<Tensor> cotangents;
    for (Type t : primal.getResultTypes()) {
      auto type = cast<RankedTensorType>(t);
      cotangents.push_back(
          Tensor::fromDoubles(type, std::vector<double>(type.getNumElements(), 1.0)));
    }
    auto predicted = plan(*module, fnName, mlir::cotangent::MemoryPlanTarget::Cuda);
    auto cpu = ::cotangent::cpu::CpuModule::compile(*module);
    auto gpu = ::cotangent::cuda::CudaModule::compile(*module);
    REQUIRE(succeeded(cpu));
    REQUIRE(succeeded(gpu));
    auto expected = (*cpu)->runSplit(fnName, args, cotangents);
    auto actual = (*gpu)->runSplit(fnName, args, cotangents);
    REQUIRE(succeeded(expected));
    REQUIRE(succeeded(actual));
    for (auto [a, e] : llvm::zip(actual->gradients, expected->gradients))
      requireClose(a, e);
    // The device's plan, predicted before the run (between its paths'
    // smallest and largest where a jx.cond decides).
    CHECK(actual->peakBytes <= predicted.peakBytes);
    CHECK(actual->peakBytes >= predicted.minPeakBytes);
    CHECK(actual->residualBytes <= predicted.maxResidualBytes);
    CHECK(actual->residualBytes >= predicted.minResidualBytes);
    if (std::string(name) == "mlp-offload") {
      // The pre-activation f32[8,32] waits in pinned host memory.
      CHECK(actual->offloadedBytes == 8 * 32 * 4);
      CHECK(actual->residualBytes == expected->residualBytes - 8 * 32 * 4);
      CHECK(actual->peakBytes <= expected->peakBytes);
    } else if (std::string(name) == "mlp-offload-all") {
      // Three f32[8,32] dots leave as the forward computes them and are read
      // in place where the backward needs them: the peak drops by all three.
      CHECK(actual->offloadedBytes == 3 * 8 * 32 * 4);
      CHECK(actual->residualBytes == expected->residualBytes - 3 * 8 * 32 * 4);
      CHECK(actual->peakBytes == expected->peakBytes - 3 * 8 * 32 * 4);
    } else {
      // The CPU's peak, less what the device's plan leaves out (cond's
      // alias-check buffers, on the host's stack there).
      auto cpuPlan = plan(*module, fnName, mlir::cotangent::MemoryPlanTarget::Cpu);
      CHECK(actual->offloadedBytes == 0);
      CHECK(actual->residualBytes == expected->residualBytes);
      CHECK(actual->peakBytes == expected->peakBytes - (cpuPlan.peakBytes - predicted.peakBytes));
    }
    CHECK(cotangent_cuda_host_bytes() == 0);
  }
}

int main(int argc, char **argv) {
  return ::cotangent::test::runDeviceTests(argc, argv, kernelsRun);
}

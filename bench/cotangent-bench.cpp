//===- cotangent-bench.cpp - CPU lowering throughput and remat memory -----===//
//
// Not a test. Prints:
//  1. jx.dot_general (f32, 1024^3) compiled through jx-lower-to-llvm, in
//     GFLOP/s, next to OpenBLAS's cblas_sgemm called directly in this run;
//  2. one MLP grad step (8 layers x 1024, batch 256, f32; forward then
//     backward with the residuals held in between) under each remat policy:
//     time, residual bytes, peak bytes.
//
// OpenBLAS reads OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE when it loads; if
// either is set, the bench unsets them for itself only, says so, and
// re-executes itself.
//
//===----------------------------------------------------------------------===//

#include "bench/MlpProgram.h"
#include "bench/SvgPlot.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "runtime/cpu/CpuRuntime.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <unistd.h>

using namespace mlir;
using ::cotangent::interp::Tensor;

namespace {

using ::cotangent::bench::PlotPoint;
using ::cotangent::bench::writeScatterSvg;

std::vector<Tensor> randomArgs(func::FuncOp fn, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<Tensor> args;
  for (Type t : fn.getArgumentTypes()) {
    auto type = cast<RankedTensorType>(t);
    // Scaled so that tanh stays away from saturation through 8 layers.
    double scale = type.getDimSize(0) == type.getDimSize(1) ? 1.0 / std::sqrt(type.getDimSize(0)) : 1.0;
    std::vector<double> values(type.getNumElements());
    for (double &v : values)
      v = std::uniform_real_distribution<double>(-scale, scale)(rng);
    args.push_back(Tensor::fromDoubles(type, values));
  }
  return args;
}

double seconds(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

int benchDot(MLIRContext &ctx) {
  const int n = 1024, reps = 5;
  std::string t = "tensor<1024x1024xf32>";
  std::string text = "func.func @dot(%a: " + t + ", %b: " + t + ") -> " + t +
                     " {\n  %0 = jx.dot_general %a, %b, contracting_dims = [1] x [0], "
                     "batch_dims = [] x [] : " + t + ", " + t + " -> " + t +
                     "\n  return %0 : " + t + "\n}\n";
  auto module = parseSourceString<ModuleOp>(text, &ctx);
  auto compiled = ::cotangent::cpu::CpuModule::compile(*module);
  if (!module || failed(compiled))
    return 1;
  auto args = randomArgs(module->lookupSymbol<func::FuncOp>("dot"), 1);
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto result = (*compiled)->call("dot", args);
    if (failed(result))
      return 1;
    best = std::min(best, result->seconds);
  }
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::copy_n(reinterpret_cast<const float *>(args[0].data()), n * n, a.data());
  std::copy_n(reinterpret_cast<const float *>(args[1].data()), n * n, b.data());
  double direct = 1e30;
  for (int r = 0; r < reps; ++r) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(),
                n, 0.0f, c.data(), n);
    direct = std::min(direct, seconds(start));
  }
  double flops = 2.0 * n * n * n;
  std::printf("dot_general f32 %dx%dx%d (best of %d)\n", n, n, n, reps);
  std::printf("  jx.dot_general compiled : %8.2f GFLOP/s (%.2f ms)\n", flops / best / 1e9, best * 1e3);
  std::printf("  cblas_sgemm direct      : %8.2f GFLOP/s (%.2f ms)\n", flops / direct / 1e9,
              direct * 1e3);
  std::printf("  ratio compiled / direct : %8.3f\n\n", direct / best);
  return 0;
}

int benchMlp(MLIRContext &ctx) {
  const int layers = 8, width = 1024, batch = 256;
  struct Policy {
    const char *label;
    std::string text;
  };
  std::vector<Policy> policies = {
      {"no checkpoint", ""},
      {"nothing_saveable (per layer)", "nothing_saveable"},
      {"dots_saveable", "dots_saveable"},
      {"dots_with_no_batch_dims_saveable", "dots_with_no_batch_dims_saveable"},
      {"save_only_these_names(layer*)", "save_only_these_names($NAMES)"},
      {"offload (layer* -> pinned_host)",
       "save_and_offload_only_these_names([], [$NAMES], \"device\", \"pinned_host\")"},
  };
  std::printf("MLP grad step: %d layers x %d, batch %d, f32 (fwd, residuals held, bwd; best of 3)\n",
              layers, width, batch);
  std::printf("  %-34s %10s %14s %14s %10s %10s\n", "policy", "time ms", "residual MB", "peak MB",
              "time x", "peak x");
  std::vector<PlotPoint> points;
  double baseTime = 0, basePeak = 0; // the first row, run in this process
  for (const Policy &p : policies) {
    auto module = parseSourceString<ModuleOp>(
        ::cotangent::bench::mlpProgram(layers, width, batch, p.text), &ctx);
    if (!module)
      return 1;
    PassManager pm(&ctx);
    pm.addPass(mlir::cotangent::createJxVjpPass());
    pm.addPass(mlir::cotangent::createJxRematPass());
    if (failed(pm.run(*module)))
      return 1;
    auto compiled = ::cotangent::cpu::CpuModule::compile(*module);
    if (failed(compiled))
      return 1;
    auto args = randomArgs(jx::lookupSplitPair(*module, "mlp")->fwd, 2);
    auto scalar = RankedTensorType::get({}, Float32Type::get(&ctx));
    std::vector<Tensor> ct{Tensor::fromDoubles(scalar, {1.0})};
    double best = 1e30;
    int64_t residual = 0, peak = 0;
    for (int r = 0; r < 3; ++r) {
      auto split = (*compiled)->runSplit("mlp", args, ct);
      if (failed(split))
        return 1;
      best = std::min(best, split->seconds);
      residual = split->residualBytes;
      peak = split->peakBytes;
    }
    if (points.empty()) {
      baseTime = best;
      basePeak = static_cast<double>(peak);
    }
    std::printf("  %-34s %10.1f %14.2f %14.2f %10.2f %10.2f\n", p.label, best * 1e3,
                residual / 1048576.0, peak / 1048576.0, best / baseTime, peak / basePeak);
    points.push_back({p.label, best * 1e3, peak / 1048576.0});
  }
  std::printf("  (time x, peak x: ratios to the no-checkpoint row of this run)\n");
  const std::string svg = "mlp-policies.svg";
  if (!writeScatterSvg(svg, "MLP grad step: peak memory against time, per policy (measured)",
                       "time per step (ms)", "peak bytes (MB)", points)) {
    std::fprintf(stderr, "cotangent-bench: cannot write %s\n", svg.c_str());
    return 1;
  }
  std::printf("  plot written to %s\n", svg.c_str());
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  bool reexec = false;
  for (const char *var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
    if (const char *value = std::getenv(var)) {
      std::printf("cotangent-bench: unsetting %s (was '%s') for this process only\n", var, value);
      unsetenv(var);
      reexec = true;
    }
  }
  if (reexec) {
    std::fflush(stdout);
    execv("/proc/self/exe", argv);
    std::perror("cotangent-bench: re-exec failed");
    return 1;
  }
  (void)argc;
  DialectRegistry registry;
  registry.insert<jx::JxDialect, func::FuncDialect>();
  MLIRContext ctx(registry);
  if (benchDot(ctx) || benchMlp(ctx)) {
    std::fprintf(stderr, "cotangent-bench: failed\n");
    return 1;
  }
  return 0;
}

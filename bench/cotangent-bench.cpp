//===- cotangent-bench.cpp - CPU lowering throughput and remat memory -----===//
//
// Not a test. Prints:
//  1. jx.dot_general (f32, n^3) compiled through jx-lower-to-llvm, in
//     GFLOP/s, next to OpenBLAS's cblas_sgemm called directly in this run;
//  2. one MLP grad step (bench/MlpModel.h; forward then backward with the
//     residuals held in between) under each remat policy: median time,
//     residual bytes, peak bytes, and their ratios to the no-checkpoint row;
//     the rows are also written as JSON and drawn by tools/plot-policies.py;
//  3. the memory_budget solve on the MLP (one budget region per layer) and
//     on a pre-LN transformer (bench/TransformerModel.h, one per block) at
//     several fractions of the peak without remat: the MILP's time, the
//     whole solve's (with the memory plan's predictions), the schedules
//     predicted, the peak against the budget and the FLOPs recomputed;
//  4. (only when asked for) the frontier of both models, --jx-remat-frontier:
//     every peak's fewest recomputed FLOPs and JAX's policies on the same
//     axes, written as JSON and drawn by tools/plot-frontier.py.
// The programs are traced with the C++ API (tracer/). `--help` lists the
// flags; sizes are flags, so a quick run is `--layers 2 --width 64`.
//
// OpenBLAS reads OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE when it loads; if
// either is set, the bench unsets them for itself only, says so, and
// re-executes itself. If OpenBLAS's own detection then falls back to
// kernels narrower than the CPU runs (Debian's 0.3.21 on Sapphire Rapids:
// SSE3), the bench sets the CPU's kernel family and says so.
//
//===----------------------------------------------------------------------===//

#include "bench/DeviceTrainLoop.h"
#include "bench/TrainStep.h"
#include "bench/MlpModel.h"
#include "bench/TransformerModel.h"
#include "bench/Gpt2Model.h"
#include "bench/PlotScript.h"
#include "bench/PolicyFigures.h"
#include "bench/RandomArguments.h"
#include "bench/AttentionMemory.h"
#include "bench/FitUnderCap.h"
#include "bench/PartitionerComparison.h"
#include "bench/JaxComparison.h"
#include "tools/common/CommandLine.h"
#include "tracer/Autodiff.h"

#include "analysis/AnalysisPasses.h"
#include "analysis/PeakOracle.h"
#include "dialects/jx/JxSplit.h"
#include "passes/Passes.h"
#include "passes/remat/MemoryBudget.h"
#include "runtime/cpu/BlasCore.h"
#include "runtime/cpu/OneDnnMatmul.h"
#include "runtime/host/JitEngine.h"

#include "mlir/Pass/PassManager.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cblas.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <unistd.h>

using namespace cotangent;
namespace cl = llvm::cl;

namespace {

enum class Benchmark {
  Dot, Mlp, Budget, Frontier, Compare, CompareSmall, Gpt2, Attention, Fit, Partitioner, Train,
  DeviceLoop
};

/// Only the bench's own flags show in --help (libLLVM registers hundreds).
/// Sizes have ranges: zero would divide by zero or measure nothing, and the
/// upper bounds keep a run within memory and minutes.
cl::OptionCategory benchOptions("cotangent-bench options");
cl::list<Benchmark, bool, tools::ChoiceParser<Benchmark>> benchmarks(
    cl::cat(benchOptions), "run", cl::CommaSeparated,
    cl::desc("which benchmarks to run, comma-separated, in this order (default: dot,mlp,budget)"),
    cl::values(clEnumValN(Benchmark::Dot, "dot", "compiled dot_general against cblas_sgemm"),
               clEnumValN(Benchmark::Mlp, "mlp", "an MLP grad step under each remat policy"),
               clEnumValN(Benchmark::Budget, "budget",
                          "the memory_budget solve on the MLP and the transformer at "
                          "several budgets"),
               clEnumValN(Benchmark::Frontier, "frontier",
                          "the (peak, recomputed FLOPs) frontier of the MLP and the "
                          "transformer, with JAX's policies on it (not run by default)"),
               clEnumValN(Benchmark::Compare, "compare",
                          "the MLP and transformer steps and compile times against JAX/XLA on "
                          "this CPU (not run by default; JAX from scripts/jax-venv.sh)"),
               clEnumValN(Benchmark::CompareSmall, "compare-small",
                          "the same on tiny programs, in seconds (the ctest smoke run)"),
               clEnumValN(Benchmark::Gpt2, "gpt2",
                          "GPT-2's training step (tiny; 124M at batch 2 x 128 and 4 x 256) under no checkpoint, "
                          "nothing_saveable and dots_saveable per block against JAX/XLA on this CPU "
                          "(the compare rows named gpt2; not run by default)"),
               clEnumValN(Benchmark::Attention, "attention",
                          "GPT-2's step peak and time at sequence 256 to 2048 for 2048 tokens "
                          "per batch, attention fused against its scores materialized (--gpt2 "
                          "sets the preset, default 124M; not run by default)"),
               clEnumValN(Benchmark::Fit, "fit",
                          "GPT-2's step under memory caps (--caps, default 2, 4 and 8 GiB): the "
                          "largest batch that fits and its tokens/s, per policy and under one "
                          "memory_budget over the step, against JAX's per policy and PyTorch's "
                          "per activation_memory_budget (--gpt2 sets the preset, default 124M; "
                          "--seq the sequence, default 256; not run by default)"),
               clEnumValN(Benchmark::Partitioner, "partitioner",
                          "memory_budget at each point of PyTorch's min-cut partitioner "
                          "(activation_memory_budget 0.0-1.0, bench/torch_partitioner.py) on a "
                          "GPT-2 block and the 8 x 1024 tanh MLP: peaks and recomputed FLOPs "
                          "side by side (not run by default)"),
               clEnumValN(Benchmark::Train, "train",
                          "the MLP's whole training step (loss, gradient, clipped AdamW) in "
                          "one jit against the bare value_and_grad step (not run by default)"),
               clEnumValN(Benchmark::DeviceLoop, "device-loop",
                          "the same step donated on the GPU (jit for CUDA, state on the "
                          "device) as a host loop of --steps steps reading each loss, against "
                          "the steps back to back (not run by default; skipped without a GPU)")));
tools::UnsignedOpt<1, 8192> dotSize(cl::cat(benchOptions), "dot-size", cl::init(1024),
                                    cl::desc("n of the n x n x n dot_general, 1 to 8192 "
                                             "(default 1024)"));
tools::UnsignedOpt<1, 1024> layers(cl::cat(benchOptions), "layers", cl::init(8),
                                   cl::desc("MLP layers, 1 to 1024 (default 8)"));
tools::UnsignedOpt<1, 8192> width(cl::cat(benchOptions), "width", cl::init(1024),
                                  cl::desc("MLP width, 1 to 8192 (default 1024)"));
tools::UnsignedOpt<1, 8192> batch(cl::cat(benchOptions), "batch", cl::init(256),
                                  cl::desc("MLP batch size, 1 to 8192 (default 256)"));
tools::UnsignedOpt<1, 256> blocks(cl::cat(benchOptions), "blocks", cl::init(4),
                                  cl::desc("transformer blocks (budget solve), 1 to 256 "
                                           "(default 4); its width is --width"));
tools::UnsignedOpt<1, 8192> seq(cl::cat(benchOptions), "seq", cl::init(128),
                                cl::desc("transformer tokens, 1 to 8192 (default 128)"));
tools::UnsignedOpt<1, 256> heads(cl::cat(benchOptions), "heads", cl::init(4),
                                 cl::desc("transformer heads, 1 to 256, dividing --width "
                                          "(default 4)"));
cl::opt<bool> richActivation(
    cl::cat(benchOptions), "sin-tanh", cl::init(false),
    cl::desc("layers of tanh(sin(d) * d) for d = h @ W (four saved activations per layer) "
             "instead of tanh(d)"));
tools::UnsignedOpt<1, 1000> repeats(cl::cat(benchOptions), "repeats", cl::init(3),
                                    cl::desc("timed runs per measurement, 1 to 1000; the median "
                                             "is shown (default 3)"));
tools::UnsignedOpt<1, 100000> steps(cl::cat(benchOptions), "steps", cl::init(100),
                                    cl::desc("steps per loop of --run device-loop, 1 to 100000 "
                                             "(default 100)"));
cl::opt<std::string> dataPath(cl::cat(benchOptions), "data",
                              cl::init(bench::inBuildDir("cotangent-bench-policies.json")),
                              cl::desc("write the MLP rows here as JSON "
                                       "(default: build/cotangent-bench-policies.json)"),
                              cl::value_desc("file"));
cl::opt<std::string> plotPath(cl::cat(benchOptions), "plot",
                              cl::init(bench::inBuildDir("cotangent-bench-policies.png")),
                              cl::desc("draw them here with tools/plot-policies.py: .png, .svg "
                                       "or .pdf; empty: do not draw "
                                       "(default: build/cotangent-bench-policies.png)"),
                              cl::value_desc("file"));

cl::opt<std::string> comparePath(
    cl::cat(benchOptions), "compare-data",
    cl::init(bench::inBuildDir("cotangent-bench-compare.json")),
    cl::desc("write the --run compare rows here as JSON "
             "(default: build/cotangent-bench-compare.json)"),
    cl::value_desc("file"));
cl::opt<std::string> compareFilter(
    cl::cat(benchOptions), "compare-filter",
    cl::desc("--run compare: only the rows whose id contains this, e.g. transformer, "
             "mlp-8x1024, compile (default: all)"),
    cl::value_desc("text"));
cl::opt<std::string> jaxPython(
    cl::cat(benchOptions), "jax-python",
    cl::desc("the python of a venv with JAX for --run compare (default: the one "
             "scripts/jax-venv.sh makes in build/jax-venv)"),
    cl::value_desc("path"));

cl::opt<std::string> torchPython(
    cl::cat(benchOptions), "torch-python",
    cl::desc("the python of a venv with PyTorch for --run fit and partitioner (default: the one "
             "scripts/torch-venv.sh makes in build/torch-venv)"),
    cl::value_desc("path"));
cl::opt<std::string> fitData(
    cl::cat(benchOptions), "fit-data",
    cl::desc("with --run fit: write the table and the memory per batch as JSON to this file "
             "(tools/plot-fit.py draws it)"),
    cl::value_desc("file.json"));

enum class CpuIsa { Native, Avx2 };
cl::opt<CpuIsa> cpuIsa(
    cl::cat(benchOptions), "cpu-isa",
    cl::desc("the instructions every side may use: native (default), or avx2 to measure an "
             "AVX2-only CPU on a wider one (Cotangent's code for Haswell, OpenBLAS's Haswell "
             "kernels, ONEDNN_MAX_CPU_ISA=AVX2, XLA_FLAGS=--xla_cpu_max_isa=AVX2; printed)"),
    cl::values(clEnumValN(CpuIsa::Native, "native", "the CPU's own"),
               clEnumValN(CpuIsa::Avx2, "avx2", "AVX2 and FMA, no AVX-512")),
    cl::init(CpuIsa::Native));

cl::opt<std::string> emitMlirDir(
    cl::cat(benchOptions), "emit-mlir",
    cl::desc("write the transformer (--blocks, --seq, --width, --heads) under no policy, "
             "nothing_saveable and dots_saveable as jx IR into this directory "
             "(transformer-<policy>.mlir) and run nothing else (scripts/gpu-check.sh)"),
    cl::value_desc("dir"));

cl::list<double> fitCaps(
    cl::cat(benchOptions), "caps", cl::CommaSeparated,
    cl::desc("with --run fit: the memory caps in GiB, each above 0 (default 2,4,8)"),
    cl::value_desc("GiB,..."));

cl::opt<std::string> gpt2Preset(
    cl::cat(benchOptions), "gpt2",
    cl::desc("with --emit-mlir: also GPT-2 of this preset (models/gpt2; tiny, 124M, ...), "
             "its loss over --batch sequences of --seq tokens, as gpt2-<policy>.mlir "
             "(@gpt2(params..., ids, targets), policy per block); with --run attention: "
             "the preset measured (default 124M); with --run fit likewise"),
    cl::value_desc("preset"));

/// Writes `module` to `path`; false (with a message) if it cannot.
bool writeModule(mlir::ModuleOp module, const std::string &path) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    std::fprintf(stderr, "cotangent-bench: cannot write %s: %s\n", path.c_str(),
                 ec.message().c_str());
    return false;
  }
  module.print(os);
  return true;
}

/// --emit-mlir --gpt2 P: GPT-2's loss under each policy, as the GPU check
/// compiles it.
int emitGpt2(mlir::MLIRContext &ctx,
             const std::vector<std::pair<std::string, std::optional<Policy>>> &rows) {
  std::optional<gpt2::Config> config = gpt2::preset(gpt2Preset);
  if (!config) {
    std::fprintf(stderr, "cotangent-bench: --gpt2: no preset '%s'\n", gpt2Preset.c_str());
    return 1;
  }
  const int64_t b = batch, t = seq;
  if (t > config->block_size) {
    std::fprintf(stderr, "cotangent-bench: --seq %lld is longer than %s's context (%lld)\n",
                 static_cast<long long>(t), config->name.c_str(),
                 static_cast<long long>(config->block_size));
    return 1;
  }
  for (const auto &[name, policy] : rows)
    if (!writeModule(bench::traceGpt2(ctx, *config, b, t, policy).takeModule().get(),
                     emitMlirDir + "/gpt2-" + name + ".mlir"))
      return 1;
  return 0;
}

/// --emit-mlir: the benchmark's transformer as the GPU check compiles it.
int emitModels(mlir::MLIRContext &ctx) {
  const bench::TransformerConfig config{.blocks = blocks, .seq = seq, .width = width,
                                        .heads = heads};
  const std::vector<std::pair<std::string, std::optional<Policy>>> rows = {
      {"none", std::nullopt},
      {"nothing_saveable", policies::nothing_saveable()},
      {"dots_saveable", policies::dots_saveable()}};
  for (const auto &[name, policy] : rows) {
    if (!writeModule(bench::traceTransformer(ctx, config, policy).takeModule().get(),
                     emitMlirDir + "/transformer-" + name + ".mlir"))
      return 1;
  }
  return gpt2Preset.empty() ? 0 : emitGpt2(ctx, rows);
}

/// The last --run dot figures, for --run compare's JSON.
std::optional<bench::DotFigures> dotFigures;

int benchDot(mlir::MLIRContext &ctx) {
  const int64_t n = dotSize;
  const TraceOptions opts{.name = "dot", .arg_names = {"a", "b"}, .context = &ctx};
  trace traced(
      opts, [](Tensor a, Tensor b) { return np::dot(a, b); }, f32({n, n}), f32({n, n}));
  auto compiled = cpu::CpuModule::compile(traced.module());
  if (failed(compiled))
    return 1;
  auto args = bench::randomArguments(traced.func(), 1);
  std::vector<float> a(n * n), b(n * n), c(n * n);
  std::copy_n(reinterpret_cast<const float *>(args[0].data()), n * n, a.data());
  std::copy_n(reinterpret_cast<const float *>(args[1].data()), n * n, b.data());
  // One untimed run of each, then the compiled calls, then OpenBLAS's: not
  // alternated, because OpenBLAS's threads spin for a while after each call
  // and would take the cores from a oneDNN call that followed it.
  std::vector<double> jx, direct;
  for (unsigned r = 0; r <= repeats; ++r) {
    auto result = (*compiled)->call("dot", args);
    if (failed(result))
      return 1;
    if (r > 0)
      jx.push_back(result->seconds);
  }
  for (unsigned r = 0; r <= repeats; ++r) {
    auto start = std::chrono::steady_clock::now();
    cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, a.data(), n, b.data(), n,
                0.0f, c.data(), n);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (r > 0)
      direct.push_back(seconds);
  }
  double compiledTime = bench::median(jx), directTime = bench::median(direct);
  double flops = 2.0 * n * n * n;
  std::printf("dot_general f32 %lldx%lldx%lld (median of %u)\n", static_cast<long long>(n),
              static_cast<long long>(n), static_cast<long long>(n), repeats.getValue());
  std::printf("  compiled matmuls on     : %s\n", cpu::matmulLibraryName().c_str());
  std::printf("  jx.dot_general compiled : %8.2f GFLOP/s (%.2f ms)\n", flops / compiledTime / 1e9,
              compiledTime * 1e3);
  std::printf("  cblas_sgemm direct      : %8.2f GFLOP/s (%.2f ms)\n", flops / directTime / 1e9,
              directTime * 1e3);
  std::printf("  ratio compiled / direct : %8.3f\n\n", directTime / compiledTime);
  dotFigures = bench::DotFigures{.n = n, .compiledSeconds = compiledTime, .blasSeconds = directTime};
  return 0;
}

/// The models the flags describe.
bench::MlpConfig mlpConfig() {
  return {.layers = layers, .width = width, .batch = batch, .richActivation = richActivation};
}
bench::TransformerConfig transformerConfig() {
  return {.blocks = blocks, .seq = seq, .width = width, .heads = heads};
}

int benchMlp(mlir::MLIRContext &ctx) {
  const bench::MlpConfig config = mlpConfig();
  const std::vector<std::string> names = bench::mlpLayerNames(config.layers);
  struct Row {
    const char *label;
    std::optional<Policy> policy; // none: no checkpoint
  };
  const std::vector<Row> rows = {
      {"no checkpoint", std::nullopt},
      {"nothing_saveable (per layer)", policies::nothing_saveable()},
      {"dots_saveable", policies::dots_saveable()},
      {"dots_with_no_batch_dims_saveable", policies::dots_with_no_batch_dims_saveable()},
      {"save_only_these_names(layer*)", policies::save_only_these_names(names)},
      {"offload (layer* -> pinned_host)",
       policies::save_and_offload_only_these_names({}, names, "device", "pinned_host")},
  };
  const std::string title = "MLP grad step: " + std::to_string(config.layers) + " layers x " +
                            std::to_string(config.width) + ", batch " +
                            std::to_string(config.batch) + ", f32" +
                            (config.richActivation ? ", tanh(sin(d) * d)" : ", tanh");
  std::printf("%s (fwd, residuals held, bwd; median of %u)\n", title.c_str(), repeats.getValue());
  std::printf("  %-34s %10s %14s %14s %10s %10s\n", "policy", "time ms", "residual MiB", "peak MiB",
              "time x", "peak x");
  auto scalar = mlir::RankedTensorType::get({}, mlir::Float32Type::get(&ctx));
  const std::vector<cpu::Tensor> seed{cpu::Tensor::fromDoubles(scalar, {1.0})};
  std::vector<bench::PolicyFigures> figures;
  for (const Row &row : rows) {
    Split split(bench::traceMlp(ctx, config, row.policy));
    auto compiled = cpu::CpuModule::compile(split.module());
    if (failed(compiled))
      return 1;
    auto args = bench::randomArguments(split.fwd(), 2);
    auto measured = bench::timeSplit(row.label, **compiled, "mlp", args, seed, repeats);
    if (failed(measured))
      return 1;
    figures.push_back(std::move(*measured));
    const bench::PolicyFigures &f = figures.back(), &base = figures.front();
    std::printf("  %-34s %10.4g %14.3f %14.3f %10.2f %10.2f\n", row.label, f.medianSeconds() * 1e3,
                f.residualBytes / 1048576.0, f.peakBytes / 1048576.0,
                f.medianSeconds() / base.medianSeconds(),
                static_cast<double>(f.peakBytes) / base.peakBytes);
  }
  std::printf("  (time x, peak x: ratios to the no-checkpoint row of this run)\n");
  if (llvm::Error error = bench::writePolicyData(dataPath, title, figures)) {
    llvm::errs() << "cotangent-bench: " << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  std::printf("  data: %s\n", dataPath.c_str());
  if (!plotPath.empty() && failed(bench::drawPlot(bench::Plot::Policies, dataPath, plotPath, std::cout)))
    return 1;
  return 0;
}

/// The memory_budget solve on one traced model, one budget region per layer
/// or block, solved together (as --jx-remat does) at several fractions of
/// the peak without remat.
int solveBudgets(mlir::MLIRContext &ctx, llvm::StringRef title, llvm::StringRef split,
                 const std::function<Traced(const Policy &)> &traceUnder) {
  std::printf("memory_budget solve: %s\n", title.str().c_str());
  std::printf("  %-9s %10s %10s %9s %12s %12s %14s\n", "budget", "model s", "solve s",
              "predicted", "peak MiB", "budget MiB", "recomp GFLOP");
  size_t candidates = 0;
  for (double fraction : {0.97, 0.93, 0.9}) {
    Traced traced = traceUnder(policies::memory_budget(fraction));
    mlir::ModuleOp module = traced.module();
    mlir::PassManager pm(&ctx);
    pm.addPass(mlir::cotangent::createJxVjpPass());
    if (failed(pm.run(module)))
      return 1;
    auto pair = mlir::jx::lookupSplitPair(module, split);
    if (!pair)
      return 1;
    auto problem = mlir::cotangent::MemoryBudgetProblem::build(
        pair->fwd, pair->bwd, mlir::cotangent::getBudgetRegions(pair->fwd));
    if (failed(problem))
      return 1;
    candidates = problem->numCandidates();
    std::string infeasible;
    mlir::ScopedDiagnosticHandler handler(&ctx, [&](mlir::Diagnostic &d) {
      infeasible = d.str();
      return mlir::success();
    });
    auto schedule = problem->solve(std::nullopt, fraction, 60);
    if (failed(schedule)) {
      std::printf("  x%-8.3g %s\n", fraction, infeasible.c_str());
      continue;
    }
    std::printf("  x%-8.3g %10.3f %10.3f %9d %12.3f %12.3f %14.4g %s\n", fraction,
                schedule->modelSeconds,
                schedule->seconds, schedule->schedulesChecked, schedule->peakBytes / 1048576.0,
                schedule->budgetBytes / 1048576.0, schedule->recomputedFlops / 1e9,
                schedule->optimal     ? "(proven optimal)"
                : schedule->timedOut ? "(time limit: the best found)"
                : schedule->searchStopped ? "(the best found: the working-set bound missed)"
                                     : "(optimal under the working-set bound)");
  }
  std::printf("  (budget: fraction of the peak without remat; model s: elimination or CBC alone; solve s: with "
              "the memory plan's predictions; %zu candidates per solve)\n",
              candidates);
  return 0;
}

/// The memory_budget solve on the MLP and on the transformer.
int benchBudget(mlir::MLIRContext &ctx) {
  // Layers of tanh(sin(d) * d): with plain tanh an MLP keeps one activation
  // per layer whatever the policy (each output is the next weight gradient's
  // input), and a budget has almost nothing to trade.
  bench::MlpConfig mlp = mlpConfig();
  mlp.richActivation = true;
  const bench::TransformerConfig transformer = transformerConfig();
  return solveBudgets(ctx,
                      llvm::formatv("MLP {0} layers x {1} of tanh(sin(d) * d), batch {2} (one "
                                    "region per layer)",
                                    mlp.layers, mlp.width, mlp.batch)
                          .str(),
                      "mlp",
                      [&](const Policy &policy) { return bench::traceMlp(ctx, mlp, policy); }) ||
         solveBudgets(ctx,
                      llvm::formatv("transformer {0} blocks x {1}, {2} heads, {3} tokens (one "
                                    "region per block)",
                                    transformer.blocks, transformer.width, transformer.heads,
                                    transformer.seq)
                          .str(),
                      "transformer", [&](const Policy &policy) {
                        return bench::traceTransformer(ctx, transformer, policy);
                      });
}

/// The frontier of one traced model (--jx-remat-frontier): written as JSON
/// next to the build, summed up here (per named policy, the FLOPs the budget
/// recomputes at that policy's peak), and drawn.
int sweepFrontier(mlir::MLIRContext &ctx, llvm::StringRef title, llvm::StringRef stem,
                  const std::function<Traced(const Policy &)> &traceUnder) {
  std::printf("remat frontier: %s\n", title.str().c_str());
  Traced traced = traceUnder(policies::nothing_saveable());
  mlir::ModuleOp module = traced.module();
  const std::string data = bench::inBuildDir(("cotangent-bench-frontier-" + stem + ".json").str());
  mlir::PassManager pm(&ctx);
  pm.addPass(mlir::cotangent::createJxVjpPass());
  pm.addPass(mlir::cotangent::createJxRematFrontierPass({.seconds = 2, .output = data}));
  auto start = std::chrono::steady_clock::now();
  if (failed(pm.run(module)))
    return 1;
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto buffer = llvm::MemoryBuffer::getFile(data);
  llvm::Expected<llvm::json::Value> json =
      buffer ? llvm::json::parse((*buffer)->getBuffer())
             : llvm::Expected<llvm::json::Value>(llvm::errorCodeToError(buffer.getError()));
  if (!json) {
    llvm::errs() << "cotangent-bench: " << data << ": " << llvm::toString(json.takeError())
                 << "\n";
    return 1;
  }
  for (const llvm::json::Value &split : *json->getAsArray()) {
    const llvm::json::Object &object = *split.getAsObject();
    const llvm::json::Array &frontier = *object.getArray("frontier");
    // What each point is known to be (--jx-remat-frontier's "optimality").
    std::map<std::string, int> known;
    for (const llvm::json::Value &point : frontier)
      if (auto optimality = point.getAsObject()->getString("optimality"))
        ++known[optimality->str()];
    std::printf("  split %s: %zu schedules on the frontier, swept in %.1f s (%d proven optimal, "
                "%d optimal under the working-set bound, %d best found)\n",
                object.getString("split")->str().c_str(), frontier.size(), seconds,
                known["proven"], known["tight_bound"], known["best_found"]);
    std::printf("  %-52s %10s %14s %14s %8s\n", "policy", "peak MiB", "recomp GFLOP",
                "budget GFLOP", "ratio");
    for (const llvm::json::Value &placed : *object.getArray("policies")) {
      const llvm::json::Object &policy = *placed.getAsObject();
      int64_t peak = *policy.getInteger("peak_bytes");
      int64_t flops = *policy.getInteger("recomputed_flops");
      // The frontier's fewest FLOPs at that peak or below.
      std::optional<int64_t> best;
      for (const llvm::json::Value &point : frontier) {
        const llvm::json::Object &p = *point.getAsObject();
        if (*p.getInteger("peak_bytes") <= peak)
          best = std::min(best.value_or(INT64_MAX), *p.getInteger("recomputed_flops"));
      }
      char budgetFlops[32] = "-", ratio[32] = "-";
      if (best)
        std::snprintf(budgetFlops, sizeof budgetFlops, "%.4g", *best / 1e9);
      if (best && *best > 0)
        std::snprintf(ratio, sizeof ratio, "%.2f", double(flops) / *best);
      std::printf("  %-52s %10.3f %14.4g %14s %8s\n", policy.getString("policy")->str().c_str(),
                  peak / 1048576.0, flops / 1e9, budgetFlops, ratio);
    }
  }
  std::printf("  (budget GFLOP: the fewest the frontier recomputes at that peak or below; "
              "ratio: the policy's / the frontier's)\n");
  std::printf("  data: %s\n", data.c_str());
  if (plotPath.empty())
    return 0;
  std::string image = bench::inBuildDir(("cotangent-bench-frontier-" + stem + ".svg").str());
  return failed(bench::drawPlot(bench::Plot::Frontier, data, image, std::cout, {"--title", title}));
}

/// The frontier of the MLP and of the transformer.
int benchFrontier(mlir::MLIRContext &ctx) {
  const bench::MlpConfig mlp = mlpConfig();
  const bench::TransformerConfig transformer = transformerConfig();
  return sweepFrontier(ctx,
                       llvm::formatv("MLP, {0} layers x {1}, batch {2}", mlp.layers, mlp.width,
                                     mlp.batch)
                           .str(),
                       "mlp",
                       [&](const Policy &policy) { return bench::traceMlp(ctx, mlp, policy); }) ||
         sweepFrontier(ctx,
                       llvm::formatv("pre-LN transformer, {0} block(s) x {1}, {2} heads, {3} tokens",
                                     transformer.blocks, transformer.width, transformer.heads,
                                     transformer.seq)
                           .str(),
                       "transformer", [&](const Policy &policy) {
                         return bench::traceTransformer(ctx, transformer, policy);
                       });
}

/// Unsets the OpenBLAS variables and re-executes; then, where OpenBLAS's own
/// detection picked kernels narrower than the CPU's (runtime/cpu/BlasCore.h),
/// sets the CPU's and re-executes once more, saying so: both sides of a
/// comparison then run at the machine's rate. Returns only on failure or
/// when nothing changed.
int reexecWithoutOpenBlasOverrides(char **argv) {
  constexpr const char *kUnset = "COTANGENT_BENCH_OVERRIDES_UNSET";
  if (cpuIsa == CpuIsa::Avx2) {
    // Every library and compiler capped at AVX2, in this process and JAX's.
    if (std::getenv(kUnset))
      return 0;
    setenv(kUnset, "1", 1);
    std::string xla = std::getenv("XLA_FLAGS") ? std::getenv("XLA_FLAGS") : "";
    xla += (xla.empty() ? "" : " ") + std::string("--xla_cpu_max_isa=AVX2");
    for (auto [var, value] : {std::pair<const char *, std::string>{"COTANGENT_CPU", "haswell"},
                              {"OPENBLAS_CORETYPE", "Haswell"},
                              {"ONEDNN_MAX_CPU_ISA", "AVX2"},
                              {"XLA_FLAGS", xla}}) {
      std::printf("cotangent-bench: --cpu-isa avx2: %s=%s\n", var, value.c_str());
      setenv(var, value.c_str(), 1);
    }
    unsetenv("OPENBLAS_L2_SIZE");
    std::fflush(stdout);
    execv("/proc/self/exe", argv);
    std::perror("cotangent-bench: re-exec failed");
    return 1;
  }
  if (!std::getenv(kUnset)) {
    setenv(kUnset, "1", 1); // the re-executions keep what this process decided
    bool reexec = false;
    for (const char *var : {"OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"}) {
      if (const char *value = std::getenv(var)) {
        std::printf("cotangent-bench: unsetting %s (was '%s') for this process only\n", var,
                    value);
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
  }
  return cpu::reexecWithWiderBlasKernels(argv, "cotangent-bench") ? 0 : 1;
}

/// What the parsers cannot check alone.
bool validFlags() {
  if (width % heads != 0) {
    llvm::errs() << "cotangent-bench: --heads=" << heads << " does not divide --width=" << width
                 << "\n";
    return false;
  }
  for (double cap : fitCaps)
    if (!(cap > 0)) {
      llvm::errs() << "cotangent-bench: for the --caps option: " << llvm::formatv("{0}", cap)
                   << " GiB is not a memory cap (each must be above 0)\n";
      return false;
    }
  if (dataPath.empty()) {
    llvm::errs() << "cotangent-bench: for the --data option: expected a file name (the MLP "
                    "rows are always written)\n";
    return false;
  }
  return true;
}

} // namespace

int main(int argc, char **argv) {
  tools::setUpCommandLine(benchOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "Cotangent bench: compiled dot_general throughput, and an MLP grad "
                              "step's time and memory under each remat policy\n");
  if (!validFlags() || reexecWithoutOpenBlasOverrides(argv))
    return 1;
  auto runs = [](Benchmark b) {
    return benchmarks.empty() ? b == Benchmark::Dot || b == Benchmark::Mlp || b == Benchmark::Budget
                              : llvm::is_contained(benchmarks, b);
  };
  auto compare = [&](mlir::MLIRContext &ctx, bool small) {
    return bench::compareWithJax(ctx, {.repeats = repeats, .python = jaxPython,
                                       .dataPath = comparePath, .small = small,
                                       .filter = compareFilter,
                                       .dot = dotFigures});
  };
  auto gpt2Rows = [&](mlir::MLIRContext &ctx) {
    return bench::compareWithJax(ctx, {.repeats = repeats, .python = jaxPython,
                                       .dataPath = comparePath,
                                       .filter = compareFilter.empty() ? std::string("gpt2")
                                                                       : compareFilter.getValue(),
                                       .dot = dotFigures});
  };
  mlir::MLIRContext ctx;
  // The budget and the frontier predict peaks with the memory plan.
  mlir::DialectRegistry registry;
  mlir::cotangent::registerPeakOracle(registry);
  host::loweringRegistry().appendTo(registry);
  ctx.appendDialectRegistry(registry);
  ctx.loadAllAvailableDialects();
  try {
    if (!emitMlirDir.empty())
      return emitModels(ctx);
    if ((runs(Benchmark::Dot) && benchDot(ctx)) || (runs(Benchmark::Mlp) && benchMlp(ctx)) ||
        (runs(Benchmark::Budget) && benchBudget(ctx)) ||
        (runs(Benchmark::Frontier) && benchFrontier(ctx)) ||
        (runs(Benchmark::Compare) && compare(ctx, false)) ||
        (runs(Benchmark::CompareSmall) && compare(ctx, true)) ||
        (runs(Benchmark::Gpt2) && gpt2Rows(ctx)) ||
        (runs(Benchmark::Fit) &&
         bench::benchFitUnderCaps(
             ctx, {.preset = gpt2Preset.empty() ? std::string("124M") : gpt2Preset.getValue(),
                   .seq = seq.getNumOccurrences() ? static_cast<int64_t>(seq) : 256,
                   .capsGiB = fitCaps.empty() ? std::vector<double>{2, 4, 8}
                                              : std::vector<double>(fitCaps.begin(),
                                                                    fitCaps.end()),
                   .repeats = repeats, .python = jaxPython, .torchPython = torchPython,
                   .dataPath = fitData})) ||
        (runs(Benchmark::Partitioner) &&
         bench::benchPartitioner(ctx, {.torchPython = torchPython})) ||
        (runs(Benchmark::Attention) &&
         bench::benchAttentionMemory(
             ctx, {.preset = gpt2Preset.empty() ? std::string("124M") : gpt2Preset.getValue(),
                   .repeats = repeats})) ||
        (runs(Benchmark::Train) &&
         bench::benchTrainStep({.layers = layers, .width = width, .batch = batch, .repeats = repeats})) ||
        (runs(Benchmark::DeviceLoop) &&
         bench::benchDeviceTrainLoop({.layers = layers, .width = width, .batch = batch,
                                      .steps = steps, .repeats = repeats}))) {
      std::fprintf(stderr, "cotangent-bench: failed\n");
      return 1;
    }
  } catch (const TraceError &e) {
    std::fprintf(stderr, "cotangent-bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}

//===- cotangent-demo.cpp - the seed example end to end -------------------===//
//
// What a new user sees first (the README's main job):
//   1. the seed's g/f traced from C++, shown as a jaxpr;
//   2. its saved residuals for each checkpoint placement and policy, read
//      off the IR after --jx-vjp and --jx-remat;
//   3. forward and backward side by side;
//   4. an MLP grad step compiled for the CPU under each policy, with the
//      residual bytes and peak bytes the runtime measured, and the median
//      time; the rows are written as JSON and drawn by
//      tools/plot-policies.py (matplotlib) when it is installed.
//
//===----------------------------------------------------------------------===//

#include "bench/PlotScript.h"
#include "bench/PolicyFigures.h"
#include "tracer/Autodiff.h"
#include "runtime/cpu/BlasCore.h"
#include "runtime/cpu/CpuRuntime.h"
#include "tools/common/CommandLine.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>

using namespace cotangent;

namespace cl = llvm::cl;

/// Only the tool's own flags show in --help (libLLVM registers hundreds).
/// Sizes have ranges (a block of 0 layers would never end a loop; 0 repeats
/// would time nothing); the upper bounds keep a run within memory and minutes.
static cl::OptionCategory toolOptions("cotangent-demo options");
static tools::UnsignedOpt<1, 1024> layers(cl::cat(toolOptions), "layers",
                                          cl::desc("MLP layers, 1 to 1024 (default 16)"),
                                          cl::init(16));
static tools::UnsignedOpt<1, 1024>
    blockSize(cl::cat(toolOptions), "block",
              cl::desc("layers per checkpointed block, 1 to --layers (default 4)"), cl::init(4));
static tools::UnsignedOpt<1, 8192> width(cl::cat(toolOptions), "width",
                                         cl::desc("MLP width, 1 to 8192 (default 256)"),
                                         cl::init(256));
static tools::UnsignedOpt<1, 8192> batch(cl::cat(toolOptions), "batch",
                                         cl::desc("MLP batch size, 1 to 8192 (default 512)"),
                                         cl::init(512));
static tools::UnsignedOpt<1, 1000>
    repeats(cl::cat(toolOptions), "repeats",
            cl::desc("timed runs per policy, 1 to 1000; the median is shown (default 3)"),
            cl::init(3));
static cl::opt<std::string>
    dataPath(cl::cat(toolOptions), "data",
             cl::desc("write the policy rows (time, peak and residual bytes) here as "
                      "JSON (default: build/cotangent-demo-policies.json)"),
             cl::value_desc("file"), cl::init(bench::inBuildDir("cotangent-demo-policies.json")));
static cl::opt<std::string>
    plotPath(cl::cat(toolOptions), "plot",
             cl::desc("draw them here with tools/plot-policies.py: .png, .svg or "
                      ".pdf; empty: do not draw (default: "
                      "build/cotangent-demo-policies.png)"),
             cl::value_desc("file"), cl::init(bench::inBuildDir("cotangent-demo-policies.png")));
static cl::opt<std::string>
    dumpPath(cl::cat(toolOptions), "dump-mlir",
             cl::desc("also write the no-checkpoint grad step's IR, split into forward and "
                      "backward, here"),
             cl::value_desc("file"), cl::init(""));

namespace {

Tensor g(Tensor W, Tensor x) { return np::sin(np::dot(W, x)); }

void heading(const std::string &title) {
  std::cout << "\n== " << title << "\n";
}

void seedStory() {
  const TraceOptions opts{.name = "f", .arg_names = {"W1", "W2", "W3", "x"}};
  const Spec W1 = f32({5, 4}), W2 = f32({6, 5}), W3 = f32({7, 6}), X = f32({4});
  auto f = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) { return g(W3, g(W2, g(W1, x))); };

  heading("The seed's f = g . g . g with g(W, x) = sin(W @ x), as a jaxpr");
  std::cout << trace(opts, f, W1, W2, W3, X).jaxpr();

  heading("Saved residuals without checkpoint");
  std::cout << vjp(opts, f, W1, W2, W3, X).print_saved_residuals();

  auto eachG = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) {
    auto cg = checkpoint(g);
    return cg(W3, cg(W2, cg(W1, x)));
  };
  heading("Saved residuals with checkpoint on each g (nothing_saveable)");
  Split each = vjp(opts, eachG, W1, W2, W3, X);
  std::cout << each.print_saved_residuals();

  heading("Saved residuals with checkpoint(f, policy=dots_with_no_batch_dims_saveable)");
  std::cout << vjp(opts, checkpoint(f, {.policy = policies::dots_with_no_batch_dims_saveable()}),
                   W1, W2, W3, X)
                   .print_saved_residuals();

  auto named = [](Tensor W1, Tensor W2, Tensor W3, Tensor x) {
    x = checkpoint_name(g(W1, x), "a");
    x = checkpoint_name(g(W2, x), "b");
    return checkpoint_name(g(W3, x), "c");
  };
  heading("Saved residuals with checkpoint(f, policy=save_only_these_names('a'))");
  std::cout << vjp(opts, checkpoint(named, {.policy = policies::save_only_these_names({"a"})}), W1,
                   W2, W3, X)
                   .print_saved_residuals();

  heading("Forward and backward side by side (checkpoint on each g)");
  std::cout << each.print_fwd_bwd(DumpSyntax::Jaxpr);
}

struct PolicyRow {
  std::string name;
  std::optional<Policy> policy; // none: no checkpoint
};

/// The MLP grad step: layers of relu(x @ W + b), each output named 'hidden',
/// in blocks of `blockSize` layers, each block under `policy` (the article's
/// checkpointed MLP block); loss = mean(out^2).
auto mlpLoss(std::optional<Policy> policy, size_t block) {
  return [policy, block](std::vector<Tensor> ws, std::vector<Tensor> bs, Tensor x) {
    auto layers = [](std::vector<Tensor> ws, std::vector<Tensor> bs, Tensor h) {
      for (size_t i = 0; i < ws.size(); ++i)
        h = checkpoint_name(np::relu(np::dot(h, ws[i]) + bs[i]), "hidden");
      return h;
    };
    for (size_t i = 0; i < ws.size(); i += block) {
      size_t end = std::min(ws.size(), i + block);
      std::vector<Tensor> w(ws.begin() + i, ws.begin() + end), b(bs.begin() + i, bs.begin() + end);
      x = policy ? checkpoint(layers, {.policy = *policy})(w, b, x) : layers(w, b, x);
    }
    return np::mean(x * x);
  };
}

interp::Tensor randomTensor(mlir::MLIRContext &ctx, std::vector<int64_t> shape, float scale,
                            std::mt19937 &rng) {
  std::normal_distribution<double> dist(0.0, scale);
  auto type = mlir::RankedTensorType::get(shape, mlir::Float32Type::get(&ctx));
  std::vector<double> values(type.getNumElements());
  for (double &v : values)
    v = dist(rng);
  return interp::Tensor::fromDoubles(type, values);
}

int mlpTable() {
  const int64_t L = layers, D = width, B = batch;
  heading("MLP grad step on the CPU: " + std::to_string(L) + " layers x " + std::to_string(D) +
          ", batch " + std::to_string(B) + ", f32, blocks of " + std::to_string(blockSize) +
          " layers under each policy");
  std::vector<PolicyRow> rows = {
      {"no checkpoint", std::nullopt},
      {"everything_saveable", policies::everything_saveable()},
      {"nothing_saveable", policies::nothing_saveable()},
      {"dots_saveable", policies::dots_saveable()},
      {"dots_with_no_batch_dims_saveable", policies::dots_with_no_batch_dims_saveable()},
      {"save_only_these_names('hidden')", policies::save_only_these_names({"hidden"})},
      {"offload 'hidden' to pinned_host",
       policies::save_and_offload_only_these_names({}, {"hidden"}, "device", "pinned_host")},
  };
  mlir::MLIRContext ctx;
  std::mt19937 rng(0);
  std::vector<interp::Tensor> args;
  for (int64_t i = 0; i < L; ++i)
    args.push_back(randomTensor(ctx, {D, D}, 1.0f / std::sqrt(static_cast<float>(D)), rng));
  for (int64_t i = 0; i < L; ++i)
    args.push_back(randomTensor(ctx, {D}, 0.1f, rng));
  args.push_back(randomTensor(ctx, {B, D}, 1.0f, rng));
  std::vector<Spec> wSpecs(L, f32({D, D})), bSpecs(L, f32({D}));
  interp::Tensor seed = interp::Tensor::fromDoubles(
      mlir::RankedTensorType::get({}, mlir::Float32Type::get(&ctx)), {1.0});

  std::printf("%-34s %9s %13s %13s %13s %9s %10s\n", "policy", "residuals", "report bytes",
              "measured", "peak bytes", "time ms", "max |dg|");
  const std::string title = "MLP grad step: " + std::to_string(L) + " layers x " +
                            std::to_string(D) + ", batch " + std::to_string(B) + ", blocks of " +
                            std::to_string(blockSize);
  std::vector<interp::Tensor> reference;
  std::vector<bench::PolicyFigures> figures;
  for (const PolicyRow &row : rows) {
    TraceOptions opts{.name = "loss", .arg_names = {"ws", "bs", "x"}, .context = &ctx};
    Split split(trace(opts, mlpLoss(row.policy, blockSize), wSpecs, bSpecs, f32({B, D})));
    if (!dumpPath.empty() && !row.policy) {
      std::error_code ec;
      llvm::raw_fd_ostream os(dumpPath, ec);
      if (ec) {
        std::cerr << "cotangent-demo: cannot write " << dumpPath.getValue() << ": " << ec.message()
                  << "\n";
        return 1;
      }
      split.module().print(os);
    }
    std::vector<Residual> residuals = split.saved_residuals();
    int64_t reportBytes = 0;
    for (const Residual &r : residuals)
      reportBytes += r.bytes;
    auto compiled = cpu::CpuModule::compile(split.module());
    if (llvm::failed(compiled)) {
      std::cerr << "error: the " << row.name << " grad step did not compile\n";
      return 1;
    }
    cpu::SplitResult result;
    auto measured = bench::timeSplit(row.name, **compiled, "loss", args, {seed}, repeats, &result);
    if (llvm::failed(measured)) {
      std::cerr << "error: the " << row.name << " grad step failed to run\n";
      return 1;
    }
    // Recomputation is compiled separately from the forward (fused and
    // vectorized on its own), so gradients may differ in the last bits.
    double maxDiff = 0;
    if (reference.empty())
      reference = result.gradients;
    for (size_t k = 0; k < reference.size(); ++k)
      for (int64_t i = 0; i < reference[k].getNumElements(); ++i)
        maxDiff = std::max(maxDiff, std::abs(reference[k].getDouble(i) -
                                             result.gradients[k].getDouble(i)));
    std::printf("%-34s %9zu %13lld %13lld %13lld %9.2f %10.1e\n", row.name.c_str(),
                residuals.size(), static_cast<long long>(reportBytes),
                static_cast<long long>(result.residualBytes),
                static_cast<long long>(result.peakBytes), measured->medianSeconds() * 1e3,
                maxDiff);
    figures.push_back(std::move(*measured));
    if (reportBytes != result.residualBytes) {
      std::cerr << "error: measured residual bytes differ from the report\n";
      return 1;
    }
  }
  std::cout << "\nresiduals / report bytes: the saved-residuals report (weights included, as\n"
               "arguments the backward reads); measured: bytes the runtime held between\n"
               "@loss_fwd and @loss_bwd; peak: the most bytes live during the step (the caller's\n"
               "arguments not counted); time: the median of --repeats runs; max |dg|: the largest\n"
               "gradient difference from the first row (f32; recomputed code is compiled on its\n"
               "own, so the last bits may differ).\n";
  if (llvm::Error error = bench::writePolicyData(dataPath, title, figures)) {
    std::cerr << "error: " << llvm::toString(std::move(error)) << "\n";
    return 1;
  }
  std::cout << "\nplot data: " << dataPath << "\n";
  if (!plotPath.empty() && llvm::failed(bench::drawPlot(bench::Plot::Policies, dataPath, plotPath, std::cout)))
    return 1;
  return 0;
}

} // namespace

/// What the parsers cannot check alone: flags that depend on each other.
static bool validFlags() {
  if (blockSize > layers) {
    llvm::errs() << "cotangent-demo: for the --block option: expected a whole number from 1 to "
                 << layers << " (--layers), got '" << blockSize << "'\n";
    return false;
  }
  if (dataPath.empty()) {
    llvm::errs() << "cotangent-demo: for the --data option: expected a file name (the JSON "
                    "rows are always written)\n";
    return false;
  }
  return true;
}

int main(int argc, char **argv) {
  // The CPU's widest OpenBLAS kernels unless OPENBLAS_CORETYPE names others.
  if (!cpu::reexecWithWiderBlasKernels(argv))
    return 1;
  tools::setUpCommandLine(toolOptions);
  cl::ParseCommandLineOptions(argc, argv, "Cotangent demo: the seed example end to end\n");
  if (!validFlags())
    return 1;
  try {
    seedStory();
    return mlpTable();
  } catch (const TraceError &e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}

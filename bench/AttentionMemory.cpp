//===- AttentionMemory.cpp - GPT-2's step peak against the sequence -------===//

#include "bench/AttentionMemory.h"
#include "bench/Gpt2Model.h"
#include "bench/PolicyFigures.h"
#include "bench/RandomArguments.h"

#include "models/gpt2/Config.h"
#include "passes/Passes.h"
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/CpuRuntime.h"
#include "tracer/Autodiff.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace cotangent;

namespace {

struct Step {
  std::vector<std::string> argNames; ///< the step's arguments, as its gradients' names
  int64_t peakBytes = 0;
  double seconds = 0;
  std::vector<cpu::Tensor> results; ///< loss, then the gradients
};

/// Compiles GPT-2's value-and-grad step and runs it on seeded arguments
/// (the same for both implementations: one signature), one warm-up then
/// `repeats` timed calls.
std::optional<Step> runStep(mlir::MLIRContext &ctx, const gpt2::Config &config, int64_t batch,
                            int64_t seq, nn::AttentionImplementation attention, unsigned repeats) {
  cpu::blockCache().release(); // each step starts without the last one's blocks
  // Outside checkpoints, what jax.jit's XLA does (as --run compare).
  Split split(bench::traceGpt2(ctx, config, batch, seq, std::nullopt, attention),
              SplitOptions{.defaultPolicy = mlir::cotangent::kCompileDefaultPolicy.str()});
  auto compiled = cpu::CpuModule::compile(
      split.module(), {.entryPoints = {split.value_and_grad().getSymName().str()}});
  if (mlir::failed(compiled))
    return std::nullopt;
  mlir::func::FuncOp fn = split.value_and_grad();
  std::vector<cpu::Tensor> args = bench::randomArguments(fn, 2);
  Step step;
  mlir::func::FuncOp primal = split.primal(); // the traced function names its arguments
  for (unsigned i = 0; i < primal.getNumArguments(); ++i) {
    auto name = primal.getArgAttrOfType<mlir::StringAttr>(i, "jx.arg_name");
    step.argNames.push_back(name ? name.str() : "argument " + std::to_string(i));
  }
  std::vector<double> seconds;
  for (unsigned r = 0; r <= repeats; ++r) {
    auto result = (*compiled)->call(fn.getSymName(), args);
    if (mlir::failed(result))
      return std::nullopt;
    if (r > 0)
      seconds.push_back(result->seconds);
    step.peakBytes = std::max(step.peakBytes, result->stats.peakBytes);
    step.results = std::move(result->results);
  }
  step.seconds = bench::median(seconds);
  return step;
}

/// How far the fused step's results are from the materialized step's: the
/// loss's relative difference, the whole gradient's (the L2 norm of the
/// difference over the norm), and the worst leaf's max |a - b| / max |b|
/// with its name (a leaf whose true gradient is zero, as the key bias's,
/// is rounding noise on both sides, so the whole gradient's is the figure).
struct Difference {
  double loss = 0, gradient = 0, worstLeaf = 0;
  std::string worstLeafName;
};

Difference difference(const std::vector<std::string> &names, const std::vector<cpu::Tensor> &a,
                      const std::vector<cpu::Tensor> &b) {
  Difference d;
  d.loss = std::abs(a[0].getDouble(0) - b[0].getDouble(0)) / std::abs(b[0].getDouble(0));
  double diff2 = 0, norm2 = 0;
  for (size_t i = 1; i < a.size() && i < b.size(); ++i) {
    double diff = 0, scale = 0;
    for (int64_t j = 0; j < a[i].getNumElements(); ++j) {
      double x = a[i].getDouble(j), y = b[i].getDouble(j);
      diff = std::max(diff, std::abs(x - y));
      scale = std::max(scale, std::abs(y));
      diff2 += (x - y) * (x - y);
      norm2 += y * y;
    }
    double leaf = scale == 0 ? diff : diff / scale;
    if (leaf > d.worstLeaf) {
      d.worstLeaf = leaf;
      d.worstLeafName = i - 1 < names.size() ? names[i - 1] : "?";
    }
  }
  d.gradient = norm2 == 0 ? std::sqrt(diff2) : std::sqrt(diff2 / norm2);
  return d;
}

double mib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

} // namespace

bool bench::benchAttentionMemory(mlir::MLIRContext &ctx, const AttentionMemoryOptions &options) {
  std::optional<gpt2::Config> base = gpt2::preset(options.preset);
  if (!base) {
    std::fprintf(stderr, "cotangent-bench: no GPT-2 preset '%s'\n", options.preset.c_str());
    return true;
  }
  std::printf("\nGPT-2 %s training step (loss and gradients, f32, no checkpoint), %lld tokens "
              "per batch:\nattention fused (FlashAttention-2 kernels) against its scores "
              "materialized, same run; medians of %u\n",
              options.preset.c_str(), static_cast<long long>(options.tokens), options.repeats);
  std::printf("%6s %6s | %10s %10s %6s | %9s %9s | %9s %9s  %s\n", "seq", "batch", "fused MiB",
              "scores MiB", "ratio", "fused ms", "scores ms", "loss diff", "grad diff",
              "worst leaf (max |diff| / max |grad|)");
  for (int64_t seq : options.seqs) {
    if (options.tokens % seq != 0) {
      std::fprintf(stderr, "cotangent-bench: %lld tokens are not whole sequences of %lld\n",
                   static_cast<long long>(options.tokens), static_cast<long long>(seq));
      return true;
    }
    const int64_t batch = options.tokens / seq;
    gpt2::Config config = *base;
    config.block_size = std::max(config.block_size, seq); // positions for longer sequences
    auto fused = runStep(ctx, config, batch, seq, nn::AttentionImplementation::Fused,
                         options.repeats);
    auto scores = runStep(ctx, config, batch, seq, nn::AttentionImplementation::Xla,
                          options.repeats);
    if (!fused || !scores) {
      std::fprintf(stderr, "cotangent-bench: GPT-2 at seq %lld failed\n",
                   static_cast<long long>(seq));
      return true;
    }
    Difference d = difference(fused->argNames, fused->results, scores->results);
    std::printf("%6lld %6lld | %10.1f %10.1f %6.2f | %9.1f %9.1f | %9.2e %9.2e  %s %.2e\n",
                static_cast<long long>(seq), static_cast<long long>(batch),
                mib(fused->peakBytes), mib(scores->peakBytes),
                static_cast<double>(fused->peakBytes) / static_cast<double>(scores->peakBytes),
                fused->seconds * 1e3, scores->seconds * 1e3, d.loss, d.gradient,
                d.worstLeafName.c_str(), d.worstLeaf);
    std::fflush(stdout);
  }
  return false;
}

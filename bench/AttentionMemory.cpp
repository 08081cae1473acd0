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

/// The largest max |a - b| / max |b| over the results.
double relativeDifference(const std::vector<cpu::Tensor> &a, const std::vector<cpu::Tensor> &b) {
  double worst = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    double diff = 0, scale = 0;
    for (int64_t j = 0; j < a[i].getNumElements(); ++j) {
      diff = std::max(diff, std::abs(a[i].getDouble(j) - b[i].getDouble(j)));
      scale = std::max(scale, std::abs(b[i].getDouble(j)));
    }
    worst = std::max(worst, scale == 0 ? diff : diff / scale);
  }
  return worst;
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
  std::printf("%6s %6s | %12s %12s %9s | %10s %10s | %s\n", "seq", "batch", "fused MiB",
              "scores MiB", "ratio", "fused ms", "scores ms", "max rel diff (loss, grads)");
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
    std::printf("%6lld %6lld | %12.1f %12.1f %9.2f | %10.1f %10.1f | %.2e\n",
                static_cast<long long>(seq), static_cast<long long>(batch),
                mib(fused->peakBytes), mib(scores->peakBytes),
                static_cast<double>(fused->peakBytes) / static_cast<double>(scores->peakBytes),
                fused->seconds * 1e3, scores->seconds * 1e3,
                relativeDifference(fused->results, scores->results));
    std::fflush(stdout);
  }
  return false;
}

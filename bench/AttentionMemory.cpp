//===- AttentionMemory.cpp - GPT-2's step peak against the sequence -------===//

#include "bench/AttentionMemory.h"
#include "bench/Gpt2Model.h"

#include "models/gpt2/Config.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace cotangent;

namespace {

/// How far the fused step's results are from the materialized step's: the
/// loss's relative difference, the whole gradient's (the L2 norm of the
/// difference over the norm), the worst leaf's by the same norm, and the
/// worst leaf's max |a - b| / max |b|, with their names (one element's
/// difference against the leaf's largest: the strictest reading).
struct Difference {
  double loss = 0, gradient = 0, worstLeafNorm = 0, worstLeaf = 0;
  std::string worstLeafNormName, worstLeafName;
};

Difference difference(const std::vector<std::string> &names, const std::vector<cpu::Tensor> &a,
                      const std::vector<cpu::Tensor> &b) {
  Difference d;
  d.loss = std::abs(a[0].getDouble(0) - b[0].getDouble(0)) / std::abs(b[0].getDouble(0));
  double diff2 = 0, norm2 = 0;
  for (size_t i = 1; i < a.size() && i < b.size(); ++i) {
    double diff = 0, scale = 0, leafDiff2 = 0, leafNorm2 = 0;
    for (int64_t j = 0; j < a[i].getNumElements(); ++j) {
      double x = a[i].getDouble(j), y = b[i].getDouble(j);
      diff = std::max(diff, std::abs(x - y));
      scale = std::max(scale, std::abs(y));
      leafDiff2 += (x - y) * (x - y);
      leafNorm2 += y * y;
    }
    diff2 += leafDiff2;
    norm2 += leafNorm2;
    const std::string name = i - 1 < names.size() ? names[i - 1] : "?";
    double byNorm = leafNorm2 == 0 ? std::sqrt(leafDiff2) : std::sqrt(leafDiff2 / leafNorm2);
    if (byNorm > d.worstLeafNorm) {
      d.worstLeafNorm = byNorm;
      d.worstLeafNormName = name;
    }
    double leaf = scale == 0 ? diff : diff / scale;
    if (leaf > d.worstLeaf) {
      d.worstLeaf = leaf;
      d.worstLeafName = name;
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
  std::printf("%6s %6s | %10s %10s %6s | %9s %9s | %9s %9s  %s; %s\n", "seq", "batch",
              "fused MiB", "scores MiB", "ratio", "fused ms", "scores ms", "loss diff",
              "grad diff", "worst leaf (|diff| / |grad|)", "(max |diff| / max |grad|)");
  for (int64_t seq : options.seqs) {
    if (options.tokens % seq != 0) {
      std::fprintf(stderr, "cotangent-bench: %lld tokens are not whole sequences of %lld\n",
                   static_cast<long long>(options.tokens), static_cast<long long>(seq));
      return true;
    }
    const int64_t batch = options.tokens / seq;
    gpt2::Config config = *base;
    config.block_size = std::max(config.block_size, seq); // positions for longer sequences
    std::string why;
    auto fused = bench::runGpt2Step(ctx, config, batch, seq,
                                    {.attention = nn::AttentionImplementation::Fused},
                                    options.repeats, why);
    auto scores = fused ? bench::runGpt2Step(ctx, config, batch, seq,
                                             {.attention = nn::AttentionImplementation::Xla},
                                             options.repeats, why)
                        : std::nullopt;
    if (!fused || !scores) {
      std::fprintf(stderr, "cotangent-bench: GPT-2 at seq %lld failed: %s\n",
                   static_cast<long long>(seq), why.c_str());
      return true;
    }
    Difference d = difference(fused->argNames, fused->results, scores->results);
    std::printf("%6lld %6lld | %10.1f %10.1f %6.2f | %9.1f %9.1f | %9.2e %9.2e  %s %.2e; %s "
                "%.2e\n",
                static_cast<long long>(seq), static_cast<long long>(batch),
                mib(fused->peakBytes), mib(scores->peakBytes),
                static_cast<double>(fused->peakBytes) / static_cast<double>(scores->peakBytes),
                fused->seconds * 1e3, scores->seconds * 1e3, d.loss, d.gradient,
                d.worstLeafNormName.c_str(), d.worstLeafNorm, d.worstLeafName.c_str(),
                d.worstLeaf);
    std::fflush(stdout);
  }
  return false;
}

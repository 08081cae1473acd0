//===- FitUnderCap.cpp - the largest GPT-2 batch under a memory cap -------===//

#include "bench/FitUnderCap.h"
#include "bench/Gpt2Model.h"
#include "bench/JaxComparison.h"
#include "bench/PolicyFigures.h"
#include "bench/RandomArguments.h"

#include "analysis/MemoryPlan.h"
#include "models/gpt2/Config.h"
#include "passes/Passes.h"
#include "runtime/cpu/BlockCache.h"
#include "runtime/cpu/CpuRuntime.h"
#include "tracer/Autodiff.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <optional>

using namespace cotangent;

namespace {

const char *const kPolicies[] = {"none", "nothing_saveable", "dots_saveable"};

int64_t argumentBytes(mlir::func::FuncOp fn) {
  int64_t bytes = 0;
  for (mlir::Type t : fn.getArgumentTypes()) {
    auto tensor = mlir::cast<mlir::RankedTensorType>(t);
    bytes += tensor.getNumElements() * ((tensor.getElementTypeBitWidth() + 7) / 8);
  }
  return bytes;
}

Split splitGpt2(mlir::MLIRContext &ctx, const gpt2::Config &config, const std::string &policy,
                int64_t batch, int64_t seq) {
  return Split(bench::traceGpt2(ctx, config, batch, seq, bench::policyOf(policy)),
               SplitOptions{.defaultPolicy = mlir::cotangent::kCompileDefaultPolicy.str()});
}

/// Cotangent's step memory (arguments + the planned peak) at `batch`.
std::optional<int64_t> oursPredicted(mlir::MLIRContext &ctx, const gpt2::Config &config,
                                     const std::string &policy, int64_t batch, int64_t seq) {
  Split split = splitGpt2(ctx, config, policy, batch, seq);
  mlir::func::FuncOp fn = split.value_and_grad();
  auto plan = mlir::cotangent::predictCallPlan(split.module(), fn.getSymName());
  if (mlir::failed(plan))
    return std::nullopt;
  return argumentBytes(fn) + plan->peakBytes;
}

struct Timed {
  double tokensPerSecond = 0;
  int64_t measuredBytes = 0; ///< arguments + the measured peak
};

std::optional<Timed> oursTimed(mlir::MLIRContext &ctx, const gpt2::Config &config,
                               const std::string &policy, int64_t batch, int64_t seq,
                               unsigned repeats) {
  cpu::blockCache().release();
  Split split = splitGpt2(ctx, config, policy, batch, seq);
  mlir::func::FuncOp fn = split.value_and_grad();
  auto compiled =
      cpu::CpuModule::compile(split.module(), {.entryPoints = {fn.getSymName().str()}});
  if (mlir::failed(compiled))
    return std::nullopt;
  std::vector<cpu::Tensor> args = bench::randomArguments(fn, 2);
  std::vector<double> seconds;
  int64_t peak = 0;
  for (unsigned r = 0; r <= repeats; ++r) { // one warm-up
    auto result = (*compiled)->call(fn.getSymName(), args);
    if (mlir::failed(result))
      return std::nullopt;
    if (r > 0)
      seconds.push_back(result->seconds);
    peak = std::max(peak, result->stats.peakBytes);
  }
  return Timed{static_cast<double>(batch * seq) / bench::median(seconds),
               argumentBytes(fn) + peak};
}

/// A side's answer at one cap: its best policy's largest batch and rate.
struct Fit {
  std::string policy;
  int64_t batch = 0, bytes = 0;
  double tokensPerSecond = 0;
};

double gib(int64_t bytes) { return static_cast<double>(bytes) / (1 << 30); }

/// The largest power-of-two batch whose memory fits `cap`, from `memory`
/// per batch (0 when even batch 1 does not).
int64_t largestBatch(const std::map<int64_t, int64_t> &memory, int64_t cap) {
  int64_t best = 0;
  for (auto [batch, bytes] : memory)
    if (bytes >= 0 && bytes <= cap)
      best = std::max(best, batch);
  return best;
}

} // namespace

bool bench::benchFitUnderCaps(mlir::MLIRContext &ctx, const FitOptions &options) {
  std::optional<gpt2::Config> config = gpt2::preset(options.preset);
  if (!config) {
    std::fprintf(stderr, "cotangent-bench: no GPT-2 preset '%s'\n", options.preset.c_str());
    return true;
  }
  const int64_t largestCap =
      static_cast<int64_t>(*std::max_element(options.capsGiB.begin(), options.capsGiB.end()) *
                           (int64_t(1) << 30));
  std::string why;
  std::optional<std::string> python = jaxPython(options.python, why);
  if (!python)
    std::printf("JAX's side is skipped: %s\n", why.c_str());

  // Memory per (side, policy, batch), batches doubling until past the largest cap.
  std::map<std::string, std::map<int64_t, int64_t>> ours, jax;
  for (const char *policy : kPolicies) {
    for (int64_t batch = 1; batch <= options.maxBatch; batch *= 2) {
      std::optional<int64_t> bytes = oursPredicted(ctx, *config, policy, batch, options.seq);
      if (!bytes) {
        std::fprintf(stderr, "cotangent-bench: no memory plan for GPT-2 batch %lld\n",
                     static_cast<long long>(batch));
        return true;
      }
      ours[policy][batch] = *bytes;
      if (*bytes > largestCap)
        break;
    }
    for (int64_t batch = 1; python && batch <= options.maxBatch; batch *= 2) {
      auto figures = runJaxGpt2(*python, options.preset, policy, batch, options.seq,
                                /*compileOnly=*/true, 1, 0, why);
      if (!figures) {
        std::printf("JAX %s batch %lld: %s\n", policy, static_cast<long long>(batch),
                    why.c_str());
        break;
      }
      int64_t bytes = figures->getInteger("argument_bytes").value_or(0) +
                      figures->getInteger("peak_bytes").value_or(0);
      jax[policy][batch] = bytes;
      if (bytes > largestCap)
        break;
    }
  }

  std::printf("\nGPT-2 %s value-and-grad step (f32), sequences of %lld tokens: the largest "
              "power-of-two batch\nwhose arguments + peak fit each cap, per policy per block, "
              "and tokens/s there (median of %u after a warm-up)\n",
              options.preset.c_str(), static_cast<long long>(options.seq), options.repeats);
  std::printf("%7s | %-17s %6s %8s %9s | %-17s %6s %8s %9s | %6s\n", "cap GiB", "Cotangent best",
              "batch", "GiB", "tokens/s", "JAX best", "batch", "GiB", "tokens/s", "ratio");
  std::map<std::pair<std::string, int64_t>, Timed> oursTimes;
  std::map<std::pair<std::string, int64_t>, double> jaxTimes;
  for (double capGiB : options.capsGiB) {
    const int64_t cap = static_cast<int64_t>(capGiB * (int64_t(1) << 30));
    Fit bestOurs, bestJax;
    for (const char *policy : kPolicies) {
      if (int64_t batch = largestBatch(ours[policy], cap)) {
        auto key = std::make_pair(std::string(policy), batch);
        if (!oursTimes.count(key)) {
          auto timed = oursTimed(ctx, *config, policy, batch, options.seq, options.repeats);
          if (!timed)
            return true;
          oursTimes[key] = *timed;
          if (timed->measuredBytes != ours[policy][batch])
            std::printf("note: %s batch %lld measured %lld bytes, planned %lld\n", policy,
                        static_cast<long long>(batch),
                        static_cast<long long>(timed->measuredBytes),
                        static_cast<long long>(ours[policy][batch]));
        }
        const Timed &t = oursTimes[key];
        if (t.tokensPerSecond > bestOurs.tokensPerSecond)
          bestOurs = {policy, batch, t.measuredBytes, t.tokensPerSecond};
      }
      if (int64_t batch = python ? largestBatch(jax[policy], cap) : 0) {
        auto key = std::make_pair(std::string(policy), batch);
        if (!jaxTimes.count(key)) {
          auto figures = runJaxGpt2(*python, options.preset, policy, batch, options.seq,
                                    /*compileOnly=*/false, options.repeats, 1, why);
          double ms = figures ? figures->getNumber("median_ms").value_or(0) : 0;
          jaxTimes[key] = ms > 0 ? static_cast<double>(batch * options.seq) / (ms / 1e3) : 0;
        }
        if (jaxTimes[key] > bestJax.tokensPerSecond)
          bestJax = {policy, batch, jax[policy][batch], jaxTimes[key]};
      }
    }
    auto side = [](const Fit &f) {
      if (f.batch == 0)
          return llvm::formatv("{0,-17} {1,6} {2,8} {3,9}", "no batch fits", "-", "-", "-").str();
      return llvm::formatv("{0,-17} {1,6} {2,8:f2} {3,9:f0}", f.policy, f.batch, gib(f.bytes),
                           f.tokensPerSecond)
          .str();
    };
    std::string ratio = bestOurs.batch && bestJax.batch
                            ? llvm::formatv("{0:f2}", bestOurs.tokensPerSecond /
                                                          bestJax.tokensPerSecond)
                                  .str()
                            : "-";
    std::printf("%7.1f | %s | %s | %6s\n", capGiB, side(bestOurs).c_str(),
                side(bestJax).c_str(), ratio.c_str());
    std::fflush(stdout);
  }
  std::printf("memory per batch (GiB), Cotangent planned / XLA's analysis:\n");
  for (const char *policy : kPolicies) {
    std::printf("  %-17s", policy);
    for (int64_t batch = 1; batch <= options.maxBatch; batch *= 2) {
      auto o = ours[policy].find(batch), j = jax[policy].find(batch);
      if (o == ours[policy].end() && j == jax[policy].end())
        break;
      std::printf(" b%lld %s/%s", static_cast<long long>(batch),
                  o == ours[policy].end() ? "-" : llvm::formatv("{0:f2}", gib(o->second)).str().c_str(),
                  j == jax[policy].end() ? "-" : llvm::formatv("{0:f2}", gib(j->second)).str().c_str());
    }
    std::printf("\n");
  }
  return false;
}

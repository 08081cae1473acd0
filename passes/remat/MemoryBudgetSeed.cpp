//===- MemoryBudgetSeed.cpp - the Pareto schedules that fit, cheapest first ===//
//
// The budget solve's first incumbent. The model's Pareto set of (saved
// bytes, FLOPs), from one elimination with no capacity (as the frontier has
// it: within a capacity, elimination may keep another of two schedules that
// tie, which need not peak the same), cut where the tight bound exceeds the
// budget: its cheapest schedule is the tight optimum when the plan confirms
// it. When the plan rejects it (rebuilt values widen the backward's working
// set), the next cheapest are what the frontier would answer at this budget,
// so they are predicted in that order, a batch at a time on the context's
// threads, until one fits: the solve starts from the frontier's answer,
// never above it, when that is among the first `kInOrder`. Past them, a
// batch's smallest overshoot (peak above bound) skips the schedules whose
// bound leaves less room than that, so that a long set stays a few batches.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MemoryBudget.h"

#include "mlir/IR/Threading.h"

#include <chrono>
#include <limits>

using namespace mlir;
using namespace mlir::cotangent;

namespace {
/// Schedules predicted strictly in order of FLOPs before any is skipped, and
/// in all.
constexpr int kInOrder = 256, kMaxPredictions = 512;
} // namespace

FailureOr<MemoryBudgetProblem::ParetoSeed>
MemoryBudgetProblem::seedFromPareto(int64_t budgetBytes, const PredictedPeak &saveAll,
                                    double seconds) const {
  auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  ParetoSeed seed;
  int64_t capacity = budgetBytes - fixedBytes(saveAll, Bound::Tight);
  if (capacity < 0) {
    seed.status = ParetoSeed::Infeasible;
    return seed;
  }
  // The whole set, as the frontier has it, then cut at the capacity: within
  // a capacity elimination may keep another of two schedules that tie on
  // (bytes, FLOPs), which need not peak the same.
  std::optional<std::vector<ParetoSchedule>> pareto =
      paretoSchedules(std::numeric_limits<int64_t>::max(), seconds);
  seed.modelSeconds = elapsed();
  if (!pareto)
    return seed; // Unavailable: too wide or out of time
  // Cheapest first (the set has bytes rising, FLOPs falling), each
  // effective schedule once, with its bound.
  struct Candidate {
    llvm::BitVector rebuilt;
    int64_t bound;
  };
  std::vector<Candidate> order;
  llvm::DenseSet<llvm::BitVector> seen;
  for (const ParetoSchedule &p : llvm::reverse(*pareto)) {
    if (p.savedBytes > capacity)
      continue;
    llvm::BitVector rebuilt = effective(p.rebuilt);
    if (seen.insert(rebuilt).second)
      order.push_back({rebuilt, lowerBound(rebuilt, saveAll, Bound::Tight)});
  }
  if (order.empty()) {
    seed.status = ParetoSeed::Infeasible;
    return seed;
  }

  MLIRContext *ctx = fwd->getContext();
  const size_t batchSize = ctx->isMultithreadingEnabled() ? ctx->getNumThreads() : 1;
  seed.status = ParetoSeed::NoneFit;
  size_t next = 0;
  while (next < order.size() && static_cast<int>(seed.predicted.size()) < kMaxPredictions &&
         elapsed() <= seconds) {
    size_t count = std::min({batchSize, order.size() - next,
                             static_cast<size_t>(kMaxPredictions) - seed.predicted.size()});
    std::vector<PredictedPeak> peaks(count);
    if (failed(failableParallelForEachN(ctx, 0, count, [&](size_t i) -> LogicalResult {
          FailureOr<PredictedPeak> peak = predict(order[next + i].rebuilt);
          if (failed(peak))
            return failure();
          peaks[i] = *peak;
          return success();
        })))
      return failure();
    int64_t smallestOvershoot = std::numeric_limits<int64_t>::max();
    for (size_t i = 0; i < count; ++i) {
      seed.predicted.push_back({order[next + i].rebuilt, peaks[i]});
      if (peaks[i].peakBytes <= budgetBytes) {
        seed.status = ParetoSeed::Fits; // the batch is cheapest first
        return seed;
      }
      smallestOvershoot = std::min(smallestOvershoot, peaks[i].peakBytes - order[next + i].bound);
    }
    next += count;
    if (static_cast<int>(seed.predicted.size()) >= kInOrder)
      while (next < order.size() && order[next].bound + smallestOvershoot > budgetBytes)
        ++next;
  }
  return seed;
}

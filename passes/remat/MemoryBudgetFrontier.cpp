//===- MemoryBudgetFrontier.cpp - every budget's answer at once -----------===//
//
// A sweep that solves one budget after another repeats the same work: the
// elimination's last table already holds, for every amount of saved bytes,
// the fewest FLOPs with a schedule reaching it. So the frontier eliminates
// once with no capacity, predicts each schedule of that Pareto set (the
// predictions are independent: they run on the context's threads) and keeps
// those no other beats on (predicted peak, FLOPs).
//
// What a point's FLOPs are known to be follows from the same set: the
// cheaper schedule with the fewest saved bytes is the next Pareto point, so
// if even its bound exceeds the largest budget the point answers, no
// cheaper schedule fits any of them: under the proven bound (MemoryBudget.h)
// that is a proof, under the tight one it is what `solve` calls optimal.
// Else the point is the best found: a cheaper schedule's bound fits but its
// prediction did not (the working set moved), and `solve` would look
// further with the MILP (the sweep per budget of --jx-remat-frontier).
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MemoryBudget.h"

#include "mlir/IR/Threading.h"

using namespace mlir;
using namespace mlir::cotangent;

FailureOr<std::optional<BudgetFrontier>>
MemoryBudgetProblem::frontier(double seconds) const {
  const size_t n = candidates.size();
  BudgetFrontier result;
  llvm::BitVector none(n);
  // Serially first: it loads what the lowering needs into the context.
  FailureOr<PredictedPeak> saveAll = predict(none);
  if (failed(saveAll))
    return failure();
  result.noRematPeakBytes = saveAll->peakBytes;
  std::optional<std::vector<ParetoSchedule>> pareto =
      paretoSchedules(std::numeric_limits<int64_t>::max(), seconds);
  if (!pareto)
    return std::optional<BudgetFrontier>();

  // The schedules to predict: the Pareto set's, the one rebuilding nothing
  // and the one rebuilding everything (the least residuals), each once.
  struct Scheduled {
    llvm::BitVector rebuilt;
    int64_t flops = 0;
    PredictedPeak peak;
  };
  std::vector<Scheduled> schedules{{none, 0, *saveAll}};
  llvm::DenseSet<llvm::BitVector> seen{none};
  auto add = [&](const llvm::BitVector &rebuilt) {
    if (seen.insert(rebuilt).second)
      schedules.push_back({rebuilt, flops(rebuilt), {}});
  };
  for (const ParetoSchedule &p : *pareto)
    add(effective(p.rebuilt));
  add(effective(llvm::BitVector(n, true)));
  if (failed(failableParallelForEachN(fwd->getContext(), 1, schedules.size(),
                                     [&](size_t i) -> LogicalResult {
                                       FailureOr<PredictedPeak> peak =
                                           predict(schedules[i].rebuilt);
                                       if (failed(peak))
                                         return failure();
                                       schedules[i].peak = *peak;
                                       return success();
                                     })))
    return failure();
  result.schedulesPredicted = static_cast<int>(schedules.size());

  // The fewest saved bytes of a schedule cheaper than `flops`: the first
  // Pareto point below it (bytes rise as FLOPs fall).
  auto fewestBytesBelow = [&](int64_t flops) -> std::optional<int64_t> {
    auto it = llvm::find_if(*pareto, [&](const ParetoSchedule &p) { return p.flops < flops; });
    if (it == pareto->end())
      return std::nullopt;
    return it->savedBytes;
  };
  // Cheapest first; a schedule is kept when it peaks below every cheaper one.
  llvm::stable_sort(schedules, [](const Scheduled &a, const Scheduled &b) {
    return a.flops != b.flops ? a.flops < b.flops : a.peak.peakBytes < b.peak.peakBytes;
  });
  for (const Scheduled &s : schedules) {
    if (!result.points.empty() && s.peak.peakBytes >= result.points.back().peakBytes)
      continue;
    FrontierPoint point;
    point.rebuilt = s.rebuilt;
    point.peakBytes = s.peak.peakBytes;
    point.recomputedFlops = s.flops;
    point.budgetBytes =
        result.points.empty() ? result.noRematPeakBytes : result.points.back().peakBytes - 1;
    std::optional<int64_t> cheaper = fewestBytesBelow(s.flops);
    // Optimal for every budget it answers: up to budgetBytes, not only its peak.
    if (!cheaper || *cheaper + fixedBytes(*saveAll, Bound::Proven) > point.budgetBytes)
      point.optimality = FrontierOptimality::Proven;
    else if (*cheaper + fixedBytes(*saveAll, Bound::Tight) > point.budgetBytes)
      point.optimality = FrontierOptimality::Tight;
    result.points.push_back(std::move(point));
  }
  return std::optional<BudgetFrontier>(std::move(result));
}

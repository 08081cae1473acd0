//===- JxRematFrontier.cpp - the peak/recompute trade-off of each split ---===//
//
// The memory_budget frontier from the peak without remat down to the
// smallest (MemoryBudgetProblem::frontier: one elimination, its schedules
// predicted; where elimination cannot go, one solve per budget, each one
// byte below the last peak found), and JAX's named policies on the same
// axes: predicted peak bytes against recomputed FLOPs.
//
//===----------------------------------------------------------------------===//

#include "analysis/AnalysisPasses.h"
#include "analysis/MemoryPlan.h"

#include "conversion/llvm/LoweringPasses.h"
#include "dialects/jx/JxSplit.h"
#include "passes/autodiff/VjpComposition.h"
#include "passes/remat/MemoryBudget.h"
#include "passes/remat/Remat.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXREMATFRONTIERPASS
#include "analysis/AnalysisPasses.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

/// Budget by budget, hundreds are solved: each stops looking below its first
/// schedule that fits after this many rejected ones (marked search_stopped).
constexpr int kMaxRejections = 4;

/// The policies placed on the frontier: JAX's that take no arguments, and
/// the minimum cuts.
constexpr PolicyKind kPlacedPolicies[] = {
    PolicyKind::everything_saveable, PolicyKind::nothing_saveable, PolicyKind::dots_saveable,
    PolicyKind::dots_with_no_batch_dims_saveable, PolicyKind::min_residual_bytes,
    PolicyKind::min_residual_bytes_recomputing_dots};

/// Gives every remat region of `root` the policy `policy`.
void setAllPolicies(Operation *root, PolicyAttr policy) {
  root->walk([&](Operation *op) {
    RematScopeAttr scope = getRematScope(op);
    if (!scope)
      return;
    SmallVector<PolicyAttr> policies(scope.getPolicies().size(), policy);
    op->setAttr(kRematScopeAttrName, RematScopeAttr::get(op->getContext(), scope.getRegions(),
                                                          policies, scope.getPreventCse()));
  });
}

/// One frontier point as JSON. `optimal`: proven; `search_stopped`: the
/// best found (a cheaper schedule's bound fits the peak, no prediction did).
llvm::json::Object pointJson(int64_t budget, int64_t peak, int64_t flops,
                             FrontierOptimality optimality, bool timedOut) {
  StringRef name = optimality == FrontierOptimality::Proven  ? "proven"
                   : optimality == FrontierOptimality::Tight ? "tight_bound"
                                                             : "best_found";
  return llvm::json::Object{{"budget_bytes", budget},
                            {"peak_bytes", peak},
                            {"recomputed_flops", flops},
                            {"optimality", name},
                            {"optimal", optimality == FrontierOptimality::Proven},
                            {"timed_out", timedOut},
                            {"search_stopped", optimality == FrontierOptimality::BestFound}};
}

/// The sweep where elimination cannot go: one solve per budget, from the
/// peak without remat down, each one byte below the last peak found.
/// Returns the peak without remat.
FailureOr<int64_t> sweepBudgetByBudget(const MemoryBudgetProblem &problem,
                                       llvm::json::Array &frontier, double seconds) {
  FailureOr<PredictedPeak> noRemat = problem.predict(llvm::BitVector(problem.numCandidates()));
  if (failed(noRemat))
    return failure();
  int64_t budget = noRemat->peakBytes;
  MLIRContext *ctx = problem.getLoc()->getContext();
  while (true) {
    // The sweep ends where a budget cannot be met: that error is expected.
    ScopedDiagnosticHandler quiet(ctx, [](Diagnostic &) { return success(); });
    FailureOr<BudgetSchedule> schedule = problem.solve(budget, std::nullopt, seconds,
                                                       /*prove=*/false,
                                                       /*findSmallestPeak=*/false,
                                                       kMaxRejections);
    if (failed(schedule))
      break;
    FrontierOptimality optimality = schedule->optimal         ? FrontierOptimality::Proven
                                    : schedule->searchStopped ? FrontierOptimality::BestFound
                                                              : FrontierOptimality::Tight;
    frontier.push_back(pointJson(budget, schedule->peakBytes, schedule->recomputedFlops,
                                 optimality, schedule->timedOut));
    budget = schedule->peakBytes - 1;
  }
  return noRemat->peakBytes;
}

int64_t backwardFlops(func::FuncOp bwd) {
  int64_t flops = 0;
  for (Operation &op : bwd.getBody().front())
    flops += cotangent::estimateFlops(&op);
  return flops;
}

struct JxRematFrontierPass : cotangent::impl::JxRematFrontierPassBase<JxRematFrontierPass> {
  using Base::Base;

  void getDependentDialects(DialectRegistry &registry) const override {
    OpPassManager pm(ModuleOp::getOperationName());
    buildJxToBuffersPipeline(pm, BufferizationOptions{});
    pm.getDependentDialects(registry);
  }

  /// One split's frontier and placed policies, or failure (diagnosed).
  FailureOr<llvm::json::Object> sweep(ModuleOp module, StringRef name) {
    MLIRContext *ctx = module.getContext();
    // The frontier: every region a budget region, on a clone.
    OwningOpRef<ModuleOp> budgeted = module.clone();
    auto pair = lookupSplitPair(*budgeted, name);
    setAllPolicies(pair->fwd, PolicyAttr::getBudgeted(ctx, PolicyKind::memory_budget,
                                                      FloatAttr::get(Float64Type::get(ctx), 1.0)));
    FailureOr<MemoryBudgetProblem> problem =
        MemoryBudgetProblem::build(pair->fwd, pair->bwd, getBudgetRegions(pair->fwd));
    if (failed(problem))
      return failure();
    llvm::json::Array frontier;
    FailureOr<std::optional<BudgetFrontier>> swept = std::optional<BudgetFrontier>();
    if (!perBudget)
      swept = problem->frontier(seconds);
    if (failed(swept))
      return failure();
    int64_t noRematPeak = 0;
    if (*swept) {
      noRematPeak = (*swept)->noRematPeakBytes;
      for (const FrontierPoint &point : (*swept)->points)
        frontier.push_back(pointJson(point.budgetBytes, point.peakBytes, point.recomputedFlops,
                                     point.optimality, /*timedOut=*/false));
    } else {
      FailureOr<int64_t> peak = sweepBudgetByBudget(*problem, frontier, seconds);
      if (failed(peak))
        return failure();
      noRematPeak = *peak;
    }

    // The named policies on the same axes.
    llvm::json::Array placed;
    for (PolicyKind kind : kPlacedPolicies) {
      OwningOpRef<ModuleOp> clone = module.clone();
      auto named = lookupSplitPair(*clone, name);
      setAllPolicies(named->fwd, PolicyAttr::get(ctx, kind));
      int64_t before = backwardFlops(named->bwd);
      if (failed(applyRematPolicies(named->fwd, named->bwd)))
        return failure();
      emitVjpFunctions(named->fwd, named->bwd);
      FailureOr<std::vector<MemoryPlan>> plans = predictMemoryPlans(*clone, name);
      if (failed(plans))
        return failure();
      placed.push_back(llvm::json::Object{{"policy", stringifyPolicyKind(kind)},
                                          {"peak_bytes", plans->front().peakBytes},
                                          {"recomputed_flops", backwardFlops(named->bwd) - before}});
    }
    llvm::json::Object result{{"split", name},
                              {"no_remat_peak_bytes", noRematPeak},
                              {"by_elimination", swept->has_value()},
                              {"frontier", std::move(frontier)},
                              {"policies", std::move(placed)}};
    if (*swept) // the sweep per budget counts no predictions across solves
      result["schedules_predicted"] = (*swept)->schedulesPredicted;
    return result;
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    std::string error;
    auto file = openOutputFile(output, &error);
    if (!file) {
      module.emitError() << "--jx-remat-frontier: " << error;
      return signalPassFailure();
    }
    SmallVector<SplitPair> pairs = getSplitPairs(module);
    if (pairs.empty()) {
      module.emitError("--jx-remat-frontier: no forward/backward pair in the module; run "
                       "--jx-vjp first");
      return signalPassFailure();
    }
    llvm::json::Array splits;
    for (SplitPair pair : pairs) {
      bool hasRegions = false;
      pair.fwd.walk([&](Operation *op) { hasRegions |= !getRematRegions(op).empty(); });
      if (!hasRegions)
        continue;
      FailureOr<llvm::json::Object> sweep = this->sweep(module, getSplitName(pair));
      if (failed(sweep))
        return signalPassFailure();
      splits.push_back(std::move(*sweep));
    }
    file->os() << llvm::formatv("{0:2}", llvm::json::Value(std::move(splits))) << "\n";
    file->keep();
    markAllAnalysesPreserved();
  }
};

} // namespace

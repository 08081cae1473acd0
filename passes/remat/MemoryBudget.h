//===- MemoryBudget.h - the fewest recomputed FLOPs under a peak -*- C++ -*-===//
//
// The memory_budget policy: of all the ways a remat region's values can be
// saved or rebuilt by the backward, the one that recomputes the fewest FLOPs
// while the step's predicted peak stays within the budget.
//
// The peak is what the runtime will reach, so it is predicted on the lowered
// program by a PeakOracle (the memory plan, analysis/, registers one on the
// jx dialect). The search is exact: a model over which ops the backward
// rebuilds, constrained by a lower bound of the peak that is linear in the
// saved bytes (all residuals are live while the backward runs, next to its
// own buffers, which no schedule changes), solved by Pareto elimination
// (ParetoElimination.h) or, where that cannot go, as a MILP (COIN-OR CBC)
// that yields schedules in order of recomputed FLOPs; each is checked
// against the oracle and excluded by a no-good cut when it peaks above the
// budget. The first that fits is optimal. docs/remat-optimal.md
// has the formulation.
//
//===----------------------------------------------------------------------===//

#ifndef COTANGENT_PASSES_REMAT_MEMORYBUDGET_H
#define COTANGENT_PASSES_REMAT_MEMORYBUDGET_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectInterface.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

#include <optional>
#include <vector>

namespace mlir::cotangent {

class Milp;

/// What a split holds when run, as predicted before it runs.
struct PredictedPeak {
  int64_t peakBytes = 0;
  /// The largest live bytes while the backward runs (residuals included).
  int64_t backwardPeakBytes = 0;
  /// Live when the backward returns: the residuals and the gradients.
  int64_t endBytes = 0;
};

/// Predicts the peak of a split on a runtime. The memory plan implements it
/// (analysis/PeakOracle.h); the budget policy asks it through the jx dialect,
/// so that the remat pass does not depend on the lowering.
class PeakOracle : public DialectInterface::Base<PeakOracle> {
public:
  explicit PeakOracle(Dialect *dialect) : Base(dialect) {}
  /// The peak of the split `name` of `module` (jx IR after --jx-remat).
  virtual FailureOr<PredictedPeak> predict(ModuleOp module, StringRef name) const = 0;
  /// The peak of one call of the public function `step` of `module`: a
  /// split's halves inlined into one value-and-grad step, as jit runs it,
  /// each residual freed after its last use in the backward.
  virtual FailureOr<int64_t> predictStep(ModuleOp module, StringRef step) const = 0;
};

/// Per remat region, the values its solver (minimum cut or budget) saves.
using RegionChoices = llvm::DenseMap<int64_t, llvm::DenseSet<Value>>;

/// The schedule a budget solve settles on.
struct BudgetSchedule {
  RegionChoices choices;
  llvm::BitVector rebuilt;      ///< per candidate op: the backward rebuilds it
  int64_t budgetBytes = 0;
  int64_t peakBytes = 0;        ///< predicted for the schedule
  int64_t noRematPeakBytes = 0; ///< predicted with every value of the regions saved
  int64_t recomputedFlops = 0;
  /// Proven optimal (the proven bound ran out of cheaper schedules); else
  /// the cheapest schedule under the tight bound, or the best found in time.
  bool optimal = false;
  bool timedOut = false;
  /// The search below an incumbent stopped after a few rejected schedules
  /// (the tight bound missed them): the best found, not called optimal.
  bool searchStopped = false;
  int schedulesChecked = 0;     ///< oracle predictions made
  double modelSeconds = 0, seconds = 0; ///< modelSeconds: in the exact solvers alone
};

/// How a frontier point's FLOPs are known to be the fewest at every budget
/// it answers (up to its budgetBytes).
enum class FrontierOptimality {
  Proven,    ///< every cheaper schedule's proven bound exceeds those budgets
  Tight,     ///< every cheaper schedule's tight bound exceeds them (as solve)
  BestFound, ///< a cheaper schedule's bound fits, but no prediction did
};

/// One schedule of a split's budget frontier.
struct FrontierPoint {
  llvm::BitVector rebuilt;
  /// The largest budget it answers: one byte below the previous point's
  /// peak (the first point: the peak without remat).
  int64_t budgetBytes = 0;
  int64_t peakBytes = 0, recomputedFlops = 0;
  FrontierOptimality optimality = FrontierOptimality::BestFound;
};

/// The fewest recomputed FLOPs at every peak a split can reach.
struct BudgetFrontier {
  int64_t noRematPeakBytes = 0;
  std::vector<FrontierPoint> points; ///< peaks falling, FLOPs rising
  int schedulesPredicted = 0;
};

/// Which peak a budget bounds: the split's, run as two calls (cotangent-run
/// --split: every residual held until the backward returns), or the fused
/// value-and-grad step's (jit's: each residual freed after its last use).
enum class PeakTarget { Split, Step };

/// One split's budget problem: the ops of its memory_budget regions that the
/// backward may rebuild (the candidates) and how they feed what it reads.
class MemoryBudgetProblem {
public:
  /// The problem of the budget regions `regions` of `fwd`/`bwd`, straight
  /// after --jx-vjp. Fails with a located diagnostic when a budget region is
  /// nested with another remat region, or no oracle is registered.
  static FailureOr<MemoryBudgetProblem> build(func::FuncOp fwd, func::FuncOp bwd,
                                              llvm::ArrayRef<int64_t> regions);

  size_t numCandidates() const { return candidates.size(); }
  /// Where the budget regions start (their first op), for diagnostics.
  Location getLoc() const { return loc; }
  Operation *candidate(size_t i) const { return candidates[i]; }
  /// The ops the remat pass rebuilds when the regions save every value of
  /// the candidates not in `rebuilt` (the closure from what the backward reads).
  llvm::BitVector effective(const llvm::BitVector &rebuilt) const;
  /// The FLOPs of the candidates in `rebuilt`.
  int64_t flops(const llvm::BitVector &rebuilt) const;
  /// The choices that make the remat pass rebuild `rebuilt`, for `fwd`'s
  /// values (`fwd` is this problem's forward or a clone of it).
  RegionChoices choicesFor(const llvm::BitVector &rebuilt, func::FuncOp fwd) const;
  /// The peak the budget bounds (Split by default). Step: the split's
  /// value-and-grad step (@<name>_value_and_grad, one call); its bounds are
  /// the split's tight one taken at the step's peak, and no proven one (a
  /// residual the lowering fuses into the backward is never live at once
  /// with the others), so no answer is called proven.
  void setTarget(PeakTarget peak) { target = peak; }
  /// The oracle's prediction for the schedule rebuilding `rebuilt`, on a
  /// clone: the split's, or under PeakTarget::Step the step's peak (as
  /// peakBytes and backwardPeakBytes; endBytes 0).
  FailureOr<PredictedPeak> predict(const llvm::BitVector &rebuilt) const;
  /// The MILP's bounds of the peak of a schedule. Proven: the residuals and
  /// the gradients, all live when the backward returns; it never exceeds the
  /// peak. Tight: the residuals and the backward's own largest working set,
  /// taken as fixed; usually exact, but rebuilt ops fused into the backward
  /// can shrink that set, so optimality is proven under the other one.
  enum class Bound { Proven, Tight };
  /// The bound of the schedule that rebuilds `effective`, given the
  /// prediction for the schedule that saves everything.
  int64_t lowerBound(const llvm::BitVector &effective, const PredictedPeak &saveAll,
                     Bound bound = Bound::Proven) const;

  /// Schedules that save the values across narrow cuts of the forward (one
  /// buffer live across: a model's residual stream) and rebuild the segments
  /// between them, with and without their dot products saved, cheapest
  /// first (MemoryBudgetSegments.cpp): incumbents where the exact search
  /// finds none.
  std::vector<llvm::BitVector> segmentSchedules() const;

  /// The schedule with the fewest recomputed FLOPs whose peak is at most
  /// `budgetBytes` and that fraction of the peak without remat (either may
  /// be absent, not both), found
  /// under the tight bound; with `prove`, shown optimal under the proven
  /// one. Gives up after `seconds` (the best schedule found is kept, not
  /// called optimal). An infeasible budget is a diagnostic that names the
  /// smallest peak (searched for only if `findSmallestPeak`). When the
  /// plan rejects the tight optimum, the next Pareto schedules are tried
  /// (seedFromPareto, in half the time), and the search below the
  /// first schedule that fits stops after `maxRejections` more rejections
  /// (searchStopped); unless `prove`, so does a search without one, and the
  /// search for the smallest peak after as many schedules listed.
  FailureOr<BudgetSchedule> solve(std::optional<int64_t> budgetBytes,
                                  std::optional<double> fraction, double seconds,
                                  bool prove = false, bool findSmallestPeak = true,
                                  int maxRejections = 64) const;

  /// The whole frontier from one elimination: every schedule of the
  /// model's (saved bytes, FLOPs) Pareto set predicted (in parallel on the
  /// context's threads), the ones no other beats on (peak, FLOPs) kept.
  /// std::nullopt when the elimination is unavailable (a table too wide, or
  /// `seconds` ran out): then solve budget by budget.
  FailureOr<std::optional<BudgetFrontier>> frontier(double seconds) const;

private:
  MemoryBudgetProblem() = default;
  /// A clone of the module, pruned to the split, rebuilding `rebuilt`.
  struct Scheduled {
    OwningOpRef<ModuleOp> module;
    func::FuncOp fwd, bwd;
  };
  FailureOr<Scheduled> scheduled(const llvm::BitVector &rebuilt) const;
  PeakTarget target = PeakTarget::Split;
  /// The columns addModel made: per candidate and per value, -1 where left out.
  struct ModelColumns {
    std::vector<int> rebuilt, saved;
  };
  /// Adds to `milp` the schedule's variables and rows (the file comment of
  /// MemoryBudget.cpp) for the candidates `inScope` accepts: minimizing
  /// FLOPs (or, `byBytes`, saved bytes) with the saved bytes at most
  /// `capacity` when given. Costs are in flopUnit and byteUnit.
  ModelColumns addModel(Milp &milp, llvm::function_ref<bool(int)> inScope, bool byBytes,
                        std::optional<int64_t> capacity) const;
  /// The schedule a solved model rebuilds, closed over what the backward reads.
  llvm::BitVector readSchedule(const Milp &milp, const ModelColumns &columns) const;
  /// The Pareto schedules whose tight bound fits `budgetBytes`, predicted
  /// cheapest first until one fits, a bounded number are made, or `seconds`
  /// pass (MemoryBudgetSeed.cpp): solve's first incumbent, the frontier's answer
  /// at this budget. Unavailable when elimination cannot solve the model;
  /// Infeasible when no schedule's tight bound fits.
  struct ParetoSeed {
    enum Status { Fits, NoneFit, Infeasible, Unavailable } status = Unavailable;
    /// In order; when it Fits, the last one fits and the others do not.
    std::vector<std::pair<llvm::BitVector, PredictedPeak>> predicted;
    double modelSeconds = 0; ///< in the elimination
  };
  FailureOr<ParetoSeed> seedFromPareto(int64_t budgetBytes, const PredictedPeak &saveAll,
                                       double seconds) const;
  /// The model's Pareto set of (saved bytes, FLOPs) within `capacity` bytes,
  /// bytes rising and FLOPs falling; std::nullopt when elimination cannot
  /// solve it.
  struct ParetoSchedule {
    int64_t savedBytes, flops;
    llvm::BitVector rebuilt; ///< as the model sets it (effective() closes it)
  };
  std::optional<std::vector<ParetoSchedule>> paretoSchedules(int64_t capacity,
                                                             double seconds) const;
  /// The bytes no decision changes (C in MemoryBudget.cpp).
  int64_t fixedBytes(const PredictedPeak &saveAll, Bound bound) const;
  /// The values the schedule rebuilding `effective` saves.
  llvm::BitVector savedValues(const llvm::BitVector &effective) const;
  struct Edge {
    int consumer; ///< candidate op index
    int producer; ///< candidate op index, or -1 for a value from outside
    int value;    ///< index into `values`
  };

  // Op handles are values; their accessors are not const.
  mutable func::FuncOp fwd, bwd;
  llvm::SmallVector<int64_t> regions;
  const PeakOracle *oracle = nullptr;
  Location loc = UnknownLoc();
  std::vector<Operation *> candidates;
  std::vector<int64_t> candidateFlops;
  /// Per candidate, the position of its budget region in `regions`.
  std::vector<int> candidateRegion;
  /// The greatest common divisors of the FLOPs and of the bytes.
  int64_t flopUnit = 1, byteUnit = 1;
  llvm::DenseMap<Operation *, int> candidateIndex;
  /// Values whose saving the schedule decides, with their bytes in the
  /// lower bound (0 for ops that may lower to views) and in full.
  std::vector<Value> values;
  std::vector<int64_t> valueBytes, fullBytes;
  /// (view, root): saving the view keeps its root's bytes (see viewRoot).
  std::vector<std::pair<int, int>> viewRoots;
  /// Values the backward reads straight from the regions' decisions.
  std::vector<int> requested;
  std::vector<Edge> edges;
};

/// The ids of the memory_budget regions of `fwd`, in order of first appearance.
llvm::SmallVector<int64_t> getBudgetRegions(func::FuncOp fwd);

/// What the budget charges for moving one byte between ranks: a collective
/// rebuilt in the backward (FSDP's re-gathered weights) costs the FLOPs the
/// devices could have done while its bytes move. The stated rate is a
/// device's FLOP rate over its link's bandwidth, between a CPU's (0.5
/// TFLOP/s over 10 GB/s of shared memory: 50) and an H100's (989 TFLOP/s
/// of bf16 over 450 GB/s of NVLink: about 2200); docs/distributed.md.
inline constexpr int64_t kFlopsPerCommunicatedByte = 256;

/// What the budget charges for `op`: its FLOPs, and for what it
/// communicates (a collective's ring bytes, jx::CostOpInterface)
/// kFlopsPerCommunicatedByte a byte.
int64_t estimateFlops(Operation *op);

} // namespace mlir::cotangent

MLIR_DECLARE_EXPLICIT_TYPE_ID(mlir::cotangent::PeakOracle)

#endif // COTANGENT_PASSES_REMAT_MEMORYBUDGET_H

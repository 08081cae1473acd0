//===- MemoryBudget.cpp - the fewest recomputed FLOPs under a peak ---------===//
//
// The MILP (per iteration, CBC's C interface):
//
//   minimize    sum_o flops(o) r_o                   r_o in {0,1}: o is rebuilt
//   subject to  s_v >= 1 - r_p(v)     v read by the backward, produced by p(v)
//               s_v >= r_o - r_p(v)   v an operand of o (p(v) = none: r_p = 0)
//               sum_v bytes(v) s_v <= budget - C                  s_v in [0,1]
//               no-good cuts of the schedules the oracle rejected
//
// s_v is then whether v is saved, and C makes the sum a lower bound of the
// peak. Proven: the residuals and the gradients are all live when the
// backward returns, so C = that moment's bytes on the schedule that saves
// everything, less the full bytes of what it saves; every schedule that fits
// the budget is then feasible here. Tight: C = the backward's peak instead,
// which takes the backward's own buffers as fixed; usually exact, but a
// rebuilt op fused into the backward can shrink them. The tight MILP finds
// the optimum, the proven one shows, with the FLOPs below the best schedule
// found as a cutoff, that nothing cheaper fits. Values that may lower to
// views of others count 0 bytes in the sum and in full in C, which keeps
// the bound below the peak.
//
//===----------------------------------------------------------------------===//

#include "passes/remat/MemoryBudget.h"

#include "dialects/jx/JxSplit.h"
#include "passes/SplitRewrite.h"
#include "passes/autodiff/VjpComposition.h"
#include "passes/remat/Milp.h"
#include "passes/remat/Remat.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/StringExtras.h"

#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

MLIR_DEFINE_EXPLICIT_TYPE_ID(mlir::cotangent::PeakOracle)

namespace {

/// The value a chain of views of `v` starts from: saving `v` keeps its buffer.
Value viewRoot(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (!jx::isView(def))
      break;
    v = jx::viewSourceOf(cast<OpResult>(v));
  }
  return v;
}

/// Whether the lowering's canonicalization may replace `op` by a value it
/// already has or a constant (neg(neg(x)) is x): then it owns no buffer.
bool mayFold(Operation *op) {
  Operation *copy = op->clone();
  SmallVector<OpFoldResult> folded;
  // An in-place fold (a commutative op's constant moved right) leaves no
  // results: the op stays.
  bool folds = succeeded(copy->fold(folded)) && !folded.empty();
  copy->destroy();
  return folds;
}

double since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int64_t mlir::cotangent::estimateFlops(Operation *op) {
  return jx::estimateFlops(op) + jx::estimateCommunicatedBytes(op) * kFlopsPerCommunicatedByte;
}

llvm::SmallVector<int64_t> mlir::cotangent::getBudgetRegions(func::FuncOp fwd) {
  llvm::SmallVector<int64_t> ids;
  fwd.walk([&](Operation *op) {
    if (RematScopeAttr scope = getRematScope(op))
      for (auto [id, policy] : llvm::zip(scope.getRegions(), scope.getPolicies()))
        if (getPolicySignature(policy.getKind()) == PolicySignature::Budget &&
            !llvm::is_contained(ids, id))
          ids.push_back(id);
  });
  return ids;
}

FailureOr<MemoryBudgetProblem> MemoryBudgetProblem::build(func::FuncOp fwd, func::FuncOp bwd,
                                                          ArrayRef<int64_t> regions) {
  MemoryBudgetProblem problem;
  problem.fwd = fwd;
  problem.bwd = bwd;
  problem.regions.assign(regions.begin(), regions.end());
  auto *jx = fwd->getContext()->getLoadedDialect<JxDialect>();
  problem.oracle = jx ? jx->getRegisteredInterface<PeakOracle>() : nullptr;

  auto inBudget = [&](Operation *op) {
    return llvm::any_of(getRematRegions(op),
                        [&](int64_t id) { return llvm::is_contained(regions, id); });
  };
  Block &body = fwd.getBody().front();
  bool located = false;
  for (Operation &op : body.without_terminator()) {
    if (!inBudget(&op))
      continue;
    if (!located) {
      problem.loc = op.getLoc();
      located = true;
    }
    if (getRematRegions(&op).size() != 1)
      return op.emitError("memory_budget: a budget region cannot be nested with another "
                          "jx.remat region (the budget bounds the whole step)");
    if (llvm::all_of(op.getResults(), [](Value r) { return isArgumentFree(r); }))
      continue; // rebuilt whatever the policy says
    problem.candidateIndex[&op] = problem.candidates.size();
    problem.candidates.push_back(&op);
    problem.candidateFlops.push_back(cotangent::estimateFlops(&op));
    problem.candidateRegion.push_back(
        llvm::find(regions, getRematRegions(&op).front()) - regions.begin());
  }
  auto module = fwd->getParentOfType<ModuleOp>();
  if (!module || !lookupSplitPair(module, getSplitName({fwd, bwd})))
    return emitError(problem.loc, "memory_budget: a budget region inside a scan or cond body is "
                                  "not supported yet (the budget bounds the whole step)");
  if (!problem.oracle)
    return emitError(problem.loc,
                     "memory_budget: no peak oracle is registered on the jx dialect; the budget "
                     "is checked against the memory plan (call "
                     "mlir::cotangent::registerPeakOracle from analysis/PeakOracle.h)");

  llvm::DenseMap<Value, int> valueIndex;
  auto add = [&](Value v) {
    auto [it, fresh] = valueIndex.try_emplace(v, problem.values.size());
    if (fresh) {
      problem.values.push_back(v);
      Operation *def = v.getDefiningOp();
      int64_t bytes = getTensorBytes(v.getType());
      problem.valueBytes.push_back(def && (jx::mayBeView(def) || mayFold(def)) ? 0 : bytes);
      problem.fullBytes.push_back(bytes);
    }
    return std::make_pair(it->second, fresh);
  };
  auto indexOf = [&](Value v) {
    auto [index, fresh] = add(v);
    // Saving a view keeps its source's buffer.
    Value root = viewRoot(v);
    if (fresh && root != v && !isa<BlockArgument>(root) && !isArgumentFree(root))
      problem.viewRoots.push_back({index, add(root).first});
    return index;
  };

  // What the backward reads and the regions decide: every op that asked
  // for it is inside the value's region (otherwise it is saved regardless).
  auto ret = cast<func::ReturnOp>(body.getTerminator());
  int64_t numPrimal = numPrimalResults(fwd);
  for (int64_t i = 0, e = numResiduals(bwd); i < e; ++i) {
    Value v = ret.getOperand(numPrimal + i);
    Operation *def = v.getDefiningOp();
    ArrayAttr stacks = getRequestedBy(bwd, i);
    if (!def || !problem.candidateIndex.count(def) || !stacks || stacks.empty())
      continue;
    int64_t id = getRematRegions(def).front();
    if (llvm::all_of(stacks, [&](Attribute stack) {
          return llvm::is_contained(cast<DenseI64ArrayAttr>(stack).asArrayRef(), id);
        }))
      problem.requested.push_back(indexOf(v));
  }
  // The other residuals are live whatever the regions decide (their bytes
  // are in C): saving one again for a rebuild costs nothing more.
  llvm::DenseSet<Value> alwaysSaved(ret.getOperands().begin() + numPrimal, ret.getOperands().end());
  for (int v : problem.requested)
    alwaysSaved.erase(problem.values[v]);
  for (auto [o, op] : llvm::enumerate(problem.candidates)) {
    for (Value u : op->getOperands()) {
      if (isa<BlockArgument>(u) || isArgumentFree(u))
        continue; // arguments are the caller's; argument-free values are rebuilt
      // A value of another region is saved for this one whatever that one
      // decides (--jx-remat rebuilds within a region).
      auto producer = problem.candidateIndex.find(u.getDefiningOp());
      int p = producer == problem.candidateIndex.end() ? -1 : producer->second;
      if (p >= 0 && problem.candidateRegion[p] != problem.candidateRegion[o])
        p = -1;
      problem.edges.push_back({static_cast<int>(o), p, indexOf(u)});
    }
  }
  for (auto [v, value] : llvm::enumerate(problem.values))
    if (alwaysSaved.contains(value))
      problem.valueBytes[v] = 0;
  // FLOPs and bytes in units of their greatest common divisor: with small
  // integral costs CBC rounds its bound up, which closes the gap on models
  // of many equal layers (otherwise it branches over their permutations).
  int64_t flopUnit = 0, byteUnit = 0;
  for (int64_t f : problem.candidateFlops)
    flopUnit = std::gcd(flopUnit, f);
  for (int64_t b : problem.valueBytes)
    byteUnit = std::gcd(byteUnit, b);
  problem.flopUnit = std::max<int64_t>(flopUnit, 1);
  problem.byteUnit = std::max<int64_t>(byteUnit, 1);
  return problem;
}

llvm::BitVector MemoryBudgetProblem::effective(const llvm::BitVector &rebuilt) const {
  llvm::BitVector done(candidates.size());
  SmallVector<int> work;
  auto reach = [&](int p) {
    if (p >= 0 && rebuilt.test(p) && !done.test(p)) {
      done.set(p);
      work.push_back(p);
    }
  };
  for (int v : requested)
    reach(candidateIndex.lookup(values[v].getDefiningOp()));
  while (!work.empty()) {
    int o = work.pop_back_val();
    for (const Edge &e : edges)
      if (e.consumer == o)
        reach(e.producer);
  }
  return done;
}

int64_t MemoryBudgetProblem::flops(const llvm::BitVector &rebuilt) const {
  int64_t sum = 0;
  for (int o : rebuilt.set_bits())
    sum += candidateFlops[o];
  return sum;
}

RegionChoices MemoryBudgetProblem::choicesFor(const llvm::BitVector &rebuilt,
                                              func::FuncOp target) const {
  // Candidates are found in a clone by their position in the forward.
  llvm::DenseMap<Operation *, int> position;
  for (auto [i, op] : llvm::enumerate(fwd.getBody().front()))
    position[&op] = i;
  SmallVector<Operation *> ops = llvm::map_to_vector(target.getBody().front(),
                                                     [](Operation &op) { return &op; });
  llvm::DenseSet<Value> saved;
  for (auto [o, op] : llvm::enumerate(candidates))
    if (!rebuilt.test(o))
      for (Value r : ops[position.lookup(op)]->getResults())
        saved.insert(r);
  RegionChoices choices;
  for (int64_t id : regions)
    choices[id] = saved;
  return choices;
}

/// Leaves in `module` only the split's halves and the functions they call:
/// the oracle lowers the whole module. The forward then names no primal
/// (pruned away).
static void pruneToSplit(ModuleOp module, func::FuncOp fwd, func::FuncOp bwd) {
  ForwardAttr forward = getForwardAttr(fwd);
  fwd->setAttr(kForwardAttrName,
               ForwardAttr::get(fwd->getContext(), FlatSymbolRefAttr(), forward.getBackward(),
                                forward.getPrimalResults()));
  llvm::SmallPtrSet<Operation *, 8> keep{fwd, bwd};
  SmallVector<Operation *> work{fwd, bwd};
  while (!work.empty()) {
    Operation *fn = work.pop_back_val();
    if (auto uses = SymbolTable::getSymbolUses(fn))
      for (const SymbolTable::SymbolUse &use : *uses)
        if (Operation *callee = SymbolTable::lookupNearestSymbolFrom(fn, use.getSymbolRef()))
          if (keep.insert(callee).second)
            work.push_back(callee);
  }
  for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations()))
    if (isa<func::FuncOp>(op) && !keep.contains(&op))
      op.erase();
}

FailureOr<MemoryBudgetProblem::Scheduled>
MemoryBudgetProblem::scheduled(const llvm::BitVector &rebuilt) const {
  auto module = fwd->getParentOfType<ModuleOp>();
  Scheduled out{module.clone(), {}, {}};
  out.fwd = out.module->lookupSymbol<func::FuncOp>(fwd.getSymName());
  out.bwd = out.module->lookupSymbol<func::FuncOp>(bwd.getSymName());
  pruneToSplit(*out.module, out.fwd, out.bwd);
  RegionChoices choices = choicesFor(rebuilt, out.fwd);
  if (failed(applyRematPolicies(out.fwd, out.bwd, &choices)))
    return failure();
  return out;
}

FailureOr<PredictedPeak> MemoryBudgetProblem::predict(const llvm::BitVector &rebuilt) const {
  FailureOr<Scheduled> split = scheduled(rebuilt);
  if (failed(split))
    return failure();
  if (target == PeakTarget::Split)
    return oracle->predict(*split->module, getSplitName({split->fwd, split->bwd}));
  // The step over the new residual lists, named after the forward (the
  // pruned split names no primal).
  emitVjpFunctions(split->fwd, split->bwd);
  std::string step = (split->fwd.getSymName() + "_value_and_grad").str();
  if (!split->module->lookupSymbol<func::FuncOp>(step))
    return emitError(loc) << "memory_budget: the step's peak needs a value-and-grad step (its "
                             "function returns one scalar)";
  FailureOr<int64_t> peak = oracle->predictStep(*split->module, step);
  if (failed(peak))
    return failure();
  return PredictedPeak{*peak, *peak, 0};
}

int64_t MemoryBudgetProblem::fixedBytes(const PredictedPeak &saveAll, Bound bound) const {
  if (target == PeakTarget::Step && bound == Bound::Proven) // no bound: never above 0
    return -std::accumulate(valueBytes.begin(), valueBytes.end(), int64_t(0));
  int64_t fixed = bound == Bound::Proven ? saveAll.endBytes : saveAll.backwardPeakBytes;
  for (int v : requested)
    fixed -= fullBytes[v];
  return fixed;
}

llvm::BitVector MemoryBudgetProblem::savedValues(const llvm::BitVector &effective) const {
  llvm::BitVector saved(values.size());
  for (int v : requested)
    if (!effective.test(candidateIndex.lookup(values[v].getDefiningOp())))
      saved.set(v);
  for (const Edge &e : edges)
    if (effective.test(e.consumer) && (e.producer < 0 || !effective.test(e.producer)))
      saved.set(e.value);
  for (auto [view, root] : viewRoots)
    if (saved.test(view))
      saved.set(root);
  return saved;
}

int64_t MemoryBudgetProblem::lowerBound(const llvm::BitVector &effective,
                                        const PredictedPeak &saveAll, Bound bound) const {
  int64_t sum = fixedBytes(saveAll, bound);
  llvm::BitVector saved = savedValues(effective);
  for (int v : saved.set_bits())
    sum += valueBytes[v];
  return sum;
}

MemoryBudgetProblem::ModelColumns
MemoryBudgetProblem::addModel(Milp &milp, llvm::function_ref<bool(int)> inScope, bool byBytes,
                              std::optional<int64_t> capacity) const {
  ModelColumns columns{std::vector<int>(candidates.size(), -1),
                       std::vector<int>(values.size(), -1)};
  std::vector<int> &r = columns.rebuilt, &s = columns.saved;
  for (size_t o = 0; o < candidates.size(); ++o)
    if (inScope(o))
      r[o] = milp.addColumn(0, 1, byBytes ? 0 : candidateFlops[o] / flopUnit, true);
  auto saved = [&](int v) {
    if (s[v] < 0)
      // Integral although every answer sets it to 0 or 1: with continuous
      // columns, CLP's dual simplex has aborted on an assertion
      // (dualColumn0, seed 9479 of the brute-force test).
      s[v] = milp.addColumn(0, 1, byBytes ? valueBytes[v] / byteUnit : 0, /*integer=*/true);
    return s[v];
  };
  for (int v : requested) {
    int p = candidateIndex.lookup(values[v].getDefiningOp());
    if (r[p] >= 0)
      milp.addRow({saved(v), r[p]}, {1, 1}, 'G', 1);
  }
  for (const Edge &e : edges) {
    if (r[e.consumer] < 0)
      continue;
    if (e.producer >= 0)
      milp.addRow({saved(e.value), r[e.consumer], r[e.producer]}, {1, -1, 1}, 'G', 0);
    else
      milp.addRow({saved(e.value), r[e.consumer]}, {1, -1}, 'G', 0);
  }
  for (auto [view, root] : viewRoots)
    if (s[view] >= 0)
      milp.addRow({saved(root), s[view]}, {1, -1}, 'G', 0);
  if (capacity) {
    SmallVector<int> cols;
    SmallVector<double> coefs;
    for (size_t v = 0; v < values.size(); ++v)
      if (s[v] >= 0 && valueBytes[v] > 0) {
        cols.push_back(s[v]);
        coefs.push_back(static_cast<double>(valueBytes[v] / byteUnit));
      }
    milp.addRow(cols, coefs, 'L',
                std::floor(static_cast<double>(*capacity) / static_cast<double>(byteUnit)));
  }
  return columns;
}

llvm::BitVector MemoryBudgetProblem::readSchedule(const Milp &milp,
                                                  const ModelColumns &columns) const {
  llvm::BitVector rebuilt(candidates.size());
  for (auto [o, col] : llvm::enumerate(columns.rebuilt))
    if (col >= 0 && milp.value(col) > 0.5)
      rebuilt.set(o);
  return effective(rebuilt);
}

FailureOr<BudgetSchedule> MemoryBudgetProblem::solve(std::optional<int64_t> budgetBytes,
                                                     std::optional<double> fraction,
                                                     double seconds, bool prove,
                                                     bool findSmallestPeak,
                                                     int maxRejections) const {
  auto start = std::chrono::steady_clock::now();
  const size_t n = candidates.size();
  BudgetSchedule result;
  llvm::BitVector none(n);
  FailureOr<PredictedPeak> saveAll = predict(none);
  if (failed(saveAll))
    return failure();
  result.noRematPeakBytes = saveAll->peakBytes;
  result.budgetBytes = std::numeric_limits<int64_t>::max();
  if (budgetBytes)
    result.budgetBytes = *budgetBytes;
  if (fraction)
    result.budgetBytes = std::min(
        result.budgetBytes, static_cast<int64_t>(std::floor(*fraction * saveAll->peakBytes)));
  result.schedulesChecked = 1;
  std::optional<llvm::BitVector> best;
  int64_t bestPeak = 0, smallestPeak = saveAll->peakBytes;
  auto finish = [&](bool optimal) -> BudgetSchedule {
    result.rebuilt = *best;
    result.choices = choicesFor(*best, fwd);
    result.peakBytes = bestPeak;
    result.recomputedFlops = flops(*best);
    result.optimal = optimal;
    result.seconds = since(start);
    result.timedOut |= result.seconds > seconds;
    return result;
  };
  if (saveAll->peakBytes <= result.budgetBytes) {
    best = none;
    bestPeak = saveAll->peakBytes;
    return finish(true);
  }

  // The schedules the oracle rejected: (rebuilt, the producers of what it
  // saves), excluded from every later MILP by a no-good cut.
  std::vector<std::pair<llvm::BitVector, llvm::BitVector>> rejected;
  auto savedProducers = [&](const llvm::BitVector &rebuilt) {
    llvm::BitVector producers(n);
    auto mark = [&](int p) {
      if (p >= 0 && !rebuilt.test(p))
        producers.set(p);
    };
    for (int v : requested)
      mark(candidateIndex.lookup(values[v].getDefiningOp()));
    for (const Edge &e : edges)
      if (rebuilt.test(e.consumer))
        mark(e.producer);
    return producers;
  };
  rejected.push_back({none, savedProducers(none)});

  // The MILP of the file comment, under `bound`'s C, with recomputed FLOPs
  // below `cutoff`; or, `byBytes`, the schedule of least saved bytes (to find
  // the smallest peak when the budget cannot be met).
  struct Answer {
    Milp::Outcome outcome;
    llvm::BitVector schedule; ///< effective
  };
  auto solveMilp = [&](Bound bound, std::optional<int64_t> cutoff, bool byBytes) -> Answer {
    auto milpStart = std::chrono::steady_clock::now();
    Milp milp;
    std::optional<int64_t> capacity;
    if (!byBytes)
      capacity = result.budgetBytes - fixedBytes(*saveAll, bound);
    ModelColumns columns = addModel(
        milp, [](int) { return true; }, byBytes, capacity);
    const std::vector<int> &r = columns.rebuilt;
    if (cutoff) {
      SmallVector<int> cols;
      SmallVector<double> coefs;
      for (size_t o = 0; o < n; ++o)
        if (candidateFlops[o] > 0) {
          cols.push_back(r[o]);
          coefs.push_back(static_cast<double>(candidateFlops[o] / flopUnit));
        }
      milp.addRow(cols, coefs, 'L',
                  std::floor(static_cast<double>(*cutoff) / static_cast<double>(flopUnit)));
    }
    for (const auto &[cut, producers] : rejected) {
      SmallVector<int> cols;
      SmallVector<double> coefs;
      double rhs = 1;
      for (int o : cut.set_bits()) {
        cols.push_back(r[o]);
        coefs.push_back(-1);
        rhs -= 1;
      }
      for (int o : producers.set_bits()) {
        cols.push_back(r[o]);
        coefs.push_back(1);
      }
      milp.addRow(cols, coefs, 'G', rhs);
    }
    Answer answer{milp.solve(seconds - since(start)), llvm::BitVector(n)};
    result.modelSeconds += since(milpStart);
    if (!milp.hasSolution()) {
      if (answer.outcome == Milp::Outcome::Optimal)
        answer.outcome = Milp::Outcome::Infeasible;
      return answer;
    }
    answer.schedule = readSchedule(milp, columns);
    return answer;
  };
  // Records a prediction; keeps the schedule if it fits and is cheaper.
  auto record = [&](const llvm::BitVector &schedule, const PredictedPeak &peak) {
    ++result.schedulesChecked;
    smallestPeak = std::min(smallestPeak, peak.peakBytes);
    if (peak.peakBytes > result.budgetBytes) {
      rejected.push_back({schedule, savedProducers(schedule)});
      return false;
    }
    if (!best || flops(schedule) < flops(*best)) {
      best = schedule;
      bestPeak = peak.peakBytes;
    }
    return true;
  };
  // Checks a schedule with the oracle.
  auto check = [&](const llvm::BitVector &schedule) -> FailureOr<bool> {
    FailureOr<PredictedPeak> peak = predict(schedule);
    if (failed(peak))
      return failure();
    return record(schedule, *peak);
  };

  // Under the step's peak, the split's answer first: the step of one
  // schedule frees each residual after its last use, where the split holds
  // them all until the backward returns, so what fits the split nearly
  // always fits the step (record() drops it where not: tiny programs, whose
  // step can peak a few bytes above). It is the incumbent that the step's
  // own search, whose tight bound guesses more, looks below. The split's
  // search has the time (a prediction of a GPT-2 step takes seconds): the
  // step's goes on in what is left.
  if (target == PeakTarget::Step) {
    MemoryBudgetProblem split = *this;
    split.setTarget(PeakTarget::Split);
    FailureOr<BudgetSchedule> answer = failure();
    {
      ScopedDiagnosticHandler quiet(fwd->getContext(), [](Diagnostic &) { return success(); });
      answer = split.solve(result.budgetBytes, std::nullopt, seconds - since(start),
                           /*prove=*/false, /*findSmallestPeak=*/false, maxRejections);
    }
    if (succeeded(answer)) {
      result.schedulesChecked += answer->schedulesChecked;
      if (failed(check(answer->rebuilt)))
        return failure();
      if (best && !prove && since(start) > seconds)
        return finish(false);
    }
  }

  // First under the tight bound (the backward's own buffers taken as fixed),
  // which usually finds the optimum at once; then under the proven bound,
  // for schedules cheaper than the best found, until none is left.
  // Under the tight bound, elimination first (MemoryBudgetElimination.cpp):
  // exact and fast. When the plan rejects its answer (rebuilt values can
  // widen the backward's working set beyond the bound), the next cheapest
  // schedules of its Pareto set are predicted until one fits
  // (MemoryBudgetSeed.cpp): an incumbent, below which the MILP (which
  // elimination cannot express: the cutoff and the no-good cuts) looks for
  // cheaper schedules until none is left or time runs out.
  // Half the time at most, so that the segment schedules and the MILP have
  // the rest where the set has nothing that fits.
  FailureOr<ParetoSeed> seed =
      seedFromPareto(result.budgetBytes, *saveAll, (seconds - since(start)) / 2);
  if (failed(seed))
    return failure();
  result.modelSeconds += seed->modelSeconds;
  for (const auto &[schedule, peak] : seed->predicted)
    record(schedule, peak);
  if (seed->status == ParetoSeed::Fits && flops(*best) == 0)
    return finish(true);
  // The cheapest schedule whose tight bound fits fits: the optimum under
  // that bound, with no MILP to run below it.
  const bool tightOptimum = seed->status == ParetoSeed::Fits && seed->predicted.size() == 1;
  // Where the seed ends without a schedule that fits: the segment schedules
  // (MemoryBudgetSegments.cpp), cheapest first, until one fits; it is the
  // incumbent the MILP looks below.
  if (!best && seed->status != ParetoSeed::Infeasible)
    for (const llvm::BitVector &schedule : segmentSchedules()) {
      if (since(start) > seconds)
        break;
      FailureOr<bool> fits = check(schedule);
      if (failed(fits))
        return failure();
      if (*fits)
        break;
    }
  // The MILP can list many schedules of one peak that differ only in ops of
  // no FLOPs, each costing a prediction: below an incumbent, and without
  // one unless asked to prove, it stops after maxRejections of them.
  int rejectionsWithout = 0; // in both phases
  for (Bound bound : {Bound::Tight, Bound::Proven}) {
    if (bound == Bound::Proven && best && (!prove || result.searchStopped))
      return finish(false);
    if (bound == Bound::Tight && (tightOptimum || seed->status == ParetoSeed::Infeasible))
      continue; // found, or no schedule's tight bound fits
    int rejectionsBelow = 0;
    while (since(start) <= seconds) {
      std::optional<int64_t> cutoff;
      if (best)
        cutoff = flops(*best) - 1;
      if (cutoff && *cutoff < 0) // nothing is cheaper than no FLOPs
        return finish(true);
      Answer answer = solveMilp(bound, cutoff, false);
      if (answer.outcome == Milp::Outcome::Infeasible) {
        if (bound == Bound::Proven && best)
          return finish(true);
        break;
      }
      FailureOr<bool> fits = check(answer.schedule);
      if (failed(fits))
        return failure();
      if (answer.outcome == Milp::Outcome::TimeLimit) {
        result.timedOut = true;
        break;
      }
      if (*fits && bound == Bound::Tight)
        break;
      if (!*fits && (best ? bound == Bound::Tight && ++rejectionsBelow > maxRejections
                          : !prove && ++rejectionsWithout > maxRejections)) {
        result.searchStopped = best.has_value();
        break;
      }
    }
  }
  if (best) // out of time
    return finish(false);

  // Nothing found in time, or nothing fits: the schedule with the fewest
  // residuals is the fallback.
  llvm::BitVector all(n, true);
  FailureOr<bool> fits = check(effective(all));
  if (failed(fits))
    return failure();
  if (*fits)
    return finish(false);

  // No schedule fits: the smallest peak, in order of the proven bound, for
  // the diagnostic (exact unless time runs out or, unless asked to prove,
  // maxRejections schedules did not reach it).
  bool exact = false;
  std::string stopped = findSmallestPeak ? "out of time" : "not searched";
  for (int listed = 0; findSmallestPeak && since(start) <= seconds; ++listed) {
    if (!prove && listed == maxRejections) {
      stopped = std::to_string(listed) + " schedules listed";
      break;
    }
    Answer answer = solveMilp(Bound::Proven, std::nullopt, true);
    if (answer.outcome == Milp::Outcome::Infeasible ||
        (answer.outcome == Milp::Outcome::Optimal &&
         lowerBound(answer.schedule, *saveAll, Bound::Proven) >= smallestPeak)) {
      exact = true;
      break;
    }
    if (answer.outcome != Milp::Outcome::Optimal) {
      stopped = "the solver gave no optimum";
      break;
    }
    if (failed(check(answer.schedule))) {
      stopped = "a schedule could not be predicted";
      break;
    }
  }
  InFlightDiagnostic error = emitError(loc)
                             << "memory_budget: no schedule of this step peaks within "
                             << result.budgetBytes << " bytes; the smallest peak "
                             << (exact ? "is " : "found is ") << smallestPeak << " bytes ("
                             << result.schedulesChecked << " schedules checked";
  if (!exact)
    error << "; the search stopped: " << stopped;
  return error << ")";
}

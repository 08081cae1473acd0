//===- JxRemat.cpp - policy-driven rematerialization ----------------------===//
//
// JxRematPass rewrites each @f_fwd/@f_bwd pair made by --jx-vjp. For every
// residual, the policies of the remat regions that contain both the value
// and the op that asked for it decide (intersected, innermost to outermost):
// save, offload (save, tagged with a memory kind), or recompute. Recomputed
// residuals are rebuilt in @f_bwd before their first use by cloning their
// producers, recursively, down to values that may be saved (region inputs,
// values the policies allow, arguments), which become residuals in turn.
// Residuals are then re-sorted (arguments first, then forward order) and
// dead forward code is dropped. The min_residual_bytes policies decide by a
// minimum cut of their region (MinimumCut.h), solved once per region before
// any residual is decided. The memory_budget regions of a pair are solved
// together, for the tightest of their budgets (MemoryBudget.h), and the
// schedule is reported as a remark.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"
#include "passes/remat/MinimumCut.h"
#include "passes/remat/Remat.h"
#include "passes/SplitRewrite.h"
#include "passes/autodiff/VjpComposition.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXREMATPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;
using Decision = PolicyAttr::Decision;

namespace {

/// The memory kind an offloading policy moves `op`'s value to ("" if none).
StringRef offloadDestination(PolicyAttr policy, Operation *op, bool inCut) {
  if (getPolicySignature(policy.getKind()) == PolicySignature::Policies) {
    for (PolicyAttr sub : policy.getOperands())
      if (StringRef dst = offloadDestination(sub, op, inCut); !dst.empty())
        return dst;
    return "";
  }
  return policy.decide(op, inCut) == Decision::Offload ? policy.getOffloadDst().getValue() : "";
}

struct Verdict {
  Decision decision = Decision::Save;
  StringRef memoryKind;
};

/// Per remat region whose policy decides by a solver, the values it saves.
using RegionCuts = RegionChoices;

/// The op a policy is asked about for `v`: its producer, except for a value
/// a forward scan stacks from its body (a residual of each iteration), where
/// it is the body op that computes it, through nested scans, as JAX asks the
/// policy about the equations of a scan's body. Carries stacked by a scan
/// stay the scan's.
Operation *questionedOp(Value v) {
  Operation *producer = v.getDefiningOp();
  while (auto scan = dyn_cast_if_present<ScanOp>(producer)) {
    Operation *yield = scan.getBody().front().getTerminator();
    unsigned index = cast<OpResult>(v).getResultNumber();
    if (index >= yield->getNumOperands())
      break;
    Value inner = yield->getOperand(index);
    if (!inner.getDefiningOp())
      break;
    v = inner;
    producer = inner.getDefiningOp();
  }
  return producer;
}

/// Intersects the policies of the regions in `consumerStack` that also contain `v`.
Verdict decide(Value v, ArrayRef<int64_t> consumerStack, const RegionCuts &cuts) {
  Operation *producer = v.getDefiningOp();
  if (!producer)
    return {};
  RematScopeAttr scope = getRematScope(producer);
  if (!scope)
    return {};
  Operation *questioned = questionedOp(v);
  Verdict verdict;
  for (auto [id, policy] : llvm::zip(scope.getRegions(), scope.getPolicies())) {
    if (!llvm::is_contained(consumerStack, id))
      continue;
    auto cut = cuts.find(id);
    bool inCut = cut != cuts.end() && cut->second.contains(v);
    Decision d = policy.decide(questioned, inCut);
    if (d == Decision::Recompute)
      return {Decision::Recompute, ""};
    if (d == Decision::Offload) {
      verdict.decision = Decision::Offload;
      if (verdict.memoryKind.empty())
        verdict.memoryKind = offloadDestination(policy, questioned, inCut);
    }
  }
  return verdict;
}

ArrayRef<int64_t> regionStack(Operation *op) { return getRematRegions(op); }

/// 10, 0.5: a time limit as the user wrote it.
std::string shortNumber(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%g", x);
  return buffer;
}

class Rematerializer {
public:
  Rematerializer(func::FuncOp fwd, func::FuncOp bwd, const RegionChoices *choices,
                 double budgetSeconds, bool budgetProof)
      : fwd(fwd), bwd(bwd), choices(choices), budgetSeconds(budgetSeconds),
        budgetProof(budgetProof) {}
  LogicalResult run();

private:
  LogicalResult cutRegions(ValueRange residualValues);
  Value rebuild(Value v, OpBuilder &b);
  Value saved(Value v, StringRef memoryKind, bool barrier, OpBuilder &b);
  void finish();

  func::FuncOp fwd, bwd;
  /// Forward value -> its residual argument in @f_bwd (kept and new ones).
  llvm::MapVector<Value, BlockArgument> residuals;
  llvm::DenseMap<Value, StringRef> memoryKinds;
  llvm::DenseMap<Value, Value> rebuilt, barriers;
  const RegionChoices *choices;
  double budgetSeconds;
  bool budgetProof;
  RegionCuts cuts;
};

/// Solves the minimum cut of every region whose policy asks for one: what
/// the backward reads for that region's ops is what must be recomputable.
/// Then the budget regions, together.
LogicalResult Rematerializer::cutRegions(ValueRange residualValues) {
  llvm::MapVector<int64_t, std::pair<PolicyAttr, SmallVector<Value>>> problems;
  llvm::MapVector<int64_t, PolicyAttr> budgets;
  for (Operation &op : fwd.getBody().front())
    if (RematScopeAttr scope = getRematScope(&op))
      for (auto [id, policy] : llvm::zip(scope.getRegions(), scope.getPolicies()))
        if (getPolicySignature(policy.getKind()) == PolicySignature::Budget)
          budgets.insert({id, policy});
  for (auto [i, v] : llvm::enumerate(residualValues)) {
    Operation *producer = v.getDefiningOp();
    RematScopeAttr scope = producer ? getRematScope(producer) : RematScopeAttr();
    ArrayAttr stacks = getRequestedBy(bwd, i);
    if (!scope || !stacks)
      continue;
    for (auto [id, policy] : llvm::zip(scope.getRegions(), scope.getPolicies())) {
      bool asked = llvm::any_of(stacks, [&](Attribute stack) {
        return llvm::is_contained(cast<DenseI64ArrayAttr>(stack).asArrayRef(), id);
      });
      if (asked && policy.getMinimumCut() != PolicyAttr::MinimumCut::None &&
          !(choices && choices->count(id))) {
        auto &problem = problems[id];
        problem.first = policy;
        problem.second.push_back(v);
      }
    }
  }
  llvm::DenseSet<Value> savedArguments;
  for (Value v : residualValues)
    if (isa<BlockArgument>(v))
      savedArguments.insert(v);
  for (auto &[id, problem] : problems) {
    bool dots = problem.first.getMinimumCut() == PolicyAttr::MinimumCut::WithDots;
    int64_t region = id;
    cuts[id] = minimumResidualCut(ResidualCutProblem{
        &fwd.getBody().front(),
        [&](Operation *op) { return llvm::is_contained(getRematRegions(op), region); },
        [&](Operation *op) { return isCheapToRecompute(op, dots); }, problem.second,
        [&](Value v) { return savedArguments.contains(v); }});
  }
  if (budgets.empty())
    return success();
  if (choices) {
    for (auto &[id, policy] : budgets)
      if (auto it = choices->find(id); it != choices->end())
        cuts[id] = it->second;
    return success();
  }
  SmallVector<int64_t> ids;
  std::optional<int64_t> bytes;
  std::optional<double> fraction;
  for (auto &[id, policy] : budgets) {
    ids.push_back(id);
    if (auto b = policy.getBudgetBytes())
      bytes = bytes ? std::min(*bytes, *b) : *b;
    if (auto f = policy.getBudgetFraction())
      fraction = fraction ? std::min(*fraction, *f) : *f;
  }
  FailureOr<MemoryBudgetProblem> problem = MemoryBudgetProblem::build(fwd, bwd, ids);
  if (failed(problem))
    return failure();
  FailureOr<BudgetSchedule> schedule =
      problem->solve(bytes, fraction, budgetSeconds, budgetProof);
  if (failed(schedule))
    return failure();
  for (int64_t id : ids)
    cuts[id] = schedule->choices.lookup(id);
  InFlightDiagnostic remark = emitRemark(problem->getLoc())
                              << "memory_budget: peak " << schedule->peakBytes << " of "
                              << schedule->budgetBytes << " bytes (" << schedule->noRematPeakBytes
                              << " without remat), recomputing " << schedule->recomputedFlops
                              << " FLOPs in " << schedule->rebuilt.count() << " of "
                              << problem->numCandidates() << " ops; ";
  if (schedule->optimal)
    remark << "proven optimal";
  else if (schedule->timedOut)
    remark << "the best found in " << shortNumber(budgetSeconds) << " s, not proven optimal";
  else if (schedule->searchStopped)
    remark << "the best found (the working-set bound missed schedules below it), not proven "
              "optimal";
  else
    remark << "optimal under the working-set bound (budget-proof=true proves it)";
  remark << " (" << schedule->schedulesChecked << " schedules predicted)";
  return success();
}

Value Rematerializer::saved(Value v, StringRef memoryKind, bool barrier, OpBuilder &b) {
  auto it = residuals.find(v);
  if (it == residuals.end()) {
    Block &body = bwd.getBody().front();
    it = residuals.insert({v, body.addArgument(v.getType(), v.getLoc())}).first;
    if (!memoryKind.empty())
      memoryKinds[v] = memoryKind;
  }
  if (!barrier)
    return it->second;
  Value &guarded = barriers[v];
  if (!guarded)
    guarded = OptimizationBarrierOp::create(b, v.getLoc(), ValueRange{it->second}).getResult(0);
  return guarded;
}

Value Rematerializer::rebuild(Value v, OpBuilder &b) {
  if (Value done = rebuilt.lookup(v))
    return done;
  Operation *producer = v.getDefiningOp();
  bool guard = false;
  if (RematScopeAttr scope = getRematScope(producer))
    guard = scope.getPreventCse();
  IRMapping map;
  for (Value operand : producer->getOperands()) {
    Value mapped;
    if (isArgumentFree(operand)) {
      mapped = rebuild(operand, b);
    } else if (isa<BlockArgument>(operand)) {
      mapped = saved(operand, "", guard, b);
    } else {
      Verdict verdict = decide(operand, regionStack(producer), cuts);
      mapped = verdict.decision == Decision::Recompute
                   ? rebuild(operand, b)
                   : saved(operand, verdict.memoryKind, guard, b);
    }
    map.map(operand, mapped);
  }
  Operation *clone = b.clone(*producer, map);
  stripRematScopes(clone);
  for (auto [from, to] : llvm::zip(producer->getResults(), clone->getResults()))
    rebuilt[from] = to;
  return rebuilt[v];
}

LogicalResult Rematerializer::run() {
  Block &fwdBody = fwd.getBody().front(), &bwdBody = bwd.getBody().front();
  auto ret = cast<func::ReturnOp>(fwdBody.getTerminator());
  int64_t numPrimal = numPrimalResults(fwd);
  int64_t numResiduals = jx::numResiduals(bwd);
  if (static_cast<int64_t>(ret.getNumOperands()) != numPrimal + numResiduals ||
      static_cast<int64_t>(bwd.getNumArguments()) != numResiduals + numPrimal)
    return fwd.emitOpError("does not match its backward's residuals; was it edited after --jx-vjp?");
  if (failed(cutRegions(ret.getOperands().drop_front(numPrimal))))
    return failure();

  // Decide each residual from the stacks of the ops that asked for it: saving
  // it for one of them serves all, so the most permissive verdict wins.
  SmallVector<std::pair<Value, BlockArgument>> recompute;
  for (int64_t i = 0; i < numResiduals; ++i) {
    Value v = ret.getOperand(numPrimal + i);
    BlockArgument arg = bwdBody.getArgument(i);
    Verdict best{Decision::Recompute, ""};
    ArrayAttr stacks = getRequestedBy(bwd, i);
    if (!stacks || stacks.empty() || isa<BlockArgument>(v))
      best = {};
    for (Attribute stack : stacks ? stacks.getValue() : ArrayRef<Attribute>()) {
      Verdict verdict = decide(v, cast<DenseI64ArrayAttr>(stack).asArrayRef(), cuts);
      if (verdict.decision == Decision::Save || best.decision == Decision::Recompute)
        best = verdict.decision == Decision::Recompute ? best : verdict;
    }
    if (best.decision == Decision::Recompute) {
      recompute.push_back({v, arg});
      continue;
    }
    residuals.insert({v, arg});
    if (best.decision == Decision::Offload)
      memoryKinds[v] = best.memoryKind;
  }

  // Rebuild in order of first use, so that what one rebuild leaves behind
  // dominates the later ones that reuse it.
  auto firstUse = [&](BlockArgument arg) -> Operation * {
    Operation *first = nullptr;
    for (Operation *user : arg.getUsers()) {
      Operation *top = bwdBody.findAncestorOpInBlock(*user);
      if (!first || top->isBeforeInBlock(first))
        first = top;
    }
    return first;
  };
  SmallVector<std::tuple<Operation *, Value, BlockArgument>> order;
  for (auto [v, arg] : recompute)
    if (Operation *first = firstUse(arg))
      order.push_back({first, v, arg});
  llvm::stable_sort(order, [](auto &a, auto &b) {
    return std::get<0>(a)->isBeforeInBlock(std::get<0>(b));
  });
  OpBuilder b(bwd.getContext());
  for (auto [first, v, arg] : order) {
    b.setInsertionPoint(first);
    arg.replaceAllUsesWith(rebuild(v, b));
  }
  finish();
  return success();
}

void Rematerializer::finish() {
  Block &fwdBody = fwd.getBody().front(), &bwdBody = bwd.getBody().front();
  MLIRContext *ctx = fwd.getContext();
  SmallVector<Value> ordered;
  for (auto &entry : residuals)
    ordered.push_back(entry.first);
  sortResiduals(ordered);

  // Arguments are now [old residuals][cotangents][residuals added by
  // rebuilds]. Put fresh ones in front, in order, then drop all the old ones.
  int64_t numPrimal = numPrimalResults(fwd);
  int64_t numOldResiduals = numResiduals(bwd);
  unsigned numFresh = ordered.size();
  for (auto [i, v] : llvm::enumerate(ordered))
    residuals[v].replaceAllUsesWith(bwdBody.insertArgument(i, v.getType(), v.getLoc()));
  llvm::BitVector dead(bwdBody.getNumArguments());
  dead.set(numFresh, numFresh + numOldResiduals);
  dead.set(numFresh + numOldResiduals + numPrimal, bwdBody.getNumArguments());
  bwdBody.eraseArguments(dead);

  setForwardReturn(fwd, numPrimal, ordered);
  // Argument attributes are positional: rebuild them.
  bwd.removeArgAttrsAttr();
  bwd.setFunctionType(FunctionType::get(ctx, bwdBody.getArgumentTypes(),
                                        bwdBody.getTerminator()->getOperandTypes()));
  setNumResiduals(bwd, ordered.size());
  for (auto [i, v] : llvm::enumerate(ordered)) {
    StringRef kind = memoryKinds.lookup(v);
    if (kind.empty())
      continue;
    setResidualMemoryKind({fwd, bwd}, i, kind);
  }

  // The forward no longer needs what only recomputed residuals used.
  eraseDeadOps(fwdBody);
  stripRematScopes(fwd);
}

} // namespace

LogicalResult mlir::cotangent::applyRematPolicies(func::FuncOp fwd, func::FuncOp bwd,
                                                  const RegionChoices *choices,
                                                  double budgetSeconds, bool budgetProof) {
  return Rematerializer(fwd, bwd, choices, budgetSeconds, budgetProof).run();
}

namespace {

struct JxRematPass : cotangent::impl::JxRematPassBase<JxRematPass> {
  using JxRematPassBase::JxRematPassBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SplitPair> pairs = getSplitPairs(module);
    if (pairs.empty()) {
      module.emitError("--jx-remat: no forward/backward pair in the module; run --jx-vjp first");
      return signalPassFailure();
    }
    for (auto [fwd, bwd] : pairs) {
      if (failed(applyRematPolicies(fwd, bwd, nullptr, budgetSeconds, budgetProof)))
        return signalPassFailure();
      emitVjpFunctions(fwd, bwd);
    }
  }
};

} // namespace

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
// schedule is reported as a remark. Residuals outside every region follow
// the pass's default-policy, as if one region held exactly them.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"
#include "passes/remat/MinimumCut.h"
#include "passes/remat/Remat.h"
#include "passes/SplitRewrite.h"
#include "passes/autodiff/RegionSplit.h"
#include "passes/autodiff/VjpComposition.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include <cmath>

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

/// The key of the default policy's cut in RegionCuts: region ids count from 0.
constexpr int64_t kOutsideRegions = -1;

/// Whether the default policy decides `v`: a value of an op outside every
/// region (and without regions of its own: a scan's residuals are its body's)
/// that an op outside every region asked for.
bool outsideRegions(Value v, ArrayRef<int64_t> consumerStack) {
  Operation *producer = v.getDefiningOp();
  return producer && consumerStack.empty() && !getRematScope(producer) &&
         producer->getNumRegions() == 0;
}

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

/// Intersects the policies of `scope`'s regions that are in `consumerStack`,
/// asked about `v` (computed by `questioned`).
Verdict decideIn(RematScopeAttr scope, Value v, Operation *questioned,
                 ArrayRef<int64_t> consumerStack, const RegionCuts &cuts) {
  if (!scope)
    return {};
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

/// Intersects the policies of the regions in `consumerStack` that also
/// contain `v`; `outside` decides a value outside every region.
Verdict decide(Value v, ArrayRef<int64_t> consumerStack, const RegionCuts &cuts,
               PolicyAttr outside) {
  Operation *producer = v.getDefiningOp();
  if (!producer)
    return {};
  if (outside && outsideRegions(v, consumerStack)) {
    auto cut = cuts.find(kOutsideRegions);
    bool inCut = cut != cuts.end() && cut->second.contains(v);
    Decision d = outside.decide(producer, inCut);
    return {d, d == Decision::Offload ? offloadDestination(outside, producer, inCut) : ""};
  }
  return decideIn(getRematScope(producer), v, questionedOp(v), consumerStack, cuts);
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
                 double budgetSeconds, bool budgetProof, PolicyAttr outside,
                 PeakTarget budgetTarget)
      : fwd(fwd), bwd(bwd), choices(choices), budgetSeconds(budgetSeconds),
        budgetProof(budgetProof), outside(outside), budgetTarget(budgetTarget) {}
  LogicalResult run();

private:
  LogicalResult cutRegions(ValueRange residualValues);
  Value rebuild(Value v, OpBuilder &b);
  Value rebuildScan(ScanOp scan, Value v, OpBuilder &b);
  Value inBackward(Value operand, ArrayRef<int64_t> consumerStack, bool guard, OpBuilder &b);
  Value saved(Value v, StringRef memoryKind, bool barrier, OpBuilder &b);
  Value savedFromBody(ScanOp scan, Value bodyValue, StringRef memoryKind, bool barrier,
                      OpBuilder &b);
  void stackSavedBodyValues();
  void finish();

  func::FuncOp fwd, bwd;
  /// Forward value -> its residual argument in @f_bwd (kept and new ones).
  llvm::MapVector<Value, BlockArgument> residuals;
  llvm::DenseMap<Value, StringRef> memoryKinds;
  llvm::DenseMap<Value, Value> rebuilt, barriers;
  /// The residuals this pass recomputes: a re-run scan rebuilds all of its own at once.
  llvm::DenseSet<Value> recomputed;
  /// Per forward scan, the body values a re-run reads back, each stacked as a
  /// new result of the scan: its residual argument in @f_bwd and memory kind.
  struct BodyResidual {
    Value bodyValue;
    BlockArgument arg;
    StringRef memoryKind;
  };
  llvm::MapVector<Operation *, SmallVector<BodyResidual>> bodyResiduals;
  const RegionChoices *choices;
  double budgetSeconds;
  bool budgetProof;
  /// The policy of residuals outside every region (none: saved); dropped
  /// where a memory_budget region plans the whole pair.
  PolicyAttr outside;
  PeakTarget budgetTarget;
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
  // A budget's solve plans the whole pair: what lies outside its regions stays.
  if (!budgets.empty())
    outside = {};
  for (auto [i, v] : llvm::enumerate(residualValues)) {
    Operation *producer = v.getDefiningOp();
    RematScopeAttr scope = producer ? getRematScope(producer) : RematScopeAttr();
    ArrayAttr stacks = getRequestedBy(bwd, i);
    if (!stacks)
      continue;
    if (!scope) {
      bool askedOutside = llvm::any_of(stacks, [&](Attribute stack) {
        return outsideRegions(v, cast<DenseI64ArrayAttr>(stack).asArrayRef());
      });
      if (outside && askedOutside && outside.getMinimumCut() != PolicyAttr::MinimumCut::None) {
        auto &problem = problems[kOutsideRegions];
        problem.first = outside;
        problem.second.push_back(v);
      }
      continue;
    }
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
        [&](Operation *op) {
          return region == kOutsideRegions ? !getRematScope(op)
                                           : llvm::is_contained(getRematRegions(op), region);
        },
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
  problem->setTarget(budgetTarget);
  FailureOr<BudgetSchedule> schedule =
      problem->solve(bytes, fraction, budgetSeconds, budgetProof);
  if (failed(schedule))
    return failure();
  for (int64_t id : ids)
    cuts[id] = schedule->choices.lookup(id);
  InFlightDiagnostic remark = emitRemark(problem->getLoc())
                              << "memory_budget: "
                              << (budgetTarget == PeakTarget::Step ? "step " : "") << "peak "
                              << schedule->peakBytes << " of "
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
    remark << (budgetTarget == PeakTarget::Step
                   ? "optimal under the working-set bound (the step's peak has no proof)"
                   : "optimal under the working-set bound (budget-proof=true proves it)");
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

Value Rematerializer::savedFromBody(ScanOp scan, Value bodyValue, StringRef memoryKind,
                                    bool barrier, OpBuilder &b) {
  // A value the scan stacks already is saved as that result.
  Operation *yield = scan.getBody().front().getTerminator();
  for (unsigned i = scan.getNumCarry(); i < yield->getNumOperands(); ++i)
    if (yield->getOperand(i) == bodyValue)
      return saved(scan.getResult(i), memoryKind, barrier, b);
  SmallVector<BodyResidual> &list = bodyResiduals[scan];
  auto it = llvm::find_if(list, [&](const BodyResidual &r) { return r.bodyValue == bodyValue; });
  if (it == list.end()) {
    Type type = stackedType(bodyValue.getType(), scan.getLength());
    list.push_back({bodyValue, bwd.getBody().front().addArgument(type, scan.getLoc()), memoryKind});
    it = std::prev(list.end());
  }
  if (!barrier)
    return it->arg;
  Value &guarded = barriers[it->arg];
  if (!guarded)
    guarded = OptimizationBarrierOp::create(b, scan.getLoc(), ValueRange{it->arg}).getResult(0);
  return guarded;
}

/// `operand` of an op rebuilt in the backward (whose regions are
/// `consumerStack`): rebuilt in turn, or saved.
Value Rematerializer::inBackward(Value operand, ArrayRef<int64_t> consumerStack, bool guard,
                                 OpBuilder &b) {
  if (isArgumentFree(operand))
    return rebuild(operand, b);
  if (isa<BlockArgument>(operand))
    return saved(operand, "", guard, b);
  Verdict verdict = decide(operand, consumerStack, cuts, outside);
  return verdict.decision == Decision::Recompute ? rebuild(operand, b)
                                                 : saved(operand, verdict.memoryKind, guard, b);
}

/// Re-runs of `scan` the part of its body that the results this pass
/// recomputes need (`v` among them). What the policies save inside the body
/// is not run again: the forward scan stacks it as a further result, which
/// the re-run reads as an xs, as JAX's partial evaluation of a scan keeps a
/// saveable dot rather than recomputing it.
Value Rematerializer::rebuildScan(ScanOp scan, Value v, OpBuilder &b) {
  Block &body = scan.getBody().front();
  Operation *yield = body.getTerminator();
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  RematScopeAttr scope = getRematScope(scan);
  ArrayRef<int64_t> stack = regionStack(scan);
  bool guard = scope && scope.getPreventCse();

  // Values that change from one iteration to the next: only they are stacked.
  llvm::DenseSet<Value> variant(body.args_begin() + numConsts, body.args_end());
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getOperands(), [&](Value x) { return variant.contains(x); }))
      variant.insert(op.result_begin(), op.result_end());

  // The slice of the body to re-run, from the wanted results back to block
  // arguments and saved values. A carry read is threaded through the loop.
  SmallVector<unsigned> wanted;
  for (OpResult r : scan->getResults())
    if ((r == v || recomputed.contains(r)) && !rebuilt.count(r))
      wanted.push_back(r.getResultNumber());
  llvm::BitVector argNeeded(body.getNumArguments());
  llvm::DenseSet<Operation *> rerun;
  llvm::DenseSet<Value> read; // body values read back from the forward
  llvm::DenseMap<Value, StringRef> readKind;
  llvm::DenseSet<Value> seen;
  SmallVector<Value> work;
  auto needCarry = [&](unsigned k) {
    if (!argNeeded.test(numConsts + k)) {
      argNeeded.set(numConsts + k);
      work.push_back(yield->getOperand(k));
    }
  };
  for (unsigned i : wanted) {
    if (i < numCarry)
      needCarry(i);
    else
      work.push_back(yield->getOperand(i));
  }
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second)
      continue;
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      unsigned n = arg.getArgNumber();
      if (n >= numConsts && n < numConsts + numCarry)
        needCarry(n - numConsts);
      else
        argNeeded.set(n);
      continue;
    }
    if (variant.contains(x)) {
      Verdict verdict = decideIn(scope, x, questionedOp(x), stack, cuts);
      if (verdict.decision != Decision::Recompute) {
        read.insert(x);
        readKind[x] = verdict.memoryKind;
        continue;
      }
    }
    Operation *op = x.getDefiningOp();
    rerun.insert(op);
    work.append(op->operand_begin(), op->operand_end());
  }

  // The re-run: (needed consts, needed carries, needed xs + read stacks).
  SmallVector<unsigned> consts, carries, xs;
  for (unsigned n : argNeeded.set_bits())
    (n < numConsts ? consts : n < numConsts + numCarry ? carries : xs).push_back(n);
  SmallVector<Value> operands;
  SmallVector<Type> argTypes, resultTypes;
  for (unsigned n : llvm::concat<unsigned>(consts, carries, xs)) {
    operands.push_back(inBackward(scan.getOperand(n), stack, guard, b));
    argTypes.push_back(body.getArgument(n).getType());
  }
  SmallVector<Value> reads; // in body order
  for (Operation &op : body.without_terminator())
    for (Value x : op.getResults())
      if (read.contains(x))
        reads.push_back(x);
  for (Value x : reads) {
    operands.push_back(savedFromBody(scan, x, readKind[x], guard, b));
    argTypes.push_back(x.getType());
  }
  SmallVector<unsigned> ys;
  for (unsigned i : wanted)
    if (i >= numCarry)
      ys.push_back(i);
  for (unsigned n : carries)
    resultTypes.push_back(scan.getResult(n - numConsts).getType());
  for (unsigned i : ys)
    resultTypes.push_back(scan.getResult(i).getType());
  auto rerunScan = ScanOp::create(b, scan.getLoc(), resultTypes, operands, scan.getLength(),
                                  consts.size(), carries.size(), scan.getReverse(),
                                  /*checkpoint_lengths=*/nullptr, /*snapshots=*/nullptr);
  Block *block = b.createBlock(&rerunScan.getBody(), {}, argTypes,
                               SmallVector<Location>(argTypes.size(), scan.getLoc()));
  IRMapping map;
  unsigned next = 0;
  for (unsigned n : llvm::concat<unsigned>(consts, carries, xs))
    map.map(body.getArgument(n), block->getArgument(next++));
  for (Value x : reads)
    map.map(x, block->getArgument(next++));
  OpBuilder ib = OpBuilder::atBlockEnd(block);
  for (Operation &op : body.without_terminator())
    if (rerun.contains(&op))
      stripRematScopes(ib.clone(op, map));
  SmallVector<Value> outs;
  for (unsigned n : carries)
    outs.push_back(map.lookup(yield->getOperand(n - numConsts)));
  for (unsigned i : ys)
    outs.push_back(map.lookup(yield->getOperand(i)));
  YieldOp::create(ib, scan.getLoc(), outs);
  b.setInsertionPointAfter(rerunScan);

  for (auto [k, n] : llvm::enumerate(carries))
    rebuilt[scan.getResult(n - numConsts)] = rerunScan.getResult(k);
  for (auto [k, i] : llvm::enumerate(ys))
    rebuilt[scan.getResult(i)] = rerunScan.getResult(carries.size() + k);
  return rebuilt.lookup(v);
}

Value Rematerializer::rebuild(Value v, OpBuilder &b) {
  if (Value done = rebuilt.lookup(v))
    return done;
  Operation *producer = v.getDefiningOp();
  if (auto scan = dyn_cast<ScanOp>(producer))
    return rebuildScan(scan, v, b);
  // What the default policy recomputes is guarded as a prevent_cse region's
  // is: once @f_fwd and @f_bwd are inlined together, CSE would keep it.
  bool guard = static_cast<bool>(outside);
  if (RematScopeAttr scope = getRematScope(producer))
    guard = scope.getPreventCse();
  IRMapping map;
  for (Value operand : producer->getOperands())
    map.map(operand, inBackward(operand, regionStack(producer), guard, b));
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
      Verdict verdict = decide(v, cast<DenseI64ArrayAttr>(stack).asArrayRef(), cuts, outside);
      if (verdict.decision == Decision::Save || best.decision == Decision::Recompute)
        best = verdict.decision == Decision::Recompute ? best : verdict;
    }
    if (best.decision == Decision::Recompute) {
      recompute.push_back({v, arg});
      recomputed.insert(v);
      continue;
    }
    residuals.insert({v, arg});
    if (best.decision == Decision::Offload)
      memoryKinds[v] = best.memoryKind;
    else if (StringRef kind = getArgMemoryKind(bwd, i); !kind.empty())
      memoryKinds[v] = kind; // offloaded by a policy inside a scan body
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

/// Makes each forward scan whose re-run reads body values also stack them
/// (a scan with more results replaces it), and saves the stacks.
void Rematerializer::stackSavedBodyValues() {
  llvm::DenseMap<Value, Value> replaced;
  for (auto &[op, list] : bodyResiduals) {
    auto scan = cast<ScanOp>(op);
    OpBuilder b(scan);
    SmallVector<Type> types(scan.getResultTypes());
    for (const BodyResidual &r : list)
      types.push_back(cast<BlockArgument>(r.arg).getType());
    auto stacking = ScanOp::create(b, scan.getLoc(), types, scan.getOperands(), scan.getLength(),
                                   scan.getNumConsts(), scan.getNumCarry(), scan.getReverse(),
                                   scan.getCheckpointLengthsAttr(), scan.getSnapshotsAttr());
    stacking->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
    stacking.getBody().takeBody(scan.getBody());
    Operation *yield = stacking.getBody().front().getTerminator();
    for (const BodyResidual &r : list)
      yield->insertOperands(yield->getNumOperands(), r.bodyValue);
    for (auto [from, to] : llvm::zip(scan.getResults(), stacking.getResults())) {
      from.replaceAllUsesWith(to);
      replaced[from] = to;
    }
    for (auto [k, r] : llvm::enumerate(list)) {
      Value stacked = stacking.getResult(scan.getNumResults() + k);
      residuals.insert({stacked, r.arg});
      if (!r.memoryKind.empty())
        memoryKinds[stacked] = r.memoryKind;
    }
    scan.erase();
  }
  if (replaced.empty())
    return;
  llvm::MapVector<Value, BlockArgument> rekeyed;
  for (auto &[v, arg] : residuals)
    rekeyed.insert({replaced.lookup(v) ? replaced.lookup(v) : v, arg});
  residuals = std::move(rekeyed);
  llvm::DenseMap<Value, StringRef> kinds;
  for (auto &[v, kind] : memoryKinds)
    kinds[replaced.lookup(v) ? replaced.lookup(v) : v] = kind;
  memoryKinds = std::move(kinds);
}

void Rematerializer::finish() {
  stackSavedBodyValues();
  Block &fwdBody = fwd.getBody().front(), &bwdBody = bwd.getBody().front();
  MLIRContext *ctx = fwd.getContext();
  SmallVector<Value> ordered;
  for (auto &entry : residuals)
    ordered.push_back(entry.first);
  sortResiduals(ordered);
  mergeSharedStorage(
      ordered, [&](Value v) { return memoryKinds.lookup(v); },
      [&](Value kept, Value dropped) { residuals[dropped].replaceAllUsesWith(residuals[kept]); });

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
                                                  double budgetSeconds, bool budgetProof,
                                                  PolicyAttr outside, PeakTarget budgetTarget) {
  return Rematerializer(fwd, bwd, choices, budgetSeconds, budgetProof, outside, budgetTarget)
      .run();
}

namespace {

struct JxRematPass : cotangent::impl::JxRematPassBase<JxRematPass> {
  using JxRematPassBase::JxRematPassBase;

  /// default-policy as a policy; everything_saveable (keep every residual) as none.
  LogicalResult parseDefaultPolicy(ModuleOp module, PolicyAttr &outside) {
    std::string error;
    PolicyAttr policy = PolicyAttr::parsePolicy(module.getContext(), defaultPolicy, error);
    // At the module's location, without the module printed after it: the flag is at fault.
    if (!policy)
      return mlir::emitError(module.getLoc(), "--jx-remat: default-policy: ") << error;
    if (getPolicySignature(policy.getKind()) == PolicySignature::Budget)
      return mlir::emitError(module.getLoc(), "--jx-remat: default-policy cannot be a "
                                              "memory_budget (it plans the whole step: use "
                                              "--jx-remat-function)");
    if (policy.getKind() != PolicyKind::everything_saveable)
      outside = policy;
    return success();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<SplitPair> pairs = getSplitPairs(module);
    if (pairs.empty()) {
      module.emitError("--jx-remat: no forward/backward pair in the module; run --jx-vjp first");
      return signalPassFailure();
    }
    // At the module's location, as the default policy's errors: the flag is at fault.
    if (!(budgetSeconds > 0) || !std::isfinite(budgetSeconds)) {
      mlir::emitError(module.getLoc(), "--jx-remat: budget-seconds must be a positive number "
                                       "of seconds, got ")
          << shortNumber(budgetSeconds);
      return signalPassFailure();
    }
    PolicyAttr outside;
    if (failed(parseDefaultPolicy(module, outside)))
      return signalPassFailure();
    for (auto [fwd, bwd] : pairs) {
      if (failed(applyRematPolicies(fwd, bwd, nullptr, budgetSeconds, budgetProof, outside,
                                    budgetStep ? PeakTarget::Step : PeakTarget::Split)))
        return signalPassFailure();
      emitVjpFunctions(fwd, bwd);
    }
  }
};

} // namespace

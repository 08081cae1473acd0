//===- JxVjp.cpp - the forward/backward split -----------------------------===//
//
// JxVjpPass differentiates a function JAX style, linearize then transpose:
//
//  1. Clone @f into @f_fwd and flatten its jx.remat regions, tagging each
//     flattened op with the policies of the regions it came from.
//  2. Activity: a value is active if it depends on a float argument through
//     differentiable ops and some returned value depends on it. Only ops
//     with an active result and an active operand are differentiated.
//  3. Linearize: after each such op, the op's rule emits the non-linear
//     values its transpose needs (the residual candidates).
//  4. Transpose: @f_bwd walks the ops in reverse, summing cotangents of values
//     used several times. Every forward value the backward reads becomes a
//     residual: an argument of @f_bwd and an extra result of @f_fwd, ordered
//     arguments first, then intermediates in forward order. Constants, and
//     views that only reshape, broadcast or widen a value, are rebuilt in the
//     backward from what they are computed from instead of being saved.
//
//===----------------------------------------------------------------------===//

#include "passes/Passes.h"
#include "dialects/jx/JxSplit.h"
#include "passes/SplitRewrite.h"
#include "passes/autodiff/VjpComposition.h"
#include "passes/autodiff/Differentiate.h"
#include "passes/remat/Remat.h"
#include "passes/remat/ScanSchedule.h"
#include "passes/autodiff/VjpControlFlow.h"
#include "passes/autodiff/VjpRules.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/SaveAndRestore.h"

namespace mlir::cotangent {
#define GEN_PASS_DEF_JXVJPPASS
#include "passes/Passes.h.inc"
} // namespace mlir::cotangent

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

bool isFloatTensor(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

/// Moves the body of every jx.remat into its parent, innermost first, and
/// tags the moved ops with the region's policy (a #jx.remat_scope).
void flattenRematRegions(func::FuncOp fn) {
  int64_t nextId = 0;
  SmallVector<RematOp> remats;
  // Post-order: inner regions first. Regions inside scan and cond bodies
  // are left for when those bodies are differentiated.
  fn.walk([&](RematOp op) {
    for (Operation *p = op->getParentOp(); p != fn; p = p->getParentOp())
      if (!isa<RematOp>(p))
        return;
    remats.push_back(op);
  });
  for (RematOp remat : remats) {
    int64_t id = nextId++;
    Block &body = remat.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [arg, operand] : llvm::zip(body.getArguments(), remat.getOperands()))
      arg.replaceAllUsesWith(operand);
    for (Operation &op : llvm::make_early_inc_range(body.without_terminator())) {
      op.moveBefore(remat);
      enterRematScope(&op, remat.getPolicy(), id, remat.getPreventCse());
      op.walk([&](Operation *nested) {
        if (nested != &op)
          enterRematScope(nested, remat.getPolicy(), id, remat.getPreventCse());
      });
    }
    remat.replaceAllUsesWith(yield.getOperands());
    remat.erase();
  }
}

class Differentiator {
public:
  Differentiator(func::FuncOp primal, bool compose)
      : primal(primal), module(primal->getParentOfType<ModuleOp>()), compose(compose) {}

  FailureOr<ForwardBackward> run();

private:
  LogicalResult checkSupported(func::FuncOp fwd);
  void analyzeActivity(func::FuncOp fwd);
  LogicalResult linearize(func::FuncOp fwd);
  void transpose(func::FuncOp fwd, func::FuncOp bwd);
  Value residualInBackward(Value forwardValue, OpBuilder &b, Block &block);
  void noteRequester(Value forwardValue);
  void finish(func::FuncOp fwd, func::FuncOp bwd);

  func::FuncOp primal;
  ModuleOp module;
  bool compose;
  llvm::DenseSet<Value> active;
  /// Region ops: their VJPs, and the forward values that replaced their results.
  llvm::DenseMap<Operation *, std::unique_ptr<ControlFlowVjp>> controlFlow;
  llvm::DenseMap<Operation *, SmallVector<Value>> replacedBy;
  SmallVector<Operation *> differentiated; // forward order
  llvm::DenseMap<Operation *, SmallVector<Value>> residualsOf;
  llvm::MapVector<Value, BlockArgument> residualArgs;
  llvm::DenseMap<Value, Value> rebuilt; // constants and views cloned into the backward
  /// For each residual, the remat-region stacks of the ops whose rules asked for it.
  llvm::DenseMap<Value, SmallVector<Attribute>> requesters;
  /// Residuals a policy inside a region op offloads, and where to.
  llvm::DenseMap<Value, StringRef> memoryKinds;
  Operation *requester = nullptr;
};

LogicalResult Differentiator::checkSupported(func::FuncOp fwd) {
  WalkResult result = fwd.walk([&](Operation *op) -> WalkResult {
    if (isa<WhileOp>(op))
      return op->emitOpError("is not reverse-differentiable (its trip count is only known at run "
                             "time); use jx.scan with a fixed length"),
             WalkResult::interrupt();
    if (op->getDialect() && op->getDialect()->getNamespace() == "jx" && !lookupVjpRule(op) &&
        !isa<YieldOp, ScanOp, CondOp, RematOp>(op))
      return op->emitOpError("has no differentiation rule"), WalkResult::interrupt();
    if (!isa<func::ReturnOp>(op) && op != fwd && op->getDialect() &&
        op->getDialect()->getNamespace() != "jx")
      return op->emitOpError("cannot be differentiated by --jx-vjp (only jx ops can)"),
             WalkResult::interrupt();
    return WalkResult::advance();
  });
  return failure(result.wasInterrupted());
}

void Differentiator::analyzeActivity(func::FuncOp fwd) {
  Block &body = fwd.getBody().front();
  llvm::DenseSet<Value> varying;
  for (BlockArgument arg : body.getArguments())
    if (isFloatTensor(arg.getType()))
      varying.insert(arg);
  for (Operation &op : body.without_terminator()) {
    // sign(x) and the like vary with x but have no tangent: a product with
    // them then keeps only them, not x (JAX's symbolic zeros).
    if (const VjpRule *rule = lookupVjpRule(&op); rule && rule->zeroDerivative)
      continue;
    if (llvm::any_of(op.getOperands(), [&](Value v) { return varying.contains(v); }))
      for (Value r : op.getResults())
        if (isFloatTensor(r.getType()))
          varying.insert(r);
  }
  llvm::DenseSet<Value> useful(body.getTerminator()->operand_begin(),
                               body.getTerminator()->operand_end());
  for (Operation &op : llvm::reverse(body.without_terminator()))
    if (llvm::any_of(op.getResults(), [&](Value v) { return useful.contains(v); }))
      useful.insert(op.operand_begin(), op.operand_end());
  for (Value v : varying)
    if (useful.contains(v))
      active.insert(v);
  for (Operation &op : body.without_terminator())
    if (llvm::any_of(op.getResults(), [&](Value v) { return active.contains(v); }) &&
        llvm::any_of(op.getOperands(), [&](Value v) { return active.contains(v); }))
      differentiated.push_back(&op);
}

SmallVector<bool> activeMask(Operation *op, const llvm::DenseSet<Value> &active) {
  return llvm::map_to_vector(op->getOperands(), [&](Value v) { return active.contains(v); });
}

/// Splits a function made from a region, with the region's remat policies applied.
FailureOr<ForwardBackward> splitRegion(func::FuncOp fn) {
  FailureOr<ForwardBackward> halves = differentiateFunction(fn, /*compose=*/false);
  if (failed(halves) || failed(applyRematPolicies(halves->fwd, halves->bwd)))
    return failure();
  return halves;
}

LogicalResult Differentiator::linearize(func::FuncOp fwd) {
  OpBuilder b(fwd.getContext());
  for (Operation *op : differentiated) {
    b.setInsertionPointAfter(op);
    if (auto vjp = makeControlFlowVjp(op, splitRegion)) {
      // The forward op computes the primal results too: it replaces `op`.
      FailureOr<SmallVector<Value>> forward = vjp->linearize(b, residualsOf[op]);
      if (failed(forward))
        return failure();
      for (auto [i, r] : llvm::enumerate(residualsOf[op]))
        if (StringRef kind = vjp->residualMemoryKind(i); !kind.empty() && !isa<BlockArgument>(r))
          memoryKinds[r] = kind;
      for (auto [from, to] : llvm::zip_equal(op->getResults(), *forward)) {
        if (active.contains(from))
          active.insert(to);
        from.replaceAllUsesWith(to);
      }
      replacedBy[op] = *forward;
      controlFlow[op] = std::move(vjp);
    } else {
      JxBuilder jb(b, op->getLoc());
      residualsOf[op] = lookupVjpRule(op)->linearize(jb, op, activeMask(op, active));
    }
    // What the linearization computed belongs to the op's remat regions too.
    for (Operation *it = op->getNextNode(); it && it != &*b.getInsertionPoint();
         it = it->getNextNode())
      copyRematScope(op, it);
  }
  return success();
}

/// A view whose operand holds the same values in no more bytes: the backward
/// rebuilds it from its operand rather than saving it (JAX saves the f32[4,1]
/// mean, not its f32[4,8] broadcast). Transposes and slices are not: the
/// first costs a copy to redo, the second's operand is larger.
static bool isCheapView(Value v) {
  Operation *def = v.getDefiningOp();
  if (def && isRebuiltFromOperand(def))
    return true;
  if (auto convert = dyn_cast_if_present<ConvertElementTypeOp>(def)) {
    auto from = dyn_cast<FloatType>(getElementTypeOrSelf(convert.getOperand().getType()));
    auto to = dyn_cast<FloatType>(getElementTypeOrSelf(convert.getType()));
    // Widening between floats is exact, so the narrow value is equivalent.
    return from && to && from.getWidth() < to.getWidth();
  }
  return false;
}

Value Differentiator::residualInBackward(Value v, OpBuilder &b, Block &block) {
  if (auto it = residualArgs.find(v); it != residualArgs.end()) {
    noteRequester(v);
    return it->second;
  }
  // A rebuilt view asked for its operands itself, the first time.
  if (auto it = rebuilt.find(v); it != rebuilt.end())
    return it->second;
  // Constants, and cheap views, are rebuilt in the backward from what they
  // are computed from. The view is what needs its operand: the policies of
  // the regions around both decide about the operand (it may be saved only
  // where the view could have been recomputed from it).
  if (isArgumentFree(v) || isCheapView(v)) {
    Operation *def = v.getDefiningOp();
    llvm::SaveAndRestore asker(requester, def);
    IRMapping map;
    for (Value operand : def->getOperands())
      map.map(operand, residualInBackward(operand, b, block));
    Operation *clone = b.clone(*def, map);
    stripRematScopes(clone);
    for (auto [from, to] : llvm::zip(def->getResults(), clone->getResults()))
      rebuilt[from] = to;
    return rebuilt[v];
  }
  BlockArgument arg = block.addArgument(v.getType(), v.getLoc());
  residualArgs[v] = arg;
  noteRequester(v);
  return arg;
}

void Differentiator::noteRequester(Value v) {
  Attribute stack = DenseI64ArrayAttr::get(requester->getContext(), getRematRegions(requester));
  auto &list = requesters[v];
  if (!llvm::is_contained(list, stack))
    list.push_back(stack);
}

void Differentiator::transpose(func::FuncOp fwd, func::FuncOp bwd) {
  Block &block = bwd.getBody().front();
  OpBuilder b = OpBuilder::atBlockEnd(&block);
  llvm::DenseMap<Value, Value> cts;
  auto ret = cast<func::ReturnOp>(fwd.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    if (!active.contains(v))
      continue;
    JxBuilder jb(b, v.getLoc());
    cts[v] = jb.add(cts.lookup(v), block.getArgument(i));
  }
  for (Operation *op : llvm::reverse(differentiated)) {
    auto replaced = replacedBy.find(op);
    ValueRange results =
        replaced != replacedBy.end() ? ValueRange(replaced->second) : ValueRange(op->getResults());
    SmallVector<Value> outCts =
        llvm::map_to_vector(results, [&](Value r) { return cts.lookup(r); });
    if (llvm::all_of(outCts, [](Value v) { return !v; }))
      continue;
    JxBuilder jb(b, op->getLoc());
    requester = op;
    SmallVector<Value> residuals = llvm::map_to_vector(
        residualsOf[op], [&](Value v) { return residualInBackward(v, b, block); });
    SmallVector<bool> mask = activeMask(op, active);
    SmallVector<Value> inCts =
        controlFlow.count(op) ? controlFlow[op]->transpose(b, residuals, outCts)
                              : lookupVjpRule(op)->transpose(jb, op, mask, residuals, outCts);
    for (auto [operand, ct, isActive] : llvm::zip(op->getOperands(), inCts, mask))
      if (isActive && ct)
        cts[operand] = jb.add(cts.lookup(operand), ct);
  }
  SmallVector<Value> grads;
  for (BlockArgument arg : fwd.getArguments()) {
    JxBuilder jb(b, arg.getLoc());
    grads.push_back(jb.orZeros(cts.lookup(arg), arg.getType()));
  }
  func::ReturnOp::create(b, primal.getLoc(), grads);
}

void Differentiator::finish(func::FuncOp fwd, func::FuncOp bwd) {
  Block &fwdBody = fwd.getBody().front(), &bwdBody = bwd.getBody().front();
  // The backward's placeholders were appended after its cotangent arguments
  // in the order the transpose asked for them; put them in front, in order.
  SmallVector<Value> ordered;
  for (auto &entry : residualArgs)
    ordered.push_back(entry.first);
  sortResiduals(ordered);
  mergeSharedStorage(
      ordered, [&](Value v) { return memoryKinds.lookup(v); },
      [&](Value kept, Value dropped) {
        residualArgs[dropped].replaceAllUsesWith(residualArgs[kept]);
        for (Attribute stack : requesters[dropped])
          if (!llvm::is_contained(requesters[kept], stack))
            requesters[kept].push_back(stack);
      });
  for (auto [i, v] : llvm::enumerate(ordered))
    residualArgs[v].replaceAllUsesWith(bwdBody.insertArgument(i, v.getType(), v.getLoc()));
  for (size_t i = 0; i < residualArgs.size(); ++i) // every placeholder, merged ones too
    bwdBody.eraseArgument(bwdBody.getNumArguments() - 1);
  bwd.setFunctionType(FunctionType::get(bwd.getContext(), bwdBody.getArgumentTypes(),
                                        bwdBody.getTerminator()->getOperandTypes()));
  for (auto [i, v] : llvm::enumerate(ordered))
    setRequestedBy(bwd, i, ArrayAttr::get(bwd.getContext(), requesters[v]));

  unsigned numResults = fwdBody.getTerminator()->getNumOperands();
  setForwardReturn(fwd, numResults, ordered);
  for (auto &entry : replacedBy)
    entry.first->erase();
  // Drop what the linearization computed that no residual needed.
  eraseDeadOps(fwdBody);

  markSplit(fwd, bwd, FlatSymbolRefAttr::get(primal.getSymNameAttr()), numResults,
            ordered.size());
  for (auto [i, v] : llvm::enumerate(ordered))
    if (StringRef kind = memoryKinds.lookup(v); !kind.empty())
      setResidualMemoryKind({fwd, bwd}, i, kind);
}

FailureOr<ForwardBackward> Differentiator::run() {
  std::string base = primal.getSymName().str();
  for (StringRef suffix : {"_fwd", "_bwd", "_vjp", "_value_and_grad"})
    if (SymbolTable::lookupSymbolIn(module, base + suffix.str()))
      return primal.emitOpError() << "cannot be differentiated: '" << base << suffix
                                  << "' already exists";
  if (primal.isExternal())
    return primal.emitOpError("has no body to differentiate");
  if (!primal.getBody().hasOneBlock())
    return primal.emitOpError("must have a single block to be differentiated");
  // Cotangents are tensors of the primal's types: a scalar or unranked
  // argument has none. (A result can only be one if an op that is not jx's
  // made it, which checkSupported refuses.)
  for (auto [i, t] : llvm::enumerate(primal.getArgumentTypes()))
    if (!isa<RankedTensorType>(t))
      return primal.emitOpError() << "cannot be differentiated: argument " << i << " is " << t
                                  << ", not a ranked tensor";

  OpBuilder b(module.getContext());
  b.setInsertionPointAfter(primal);
  auto fwd = cast<func::FuncOp>(b.clone(*primal));
  fwd.setSymName(base + "_fwd");
  expandCheckpointedScans(fwd);
  flattenRematRegions(fwd);
  if (failed(checkSupported(fwd))) {
    fwd.erase();
    return failure();
  }
  analyzeActivity(fwd);
  if (failed(linearize(fwd))) {
    fwd.erase();
    return failure();
  }

  b.setInsertionPointAfter(fwd);
  auto bwd = func::FuncOp::create(b, primal.getLoc(), base + "_bwd",
                                  b.getFunctionType(primal.getResultTypes(), {}));
  bwd.addEntryBlock();
  transpose(fwd, bwd);
  finish(fwd, bwd);
  if (compose)
    emitVjpFunctions(fwd, bwd);
  return ForwardBackward{fwd, bwd};
}

} // namespace

FailureOr<ForwardBackward> mlir::cotangent::differentiateFunction(func::FuncOp fn, bool compose) {
  return Differentiator(fn, compose).run();
}

namespace {

struct JxVjpPass : cotangent::impl::JxVjpPassBase<JxVjpPass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> targets;
    for (auto fn : module.getOps<func::FuncOp>()) {
      if (fn.isExternal() || isSplitHalf(fn))
        continue;
      if (function.empty() || fn.getSymName() == function)
        targets.push_back(fn);
    }
    if (!function.empty() && targets.empty()) {
      module.emitError() << "--jx-vjp: no function named '" << function << "'";
      return signalPassFailure();
    }
    for (func::FuncOp fn : targets)
      if (failed(differentiateFunction(fn, /*compose=*/true)))
        return signalPassFailure();
  }
};

} // namespace

//===- VjpControlFlow.cpp - VJP of jx.scan and jx.cond --------------------===//
//
// See VjpControlFlow.h for the scheme. Each region becomes a temporary
// private function, is split by the same code as a whole function, and the
// halves' bodies are cloned into the new region ops; the temporary functions
// are erased when the op's VJP is destroyed.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/VjpControlFlow.h"
#include "passes/autodiff/JxBuilder.h"
#include "passes/autodiff/RegionSplit.h"
#include "dialects/jx/JxSplit.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

ControlFlowVjp::~ControlFlowVjp() = default;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

//===----------------------------------------------------------------------===//
// scan
//===----------------------------------------------------------------------===//

class ScanVjp final : public ControlFlowVjp {
public:
  ScanVjp(ScanOp scan, SplitRegionFn split) : scan(scan), split(std::move(split)) {}
  ~ScanVjp() override { eraseSplit(body); }

  FailureOr<SmallVector<Value>> linearize(OpBuilder &b,
                                          SmallVectorImpl<Value> &residuals) override;
  SmallVector<Value> transpose(OpBuilder &b, ValueRange residuals, ArrayRef<Value> cts) override;
  StringRef residualMemoryKind(unsigned index) const override { return memoryKinds[index]; }

private:
  /// Where each body residual comes from in the loop's terms.
  enum class Kind { Invariant, Stacked };
  struct Slot {
    Kind kind;
    unsigned index; // into the invariant or the stacked residuals
  };

  Value hoist(Value v, OpBuilder &b, IRMapping &outside);

  ScanOp scan;
  SplitRegionFn split;
  ForwardBackward body;
  SmallVector<Slot> slots;
  unsigned numInvariant = 0, numStacked = 0;
  SmallVector<StringRef> memoryKinds; // per residual, invariant ones first
};

/// Clones the loop-invariant computation of `v` out of the loop, at `b`.
Value ScanVjp::hoist(Value v, OpBuilder &b, IRMapping &outside) {
  if (Value done = outside.lookupOrNull(v))
    return done;
  Operation *def = v.getDefiningOp();
  for (Value operand : def->getOperands())
    hoist(operand, b, outside);
  stripRematScopes(b.clone(*def, outside));
  return outside.lookup(v);
}

FailureOr<SmallVector<Value>> ScanVjp::linearize(OpBuilder &b, SmallVectorImpl<Value> &residuals) {
  FailureOr<ForwardBackward> halves =
      splitRegionAsFunction(scan, scan.getBody(), "scan_body", split);
  if (failed(halves))
    return failure();
  body = *halves;

  Block &fb = body.fwd.getBody().front();
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  int64_t length = scan.getLength();
  // Values of the body computed from its consts (and constants) alone.
  llvm::DenseSet<Value> invariant(fb.getArguments().begin(),
                                  fb.getArguments().begin() + numConsts);
  for (Operation &op : fb.without_terminator())
    if (isMemoryEffectFree(&op) &&
        llvm::all_of(op.getOperands(), [&](Value v) { return invariant.contains(v); }))
      invariant.insert(op.result_begin(), op.result_end());

  IRMapping outside;
  for (unsigned i = 0; i < numConsts; ++i)
    outside.map(fb.getArgument(i), scan.getOperand(i));
  SmallVector<Value> invariants, stackedOuter; // stacked: an xs operand, or null (yielded)
  SmallVector<Value> yieldedInner;             // body values stacked as extra ys
  // An offloaded body residual is offloaded stacked; values the loop does
  // not compute (its operands) stay where they are.
  SmallVector<StringRef> invariantKinds, stackedKinds;
  for (auto [k, r] : llvm::enumerate(residualsOf(body.fwd))) {
    auto arg = dyn_cast<BlockArgument>(r);
    StringRef kind = arg ? "" : getArgMemoryKind(body.bwd, k);
    if (invariant.contains(r)) {
      slots.push_back({Kind::Invariant, static_cast<unsigned>(invariants.size())});
      invariants.push_back(hoist(r, b, outside));
      invariantKinds.push_back(kind);
    } else if (arg && arg.getArgNumber() >= numConsts + numCarry) {
      // A slice of an xs operand: the operand already holds every slice.
      slots.push_back({Kind::Stacked, static_cast<unsigned>(stackedOuter.size())});
      stackedOuter.push_back(scan.getOperand(arg.getArgNumber()));
      stackedKinds.push_back("");
    } else {
      slots.push_back({Kind::Stacked, static_cast<unsigned>(stackedOuter.size())});
      stackedOuter.push_back(Value());
      yieldedInner.push_back(r);
      stackedKinds.push_back(kind);
    }
  }
  memoryKinds = invariantKinds;
  memoryKinds.append(stackedKinds);
  numInvariant = invariants.size();
  numStacked = stackedOuter.size();

  SmallVector<Type> resultTypes(scan.getResultTypes());
  for (Value v : yieldedInner)
    resultTypes.push_back(stackedType(v.getType(), length));
  auto forward = ScanOp::create(b, scan.getLoc(), resultTypes, scan.getOperands(), length,
                                numConsts, numCarry, scan.getReverse(),
                                /*checkpoint_lengths=*/nullptr, /*snapshots=*/nullptr);
  forward->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  Block *block = b.createBlock(&forward.getBody(), {}, fb.getArgumentTypes(),
                               SmallVector<Location>(fb.getNumArguments(), scan.getLoc()));
  IRMapping inner;
  inner.map(fb.getArguments(), block->getArguments());
  OpBuilder ib = OpBuilder::atBlockEnd(block);
  SmallVector<Value> outs = inlineBody(body.fwd, ib, inner);
  outs.resize(numPrimalResults(body.fwd));
  for (Value v : yieldedInner)
    outs.push_back(inner.lookupOrDefault(v));
  YieldOp::create(ib, scan.getLoc(), outs);
  b.setInsertionPointAfter(forward);

  residuals.append(invariants);
  unsigned nextExtra = scan.getNumResults();
  for (Value v : stackedOuter)
    residuals.push_back(v ? v : forward.getResult(nextExtra++));
  return SmallVector<Value>(forward.getResults().take_front(scan.getNumResults()));
}

SmallVector<Value> ScanVjp::transpose(OpBuilder &b, ValueRange residuals, ArrayRef<Value> cts) {
  JxBuilder jb(b, scan.getLoc());
  unsigned numConsts = scan.getNumConsts(), numCarry = scan.getNumCarry();
  unsigned numXs = scan.getXs().size(), numYs = scan.getNumResults() - numCarry;
  int64_t length = scan.getLength();

  // Operands: consts = invariant residuals; carry = (carry cts, const-ct
  // accumulators); xs = (stacked residuals, ys cts).
  SmallVector<Value> operands(residuals.take_front(numInvariant));
  for (unsigned i = 0; i < numCarry; ++i)
    operands.push_back(jb.orZeros(cts[i], scan.getResult(i).getType()));
  for (Value c : scan.getConsts())
    operands.push_back(jb.zeros(c.getType()));
  operands.append(residuals.begin() + numInvariant, residuals.end());
  for (unsigned j = 0; j < numYs; ++j)
    operands.push_back(jb.orZeros(cts[numCarry + j], scan.getResult(numCarry + j).getType()));

  SmallVector<Type> resultTypes;
  for (Value v : scan.getInitCarry())
    resultTypes.push_back(v.getType());
  for (Value v : scan.getConsts())
    resultTypes.push_back(v.getType());
  for (Value v : scan.getXs())
    resultTypes.push_back(v.getType());
  auto backward = ScanOp::create(b, scan.getLoc(), resultTypes, operands, length, numInvariant,
                                 numCarry + numConsts, !scan.getReverse(),
                                 /*checkpoint_lengths=*/nullptr, /*snapshots=*/nullptr);

  SmallVector<Type> argTypes;
  for (Value v : ArrayRef<Value>(operands).take_front(numInvariant + numCarry + numConsts))
    argTypes.push_back(v.getType());
  for (Value v : ArrayRef<Value>(operands).drop_front(numInvariant + numCarry + numConsts)) {
    auto t = tensorType(v);
    argTypes.push_back(t.clone(t.getShape().drop_front()));
  }
  Block *block = b.createBlock(&backward.getBody(), {}, argTypes,
                               SmallVector<Location>(argTypes.size(), scan.getLoc()));
  auto args = block->getArguments();
  auto ctCarry = args.slice(numInvariant, numCarry);
  auto acc = args.slice(numInvariant + numCarry, numConsts);
  auto stackedSlices = args.slice(numInvariant + numCarry + numConsts, numStacked);
  auto ctY = args.take_back(numYs);

  // The body's backward takes (residuals..., carry cts..., y cts...) and
  // returns (const cts..., carry cts..., x cts...).
  Block &bb = body.bwd.getBody().front();
  IRMapping inner;
  for (auto [k, slot] : llvm::enumerate(slots))
    inner.map(bb.getArgument(k), slot.kind == Kind::Invariant ? args[slot.index]
                                                               : stackedSlices[slot.index]);
  for (unsigned i = 0; i < numCarry; ++i)
    inner.map(bb.getArgument(slots.size() + i), ctCarry[i]);
  for (unsigned j = 0; j < numYs; ++j)
    inner.map(bb.getArgument(slots.size() + numCarry + j), ctY[j]);
  OpBuilder ib = OpBuilder::atBlockEnd(block);
  JxBuilder ijb(ib, scan.getLoc());
  SmallVector<Value> grads = inlineBody(body.bwd, ib, inner);
  SmallVector<Value> outs(grads.begin() + numConsts, grads.begin() + numConsts + numCarry);
  for (unsigned i = 0; i < numConsts; ++i)
    outs.push_back(ijb.add(acc[i], grads[i]));
  outs.append(grads.begin() + numConsts + numCarry, grads.end());
  YieldOp::create(ib, scan.getLoc(), outs);
  b.setInsertionPointAfter(backward);

  // Operand order of the primal scan: consts, init carry, xs.
  SmallVector<Value> result;
  for (unsigned i = 0; i < numConsts; ++i)
    result.push_back(backward.getResult(numCarry + i));
  for (unsigned i = 0; i < numCarry; ++i)
    result.push_back(backward.getResult(i));
  for (unsigned j = 0; j < numXs; ++j)
    result.push_back(backward.getResult(numCarry + numConsts + j));
  return result;
}

//===----------------------------------------------------------------------===//
// cond
//===----------------------------------------------------------------------===//

class CondVjp final : public ControlFlowVjp {
public:
  CondVjp(CondOp cond, SplitRegionFn split) : cond(cond), split(std::move(split)) {}
  ~CondVjp() override {
    for (ForwardBackward &s : branches)
      eraseSplit(s);
  }

  FailureOr<SmallVector<Value>> linearize(OpBuilder &b,
                                          SmallVectorImpl<Value> &residuals) override;
  SmallVector<Value> transpose(OpBuilder &b, ValueRange residuals, ArrayRef<Value> cts) override;

private:
  CondOp cond;
  SplitRegionFn split;
  SmallVector<ForwardBackward> branches;
  /// Per branch, the slot of each of its residuals. Branches share slots by
  /// type: the k-th residual of type T of every branch goes to T's k-th slot.
  SmallVector<SmallVector<unsigned>> slotOf;
  SmallVector<Type> slotTypes;
};

FailureOr<SmallVector<Value>> CondVjp::linearize(OpBuilder &b, SmallVectorImpl<Value> &residuals) {
  llvm::DenseMap<Type, SmallVector<unsigned>> slotsOfType;
  for (Region &region : cond.getBranches()) {
    FailureOr<ForwardBackward> halves = splitRegionAsFunction(cond, region, "cond_branch", split);
    if (failed(halves))
      return failure();
    branches.push_back(*halves);
    llvm::DenseMap<Type, unsigned> used;
    SmallVector<unsigned> &slots = slotOf.emplace_back();
    for (Value r : residualsOf(halves->fwd)) {
      SmallVector<unsigned> &ofType = slotsOfType[r.getType()];
      unsigned k = used[r.getType()]++;
      if (k == ofType.size()) {
        ofType.push_back(slotTypes.size());
        slotTypes.push_back(r.getType());
      }
      slots.push_back(ofType[k]);
    }
  }
  SmallVector<Type> resultTypes(cond.getResultTypes());
  resultTypes.append(slotTypes);
  auto forward = CondOp::create(b, cond.getLoc(), resultTypes, cond.getIndex(), cond.getInputs(),
                                cond.getBranches().size());
  for (auto [i, halves] : llvm::enumerate(branches)) {
    Block *block = b.createBlock(&forward.getBranches()[i], {}, cond.getInputs().getTypes(),
                                 SmallVector<Location>(cond.getInputs().size(), cond.getLoc()));
    IRMapping map;
    map.map(halves.fwd.getArguments(), block->getArguments());
    OpBuilder ib = OpBuilder::atBlockEnd(block);
    JxBuilder jb(ib, cond.getLoc());
    SmallVector<Value> outs = inlineBody(halves.fwd, ib, map);
    unsigned numPrimal = numPrimalResults(halves.fwd);
    // Own residuals in their slots, zeros in the slots only other branches use.
    SmallVector<Value> slots(slotTypes.size());
    for (auto [k, slot] : llvm::enumerate(slotOf[i]))
      slots[slot] = outs[numPrimal + k];
    outs.resize(numPrimal);
    for (auto [slot, type] : llvm::zip(slots, slotTypes))
      outs.push_back(slot ? slot : jb.zeros(type));
    YieldOp::create(ib, cond.getLoc(), outs);
  }
  b.setInsertionPointAfter(forward);
  residuals.push_back(cond.getIndex());
  for (unsigned s = 0; s < slotTypes.size(); ++s)
    residuals.push_back(forward.getResult(cond.getNumResults() + s));
  return SmallVector<Value>(forward.getResults().take_front(cond.getNumResults()));
}

SmallVector<Value> CondVjp::transpose(OpBuilder &b, ValueRange residuals, ArrayRef<Value> cts) {
  JxBuilder jb(b, cond.getLoc());
  SmallVector<Value> inputs(residuals.drop_front());
  for (auto [ct, result] : llvm::zip(cts, cond.getResults()))
    inputs.push_back(jb.orZeros(ct, result.getType()));
  auto backward = CondOp::create(b, cond.getLoc(), cond.getInputs().getTypes(), residuals.front(),
                                 inputs, cond.getBranches().size());
  for (auto [i, halves] : llvm::enumerate(branches)) {
    Block *block = b.createBlock(&backward.getBranches()[i], {}, ValueRange(inputs).getTypes(),
                                 SmallVector<Location>(inputs.size(), cond.getLoc()));
    Block &bb = halves.bwd.getBody().front();
    unsigned numOwn = slotOf[i].size();
    IRMapping map;
    for (auto [k, slot] : llvm::enumerate(slotOf[i]))
      map.map(bb.getArgument(k), block->getArgument(slot));
    for (unsigned j = 0; j < cts.size(); ++j)
      map.map(bb.getArgument(numOwn + j), block->getArgument(slotTypes.size() + j));
    OpBuilder ib = OpBuilder::atBlockEnd(block);
    YieldOp::create(ib, cond.getLoc(), inlineBody(halves.bwd, ib, map));
  }
  b.setInsertionPointAfter(backward);
  SmallVector<Value> result{Value()}; // the index has no cotangent
  result.append(backward.getResults().begin(), backward.getResults().end());
  return result;
}

} // namespace

std::unique_ptr<ControlFlowVjp> mlir::cotangent::makeControlFlowVjp(Operation *op,
                                                                   SplitRegionFn split) {
  if (auto scan = dyn_cast<ScanOp>(op); scan && scan.getSnapshots())
    return makeRevolveScanVjp(scan, std::move(split));
  if (auto scan = dyn_cast<ScanOp>(op))
    return std::make_unique<ScanVjp>(scan, std::move(split));
  if (auto cond = dyn_cast<CondOp>(op))
    return std::make_unique<CondVjp>(cond, std::move(split));
  return nullptr;
}

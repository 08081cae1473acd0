//===- VjpScanRevolve.cpp - VJP of a scan under a binomial schedule -------===//
//
// scan(snapshots = s) is differentiated with the schedule of
// passes/remat/RevolveSchedule.h:
//
//  - forward: one scan running the body's forward half (primal and
//    residuals) that, each iteration, writes its incoming carry into the
//    iteration's snapshot slot of an [s+1, ...] buffer per carry (slot s is
//    scratch for iterations the sweep does not save, so the write needs no
//    branch). Its final carry also holds the last iteration's residuals:
//    the tape of the iteration reversed first.
//  - backward: the last iteration's backward half, then a jx.scan over the
//    rest of the schedule, one action per trip, encoded as one i32 (kind +
//    4 * argument) in a constant table and dispatched by a jx.cond: advance
//    one iteration (the forward half, its residuals dropped), save or
//    restore a snapshot, or reverse the current iteration (forward half,
//    then backward half; its x cotangent is written at its index, its
//    consts' cotangents accumulated). A scan, not a while: its trip count is
//    static, so the loop bufferizes in place and the memory plan predicts it.
//
// Consts, xs and the ys' cotangents are the backward scan's consts: read
// where they are, never copied per trip.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/JxBuilder.h"
#include "passes/autodiff/RegionSplit.h"
#include "passes/autodiff/VjpControlFlow.h"
#include "passes/SplitRewrite.h"
#include "passes/remat/RevolveSchedule.h"

#include "mlir/IR/BuiltinTypes.h"

#include <limits>

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

/// Schedules beyond this many trips are refused (the table is a constant).
constexpr int64_t kMaxActions = int64_t{1} << 22;

/// The backward's table: one code per trip, kind + 4 * argument, with the
/// argument of Restore slot + snapshots * position and of Save the slot.
enum : int32_t { kCodeKinds = 4 };

RankedTensorType scalarI32(MLIRContext *ctx) {
  return RankedTensorType::get({}, IntegerType::get(ctx, 32));
}

Value i32(JxBuilder &jb, int64_t value) {
  return jb.splat(scalarI32(jb.builder().getContext()), static_cast<double>(value));
}

/// The indices [index, 0, ...] of a rank-`rank` tensor.
SmallVector<Value> leadingIndex(JxBuilder &jb, Value index, int64_t rank) {
  SmallVector<Value> indices{index};
  for (int64_t d = 1; d < rank; ++d)
    indices.push_back(i32(jb, 0));
  return indices;
}

/// stacked[index] (one slice along the leading axis).
Value sliceAt(JxBuilder &jb, Value stacked, Value index) {
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<int64_t> sizes(type.getShape());
  sizes[0] = 1;
  Value slice = DynamicSliceOp::create(jb.builder(), jb.getLoc(), stacked,
                                       leadingIndex(jb, index, type.getRank()),
                                       jb.builder().getDenseI64ArrayAttr(sizes));
  return jb.reshape(slice, type.clone(type.getShape().drop_front()));
}

/// stacked with stacked[index] = update.
Value writeAt(JxBuilder &jb, Value stacked, Value update, Value index) {
  auto type = cast<RankedTensorType>(stacked.getType());
  SmallVector<int64_t> shape(type.getShape());
  shape[0] = 1;
  Value row = jb.reshape(update, type.clone(shape));
  return DynamicUpdateSliceOp::create(jb.builder(), jb.getLoc(), type, stacked, row,
                                      leadingIndex(jb, index, type.getRank()));
}

Value i32Table(JxBuilder &jb, ArrayRef<int32_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    IntegerType::get(jb.builder().getContext(), 32));
  return ConstantOp::create(jb.builder(), jb.getLoc(), DenseIntElementsAttr::get(type, values));
}

/// A block for `region` with arguments of `types`.
Block *createBlock(OpBuilder &b, Region &region, TypeRange types, Location loc) {
  OpBuilder::InsertionGuard guard(b);
  return b.createBlock(&region, {}, types, SmallVector<Location>(types.size(), loc));
}

/// Consecutive slices of a list of values, named by their sizes.
class Fields {
public:
  explicit Fields(ValueRange values) : values(values) {}
  ValueRange next(size_t n) {
    ValueRange r = values.slice(pos, n);
    pos += n;
    return r;
  }
  Value one() { return next(1).front(); }

private:
  ValueRange values;
  size_t pos = 0;
};

class RevolveScanVjp final : public ControlFlowVjp {
public:
  RevolveScanVjp(ScanOp scan, SplitRegionFn split)
      : scan(scan), split(std::move(split)), numConsts(scan.getNumConsts()),
        numCarry(scan.getNumCarry()), numXs(scan.getXs().size()),
        numYs(scan.getNumResults() - scan.getNumCarry()), length(scan.getLength()),
        snapshots(*scan.getSnapshots()) {}
  ~RevolveScanVjp() override { eraseSplit(body); }

  FailureOr<SmallVector<Value>> linearize(OpBuilder &b,
                                          SmallVectorImpl<Value> &residuals) override;
  SmallVector<Value> transpose(OpBuilder &b, ValueRange residuals, ArrayRef<Value> cts) override;

private:
  /// Where a residual of the body's forward half is found for the last
  /// iteration: a const, that iteration's x, or the forward scan's tape.
  struct Source {
    enum Kind { Const, X, Tape } kind;
    unsigned index;
  };

  /// The iteration's index into xs (and ys): the scan may run in reverse.
  Value xsIndex(JxBuilder &jb, Value position) {
    return scan.getReverse() ? jb.sub(i32(jb, length - 1), position) : position;
  }
  /// The forward half on (consts, carry, x): (new carry, y, residuals).
  SmallVector<Value> forwardHalf(OpBuilder &b, ValueRange consts, ValueRange carry,
                                 ValueRange x);
  /// The backward half: (consts' cts, carry's ct, x's ct).
  SmallVector<Value> backwardHalf(OpBuilder &b, ValueRange residuals, ValueRange ctCarry,
                                  ValueRange ctY);
  /// The jx.cond body of one action of the backward loop.
  void buildAction(OpBuilder &b, RevolveAction::Kind kind, Block *block);

  ScanOp scan;
  SplitRegionFn split;
  ForwardBackward body;
  unsigned numConsts, numCarry, numXs, numYs;
  int64_t length, snapshots;
  SmallVector<Source> sources;
  SmallVector<Type> tapeTypes;
  /// The backward loop's table (after the first reverse), Advance(n) as n trips.
  SmallVector<int32_t> codes;
};

SmallVector<Value> RevolveScanVjp::forwardHalf(OpBuilder &b, ValueRange consts, ValueRange carry,
                                               ValueRange x) {
  Block &fb = body.fwd.getBody().front();
  IRMapping map;
  map.map(fb.getArguments().take_front(numConsts), consts);
  map.map(fb.getArguments().slice(numConsts, numCarry), carry);
  map.map(fb.getArguments().drop_front(numConsts + numCarry), x);
  return inlineBody(body.fwd, b, map);
}

SmallVector<Value> RevolveScanVjp::backwardHalf(OpBuilder &b, ValueRange residuals,
                                                ValueRange ctCarry, ValueRange ctY) {
  Block &bb = body.bwd.getBody().front();
  IRMapping map;
  map.map(bb.getArguments().take_front(residuals.size()), residuals);
  map.map(bb.getArguments().slice(residuals.size(), numCarry), ctCarry);
  map.map(bb.getArguments().drop_front(residuals.size() + numCarry), ctY);
  return inlineBody(body.bwd, b, map);
}

FailureOr<SmallVector<Value>> RevolveScanVjp::linearize(OpBuilder &b,
                                                        SmallVectorImpl<Value> &residuals) {
  Location loc = scan.getLoc();
  std::optional<SmallVector<RevolveAction>> schedule =
      revolveSchedule(length, snapshots, kMaxActions);
  if (!schedule)
    return scan.emitOpError() << "snapshots = " << snapshots << ": the binomial schedule of "
                              << length << " iterations takes more than " << kMaxActions
                              << " actions; give more snapshots";
  ArrayRef<RevolveAction> actions = *schedule;
  size_t firstReverse = llvm::find_if(actions, [](const RevolveAction &a) {
                   return a.kind == RevolveAction::Reverse;
                 }) - actions.begin();
  for (const RevolveAction &a : actions.drop_front(firstReverse + 1)) {
    if (a.kind == RevolveAction::Advance)
      codes.append(a.count, RevolveAction::Advance);
    else if (a.kind == RevolveAction::Save)
      codes.push_back(RevolveAction::Save + kCodeKinds * a.slot);
    else if (a.kind == RevolveAction::Restore)
      codes.push_back(RevolveAction::Restore + kCodeKinds * (a.slot + snapshots * a.count));
    else
      codes.push_back(RevolveAction::Reverse);
    if (static_cast<int64_t>(codes.size()) > kMaxActions)
      break;
  }
  if (static_cast<int64_t>(codes.size()) > kMaxActions ||
      kCodeKinds * snapshots * length > std::numeric_limits<int32_t>::max())
    return scan.emitOpError() << "snapshots = " << snapshots << ": the binomial schedule of "
                              << length << " iterations takes more than " << kMaxActions
                              << " actions; give more snapshots";

  FailureOr<ForwardBackward> halves =
      splitRegionAsFunction(scan, scan.getBody(), "scan_body", split);
  if (failed(halves))
    return failure();
  body = *halves;

  for (Value r : residualsOf(body.fwd)) {
    auto arg = dyn_cast<BlockArgument>(r);
    if (arg && arg.getArgNumber() < numConsts) {
      sources.push_back({Source::Const, arg.getArgNumber()});
    } else if (arg && arg.getArgNumber() >= numConsts + numCarry) {
      sources.push_back({Source::X, arg.getArgNumber() - numConsts - numCarry});
    } else {
      sources.push_back({Source::Tape, static_cast<unsigned>(tapeTypes.size())});
      tapeTypes.push_back(r.getType());
    }
  }

  // The sweep's slot for each iteration's incoming carry, in xs order.
  SmallVector<int32_t> slotOf(length, static_cast<int32_t>(snapshots));
  int64_t position = 0;
  for (const RevolveAction &a : actions.take_front(firstReverse)) {
    if (a.kind == RevolveAction::Advance)
      position += a.count;
    else if (a.kind == RevolveAction::Save)
      slotOf[scan.getReverse() ? length - 1 - position : position] = a.slot;
  }

  JxBuilder jb(b, loc);
  ValueRange consts = scan.getConsts(), init = scan.getInitCarry(), xs = scan.getXs();
  SmallVector<Value> operands(consts);
  operands.append(init.begin(), init.end());
  SmallVector<Type> snapTypes;
  for (Value c : init) {
    snapTypes.push_back(stackedType(c.getType(), snapshots + 1));
    operands.push_back(jb.zeros(snapTypes.back()));
  }
  for (Type t : tapeTypes)
    operands.push_back(jb.zeros(t));
  operands.append(xs.begin(), xs.end());
  operands.push_back(i32Table(jb, slotOf));

  SmallVector<Type> resultTypes(init.getTypes());
  resultTypes.append(snapTypes);
  resultTypes.append(tapeTypes);
  for (Value y : scan.getResults().drop_front(numCarry))
    resultTypes.push_back(y.getType());
  unsigned numLoopCarry = 2 * numCarry + tapeTypes.size();
  auto forward = ScanOp::create(b, loc, resultTypes, operands, length, numConsts, numLoopCarry,
                                scan.getReverse(), /*checkpoint_lengths=*/nullptr,
                                /*snapshots=*/nullptr);
  forward->setDiscardableAttrs(scan->getDiscardableAttrDictionary());
  SmallVector<Type> argTypes(TypeRange(ValueRange(operands).take_front(numConsts + numLoopCarry)));
  for (Value x : xs)
    argTypes.push_back(cast<RankedTensorType>(x.getType()).clone(
        cast<RankedTensorType>(x.getType()).getShape().drop_front()));
  argTypes.push_back(scalarI32(b.getContext()));
  Block *block = createBlock(b, forward.getBody(), argTypes, loc);
  {
    OpBuilder ib = OpBuilder::atBlockEnd(block);
    JxBuilder ijb(ib, loc);
    Fields args(block->getArguments());
    ValueRange cs = args.next(numConsts), carry = args.next(numCarry),
               snaps = args.next(numCarry);
    args.next(tapeTypes.size());
    ValueRange x = args.next(numXs);
    Value slot = args.one();
    SmallVector<Value> outs = forwardHalf(ib, cs, carry, x);
    SmallVector<Value> yields(ArrayRef<Value>(outs).take_front(numCarry));
    for (auto [s, c] : llvm::zip(snaps, carry))
      yields.push_back(writeAt(ijb, s, c, slot));
    for (auto [source, r] : llvm::zip(sources, ArrayRef<Value>(outs).drop_front(numCarry + numYs)))
      if (source.kind == Source::Tape)
        yields.push_back(r);
    yields.append(outs.begin() + numCarry, outs.begin() + numCarry + numYs);
    YieldOp::create(ib, loc, yields);
  }
  b.setInsertionPointAfter(forward);

  Fields results(forward.getResults());
  SmallVector<Value> primal(results.next(numCarry));
  ValueRange snaps = results.next(numCarry), tape = results.next(tapeTypes.size());
  ValueRange ys = results.next(numYs);
  primal.append(ys.begin(), ys.end());
  residuals.append(snaps.begin(), snaps.end());
  residuals.append(tape.begin(), tape.end());
  residuals.append(consts.begin(), consts.end());
  residuals.append(xs.begin(), xs.end());
  return primal;
}

/// The backward loop's state: what an action may change (the scan's
/// carry, and the jx.cond's results) -- position, carry, snapshots, carry's
/// ct, consts' cts, xs' cts -- and what only passes through (the scan's
/// consts): consts, xs, ys' cts.
struct LoopState {
  Value position;
  ValueRange carry, snaps, ctCarry, ctConsts, ctXs;
  ValueRange consts, xs, ctYs;

  static unsigned numChanging(unsigned numConsts, unsigned numCarry, unsigned numXs) {
    return 1 + 3 * numCarry + numConsts + numXs;
  }
  /// From (changing..., passing...).
  static LoopState read(ValueRange changing, ValueRange passing, unsigned numConsts,
                        unsigned numCarry, unsigned numXs, unsigned numYs) {
    Fields c(changing), p(passing);
    LoopState s;
    s.position = c.one();
    s.carry = c.next(numCarry);
    s.snaps = c.next(numCarry);
    s.ctCarry = c.next(numCarry);
    s.ctConsts = c.next(numConsts);
    s.ctXs = c.next(numXs);
    if (!passing.empty()) {
      s.consts = p.next(numConsts);
      s.xs = p.next(numXs);
      s.ctYs = p.next(numYs);
    }
    return s;
  }
};

void RevolveScanVjp::buildAction(OpBuilder &b, RevolveAction::Kind kind, Block *block) {
  Location loc = scan.getLoc();
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(block);
  JxBuilder jb(b, loc);
  Value argument = block->getArgument(0);
  unsigned changingCount = LoopState::numChanging(numConsts, numCarry, numXs);
  LoopState s = LoopState::read(block->getArguments().slice(1, changingCount),
                                block->getArguments().drop_front(1 + changingCount), numConsts,
                                numCarry, numXs, numYs);
  Value position = s.position;
  SmallVector<Value> carry(s.carry), snaps(s.snaps), ctCarry(s.ctCarry), ctConsts(s.ctConsts),
      ctXs(s.ctXs);
  auto xsAt = [&](Value index) {
    return llvm::map_to_vector(s.xs, [&](Value v) { return sliceAt(jb, v, index); });
  };

  switch (kind) {
  case RevolveAction::Advance: {
    SmallVector<Value> outs = forwardHalf(b, s.consts, carry, xsAt(xsIndex(jb, position)));
    carry.assign(outs.begin(), outs.begin() + numCarry);
    position = jb.add(position, i32(jb, 1));
    break;
  }
  case RevolveAction::Save:
    for (auto [snap, c] : llvm::zip(snaps, carry))
      snap = writeAt(jb, snap, c, argument);
    break;
  case RevolveAction::Restore: {
    Value slot = jb.create<RemOp>(argument, i32(jb, snapshots));
    for (auto [c, snap] : llvm::zip(carry, snaps))
      c = sliceAt(jb, snap, slot);
    position = jb.create<DivOp>(argument, i32(jb, snapshots));
    break;
  }
  case RevolveAction::Reverse: {
    Value index = xsIndex(jb, position);
    SmallVector<Value> outs = forwardHalf(b, s.consts, carry, xsAt(index));
    SmallVector<Value> ctY =
        llvm::map_to_vector(s.ctYs, [&](Value v) { return sliceAt(jb, v, index); });
    SmallVector<Value> grads =
        backwardHalf(b, ArrayRef<Value>(outs).drop_front(numCarry + numYs), ctCarry, ctY);
    Fields g(grads);
    for (auto [acc, ct] : llvm::zip(ctConsts, g.next(numConsts)))
      acc = jb.add(acc, ct);
    ValueRange newCtCarry = g.next(numCarry);
    ctCarry.assign(newCtCarry.begin(), newCtCarry.end());
    for (auto [buffer, ct] : llvm::zip(ctXs, g.next(numXs)))
      buffer = writeAt(jb, buffer, ct, index);
    break;
  }
  }
  SmallVector<Value> yields{position};
  for (ArrayRef<Value> r : {ArrayRef<Value>(carry), ArrayRef<Value>(snaps),
                            ArrayRef<Value>(ctCarry), ArrayRef<Value>(ctConsts),
                            ArrayRef<Value>(ctXs)})
    yields.append(r.begin(), r.end());
  YieldOp::create(b, loc, yields);
  eraseDeadOps(*block);
}

SmallVector<Value> RevolveScanVjp::transpose(OpBuilder &b, ValueRange residuals,
                                             ArrayRef<Value> cts) {
  Location loc = scan.getLoc();
  JxBuilder jb(b, loc);
  Fields saved(residuals);
  ValueRange snaps = saved.next(numCarry), tape = saved.next(tapeTypes.size()),
             consts = saved.next(numConsts), xs = saved.next(numXs);
  SmallVector<Value> ctCarry, ctYs;
  for (unsigned i = 0; i < numCarry; ++i)
    ctCarry.push_back(jb.orZeros(cts[i], scan.getResult(i).getType()));
  for (unsigned j = 0; j < numYs; ++j)
    ctYs.push_back(jb.orZeros(cts[numCarry + j], scan.getResult(numCarry + j).getType()));

  // The last iteration: its tape is in the forward's final carry.
  Value last = xsIndex(jb, i32(jb, length - 1));
  SmallVector<Value> tapeResiduals;
  for (Source source : sources)
    tapeResiduals.push_back(source.kind == Source::Const ? consts[source.index]
                            : source.kind == Source::X   ? sliceAt(jb, xs[source.index], last)
                                                         : tape[source.index]);
  SmallVector<Value> ctY = llvm::map_to_vector(ctYs, [&](Value v) { return sliceAt(jb, v, last); });
  SmallVector<Value> grads = backwardHalf(b, tapeResiduals, ctCarry, ctY);
  Fields g(grads);
  SmallVector<Value> ctConsts(g.next(numConsts));
  ValueRange lastCtCarry = g.next(numCarry);
  ctCarry.assign(lastCtCarry.begin(), lastCtCarry.end());
  SmallVector<Value> ctXs;
  for (auto [x, ct] : llvm::zip(xs, g.next(numXs)))
    ctXs.push_back(writeAt(jb, jb.zeros(x.getType()), ct, last));

  auto inPrimalOrder = [](ValueRange ctC, ValueRange ctK, ValueRange ctX) {
    SmallVector<Value> r(ctC);
    r.append(ctK.begin(), ctK.end());
    r.append(ctX.begin(), ctX.end());
    return r;
  };
  if (codes.empty())
    return inPrimalOrder(ctConsts, ctCarry, ctXs);

  // The rest of the schedule, one trip per code.
  SmallVector<Value> passing(consts);
  passing.append(xs.begin(), xs.end());
  passing.append(ctYs.begin(), ctYs.end());
  SmallVector<Value> changing{i32(jb, 0)};
  for (Value c : scan.getInitCarry())
    changing.push_back(jb.zeros(c.getType()));
  for (ValueRange r : {snaps, ValueRange(ctCarry), ValueRange(ctConsts), ValueRange(ctXs)})
    changing.append(r.begin(), r.end());
  Value table = i32Table(jb, codes);
  SmallVector<Value> operands(passing);
  operands.append(changing);
  operands.push_back(table);
  auto loop = ScanOp::create(b, loc, ValueRange(changing).getTypes(), operands,
                             static_cast<int64_t>(codes.size()), passing.size(), changing.size(),
                             /*reverse=*/false, /*checkpoint_lengths=*/nullptr,
                             /*snapshots=*/nullptr);
  SmallVector<Type> argTypes(ValueRange(passing).getTypes());
  argTypes.append(ValueRange(changing).getTypes().begin(), ValueRange(changing).getTypes().end());
  argTypes.push_back(scalarI32(b.getContext()));
  Block *trip = createBlock(b, loop.getBody(), argTypes, loc);
  {
    OpBuilder tb = OpBuilder::atBlockEnd(trip);
    JxBuilder tjb(tb, loc);
    Fields args(trip->getArguments());
    ValueRange passingArgs = args.next(passing.size()), changingArgs = args.next(changing.size());
    Value code = args.one();
    Value kind = tjb.create<RemOp>(code, i32(tjb, kCodeKinds));
    SmallVector<Value> inputs{tjb.create<DivOp>(code, i32(tjb, kCodeKinds))};
    inputs.append(changingArgs.begin(), changingArgs.end());
    inputs.append(passingArgs.begin(), passingArgs.end());
    auto dispatch = CondOp::create(tb, loc, changingArgs.getTypes(), kind, inputs, kCodeKinds);
    for (auto k : {RevolveAction::Advance, RevolveAction::Save, RevolveAction::Restore,
                   RevolveAction::Reverse})
      buildAction(tb, k,
                  createBlock(tb, dispatch.getBranches()[k], ValueRange(inputs).getTypes(), loc));
    YieldOp::create(tb, loc, dispatch.getResults());
  }
  b.setInsertionPointAfter(loop);
  LoopState end = LoopState::read(loop.getResults(), ValueRange(), numConsts, numCarry, numXs, 0);
  return inPrimalOrder(end.ctConsts, end.ctCarry, end.ctXs);
}

} // namespace

std::unique_ptr<ControlFlowVjp> mlir::cotangent::makeRevolveScanVjp(ScanOp scan,
                                                                   SplitRegionFn split) {
  return std::make_unique<RevolveScanVjp>(scan, std::move(split));
}

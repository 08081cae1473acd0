//===- VjpRulesStructural.cpp - VJP rules of shape, contraction, reduction ===//
//
// dot_general saves its operands (each operand's cotangent contracts the
// result cotangent with the other operand); shape ops are linear and save
// nothing; reduce_max/min save the mask of the elements chosen.
//
//===----------------------------------------------------------------------===//

#include "passes/autodiff/VjpRules.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

SmallVector<int64_t> iotaVector(int64_t from, int64_t to) {
  return llvm::to_vector(llvm::seq<int64_t>(from, to));
}

/// Dimensions of a rank-`rank` operand that are neither batch nor contracting.
SmallVector<int64_t> freeDims(int64_t rank, ArrayRef<int64_t> batch, ArrayRef<int64_t> contract) {
  llvm::SmallBitVector used(rank);
  for (int64_t d : batch)
    used.set(d);
  for (int64_t d : contract)
    used.set(d);
  SmallVector<int64_t> free;
  for (int64_t d = 0; d < rank; ++d)
    if (!used.test(d))
      free.push_back(d);
  return free;
}

/// The cotangent of one dot_general operand ("mine") from the result
/// cotangent and the other operand. The result's dimensions are
/// [batch, lhs free, rhs free]; contracting ct's "other free" dims with the
/// other operand's free dims gives, with ct on the left, [batch, my free, my
/// contracting (in the other operand's order)], or, with ct on the right,
/// [batch, my contracting, my free]. The order that is already my layout is
/// taken (a dense layer's weight gradient x^T g is the second), else a
/// transpose puts the first back in my layout.
Value dotTranspose(JxBuilder &b, Value ct, Value other, Type myType, ArrayRef<int64_t> myBatch,
                   ArrayRef<int64_t> myContract, ArrayRef<int64_t> otherBatch,
                   ArrayRef<int64_t> otherContract, bool mineIsLhs) {
  auto mine = cast<RankedTensorType>(myType);
  int64_t nb = myBatch.size();
  SmallVector<int64_t> myFree = freeDims(mine.getRank(), myBatch, myContract);
  SmallVector<int64_t> otherFree =
      freeDims(tensorType(other).getRank(), otherBatch, otherContract);
  int64_t ctOtherFreeStart = mineIsLhs ? nb + myFree.size() : nb;
  SmallVector<int64_t> ctContract = iotaVector(ctOtherFreeStart, ctOtherFreeStart + otherFree.size());
  SmallVector<int64_t> ctBatch = iotaVector(0, nb);
  // Position of each of my dimensions in either product.
  SmallVector<int64_t> sortedOtherContract(otherContract);
  llvm::sort(sortedOtherContract);
  SmallVector<int64_t> ctFirst(mine.getRank()), ctLast(mine.getRank());
  for (auto [i, d] : llvm::enumerate(myBatch))
    ctFirst[d] = ctLast[d] = i;
  for (auto [j, d] : llvm::enumerate(myFree)) {
    ctFirst[d] = nb + j;
    ctLast[d] = nb + myContract.size() + j;
  }
  for (auto [k, d] : llvm::enumerate(myContract)) {
    int64_t rank = llvm::find(sortedOtherContract, otherContract[k]) - sortedOtherContract.begin();
    ctFirst[d] = nb + myFree.size() + rank;
    ctLast[d] = nb + rank;
  }
  auto isIdentity = [](ArrayRef<int64_t> perm) {
    return llvm::equal(perm, llvm::seq<int64_t>(0, perm.size()));
  };
  OpBuilder &ob = b.builder();
  Type type = RankedTensorType::get(mine.getShape(), mine.getElementType());
  if (!isIdentity(ctFirst) && isIdentity(ctLast)) {
    Value dot = DotGeneralOp::create(ob, b.getLoc(), other, ct, ob.getDenseI64ArrayAttr(otherFree),
                                     ob.getDenseI64ArrayAttr(ctContract),
                                     ob.getDenseI64ArrayAttr(otherBatch),
                                     ob.getDenseI64ArrayAttr(ctBatch), TypeAttr());
    return b.convert(dot, type);
  }
  Value dot = DotGeneralOp::create(ob, b.getLoc(), ct, other, ob.getDenseI64ArrayAttr(ctContract),
                                   ob.getDenseI64ArrayAttr(otherFree),
                                   ob.getDenseI64ArrayAttr(ctBatch),
                                   ob.getDenseI64ArrayAttr(otherBatch), TypeAttr());
  return b.convert(b.transpose(dot, ctFirst), type);
}

/// ct broadcast back over the axes a reduction removed.
Value unreduce(JxBuilder &b, Value ct, Type operandType, ArrayRef<int64_t> axes) {
  auto type = cast<RankedTensorType>(operandType);
  SmallVector<int64_t> kept;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (!llvm::is_contained(axes, d))
      kept.push_back(d);
  return b.broadcastInDim(ct, type.clone(tensorType(ct).getElementType()), kept);
}

/// reduce_max / reduce_min: the cotangent goes to the chosen elements,
/// split evenly among ties; the forward saves that mask divided by the tie count.
template <typename OpT>
void chooser(VjpRuleTable &t) {
  t[TypeID::get<OpT>()] = VjpRule{
      [](JxBuilder &b, Operation *op, ArrayRef<bool>) {
        auto reduce = cast<OpT>(op);
        Value x = reduce.getOperand();
        Value chosen = unreduce(b, reduce.getResult(), x.getType(), reduce.getAxes());
        Value mask = b.select(b.create<EqOp>(x, chosen), {b.zeros(x.getType()), b.splat(x.getType(), 1.0)});
        Value counts = unreduce(b, b.reduceSum(mask, reduce.getAxes()), x.getType(), reduce.getAxes());
        return SmallVector<Value>{b.div(mask, counts)};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        auto reduce = cast<OpT>(op);
        return SmallVector<Value>{
            b.mul(unreduce(b, cts[0], reduce.getOperand().getType(), reduce.getAxes()), res[0])};
      }};
}

} // namespace

void mlir::cotangent::addStructuralVjpRules(VjpRuleTable &t) {
  t[TypeID::get<DotGeneralOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool> active) {
        SmallVector<Value> res;
        if (active[0])
          res.push_back(op->getOperand(1)); // lhs's cotangent needs rhs
        if (active[1])
          res.push_back(op->getOperand(0));
        return res;
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool> active, ValueRange res, ArrayRef<Value> cts) {
        auto dot = cast<DotGeneralOp>(op);
        SmallVector<Value> out(2);
        if (!cts[0])
          return out;
        Value ct = cts[0];
        // The cotangent arrives in the result's element type; contract in the operands'.
        Type operandElement = tensorType(dot.getLhs()).getElementType();
        ct = b.convert(ct, tensorType(ct).clone(operandElement));
        unsigned next = 0;
        if (active[0])
          out[0] = dotTranspose(b, ct, res[next++], dot.getLhs().getType(),
                                dot.getLhsBatchDimensions(), dot.getLhsContractingDimensions(),
                                dot.getRhsBatchDimensions(), dot.getRhsContractingDimensions(),
                                /*mineIsLhs=*/true);
        if (active[1])
          out[1] = dotTranspose(b, ct, res[next++], dot.getRhs().getType(),
                                dot.getRhsBatchDimensions(), dot.getRhsContractingDimensions(),
                                dot.getLhsBatchDimensions(), dot.getLhsContractingDimensions(),
                                /*mineIsLhs=*/false);
        return out;
      }};

  linear<BroadcastInDimOp>(t, [](JxBuilder &b, BroadcastInDimOp op, Value ct) {
    auto in = tensorType(op.getOperand()), out = tensorType(op.getResult());
    ArrayRef<int64_t> dims = op.getBroadcastDimensions();
    SmallVector<int64_t> axes;
    for (int64_t d = 0; d < out.getRank(); ++d) {
      auto it = llvm::find(dims, d);
      if (it == dims.end() || (in.getDimSize(it - dims.begin()) == 1 && out.getDimSize(d) != 1))
        axes.push_back(d);
    }
    return SmallVector<Value>{b.reshape(b.reduceSum(ct, axes), in)};
  });
  linear<ReshapeOp>(t, [](JxBuilder &b, ReshapeOp op, Value ct) {
    return SmallVector<Value>{b.reshape(ct, op.getOperand().getType())};
  });
  linear<SqueezeOp>(t, [](JxBuilder &b, SqueezeOp op, Value ct) {
    return SmallVector<Value>{b.reshape(ct, op.getOperand().getType())};
  });
  linear<ExpandDimsOp>(t, [](JxBuilder &b, ExpandDimsOp op, Value ct) {
    return SmallVector<Value>{b.reshape(ct, op.getOperand().getType())};
  });
  linear<TransposeOp>(t, [](JxBuilder &b, TransposeOp op, Value ct) {
    ArrayRef<int64_t> perm = op.getPermutation();
    SmallVector<int64_t> inverse(perm.size());
    for (auto [i, p] : llvm::enumerate(perm))
      inverse[p] = i;
    return SmallVector<Value>{b.transpose(ct, inverse)};
  });
  linear<ReduceSumOp>(t, [](JxBuilder &b, ReduceSumOp op, Value ct) {
    return SmallVector<Value>{unreduce(b, ct, op.getOperand().getType(), op.getAxes())};
  });
  linear<ConcatenateOp>(t, [](JxBuilder &b, ConcatenateOp op, Value ct) {
    SmallVector<Value> out;
    auto type = tensorType(ct);
    int64_t dim = op.getDimension(), offset = 0;
    OpBuilder &ob = b.builder();
    for (Value input : op.getInputs()) {
      int64_t size = tensorType(input).getDimSize(dim);
      SmallVector<int64_t> start(type.getRank(), 0), limit(type.getShape()),
          strides(type.getRank(), 1);
      start[dim] = offset;
      limit[dim] = offset + size;
      out.push_back(b.create<SliceOp>(ct, ob.getDenseI64ArrayAttr(start),
                                      ob.getDenseI64ArrayAttr(limit),
                                      ob.getDenseI64ArrayAttr(strides)));
      offset += size;
    }
    return out;
  });
  linear<SliceOp>(t, [](JxBuilder &b, SliceOp op, Value ct) {
    // Pad the cotangent back into place: zeros between strided elements and around the slice.
    auto in = tensorType(op.getOperand()), out = tensorType(op.getResult());
    SmallVector<int64_t> low, high, interior;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      int64_t n = out.getDimSize(d), stride = op.getStrides()[d], start = op.getStartIndices()[d];
      low.push_back(n ? start : 0);
      interior.push_back(n ? stride - 1 : 0);
      high.push_back(n ? in.getDimSize(d) - (start + (n - 1) * stride + 1) : in.getDimSize(d));
    }
    if (out.getNumElements() == 0)
      return SmallVector<Value>{b.zeros(in)};
    OpBuilder &ob = b.builder();
    Value zero = b.zeros(RankedTensorType::get({}, in.getElementType()));
    return SmallVector<Value>{b.create<PadOp>(ct, zero, ob.getDenseI64ArrayAttr(low),
                                              ob.getDenseI64ArrayAttr(high),
                                              ob.getDenseI64ArrayAttr(interior))};
  });
  linear<PadOp>(t, [](JxBuilder &b, PadOp op, Value ct) {
    // Undo negative padding with zeros, then take every (interior+1)-th element.
    auto in = tensorType(op.getOperand());
    auto ctType = tensorType(ct);
    OpBuilder &ob = b.builder();
    SmallVector<int64_t> uncropLow, uncropHigh, start, limit, strides;
    for (int64_t d = 0; d < in.getRank(); ++d) {
      int64_t lo = op.getLow()[d], hi = op.getHigh()[d], step = op.getInterior()[d] + 1;
      uncropLow.push_back(std::max<int64_t>(-lo, 0));
      uncropHigh.push_back(std::max<int64_t>(-hi, 0));
      start.push_back(std::max<int64_t>(lo, 0));
      strides.push_back(step);
      int64_t n = in.getDimSize(d);
      limit.push_back(start.back() + (n ? (n - 1) * step + 1 : 0));
    }
    Value zero = b.zeros(RankedTensorType::get({}, ctType.getElementType()));
    Value full = ct;
    if (llvm::any_of(uncropLow, [](int64_t v) { return v; }) ||
        llvm::any_of(uncropHigh, [](int64_t v) { return v; }))
      full = b.create<PadOp>(ct, zero, ob.getDenseI64ArrayAttr(uncropLow),
                             ob.getDenseI64ArrayAttr(uncropHigh),
                             ob.getDenseI64ArrayAttr(SmallVector<int64_t>(in.getRank(), 0)));
    Value ctOperand = b.create<SliceOp>(full, ob.getDenseI64ArrayAttr(start),
                                        ob.getDenseI64ArrayAttr(limit),
                                        ob.getDenseI64ArrayAttr(strides));
    // The padding value receives everything that did not come from the operand.
    auto all = iotaVector(0, in.getRank());
    Value ctPad = b.sub(b.reduceSum(ct, all), b.reduceSum(ctOperand, all));
    return SmallVector<Value>{ctOperand, ctPad};
  });

  t[TypeID::get<DynamicSliceOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        return SmallVector<Value>(cast<DynamicSliceOp>(op).getStartIndices());
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        SmallVector<Value> out(op->getNumOperands());
        if (!cts[0])
          return out;
        Value zeros = b.zeros(op->getOperand(0).getType());
        out[0] = b.create<DynamicUpdateSliceOp>(zeros, cts[0], res);
        return out;
      }};
  t[TypeID::get<DynamicUpdateSliceOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        return SmallVector<Value>(cast<DynamicUpdateSliceOp>(op).getStartIndices());
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool> active, ValueRange res, ArrayRef<Value> cts) {
        auto dus = cast<DynamicUpdateSliceOp>(op);
        SmallVector<Value> out(op->getNumOperands());
        if (!cts[0])
          return out;
        Type updateType = dus.getUpdate().getType();
        if (active[0])
          out[0] = b.create<DynamicUpdateSliceOp>(cts[0], b.zeros(updateType), res);
        if (active[1])
          out[1] = b.create<DynamicSliceOp>(
              cts[0], res, b.builder().getDenseI64ArrayAttr(tensorType(dus.getUpdate()).getShape()));
        return out;
      }};

  // take's transpose adds each cotangent row back at its index; the indices
  // (integers) are its only residual.
  t[TypeID::get<TakeOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool>) {
        return SmallVector<Value>{cast<TakeOp>(op).getIndices()};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        SmallVector<Value> out(op->getNumOperands());
        if (cts[0])
          out[0] = b.create<ScatterAddOp>(b.zeros(op->getOperand(0).getType()), res[0], cts[0],
                                          cast<TakeOp>(op).getAxis());
        return out;
      }};
  t[TypeID::get<ScatterAddOp>()] = VjpRule{
      [](JxBuilder &, Operation *op, ArrayRef<bool> active) {
        if (!active[2])
          return SmallVector<Value>();
        return SmallVector<Value>{cast<ScatterAddOp>(op).getIndices()};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool> active, ValueRange res, ArrayRef<Value> cts) {
        SmallVector<Value> out(op->getNumOperands());
        if (!cts[0])
          return out;
        if (active[0])
          out[0] = cts[0];
        if (active[2])
          out[2] = b.create<TakeOp>(cts[0], res[0], cast<ScatterAddOp>(op).getAxis());
        return out;
      }};

  chooser<ReduceMaxOp>(t);
  chooser<ReduceMinOp>(t);
  t[TypeID::get<ReduceProdOp>()] = VjpRule{
      // d prod / d x_i is the product of the other elements of x_i's group.
      // prod / x_i is that only when the group has no zero (it was 0 / 0 = NaN
      // at a zero, found by the autodiff tests), so the zeros are counted:
      // none -> prod / x_i; one -> the product of the nonzero elements at the
      // zero and 0 elsewhere; more -> 0 everywhere.
      [](JxBuilder &b, Operation *op, ArrayRef<bool>) {
        auto reduce = cast<ReduceProdOp>(op);
        Value x = reduce.getOperand();
        Type type = x.getType();
        ArrayRef<int64_t> axes = reduce.getAxes();
        Value zero = b.zeros(type), one = b.splat(type, 1.0);
        Value isZero = b.create<EqOp>(x, zero);
        Value safe = b.select(isZero, {x, one});
        Value nonzeroProd = unreduce(
            b, b.create<ReduceProdOp>(safe, b.builder().getDenseI64ArrayAttr(axes)), type, axes);
        Value zeros = unreduce(b, b.reduceSum(b.select(isZero, {zero, one}), axes), type, axes);
        Value noZero = b.div(nonzeroProd, safe);
        Value oneZero = b.select(b.create<EqOp>(zeros, one),
                                 {zero, b.select(isZero, {zero, nonzeroProd})});
        return SmallVector<Value>{b.select(b.create<EqOp>(zeros, zero), {oneZero, noZero})};
      },
      [](JxBuilder &b, Operation *op, ArrayRef<bool>, ValueRange res, ArrayRef<Value> cts) {
        auto reduce = cast<ReduceProdOp>(op);
        return SmallVector<Value>{
            b.mul(unreduce(b, cts[0], reduce.getOperand().getType(), reduce.getAxes()), res[0])};
      }};

  t[TypeID::get<OptimizationBarrierOp>()] = VjpRule{
      [](JxBuilder &, Operation *, ArrayRef<bool>) { return SmallVector<Value>(); },
      [](JxBuilder &, Operation *, ArrayRef<bool>, ValueRange, ArrayRef<Value> cts) {
        return SmallVector<Value>(cts);
      }};
}

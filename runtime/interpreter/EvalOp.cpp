//===- EvalOp.cpp - Dispatch from jx operations to Ops.h ------------------===//
//
// Implements evalOp: one TypeSwitch case per jx op without regions, reading
// the op's attributes into the plain values the functions of Ops.h take.
// Ops with regions or callees go to evalControlFlowOp.
//
//===----------------------------------------------------------------------===//

#include "runtime/interpreter/Evaluator.h"
#include "runtime/interpreter/Ops.h"
#include "runtime/interpreter/Spmd.h"

#include "dialects/jx/JxCollectiveOps.h"
#include "dialects/jx/JxOps.h"

#include "llvm/ADT/TypeSwitch.h"

using namespace cotangent::interp;
using namespace cotangent::interp::detail;
using namespace mlir;

namespace {

Results one(Tensor t) {
  std::vector<Tensor> v;
  v.push_back(std::move(t));
  return v;
}

RankedTensorType resultType(Operation *op) { return cast<RankedTensorType>(op->getResult(0).getType()); }

/// The 0-d integer tensors `starts` as plain indices.
SmallVector<int64_t> indices(ArrayRef<Tensor> starts) {
  SmallVector<int64_t> out;
  for (const Tensor &t : starts)
    out.push_back(t.getInt(0));
  return out;
}

} // namespace

Results cotangent::interp::detail::evalOp(Evaluator &evaluator, Operation &op,
                                          ArrayRef<Tensor> in) {
  using Unary = Tensor (*)(const Tensor &);
  using Binary = Tensor (*)(const Tensor &, const Tensor &);
  auto unary = [&](Unary f) { return one(f(in[0])); };
  auto binary = [&](Binary f) { return one(f(in[0], in[1])); };
  // Collectives combine the ranks of a simulated group (Spmd.h).
  if (jx::isCollective(&op))
    return evalCollective(op, in);
  return llvm::TypeSwitch<Operation *, Results>(&op)
      // Elementwise.
      .Case([&](jx::NegOp) { return unary(negOp); })
      .Case([&](jx::SinOp) { return unary(sinOp); })
      .Case([&](jx::CosOp) { return unary(cosOp); })
      .Case([&](jx::TanOp) { return unary(tanOp); })
      .Case([&](jx::ExpOp) { return unary(expOp); })
      .Case([&](jx::LogOp) { return unary(logOp); })
      .Case([&](jx::Log1pOp) { return unary(log1pOp); })
      .Case([&](jx::Expm1Op) { return unary(expm1Op); })
      .Case([&](jx::ErfOp) { return unary(erfOp); })
      .Case([&](jx::ErfcOp) { return unary(erfcOp); })
      .Case([&](jx::TanhOp) { return unary(tanhOp); })
      .Case([&](jx::LogisticOp) { return unary(logisticOp); })
      .Case([&](jx::SqrtOp) { return unary(sqrtOp); })
      .Case([&](jx::RsqrtOp) { return unary(rsqrtOp); })
      .Case([&](jx::AbsOp) { return unary(absOp); })
      .Case([&](jx::SignOp) { return unary(signOp); })
      .Case([&](jx::FloorOp) { return unary(floorOp); })
      .Case([&](jx::CeilOp) { return unary(ceilOp); })
      .Case([&](jx::NotOp) { return unary(notOp); })
      .Case([&](jx::StopGradientOp) { return unary(stopGradientOp); })
      .Case([&](jx::IntegerPowOp o) { return one(integerPowOp(in[0], static_cast<int64_t>(o.getY()))); })
      .Case([&](jx::AddOp) { return binary(addOp); })
      .Case([&](jx::SubOp) { return binary(subOp); })
      .Case([&](jx::MulOp) { return binary(mulOp); })
      .Case([&](jx::DivOp) { return binary(divOp); })
      .Case([&](jx::MaxOp) { return binary(maxOp); })
      .Case([&](jx::MinOp) { return binary(minOp); })
      .Case([&](jx::PowOp) { return binary(powOp); })
      .Case([&](jx::Atan2Op) { return binary(atan2Op); })
      .Case([&](jx::RemOp) { return binary(remOp); })
      .Case([&](jx::AndOp) { return binary(andOp); })
      .Case([&](jx::OrOp) { return binary(orOp); })
      .Case([&](jx::XorOp) { return binary(xorOp); })
      .Case([&](jx::ShiftRightLogicalOp) { return binary(shiftRightLogicalOp); })
      .Case([&](jx::Threefry2x32Op) {
        return Results(threefry2x32Op(in[0], in[1], in[2], in[3]));
      })
      .Case([&](jx::EqOp) { return binary(eqOp); })
      .Case([&](jx::NeOp) { return binary(neOp); })
      .Case([&](jx::LtOp) { return binary(ltOp); })
      .Case([&](jx::LeOp) { return binary(leOp); })
      .Case([&](jx::GtOp) { return binary(gtOp); })
      .Case([&](jx::GeOp) { return binary(geOp); })
      .Case([&](jx::SelectNOp) { return one(selectNOp(in[0], in.drop_front())); })
      .Case([&](jx::BitcastConvertTypeOp o) {
        return one(bitcastConvertTypeOp(in[0], resultType(o).getElementType()));
      })
      .Case([&](jx::ConvertElementTypeOp o) {
        return one(convertElementTypeOp(in[0], resultType(o).getElementType()));
      })
      // Contractions and reductions.
      .Case([&](jx::DotGeneralOp o) {
        return one(dotGeneralOp(in[0], in[1], o.getLhsContractingDimensions(),
                                o.getRhsContractingDimensions(), o.getLhsBatchDimensions(),
                                o.getRhsBatchDimensions(), resultType(o).getElementType()));
      })
      .Case([&](jx::DotProductAttentionOp o) {
        return Results(dotProductAttentionOp(in[0], in[1], in[2],
                                             o.getScale().convertToDouble(), o.getIsCausal()));
      })
      .Case([&](jx::DotProductAttentionGradOp o) {
        return Results(dotProductAttentionGradOp(in[0], in[1], in[2], in[3], in[4], in[5],
                                                 o.getScale().convertToDouble(),
                                                 o.getIsCausal()));
      })
      // Other composites run their expansion (the fused cross-entropy).
      .Case([&](jx::CompositeOpInterface composite) -> Results {
        return evaluator.evalRegion(evaluator.expansionOf(composite),
                                    std::vector<Tensor>(in.begin(), in.end()));
      })
      .Case([&](jx::ReduceSumOp o) { return one(reduceSumOp(in[0], o.getAxes())); })
      .Case([&](jx::ReduceMaxOp o) { return one(reduceMaxOp(in[0], o.getAxes())); })
      .Case([&](jx::ReduceMinOp o) { return one(reduceMinOp(in[0], o.getAxes())); })
      .Case([&](jx::ReduceProdOp o) { return one(reduceProdOp(in[0], o.getAxes())); })
      .Case([&](jx::ArgmaxOp o) {
        return one(argmaxOp(in[0], static_cast<int64_t>(o.getAxis()), resultType(o).getElementType()));
      })
      .Case([&](jx::CumsumOp o) {
        return one(cumsumOp(in[0], static_cast<int64_t>(o.getAxis()), o.getReverse()));
      })
      // Shapes.
      .Case([&](jx::BroadcastInDimOp o) {
        return one(broadcastInDimOp(in[0], resultType(o).getShape(), o.getBroadcastDimensions()));
      })
      .Case([&](jx::ReshapeOp o) { return one(reshapeOp(in[0], resultType(o).getShape())); })
      .Case([&](jx::TransposeOp o) { return one(transposeOp(in[0], o.getPermutation())); })
      .Case([&](jx::SqueezeOp o) { return one(squeezeOp(in[0], o.getDimensions())); })
      .Case([&](jx::ExpandDimsOp o) { return one(expandDimsOp(in[0], o.getDimensions())); })
      .Case([&](jx::ConcatenateOp o) {
        return one(concatenateOp(in, static_cast<int64_t>(o.getDimension())));
      })
      .Case([&](jx::SliceOp o) {
        return one(sliceOp(in[0], o.getStartIndices(), o.getLimitIndices(), o.getStrides()));
      })
      .Case([&](jx::DynamicSliceOp o) {
        return one(dynamicSliceOp(in[0], indices(in.drop_front()), o.getSliceSizes()));
      })
      .Case([&](jx::DynamicUpdateSliceOp) {
        return one(dynamicUpdateSliceOp(in[0], in[1], indices(in.drop_front(2))));
      })
      .Case([&](jx::TakeOp o) { return one(takeOp(in[0], in[1], o.getAxis())); })
      .Case([&](jx::ScatterAddOp o) {
        return one(scatterAddOp(in[0], in[1], in[2], o.getAxis()));
      })
      .Case([&](jx::PadOp o) {
        return one(padOp(in[0], in[1], o.getLow(), o.getHigh(), o.getInterior()));
      })
      .Case([&](jx::IotaOp o) { return one(iotaOp(resultType(o), static_cast<int64_t>(o.getDimension()))); })
      .Case([&](jx::ConstantOp o) -> Results {
        auto dense = dyn_cast<DenseElementsAttr>(o.getValue());
        if (!dense)
          return emitError(o.getLoc()) << "the interpreter reads dense constants only";
        return one(Tensor::fromAttr(dense));
      })
      // Identities.
      .Case([&](jx::CheckpointNameOp) { return one(in[0]); })
      .Case([&](jx::OptimizationBarrierOp) { return Results(std::vector<Tensor>(in.begin(), in.end())); })
      // Regions and calls.
      .Case<jx::ScanOp, jx::CondOp, jx::WhileOp, jx::RematOp, func::CallOp>(
          [&](auto) { return evalControlFlowOp(evaluator, op, in); })
      .Default([&](Operation *other) -> Results {
        return emitError(other->getLoc()) << "'" << other->getName() << "' is not supported by the interpreter";
      });
}

//===- JxOpFacts.cpp - what the passes need to know of an op -------------===//

#include "dialects/jx/JxOpFacts.h"

#include "dialects/jx/JxAttentionOps.h"
#include "dialects/jx/JxCollectiveOps.h"
#include "dialects/jx/JxOps.h"

#include "dialects/jx/JxOpFacts.cpp.inc"

using namespace mlir;
using namespace mlir::jx;

namespace {

int64_t elementsOf(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  return shaped && shaped.hasStaticShape() ? shaped.getNumElements() : 0;
}

int64_t bytesOf(Type type) {
  auto shaped = dyn_cast<RankedTensorType>(type);
  if (!shaped || !shaped.hasStaticShape())
    return 0;
  return shaped.getNumElements() * ((shaped.getElementTypeBitWidth() + 7) / 8);
}

int64_t costOf(Operation *op, CostKind kind) {
  return kind == CostKind::Flops ? estimateFlops(op) : estimateCommunicatedBytes(op);
}

/// The bytes a rank sends or receives for collective `op` in a ring.
int64_t ringBytes(Operation *op) {
  auto others = [](int64_t bytes, int64_t ranks) { return bytes * (ranks - 1) / ranks; };
  if (auto gather = dyn_cast<AllGatherOp>(op))
    return others(bytesOf(gather.getType()), gather.getAxisSize());
  if (auto scatter = dyn_cast<PsumScatterOp>(op))
    return others(bytesOf(scatter.getOperand().getType()), scatter.getAxisSize());
  if (isa<PsumOp, PmeanOp>(op)) // reduce-scatter, then all-gather
    return 2 * bytesOf(op->getOperand(0).getType());
  if (isa<PpermuteOp>(op))
    return bytesOf(op->getOperand(0).getType());
  return 0; // axis_index
}

} // namespace

int64_t jx::detail::regionCost(Operation *op, CostKind kind) {
  int64_t cost = 0;
  for (Region &region : op->getRegions()) {
    int64_t sum = 0;
    for (Block &block : region)
      for (Operation &inner : block)
        sum += costOf(&inner, kind);
    // A branch costs its dearer side; a loop's regions run once per trip.
    cost = isa<CondOp>(op) ? std::max(cost, sum) : cost + sum;
  }
  return cost;
}

int64_t jx::detail::defaultFlops(Operation *op) {
  if (op->getNumRegions() != 0)
    return regionCost(op, CostKind::Flops);
  if (movesData(op) || op->hasTrait<mlir::OpTrait::ConstantLike>())
    return 0;
  int64_t elements = 0;
  for (Value r : op->getResults())
    elements += elementsOf(r.getType());
  return elements;
}

bool jx::isView(Operation *op) { return op->hasTrait<OpTrait::ViewOfOperand>(); }

bool jx::mayBeView(Operation *op) {
  return isView(op) || op->hasTrait<OpTrait::MayBeViewOfOperand>();
}

bool jx::movesData(Operation *op) { return op->hasTrait<OpTrait::MovesData>(); }

bool jx::isCheapToRecompute(Operation *op) {
  return op->getNumRegions() == 0 &&
         (op->hasTrait<OpTrait::CheapToRecompute>() || op->hasTrait<mlir::OpTrait::Elementwise>() ||
          op->hasTrait<mlir::OpTrait::ConstantLike>());
}

bool jx::isRebuiltFromOperand(Operation *op) {
  return op->hasTrait<OpTrait::RebuiltFromOperand>();
}

Value jx::viewSourceOf(OpResult v) {
  // A barrier's results are views of the operands at their positions.
  Operation *op = v.getOwner();
  return op->getOperand(op->getNumOperands() == op->getNumResults() ? v.getResultNumber() : 0);
}

int64_t jx::estimateFlops(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  return cost ? cost.estimateFlops() : 0;
}

int64_t jx::estimateCommunicatedBytes(Operation *op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  return cost ? cost.estimateCommunicatedBytes() : 0;
}

//===----------------------------------------------------------------------===//
// The ops that count differently
//===----------------------------------------------------------------------===//

int64_t DotGeneralOp::estimateFlops() {
  auto lhs = cast<RankedTensorType>(getLhs().getType());
  int64_t contracted = 1;
  for (int64_t d : getLhsContractingDimensions())
    contracted *= lhs.getDimSize(d);
  return 2 * elementsOf(getType()) * contracted;
}

int64_t IotaOp::estimateFlops() { return 0; }

// Attention: per (query, key) pair a product of head size H for the score
// and one for the output (2 each), and about 5 for the softmax; the backward
// recomputes the score and makes four more products (dV, dP, dQ, dK).
namespace {
int64_t attentionFlops(Value query, Value key, bool causal, int64_t products) {
  ArrayRef<int64_t> q = cast<RankedTensorType>(query.getType()).getShape();
  int64_t seqKeys = cast<RankedTensorType>(key.getType()).getDimSize(1);
  return q[0] * q[2] * attentionPairs(q[1], seqKeys, causal) * (2 * products * q[3] + 5);
}
} // namespace
int64_t DotProductAttentionOp::estimateFlops() {
  return attentionFlops(getQuery(), getKey(), getIsCausal(), 2);
}
int64_t DotProductAttentionGradOp::estimateFlops() {
  return attentionFlops(getQuery(), getKey(), getIsCausal(), 5);
}

// The fused cross-entropy: a max, an exponential and a sum per logit (the
// label's pick is a select); its backward an exponential, a subtraction
// and a product.
int64_t SoftmaxCrossEntropyOp::estimateFlops() { return 4 * elementsOf(getLogits().getType()); }
int64_t SoftmaxCrossEntropyGradOp::estimateFlops() {
  return 3 * elementsOf(getLogits().getType());
}

// A reduction touches each element of its operand once.
int64_t ReduceSumOp::estimateFlops() { return elementsOf(getOperand().getType()); }
int64_t ReduceMaxOp::estimateFlops() { return elementsOf(getOperand().getType()); }
int64_t ReduceMinOp::estimateFlops() { return elementsOf(getOperand().getType()); }
int64_t ReduceProdOp::estimateFlops() { return elementsOf(getOperand().getType()); }

int64_t ScanOp::estimateFlops() {
  return jx::detail::regionCost(*this, CostKind::Flops) * getLength();
}
int64_t ScanOp::estimateCommunicatedBytes() {
  return jx::detail::regionCost(*this, CostKind::CommunicatedBytes) * getLength();
}

#define JX_COLLECTIVE_COST(Op)                                                                     \
  int64_t Op::estimateFlops() { return 0; }                                                        \
  int64_t Op::estimateCommunicatedBytes() { return ringBytes(*this); }
JX_COLLECTIVE_COST(PsumOp)
JX_COLLECTIVE_COST(PmeanOp)
JX_COLLECTIVE_COST(AllGatherOp)
JX_COLLECTIVE_COST(PsumScatterOp)
JX_COLLECTIVE_COST(PpermuteOp)
JX_COLLECTIVE_COST(AxisIndexOp)
#undef JX_COLLECTIVE_COST

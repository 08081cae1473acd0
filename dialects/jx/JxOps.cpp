//===- JxOps.cpp - jx op verifiers and folders ----------------------------===//
//
// Verifiers for the constraints ODS cannot express and the folds that are
// obviously right (identities; constants). Result-type rules are in
// JxShapeInference.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

RankedTensorType tensorType(Value v) { return cast<RankedTensorType>(v.getType()); }

/// Checks that `region`'s single block takes `args` and ends in a jx.yield of `yields`.
LogicalResult verifyRegionSignature(Operation *op, Region &region, TypeRange args,
                                    TypeRange yields, StringRef what) {
  Block &block = region.front();
  if (block.getArgumentTypes() != args)
    return op->emitOpError() << what << " takes (" << block.getArgumentTypes()
                             << ") but must take (" << args << ")";
  // The block may still be empty here: op verifiers run before block checks.
  auto yield = block.empty() ? YieldOp() : dyn_cast<YieldOp>(block.back());
  if (!yield)
    return op->emitOpError() << what << " must end in jx.yield";
  if (yield.getOperandTypes() != yields)
    return yield.emitOpError() << "yields (" << yield.getOperandTypes() << ") but the "
                               << what << " of '" << op->getName() << "' must yield ("
                               << yields << ")";
  return success();
}

bool isFloat(Type t) { return isa<FloatType>(getElementTypeOrSelf(t)); }

} // namespace

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

OpFoldResult NegOp::fold(FoldAdaptor) {
  if (auto inner = getOperand().getDefiningOp<NegOp>())
    return inner.getOperand();
  return {};
}

LogicalResult IntegerPowOp::verify() {
  if (getY() < 0 && !isFloat(getType()))
    return emitOpError() << "negative exponent " << getY()
                         << " needs a floating-point operand, got " << getType();
  return success();
}

LogicalResult SelectNOp::verify() {
  // Result-type inference is verified after this verifier: do not assume a case.
  if (getCases().empty())
    return emitOpError() << "expected at least one case";
  auto which = tensorType(getWhich());
  Type caseType = getCases().front().getType();
  for (auto [i, c] : llvm::enumerate(getCases()))
    if (c.getType() != caseType)
      return emitOpError() << "case " << i << " has type " << c.getType()
                           << " but case 0 has type " << caseType;
  if (which.getRank() != 0 && which.getShape() != tensorType(getResult()).getShape())
    return emitOpError() << "selector shape must be a scalar or the cases' shape, got "
                         << which << " for cases of type " << caseType;
  if (which.getElementType().isInteger(1) && getCases().size() > 2)
    return emitOpError() << "a boolean selector picks among at most 2 cases, got "
                         << getCases().size();
  return success();
}

OpFoldResult SelectNOp::fold(FoldAdaptor adaptor) {
  if (getCases().size() == 1)
    return getCases().front();
  auto which = dyn_cast_if_present<SplatElementsAttr>(adaptor.getWhich());
  if (!which)
    return {};
  // An i32 selector is signed: a negative index clamps to the first case.
  APInt value = which.getSplatValue<APInt>();
  int64_t index = value.getBitWidth() == 1 ? value.getZExtValue() : value.getSExtValue();
  index = std::clamp<int64_t>(index, 0, getCases().size() - 1);
  return getCases()[index];
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

LogicalResult BroadcastInDimOp::verify() {
  auto in = tensorType(getOperand()), out = tensorType(getResult());
  ArrayRef<int64_t> dims = getBroadcastDimensions();
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "element type changes from " << in.getElementType() << " to "
                         << out.getElementType();
  if (static_cast<int64_t>(dims.size()) != in.getRank())
    return emitOpError() << "broadcast_dimensions has " << dims.size()
                         << " entries, expected the operand's rank " << in.getRank();
  for (auto [i, d] : llvm::enumerate(dims)) {
    if (d < 0 || d >= out.getRank())
      return emitOpError() << "broadcast dimension " << d << " is out of range for rank "
                           << out.getRank();
    if (i > 0 && d <= dims[i - 1])
      return emitOpError() << "broadcast_dimensions must be strictly increasing, got ["
                           << dims << "]";
    int64_t size = in.getDimSize(i);
    if (size != 1 && size != out.getDimSize(d))
      return emitOpError() << "operand dimension " << i << " of size " << size
                           << " cannot broadcast to result dimension " << d << " of size "
                           << out.getDimSize(d);
  }
  return success();
}

OpFoldResult BroadcastInDimOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto splat = dyn_cast_if_present<SplatElementsAttr>(adaptor.getOperand()))
    return SplatElementsAttr::get(getType(), splat.getSplatValue<Attribute>());
  return {};
}

LogicalResult ReshapeOp::verify() {
  auto in = tensorType(getOperand()), out = tensorType(getResult());
  if (in.getElementType() != out.getElementType())
    return emitOpError() << "element type changes from " << in.getElementType() << " to "
                         << out.getElementType();
  if (in.getNumElements() != out.getNumElements())
    return emitOpError() << "cannot reshape " << in << " (" << in.getNumElements()
                         << " elements) to " << out << " (" << out.getNumElements()
                         << " elements)";
  return success();
}

OpFoldResult ReshapeOp::fold(FoldAdaptor adaptor) {
  if (getOperand().getType() == getType())
    return getOperand();
  if (auto inner = getOperand().getDefiningOp<ReshapeOp>()) {
    getOperandMutable().assign(inner.getOperand());
    return getResult();
  }
  if (auto dense = dyn_cast_if_present<DenseElementsAttr>(adaptor.getOperand()))
    return dense.reshape(getType());
  return {};
}

OpFoldResult TransposeOp::fold(FoldAdaptor) {
  for (auto [i, p] : llvm::enumerate(getPermutation()))
    if (static_cast<int64_t>(i) != p)
      return {};
  return getOperand();
}

OpFoldResult SqueezeOp::fold(FoldAdaptor) {
  return getDimensions().empty() ? getOperand() : OpFoldResult();
}

OpFoldResult ConcatenateOp::fold(FoldAdaptor) {
  return getInputs().size() == 1 ? getInputs().front() : OpFoldResult();
}

OpFoldResult SliceOp::fold(FoldAdaptor) {
  return getOperand().getType() == getType() ? getOperand() : OpFoldResult();
}

LogicalResult DynamicUpdateSliceOp::verify() {
  auto in = tensorType(getOperand()), update = tensorType(getUpdate());
  if (update.getRank() != in.getRank())
    return emitOpError() << "update rank " << update.getRank() << " differs from operand rank "
                         << in.getRank();
  if (static_cast<int64_t>(getStartIndices().size()) != in.getRank())
    return emitOpError() << "expected " << in.getRank() << " start indices, got "
                         << getStartIndices().size();
  for (int64_t d = 0; d < in.getRank(); ++d)
    if (update.getDimSize(d) > in.getDimSize(d))
      return emitOpError() << "update dimension " << d << " of size " << update.getDimSize(d)
                           << " exceeds the operand's size " << in.getDimSize(d);
  return success();
}

LogicalResult ScatterAddOp::verify() {
  auto in = tensorType(getOperand()), updates = tensorType(getUpdates());
  int64_t axis = getAxis();
  if (axis < 0 || axis >= in.getRank())
    return emitOpError() << "axis " << axis << " is out of range for " << in;
  SmallVector<int64_t> expected(in.getShape());
  expected[axis] = tensorType(getIndices()).getDimSize(0);
  if (updates.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError() << "updates " << updates << " should have shape "
                         << RankedTensorType::get(expected, in.getElementType())
                         << ": the operand's, with axis " << axis << " as long as the indices";
  return success();
}

LogicalResult IotaOp::verify() {
  auto type = tensorType(getResult());
  if (getDimension() < 0 || getDimension() >= type.getRank())
    return emitOpError() << "iota dimension " << getDimension() << " is out of range for "
                         << type;
  return success();
}

LogicalResult BitcastConvertTypeOp::verify() {
  // The shape is the Elementwise trait's to check.
  auto in = tensorType(getOperand()), out = tensorType(getResult());
  if (in.getElementType().getIntOrFloatBitWidth() != out.getElementType().getIntOrFloatBitWidth())
    return emitOpError() << "bit width changes from " << in.getElementType() << " to "
                         << out.getElementType();
  return success();
}

LogicalResult ConvertElementTypeOp::verify() {
  if (tensorType(getOperand()).getShape() != tensorType(getResult()).getShape())
    return emitOpError() << "shape changes from " << getOperand().getType() << " to "
                         << getType();
  return success();
}

OpFoldResult ConvertElementTypeOp::fold(FoldAdaptor) {
  return getOperand().getType() == getType() ? getOperand() : OpFoldResult();
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

#define JX_REDUCE_FOLD(OP)                                                                  \
  OpFoldResult OP::fold(FoldAdaptor) {                                                     \
    return getAxes().empty() ? getOperand() : OpFoldResult();                              \
  }
JX_REDUCE_FOLD(ReduceSumOp)
JX_REDUCE_FOLD(ReduceMaxOp)
JX_REDUCE_FOLD(ReduceMinOp)
JX_REDUCE_FOLD(ReduceProdOp)
#undef JX_REDUCE_FOLD

LogicalResult ArgmaxOp::verify() {
  auto in = tensorType(getOperand());
  if (getAxis() < 0 || getAxis() >= in.getRank())
    return emitOpError() << "axis " << getAxis() << " is out of range for " << in;
  SmallVector<int64_t> shape(in.getShape());
  shape.erase(shape.begin() + getAxis());
  if (tensorType(getResult()).getShape() != ArrayRef<int64_t>(shape))
    return emitOpError() << "result shape must be the operand's without axis "
                         << getAxis() << ", got " << getType();
  return success();
}

LogicalResult CumsumOp::verify() {
  if (getAxis() < 0 || getAxis() >= tensorType(getOperand()).getRank())
    return emitOpError() << "axis " << getAxis() << " is out of range for "
                         << getOperand().getType();
  return success();
}

OpFoldResult ConstantOp::fold(FoldAdaptor) { return getValue(); }

//===----------------------------------------------------------------------===//
// Control flow and remat
//===----------------------------------------------------------------------===//

LogicalResult ScanOp::verify() {
  int64_t numConsts = getNumConsts(), numCarry = getNumCarry();
  int64_t numOperands = getOperands().size();
  if (getLength() < 0)
    return emitOpError() << "length must not be negative, got " << getLength();
  if (auto lengths = getCheckpointLengths()) {
    int64_t product = 1;
    for (int64_t l : *lengths) {
      if (l < 1)
        return emitOpError() << "checkpoint_lengths must be positive, got " << l;
      product *= l;
    }
    if (product != getLength())
      return emitOpError() << "checkpoint_lengths multiply to " << product
                           << " but the scan length is " << getLength();
  }
  if (auto snapshots = getSnapshots()) {
    if (*snapshots < 1)
      return emitOpError() << "snapshots must be at least 1, got " << *snapshots;
    if (getCheckpointLengths())
      return emitOpError() << "takes checkpoint_lengths or snapshots, not both";
  }
  // Compared one at a time so that huge counts cannot overflow the sum.
  if (numConsts < 0 || numCarry < 0 || numConsts > numOperands ||
      numCarry > numOperands - numConsts)
    return emitOpError() << "consts (" << numConsts << ") and carry (" << numCarry
                         << ") exceed the " << numOperands << " operands";
  SmallVector<Type> argTypes(getOperands().take_front(numConsts + numCarry).getTypes());
  for (auto [i, x] : llvm::enumerate(getXs())) {
    auto type = tensorType(x);
    if (type.getRank() == 0 || type.getDimSize(0) != getLength())
      return emitOpError() << "xs operand " << i << " of type " << type
                           << " must have a leading dimension of the scan length "
                           << getLength();
    argTypes.push_back(type.clone(type.getShape().drop_front()));
  }
  int64_t numYs = static_cast<int64_t>(getNumResults()) - numCarry;
  if (numYs < 0)
    return emitOpError() << "expected at least " << numCarry << " results for the carry";
  for (int64_t i = 0; i < numCarry; ++i)
    if (getResult(i).getType() != getOperand(numConsts + i).getType())
      return emitOpError() << "carry result " << i << " has type " << getResult(i).getType()
                           << " but the initial carry has type "
                           << getOperand(numConsts + i).getType();
  SmallVector<Type> yieldTypes(getInitCarry().getTypes());
  for (int64_t i = 0; i < numYs; ++i) {
    auto type = tensorType(getResult(numCarry + i));
    if (type.getRank() == 0 || type.getDimSize(0) != getLength())
      return emitOpError() << "stacked result " << i << " of type " << type
                           << " must have a leading dimension of the scan length "
                           << getLength();
    yieldTypes.push_back(type.clone(type.getShape().drop_front()));
  }
  return verifyRegionSignature(*this, getBody(), argTypes, yieldTypes, "body");
}

LogicalResult CondOp::verify() {
  auto index = tensorType(getIndex());
  if (index.getRank() != 0)
    return emitOpError() << "index must be a 0-d tensor, got " << index;
  if (getBranches().empty())
    return emitOpError() << "needs at least one branch";
  if (index.getElementType().isInteger(1) && getBranches().size() != 2)
    return emitOpError() << "a boolean index needs exactly 2 branches, got "
                         << getBranches().size();
  for (auto [i, branch] : llvm::enumerate(getBranches()))
    if (failed(verifyRegionSignature(*this, branch, getInputs().getTypes(),
                                     getResultTypes(), "branch " + std::to_string(i))))
      return failure();
  return success();
}

LogicalResult WhileOp::verify() {
  if (getOperandTypes() != getResultTypes())
    return emitOpError() << "result types (" << getResultTypes()
                         << ") must equal the carry types (" << getOperandTypes() << ")";
  Type pred = RankedTensorType::get({}, IntegerType::get(getContext(), 1));
  if (failed(verifyRegionSignature(*this, getCond(), getOperandTypes(), pred, "cond region")))
    return failure();
  return verifyRegionSignature(*this, getBody(), getOperandTypes(), getOperandTypes(),
                               "body region");
}

LogicalResult RematOp::verify() {
  return verifyRegionSignature(*this, getBody(), getOperandTypes(), getResultTypes(), "body");
}

#define GET_OP_CLASSES
#include "dialects/jx/JxOps.cpp.inc"

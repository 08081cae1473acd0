//===- JxShapeInference.cpp - result types of jx ops ----------------------===//
//
// `inferReturnTypes` for every jx op whose result type follows from its
// operands and attributes. The same functions serve the builders (the tracer
// creates ops without spelling result types) and the verifier (the printed
// result type must equal the inferred one), so every shape rule lives here
// once, with its error message.
//
//===----------------------------------------------------------------------===//

#include "dialects/jx/JxOps.h"

#include "llvm/ADT/SmallBitVector.h"

using namespace mlir;
using namespace mlir::jx;

namespace {

RankedTensorType rankedOrNull(Type t) { return dyn_cast<RankedTensorType>(t); }

/// Checks that `dims` are distinct, in [0, rank), and not in `used`; marks them used.
LogicalResult checkDims(std::optional<Location> loc, StringRef what, ArrayRef<int64_t> dims,
                        int64_t rank, llvm::SmallBitVector &used) {
  for (int64_t d : dims) {
    if (d < 0 || d >= rank)
      return emitOptionalError(loc, what, " dimension ", d, " is out of range for rank ", rank);
    if (used.test(d))
      return emitOptionalError(loc, what, " dimension ", d, " is repeated");
    used.set(d);
  }
  return success();
}

LogicalResult inferCompare(std::optional<Location> loc, Value lhs,
                           SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(lhs.getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  results.push_back(type.clone(IntegerType::get(type.getContext(), 1)));
  return success();
}

LogicalResult inferReduce(std::optional<Location> loc, Value operand, ArrayRef<int64_t> axes,
                          SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(operand.getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  llvm::SmallBitVector reduced(type.getRank());
  if (failed(checkDims(loc, "reduction", axes, type.getRank(), reduced)))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [i, size] : llvm::enumerate(type.getShape()))
    if (!reduced.test(i))
      shape.push_back(size);
  results.push_back(type.clone(shape));
  return success();
}

} // namespace

#define JX_COMPARE_INFERENCE(OP)                                                            \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,           \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) {     \
    return inferCompare(loc, adaptor.getLhs(), results);                                   \
  }
JX_COMPARE_INFERENCE(EqOp)
JX_COMPARE_INFERENCE(NeOp)
JX_COMPARE_INFERENCE(LtOp)
JX_COMPARE_INFERENCE(LeOp)
JX_COMPARE_INFERENCE(GtOp)
JX_COMPARE_INFERENCE(GeOp)
#undef JX_COMPARE_INFERENCE

#define JX_REDUCE_INFERENCE(OP)                                                             \
  LogicalResult OP::inferReturnTypes(MLIRContext *, std::optional<Location> loc,           \
                                     Adaptor adaptor, SmallVectorImpl<Type> &results) {     \
    return inferReduce(loc, adaptor.getOperand(), adaptor.getAxes(), results);             \
  }
JX_REDUCE_INFERENCE(ReduceSumOp)
JX_REDUCE_INFERENCE(ReduceMaxOp)
JX_REDUCE_INFERENCE(ReduceMinOp)
JX_REDUCE_INFERENCE(ReduceProdOp)
#undef JX_REDUCE_INFERENCE

LogicalResult SelectNOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (adaptor.getCases().empty())
    return emitOptionalError(loc, "expected at least one case");
  results.push_back(adaptor.getCases().front().getType());
  return success();
}

LogicalResult DotGeneralOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto lhs = rankedOrNull(adaptor.getLhs().getType());
  auto rhs = rankedOrNull(adaptor.getRhs().getType());
  if (!lhs || !rhs)
    return emitOptionalError(loc, "expected ranked tensor operands");
  ArrayRef<int64_t> lc = adaptor.getLhsContractingDimensions();
  ArrayRef<int64_t> rc = adaptor.getRhsContractingDimensions();
  ArrayRef<int64_t> lb = adaptor.getLhsBatchDimensions();
  ArrayRef<int64_t> rb = adaptor.getRhsBatchDimensions();
  if (lc.size() != rc.size())
    return emitOptionalError(loc, "lhs and rhs must have the same number of contracting "
                                  "dimensions, got ", lc.size(), " and ", rc.size());
  if (lb.size() != rb.size())
    return emitOptionalError(loc, "lhs and rhs must have the same number of batch "
                                  "dimensions, got ", lb.size(), " and ", rb.size());
  if (lhs.getElementType() != rhs.getElementType())
    return emitOptionalError(loc, "lhs and rhs must have the same element type, got ",
                             lhs.getElementType(), " and ", rhs.getElementType());
  llvm::SmallBitVector lhsUsed(lhs.getRank()), rhsUsed(rhs.getRank());
  if (failed(checkDims(loc, "lhs batch", lb, lhs.getRank(), lhsUsed)) ||
      failed(checkDims(loc, "lhs contracting", lc, lhs.getRank(), lhsUsed)) ||
      failed(checkDims(loc, "rhs batch", rb, rhs.getRank(), rhsUsed)) ||
      failed(checkDims(loc, "rhs contracting", rc, rhs.getRank(), rhsUsed)))
    return failure();
  for (auto [l, r] : llvm::zip(lc, rc))
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(loc, "contracting dimension sizes differ: lhs dimension ", l,
                               " has size ", lhs.getDimSize(l), ", rhs dimension ", r,
                               " has size ", rhs.getDimSize(r));
  SmallVector<int64_t> shape;
  for (auto [l, r] : llvm::zip(lb, rb)) {
    if (lhs.getDimSize(l) != rhs.getDimSize(r))
      return emitOptionalError(loc, "batch dimension sizes differ: lhs dimension ", l,
                               " has size ", lhs.getDimSize(l), ", rhs dimension ", r,
                               " has size ", rhs.getDimSize(r));
    shape.push_back(lhs.getDimSize(l));
  }
  for (int64_t i = 0; i < lhs.getRank(); ++i)
    if (!lhsUsed.test(i))
      shape.push_back(lhs.getDimSize(i));
  for (int64_t i = 0; i < rhs.getRank(); ++i)
    if (!rhsUsed.test(i))
      shape.push_back(rhs.getDimSize(i));
  Type element = lhs.getElementType();
  if (auto preferred = adaptor.getPreferredElementType()) {
    // Checked before building the type: a tensor cannot hold e.g. a tensor.
    if (!isa<Float32Type, Float64Type, Float16Type, BFloat16Type>(*preferred) &&
        !preferred->isInteger(32) && !preferred->isInteger(64))
      return emitOptionalError(loc, "preferred_element_type must be one of f32, f64, f16, "
                                    "bf16, i32, i64, got ", *preferred);
    element = *preferred;
  }
  results.push_back(RankedTensorType::get(shape, element));
  return success();
}

LogicalResult TransposeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                            Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  ArrayRef<int64_t> perm = adaptor.getPermutation();
  if (static_cast<int64_t>(perm.size()) != type.getRank())
    return emitOptionalError(loc, "permutation has ", perm.size(),
                             " entries, expected the operand's rank ", type.getRank());
  llvm::SmallBitVector used(type.getRank());
  if (failed(checkDims(loc, "permutation", perm, type.getRank(), used)))
    return failure();
  SmallVector<int64_t> shape;
  for (int64_t p : perm)
    shape.push_back(type.getDimSize(p));
  results.push_back(type.clone(shape));
  return success();
}

LogicalResult SqueezeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                          Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  llvm::SmallBitVector removed(type.getRank());
  if (failed(checkDims(loc, "squeezed", adaptor.getDimensions(), type.getRank(), removed)))
    return failure();
  SmallVector<int64_t> shape;
  for (auto [i, size] : llvm::enumerate(type.getShape())) {
    if (!removed.test(i)) {
      shape.push_back(size);
    } else if (size != 1) {
      return emitOptionalError(loc, "cannot squeeze dimension ", i, " of size ", size);
    }
  }
  results.push_back(type.clone(shape));
  return success();
}

LogicalResult ExpandDimsOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                             Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  int64_t rank = type.getRank() + adaptor.getDimensions().size();
  llvm::SmallBitVector inserted(rank);
  if (failed(checkDims(loc, "inserted", adaptor.getDimensions(), rank, inserted)))
    return failure();
  SmallVector<int64_t> shape;
  auto next = type.getShape().begin();
  for (int64_t i = 0; i < rank; ++i)
    shape.push_back(inserted.test(i) ? 1 : *next++);
  results.push_back(type.clone(shape));
  return success();
}

LogicalResult ConcatenateOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                              Adaptor adaptor, SmallVectorImpl<Type> &results) {
  if (adaptor.getInputs().empty())
    return emitOptionalError(loc, "expected at least one input");
  auto first = rankedOrNull(adaptor.getInputs().front().getType());
  if (!first)
    return emitOptionalError(loc, "expected ranked tensor inputs");
  int64_t dim = adaptor.getDimension();
  if (dim < 0 || dim >= first.getRank())
    return emitOptionalError(loc, "concatenation dimension ", dim,
                             " is out of range for rank ", first.getRank());
  SmallVector<int64_t> shape(first.getShape());
  shape[dim] = 0;
  for (auto [i, input] : llvm::enumerate(adaptor.getInputs())) {
    auto type = rankedOrNull(input.getType());
    if (!type || type.getElementType() != first.getElementType() ||
        type.getRank() != first.getRank())
      return emitOptionalError(loc, "input ", i, " has type ", input.getType(),
                               ", incompatible with ", first);
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (d != dim && type.getDimSize(d) != first.getDimSize(d))
        return emitOptionalError(loc, "input ", i, " differs in dimension ", d,
                                 " outside the concatenation dimension");
    shape[dim] += type.getDimSize(dim);
  }
  results.push_back(first.clone(shape));
  return success();
}

LogicalResult SliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                        Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  ArrayRef<int64_t> start = adaptor.getStartIndices(), limit = adaptor.getLimitIndices(),
                    strides = adaptor.getStrides();
  size_t rank = type.getRank();
  if (start.size() != rank || limit.size() != rank || strides.size() != rank)
    return emitOptionalError(loc, "start, limit and strides must have one entry per "
                                  "dimension (", rank, ")");
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    if (start[d] < 0 || limit[d] > type.getDimSize(d) || start[d] > limit[d])
      return emitOptionalError(loc, "slice [", start[d], ", ", limit[d],
                               ") is out of bounds for dimension ", d, " of size ",
                               type.getDimSize(d));
    if (strides[d] < 1)
      return emitOptionalError(loc, "stride ", strides[d], " of dimension ", d,
                               " must be positive");
    shape.push_back((limit[d] - start[d] + strides[d] - 1) / strides[d]);
  }
  results.push_back(type.clone(shape));
  return success();
}

LogicalResult DynamicSliceOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                               Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  if (!type)
    return emitOptionalError(loc, "expected a ranked tensor operand");
  ArrayRef<int64_t> sizes = adaptor.getSliceSizes();
  if (adaptor.getStartIndices().size() != static_cast<size_t>(type.getRank()) ||
      sizes.size() != static_cast<size_t>(type.getRank()))
    return emitOptionalError(loc, "expected one start index and one slice size per "
                                  "dimension (", type.getRank(), ")");
  for (auto [d, size] : llvm::enumerate(sizes))
    if (size < 0 || size > type.getDimSize(d))
      return emitOptionalError(loc, "slice size ", size, " does not fit dimension ", d,
                               " of size ", type.getDimSize(d));
  results.push_back(type.clone(sizes));
  return success();
}

LogicalResult TakeOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                       Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  auto indices = rankedOrNull(adaptor.getIndices().getType());
  if (!type || !indices)
    return emitOptionalError(loc, "expected ranked tensor operands");
  int64_t axis = adaptor.getAxis();
  if (axis < 0 || axis >= type.getRank())
    return emitOptionalError(loc, "axis ", axis, " is out of range for ", type);
  SmallVector<int64_t> shape(type.getShape());
  shape[axis] = indices.getDimSize(0);
  results.push_back(type.clone(shape));
  return success();
}

LogicalResult PadOp::inferReturnTypes(MLIRContext *, std::optional<Location> loc,
                                      Adaptor adaptor, SmallVectorImpl<Type> &results) {
  auto type = rankedOrNull(adaptor.getOperand().getType());
  auto padType = rankedOrNull(adaptor.getPaddingValue().getType());
  if (!type || !padType)
    return emitOptionalError(loc, "expected ranked tensor operands");
  if (padType.getRank() != 0 || padType.getElementType() != type.getElementType())
    return emitOptionalError(loc, "padding value must be a 0-d tensor of ",
                             type.getElementType(), ", got ", padType);
  ArrayRef<int64_t> low = adaptor.getLow(), high = adaptor.getHigh(),
                    interior = adaptor.getInterior();
  size_t rank = type.getRank();
  if (low.size() != rank || high.size() != rank || interior.size() != rank)
    return emitOptionalError(loc, "low, high and interior must have one entry per "
                                  "dimension (", rank, ")");
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < rank; ++d) {
    if (interior[d] < 0)
      return emitOptionalError(loc, "interior padding ", interior[d], " of dimension ", d,
                               " must not be negative");
    int64_t size = type.getDimSize(d);
    int64_t padded = low[d] + high[d] + size + std::max<int64_t>(size - 1, 0) * interior[d];
    if (padded < 0)
      return emitOptionalError(loc, "padding makes dimension ", d, " negative (", padded, ")");
    shape.push_back(padded);
  }
  results.push_back(type.clone(shape));
  return success();
}

LogicalResult OptimizationBarrierOp::inferReturnTypes(MLIRContext *, std::optional<Location>,
                                                      Adaptor adaptor,
                                                      SmallVectorImpl<Type> &results) {
  for (Value v : adaptor.getOperands())
    results.push_back(v.getType());
  return success();
}

//===- LoweringUtils.cpp - shared pieces of the jx-to-linalg patterns ----===//
//
// Builders shared by the pattern files: constants, fills, elementwise
// linalg.generic ops, reshapes and the scalar conversions of
// convert_element_type.
//
//===----------------------------------------------------------------------===//

#include "conversion/llvm/LoweringUtils.h"
#include "conversion/llvm/LoweringPasses.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"

#include <cmath>

using namespace mlir;

bool cotangent::lowering::isLowFloat(Type type) { return type.isF16() || type.isBF16(); }

Value cotangent::lowering::emptyTensor(OpBuilder &b, Location loc, RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
}

Value cotangent::lowering::scalarConstant(OpBuilder &b, Location loc, Type type, double value) {
  if (auto floatType = dyn_cast<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(floatType, value));
  if (type.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(value != 0));
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, static_cast<int64_t>(value)));
}

Value cotangent::lowering::intConstant(OpBuilder &b, Location loc, Type type, int64_t value) {
  if (type.isIndex())
    return arith::ConstantIndexOp::create(b, loc, value);
  if (type.isInteger(1))
    return arith::ConstantOp::create(b, loc, b.getBoolAttr(value != 0));
  return arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, value));
}

Value cotangent::lowering::filledTensor(OpBuilder &b, Location loc, RankedTensorType type,
                                        Value value) {
  Value empty = emptyTensor(b, loc, type);
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty}).getResult(0);
}

Value cotangent::lowering::buildElementwise(OpBuilder &b, Location loc,
                                            RankedTensorType resultType, ValueRange inputs,
                                            ScalarBuilder body) {
  int64_t rank = resultType.getRank();
  MLIRContext *ctx = b.getContext();
  AffineMap identity = b.getMultiDimIdentityMap(rank);
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    auto type = cast<RankedTensorType>(input.getType());
    maps.push_back(type.getRank() == rank ? identity : AffineMap::get(rank, 0, {}, ctx));
  }
  maps.push_back(identity);
  SmallVector<utils::IteratorType> iterators(rank, utils::IteratorType::parallel);
  Value init = emptyTensor(b, loc, resultType);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value result = body(nested, nestedLoc, args.drop_back());
        linalg::YieldOp::create(nested, nestedLoc, result);
      });
  return generic.getResult(0);
}

Value cotangent::lowering::reshapeTensor(OpBuilder &b, Location loc, Value value,
                                         RankedTensorType type) {
  auto from = cast<RankedTensorType>(value.getType());
  if (from == type)
    return value;
  // One collapse or one expand where the reshape only merges or only splits
  // adjacent dimensions: a strided view (a slice of a projection split into
  // heads) stays a view, where going through rank 1 would copy it.
  if (from.getRank() > 0 && type.getRank() > 0 && from.getRank() != type.getRank()) {
    bool collapse = from.getRank() > type.getRank();
    if (std::optional<SmallVector<ReassociationIndices>> groups =
            collapse ? getReassociationIndicesForCollapse(from.getShape(), type.getShape())
                     : getReassociationIndicesForCollapse(type.getShape(), from.getShape())) {
      if (collapse)
        return tensor::CollapseShapeOp::create(b, loc, type, value, *groups);
      return tensor::ExpandShapeOp::create(b, loc, type, value, *groups);
    }
  }
  // Through rank 1 (or straight from/to rank 0, whose reassociation is empty).
  Value flat = value;
  if (from.getRank() == 0 || type.getRank() == 0) {
    if (from.getRank() != 0)
      return tensor::CollapseShapeOp::create(b, loc, type, value,
                                             SmallVector<ReassociationIndices>{});
    return tensor::ExpandShapeOp::create(b, loc, type, value,
                                         SmallVector<ReassociationIndices>{});
  }
  if (from.getRank() != 1) {
    ReassociationIndices all;
    for (int64_t i = 0; i < from.getRank(); ++i)
      all.push_back(i);
    auto flatType = RankedTensorType::get({from.getNumElements()}, from.getElementType());
    flat = tensor::CollapseShapeOp::create(b, loc, flatType, value,
                                           SmallVector<ReassociationIndices>{all});
  }
  if (type.getRank() == 1)
    return flat;
  ReassociationIndices all;
  for (int64_t i = 0; i < type.getRank(); ++i)
    all.push_back(i);
  return tensor::ExpandShapeOp::create(b, loc, type, flat,
                                       SmallVector<ReassociationIndices>{all});
}

Value cotangent::lowering::convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  if (to.isInteger(1)) {
    Value zero = scalarConstant(b, loc, from, 0);
    if (isa<FloatType>(from))
      return arith::CmpFOp::create(b, loc, arith::CmpFPredicate::UNE, v, zero);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, v, zero);
  }
  if (from.isInteger(1)) {
    if (isa<FloatType>(to))
      return arith::UIToFPOp::create(b, loc, to, v);
    return arith::ExtUIOp::create(b, loc, to, v);
  }
  if (isa<FloatType>(from) && isa<FloatType>(to)) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth() ||
        (from.isF16() && to.isBF16()) || (from.isBF16() && to.isF16())) {
      if (from.getIntOrFloatBitWidth() == to.getIntOrFloatBitWidth())
        v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
      else
        return arith::ExtFOp::create(b, loc, to, v);
    }
    return arith::TruncFOp::create(b, loc, to, v);
  }
  if (isa<IntegerType>(from) && isa<IntegerType>(to)) {
    if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
      return arith::ExtSIOp::create(b, loc, to, v);
    return arith::TruncIOp::create(b, loc, to, v);
  }
  if (isa<IntegerType>(from))
    return arith::SIToFPOp::create(b, loc, to, v);
  // Float to integer: truncate toward zero, saturate, NaN -> 0.
  if (isLowFloat(from)) {
    v = arith::ExtFOp::create(b, loc, b.getF32Type(), v);
    from = v.getType();
  }
  unsigned width = to.getIntOrFloatBitWidth();
  double bound = std::ldexp(1.0, static_cast<int>(width) - 1);
  Value lo = scalarConstant(b, loc, from, -bound);
  Value hi = scalarConstant(b, loc, from, bound);
  Value geLo = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v, lo);
  Value ltHi = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, hi);
  Value inRange = arith::AndIOp::create(b, loc, geLo, ltHi);
  Value safe = arith::SelectOp::create(b, loc, inRange, v, scalarConstant(b, loc, from, 0));
  Value r = arith::FPToSIOp::create(b, loc, to, safe);
  Value tooBig = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, v, hi);
  Value tooSmall = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, v, lo);
  int64_t maxValue = static_cast<int64_t>((uint64_t(1) << (width - 1)) - 1);
  r = arith::SelectOp::create(b, loc, tooBig, intConstant(b, loc, to, maxValue), r);
  r = arith::SelectOp::create(b, loc, tooSmall, intConstant(b, loc, to, -maxValue - 1), r);
  return r;
}

Value cotangent::lowering::extractIndex(OpBuilder &b, Location loc, Value scalarTensor) {
  Value scalar = tensor::ExtractOp::create(b, loc, scalarTensor, ValueRange{});
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), scalar);
}

Operation *mlir::cotangent::lowering::collectiveWaitOf(Operation *user) {
  auto pointer = dyn_cast<memref::ExtractAlignedPointerAsIndexOp>(user);
  if (!pointer)
    return nullptr;
  for (Operation *start : pointer->getUsers()) {
    auto call = dyn_cast<func::CallOp>(start);
    if (!call || call.getCallee() != abi::kCollectiveStart)
      continue;
    for (Operation *wait : call->getUsers())
      if (auto w = dyn_cast<func::CallOp>(wait); w && w.getCallee() == abi::kCollectiveWait)
        return w;
  }
  return nullptr;
}

Value mlir::cotangent::lowering::originOf(Value v) {
  while (true) {
    if (auto meta = v.getDefiningOp<memref::ExtractStridedMetadataOp>())
      v = meta.getSource();
    else if (auto view = v.getDefiningOp<ViewLikeOpInterface>())
      v = view.getViewSource();
    else
      return v;
  }
}

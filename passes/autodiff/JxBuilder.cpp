//===- JxBuilder.cpp - terse emission of jx ops ---------------------------===//

#include "passes/autodiff/JxBuilder.h"

using namespace mlir;
using namespace mlir::cotangent;
using namespace mlir::jx;

Value JxBuilder::splat(Type type, double value) {
  auto tensor = cast<RankedTensorType>(type);
  Type element = tensor.getElementType();
  Attribute scalar;
  if (auto f = dyn_cast<FloatType>(element))
    scalar = b.getFloatAttr(f, value);
  else
    scalar = b.getIntegerAttr(element, static_cast<int64_t>(value));
  return ConstantOp::create(b, loc, DenseElementsAttr::get(tensor, scalar));
}

Value JxBuilder::add(Value x, Value y) {
  if (!x)
    return y;
  if (!y)
    return x;
  return create<AddOp>(x, y);
}

Value JxBuilder::sub(Value x, Value y) {
  if (!y)
    return x;
  if (!x)
    return neg(y);
  return create<SubOp>(x, y);
}

Value JxBuilder::mul(Value x, Value y) {
  if (!x || !y)
    return Value();
  return create<MulOp>(x, y);
}

Value JxBuilder::neg(Value x) { return x ? create<NegOp>(x) : Value(); }

Value JxBuilder::div(Value x, Value y) { return x ? create<DivOp>(x, y) : Value(); }

Value JxBuilder::reduceSum(Value x, ArrayRef<int64_t> axes) {
  if (axes.empty())
    return x;
  return create<ReduceSumOp>(x, b.getDenseI64ArrayAttr(axes));
}

Value JxBuilder::broadcastInDim(Value x, Type type, ArrayRef<int64_t> dims) {
  if (x.getType() == type)
    return x;
  return BroadcastInDimOp::create(b, loc, type, x, b.getDenseI64ArrayAttr(dims));
}

Value JxBuilder::reshape(Value x, Type type) {
  if (x.getType() == type)
    return x;
  return ReshapeOp::create(b, loc, type, x);
}

Value JxBuilder::transpose(Value x, ArrayRef<int64_t> perm) {
  if (llvm::equal(perm, llvm::seq<int64_t>(0, perm.size())))
    return x;
  return create<TransposeOp>(x, b.getDenseI64ArrayAttr(perm));
}

Value JxBuilder::convert(Value x, Type type) {
  if (x.getType() == type)
    return x;
  return ConvertElementTypeOp::create(b, loc, type, x);
}

Value JxBuilder::select(Value which, ValueRange cases) { return create<SelectNOp>(which, cases); }

//===- Broadcast.cpp - implicit broadcasting and promotion, made explicit --===//

#include "tracer/Broadcast.h"

#include "tracer/TraceState.h"

#include <numeric>

using namespace mlir;

namespace cotangent::detail {

Shape broadcastShapes(const std::vector<Shape> &shapes, std::string_view op,
                      const std::vector<std::string> &described, const SrcLoc &loc) {
  size_t rank = 0;
  for (const Shape &s : shapes)
    rank = std::max(rank, s.size());
  Shape result(rank, 1);
  for (const Shape &s : shapes) {
    size_t offset = rank - s.size();
    for (size_t i = 0; i < s.size(); ++i) {
      int64_t &r = result[offset + i];
      if (s[i] == r || s[i] == 1)
        continue;
      if (r != 1)
        throwTraceError(op, "shapes cannot be broadcast together (NumPy rules)", described, loc);
      r = s[i];
    }
  }
  return result;
}

Tensor broadcastTo(const Tensor &t, const Shape &shape, std::string_view op, const SrcLoc &loc) {
  if (t.shape() == shape)
    return t;
  Value v = use(t, op, loc);
  if (t.rank() > static_cast<int64_t>(shape.size()))
    throwTraceError(op, "cannot broadcast " + t.str() + " to the lower rank " +
                            shapeString(t.dtype(), shape),
                    {t.str()}, loc);
  int64_t offset = static_cast<int64_t>(shape.size()) - t.rank();
  SmallVector<int64_t> dims;
  for (int64_t i = 0; i < t.rank(); ++i) {
    int64_t size = t.shape()[i];
    if (size != 1 && size != shape[offset + i])
      throwTraceError(op, "cannot broadcast " + t.str() + " to " + shapeString(t.dtype(), shape),
                      {t.str()}, loc);
    dims.push_back(offset + i);
  }
  TraceState &s = activeTrace(op, loc);
  auto bcast = emit<jx::BroadcastInDimOp>("broadcast_in_dim", loc, tensorType(s, shape, t.dtype()),
                                          v, s.builder().getDenseI64ArrayAttr(dims));
  return wrap(bcast, t.weak());
}

Tensor convertTo(const Tensor &t, DType dtype, const SrcLoc &loc) {
  if (t.dtype() == dtype)
    return t;
  Value v = use(t, "convert_element_type", loc);
  TraceState &s = activeTrace("convert_element_type", loc);
  auto op = emit<jx::ConvertElementTypeOp>("convert_element_type", loc,
                                           tensorType(s, t.shape(), dtype), v);
  return wrap(op, t.weak());
}

Tensor splat(double value, DType dtype, const Shape &shape, const SrcLoc &loc, bool weak) {
  TraceState &s = activeTrace("constant", loc);
  RankedTensorType type = tensorType(s, shape, dtype);
  Type element = type.getElementType();
  Attribute attr;
  if (isFloating(dtype))
    attr = FloatAttr::get(element, value);
  else if (dtype == DType::Bool)
    attr = IntegerAttr::get(element, value != 0);
  else
    attr = IntegerAttr::get(element, static_cast<int64_t>(value));
  auto op = emit<jx::ConstantOp>("constant", loc, DenseElementsAttr::get(type, {attr}));
  return wrap(op, weak);
}

std::vector<Tensor> harmonize(std::span<const Operand> operands, std::string_view op,
                              const SrcLoc &loc, std::optional<DType> dtype) {
  std::vector<PromotionInput> inputs;
  std::vector<Shape> shapes;
  std::vector<std::string> described;
  for (const Operand &o : operands) {
    switch (o.kind) {
    case Operand::Kind::Tensor:
      use(o.tensor, op, loc); // reject foreign tensors before anything is emitted
      inputs.push_back({o.tensor.dtype(), o.tensor.weak()});
      shapes.push_back(o.tensor.shape());
      described.push_back(o.tensor.str());
      break;
    case Operand::Kind::Int:
      inputs.push_back({DType::I32, true});
      described.push_back("int " + std::to_string(o.intValue));
      break;
    case Operand::Kind::Float:
      inputs.push_back({DType::F32, true});
      described.push_back("float " + std::to_string(o.floatValue));
      break;
    }
  }
  DType common = dtype ? *dtype : promoteTypes(inputs);
  Shape shape = broadcastShapes(shapes, op, described, loc);
  std::vector<Tensor> out;
  for (const Operand &o : operands) {
    if (o.kind == Operand::Kind::Tensor)
      out.push_back(broadcastTo(convertTo(o.tensor, common, loc), shape, op, loc));
    else
      out.push_back(splat(o.kind == Operand::Kind::Int ? static_cast<double>(o.intValue)
                                                       : o.floatValue,
                          common, shape, loc, /*weak=*/true));
  }
  return out;
}

DType inexact(DType t) { return isFloating(t) ? t : DType::F32; }

int64_t normalizeAxis(int64_t axis, int64_t rank, std::string_view op, const Tensor &t,
                      const SrcLoc &loc) {
  int64_t a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank)
    throwTraceError(op, "axis " + std::to_string(axis) + " is out of bounds for " + t.str() +
                            " of rank " + std::to_string(rank),
                    {t.str()}, loc);
  return a;
}

} // namespace cotangent::detail

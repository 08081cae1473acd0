//===- NumpyElementwise.cpp - np's elementwise functions ------------------===//
//
// Unary and binary elementwise functions. Binary ones go through
// `harmonize`, which makes broadcasting and promotion explicit; functions
// JAX computes in floats convert int and bool operands to f32 first.
//
//===----------------------------------------------------------------------===//

#include "tracer/Broadcast.h"
#include "tracer/Numpy.h"
#include "tracer/TraceState.h"

using namespace mlir;
using cotangent::detail::emit;
using cotangent::detail::use;
using cotangent::detail::wrap;

namespace cotangent::np {
namespace {

/// A unary op on floats: ints and bools are converted to f32 first.
template <class OpT>
Tensor floatUnary(const Tensor &x, std::string_view name, const SrcLoc &loc) {
  use(x, name, loc);
  Tensor in = detail::convertTo(x, detail::inexact(x.dtype()), loc);
  return wrap(emit<OpT>(name, loc, use(in, name, loc)));
}

/// A unary op on numbers: bools are rejected.
template <class OpT>
Tensor numericUnary(const Tensor &x, std::string_view name, const SrcLoc &loc) {
  use(x, name, loc);
  if (x.dtype() == DType::Bool)
    throwTraceError(name, "does not accept a bool tensor", {x.str()}, loc);
  return wrap(emit<OpT>(name, loc, use(x, name, loc)));
}

/// A binary op on harmonized operands, optionally in a fixed dtype.
template <class OpT>
Tensor binary(const Operand &x, const Operand &y, std::string_view name, const SrcLoc &loc,
              bool inexact = false, bool rejectBool = true) {
  Operand ops[] = {x, y};
  std::vector<Tensor> h = detail::harmonize(ops, name, loc);
  if (inexact && !isFloating(h[0].dtype()))
    h = detail::harmonize(ops, name, loc, detail::inexact(h[0].dtype()));
  if (rejectBool && h[0].dtype() == DType::Bool)
    throwTraceError(name, "does not accept bool operands", detail::describe(h), loc);
  return wrap(emit<OpT>(name, loc, use(h[0], name, loc), use(h[1], name, loc)));
}

template <class OpT>
Tensor compare(const Operand &x, const Operand &y, std::string_view name, const SrcLoc &loc) {
  return binary<OpT>(x, y, name, loc, /*inexact=*/false, /*rejectBool=*/false);
}

/// and/or/not: bools or ints only.
template <class OpT>
Tensor logical(const Operand &x, const Operand &y, std::string_view name, const SrcLoc &loc) {
  Operand ops[] = {x, y};
  std::vector<Tensor> h = detail::harmonize(ops, name, loc);
  if (isFloating(h[0].dtype()))
    throwTraceError(name, "expects bool or integer operands", detail::describe(h), loc);
  return wrap(emit<OpT>(name, loc, use(h[0], name, loc), use(h[1], name, loc)));
}

} // namespace

Tensor sin(const Tensor &x, SrcLoc loc) { return floatUnary<jx::SinOp>(x, "sin", loc); }
Tensor cos(const Tensor &x, SrcLoc loc) { return floatUnary<jx::CosOp>(x, "cos", loc); }
Tensor tan(const Tensor &x, SrcLoc loc) { return floatUnary<jx::TanOp>(x, "tan", loc); }
Tensor exp(const Tensor &x, SrcLoc loc) { return floatUnary<jx::ExpOp>(x, "exp", loc); }
Tensor log(const Tensor &x, SrcLoc loc) { return floatUnary<jx::LogOp>(x, "log", loc); }
Tensor log1p(const Tensor &x, SrcLoc loc) { return floatUnary<jx::Log1pOp>(x, "log1p", loc); }
Tensor expm1(const Tensor &x, SrcLoc loc) { return floatUnary<jx::Expm1Op>(x, "expm1", loc); }
Tensor erf(const Tensor &x, SrcLoc loc) { return floatUnary<jx::ErfOp>(x, "erf", loc); }
Tensor erfc(const Tensor &x, SrcLoc loc) { return floatUnary<jx::ErfcOp>(x, "erfc", loc); }
Tensor tanh(const Tensor &x, SrcLoc loc) { return floatUnary<jx::TanhOp>(x, "tanh", loc); }
Tensor logistic(const Tensor &x, SrcLoc loc) {
  return floatUnary<jx::LogisticOp>(x, "logistic", loc);
}
Tensor sqrt(const Tensor &x, SrcLoc loc) { return floatUnary<jx::SqrtOp>(x, "sqrt", loc); }
Tensor rsqrt(const Tensor &x, SrcLoc loc) { return floatUnary<jx::RsqrtOp>(x, "rsqrt", loc); }
Tensor floor(const Tensor &x, SrcLoc loc) { return floatUnary<jx::FloorOp>(x, "floor", loc); }
Tensor ceil(const Tensor &x, SrcLoc loc) { return floatUnary<jx::CeilOp>(x, "ceil", loc); }
Tensor abs(const Tensor &x, SrcLoc loc) { return numericUnary<jx::AbsOp>(x, "abs", loc); }
Tensor sign(const Tensor &x, SrcLoc loc) { return numericUnary<jx::SignOp>(x, "sign", loc); }
Tensor negative(const Tensor &x, SrcLoc loc) { return numericUnary<jx::NegOp>(x, "neg", loc); }

Tensor logical_not(const Tensor &x, SrcLoc loc) {
  use(x, "not", loc);
  if (isFloating(x.dtype()))
    throwTraceError("not", "expects a bool or integer operand", {x.str()}, loc);
  return wrap(emit<jx::NotOp>("not", loc, use(x, "not", loc)));
}

Tensor stop_gradient(const Tensor &x, SrcLoc loc) {
  return wrap(emit<jx::StopGradientOp>("stop_gradient", loc, use(x, "stop_gradient", loc)));
}

Tensor relu(const Tensor &x, SrcLoc loc) { return maximum(x, 0, loc); }

Tensor integer_pow(const Tensor &x, int64_t n, SrcLoc loc) {
  use(x, "integer_pow", loc);
  if (x.dtype() == DType::Bool)
    throwTraceError("integer_pow", "does not accept a bool tensor", {x.str()}, loc);
  if (n < 0 && !isFloating(x.dtype()))
    throwTraceError("integer_pow",
                    "negative exponent " + std::to_string(n) + " needs a float tensor",
                    {x.str()}, loc);
  detail::TraceState &s = detail::activeTrace("integer_pow", loc);
  return wrap(emit<jx::IntegerPowOp>("integer_pow", loc, use(x, "integer_pow", loc),
                                     s.builder().getI64IntegerAttr(n)));
}

Tensor power(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::PowOp>(x, y, "pow", loc, /*inexact=*/true);
}

Tensor add(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::AddOp>(x, y, "add", loc);
}
Tensor subtract(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::SubOp>(x, y, "sub", loc);
}
Tensor multiply(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::MulOp>(x, y, "mul", loc);
}
Tensor divide(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::DivOp>(x, y, "div", loc, /*inexact=*/true);
}
Tensor maximum(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::MaxOp>(x, y, "max", loc);
}
Tensor minimum(const Operand &x, const Operand &y, SrcLoc loc) {
  return binary<jx::MinOp>(x, y, "min", loc);
}
Tensor equal(const Operand &x, const Operand &y, SrcLoc loc) {
  return compare<jx::EqOp>(x, y, "eq", loc);
}
Tensor not_equal(const Operand &x, const Operand &y, SrcLoc loc) {
  return compare<jx::NeOp>(x, y, "ne", loc);
}
Tensor less(const Operand &x, const Operand &y, SrcLoc loc) {
  return compare<jx::LtOp>(x, y, "lt", loc);
}
Tensor less_equal(const Operand &x, const Operand &y, SrcLoc loc) {
  return compare<jx::LeOp>(x, y, "le", loc);
}
Tensor greater(const Operand &x, const Operand &y, SrcLoc loc) {
  return compare<jx::GtOp>(x, y, "gt", loc);
}
Tensor greater_equal(const Operand &x, const Operand &y, SrcLoc loc) {
  return compare<jx::GeOp>(x, y, "ge", loc);
}
Tensor logical_and(const Operand &x, const Operand &y, SrcLoc loc) {
  return logical<jx::AndOp>(x, y, "and", loc);
}
Tensor logical_or(const Operand &x, const Operand &y, SrcLoc loc) {
  return logical<jx::OrOp>(x, y, "or", loc);
}
Tensor bitwise_xor(const Operand &x, const Operand &y, SrcLoc loc) {
  return logical<jx::XorOp>(x, y, "xor", loc);
}
Tensor shift_right_logical(const Operand &x, const Operand &y, SrcLoc loc) {
  Operand ops[] = {x, y};
  std::vector<Tensor> h = detail::harmonize(ops, "shift_right_logical", loc);
  if (!isInteger(h[0].dtype()))
    throwTraceError("shift_right_logical", "expects integer operands", detail::describe(h), loc);
  return wrap(emit<jx::ShiftRightLogicalOp>("shift_right_logical", loc,
                                            use(h[0], "shift_right_logical", loc),
                                            use(h[1], "shift_right_logical", loc)));
}
Tensor bitcast_convert_type(const Tensor &x, DType dtype, SrcLoc loc) {
  use(x, "bitcast_convert_type", loc);
  if (x.dtype() == DType::Bool || dtype == DType::Bool || bitWidth(x.dtype()) != bitWidth(dtype))
    throwTraceError("bitcast_convert_type",
                    "needs element types of one bit width (not bool), got " + x.str() + " to " +
                        std::string(dtypeName(dtype)),
                    {x.str()}, loc);
  detail::TraceState &s = detail::activeTrace("bitcast_convert_type", loc);
  return wrap(emit<jx::BitcastConvertTypeOp>("bitcast_convert_type", loc,
                                             detail::tensorType(s, x.shape(), dtype),
                                             use(x, "bitcast_convert_type", loc)));
}

Tensor where(const Operand &cond, const Operand &x, const Operand &y, SrcLoc loc) {
  // The branches are promoted together; the condition only broadcasts.
  Operand xy[] = {x, y};
  std::vector<Tensor> values = detail::harmonize(xy, "select_n", loc);
  Operand c[] = {cond};
  Tensor pred = detail::harmonize(c, "select_n", loc)[0];
  if (pred.dtype() != DType::Bool)
    pred = not_equal(pred, 0, loc);
  Shape shape = detail::broadcastShapes({pred.shape(), values[0].shape()}, "select_n",
                                        {pred.str(), values[0].str()}, loc);
  pred = detail::broadcastTo(pred, shape, "select_n", loc);
  Tensor onFalse = detail::broadcastTo(values[1], shape, "select_n", loc);
  Tensor onTrue = detail::broadcastTo(values[0], shape, "select_n", loc);
  Value cases[] = {use(onFalse, "select_n", loc), use(onTrue, "select_n", loc)};
  return wrap(emit<jx::SelectNOp>("select_n", loc, use(pred, "select_n", loc),
                                  ValueRange(cases)));
}

} // namespace cotangent::np

//===- NumpyReduce.cpp - np's reductions and contractions ------------------===//
//
// sum/mean/max/min/prod/argmax/cumsum, and dot/matmul lowered to one
// jx.dot_general with NumPy's choice of contracting and batch dimensions.
//
//===----------------------------------------------------------------------===//

#include "tracer/Broadcast.h"
#include "tracer/Numpy.h"
#include "tracer/TraceState.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using cotangent::detail::checkInference;
using cotangent::detail::emit;
using cotangent::detail::TraceState;
using cotangent::detail::use;
using cotangent::detail::wrap;

namespace cotangent::np {
namespace {

/// The reduced axes, normalized and sorted; all axes when none are given.
std::vector<int64_t> reducedAxes(const Tensor &x, const Axes &axes, std::string_view op,
                                 const SrcLoc &loc) {
  std::vector<int64_t> out;
  if (!axes.axes) {
    out.resize(x.rank());
    std::iota(out.begin(), out.end(), 0);
    return out;
  }
  for (int64_t a : *axes.axes)
    out.push_back(detail::normalizeAxis(a, x.rank(), op, x, loc));
  std::sort(out.begin(), out.end());
  if (std::adjacent_find(out.begin(), out.end()) != out.end())
    throwTraceError(op, "repeated reduction axis", {x.str()}, loc);
  return out;
}

template <class OpT>
Tensor reduce(const Tensor &x, const Axes &axes, bool keepdims, std::string_view op,
              const SrcLoc &loc) {
  use(x, op, loc);
  std::vector<int64_t> dims = reducedAxes(x, axes, op, loc);
  // jx reductions are numeric; bools are reduced as i32 (JAX sums them so).
  Tensor in = detail::convertTo(x, x.dtype() == DType::Bool ? DType::I32 : x.dtype(), loc);
  TraceState &s = detail::activeTrace(op, loc);
  Tensor out = wrap(emit<OpT>(op, loc, use(in, op, loc), s.builder().getDenseI64ArrayAttr(dims)));
  if (keepdims && !dims.empty())
    out = expand_dims(out, std::vector<int64_t>(dims), loc);
  return out;
}

/// Both operands in their promoted dtype; bools are rejected.
std::pair<Tensor, Tensor> promotePair(const Tensor &a, const Tensor &b, std::string_view op,
                                      const SrcLoc &loc) {
  use(a, op, loc);
  use(b, op, loc);
  DType t = promoteTypes({{a.dtype(), a.weak()}, {b.dtype(), b.weak()}});
  if (t == DType::Bool)
    throwTraceError(op, "does not accept bool operands", {a.str(), b.str()}, loc);
  return {detail::convertTo(a, t, loc), detail::convertTo(b, t, loc)};
}

Tensor dotGeneral(const Tensor &a, const Tensor &b, std::vector<int64_t> lc,
                  std::vector<int64_t> rc, std::vector<int64_t> lb, std::vector<int64_t> rb,
                  const SrcLoc &loc) {
  TraceState &s = detail::activeTrace("dot_general", loc);
  OpBuilder &bld = s.builder();
  Value lhs = use(a, "dot_general", loc), rhs = use(b, "dot_general", loc);
  auto lcA = bld.getDenseI64ArrayAttr(lc), rcA = bld.getDenseI64ArrayAttr(rc),
       lbA = bld.getDenseI64ArrayAttr(lb), rbA = bld.getDenseI64ArrayAttr(rb);
  checkInference<jx::DotGeneralOp>(
      s, "dot_general", loc, ValueRange{lhs, rhs},
      {bld.getNamedAttr("lhs_contracting_dimensions", lcA),
       bld.getNamedAttr("rhs_contracting_dimensions", rcA),
       bld.getNamedAttr("lhs_batch_dimensions", lbA),
       bld.getNamedAttr("rhs_batch_dimensions", rbA)});
  return wrap(emit<jx::DotGeneralOp>("dot_general", loc, lhs, rhs, lcA, rcA, lbA, rbA, nullptr));
}

} // namespace

Tensor sum(const Tensor &x, Axes axes, bool keepdims, SrcLoc loc) {
  return reduce<jx::ReduceSumOp>(x, axes, keepdims, "reduce_sum", loc);
}
Tensor max(const Tensor &x, Axes axes, bool keepdims, SrcLoc loc) {
  return reduce<jx::ReduceMaxOp>(x, axes, keepdims, "reduce_max", loc);
}
Tensor min(const Tensor &x, Axes axes, bool keepdims, SrcLoc loc) {
  return reduce<jx::ReduceMinOp>(x, axes, keepdims, "reduce_min", loc);
}
Tensor prod(const Tensor &x, Axes axes, bool keepdims, SrcLoc loc) {
  return reduce<jx::ReduceProdOp>(x, axes, keepdims, "reduce_prod", loc);
}

Tensor mean(const Tensor &x, Axes axes, bool keepdims, SrcLoc loc) {
  use(x, "reduce_sum", loc);
  std::vector<int64_t> dims = reducedAxes(x, axes, "reduce_sum", loc);
  int64_t count = 1;
  for (int64_t d : dims)
    count *= x.shape()[d];
  Tensor total = sum(detail::convertTo(x, detail::inexact(x.dtype()), loc),
                     std::vector<int64_t>(dims), keepdims, loc);
  return divide(total, static_cast<double>(count), loc);
}

Tensor argmax(const Tensor &x, std::optional<int64_t> axis, bool keepdims, SrcLoc loc) {
  use(x, "argmax", loc);
  Tensor in = detail::convertTo(x, x.dtype() == DType::Bool ? DType::I32 : x.dtype(), loc);
  if (!axis) {
    in = reshape(in, {x.size()}, loc);
    axis = 0;
  }
  if (in.rank() == 0 || in.size() == 0)
    throwTraceError("argmax", "needs a non-empty tensor of rank >= 1", {x.str()}, loc);
  int64_t a = detail::normalizeAxis(*axis, in.rank(), "argmax", x, loc);
  Shape shape = in.shape();
  shape.erase(shape.begin() + a);
  TraceState &s = detail::activeTrace("argmax", loc);
  Tensor out = wrap(emit<jx::ArgmaxOp>("argmax", loc, detail::tensorType(s, shape, DType::I32),
                                       use(in, "argmax", loc), s.builder().getI64IntegerAttr(a)));
  if (keepdims)
    out = expand_dims(out, a, loc);
  return out;
}

Tensor cumsum(const Tensor &x, int64_t axis, bool reverse, SrcLoc loc) {
  use(x, "cumsum", loc);
  int64_t a = detail::normalizeAxis(axis, x.rank(), "cumsum", x, loc);
  Tensor in = detail::convertTo(x, x.dtype() == DType::Bool ? DType::I32 : x.dtype(), loc);
  TraceState &s = detail::activeTrace("cumsum", loc);
  OpBuilder &b = s.builder();
  return wrap(emit<jx::CumsumOp>("cumsum", loc, use(in, "cumsum", loc), b.getI64IntegerAttr(a),
                                 reverse ? b.getUnitAttr() : UnitAttr()));
}

Tensor dot_general(const Tensor &a0, const Tensor &b0, std::vector<int64_t> lhs_contracting,
                   std::vector<int64_t> rhs_contracting, std::vector<int64_t> lhs_batch,
                   std::vector<int64_t> rhs_batch, SrcLoc loc) {
  auto [a, b] = promotePair(a0, b0, "dot_general", loc);
  return dotGeneral(a, b, std::move(lhs_contracting), std::move(rhs_contracting),
                    std::move(lhs_batch), std::move(rhs_batch), loc);
}

Tensor dot(const Tensor &a0, const Tensor &b0, SrcLoc loc) {
  auto [a, b] = promotePair(a0, b0, "dot_general", loc);
  if (a.rank() == 0 || b.rank() == 0)
    return multiply(a, b, loc);
  int64_t rc = b.rank() == 1 ? 0 : b.rank() - 2;
  return dotGeneral(a, b, {a.rank() - 1}, {rc}, {}, {}, loc);
}

Tensor matmul(const Tensor &a0, const Tensor &b0, SrcLoc loc) {
  auto [a, b] = promotePair(a0, b0, "dot_general", loc);
  if (a.rank() == 0 || b.rank() == 0)
    throwTraceError("dot_general", "matmul does not accept 0-d operands", {a.str(), b.str()}, loc);
  if (a.rank() <= 2 && b.rank() <= 2)
    return dot(a, b, loc);
  if (a.rank() == 1 || b.rank() == 1)
    return dot(a, b, loc);
  // A matrix on the right has no batch axes to broadcast: contracting a's
  // last axis with it is the same product (JAX's dot_general) without the
  // matrix copied per batch element, and its gradient is one product over
  // every leading axis, not one per element summed after.
  if (b.rank() == 2)
    return dot(a, b, loc);
  // Leading axes are batch axes, broadcast against each other.
  Shape ba(a.shape().begin(), a.shape().end() - 2), bb(b.shape().begin(), b.shape().end() - 2);
  Shape batch = detail::broadcastShapes({ba, bb}, "dot_general", {a.str(), b.str()}, loc);
  Shape as = batch, bs = batch;
  as.insert(as.end(), a.shape().end() - 2, a.shape().end());
  bs.insert(bs.end(), b.shape().end() - 2, b.shape().end());
  Tensor lhs = detail::broadcastTo(a, as, "dot_general", loc);
  Tensor rhs = detail::broadcastTo(b, bs, "dot_general", loc);
  int64_t k = static_cast<int64_t>(batch.size());
  std::vector<int64_t> batchDims(k);
  std::iota(batchDims.begin(), batchDims.end(), 0);
  return dotGeneral(lhs, rhs, {k + 1}, {k}, batchDims, batchDims, loc);
}

} // namespace cotangent::np
